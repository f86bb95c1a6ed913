#!/usr/bin/env bash
# Runs the lock-redis benchmark harness against a local redis-server it starts itself (loopback,
# no persistence) and writes JSON. Usage: lock-redis/bench.sh [output.json]
# Interleaved A/B (distlock vs two PINGs vs the raw scripts, then hand-off):
#   lock-redis/bench.sh ab [rounds] [handoffs]
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -q -pl lock-redis -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
CP="lock-redis/target/test-classes:lock-redis/target/classes:$(cat lock-redis/target/test-classpath.txt)"
if [ "${1:-}" = "ab" ]; then
  shift
  exec java -cp "$CP" io.distlock.redis.RedisAbBench "$@"
fi
exec java -cp "$CP" io.distlock.redis.RedisBenchmark "${1:-lock-redis/target/redis-bench.json}"

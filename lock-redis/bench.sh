#!/usr/bin/env bash
# Runs the lock-redis benchmark harness against a local redis-server it starts itself (loopback,
# no persistence) and writes JSON. Usage: lock-redis/bench.sh [output.json]
# Interleaved A/B (distlock vs two PINGs vs the raw scripts, then hand-off):
#   lock-redis/bench.sh ab [rounds] [handoffs]
# The hand-off script (RELEASE_QUEUED) of another checkout against this one's, alternating, after a hold:
#   lock-redis/bench.sh grant-before-after <other checkout> [hand-offs] [hold µs]
# Server time per script vs PING (SLOWLOG at threshold 0, INFO commandstats), uncontended and hand-off:
#   lock-redis/bench.sh cost [operations] [hand-offs]
# Before/after in one JVM (another checkout's lock-api + lock-redis against this one's, two class loaders):
#   lock-redis/bench.sh before-after <other checkout> [rounds] [warmup]
# Hand-off (release by A -> acquisition by waiting B) before/after in one JVM, alternating blocks:
#   lock-redis/bench.sh handoff-before-after <other checkout> [rounds] [hand-offs per block] [waiters]
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -q -pl lock-redis -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
CP="lock-redis/target/test-classes:lock-redis/target/classes:$(cat lock-redis/target/test-classpath.txt)"
if [ "${1:-}" = "grant-before-after" ]; then
  other="$(cd "$2" && pwd)"
  shift 2
  (cd "$other" && ./mvnw -q -pl lock-redis -am compile -Dspotless.check.skip=true)
  exec java -cp "$CP" io.distlock.redis.RedisGrantScriptBench "$other/lock-redis/target/classes" "$@"
fi
if [ "${1:-}" = "before-after" ] || [ "${1:-}" = "handoff-before-after" ]; then
  main=io.distlock.redis.RedisBeforeAfterBench
  [ "$1" = "handoff-before-after" ] && main=io.distlock.redis.RedisHandOffBeforeAfterBench
  other="$(cd "$2" && pwd)"
  shift 2
  (cd "$other" && ./mvnw -q -pl lock-redis -am compile -Dspotless.check.skip=true)
  exec java -cp "$CP" "$main" \
    "$other/lock-api/target/classes:$other/lock-redis/target/classes" \
    "lock-api/target/classes:lock-redis/target/classes" lock-redis/target/test-classes "$@"
fi
if [ "${1:-}" = "cost" ]; then
  shift
  exec java -cp "$CP" io.distlock.redis.RedisScriptCostBench "$@"
fi
if [ "${1:-}" = "ab" ]; then
  shift
  exec java -cp "$CP" io.distlock.redis.RedisAbBench "$@"
fi
exec java -cp "$CP" io.distlock.redis.RedisBenchmark "${1:-lock-redis/target/redis-bench.json}"

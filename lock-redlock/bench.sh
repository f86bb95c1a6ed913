#!/usr/bin/env bash
# Runs the lock-redlock benchmark harness against five local redis-server processes it starts itself
# (loopback, no persistence) and writes JSON. Usage: lock-redlock/bench.sh [output.json]
# Interleaved A/B (this build vs the round-trip floor vs RedissonRedLock, optionally vs other builds):
#   [AB_OLD=<worktree>] [AB_HEAD=<worktree>] [AB_JAVA_OPTS=-Dab.variants=ours,old,head,redisson,raw3] \
#     lock-redlock/bench.sh ab [blocks] [contendedSeconds]
#   (each worktree built with ./mvnw -q -o -pl lock-redlock -am package -DskipTests)
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -q -pl lock-redlock -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
CP="lock-redlock/target/test-classes:lock-redlock/target/classes:$(cat lock-redlock/target/test-classpath.txt)"
if [ "${1:-}" = "ab" ]; then
  shift
  # another build: its lock-api, lock-redis and lock-redlock classes with this build's third-party jars
  other_cp() {
    echo "$1/lock-api/target/classes:$1/lock-redis/target/classes:$1/lock-redlock/target/classes:$(tr ':' '\n' \
      < lock-redlock/target/test-classpath.txt | grep -v '/target/' | grep 'jedis\|authx\|slf4j\|commons-pool2\|gson\|json' \
      | paste -sd: -)"
  }
  PROPS=()
  [ -n "${AB_OLD:-}" ] && PROPS+=("-Dab.old.cp=$(other_cp "$AB_OLD")")
  [ -n "${AB_HEAD:-}" ] && PROPS+=("-Dab.head.cp=$(other_cp "$AB_HEAD")")
  # shellcheck disable=SC2086
  exec java "${PROPS[@]}" ${AB_JAVA_OPTS:-} -cp "$CP" io.distlock.redlock.bench.RedlockAbBench "$@"
fi
exec java -cp "$CP" io.distlock.redlock.bench.RedlockBenchmark "${1:-lock-redlock/target/redlock-bench.json}"

#!/usr/bin/env bash
# Runs the lock-redlock benchmark harness against five local redis-server processes it starts itself
# (loopback, no persistence) and writes JSON. Usage: lock-redlock/bench.sh [output.json]
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -q -pl lock-redlock -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
CP="lock-redlock/target/test-classes:lock-redlock/target/classes:$(cat lock-redlock/target/test-classpath.txt)"
exec java -cp "$CP" io.distlock.redlock.bench.RedlockBenchmark "${1:-lock-redlock/target/redlock-bench.json}"

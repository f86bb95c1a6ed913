#!/usr/bin/env bash
# What a release needs, checked on this checkout:
#  1. ./mvnw -Prelease deploy writes the staging repository build-output/staging-deploy: every shipped
#     artifact with its POM, sources and javadoc jars and checksums;
#  2. distlock-consumer-test, a project outside the reactor that imports the BOM and depends on
#     lock-redis and lock-etcd, builds against that staging repository only (a local repository
#     without any io.distlock artifact) and runs its test against real Redis and etcd servers;
#  3. a second clean build gives byte-identical jars (project.build.outputTimestamp).
# Usage: scripts/check-release.sh [--after-build]
#   --after-build: the jars in target/ come from a clean build of this very checkout (as in CI, right
#   after ./distlock test); they are the first of the two builds compared in 3, which then needs no
#   build of its own
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
after_build=0
case "${1:-}" in
  --after-build) after_build=1 ;;
  "") ;;
  *) echo "usage: scripts/check-release.sh [--after-build]" >&2; exit 2 ;;
esac
shipped=$(sed -n 's|.*<artifactId>\(lock-[a-z-]*\)</artifactId>.*|\1|p' lock-bom/pom.xml | sort -u)
jar_hashes() {
  for m in $shipped; do
    [ "$m" = lock-bom ] || sha256sum "$m"/target/*.jar
  done
}

earlier=$(mktemp)
if [ "$after_build" = 1 ]; then
  jar_hashes > "$earlier"
fi

# 1. staging repository
rm -rf build-output/staging-deploy
./mvnw -B -q -Prelease clean deploy -DskipTests -DskipITs -Dspotless.check.skip=true
staging="$root/build-output/staging-deploy"
for m in $shipped; do
  dir="$staging/io/distlock/$m"
  [ -d "$dir" ] || { echo "check-release: $m is not in the staging repository" >&2; exit 1; }
  if [ "$m" != lock-bom ]; then
    for kind in "" -sources -javadoc; do
      ls "$dir"/*/"$m"-*"$kind".jar "$dir"/*/"$m"-*"$kind".jar.sha1 >/dev/null
    done
  fi
  ls "$dir"/*/*.pom >/dev/null
done
first=$(mktemp)
repo=$(mktemp -d "${TMPDIR:-/tmp}/distlock-consumer-m2.XXXXXX")
all_first="$first"
trap 'rm -rf "$repo" "$all_first" "$earlier" ${subset:-} ${second:-}' EXIT
jar_hashes > "$first"

# 2. a consumer outside the reactor
version=$(./mvnw -B -q help:evaluate -Dexpression=project.version -DforceStdout -N)
src="${MAVEN_LOCAL_REPO:-$HOME/.m2/repository}"
if [ -d "$src" ]; then
  cp -al "$src/." "$repo/" 2>/dev/null || cp -a "$src/." "$repo/"
fi
rm -rf "$repo/io/distlock"
./mvnw -B -q -f distlock-consumer-test/pom.xml -Dmaven.repo.local="$repo" \
  -Ddistlock.version="$version" -Ddistlock.staging="file://$staging" clean verify
echo "check-release: the staged artifacts ($version) work in a project outside the reactor"

# 3. reproducible jars
if [ "$after_build" = 1 ]; then
  # the earlier build made no sources or javadoc jars: compare the jars it made
  second="$earlier"
  subset=$(mktemp)
  awk 'NR == FNR { made[$2] = 1; next } ($2 in made)' "$earlier" "$first" > "$subset"
  first="$subset"
else
  ./mvnw -B -q -Prelease clean package -DskipTests -DskipITs -Dspotless.check.skip=true \
    -pl "$(echo $shipped | tr ' ' ',' | sed 's/lock-bom,\{0,1\}//; s/,$//')" -am
  second=$(mktemp)
  jar_hashes > "$second"
fi
if ! diff "$second" "$first"; then
  echo "check-release: two clean builds gave different jars (above)" >&2
  exit 1
fi
echo "check-release: $(wc -l < "$first") jars byte-identical across two clean builds"

#!/usr/bin/env bash
# Reports changes to the public API of every shipped artifact against the baseline release
# (distlock.api.baseline in the root pom): builds that release from its git tag v<baseline> into a
# scratch local repository, then runs the api-check profile (japicmp) on this checkout. Fails on a
# binary- or source-incompatible change of public API (internal packages excepted).
# Usage: scripts/check-api.sh [baseline-version]
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(./mvnw -B -q help:evaluate -Dexpression=project.version -DforceStdout -N)
baseline="${1:-$(./mvnw -B -q help:evaluate -Dexpression=distlock.api.baseline -DforceStdout -N)}"
if [ "$baseline" = "$version" ]; then
  echo "check-api: $version is the baseline release itself: nothing to compare with"
  exit 0
fi
tag="v$baseline"
if ! git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
  echo "check-api: no tag $tag in this checkout (git fetch --tags), so no baseline to compare with" >&2
  exit 2
fi
repo=$(mktemp -d "${TMPDIR:-/tmp}/distlock-api-m2.XXXXXX")
tree=$(mktemp -d "${TMPDIR:-/tmp}/distlock-api-baseline.XXXXXX")
cleanup() {
  git worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"
  rm -rf "$repo"
}
trap cleanup EXIT
src="${MAVEN_LOCAL_REPO:-$HOME/.m2/repository}"
if [ -d "$src" ]; then
  cp -al "$src/." "$repo/" 2>/dev/null || cp -a "$src/." "$repo/"
fi
rm -rf "$repo/io/distlock"
# the shipped artifacts (the BOM's), built from the tag and from this checkout; nothing else is compared
shipped() { sed -n 's|.*<artifactId>\(lock-[a-z-]*\)</artifactId>.*|\1|p' lock-bom/pom.xml | grep -vx lock-bom | sort -u | paste -sd, -; }
git worktree add -q --detach "$tree" "$tag"
(cd "$tree" && ./mvnw -B -q install -DskipTests -DskipITs -Dspotless.check.skip=true -Denforcer.skip=true \
  -Dmaven.repo.local="$repo" -pl "$(shipped)" -am)
./mvnw -B -q -Papi-check verify -DskipTests -DskipITs -Dspotless.check.skip=true -Denforcer.skip=true \
  -Dmaven.repo.local="$repo" -Ddistlock.api.baseline="$baseline" -pl "$(shipped)" -am
echo "check-api: the public API of $version is compatible with $baseline"

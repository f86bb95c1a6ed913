#!/usr/bin/env bash
# Renders a comparison report in headless Chromium and checks it: the page renders, every chart is
# present and drawn, and the browser logs no console errors. Leaves report.png beside the report.
# usage: scripts/check-report.sh results/compare-.../report.html
set -euo pipefail
report="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
dir="$(dirname "$report")"
browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >/dev/null
    browser="$(command -v chromium)"
  else
    echo "check-report: chromium is not installed (apt-get install chromium)" >&2
    exit 1
  fi
fi
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$profile" --enable-logging=stderr --v=0)

"$browser" "${flags[@]}" --dump-dom "file://$report" > "$dir/report.dom.html" 2> "$dir/report.console.log"
"$browser" "${flags[@]}" --window-size=1280,3600 --screenshot="$dir/report.png" "file://$report" \
  >/dev/null 2>> "$dir/report.console.log"

fail=0
for id in summary chart-uncontended chart-floor chart-roundtrips chart-throughput chart-handoff chart-distribution guarantees; do
  if ! grep -q "id=\"$id\"" "$dir/report.dom.html"; then
    echo "check-report: missing element #$id" >&2; fail=1
  fi
done
charts=$(grep -o '<svg[^>]*class="chart-svg"' "$dir/report.dom.html" | wc -l)
drawn=$(grep -o '<rect class="bar"\|<polyline class="curve"' "$dir/report.dom.html" | wc -l)
if [ "$charts" -lt 6 ] || [ "$drawn" -lt 6 ]; then
  echo "check-report: expected 6 drawn charts, found $charts charts with $drawn marks" >&2; fail=1
fi
if grep -E ':CONSOLE[:(]|Uncaught ' "$dir/report.console.log" >&2; then  # the page has no scripts: any console message is a failure
  echo "check-report: console errors (see $dir/report.console.log)" >&2; fail=1
fi
if [ ! -s "$dir/report.png" ]; then
  echo "check-report: no screenshot was written" >&2; fail=1
fi
[ $fail = 0 ] && echo "check-report: ok ($charts charts, $drawn marks, screenshot $dir/report.png)"
exit $fail

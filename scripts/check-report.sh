#!/usr/bin/env bash
# Renders a comparison report in headless Chromium and checks it: the page renders, the at-a-glance
# cards and every chart are present and drawn (the delay and scale charts when the results.json beside
# the report says the run measured them), and the browser logs no console errors. Leaves beside
# the report report.png (the page's top 3600 px) and report-at-a-glance.png (the title and the
# at-a-glance cards, cut where that section ends).
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

# The at-a-glance screenshot: a copy of the page with one script that writes where the section ends
# into the title (the report itself has no scripts), then the report's top that many pixels high.
measure="$profile/measure.html"
sed 's#</body>#<script>document.title="glance-bottom:"+Math.ceil(document.getElementById("at-a-glance").getBoundingClientRect().bottom+window.scrollY+16)</script></body>#' \
  "$report" > "$measure"
bottom=$("$browser" "${flags[@]}" --hide-scrollbars --window-size=1280,1000 --dump-dom "file://$measure" 2>/dev/null \
  | grep -o 'glance-bottom:[0-9]*' | head -1 | cut -d: -f2 || true)
glance="$dir/report-at-a-glance.png"
rm -f "$glance"
if [ -n "$bottom" ]; then
  "$browser" "${flags[@]}" --hide-scrollbars --window-size=1280,"$bottom" --screenshot="$glance" "file://$report" \
    >/dev/null 2>> "$dir/report.console.log"
fi

fail=0
ids="at-a-glance summary chart-uncontended chart-floor chart-roundtrips chart-throughput chart-handoff
     chart-distribution guarantees method environment"
# the sections of what the run measured (its results.json beside the report): modes, delays, scale curves
results="$dir/results.json"
if [ -f "$results" ]; then
  grep -q '"mode": "' "$results" && ids="$ids modes chart-modes"
  if grep -qE '"one_way_delays_us": \[[^]]*[1-9]' "$results"; then
    ids="$ids delays chart-delay-latency chart-delay-throughput"
  fi
  grep -qE '"clients": \[[0-9]' "$results" && ids="$ids scale chart-scale-clients"
  grep -qE '"held_locks": \[[0-9]' "$results" && ids="$ids scale chart-scale-held-locks"
  grep -qE '"waiters": \[[0-9]' "$results" && ids="$ids scale chart-scale-waiters"
fi
for id in $ids; do
  if ! grep -q "id=\"$id\"" "$dir/report.dom.html"; then
    echo "check-report: missing element #$id" >&2; fail=1
  fi
done
# every chart section draws something: bars, curves or lines
for id in $(grep -o 'section class="chart" id="[^"]*"' "$dir/report.dom.html" | cut -d'"' -f4); do
  marks=$(awk -v id="$id" 'index($0, "id=\"" id "\"") {on=1} on {print} on && /<\/section>/ {exit}' \
    "$dir/report.dom.html" | grep -o '<rect class="bar"\|<polyline class="curve"\|<polyline class="line"' | wc -l)
  if [ "$marks" -lt 1 ]; then
    echo "check-report: chart #$id draws nothing" >&2; fail=1
  fi
done
cards=$(grep -o '<article class="card"' "$dir/report.dom.html" | wc -l)
if [ "$cards" -lt 1 ]; then
  echo "check-report: the at-a-glance section has no backend card" >&2; fail=1
fi
charts=$(grep -o '<svg[^>]*class="chart-svg"' "$dir/report.dom.html" | wc -l)
drawn=$(grep -o '<rect class="bar"\|<polyline class="curve"\|<polyline class="line"' "$dir/report.dom.html" | wc -l)
if [ "$charts" -lt 6 ] || [ "$drawn" -lt 6 ]; then
  echo "check-report: expected 6 drawn charts, found $charts charts with $drawn marks" >&2; fail=1
fi
if grep -E ':CONSOLE[:(]|Uncaught ' "$dir/report.console.log" >&2; then  # the page has no scripts: any console message is a failure
  echo "check-report: console errors (see $dir/report.console.log)" >&2; fail=1
fi
if [ ! -s "$dir/report.png" ]; then
  echo "check-report: no screenshot was written" >&2; fail=1
fi
if [ ! -s "$glance" ]; then
  echo "check-report: no at-a-glance screenshot was written (section end: '${bottom:-not measured}')" >&2; fail=1
fi
[ $fail = 0 ] && echo "check-report: ok ($cards cards, $charts charts, $drawn marks, screenshots $dir/report.png and $glance)"
exit $fail

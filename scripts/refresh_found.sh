#!/usr/bin/env bash
# Writes the planner's cache of synthesized schedules (host/data/found/) anew:
# for each axis-order list the planner draws on, `hcube synthesize multi-aapc`
# finds the fewest routing cycles (proving one fewer impossible where it can)
# and writes the schedule file the library embeds at build time. Minutes on
# 2 cores (orders 3,3,3 the longest); the solver's report lands beside each
# file in the build folder (found-reports/).
#
#   scripts/refresh_found.sh [--hcube build/bin/hcube]
set -euo pipefail
cd "$(dirname "$0")/.."
hcube=build/bin/hcube
[[ ${1:-} == --hcube ]] && hcube=$2
reports=build/found-reports
mkdir -p host/data/found "$reports"
# orders, memory dimensions m
for spec in "2,1 2" "3,1 3" "3,2 3" "3,3 3" "3,2,2 3" "3,3,2 3" "3,3,3 3"; do
  read -r orders m <<<"$spec"
  name=orders-${orders//,/-}-m$m
  "$hcube" synthesize multi-aapc --dims "$orders" --mem-dims "$m" --output "host/data/found/$name.json" \
    --json >"$reports/$name.json"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], r["cycles"], "cycles, optimal:", r["optimal"], "(" + r["lower_bound_proof"] + "),", round(r["seconds"], 1), "s")' \
    "$reports/$name.json" "$orders (m = $m):"
done

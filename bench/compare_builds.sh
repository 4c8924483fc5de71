#!/usr/bin/env bash
# Two builds of hcube on the CPU backend, run in alternation: on a shared
# machine the memory system's speed drifts by tens of percent within minutes,
# so a change is judged only against the build before it measured in the same
# minutes. Each run is `hcube bench --op OP --repeat 5` (its own median, with
# memcpy taken in the same process); prints a Markdown table of the median
# (best) ratio to memcpy over the runs, for docs/performance.md.
#
# usage: bench/compare_builds.sh BEFORE_HCUBE AFTER_HCUBE [log2 words (26)] [type (u32)] [runs (5)] [ops ...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
before=$1 after=$2 w=${3:-26} type=${4:-u32} runs=${5:-5}
shift $(($# < 5 ? $# : 5))
ops=("$@")
[ ${#ops[@]} -eq 0 ] && ops=(cycle alignment aapc fused-transpose fused-bit-reversal)
for b in "$before" "$after"; do
  [ -x "$b" ] || { echo "compare_builds.sh: $b is not an executable" >&2; exit 2; }
done
ratio() {
  "$1" bench --op "$2" -w "$w" --type "$type" --repeat 5 --backend cpu --json |
    python3 -c 'import json, sys; print("%.3f" % json.load(sys.stdin)["ratio_to_memcpy"])'
}
echo "$(date -u +%Y-%m-%d), 2^$w $type words, $runs runs each in alternation; command:"
echo "bench/compare_builds.sh $before $after $w $type $runs ${ops[*]}"
echo
echo "| op | before: median (best) | after: median (best) | before, every run | after, every run |"
echo "|---|---|---|---|---|"
for op in "${ops[@]}"; do
  b=() a=()
  for ((i = 0; i < runs; ++i)); do
    b+=("$(ratio "$before" "$op")")
    a+=("$(ratio "$after" "$op")")
  done
  python3 - "$op" "${b[*]}" "${a[*]}" <<'EOF'
import sys
op, before, after = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def summary(v):
    s = sorted(map(float, v))
    return "%.2f (%.2f)" % (s[len(s) // 2], s[-1])
print("| %s | %s | %s | %s | %s |" % (op, summary(before), summary(after), " ".join(before), " ".join(after)))
EOF
done

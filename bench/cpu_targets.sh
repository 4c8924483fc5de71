#!/usr/bin/env bash
# The CPU backend's speed targets (docs/performance.md), each a ratio that `hcube bench
# --json` reports, measured in rounds: every round runs each case once, in
# turn, so a drift of the shared machine's memory speed falls on all of them
# alike. Prints a Markdown table of the median (lowest .. highest) over the
# rounds against the target, for docs/performance.md. Each `hcube bench` run
# is its own process and takes its own median of --repeat runs against memcpy
# (or, for edelman-unaligned, against the aligned table) in the same process.
#
# usage: bench/cpu_targets.sh [HCUBE (build/bin/hcube)] [rounds (5)] [case ...]
# cases: edelman-unaligned-22 edelman-unaligned-24 fused-permute fused-bit-reversal
#        fused-transpose redistribute-R4-24 redistribute-R4-25 redistribute-R4-26
#        redistribute-R1-24 redistribute-R1-25 redistribute-R1-26 (default: these, issue 25's)
#        speed: issue 40's targets on a small-L3 host, the cases speed-* below; the
#        random permutation takes seed r + 1 in round r (the issue's seeds 1-5);
#        speed-mpi-*: on 4 ranks under mpirun; the AAPC and the transpose at most their targets
#        (times over MPI_Alltoall's), the FFT at least (fftw3-mpi's time over hcube's).
# Run `hcube tune` first where the targets are to be judged after it (the plans read its wisdom).
set -euo pipefail
cd "$(dirname "$0")/.."
hcube=${1:-build/bin/hcube}
rounds=${2:-5}
shift $(($# < 2 ? $# : 2))
cases=()
for c in "$@"; do
  if [ "$c" = speed ]; then
    cases+=(speed-transpose-26 speed-transpose-28 speed-bit-reversal-26 speed-bit-reversal-28
      speed-permute-26 speed-permute-28 speed-alignment-26 speed-alignment-28 speed-fft-22
      speed-mpi-aapc-22 speed-mpi-transpose-22 speed-mpi-fft-22)
  else
    cases+=("$c")
  fi
done
[ ${#cases[@]} -eq 0 ] && cases=(edelman-unaligned-22 edelman-unaligned-24 fused-permute fused-bit-reversal fused-transpose
  redistribute-R4-24 redistribute-R4-25 redistribute-R4-26 redistribute-R1-24 redistribute-R1-25 redistribute-R1-26)
[ -x "$hcube" ] || { echo "cpu_targets.sh: $hcube is not an executable" >&2; exit 2; }

# case [round] -> "target field flags...": the field of the JSON compared with the target.
spec() {
  case $1 in
    speed-transpose-*) echo "0.85 ratio_to_memcpy --op fused-transpose -w ${1##*-} --repeat 5" ;;
    speed-bit-reversal-*) echo "0.75 ratio_to_memcpy --op fused-bit-reversal -w ${1##*-} --repeat 5" ;;
    speed-permute-*) echo "0.6 ratio_to_memcpy --op fused-permute --perm random --seed $((${2:-0} + 1)) -w ${1##*-} --repeat 5" ;;
    speed-alignment-*) echo "0.8 ratio_to_memcpy --op alignment -w ${1##*-} --repeat 5" ;;
    speed-fft-*) echo "0.5 ratio_to_fftw --op fft -w ${1##*-} --repeat 5" ;;
    speed-mpi-aapc-*) echo "<=8.25 ratio_to_mpi_alltoall --op aapc -w ${1##*-} --repeat 5" ;;
    speed-mpi-transpose-*) echo "<=1.5 ratio_to_mpi_alltoall --op fused-transpose -w ${1##*-} --repeat 5" ;;
    speed-mpi-fft-*) echo "0.4 ratio_to_fftw_mpi --op fft -w ${1##*-} --repeat 5" ;;
    edelman-unaligned-22) echo "0.5 ratio_to_direct --op aapc --algorithm edelman-unaligned -w 22 --repeat 5" ;;
    edelman-unaligned-24) echo "0.5 ratio_to_direct --op aapc --algorithm edelman-unaligned -w 24 --repeat 5" ;;
    fused-permute) echo "0.6 ratio_to_memcpy --op fused-permute --perm random --seed 1 -w 26 --repeat 5" ;;
    fused-bit-reversal) echo "0.75 ratio_to_memcpy --op fused-bit-reversal -w 26 --repeat 5" ;;
    fused-transpose) echo "0.7 ratio_to_memcpy --op fused-transpose -w 26 --repeat 5" ;;
    redistribute-R4-*) echo "0.3 ratio_to_memcpy --op redistribute --P 28 --K 6 --Q 36 --x 4 -w ${1##*-} --repeat 5" ;;
    redistribute-R1-*) echo "0.3 ratio_to_memcpy --op redistribute --P 18 --K 6 --Q 78 --x 1 -w ${1##*-} --repeat 5" ;;
    *) echo "cpu_targets.sh: unknown case $1" >&2; exit 2 ;;
  esac
}
for c in "${cases[@]}"; do spec "$c" >/dev/null; done

declare -A got
for ((r = 0; r < rounds; ++r)); do
  for c in "${cases[@]}"; do
    read -r target field flags <<<"$(spec "$c" "$r")"
    # shellcheck disable=SC2086 # the flags are words
    launch=()
    if [[ $c == speed-mpi-* ]]; then
      launch=(mpirun --oversubscribe -np 4)
      [ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
    fi
    v=$("${launch[@]}" "$hcube" bench $flags --backend cpu --json | python3 -c "import json, sys; print('%.3f' % json.load(sys.stdin)['$field'])")
    got[$c]="${got[$c]:-} $v"
  done
done

echo "$(date -u +%Y-%m-%d), $(uname -n), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); command:"
echo "bench/cpu_targets.sh $hcube $rounds ${cases[*]}"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'); $(lscpu | grep -E '^L(1d|2|3) cache' | sed 's/ cache: */ /; s/  */ /g' | paste -sd, -); load average $(cut -d' ' -f1-3 /proc/loadavg); wisdom: ${HCUBE_WISDOM:-default place}"
echo
echo "| case | flags | field | median (lowest .. highest) | target | every round |"
echo "|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  read -r target field flags <<<"$(spec "$c")"
  [[ $c == speed-permute-* ]] && flags=${flags/--seed 1/--seed 1..$rounds}
  python3 - "$c" "$flags" "$field" "$target" "${got[$c]}" <<'EOF'
import statistics, sys
case, flags, field, target, values = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], [float(v) for v in sys.argv[5].split()]
med = statistics.median(values)
at_most = target.startswith("<=")
mark = "met" if (med <= float(target[2:]) if at_most else med >= float(target)) else "NOT met"
print(f"| {case} | `{flags}` | {field} | {med:.2f} ({min(values):.2f} .. {max(values):.2f}) | {target} ({mark}) | {' '.join('%.2f' % v for v in values)} |")
EOF
done

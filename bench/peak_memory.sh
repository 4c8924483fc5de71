#!/usr/bin/env bash
# Peak resident memory of each data command beside the size of its data,
# measured with GNU time (/usr/bin/time -v). Targets: `hcube aapc` 1.1x (it
# runs in place: alignments are involutions swapped in place, cycles are
# swaps), the fused pass 2.1x (one scratch copy), aapc, permute and cycle with
# --input and --output 1.2x (the .npy streams through the machine in pieces
# and stays the reference; a FIFO is loaded as it arrives), fft and
# redistribute 2x of the data, and `hcube run` of a
# saved schedule within 1.5x of the command that made it. The
# program's own code and libraries are measured on a tiny cube and shown apart.
#
# usage: bench/peak_memory.sh [d (default 13: 2^26 u32 words, 256 MiB)] [hcube binary]
set -euo pipefail
cd "$(dirname "$0")/.."
d=${1:-13}
hcube=${2:-build/bin/hcube}
if ! [[ "$d" =~ ^[0-9]+$ ]] || [ "$d" -lt 3 ] || [ "$d" -gt 16 ]; then
  echo "peak_memory.sh: d = '$d' out of range: allowed 3..16 (2^(2d) u32 words)" >&2
  exit 2
fi
[ -x /usr/bin/time ] || { echo "peak_memory.sh: GNU time is missing: apt-get install time" >&2; exit 2; }
[ -x "$hcube" ] || { echo "peak_memory.sh: $hcube is not built: run scripts/build.sh" >&2; exit 2; }

peak_kib() {  # the Maximum resident set size of one run, in KiB
  /usr/bin/time -v "$hcube" "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ { print $2 }'
}
data_kib=$(( (1 << (2 * d)) * 4 / 1024 ))
printf '%-36s %10s %10s %14s %10s %8s\n' "run (u32 words)" "data KiB" "peak KiB" "tiny-cube KiB" "peak/data" "ratio"
report() {  # name, limit, tiny-cube args..., --, full args...
  local name=$1 limit=$2
  shift 2
  local tiny=() full=()
  while [ "$1" != "--" ]; do tiny+=("$1"); shift; done
  shift
  full=("$@")
  local base peak
  base=$(peak_kib "${tiny[@]}")
  peak=$(peak_kib "${full[@]}")
  awk -v n="$name" -v d="$data_kib" -v p="$peak" -v b="$base" -v l="$limit" 'BEGIN {
    r = (p - b) / d
    printf "%-36s %10d %10d %14d %10.3f %8.3f  (target <= %s)\n", n, d, p, b, p / d, r, l }'
}
report "hcube aapc --dims $d" 1.1 aapc --dims 4 -- aapc --dims "$d"
report "hcube permute bit-reversal --fused" 2.1 permute --perm bit-reversal -n 2 -m 2 --fused -- \
  permute --perm bit-reversal -n "$d" -m "$d" --fused
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$hcube" aapc --dims "$d" --backend cpu -o "$tmp/in.npy" >/dev/null
report "hcube aapc -i -o" 1.2 aapc --dims 4 -- aapc --dims "$d" -i "$tmp/in.npy" -o "$tmp/out.npy"
report "hcube permute bit-reversal -i -o" 1.2 permute --perm bit-reversal -n 2 -m 2 -- \
  permute --perm bit-reversal -i "$tmp/in.npy" -o "$tmp/out.npy"
report "hcube cycle -i -o" 1.2 cycle -n 2 -m 2 --cycle 0:1 -- cycle -n "$d" -m "$d" --cycle 0:1 -i "$tmp/in.npy" \
  -o "$tmp/out.npy"
# A FIFO or pipe input is loaded a chunk at a time as it arrives and checked
# by its fingerprint (it cannot be read again): no host copy either.
mkfifo "$tmp/in.fifo"
cat "$tmp/in.npy" >"$tmp/in.fifo" &
writer=$!
report "hcube aapc -i FIFO -o" 1.2 aapc --dims 4 -- aapc --dims "$d" -i "$tmp/in.fifo" -o "$tmp/out.npy"
wait "$writer"
# A FIFO output takes the words in order: streamed a tile at a time, not copied whole.
mkfifo "$tmp/out.fifo"
cat "$tmp/out.fifo" >/dev/null &
reader=$!
report "hcube cycle -i -o FIFO" 1.2 cycle -n 2 -m 2 --cycle 0:1 -- cycle -n "$d" -m "$d" --cycle 0:1 -i "$tmp/in.npy" \
  -o "$tmp/out.fifo"
wait "$reader"
# The same data size: 2^(2d - 2) complex128 points, 2^(2d) uint32 elements. A
# redistribution's sources and destinations are different memories, the array
# twice; the machine's padding to 2^n x 2^m (R_4(3, 2, 5): 8 nodes of 2^m
# words for 3 + 5 processors) is never touched.
report "hcube fft (complex128)" 2 fft -P 4 -n 2 -- fft -P $((2 * d - 2)) -n $((d - 1))
report "hcube redistribute P=2 Q=2 x=1" 2 redistribute --P 2 --Q 2 --K 1 --x 1 --N 16 -- \
  redistribute --P 2 --Q 2 --K 1 --x 1 --N $((1 << (2 * d)))
report "hcube redistribute P=3 Q=5 K=2 x=4" 2 redistribute --P 2 --Q 2 --K 1 --x 1 --N 16 -- \
  redistribute --P 3 --Q 5 --K 2 --x 4 --N $(((1 << (2 * d)) / 120 * 120))
# hcube run of a saved schedule against the command that made it: memory and wall time.
maker=(multi-aapc -s 2 -d $((d / 2)) -m "$d" -a 5 --backend cpu)
"$hcube" "${maker[@]}" --save-schedule "$tmp/s.json" >/dev/null
report "hcube multi-aapc -s 2 -a 5 (the maker)" 1.2 aapc --dims 4 -- "${maker[@]}"
report "hcube run of its saved schedule" 1.2 aapc --dims 4 -- run --schedule "$tmp/s.json" --backend cpu
seconds() { /usr/bin/time -f '%e' "$hcube" "$@" 2>&1 >/dev/null | tail -1; }
awk -v a="$(seconds "${maker[@]}")" -v r="$(seconds run --schedule "$tmp/s.json" --backend cpu)" \
  'BEGIN { printf "hcube run / its maker, wall time: %.2f (target <= 1.5)\n", r / a }'
echo "ratio = (peak - tiny-cube peak) / data size: the memory the data costs"

#!/usr/bin/env bash
# The CUDA harness: every `hcube bench` operation on the GPU, timed with CUDA
# events, against a device copy kernel over the same data in the same process
# and the card's stated bandwidth. Prints a Markdown table for
# docs/performance.md. Without a GPU it says so and exits 0, or 1 under
# HCUBE_REQUIRE_CUDA=1 (scripts/gpu_check.sh; tests/require.hpp).
#
# usage: bench/gpu_bench.sh [log2 words ... (default 24 26 28)] [-- hcube binary]
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do sizes+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
hcube=${1:-build/bin/hcube}
[ ${#sizes[@]} -eq 0 ] && sizes=(24 26 28)
[ -x "$hcube" ] || { echo "gpu_bench.sh: $hcube is not built: run scripts/build.sh" >&2; exit 2; }
if ! probe=$("$hcube" bench --op memcpy -w 10 --backend cuda --json 2>&1); then
  echo "gpu_bench.sh: no GPU here, nothing measured: $probe"
  case ${HCUBE_REQUIRE_CUDA:-0} in '' | 0) exit 0 ;; *) echo "gpu_bench.sh: HCUBE_REQUIRE_CUDA is set: failing" >&2; exit 1 ;; esac
fi
device=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["device"])' "$probe")
echo "Device: $device; $(date -u +%Y-%m-%d); command: bench/gpu_bench.sh ${sizes[*]}"
echo
echo "| op | log2 words | seconds | GB/s read + written | ratio to copy kernel | ratio to stated bandwidth |"
echo "|---|---|---|---|---|---|"
for w in "${sizes[@]}"; do
  for op in memcpy cycle alignment aapc fused-transpose fused-bit-reversal; do
    "$hcube" bench --op "$op" -w "$w" --backend cuda --repeat 10 --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
spec = j["ratio_to_spec"]
print("| {} | {} | {:.6f} | {:.1f} | {:.2f} | {} |".format(j["op"], sys.argv[1], j["seconds"],
      j["throughput_bytes_per_second"] / 1e9, j["ratio_to_memcpy"], "-" if spec is None else "{:.2f}".format(spec)))
' "$w"
  done
done

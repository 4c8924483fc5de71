#!/usr/bin/env bash
# The CUDA harness: each row of the target table -- the AAPC
# (Algorithm 4, d = 14) launched per cycle and persistently, the cost of a
# small cycle in a replayed graph, the alignment of u32/u64/c128 words, a
# routing cycle, the fused transpose and bit reversal, and `hcube aapc --dims
# 14` end to end -- timed with CUDA events against a device copy kernel in the
# same process. Writes the raw rows to docs/gpu/<device>-<date>.json and
# prints them as a Markdown table (bench/gpu_bench.py). Without a GPU it says
# so and exits 0, or 1 under HCUBE_REQUIRE_CUDA=1 (scripts/gpu_check.sh;
# tests/support/require.hpp).
#
# usage: bench/gpu_bench.sh [--hcube BIN] [--out FILE] [--log2-words W] [--dims D] [--repeat R]
#        bench/gpu_bench.sh --backend cpu ...   (the same rows on the CPU: tests the script, measures nothing)
set -euo pipefail
cd "$(dirname "$0")/.."
hcube=""
backend=cuda
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; ++i)); do
  case ${args[i]} in
    --hcube) hcube=${args[i + 1]} ;;
    --backend) backend=${args[i + 1]} ;;
  esac
done
[ -n "$hcube" ] || { hcube=build/bin/hcube; args+=(--hcube "$hcube"); }
[ -x "$hcube" ] || { echo "gpu_bench.sh: $hcube is not built: run scripts/build.sh (or scripts/gpu_check.sh --bundle)" >&2; exit 2; }
if [ "$backend" = cuda ] && ! probe=$("$hcube" bench --op memcpy -w 10 --backend cuda --json 2>&1); then
  echo "gpu_bench.sh: no GPU here, nothing measured: $probe"
  case ${HCUBE_REQUIRE_CUDA:-0} in '' | 0) exit 0 ;; *) echo "gpu_bench.sh: HCUBE_REQUIRE_CUDA is set: failing" >&2; exit 1 ;; esac
fi
exec python3 bench/gpu_bench.py "${args[@]}"

#!/usr/bin/env bash
# The alignment's extra DRAM writes (issue 36, item 6): Nsight Compute's DRAM and L2 byte counts of the
# in-place xor alignment (align_xor_cosets) and of the copy kernel beside it (apply_body<CopyBody>, the
# roofline every hcube bench run times), at 2^26 words. On an H100 the u32 alignment wrote 1.8 times its
# data to DRAM where the copy wrote 0.93 times: the runs below tell a real write amplification from an
# artefact of ncu's kernel replay, which saves and restores the memory an in-place kernel writes and
# flushes the caches between passes.
#   align-u32, align-u64, memcpy-u32   kernel replay, caches flushed before each pass (ncu's default)
#   cycle-u32                          a routing cycle, in place too (is in-place writing the cause?)
#   align-u32-no-flush                 --cache-control none
#   align-u32-app-replay               --replay-mode application (the process re-run for each pass: no
#                                      save and restore of memory)
# Each run's CSV (ncu --csv, one row a kernel and metric, values in base units: bytes, ns, %) goes to OUT,
# after a line "# <run>: <command>"; a run that fails or times out is said so there and the others go on.
#
# usage: scripts/gpu_ncu.sh --ncu NCU --hcube BIN --out FILE [--log2-words W] [--limit S]
set -uo pipefail
ncu=""
hcube=""
out=""
w=26
limit=60
while [ $# -gt 0 ]; do
  case $1 in
    --ncu) ncu=$2; shift 2 ;;
    --hcube) hcube=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --log2-words) w=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    *) echo "gpu_ncu.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$ncu" ] && [ -n "$hcube" ] && [ -n "$out" ] || { echo "gpu_ncu.sh: --ncu, --hcube and --out are needed" >&2; exit 2; }
# Names every Hopper (and Ampere) part has: DRAM bytes, L2 sectors read and written (32 bytes each), L2
# bytes, the kernel's time and its SM throughput.
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
metrics+=,lts__t_bytes.sum,gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
# The bench's kernels in launch order: apply_body (the copy that first writes the roofline's source), then the
# alignment's warm-up, a copy, and one of each a --repeat: 5 launches. Thrust's label kernels are left out.
kernels='regex:align_xor_cosets|apply_body'
# Bytes, not scaled units, where this ncu can (--print-units came in later releases).
units=()
"$ncu" --help 2>/dev/null | grep -q -- --print-units && units=(--print-units base)
: >"$out"
failed=0
profile() {  # name, extra ncu flags..., --, hcube bench flags...
  local name=$1 flags=() csv
  shift
  while [ "$1" != -- ]; do flags+=("$1"); shift; done
  shift
  csv=$(mktemp)
  local cmd=("$ncu" --csv "${units[@]}" --metrics "$metrics" --kernel-name "$kernels" --launch-count 5
    --log-file "$csv" "${flags[@]}" "$hcube" bench -w "$w" --backend cuda --repeat 1 "$@")
  echo "# $name: ${cmd[*]}" | tee -a "$out"
  local t0=$SECONDS rc=0
  timeout "$limit" "${cmd[@]}" >/dev/null 2>"$csv.err" || rc=$?
  cat "$csv" >>"$out"
  if [ $rc != 0 ]; then
    echo "# $name: FAILED, exit status $rc$([ $rc = 124 ] && echo " (timed out after $limit s)")" | tee -a "$out"
    tail -5 "$csv.err" | sed 's/^/#   /' | tee -a "$out"
    failed=1
  else
    echo "# $name: $((SECONDS - t0)) s, $(grep -c dram__bytes_write "$csv") kernels"
  fi
  rm -f "$csv" "$csv.err"
}
profile align-u32 -- --op alignment -t uint32
profile align-u64 -- --op alignment -t uint64
profile memcpy-u32 -- --op memcpy -t uint32
# Another in-place kernel (a routing cycle swaps words between nodes, apply_body too): if it also writes
# well over its data to DRAM, in-place writing is the cause, not the alignment's coset pattern.
profile cycle-u32 -- --op cycle -t uint32
profile align-u32-no-flush --cache-control none -- --op alignment -t uint32
profile align-u32-app-replay --replay-mode application -- --op alignment -t uint32
exit $failed

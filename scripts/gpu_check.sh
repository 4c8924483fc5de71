#!/usr/bin/env bash
# Runs what only a GPU can check: every CUDA-instantiated test, the CLI tests
# (they take --backend cuda where a device is present), the FFT example on
# CUDA, and the CUDA benchmark table (bench/gpu_bench.sh). Logs go to $LOGS
# (default build/gpu-logs); a summary is printed last.
#
# usage: scripts/gpu_check.sh [build dir (default build)] [log2 words for the bench ... (default 24 26 28)]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
logs=${LOGS:-$build/gpu-logs}
mkdir -p "$logs"
summary=()
run() {  # name, command...: runs it with its output in $logs/name.log, records pass/fail
  local name=$1; shift
  local t0=$SECONDS
  if "$@" >"$logs/$name.log" 2>&1; then summary+=("PASS $name ($((SECONDS - t0)) s)")
  else summary+=("FAIL $name ($((SECONDS - t0)) s): see $logs/$name.log"); tail -40 "$logs/$name.log"; fi
}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv >"$logs/device.txt" 2>&1
cat "$logs/device.txt"
run cuda-tests "$build/tests/hcube_tests" --gtest_filter='*cuda*:*Cuda*:*CUDA*' --gtest_brief=1
for t in "$build"/tests/hcube_cli_*tests; do run "$(basename "$t")" "$t" --gtest_brief=1; done
run example-fft-cuda "$build/bin/hcube_example_fft" --backend cuda
run gpu-bench bash bench/gpu_bench.sh "$@" -- "$build/bin/hcube"
cat "$logs/gpu-bench.log"
printf '%s\n' "${summary[@]}"

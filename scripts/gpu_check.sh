#!/usr/bin/env bash
# Runs what only a GPU can check: every CUDA-instantiated test, the CLI tests
# (they take --backend cuda where a device is present), the FFT example on
# CUDA, and the CUDA benchmark table (bench/gpu_bench.sh). Logs go to $LOGS
# (default build/gpu-logs); a summary is printed last, and the exit status is
# non-zero when any step failed.
#
# HCUBE_REQUIRE_CUDA=1 (tests/require.hpp, python/tests) turns every test's "no CUDA device"
# skip into a failure, and a test program that passed no test at all (all
# skipped, or none matched) is a FAIL: a GPU check on a machine without a
# usable GPU, or on a build without the CUDA backend, cannot report PASS.
#
# usage: scripts/gpu_check.sh [build dir (default build)] [log2 words for the bench ... (default 24 26 28)]
set -uo pipefail
cd "$(dirname "$0")/.."
export HCUBE_REQUIRE_CUDA=1
build=${1:-build}
shift || true
logs=${LOGS:-$build/gpu-logs}
mkdir -p "$logs"
summary=()
run() {  # name, command...: runs it with its output in $logs/name.log, records pass/fail
  local name=$1; shift
  local t0=$SECONDS
  local why=""
  "$@" >"$logs/$name.log" 2>&1 || why="exit status $?"
  # A gtest program that passed nothing (every test skipped or filtered out) checked nothing.
  if [ -z "$why" ] && grep -q '^\[  PASSED  \] 0 tests' "$logs/$name.log"; then why="no test passed (all skipped?)"; fi
  if [ -z "$why" ]; then summary+=("PASS $name ($((SECONDS - t0)) s)")
  else summary+=("FAIL $name ($((SECONDS - t0)) s): $why, see $logs/$name.log"); failed=1; tail -40 "$logs/$name.log"; fi
}
failed=0
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv >"$logs/device.txt" 2>&1
cat "$logs/device.txt"
run cuda-tests "$build/tests/hcube_tests" --gtest_filter='*cuda*:*Cuda*:*CUDA*' --gtest_brief=1
for t in "$build"/tests/hcube_cli_*tests; do run "$(basename "$t")" "$t" --gtest_brief=1; done
run example-fft-cuda "$build/bin/hcube_example_fft" --backend cuda
# The Python tests, where an hcube package is installed (pip install . into a
# venv): $HCUBE_PYTHON, else .venv/bin/python, else python3. Their GPU tests
# fail rather than skip under HCUBE_REQUIRE_CUDA=1, as the C++ ones do.
py=${HCUBE_PYTHON:-}
[ -z "$py" ] && [ -x .venv/bin/python ] && py=.venv/bin/python
[ -z "$py" ] && py=python3
if "$py" -c 'import hcube, pytest' >/dev/null 2>&1; then
  run python-tests "$py" -m pytest -q python/tests
else
  summary+=("SKIP python-tests: no hcube package and pytest for $py (pip install . into a venv, or set HCUBE_PYTHON)")
fi
run gpu-bench bash bench/gpu_bench.sh "$@" -- "$build/bin/hcube"
cat "$logs/gpu-bench.log"
printf '%s\n' "${summary[@]}"
exit "$failed"

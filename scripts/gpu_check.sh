#!/usr/bin/env bash
# What only a GPU can check, in one go (issue 26): the build (or a carried
# one), every CUDA-instantiated test, the GPU figures (bench/gpu_bench.sh: the
# raw rows to docs/gpu/<device>-<date>.json), the FFT example on CUDA and the
# CLI tests (they take --backend cuda where a device is present), then a
# short summary. Made to fit one device call of under 10 minutes: the steps
# after the figures run only while time is left (HCUBE_GPU_CHECK_BUDGET
# seconds, default 540), and say SKIP otherwise.
#
# HCUBE_REQUIRE_CUDA=1 (tests/require.hpp, python/tests) turns every test's "no CUDA device"
# skip into a failure, and a test program that passed no test at all (all
# skipped, or none matched) is a FAIL: a GPU check on a machine without a
# usable GPU, or on a build without the CUDA backend, cannot report PASS.
#
# usage: scripts/gpu_check.sh [--bundle FILE | --build DIR] [bench/gpu_bench.sh flags ...]
#   --bundle FILE  a build packed here by scripts/gpu_bundle.sh and carried with the call (the device
#                  machine lacks hcube's libraries), unpacked under /tmp and run from there
#   --build DIR    a build directory of this checkout (default build), brought up to date first
# Logs go to $LOGS (default <build>/gpu-logs); where the device tool's $OUT is set, the figures'
# JSON and the logs (one archive) are copied there too.
set -uo pipefail
cd "$(dirname "$0")/.."
export HCUBE_REQUIRE_CUDA=1
budget=${HCUBE_GPU_CHECK_BUDGET:-540}
build=build
bundle=""
bench_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --bundle) bundle=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) bench_args+=("$1"); shift ;;
  esac
done
summary=()
failed=0
record() {  # status, name, seconds[, why]
  summary+=("$1 $2 ($3 s)${4:+: $4}")
  [ "$1" = FAIL ] && failed=1
  return 0
}
run() {  # name, timeout, command...: its output in $logs/name.log; pass or fail recorded
  local name=$1 limit=$2; shift 2
  if [ $SECONDS -ge "$budget" ]; then record SKIP "$name" 0 "out of time (HCUBE_GPU_CHECK_BUDGET=$budget s)"; return; fi
  local t0=$SECONDS why=""
  timeout "$limit" "$@" >"$logs/$name.log" 2>&1 || why="exit status $?"
  # A gtest program that passed nothing (every test skipped or filtered out) checked nothing.
  if [ -z "$why" ] && grep -q '^\[  PASSED  \] 0 tests' "$logs/$name.log"; then why="no test passed (all skipped?)"; fi
  if [ -z "$why" ]; then record PASS "$name" $((SECONDS - t0))
  else record FAIL "$name" $((SECONDS - t0)) "$why, see $logs/$name.log"; tail -30 "$logs/$name.log"; fi
}

if [ -n "$bundle" ]; then
  # The carried build: its programs and libraries, the device's CUDA libraries (cuFFT) beside them.
  where=/tmp/hcube-gpu-run
  rm -rf "$where" && mkdir -p "$where" && tar -C "$where" -xJf "$bundle" || { echo "gpu_check.sh: cannot unpack $bundle" >&2; exit 2; }
  top=$where/hcube-gpu
  bin=$top/bin
  tests=$top/tests
  cudalibs=$(dirname "$(find /usr/local/cuda*/ /usr/lib /opt -name 'libcufft.so.*' -print -quit 2>/dev/null)" 2>/dev/null)
  export LD_LIBRARY_PATH=$top/lib${cudalibs:+:$cudalibs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export HCUBE_COMMIT=$(cat "$top/COMMIT")
  logs=${LOGS:-$where/logs}
  mkdir -p "$logs"
  if ldd "$bin/hcube" | grep 'not found' >"$logs/ldd.log"; then
    cat "$logs/ldd.log"; echo "gpu_check.sh: the bundle's hcube cannot load its libraries here" >&2; exit 2
  fi
else
  bin=$build/bin
  tests=$build/tests
  logs=${LOGS:-$build/gpu-logs}
  mkdir -p "$logs"
  if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S . -B "$build" -DHCUBE_ENABLE_MPI=OFF -DHCUBE_WARNINGS_AS_ERRORS=ON >"$logs/configure.log" 2>&1 ||
      { tail -30 "$logs/configure.log"; echo "gpu_check.sh: cannot configure $build (carry a build: scripts/gpu_bundle.sh)" >&2; exit 2; }
  fi
  run build 480 cmake --build "$build" -j"$(nproc)" --target hcube hcube_tests hcube_example_fft
fi
export HCUBE_BINARY=$bin/hcube HCUBE_TEST_DATA_DIR=$PWD/tests/data

nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv >"$logs/device.txt" 2>&1
cat "$logs/device.txt"
run cuda-tests 240 "$tests/hcube_tests" --gtest_filter='*cuda*:*Cuda*:*CUDA*' --gtest_brief=1
run gpu-bench 300 bash bench/gpu_bench.sh --hcube "$bin/hcube" "${bench_args[@]}"
run example-fft-cuda 60 "$bin/hcube_example_fft" --backend cuda
for t in "$tests"/hcube_cli_*tests; do [ -x "$t" ] && run "$(basename "$t")" 240 "$t" --gtest_brief=1; done
# The Python tests, where an hcube package is installed (pip install . into a
# venv): $HCUBE_PYTHON, else .venv/bin/python, else python3. Their GPU tests
# fail rather than skip under HCUBE_REQUIRE_CUDA=1, as the C++ ones do.
py=${HCUBE_PYTHON:-}
[ -z "$py" ] && [ -x .venv/bin/python ] && py=.venv/bin/python
[ -z "$py" ] && py=python3
if "$py" -c 'import hcube, pytest' >/dev/null 2>&1; then
  run python-tests 240 "$py" -m pytest -q python/tests
else
  record SKIP python-tests 0 "no hcube package and pytest for $py (pip install . into a venv, or set HCUBE_PYTHON)"
fi

[ -f "$logs/gpu-bench.log" ] && sed -n '/^Device:/,$p' "$logs/gpu-bench.log"
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  json=$(sed -n 's/^raw rows: //p' "$logs/gpu-bench.log" 2>/dev/null)
  [ -n "$json" ] && [ -f "$json" ] && cp "$json" "$OUT/"
  tar -C "$logs" -czf "$OUT/gpu-logs.tar.gz" .
fi
printf '%s\n' "${summary[@]}"
exit "$failed"

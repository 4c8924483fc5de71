#!/usr/bin/env bash
# What only a GPU can check, in one go, in the order of their worth (a step that
# the budget cuts off is the cheapest to lose, and --steps re-runs it in a
# second, short call):
#   cuda-tests    every CUDA-instantiated test
#   gpu-bench     the GPU figures (bench/gpu_bench.sh: the raw rows to docs/gpu/<device>-<date>.json)
#   example-fft   the FFT example on CUDA
#   sweep         hcube sweep, Algorithm 4 from d = 10 to the largest d the device holds, launched per
#                 cycle and persistently: sweep-per-cycle.json, sweep-persistent.json (the plot is made
#                 later, from them)
#   mpi           two MPI ranks sharing the device give the one process's result (scripts/gpu_mpi_aapc.sh,
#                 with the bundle's relocated Open MPI)
#   cli-tests     the CLI tests (they take --backend cuda where a device is present)
#   python-tests  the Python tests (DLPack, __cuda_array_interface__ and execute_device on a GPU)
#   ncu           Nsight Compute's DRAM and L2 bytes of the alignment and copy kernels, with ncu's kernel
#                 replay, without its cache flush and with application replay (scripts/gpu_ncu.sh):
#                 ncu-alignment.csv
# then a short summary. Made to fit one device call of under 10 minutes with the machine's start: every
# step's time limit is cut to what is left of HCUBE_GPU_CHECK_BUDGET seconds (default 510), and a step
# with under 10 s left says SKIP.
#
# HCUBE_REQUIRE_CUDA=1 (tests/support/require.hpp, python/tests) turns every test's "no CUDA device"
# skip into a failure, and a test program that passed no test at all (all
# skipped, or none matched) is a FAIL: a GPU check on a machine without a
# usable GPU, or on a build without the CUDA backend, cannot report PASS.
#
# usage: scripts/gpu_check.sh [--bundle FILE [--dry-run] | --build DIR] [--steps a,b,...] [bench/gpu_bench.sh flags ...]
#   --bundle FILE  a bundle packed here by scripts/gpu_bundle.sh and carried with the call: unpacked
#                  under /tmp and everything run from it (its programs, its wheel in a venv)
#   --dry-run      the bundle's rehearsal where no GPU is (scripts/gpu_dry_run.sh): CUDA tests may
#                  skip, the benches and the FFT example run on the CPU backend at small sizes, and
#                  any skip whose reason is not the want of CUDA (or of PyTorch) is a FAIL
#                  (the sweep and the MPI step too; the MPI step with this machine's Open MPI hidden)
#   --build DIR    a build directory of this checkout (default build), brought up to date first
#   --steps LIST   only these steps, comma-separated, of: cuda-tests gpu-bench example-fft sweep mpi
#                  cli-tests python-tests ncu (default all)
# Logs go to $LOGS (default <bundle dir>/logs or <build>/gpu-logs); where the device tool's $OUT is
# set, the figures' JSON, the sweeps' JSON, ncu's CSV and the logs (one archive) are copied there too.
set -uo pipefail
cd "$(dirname "$0")/.."
source=$PWD
budget=${HCUBE_GPU_CHECK_BUDGET:-510}
all_steps="cuda-tests gpu-bench example-fft sweep mpi cli-tests python-tests ncu"
steps=$all_steps
build=build
bundle=""
dry=0
bench_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --bundle) bundle=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    --steps) steps=${2//,/ }; shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) bench_args+=("$1"); shift ;;
  esac
done
[ $dry = 1 ] && [ -z "$bundle" ] && { echo "gpu_check.sh: --dry-run rehearses a bundle: give --bundle FILE" >&2; exit 2; }
for s in $steps; do
  [[ " $all_steps " == *" $s "* ]] || { echo "gpu_check.sh: no step '$s' (steps: $all_steps)" >&2; exit 2; }
done
selected() { [[ " $steps " == *" $1 "* ]]; }
if [ $dry = 1 ]; then export HCUBE_REQUIRE_CUDA=0; else export HCUBE_REQUIRE_CUDA=1; fi
summary=()
failed=0
record() {  # status, name, seconds[, why]
  summary+=("$1 $2 ($3 s)${4:+: $4}")
  [ "$1" = FAIL ] && failed=1
  return 0
}
# Skips a rehearsal accepts: the want of a GPU, of PyTorch and CuPy (the device has them; the bundle
# does not carry them) and of mypy (left out of the bundle for its weight: the type check is CI's).
allowed_skip='CUDA|cuda|GPU|PyTorch is not installed|CuPy is not installed|mypy is not installed'
skips_not_allowed() {  # log: the skip reasons in it that are not the want of CUDA, one a line
  { grep -A1 -E '^[^ ]+:[0-9]+: Skipped$' "$1" | grep -vE '^--$|: Skipped$'
    sed -n 's/^SKIPPED \[[0-9]*\] [^ ]*: //p' "$1"; } | grep -vE "$allowed_skip"
}
run() {  # name, timeout, command...: its output in $logs/name.log; pass or fail recorded
  local name=$1 limit=$2 left=$((budget - SECONDS)); shift 2
  if [ $left -lt 10 ]; then record SKIP "$name" 0 "out of time (HCUBE_GPU_CHECK_BUDGET=$budget s)"; return; fi
  [ "$limit" -gt $left ] && limit=$left
  local t0=$SECONDS why="" bad rc=0
  timeout "$limit" "$@" >"$logs/$name.log" 2>&1 || rc=$?
  [ $rc = 0 ] || why="exit status $rc"
  [ $rc = 124 ] && why="timed out after $limit s"
  # A gtest program that passed nothing (every test skipped or filtered out) checked nothing, on a GPU.
  if [ -z "$why" ] && [ $dry = 0 ] && grep -q '^\[  PASSED  \] 0 tests' "$logs/$name.log"; then why="no test passed (all skipped?)"; fi
  if [ -z "$why" ] && [ $dry = 1 ] && bad=$(skips_not_allowed "$logs/$name.log") && [ -n "$bad" ]; then
    why="skipped for another reason than the want of CUDA: $(echo "$bad" | head -3 | tr '\n' ';')"
  fi
  if [ -z "$why" ]; then record PASS "$name" $((SECONDS - t0)) "$(counts "$logs/$name.log")"
  else record FAIL "$name" $((SECONDS - t0)) "$why, see $logs/$name.log"; tail -30 "$logs/$name.log"; fi
}
counts() {  # log: "N passed, N skipped" as gtest or pytest counted them, if either did
  local p k
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\.$/\1/p; s/^\([0-9]*\) passed.*/\1/p; s/^=* \([0-9]*\) passed.*/\1/p' "$1" | tail -1)
  k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\}, listed below:$/\1/p; s/.* \([0-9]*\) skipped.*/\1/p' "$1" | tail -1)
  [ -n "$p" ] && echo "$p passed, ${k:-0} skipped"
  return 0
}

py=""
if [ -n "$bundle" ]; then
  where=${HCUBE_GPU_CHECK_DIR:-/tmp/hcube-gpu-run}
  rm -rf "$where" && mkdir -p "$where" && tar -C "$where" -xJf "$bundle" || { echo "gpu_check.sh: cannot unpack $bundle" >&2; exit 2; }
  top=$where/hcube-gpu
  bin=$top/bin
  tests=$top/tests
  export HCUBE_COMMIT=$(cat "$top/COMMIT")
  logs=${LOGS:-$where/logs}
  mkdir -p "$logs"
  # cuFFT is the device's own, found by the name the programs were linked with (its major version)
  # and linked into lib/, where their RPATH looks: no search path is set for anything else.
  cufft=$(cat "$top/CUFFT")
  if [ -n "$cufft" ] && ! ldconfig -p 2>/dev/null | grep -qF " $cufft "; then
    found=$(find /usr/local/cuda*/ /usr/lib /opt "$(python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null || echo /nonexistent)" \
      -name "$cufft" -print -quit 2>/dev/null)
    [ -n "$found" ] && ln -sf "$found" "$top/lib/$cufft"
  fi
  # Every library a carried program loads comes from the bundle or is one the device has of its own.
  system=$(cat "$top/SYSTEM_LIBS")
  for f in "$bin"/* "$tests"/* "$top"/mpi/bin/orte* "$top"/mpi/lib/*/*.so; do
    [ -f "$f" ] || continue
    ldd "$f" | awk -v f="$(basename "$f")" '{print f ": " $0}'
  done >"$logs/ldd.log" 2>&1
  if grep 'not found' "$logs/ldd.log"; then echo "gpu_check.sh: the bundle's programs cannot load their libraries here" >&2; exit 2; fi
  stray=$(awk '$3 == "=>" && $4 ~ /^\// {print $4}' "$logs/ldd.log" | sort -u | while read -r lib; do
    case $(realpath -s "$lib") in "$top"/lib/*) continue ;; esac
    basename "$lib" | grep -Eq "$system" || echo "$lib"
  done)
  [ -z "$stray" ] || { echo "gpu_check.sh: the bundle's programs load libraries from outside it: $stray" >&2; exit 2; }
  # The Python package in a venv of its own, from the bundle's wheels alone. On a GPU the device's own
  # packages stay visible after the venv's (PyTorch, CuPy: its python3 may itself be a venv, which
  # --system-site-packages would pass over); a rehearsal sees nothing of this machine's.
  # Made just before the Python tests, the last step: its pip install spends none of the first steps' time.
  make_venv() {
    local venv=$where/venv base=${HCUBE_PYTHON:-python3} wheel reqs pkgs
    # Its test requirements as the bundle carries them (REQUIREMENTS: all but mypy), else all of them.
    wheel=$top/wheels/$(cat "$top/WHEEL")
    if [ -f "$top/REQUIREMENTS" ]; then mapfile -t reqs <"$top/REQUIREMENTS"; pkgs=("$wheel" "${reqs[@]}"); else pkgs=("$wheel[test]"); fi
    if "$base" -m venv "$venv" >"$logs/venv.log" 2>&1; then
      if [ $dry = 0 ]; then
        "$base" -c 'import site; print("\n".join(site.getsitepackages()))' \
          >"$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/device-packages.pth"
      fi
      if timeout $((budget - SECONDS)) "$venv/bin/python" -m pip install -q --no-index --find-links "$top/wheels" \
        "${pkgs[@]}" >>"$logs/venv.log" 2>&1; then
        py=$venv/bin/python
      fi
    fi
    [ -n "$py" ] || { record FAIL python-venv 0 "the bundle's wheel did not install, see $logs/venv.log"; tail -20 "$logs/venv.log"; }
  }
  # The extension loads the carried libraries (FFTW, fmt) from lib/: that path for its runs alone.
  pyenv=(env "LD_LIBRARY_PATH=$top/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
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
  # The Python tests, where an hcube package is installed (pip install . into a venv): $HCUBE_PYTHON,
  # else .venv/bin/python, else python3.
  py=${HCUBE_PYTHON:-}
  [ -z "$py" ] && [ -x .venv/bin/python ] && py=.venv/bin/python
  [ -z "$py" ] && py=python3
  "$py" -c 'import hcube, pytest' >/dev/null 2>&1 || py=""
  pyenv=(env)
fi
export HCUBE_BINARY=$bin/hcube HCUBE_TEST_DATA_DIR=$source/tests/data

nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv >"$logs/device.txt" 2>&1
cat "$logs/device.txt"
cuda_filter='*cuda*:*Cuda*:*CUDA*'
skip_unselected() {  # step[, what it records as]: true, with a SKIP line, where --steps left the step out
  selected "$1" && return 1
  record SKIP "${2:-$1}" 0 "not in --steps"
}
# Each step's limit bounds it alone; run() cuts it to what is left of the budget, so that a slow step costs
# the steps after it, worth less, and never the call.
skip_unselected cuda-tests || run cuda-tests 150 "$tests/hcube_tests" --gtest_filter="$cuda_filter" --gtest_brief=0
if [ $dry = 1 ]; then
  # No GPU: the same rows on the CPU at small sizes (the script, not the figures), the example on the CPU.
  skip_unselected gpu-bench || run gpu-bench 120 bash bench/gpu_bench.sh --hcube "$bin/hcube" --backend cpu \
    --log2-words 10 --small-log2-words 6 --dims 6 --repeat 1 --out "$logs/gpu-bench-cpu.json"
  skip_unselected example-fft || run example-fft 60 "$bin/hcube_example_fft" --backend cpu
else
  skip_unselected gpu-bench || run gpu-bench 200 bash bench/gpu_bench.sh --hcube "$bin/hcube" "${bench_args[@]}"
  skip_unselected example-fft example-fft-cuda || run example-fft-cuda 30 "$bin/hcube_example_fft" --backend cuda
fi
# The large-d sweep (issue 36, item 3): Algorithm 4 up to the largest d the device holds, verified at every d;
# the rehearsal runs the same command on the CPU at small d.
if [ $dry = 1 ]; then sweep_args=(--backend cpu --dims-from 3 --dims-to 5 --repeat 1); sweep_limit=60
else sweep_args=(--backend cuda --dims-from 10 --dims-to max); sweep_limit=75; fi
for launch in per-cycle persistent; do
  # The JSON to its own file (the log keeps stderr); a run that prints no JSON object fails.
  skip_unselected sweep "sweep-$launch" || run "sweep-$launch" $sweep_limit bash -c \
    'out=$1; shift; "$@" >"$out" && python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$out"' _ \
    "$logs/sweep-$launch.json" "$bin/hcube" sweep "${sweep_args[@]}" --algorithms 4 --launch $launch --json
done
# Two ranks sharing the device (issue 36, item 5), with the bundle's Open MPI relocated; the rehearsal hides
# this machine's Open MPI in a private mount namespace, so that only the bundle's can serve.
if ! skip_unselected mpi; then
  if [ -n "$bundle" ]; then mpi_from=(--bundle-root "$top"); else mpi_from=(--hcube "$bin/hcube"); fi
  if [ $dry = 1 ]; then mpi_args=(--backend cpu --dims 8 --hide-system-mpi); else mpi_args=(--backend cuda --dims 12); fi
  if [ -n "$bundle" ] && [ ! -x "$top/mpi/bin/mpirun" ]; then
    record SKIP mpi 0 "the bundle carries no Open MPI (built without MPI)"
  else
    run mpi 60 bash scripts/gpu_mpi_aapc.sh "${mpi_from[@]}" --out "$logs/mpi" "${mpi_args[@]}"
  fi
fi
if ! skip_unselected cli-tests; then
  for t in "$tests"/hcube_cli_*tests; do [ -x "$t" ] && run "$(basename "$t")" 240 "$t"; done
fi
# The Python tests: their GPU tests fail rather than skip under HCUBE_REQUIRE_CUDA=1, as the C++ ones do.
if skip_unselected python-tests; then
  :
elif [ $((budget - SECONDS)) -lt 10 ]; then
  record SKIP python-tests 0 "out of time (HCUBE_GPU_CHECK_BUDGET=$budget s)"
elif { [ -z "$bundle" ] || make_venv; } && [ -n "$py" ]; then
  run python-tests 240 "${pyenv[@]}" "$py" -m pytest -q -rs -p no:cacheprovider "$source/python/tests"
else
  record SKIP python-tests 0 "no hcube package and pytest (pip install . into a venv, or set HCUBE_PYTHON)"
fi

# The alignment's extra DRAM writes (issue 36, item 6): Nsight Compute's counts, where it is installed.
if ! skip_unselected ncu; then
  ncu=$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu /usr/local/cuda-*/bin/ncu 2>/dev/null | tail -1)
  if [ $dry = 1 ]; then
    record SKIP ncu 0 "a rehearsal: no GPU to profile${ncu:+ (ncu: $ncu)}"
  elif [ -z "$ncu" ]; then
    record SKIP ncu 0 "no ncu on the PATH, under /opt/nvidia/nsight-compute or in /usr/local/cuda*/bin"
  else
    run ncu 150 bash scripts/gpu_ncu.sh --ncu "$ncu" --hcube "$bin/hcube" --out "$logs/ncu-alignment.csv"
  fi
fi
[ -f "$logs/gpu-bench.log" ] && sed -n '/^Device:/,$p' "$logs/gpu-bench.log"
if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then
  # At most 8 files come back: the figures, the two sweeps, ncu's CSV and the logs' archive.
  json=$(sed -n 's/^raw rows: //p' "$logs/gpu-bench.log" 2>/dev/null)
  [ -n "$json" ] && [ -f "$json" ] && cp "$json" "$OUT/"
  for f in sweep-per-cycle.json sweep-persistent.json ncu-alignment.csv; do [ -s "$logs/$f" ] && cp "$logs/$f" "$OUT/"; done
  tar -C "$logs" -czf "$OUT/gpu-logs.tar.gz" .
fi
printf '%s\n' "${summary[@]}"
exit "$failed"

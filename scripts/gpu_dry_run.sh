#!/usr/bin/env bash
# A GPU session's rehearsal where no GPU is: packs the bundle (scripts/gpu_bundle.sh) from a build,
# moves the build tree away so that nothing can reach into it, unpacks the bundle into an empty
# directory and runs scripts/gpu_check.sh --bundle ... --dry-run on it: every step runs from the
# bundle (the CLI tests, the Python tests in a venv made from its wheels alone, the benches and the
# FFT example on the CPU backend), and only the CUDA tests may skip. CI runs it, so that the minutes
# of a lent GPU are not lost to the harness.
#
# usage: scripts/gpu_dry_run.sh [--build DIR] [--wheel FILE] [--python PY]
#   (default: build, a wheel built by gpu_bundle.sh, this machine's python3: the venv is made here)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
args=()
py=python3
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --wheel) args+=(--wheel "$2"); shift 2 ;;
    --python) py=$2; shift 2 ;;
    *) echo "gpu_dry_run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
away=""
restore() {
  [ -n "$away" ] && [ -d "$away" ] && mv "$away" "$build"
  rm -rf "$work"
}
trap restore EXIT
scripts/gpu_bundle.sh --build "$build" --python "$py" --output "$work/gpu-bundle.tar.xz" "${args[@]}"
away=$build.moved-by-gpu-dry-run
mv "$build" "$away"
mkdir "$work/empty"
HCUBE_GPU_CHECK_DIR=$work/empty/run HCUBE_GPU_CHECK_BUDGET=${HCUBE_GPU_CHECK_BUDGET:-3000} HCUBE_PYTHON=$py \
  scripts/gpu_check.sh --bundle "$work/gpu-bundle.tar.xz" --dry-run

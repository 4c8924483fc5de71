#!/usr/bin/env bash
# Installs the Debian packages hcube needs to build and test, when missing.
# The CUDA toolkit is optional: without nvcc the CUDA backend is left out.
# Open MPI (libopenmpi-dev, openmpi-bin) builds the distributed machine and its
# mpirun tests (docs/distributed.md); a build configured without it still works.
# fftw3-mpi (libfftw3-mpi-dev) is hcube bench --op fft's baseline under mpirun;
# without it that one bench refuses and its tests skip.
# CaDiCaL (libcadical-dev) is the SAT solver hcube synthesize links (docs/synthesize.md);
# a build without it refuses that one command and skips its tests.
# patchelf points the programs scripts/gpu_bundle.sh carries at the libraries
# carried beside them.
# gnuplot (hcube sweep --plot; the tests that draw skip without it), GNU time
# (bench/peak_memory.sh) and chromium (the hcube animate page, loaded headless by
# tests/cli/test_cli_animate.cpp, which skips without it) are optional, and so are
# clang with its libFuzzer runtime (libclang-rt-dev) and OpenMP (libomp-dev)
# for scripts/fuzz.sh, which skips without them:
# a failure to install them is a warning, not an error.
set -euo pipefail

packages=(cmake g++ make patchelf libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libbenchmark-dev libfftw3-dev
  libopenmpi-dev openmpi-bin libfftw3-mpi-dev libcadical-dev)
optional=(gnuplot-nox time chromium clang libclang-rt-dev libomp-dev)
# .ci/run builds the Python package (pip install . in a virtual environment):
# Debian's own python3 needs its venv module and headers; another python3
# (pyenv, conda) brings both.
if [ "$(command -v python3 || true)" = /usr/bin/python3 ] || ! command -v python3 >/dev/null; then
  packages+=(python3 python3-venv python3-dev)
fi

absent() {
  local out=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || out+=("$p"); done
  echo "${out[@]:-}"
}
read -r -a missing <<<"$(absent "${packages[@]}")"
read -r -a missing_optional <<<"$(absent "${optional[@]}")"
[ ${#missing[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    [ ${#missing[@]} -eq 0 ] && { echo "hcube: no root or sudo to install ${missing_optional[*]} (optional)" >&2; exit 0; }
    echo "hcube: need root or sudo to install ${missing[*]}" >&2
    exit 1
  fi
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
  echo "hcube: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#missing_optional[@]} -gt 0 ]; then
  echo "hcube: installing ${missing_optional[*]} (optional)" >&2
  { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing_optional[@]}"; } \
    >/dev/null 2>&1 || echo "hcube: could not install ${missing_optional[*]}; hcube sweep --plot, bench/peak_memory.sh, the browser tests and scripts/fuzz.sh will say so" >&2
fi
exit 0

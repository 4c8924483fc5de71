#!/usr/bin/env bash
# Builds hcube (CPU backend, and the CUDA backend when nvcc is present) and
# runs the whole test suite. CUDA tests skip, saying why, without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)"

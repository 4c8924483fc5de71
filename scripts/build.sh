#!/usr/bin/env bash
# Configures and builds hcube into ./build (warnings are errors). Extra
# arguments go to `cmake --build`, e.g. `--target hcube`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DHCUBE_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build build -j"$(nproc)" "$@"

#!/usr/bin/env bash
# Builds hcube and runs its main demo. Extra arguments go to `hcube demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target hcube >/dev/null
exec build/bin/hcube demo "$@"

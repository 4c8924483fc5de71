#!/usr/bin/env bash
# Runs a test program of its own on NP ranks (with the flags every mpirun of
# the tests takes): run_program.sh MPIEXEC NP PROGRAM [ARGS...]
set -euo pipefail
mpiexec=$1 np=$2
shift 2
source "$(dirname "$0")/mpirun_flags.sh"
exec "$mpiexec" "${flags[@]}" -np "$np" "$@"

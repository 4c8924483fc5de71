#!/usr/bin/env bash
# An mpirun job that must fail on every rank with one line, not hang (the
# test's TIMEOUT catches a hang):
#
#   expect_error.sh MPIEXEC TEXT LINES MPIRUN_ARGS...
#
# passes when the job exits non-zero and LINES lines read "hcube: error: ...TEXT...".
set -uo pipefail
mpiexec=$1 text=$2 lines=$3
shift 3
flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
out=$("$mpiexec" "${flags[@]}" "$@" 2>&1)
rc=$?
[ $rc -ne 0 ] || { echo "the job succeeded:"; echo "$out"; exit 1; }
got=$(grep -c "^hcube: error: .*$text" <<<"$out")
[ "$got" -eq "$lines" ] || { echo "expected $lines lines 'hcube: error: ...$text', got $got:"; echo "$out"; exit 1; }
echo "failed as expected, $got line(s): $(grep -m1 "^hcube: error:" <<<"$out")"

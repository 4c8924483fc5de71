#!/usr/bin/env bash
# An mpirun job that must fail on every rank with one line, not hang (the
# test's TIMEOUT catches a hang):
#
#   expect_error.sh MPIEXEC TEXT MPIRUN_ARGS...
#
# passes when the job exits non-zero and every "hcube: error:" line names TEXT.
# Every rank prints its line, but once one rank exits non-zero mpirun ends the
# others and may drop output not yet forwarded, so only one line is certain.
set -uo pipefail
mpiexec=$1 text=$2
shift 2
source "$(dirname "$0")/mpirun_flags.sh"
out=$("$mpiexec" "${flags[@]}" "$@" 2>&1)
rc=$?
[ $rc -ne 0 ] || { echo "the job succeeded:"; echo "$out"; exit 1; }
got=$(grep -c "^hcube: error: .*$text" <<<"$out")
all=$(grep -c "hcube: error:" <<<"$out")
[ "$got" -ge 1 ] && [ "$got" -eq "$all" ] || {
  echo "expected only lines 'hcube: error: ...$text', got $got of $all:"
  echo "$out"
  exit 1
}
echo "failed as expected, $got line(s): $(grep -m1 "^hcube: error:" <<<"$out")"

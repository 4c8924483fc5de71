#!/usr/bin/env bash
# An mpirun job that must fail on every rank with one line, not hang (the
# test's TIMEOUT catches a hang):
#
#   expect_error.sh MPIEXEC TEXT MPIRUN_ARGS...
#
# passes when the job exits non-zero and every "hcube: error:" line names
# TEXT. An error every rank met is printed by rank 0 alone (the others wait
# for it before they end): with HCUBE_EXPECT_ONE_LINE=1 exactly one line is
# required. A rank's own error is printed by that rank (and, when the others
# agree on it, by rank 0 naming the rank).
set -uo pipefail
mpiexec=$1 text=$2
shift 2
source "$(dirname "$0")/mpirun_flags.sh"
out=$("$mpiexec" "${flags[@]}" "$@" 2>&1)
rc=$?
[ $rc -ne 0 ] || { echo "the job succeeded:"; echo "$out"; exit 1; }
got=$(grep -c "^hcube: error: .*$text" <<<"$out")
all=$(grep -c "hcube: error:" <<<"$out")
want_one=${HCUBE_EXPECT_ONE_LINE:-0}
[ "$got" -ge 1 ] && [ "$got" -eq "$all" ] && { [ "$want_one" = 0 ] || [ "$all" -eq 1 ]; } || {
  echo "expected $([ "$want_one" = 0 ] || echo "one line, ")only lines 'hcube: error: ...$text', got $got of $all:"
  echo "$out"
  exit 1
}
echo "failed as expected, $got line(s): $(grep -m1 "^hcube: error:" <<<"$out")"

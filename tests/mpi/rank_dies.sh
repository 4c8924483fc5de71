#!/usr/bin/env bash
# A rank that dies mid-run ends every rank, never a hang (docs/distributed.md,
# Failures; the test's TIMEOUT catches a hang):
#
#   rank_dies.sh MPIEXEC HCUBE NP RANK exit|kill ARGS...
#
# HCUBE_DEBUG_RANK makes rank RANK exit (exit code 3, without MPI_Finalize) or
# kill itself (SIGKILL) at its first exchange with another rank, after every
# rank has loaded its share; the others are then waiting on it. The job must
# fail, name the rank, and print no result.
set -uo pipefail
mpiexec=$1 hcube=$2 np=$3 rank=$4 how=$5
shift 5
source "$(dirname "$0")/mpirun_flags.sh"
start=$(date +%s)
out=$(HCUBE_DEBUG_RANK="$rank:$how" "$mpiexec" "${flags[@]}" -x HCUBE_DEBUG_RANK -np "$np" "$hcube" "$@" --json 2>&1)
rc=$?
fail() { echo "$1:"; echo "$out"; exit 1; }
[ $rc -ne 0 ] || fail "the job succeeded although rank $rank died"
grep -q "hcube: rank $rank .* at its first exchange (HCUBE_DEBUG_RANK)" <<<"$out" || fail "rank $rank did not die as asked"
if [ "$how" = exit ]; then
  grep -q "Exit code: *3" <<<"$out" || fail "mpirun did not report the rank's exit"
else
  grep -q "rank $rank .*signal 9" <<<"$out" || fail "mpirun did not report the rank's signal"
fi
grep -q '"verified"' <<<"$out" && fail "a result was printed"
echo "rank $rank's $how ended the job (exit $rc) in $(( $(date +%s) - start )) s"

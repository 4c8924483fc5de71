#!/usr/bin/env bash
# A rank waiting for another does not spin a core (docs/distributed.md, Cores):
#
#   idle_wait.sh MPIEXEC HCUBE ARGS...
#
# On 2 ranks, rank 1 sleeps S seconds at its first exchange, so rank 0 waits S
# seconds for its message. Both ranks otherwise do the same work, so rank 0's
# CPU time less rank 1's is the cost of its wait: under a quarter of S (a
# spinning wait costs up to S, less only on a machine busy enough to take the
# core from it).
set -uo pipefail
mpiexec=$1 hcube=$2
shift 2
S=1.5
source "$(dirname "$0")/mpirun_flags.sh"
out=$(HCUBE_DEBUG_RANK="1:sleep:$S" "$mpiexec" "${flags[@]}" -x HCUBE_DEBUG_RANK -np 2 \
  bash -c 'TIMEFORMAT="rank $OMPI_COMM_WORLD_RANK cpu %U %S"; time "$0" "$@" >/dev/null' "$hcube" "$@" 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "the job failed:"; echo "$out"; exit 1; }
python3 - "$S" "$out" <<'PY'
import re, sys
S, text = float(sys.argv[1]), sys.argv[2]
cpu = {int(r): float(u) + float(s) for r, u, s in re.findall(r"rank (\d) cpu ([\d.]+) ([\d.]+)", text)}
if sorted(cpu) != [0, 1]:
    sys.exit(f"no CPU times of both ranks:\n{text}")
waited = cpu[0] - cpu[1]
print(f"rank 0 used {waited:.3f} s of CPU more than rank 1 while waiting {S} s for it")
if waited > S / 4:
    sys.exit(f"rank 0 spent {waited:.3f} s of CPU waiting {S} s: allowed {S / 4} (it spins)")
PY

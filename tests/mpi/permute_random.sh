#!/usr/bin/env bash
# Random dimension permutations under mpirun, each compared bit for bit with
# one process (compare.sh):
#
#   permute_random.sh MPIEXEC HCUBE NP ALGORITHM PORTS SEED COUNT [FLAGS...]
#
# COUNT permutations of the n + m = 8 address bits (n = m = 4) drawn with
# SEED: any permutation for A1, A1' and A2; a separable one (memory bits
# among memory bits, node bits among node bits: the n-port algorithms' case)
# for A4, A5 and A6; with ALGORITHM "extended", permutations of the 6 bits of
# the data on the first 3 of 5 node dimensions (--subcube-dims 3, m = 3),
# the algorithm chosen by the cost model.
set -euo pipefail
mpiexec=$1 hcube=$2 np=$3 alg=$4 ports=$5 seed=$6 count=$7
shift 7
here=$(dirname "$0")
mapfile -t perms < <(python3 - "$alg" "$seed" "$count" <<'PY'
import random, sys
alg, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
for _ in range(count):
    if alg in ("A4", "A5", "A6"):
        mem, node = list(range(4)), list(range(4, 8))
        rng.shuffle(mem)
        rng.shuffle(node)
        p = mem + node
    else:
        p = list(range(6 if alg == "extended" else 8))
        rng.shuffle(p)
    print(",".join(map(str, p)))
PY
)
for p in "${perms[@]}"; do
  if [ "$alg" = extended ]; then
    bash "$here/compare.sh" "$mpiexec" "$hcube" "$np" permute --perm "$p" --subcube-dims 3 -n 5 -m 3 --ports "$ports" "$@"
  else
    bash "$here/compare.sh" "$mpiexec" "$hcube" "$np" permute --perm "$p" --algorithm "$alg" --ports "$ports" -n 4 -m 4 "$@"
  fi
done

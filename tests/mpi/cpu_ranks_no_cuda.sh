#!/usr/bin/env bash
# A CPU run under mpirun never touches CUDA, so that it runs on a GPU node whose
# devices another job holds (exclusive-process mode): no context, no device chosen.
#
#   cpu_ranks_no_cuda.sh MPIEXEC HCUBE FAKE_LIBCUDA_DIR
#
# FAKE_LIBCUDA_DIR holds a stand-in libcuda.so.1 (fake_libcuda.cpp) that marks a
# file when loaded, as the CUDA runtime loads the driver on its first call. A
# control run with --backend auto must load it (else the probe proves nothing);
# the --backend cpu runs on 2 ranks must not.
set -uo pipefail
mpiexec=$1 hcube=$2 fake=$3
source "$(dirname "$0")/mpirun_flags.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export HCUBE_FAKE_LIBCUDA_MARKER=$dir/control
"$hcube" aapc --dims 3 --backend auto >/dev/null || { echo "the control run failed"; exit 1; }
[ -s "$dir/control" ] || { echo "the control run (--backend auto) did not load the stand-in libcuda: the probe proves nothing"; exit 1; }
export HCUBE_FAKE_LIBCUDA_MARKER=$dir/ranks
for args in "aapc --dims 4" "permute -n 3 -m 3 --perm transpose --fused" "multi-aapc --axes 2 --dims 2"; do
  # shellcheck disable=SC2086
  out=$("$mpiexec" "${flags[@]}" -x LD_LIBRARY_PATH -x HCUBE_FAKE_LIBCUDA_MARKER -np 2 "$hcube" $args --backend cpu 2>&1) ||
    { echo "hcube $args --backend cpu on 2 ranks failed:"; echo "$out"; exit 1; }
  if [ -e "$dir/ranks" ]; then echo "hcube $args --backend cpu on 2 ranks loaded the CUDA driver"; exit 1; fi
done
echo "no CPU rank touched CUDA; the control run did"

#!/usr/bin/env bash
# Two MPI ranks sharing the device give the single-process result (issue 36, item 5): runs
#   hcube aapc --backend B --dims D --json                      (one process)
#   mpirun -np 2 hcube aapc --backend B --dims D --json          (two ranks)
# with the Open MPI runtime a bundle carries (scripts/gpu_bundle.sh: mpi/), relocated by the
# OPAL_*/PMIX_* install-dir variables, and compares the two JSONs (scripts/gpu_mpi_compare.py):
# both verified word for word against the reference, the counts of the routing equal.
#
# usage: scripts/gpu_mpi_aapc.sh (--bundle-root DIR | --hcube BIN) --out DIR [--backend B] [--dims D] [--hide-system-mpi]
#   --bundle-root DIR   the unpacked bundle (its bin/hcube, lib/, mpi/)
#   --hcube BIN         a build's hcube, with the mpirun on the PATH as it is
#   --out DIR           where single.json and two-ranks.json go
#   --hide-system-mpi   (the rehearsal, as root) first hides this machine's Open MPI and PMIx files
#                       in a private mount namespace (unshare -m), so the run proves that the
#                       bundle's runtime alone is used; never touches the real mounts
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=""
hcube=""
out=""
backend=cuda
dims=12
hide=0
while [ $# -gt 0 ]; do
  case $1 in
    --bundle-root) top=$2; shift 2 ;;
    --hcube) hcube=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --dims) dims=$2; shift 2 ;;
    --hide-system-mpi) hide=1; shift ;;
    *) echo "gpu_mpi_aapc.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$top$hcube" ] && [ -n "$out" ] || { echo "gpu_mpi_aapc.sh: --bundle-root or --hcube, and --out, are needed" >&2; exit 2; }
if [ -n "$top" ]; then
  m=$top/mpi hcube=$top/bin/hcube mpirun=$m/bin/mpirun
  [ -x "$mpirun" ] || { echo "gpu_mpi_aapc.sh: the bundle carries no Open MPI runtime ($mpirun)" >&2; exit 2; }
else
  [ $hide = 0 ] || { echo "gpu_mpi_aapc.sh: --hide-system-mpi proves a bundle's runtime: give --bundle-root" >&2; exit 2; }
  mpirun=$(command -v mpirun) || { echo "gpu_mpi_aapc.sh: no mpirun on the PATH" >&2; exit 2; }
fi

if [ $hide = 1 ] && [ -z "${HCUBE_MPI_HIDDEN:-}" ]; then
  # Re-run inside a private mount namespace (its mounts vanish with it), with every file of this
  # machine's Open MPI and PMIx packages covered: directories by an empty tmpfs, files by /dev/null.
  exec unshare -m --propagation private env HCUBE_MPI_HIDDEN=1 bash "$0" --bundle-root "$top" --out "$out" \
    --backend "$backend" --dims "$dims" --hide-system-mpi
fi
if [ -n "${HCUBE_MPI_HIDDEN:-}" ]; then
  hidden=()
  for d in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /usr/share/openmpi /usr/share/pmix \
    /etc/openmpi /etc/pmix; do
    [ -d "$d" ] && mount -t tmpfs none "$d" && hidden+=("$d")
  done
  for f in /usr/bin/mpirun /usr/bin/mpiexec /usr/bin/orterun /usr/bin/orted /usr/bin/ompi_info \
    /usr/lib/x86_64-linux-gnu/lib{mpi,open-rte,open-pal,pmix,mca_common_}*.so*; do
    [ -e "$f" ] && [ ! -L "$f" ] && mount --bind /dev/null "$f" && hidden+=("$f")
  done
  echo "hidden in this mount namespace: ${hidden[*]}"
fi

# The bundle's install dirs, wherever it was unpacked; nothing of a system Open MPI is looked up.
[ -n "$top" ] && export OPAL_PREFIX=$m OPAL_EXEC_PREFIX=$m OPAL_BINDIR=$m/bin OPAL_LIBDIR=$top/lib OPAL_PKGLIBDIR=$m/lib/openmpi \
  OPAL_DATAROOTDIR=$m/share OPAL_DATADIR=$m/share OPAL_PKGDATADIR=$m/share/openmpi OPAL_SYSCONFDIR=$m/etc/openmpi
[ -n "$top" ] && export PMIX_PREFIX=$m PMIX_EXEC_PREFIX=$m PMIX_BINDIR=$m/bin PMIX_LIBDIR=$top/lib PMIX_PKGLIBDIR=$m/lib/pmix \
  PMIX_DATAROOTDIR=$m/share PMIX_DATADIR=$m/share PMIX_PKGDATADIR=$m/share/pmix PMIX_SYSCONFDIR=$m/etc/pmix \
  PMIX_MCA_mca_base_component_path=$m/lib/pmix OMPI_MCA_mca_base_component_path=$m/lib/openmpi
# A container may forbid the cross-memory attach that vader's single copy uses; two ranks on one node
# need no more than shared memory.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1
mkdir -p "$out"
cmd=("$hcube" aapc --backend "$backend" --dims "$dims" --json)
echo "+ ${cmd[*]}"
"${cmd[@]}" >"$out/single.json"
echo "+ mpirun --allow-run-as-root --oversubscribe -np 2 ${cmd[*]}"
"$mpirun" --allow-run-as-root --oversubscribe -np 2 "${cmd[@]}" >"$out/two-ranks.json"
python3 "$here/gpu_mpi_compare.py" "$out/single.json" "$out/two-ranks.json"

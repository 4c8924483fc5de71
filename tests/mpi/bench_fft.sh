#!/usr/bin/env bash
# hcube bench --op fft under mpirun (docs/distributed.md): hcube's distributed
# FFT checked against fftw3-mpi's transform of the same points on the same
# ranks and timed beside it; the JSON's fields, never a time:
#
#   bench_fft.sh MPIEXEC HCUBE HAVE_FFTW3_MPI NP [FLAGS...]
#
# HAVE_FFTW3_MPI 0 (the build found no fftw3-mpi): skips (exit 77), or fails
# where HCUBE_REQUIRE_FFTW3_MPI=1 (CI, which installs it) says it must run.
set -euo pipefail
mpiexec=$1 hcube=$2 have=$3 np=$4
shift 4
if [ "$have" != 1 ]; then
  why="hcube was built without fftw3-mpi (libfftw3-mpi-dev, scripts/install-deps.sh): bench --op fft refuses under mpirun"
  case ${HCUBE_REQUIRE_FFTW3_MPI:-0} in 0 | "") echo "skipped: $why"; exit 77 ;; esac
  echo "HCUBE_REQUIRE_FFTW3_MPI is set, so this test must run, but it cannot: $why"
  exit 1
fi
source "$(dirname "$0")/mpirun_flags.sh"
out=$("$mpiexec" "${flags[@]}" -np "$np" "$hcube" bench --op fft -w 12 --repeat 2 --json "$@")
python3 - "$np" "$out" "$@" <<'PY'
import json, math, sys
np_, text, flags = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
j = json.loads(text)
def need(cond, what):
    if not cond:
        sys.exit(f"bench --op fft on {np_} ranks {' '.join(flags)}: {what}\n{text}")
need(j["command"] == "bench" and j["op"] == "fft" and j["ranks"] == np_, "not this bench's JSON")
need(j["points_log2"] == 12 and j["type"] == "complex128", "points_log2 or type")
if "--nodes-log2" in flags:
    need(j["nodes_log2"] == int(flags[flags.index("--nodes-log2") + 1]), "nodes_log2 is not the one asked for")
need(j["fftw_plan"] == (flags[flags.index("--fftw-plan") + 1] if "--fftw-plan" in flags else "estimate"), "fftw_plan")
need(j["verified"] is True, "hcube's result not checked against fftw3-mpi's")
err = j["max_relative_error"]
need(isinstance(err, (int, float)) and math.isfinite(err) and err < 1e-12, f"max_relative_error {err}")
for k in ("seconds", "fftw_mpi_seconds", "ratio_to_fftw_mpi", "mpi_alltoall_seconds", "ratio_to_mpi_alltoall"):
    need(isinstance(j[k], (int, float)) and math.isfinite(j[k]) and j[k] > 0, f"{k} not a positive number")
need(abs(j["ratio_to_fftw_mpi"] - j["fftw_mpi_seconds"] / j["seconds"]) <= 1e-9 * j["ratio_to_fftw_mpi"],
     "ratio_to_fftw_mpi is not fftw_mpi_seconds / seconds")
need(len(j["fftw_mpi_runs"]) == 2 and j["fftw_mpi_threads"] >= 1, "fftw3-mpi's runs or threads")
need("ratio_to_fftw" not in j, "ratio_to_fftw is one process's FFTW; across ranks the baseline is fftw3-mpi")
print(f"bench --op fft on {np_} ranks: verified against fftw3-mpi (error {err:.2g}), "
      f"ratio_to_fftw_mpi {j['ratio_to_fftw_mpi']:.3f}")
PY

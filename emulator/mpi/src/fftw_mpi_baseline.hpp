// hcube bench --op fft under mpirun: fftw3-mpi's distributed transform of the
// same points on the same ranks, the baseline. Built into the hcube program
// only where fftw3-mpi was found (HCUBE_HAVE_FFTW3_MPI), so that the installed
// hcube::mpi does not link it.
#pragma once

#include <mpi.h>

#include "hcube/emulator/measure.hpp"
#include "hcube/mpi/distributed_bench.hpp"

namespace hcube::mpi {

// fftw_mpi_plan_dft_1d of 2^log2_words points on `comm`, forward, in place,
// planned now (FFTW_ESTIMATE or FFTW_MEASURE per r.fftw_plan) with each rank's
// OpenMP threads; its input and output in FFTW's own block distribution and
// natural order (fftw_mpi_local_size_1d). Collective; throws hcube::Error alike
// on every rank when FFTW cannot plan it.
FftBaselineAcrossRanks fftw_mpi_baseline(const BenchRequest& r, MPI_Comm comm);

}  // namespace hcube::mpi

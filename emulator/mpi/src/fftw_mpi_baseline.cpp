#include "fftw_mpi_baseline.hpp"

#include <fftw3-mpi.h>
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstring>
#include <memory>
#include <vector>

#include "hcube/core/error.hpp"
#include "hcube/mpi/world.hpp"

namespace hcube::mpi {
namespace {

// fftw_mpi_init once a process, after MPI_Init; FFTW's threads first, as FFTW asks
// (fftw_init_threads does nothing when the CPU backend has started them).
void start_fftw_mpi() {
  static const bool started = [] {
    if (fftw_init_threads() == 0) throw Error("FFTW's threads library could not start (fftw_init_threads returned 0)");
    fftw_mpi_init();
    return true;
  }();
  (void)started;
}

// The plan and this rank's blocks, freed with it (before MPI_Finalize: the bench's scope ends first).
struct FftwMpiTransform {
  ptrdiff_t in_count = 0, in_first = 0, out_count = 0, out_first = 0;
  fftw_complex* data = nullptr;
  fftw_plan plan = nullptr;
  std::vector<std::complex<double>> points;  // this rank's input block, copied in before each run
  MPI_Comm comm = MPI_COMM_NULL;
  ~FftwMpiTransform() {
    if (plan != nullptr) fftw_destroy_plan(plan);
    fftw_free(data);
  }
};

}  // namespace

FftBaselineAcrossRanks fftw_mpi_baseline(const BenchRequest& r, MPI_Comm comm) {
  start_fftw_mpi();
  const auto t = std::make_shared<FftwMpiTransform>();
  t->comm = comm;
  const auto N = static_cast<ptrdiff_t>(1) << r.log2_words;
  const unsigned flags = r.fftw_plan == "measure" ? FFTW_MEASURE : FFTW_ESTIMATE;
  const ptrdiff_t alloc = fftw_mpi_local_size_1d(N, comm, FFTW_FORWARD, flags, &t->in_count, &t->in_first,
                                                 &t->out_count, &t->out_first);
  t->data = fftw_alloc_complex(static_cast<std::size_t>(std::max<ptrdiff_t>(alloc, 1)));
  if (t->data == nullptr) throw OutOfMemory(fmt::format("fftw3-mpi could not allocate {} points", alloc));
  // The same threads a rank as hcube's ranks run with; the planner's setting restored for the CPU backend.
  FftBaselineAcrossRanks b;
  b.name = "fftw3-mpi";
  b.threads = omp_get_max_threads();
  const int planner_threads = fftw_planner_nthreads();
  fftw_plan_with_nthreads(b.threads);
  t->plan = fftw_mpi_plan_dft_1d(N, t->data, t->data, comm, FFTW_FORWARD, flags);
  fftw_plan_with_nthreads(planner_threads);
  if (t->plan == nullptr)
    throw Error(fmt::format("fftw3-mpi could not plan a transform of 2^{} points on this communicator",
                            r.log2_words));
  t->points.resize(static_cast<std::size_t>(t->in_count));
  for (ptrdiff_t i = 0; i < t->in_count; ++i)
    t->points[static_cast<std::size_t>(i)] = bench_fft_point(static_cast<std::uint64_t>(t->in_first + i));
  b.run = [t] {
    std::memcpy(t->data, t->points.data(), t->points.size() * sizeof(fftw_complex));
    barrier(t->comm);
    const auto start = std::chrono::steady_clock::now();
    fftw_execute(t->plan);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Each rank's output block at its place: counts and offsets fit an int (at most 2^30 points).
  b.result = [t, N] {
    int ranks = 1;
    MPI_Comm_size(t->comm, &ranks);
    const int mine[2] = {static_cast<int>(t->out_count), static_cast<int>(t->out_first)};
    std::vector<int> all(2 * static_cast<std::size_t>(ranks)), counts(ranks), firsts(ranks);
    MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, t->comm);
    for (int k = 0; k < ranks; ++k) {
      counts[k] = all[2 * k];
      firsts[k] = all[2 * k + 1];
    }
    std::vector<std::complex<double>> x(static_cast<std::size_t>(N));
    MPI_Allgatherv(t->data, mine[0], MPI_C_DOUBLE_COMPLEX, x.data(), counts.data(), firsts.data(),
                   MPI_C_DOUBLE_COMPLEX, t->comm);
    return x;
  };
  return b;
}

}  // namespace hcube::mpi

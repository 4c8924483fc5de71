// hcube bench across MPI ranks (docs/distributed.md): the operation run on a
// DistributedMachine, timed beside what every MPI user knows for the same
// data, MPI_Alltoall, and beside memcpy of each rank's share, in one run.
#pragma once

#include <mpi.h>

#include <complex>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hcube/emulator/measure.hpp"
#include "hcube/mpi/distributed_machine.hpp"

namespace hcube::mpi {

struct DistributedBenchResult {
  // The run: n, m and the data of the whole cube; bytes_moved of one run;
  // time: each run's slowest rank, alternated with every rank's memcpy of its
  // share (the slowest copy), the medians.
  BenchResult bench;
  std::vector<double> alltoall_runs;  // MPI_Alltoall of the same data after each run, the slowest rank
  double alltoall_seconds = 0;        // their median
  int ranks = 1;
  unsigned rank_dims = 0;
  std::string transport;  // DistributedMachine::transport
  std::vector<RankTraffic> traffic;  // of one run, per rank
  std::optional<bool> verified;      // the warm-up run against the reference; none where labels do not fit the type, or for memcpy
  // --op fft: the baseline's transform of the same points after each run (the
  // slowest rank), their median, and its threads on each rank; bench.fft_error
  // is hcube's result against the baseline's.
  std::vector<double> fft_baseline_runs;
  double fft_baseline_seconds = 0;
  int fft_baseline_threads = 0;
};

// --op fft's baseline across ranks: another library's distributed transform
// of the same points (bench_fft_point), which hcube::mpi does not link; the
// hcube program's is fftw3-mpi's (emulator/mpi/src/fftw_mpi_baseline.cpp).
struct FftBaselineAcrossRanks {
  std::string name;  // the library, in the bench's text and errors
  int threads = 1;   // each rank's
  // Collective: loads this rank's points, then transforms them between
  // barriers; this rank's seconds of the transform alone.
  std::function<double()> run;
  // Collective, after a run: the whole transform, X[k] at k, on every rank.
  std::function<std::vector<std::complex<double>>()> result;
};

// The operations that run across ranks: all but gather-bit-reversal, one
// process's baseline.
bool runs_across_ranks(BenchOp op);
// check_bench, the op one of those, and its sizes possible on `ranks` ranks
// (throws hcube::Error saying why not).
void check_distributed_bench(const BenchRequest& r, int ranks);
// Collective. Throws CollectiveError on every rank when the warm-up run's
// words differ from the reference on any rank. --op fft needs `fft_baseline`
// (made for the same request and communicator): hcube's transform is checked
// against it and timed beside it.
DistributedBenchResult run_distributed_bench(const BenchRequest& r, MPI_Comm comm,
                                             const FftBaselineAcrossRanks* fft_baseline = nullptr);

}  // namespace hcube::mpi

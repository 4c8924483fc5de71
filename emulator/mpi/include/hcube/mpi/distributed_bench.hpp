// hcube bench across MPI ranks (docs/distributed.md): the operation run on a
// DistributedMachine, timed beside what every MPI user knows for the same
// data, MPI_Alltoall, and beside memcpy of each rank's share, in one run.
#pragma once

#include <mpi.h>

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
};

// The operations that run across ranks: all but gather-bit-reversal, one
// process's baseline.
bool runs_across_ranks(BenchOp op);
// check_bench, and the op one of those (throws hcube::Error saying why not).
void check_distributed_bench(const BenchRequest& r);
// Collective. Throws CollectiveError on every rank when the warm-up run's
// words differ from the reference on any rank.
DistributedBenchResult run_distributed_bench(const BenchRequest& r, MPI_Comm comm);

}  // namespace hcube::mpi

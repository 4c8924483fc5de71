// A plan executed across the ranks of the caller's communicator: the plans of
// <hcube/plans.hpp>, made as on one process, run on a machine whose 2^n nodes
// the 2^r ranks share (docs/distributed.md). Each rank passes its own rows of
// the plan's (2^n, K) array; the result replaces them in place.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "hcube/emulator/counters.hpp"
#include "hcube/plans.hpp"

namespace hcube::mpi {

// Rank R of `comm` (2^r ranks, r <= n) holds rows [R 2^(n-r), (R+1) 2^(n-r))
// of the plan's array in `share` (host memory, `bytes` = 2^(n-r) K words of
// plan.type()). Runs a plan that routes a schedule (AapcPlan, MultiAapcPlan,
// SchedulePlan, a PermutePlan that runs as one schedule) or the fused
// PermutePlan; any other plan throws hcube::Error naming why (on every rank
// alike, before anything moves). Collective. Returns this rank's counters.
Counters execute_across(const Plan& plan, MPI_Comm comm, void* share, std::uint64_t bytes);

}  // namespace hcube::mpi

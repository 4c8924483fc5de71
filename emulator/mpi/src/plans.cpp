#include "hcube/mpi/plans.hpp"

#include <fmt/format.h>

#include "hcube/core/error.hpp"
#include "hcube/mpi/distributed_run.hpp"

namespace hcube::mpi {

Counters execute_across(const Plan& plan, MPI_Comm comm, void* share, std::uint64_t bytes) {
  const Job* job = plan.job();
  const auto* permute = dynamic_cast<const PermutePlan*>(&plan);
  const bool fused = permute != nullptr && permute->fused();
  // Every rank holds the same plan: each refuses alike, before the machine exists.
  if (!fused && job == nullptr)
    throw Error("execute_across runs plans that route a schedule or the fused permutation: this plan checks its own "
                "result on one process (Plan::execute)");
  if (!fused && !job->untraceable.empty())
    throw Error(fmt::format("execute_across runs plans that route a schedule on the data's machine: this one runs on a "
                            "machine of its own geometry (n = {}, m = {}); Plan::execute runs it on one process",
                            job->schedule.n, job->schedule.m));
  const Geometry& geo = plan.geometry();
  const BackendChoice backend = plan.backend_kind() == BackendKind::cuda ? BackendChoice::cuda : BackendChoice::cpu;
  DistributedMachine machine(MachineOptions{geo.n, geo.m, plan.type(), backend, -1}, comm);
  Machine& local = machine.local();
  if (share == nullptr) throw Error("the caller's share is a null pointer");
  if (bytes != local.bytes())
    throw Error(fmt::format("the caller's share holds {} bytes: rank {} of {} holds 2^{} nodes of 2^{} words of {}, {} "
                            "bytes",
                            bytes, machine.rank(), machine.ranks(), geo.n - machine.rank_dims(), geo.m,
                            info(plan.type()).name, local.bytes()));
  local.load(share, bytes);
  if (fused) {
    machine.permute_address_bits(permute->perm().to);
  } else {
    run_job_schedule(machine, *job);  // checked when the plan was made: here it only runs
  }
  local.read(share, bytes);
  return local.counters();
}

}  // namespace hcube::mpi

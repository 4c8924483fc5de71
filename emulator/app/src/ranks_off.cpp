// A build without MPI: hcube is always one process.
#include "hcube/app/ranks.hpp"

#include "hcube/core/error.hpp"

namespace hcube::mpi {
// Never made without MPI; complete, so that Ranks can destroy its empty pointer.
class World {};
}  // namespace hcube::mpi

namespace hcube::app {

Ranks::Ranks(int&, char**&) {}
Ranks::~Ranks() = default;
std::string Ranks::failed(bool, const std::string& error) { return error; }
bool Ranks::succeeded(std::string&) { return true; }
void Ranks::end_failed() {}
bool Ranks::is_collective(const std::exception&) { return false; }

bool distributed() { return false; }
mpi::World& world() { throw Error("internal: world() without MPI"); }
unsigned rank_dims() { return 0; }
bool prints_results() { return true; }
nlohmann::json mpi_json() { return nullptr; }
void refuse_if_distributed(const std::string&, const std::string&) {}

}  // namespace hcube::app

#include "hcube/app/distributed.hpp"

namespace hcube::app {

void run_plan_across_ranks(const MachineFlags&, const IoFlags&, const Plan&, const JobFields&, const JobSummary&) {
  throw Error("internal: a distributed run in a build without MPI");
}

void run_sdp_plan_across_ranks(const MachineFlags&, const IoFlags&, const SdpPlan&, const DimensionPermutation&,
                               const JobFields&, const JobSummary&) {
  throw Error("internal: a distributed run in a build without MPI");
}

void run_cycles_across_ranks(const MachineFlags&, const IoFlags&, const std::vector<Cycle>&, const nlohmann::json&,
                             const std::string&) {
  throw Error("internal: a distributed run in a build without MPI");
}

DistributedStep fused_permutation_step(const std::vector<unsigned>&) {
  throw Error("internal: a distributed run in a build without MPI");
}

DistributedStep alignment_step(const AffineMap&) { throw Error("internal: a distributed run in a build without MPI"); }

void run_step_across_ranks(const MachineFlags&, const IoFlags&, const std::string&, const AddressMap&,
                           const DistributedStep&, const JobFields&, const JobSummary&) {
  throw Error("internal: a distributed run in a build without MPI");
}

void run_route_across_ranks(const MachineFlags&, const IoFlags&, const RouterStep&, const RouterLimits&,
                            const RouteFields&, const RouteSummary&) {
  throw Error("internal: a distributed run in a build without MPI");
}

void run_redistribute_across_ranks(const MachineFlags&, const IoFlags&, const RedistributePlan&, ElementType,
                                   const std::shared_ptr<const NpyFile>&, const RedistributeFields&, const std::string&) {
  throw Error("internal: a distributed run in a build without MPI");
}

void run_fft_across_ranks(FftAcrossRanks) { throw Error("internal: a distributed run in a build without MPI"); }

void run_bench_across_ranks(const BenchRequest&, bool, bool) {
  throw Error("internal: a distributed run in a build without MPI");
}

}  // namespace hcube::app

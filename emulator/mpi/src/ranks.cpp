// A build with MPI: under a launcher, hcube is one rank of the job.
#include "hcube/app/ranks.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "hcube/emulator/backend.hpp"
#include "hcube/mpi/world.hpp"

namespace hcube::app {
namespace {

mpi::World* g_world = nullptr;  // the job's world while Ranks lives

}  // namespace

Ranks::Ranks(int& argc, char**& argv) {
  if (!mpi::launched()) return;
  world_ = std::make_unique<mpi::World>(argc, argv);
  world_->check(argc, argv);
  g_world = world_.get();
  // Ranks on one machine share its cores: each rank's threads default to its
  // share, so that no rank's threads wait on cores another rank's need.
  if (std::getenv("OMP_NUM_THREADS") == nullptr)
    omp_set_num_threads(std::max(1, omp_get_num_procs() / world_->ranks_on_this_host()));
  // A CUDA rank takes its own GPU, its place among the ranks on its node mod the GPUs there, when
  // its backend is made: a CPU rank never touches CUDA.
  set_cuda_local_rank(world_->local_rank());
}

Ranks::~Ranks() { g_world = nullptr; }

void Ranks::failed(bool collective, const std::string& error) {
  if (world_ && !collective) world_->fail(error);
}

void Ranks::succeeded() {
  if (world_) world_->finish();
}

bool Ranks::is_collective(const std::exception& e) { return dynamic_cast<const mpi::CollectiveError*>(&e) != nullptr; }

bool distributed() { return g_world != nullptr; }

mpi::World& world() { return *g_world; }

unsigned rank_dims() { return g_world == nullptr ? 0 : g_world->rank_dims(); }

bool prints_results() { return g_world == nullptr || g_world->rank() == 0; }

nlohmann::json mpi_json() { return {{"library", mpi::library_version()}, {"cuda_aware", mpi::cuda_aware()}}; }

void refuse_if_distributed(const std::string& command, const std::string& why) {
  if (g_world != nullptr && g_world->size() > 1)
    throw mpi::CollectiveError(fmt::format("hcube {} runs as one process only: it {}; run it without mpirun",
                                           command, why));
}

}  // namespace hcube::app

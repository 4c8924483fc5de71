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

std::string Ranks::failed(bool collective, const std::string& error) {
  if (!world_) return error;
  if (!collective && world_->agreed()) {
    // The others may wait on this rank in an exchange: it says why, and the job is aborted.
    own_error_ = error;
    return error;
  }
  std::string text = error;
  if (!collective) {
    // Before the first agreement the others are on their way to it: this rank joins it.
    try {
      world_->agree(error.empty() ? "failed" : error);
    } catch (const mpi::CollectiveError& e) {
      text = e.what();
    }
  }
  return world_->rank() == 0 ? text : std::string();
}

bool Ranks::succeeded(std::string& error) {
  if (!world_) return true;
  try {
    world_->finish();  // a rank that failed before the first agreement waits there
    return true;
  } catch (const mpi::CollectiveError& e) {
    error = world_->rank() == 0 ? e.what() : "";
    return false;
  }
}

void Ranks::end_failed() {
  if (!world_) return;
  if (!own_error_.empty()) world_->fail(own_error_);  // aborts the job
  // Every rank met the error: the others end only once rank 0 has written
  // its line, so that mpirun ending them cannot drop it.
  mpi::barrier(world_->comm());
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

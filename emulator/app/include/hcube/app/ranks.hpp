// A client of the plans as one rank of an MPI job (docs/distributed.md):
// emulator/mpi/src/ranks.cpp when the build has MPI, ranks_off.cpp (no MPI
// code) when it has not.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace hcube::mpi {
class World;
}

namespace hcube::app {

// Starts MPI when a launcher (mpirun) started this process and the build has
// it, and ends it; otherwise does nothing, and hcube runs as one process.
class Ranks {
 public:
  // Throws hcube::Error, on every rank alike, for a world of a size other than
  // 2^r or ranks given different arguments.
  Ranks(int& argc, char**& argv);
  ~Ranks();
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;
  // After a command's error, printed by the caller: `collective` when every
  // rank raised it together (is_collective), else the error is this rank's
  // alone and the others are ended with it (World::fail).
  void failed(bool collective, const std::string& error);
  void succeeded();
  static bool is_collective(const std::exception& e);

 private:
  std::unique_ptr<mpi::World> world_;
};

// True while this process is one rank of an MPI job (of any size, 1 too).
bool distributed();
// The job's world (distributed() only).
mpi::World& world();
// r, the top node dimensions the 2^r ranks split among them (0 on one process).
unsigned rank_dims();
// Whether this process prints results: rank 0, or a process on its own.
bool prints_results();
// hcube info's "mpi": {"library", "cuda_aware"}, or null without MPI.
nlohmann::json mpi_json();
// Refuses, on more than one rank, a command that runs as one process only, saying `why`.
void refuse_if_distributed(const std::string& command, const std::string& why);

}  // namespace hcube::app

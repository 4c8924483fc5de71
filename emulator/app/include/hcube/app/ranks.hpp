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
  // After a command's error: the line this process prints ("" for none). An
  // error every rank met (`collective`, is_collective) or one this rank met
  // before the ranks' first agreement (which it then joins) is printed by
  // rank 0 alone; one met after it, only this rank knows, so it prints it.
  std::string failed(bool collective, const std::string& error);
  // After a command that succeeded here: false when another rank failed
  // (`error`: rank 0's line to print, "" elsewhere).
  bool succeeded(std::string& error);
  // Once the line is printed: the ranks wait for rank 0's line, or the job is
  // aborted after this rank's own error.
  void end_failed();
  static bool is_collective(const std::exception& e);

 private:
  std::unique_ptr<mpi::World> world_;
  std::string own_error_;  // an error this rank alone met after the ranks agreed
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

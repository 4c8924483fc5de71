// A verified run on a distributed machine, verified_run.hpp's counterpart:
// each rank loads its share (the address labels, or its own rows of a .npy
// file, never the whole array), runs the job and checks its own words against
// the reference, which needs no words: where each input word belongs.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "hcube/emulator/npy.hpp"
#include "hcube/emulator/redistribute.hpp"
#include "hcube/emulator/verified_run.hpp"
#include "hcube/mpi/distributed_machine.hpp"

namespace hcube::mpi {

struct DistributedSession {
  std::unique_ptr<DistributedMachine> machine;
  std::shared_ptr<const NpyFile> source;  // the input file; null: the labels g
  AddressMap placed;                      // input word g belongs at global address placed(g)
  std::string backend_note;               // how BackendChoice::automatic chose
};

// Collective (the machine's constructor): each rank reads its rows of `source`, or writes its labels.
DistributedSession open_distributed_session(const MachineOptions& options, std::shared_ptr<const NpyFile> source,
                                            MPI_Comm comm);
// Advances the reference by a permutation: the word at global address g moves to dest(g).
void advance_reference(DistributedSession& s, const AddressMap& dest);
// This rank's words against the reference: "" when they agree, else the
// first difference in one line (the caller makes the ranks agree on it). A
// file's words are read again a chunk at a time, each rank keeping those that
// belong in its share: every rank reads the whole file, none holds it.
std::string check_share(const DistributedSession& s, const std::string& what);
// After a step that copies words (a router step) on a session whose
// reference has not moved: the word at each global address a of this rank's
// share must be the input word `from`(a) (route_source), or zero where
// `from`(a) is kZeroWord. "" when they agree, else the first difference in
// one line. A file's words are read through a small cache (NpyWordReader).
inline constexpr std::uint64_t kZeroWord = ~std::uint64_t{0};
std::string check_share_drawn(const DistributedSession& s, const AddressMap& from, const std::string& what);
// The check before the first word moves: the schedule's geometry is the
// machine's (its cycles were checked when its job was made).
void check_job_schedule(const DistributedSession& s, const Job& job);
// The job's schedule as run_schedule runs it on one machine: its checks, the
// pre-alignment, the cycles, the post-alignment. Collective; returns this
// rank's seconds of data motion. The reference is not advanced (check_job does).
double run_job_schedule(DistributedSession& s, const Job& job);
// The same on a machine of the schedule's geometry, no session (its share loaded by the caller).
double run_job_schedule(DistributedMachine& machine, const Job& job);
// The slowest rank's seconds (MPI_Allreduce max). Collective.
double slowest(double seconds, MPI_Comm comm);
// After run_job_schedule: advances the reference by job.destination and
// checks this rank's words (check_share); "" for a job with no destination.
std::string check_job(DistributedSession& s, const Job& job);

// A block-cyclic redistribution (emulator/redistribute.hpp) across ranks:
// each rank loads its sources' words (source_run), the schedule's router
// steps run as one DistributedMachine::route_blocks (run_redistribution's
// direct run, checked alike), and each rank checks its destinations' words.
void load_sources(DistributedMachine& machine, const RedistributionPlacement& pl, const RedistElement& element);
// Collective.
RedistributionReport run_redistribution(DistributedMachine& machine, const RedistributionPlacement& pl,
                                        const RedistSchedule& s);
// Collective: "" when every rank's destination words are the layout's and
// they hold the N elements between them, else this rank's first difference
// (or the count's) in one line, for the caller to agree on.
std::string check_destinations(const DistributedMachine& machine, const RedistributionPlacement& pl,
                               const RedistElement& element);

}  // namespace hcube::mpi

// hcube as one rank of an MPI job (docs/distributed.md): whether a launcher
// started this process, the library it runs on, and the failure protocol that
// ends every rank with a one-line error instead of leaving one waiting.
#pragma once

#include <mpi.h>

#include <string>

#include "hcube/core/error.hpp"

namespace hcube::mpi {

// True when a launcher (mpirun, mpiexec, srun through PMI/PMIx) started this
// process. hcube initialises MPI only then: a plain `hcube ...` needs none.
bool launched();
// The first line of MPI_Get_library_version (callable before MPI_Init).
std::string library_version();
// Whether the library takes device pointers: MPIX_Query_cuda_support where
// mpi-ext.h declares it, else false.
bool cuda_aware();

// Waits for `count` requests without holding a core that another rank or
// process needs (docs/distributed.md, Cores): MPI_Testall polled, the core
// yielded between polls (sched_yield: any other thread runnable on it runs
// first), and once the wait has lasted 10 ms (HCUBE_MPI_YIELD_US), sleeps
// between polls that double from 1 us to 1 ms (a wait overshoots by at most
// about its own length). A plain MPI_Waitall spins in Open MPI whenever the
// node is not oversubscribed. HCUBE_MPI_WAIT=spin waits in MPI_Waitall
// instead (for comparisons).
void wait_all(int count, MPI_Request* requests);
inline void wait(MPI_Request& request) { wait_all(1, &request); }
// MPI_Allreduce in place, MPI_Barrier and MPI_Alltoallv, each waited for as
// wait_all waits (their nonblocking forms; the blocking calls with
// HCUBE_MPI_WAIT=spin).
void allreduce(void* data, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void barrier(MPI_Comm comm);
void alltoallv(const void* send, const int* send_counts, const int* send_at, void* receive, const int* receive_counts,
               const int* receive_at, MPI_Datatype type, MPI_Comm comm);

// An error every rank raised at the same point (World::agree, or a check that
// every rank makes alike): each rank prints it and ends, none waits for another.
class CollectiveError : public Error {
 public:
  using Error::Error;
};

class World {
 public:
  // MPI_Init, and the ranks on this machine (MPI_Comm_split_type). Nothing
  // else: check() makes the world's checks.
  World(int& argc, char**& argv);
  ~World();  // MPI_Finalize, unless the job was aborted
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Throws CollectiveError on every rank alike when the world's size is not a
  // power of two or the ranks were given different arguments (a hash of argv
  // compared by MPI_Allreduce min and max): each rank holds a share of one cube.
  void check(int argc, char** argv) const;

  int rank() const { return rank_; }
  int size() const { return size_; }
  unsigned rank_dims() const;  // r: size = 2^r
  // The ranks that share this rank's machine (MPI_COMM_TYPE_SHARED), and
  // this rank's place among them (which GPU it takes).
  int ranks_on_this_host() const { return host_size_; }
  int local_rank() const { return host_rank_; }
  MPI_Comm comm() const { return MPI_COMM_WORLD; }

  // Collective, at the same point on every rank: when any rank brings a
  // non-empty `error`, every rank throws CollectiveError with the text of the
  // lowest such rank (prefixed "rank k: " when it is not this rank's own).
  void agree(const std::string& error = {});
  bool agreed() const { return agreed_; }

  // Ends this rank's part after `error`, which it alone may have met (and has
  // printed). Before the first agreement the other ranks are on their way
  // to it (every command makes one, World::finish at the latest), so this
  // rank joins it and all end there; after it they may wait on this rank in a
  // message exchange, so MPI_Abort ends the job.
  void fail(const std::string& error);
  // A command that succeeded without an agreement joins the first one here,
  // where a rank that failed before it waits.
  void finish();

 private:
  int rank_ = 0;
  int size_ = 1;
  int host_rank_ = 0, host_size_ = 1;
  bool agreed_ = false;
};

}  // namespace hcube::mpi

#include "hcube/mpi/world.hpp"

#include <fmt/format.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace hcube::mpi {

bool launched() {
  // Open MPI's mpirun, PMIx launchers (Open MPI 5, srun --mpi=pmix) and MPICH/Hydra's PMI.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

std::string library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  // Open MPI counts the terminating zero in `length`.
  const std::string_view all(text, std::char_traits<char>::length(text));
  std::string first(all.substr(0, all.find('\n')));
  while (!first.empty() && (first.back() == ',' || first.back() == ' ' || first.back() == '\r')) first.pop_back();
  return first;
}

bool cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace {

bool spin_wait() {
  static const bool spin = [] {
    const char* v = std::getenv("HCUBE_MPI_WAIT");
    return v != nullptr && std::strcmp(v, "spin") == 0;
  }();
  return spin;
}

// How long a wait polls and yields before it sleeps: HCUBE_MPI_YIELD_US, 10000 by default.
std::chrono::microseconds yielding() {
  static const std::chrono::microseconds us = [] {
    const char* v = std::getenv("HCUBE_MPI_YIELD_US");
    return std::chrono::microseconds(v != nullptr ? std::max(0L, std::atol(v)) : 10000L);
  }();
  return us;
}

}  // namespace

void wait_all(int count, MPI_Request* requests) {
  if (spin_wait()) {
    MPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
    return;
  }
  // A sleep of 1 us takes the thread's timer slack (50 us by default) on top: ask for 1 us of slack.
  static thread_local const bool slack = ::prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0) == 0;
  (void)slack;
  using Clock = std::chrono::steady_clock;
  const auto yield_for = yielding();
  constexpr long kMaxSleepNs = 1000000;
  const Clock::time_point start = Clock::now();
  long sleep_ns = 1000;
  for (;;) {
    int done = 0;
    MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
    if (done != 0) return;
    if (Clock::now() - start < yield_for) {
      ::sched_yield();
      continue;
    }
    const timespec ts{0, sleep_ns};
    ::nanosleep(&ts, nullptr);
    sleep_ns = std::min(2 * sleep_ns, kMaxSleepNs);
  }
}

void allreduce(void* data, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (spin_wait()) {
    MPI_Allreduce(MPI_IN_PLACE, data, count, type, op, comm);
    return;
  }
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, data, count, type, op, comm, &request);
  wait(request);
}

void barrier(MPI_Comm comm) {
  if (spin_wait()) {
    MPI_Barrier(comm);
    return;
  }
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  wait(request);
}

void alltoallv(const void* send, const int* send_counts, const int* send_at, void* receive, const int* receive_counts,
               const int* receive_at, MPI_Datatype type, MPI_Comm comm) {
  if (spin_wait()) {
    MPI_Alltoallv(send, send_counts, send_at, type, receive, receive_counts, receive_at, type, comm);
    return;
  }
  MPI_Request request;
  MPI_Ialltoallv(send, send_counts, send_at, type, receive, receive_counts, receive_at, type, comm, &request);
  wait(request);
}

World::World(int& argc, char**& argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host);
  MPI_Comm_rank(host, &host_rank_);
  MPI_Comm_size(host, &host_size_);
  MPI_Comm_free(&host);
}

World::~World() { MPI_Finalize(); }

unsigned World::rank_dims() const {
  unsigned r = 0;
  while ((1 << r) < size_) ++r;
  return r;
}

void World::check(int argc, char** argv) const {
  if ((size_ & (size_ - 1)) != 0)
    throw CollectiveError(fmt::format("{} MPI ranks: the ranks hold the top node dimensions of the cube, so their "
                                      "number must be a power of two (1, 2, 4, 8, ...)",
                                      size_));
  // FNV-1a over the arguments, each ended by a zero byte.
  std::uint64_t hash = 14695981039346656037ull;
  for (int a = 1; a < argc; ++a)
    for (const char* c = argv[a];; ++c) {
      hash = (hash ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
      if (*c == '\0') break;
    }
  unsigned long long low = hash, high = hash;
  allreduce(&low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  allreduce(&high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (low != high)
    throw CollectiveError("the MPI ranks were given different arguments: every rank must run the same hcube command");
}

void World::agree(const std::string& error) {
  agreed_ = true;
  int lowest = error.empty() ? size_ : rank_;
  allreduce(&lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (lowest == size_) return;
  // The lowest failing rank's text, so that every rank names the same cause.
  std::string text = error;
  unsigned long long length = text.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, lowest, MPI_COMM_WORLD);
  text.resize(length);
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, lowest, MPI_COMM_WORLD);
  // A rank that met the same error itself says it as its own.
  throw CollectiveError(lowest == rank_ || text == error ? text : fmt::format("rank {}: {}", lowest, text));
}

void World::fail(const std::string& error) {
  if (agreed_) MPI_Abort(MPI_COMM_WORLD, 1);
  try {
    agree(error.empty() ? "failed" : error);
  } catch (const CollectiveError&) {
    // Every rank now ends; this one has printed its own error.
  }
}

void World::finish() {
  if (!agreed_) agree();
}

}  // namespace hcube::mpi

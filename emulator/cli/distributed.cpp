// The commands across MPI ranks (docs/distributed.md). Every rank makes the
// same checks and plans alike; a failure that only some ranks can meet (a
// file, memory, a word that differs) is agreed on (World::agree) so that every
// rank ends with the same line and none waits on another.
#include "distributed.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <omp.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>
#include <utility>

#include "hcube/core/error.hpp"
#include "hcube/emulator/units.hpp"
#include "hcube/host/output_file.hpp"
#include "hcube/mpi/distributed_bench.hpp"
#include "hcube/mpi/distributed_run.hpp"
#include "hcube/mpi/world.hpp"
#include "ranks.hpp"

namespace hcube::cli {
namespace {

using mpi::DistributedSession;

// Runs `step` on every rank and agrees on its outcome: an error on any rank
// ends every rank with that error's line.
template <class F>
void on_every_rank(F&& step) {
  std::string error;
  try {
    step();
  } catch (const mpi::CollectiveError&) {
    throw;
  } catch (const Error& e) {
    error = e.what();
  }
  world().agree(error);
}

DistributedSession open_share(const MachineFlags& mf, const IoFlags& io) {
  if (io.trace)
    throw mpi::CollectiveError("--trace prints the whole state after every step: not across MPI ranks yet; run "
                               "without mpirun");
  if (!io.output.empty() && check_output(io.output, "--output").in_place)
    throw mpi::CollectiveError(fmt::format("--output {}: under mpirun every rank writes its own rows at their "
                                           "offsets, so it must be a regular file (not a FIFO or device)",
                                           io.output));
  std::shared_ptr<const NpyFile> file;
  if (!io.input.empty()) {
    file = NpyFile::open(io.input);
    if (!file)
      throw mpi::CollectiveError(fmt::format("--input {}: under mpirun every rank reads its own rows, so it must be "
                                             "a regular file (not a pipe or FIFO)",
                                             io.input));
  }
  const ElementType type =
      element_type(mf, file ? std::optional<ElementType>(file->type()) : std::nullopt, io.input);
  const Geometry geo = make_geometry(mf.n, mf.m);
  if (file) check_machine_shape(file->type(), file->shape(), io.input, geo.n, geo.m, type);
  return mpi::open_distributed_session(
      machine_options(mf, type), std::move(file),
      world().comm());
}

// pwrite of all `bytes`, or an error naming the file.
void write_at(int fd, const std::string& path, std::uint64_t offset, const void* data, std::uint64_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(fmt::format("--output: cannot write {}: {}", path, std::strerror(errno)));
    p += n;
    offset += static_cast<std::uint64_t>(n);
    bytes -= static_cast<std::uint64_t>(n);
  }
}

// --output: rank 0 makes the file (a temporary until every rank has written),
// every rank writes its own rows at their offsets, rank 0 commits it.
void write_shares(const DistributedSession& s, const IoFlags& io) {
  if (io.output.empty()) return;
  const mpi::DistributedMachine& mach = *s.machine;
  const Geometry& geo = mach.geometry();
  const std::size_t wb = mach.local().word_bytes();
  std::unique_ptr<NpyWriter> out;
  std::string path;
  unsigned long long offset = 0;
  on_every_rank([&] {
    if (mach.rank() != 0) return;
    out = std::make_unique<NpyWriter>(io.output, mach.local().type(),
                                      std::vector<std::uint64_t>{geo.nodes(), geo.words_per_node()});
    path = out->body_path();
    offset = out->body_offset();
  });
  unsigned long long length = path.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, world().comm());
  path.resize(length);
  MPI_Bcast(path.data(), static_cast<int>(length), MPI_CHAR, 0, world().comm());
  MPI_Bcast(&offset, 1, MPI_UNSIGNED_LONG_LONG, 0, world().comm());
  on_every_rank([&] {
    if (out) {
      mach.store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) {
        out->write_at(g * wb, src, words * wb);
      });
      return;
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("--output: cannot open {}: {}", path, std::strerror(errno)));
    try {
      mach.store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) {
        write_at(fd, path, offset + g * wb, src, words * wb);
      });
    } catch (...) {
      ::close(fd);
      throw;
    }
    // On disk before rank 0 renames the file into place.
    const bool synced = ::fsync(fd) == 0;
    if (::close(fd) != 0 || !synced)
      throw Error(fmt::format("--output: cannot write {}: {}", path, std::strerror(errno)));
  });
  on_every_rank([&] {
    if (out) out->commit();
  });
}

// The slowest rank's seconds.
double slowest(double seconds) { return mpi::slowest(seconds, world().comm()); }

// What crossed between ranks into `j` (bytes_between_ranks,
// messages_between_ranks, rank_traffic); returns the two totals.
std::pair<std::uint64_t, std::uint64_t> add_traffic(nlohmann::json& j, const std::vector<mpi::RankTraffic>& traffic) {
  std::uint64_t bytes = 0, messages = 0;
  nlohmann::json per_rank = nlohmann::json::array();
  for (const mpi::RankTraffic& t : traffic) {
    bytes += t.bytes_sent;
    messages += t.messages_sent;
    per_rank.push_back({{"bytes_sent", t.bytes_sent}, {"bytes_received", t.bytes_received},
                        {"messages_sent", t.messages_sent}});
  }
  j["bytes_between_ranks"] = bytes;
  j["messages_between_ranks"] = messages;
  j["rank_traffic"] = per_rank;
  return {bytes, messages};
}

// Rank 0's report: the job's fields, the machine's (global geometry and
// counters), "verified", and what crossed between ranks.
void report(const DistributedSession& s, const IoFlags& io, nlohmann::json j, const std::string& summary,
            bool verified, const Counters& counters) {
  const std::vector<mpi::RankTraffic> traffic = s.machine->all_traffic();
  if (!prints_results()) return;
  const mpi::DistributedMachine& mach = *s.machine;
  const Machine& local = mach.local();
  j.update(machine_json(s.backend_note, mach.geometry(), local.type(), local.backend(), local.layout().t, counters));
  j["verified"] = verified;
  j["ranks"] = mach.ranks();
  j["rank_dims"] = mach.rank_dims();
  const auto [total, messages] = add_traffic(j, traffic);
  const std::string text = fmt::format("{} ranks of {} backend ({}), {}; {} sent between ranks in {} messages",
                                       mach.ranks(), to_string(local.backend().kind()), local.backend().device_name(),
                                       describe(mach.geometry()), format_bytes(total), messages);
  report_run(io, j, summary, verified, text, counters);
}

}  // namespace

void run_job_across_ranks(const MachineFlags& mf, const IoFlags& io, const Job& job, const JobFields& fields,
                          const JobSummary& summary, bool verified) {
  DistributedSession s = open_share(mf, io);
  // Every rank holds its share: from here on the ranks exchange words.
  world().agree();
  const double seconds = slowest(mpi::run_job_schedule(s, job));
  world().agree(mpi::check_job(s, job));
  write_shares(s, io);
  const Counters counters = s.machine->counters();
  report(s, io, fields(counters, seconds), summary(counters, seconds), verified, counters);
}

void run_cycles_across_ranks(const MachineFlags& mf, const IoFlags& io, const std::vector<Cycle>& cycles,
                             const nlohmann::json& fields, const std::string& summary) {
  DistributedSession s = open_share(mf, io);
  world().agree();
  const Geometry& geo = s.machine->geometry();
  for (std::size_t c = 0; c < cycles.size(); ++c) {
    s.machine->run_checked_cycle(cycles[c]);
    mpi::advance_reference(s, cycle_destination(geo, cycles[c]));
    world().agree(mpi::check_share(s, fmt::format("routing cycle {}", c)));
  }
  write_shares(s, io);
  report(s, io, fields, summary, true, s.machine->counters());
}

DistributedStep fused_permutation_step(const std::vector<unsigned>& to) {
  return [to](mpi::DistributedMachine& m) { m.permute_address_bits(to); };
}

// Rank-local: the node bits above a rank's share are constant on it.
DistributedStep alignment_step(const AffineMap& map) {
  return [map](mpi::DistributedMachine& m) { m.align(AlignmentStep(map)); };
}

void run_step_across_ranks(const MachineFlags& mf, const IoFlags& io, const std::string& what,
                           const AddressMap& destination, const DistributedStep& step, const JobFields& fields,
                           const JobSummary& summary) {
  DistributedSession s = open_share(mf, io);
  world().agree();
  const auto start = std::chrono::steady_clock::now();
  step(*s.machine);
  const double seconds =
      slowest(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  mpi::advance_reference(s, destination);
  world().agree(mpi::check_share(s, what));
  write_shares(s, io);
  const Counters counters = s.machine->counters();
  report(s, io, fields(counters, seconds), summary(counters, seconds), true, counters);
}

namespace {

// The other ranks wait for rank 0's run of one process without spinning a core it needs.
void idle_until_rank0_done() {
  MPI_Request done;
  MPI_Ibarrier(world().comm(), &done);
  int finished = 0;
  while (MPI_Test(&done, &finished, MPI_STATUS_IGNORE) == MPI_SUCCESS && finished == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

void run_bench_across_ranks(const BenchRequest& request, bool compare_single, bool json) {
  mpi::DistributedBenchResult d;
  on_every_rank([&] { mpi::check_distributed_bench(request); });
  d = mpi::run_distributed_bench(request, world().comm());
  // One process holding the whole cube, on every core of this machine, while the other ranks sleep.
  std::optional<BenchResult> single;
  std::string error;
  if (compare_single) {
    if (world().rank() == 0) {
      const int threads = omp_get_max_threads();
      if (std::getenv("OMP_NUM_THREADS") == nullptr) omp_set_num_threads(omp_get_num_procs());
      try {
        single = run_bench(request);
      } catch (const Error& e) {
        error = fmt::format("--compare-single: {}", e.what());
      }
      omp_set_num_threads(threads);
    }
    idle_until_rank0_done();
    world().agree(error);
  }
  if (!prints_results()) return;
  const BenchResult& r = d.bench;
  nlohmann::json j = bench_json(r);
  j["ranks"] = d.ranks;
  j["rank_dims"] = d.rank_dims;
  const auto [bytes, messages] = add_traffic(j, d.traffic);
  j["verified"] = d.verified ? nlohmann::json(*d.verified) : nlohmann::json(nullptr);
  j["mpi_alltoall_seconds"] = d.alltoall_seconds;
  j["mpi_alltoall_runs"] = d.alltoall_runs;
  j["ratio_to_mpi_alltoall"] = r.time.seconds / d.alltoall_seconds;
  if (single) {
    j["single_seconds"] = single->time.seconds;
    j["single_memcpy_seconds"] = single->time.roofline_seconds;
    j["ratio_to_single"] = r.time.seconds / single->time.seconds;
  }
  if (json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  fmt::print("bench {} on {} ranks: {}\n2^{} {} words ({}), n = {}, m = {}, {} backend ({})\n", to_string(request.op),
             d.ranks, r.what, request.log2_words, info(request.type).name, format_bytes(r.data_bytes), r.n, r.m,
             r.backend, r.device);
  fmt::print("median of {}, the slowest rank: {:.6f} s; {} sent between ranks in {} messages a run{}\n",
             request.repeat, r.time.seconds, format_bytes(bytes), messages,
             d.verified ? ", verified" : " (not verified: the labels do not fit the type)");
  fmt::print("MPI_Alltoall of the same data: {:.6f} s (hcube / MPI_Alltoall = {:.2f}); every rank's memcpy of its "
             "share: {:.6f} s (ratio to memcpy {:.1f}%)\n",
             d.alltoall_seconds, r.time.seconds / d.alltoall_seconds, r.time.roofline_seconds, 100 * r.ratio());
  if (single)
    fmt::print("one process, the whole cube: {:.6f} s (ranks / one process = {:.2f})\n", single->time.seconds,
               r.time.seconds / single->time.seconds);
}

}  // namespace hcube::cli

// The plans' runs across MPI ranks (docs/distributed.md). Every rank makes the
// same checks and plans alike; a failure that only some ranks can meet (a
// file, memory, a word that differs) is agreed on (World::agree) so that every
// rank ends with the same line and none waits on another.
#include "hcube/app/distributed.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <omp.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <utility>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/emulator/sdp_run.hpp"
#include "hcube/emulator/units.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/mpi/distributed_bench.hpp"
#include "hcube/mpi/distributed_fft.hpp"
#include "hcube/mpi/distributed_run.hpp"
#include "hcube/mpi/world.hpp"
#include "hcube/app/ranks.hpp"
#if HCUBE_HAVE_FFTW3_MPI
#include "fftw_mpi_baseline.hpp"
#endif

namespace hcube::app {
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

// Under mpirun every rank writes its own rows of --output at their offsets.
void check_output_across_ranks(const IoFlags& io) {
  if (!io.output.empty() && check_output(io.output, "--output").in_place)
    throw mpi::CollectiveError(fmt::format("--output {}: under mpirun every rank writes its own rows at their "
                                           "offsets, so it must be a regular file (not a FIFO or device)",
                                           io.output));
}

// The flags' checks under mpirun, and --input opened (null: the labels) with the machine's type.
std::pair<std::shared_ptr<const NpyFile>, ElementType> checked_input(const MachineFlags& mf, const IoFlags& io) {
  check_output_across_ranks(io);
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
  // A traced state is gathered on rank 0 (trace_ranks): only a small machine's.
  check_trace_size(io, geo.n, geo.m);
  return {std::move(file), type};
}

DistributedSession open_share(const MachineFlags& mf, const IoFlags& io) {
  auto [file, type] = checked_input(mf, io);
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

// Hands over runs of an output's body: `bytes` at byte `offset` of it.
using BodyWriter = std::function<void(std::uint64_t offset, const void* src, std::uint64_t bytes)>;

// --output of `shape` x `type`: rank 0 makes the file (a temporary until every
// rank has written), every rank writes its own runs (`store`) at their
// offsets, rank 0 commits it.
void write_file(const IoFlags& io, ElementType type, const std::vector<std::uint64_t>& shape,
                const std::function<void(const BodyWriter&)>& store) {
  if (io.output.empty()) return;
  std::unique_ptr<NpyWriter> out;
  std::string path;
  unsigned long long offset = 0;
  on_every_rank([&] {
    if (world().rank() != 0) return;
    out = std::make_unique<NpyWriter>(io.output, type, shape);
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
      store([&](std::uint64_t at, const void* src, std::uint64_t bytes) { out->write_at(at, src, bytes); });
      return;
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("--output: cannot open {}: {}", path, std::strerror(errno)));
    try {
      store([&](std::uint64_t at, const void* src, std::uint64_t bytes) { write_at(fd, path, offset + at, src, bytes); });
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

// --output of the machine: every rank writes its own rows.
void write_shares(const DistributedSession& s, const IoFlags& io) {
  const mpi::DistributedMachine& mach = *s.machine;
  const Geometry& geo = mach.geometry();
  const std::size_t wb = mach.local().word_bytes();
  write_file(io, mach.local().type(), {geo.nodes(), geo.words_per_node()}, [&](const BodyWriter& write) {
    mach.store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) { write(g * wb, src, words * wb); });
  });
}

// --output of `total` words in index order, word i the one at global address
// address(i) of the machine: each rank writes those its share holds, in runs
// of consecutive i, gathered a chunk at a time.
void write_indexed(const DistributedSession& s, const IoFlags& io, const std::vector<std::uint64_t>& shape,
                   std::uint64_t total, const AddressMap& address) {
  const mpi::DistributedMachine& mach = *s.machine;
  const Machine& local = mach.local();
  const std::size_t wb = local.word_bytes();
  const std::uint64_t first = mach.first_word(), held = local.geometry().total_words();
  write_file(io, local.type(), shape, [&](const BodyWriter& write) {
    constexpr std::uint64_t kChunk = std::uint64_t{1} << 16;
    std::vector<std::uint64_t> places, index;
    std::vector<unsigned char> words;
    for (std::uint64_t i0 = 0; i0 < total; i0 += kChunk) {
      places.clear();
      index.clear();
      for (std::uint64_t i = i0; i < std::min(total, i0 + kChunk); ++i) {
        const std::uint64_t a = address(i);
        if (a < first || a - first >= held) continue;
        places.push_back(a - first);
        index.push_back(i);
      }
      words.resize(places.size() * wb);
      local.gather(places.data(), places.size(), words.data());
      for (std::size_t k = 0, run = 0; k < index.size(); k = run) {
        for (run = k + 1; run < index.size() && index[run] == index[run - 1] + 1;) ++run;
        write(index[k] * wb, &words[k * wb], (run - k) * wb);
      }
    }
  });
}

// The slowest rank's seconds.
double slowest(double seconds) { return mpi::slowest(seconds, world().comm()); }

// --trace under mpirun: the state after step `name` ("initial": before any)
// gathered on rank 0 in global address order (a traced machine holds at most
// kMaxTraceWords words: check_trace_size), which prints it or records it in
// `trace` as one process does. Collective; nothing without --trace.
void trace_ranks(const DistributedSession& s, const IoFlags& io, nlohmann::json& trace, const std::string& name) {
  if (!io.trace) return;
  const mpi::DistributedMachine& mach = *s.machine;
  const std::size_t wb = mach.local().word_bytes();
  const std::uint64_t first = mach.first_word();
  std::vector<unsigned char> share(mach.local().bytes());
  mach.store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) {
    std::memcpy(&share[(g - first) * wb], src, words * wb);
  });
  const bool root = world().rank() == 0;
  std::vector<unsigned char> all(root ? share.size() * mach.ranks() : 0);
  const int bytes = static_cast<int>(share.size());
  MPI_Request request;
  MPI_Igather(share.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, 0, world().comm(), &request);
  mpi::wait(request);
  if (root) trace_state(io, trace, mach.geometry(), mach.local().type(), all, name);
}

// A traced job (aapc, run, multi-aapc, permute by a schedule) step by step as
// execute_verified traces it on one machine: each step run, verified on every rank and
// shown, as the teaching view of where every word started (OriginView, rank 0;
// it needs no words) or, with --json, as the gathered state. Then the whole
// result is checked against the job's formula from the start. This rank's seconds.
double run_traced_job(DistributedSession& s, const IoFlags& io, const Job& job, nlohmann::json& trace) {
  const Schedule& sch = job.schedule;
  const Geometry& geo = s.machine->geometry();
  mpi::check_job_schedule(s, job);
  std::optional<OriginView> view;
  if (!io.json) view.emplace(geo, prints_results());
  if (io.json) trace_ranks(s, io, trace, "initial");
  const AddressMap initial = s.placed;
  double seconds = 0;
  for_each_job_step(job, geo, [&](const TraceStep& t, const AlignmentStep* align) {
    const auto start = std::chrono::steady_clock::now();
    if (align != nullptr)
      s.machine->align(*align);
    else
      s.machine->run_checked_cycle(*t.cycle, sch.offset_maps);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    mpi::advance_reference(s, t.destination);
    world().agree(mpi::check_share(s, t.name));
    if (view) {
      view->advance(t.destination, t.title);
      return;
    }
    trace_ranks(s, io, trace, t.name);
    if (!prints_results()) return;
    if (t.cycle != nullptr) trace.back()["exchanges"] = exchanges_json(*t.cycle);
    if (t.after_aapc != 0) trace.back()["after_aapc"] = t.after_aapc;
  });
  s.placed = initial;
  return seconds;
}

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
// `data`: the data's geometry when the machine is larger (a plan that embeds
// the data in a machine of its own geometry), which JSON's n and m name.
// `trace`: the states --trace --json recorded (rank 0).
void report(const DistributedSession& s, const IoFlags& io, nlohmann::json j, const std::string& summary,
            bool verified, const Counters& counters, const std::optional<Geometry>& data = std::nullopt,
            const nlohmann::json& trace = nlohmann::json::array()) {
  const std::vector<mpi::RankTraffic> traffic = s.machine->all_traffic();
  if (!prints_results()) return;
  if (io.trace && io.json && !j.contains("trace")) j["trace"] = trace;
  const mpi::DistributedMachine& mach = *s.machine;
  const Machine& local = mach.local();
  j.update(machine_json(s.backend_note, data ? *data : mach.geometry(), local.type(), local.backend(),
                        local.layout().t, counters));
  j["verified"] = verified;
  // The fields one process gives, so that a script reads either (the shares are read once, as files).
  if (!j.contains("launch")) j["launch"] = to_string(local.launch_mode());
  if (verified && !j.contains("verified_by")) j["verified_by"] = "words";
  j["ranks"] = mach.ranks();
  j["rank_dims"] = mach.rank_dims();
  j["rank_transport"] = mach.transport();
  const auto [total, messages] = add_traffic(j, traffic);
  const std::string where =
      data ? fmt::format("routed on the {}, the data ({}) embedded in it", describe(mach.geometry()), describe(*data))
           : describe(mach.geometry());
  const std::string text = fmt::format("{} ranks of {} backend ({}), {}; {} sent between ranks in {} messages",
                                       mach.ranks(), to_string(local.backend().kind()), local.backend().device_name(),
                                       where, format_bytes(total), messages);
  report_run(io, j, summary, verified, text, counters);
}

}  // namespace

void run_plan_across_ranks(const MachineFlags& mf, const IoFlags& io, const Plan& plan, const JobFields& fields,
                           const JobSummary& summary) {
  const Job& job = *plan.job();
  const bool verified = static_cast<bool>(job.destination);
  DistributedSession s = open_share(mf, io);
  // Every rank holds its share: from here on the ranks exchange words.
  world().agree();
  nlohmann::json trace = nlohmann::json::array();
  const double seconds = slowest(io.trace ? run_traced_job(s, io, job, trace) : mpi::run_job_schedule(s, job));
  world().agree(mpi::check_job(s, job));
  write_shares(s, io);
  const Counters counters = s.machine->counters();
  report(s, io, fields(counters, seconds), summary(counters, seconds), verified, counters, std::nullopt, trace);
}

void run_cycles_across_ranks(const MachineFlags& mf, const IoFlags& io, const std::vector<Cycle>& cycles,
                             const nlohmann::json& fields, const std::string& summary) {
  DistributedSession s = open_share(mf, io);
  world().agree();
  const Geometry& geo = s.machine->geometry();
  nlohmann::json trace = nlohmann::json::array();
  trace_ranks(s, io, trace, "initial");
  for (std::size_t c = 0; c < cycles.size(); ++c) {
    s.machine->run_checked_cycle(cycles[c]);
    mpi::advance_reference(s, cycle_destination(geo, cycles[c]));
    world().agree(mpi::check_share(s, fmt::format("routing cycle {}", c)));
    trace_ranks(s, io, trace, fmt::format("routing cycle {}", c));
  }
  write_shares(s, io);
  report(s, io, fields, summary, true, s.machine->counters(), std::nullopt, trace);
}

void run_sdp_plan_across_ranks(const MachineFlags& mf, const IoFlags& io, const SdpPlan& plan,
                               const DimensionPermutation& perm, const JobFields& fields, const JobSummary& summary) {
  // Alignments between cycles (A3-pipelined) would split the distributed job: run it on one rank.
  if (!plan.align_within.empty())
    throw Error(fmt::format("{} aligns between routing cycles, which the MPI driver does not run: drop mpirun",
                            plan.algorithm));
  auto [file, type] = checked_input(mf, io);
  const Geometry data = make_geometry(mf.n, mf.m), big{plan.schedule.n, plan.schedule.m};
  // The machine bits the data fills (every other machine word holds zero), and
  // the inverse of the embedding and of the permutation, bit by bit.
  std::uint64_t image = 0;
  std::vector<unsigned> unembed(big.address_bits(), 0);
  for (unsigned i = 0; i < data.address_bits(); ++i) {
    const unsigned to = plan.embed.empty() ? i : plan.embed[i];
    image |= bit(to);
    unembed[to] = i;
  }
  const auto data_address = [&](std::uint64_t a) {  // a in the image
    std::uint64_t g = 0;
    for (unsigned b = 0; b < big.address_bits(); ++b)
      if (test_bit(a, b)) g |= bit(unembed[b]);
    return g;
  };
  const auto before = [&](std::uint64_t d) {  // the data address whose word the permutation sends to d
    std::uint64_t g = 0;
    for (unsigned i = 0; i < perm.to.size(); ++i)
      if (test_bit(d, perm.to[i])) g |= bit(i);
    return g;
  };
  DistributedSession s;
  s.source = file;
  on_every_rank([&] {
    const BackendChoice backend = parse_backend_choice(mf.backend);
    s.machine = std::make_unique<mpi::DistributedMachine>(
        MachineOptions{big.n, big.m, type, backend, std::min<long long>(tile_dims(mf.tile_dims), big.n)}, world().comm());
    s.backend_note = backend_note(backend, s.machine->local().backend());
    const std::size_t wb = s.machine->local().word_bytes();
    NpyWordReader reader(file, wb);
    s.machine->load_runs([&](std::uint64_t g, std::uint64_t words, void* dst) {
      auto* out = static_cast<unsigned char*>(dst);
      for (std::uint64_t k = 0; k < words; ++k) {
        unsigned char* word = out + k * wb;
        if (((g + k) & ~image) != 0)
          std::fill(word, word + wb, 0);
        else if (file)
          reader.read(data_address(g + k), word);
        else
          write_label(type, data_address(g + k), word);
      }
    });
  });
  // The plan as run_sdp_plan runs it: the schedule, the alignments after its cycles, the local reordering.
  const AffineMap id(big);
  Job job;
  job.schedule = plan.schedule;
  job.stats = check_schedule(plan.schedule);
  job.f = id;
  job.g = id;
  const auto start = std::chrono::steady_clock::now();
  mpi::run_job_schedule(s, job);
  for (const AlignmentStep& step : plan.align_after) s.machine->align(step);
  const AffineMap after = AffineMap::permute_bits(big, plan.local_after);
  if (!after.is_identity()) s.machine->align(AlignmentStep(after));
  const double seconds = slowest(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  world().agree(mpi::check_share_drawn(
      s, [&](std::uint64_t a) { return (a & ~image) != 0 ? mpi::kZeroWord : before(data_address(a)); },
      fmt::format("the {} plan", plan.algorithm)));
  write_indexed(s, io, {data.nodes(), data.words_per_node()}, data.total_words(),
                [&](std::uint64_t g) { return embedded_address(plan.embed, g); });
  const Counters counters = s.machine->counters();
  report(s, io, fields(counters, seconds), summary(counters, seconds), true, counters, data);
}

DistributedStep fused_permutation_step(const std::vector<unsigned>& to) {
  return [to](mpi::DistributedMachine& m) { m.permute_address_bits(to); };
}

// Rank-local: the node bits above a rank's share are constant on it.
DistributedStep alignment_step(const AffineMap& map) {
  return [map](mpi::DistributedMachine& m) { m.align(AlignmentStep(map)); };
}

void run_step_across_ranks(const MachineFlags& mf, const IoFlags& io, const std::string& name,
                           const AddressMap& destination, const DistributedStep& step, const JobFields& fields,
                           const JobSummary& summary) {
  DistributedSession s = open_share(mf, io);
  world().agree();
  nlohmann::json trace = nlohmann::json::array();
  trace_ranks(s, io, trace, "initial");
  const auto start = std::chrono::steady_clock::now();
  step(*s.machine);
  const double seconds =
      slowest(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  mpi::advance_reference(s, destination);
  world().agree(mpi::check_share(s, "the " + name));
  trace_ranks(s, io, trace, name);
  write_shares(s, io);
  const Counters counters = s.machine->counters();
  report(s, io, fields(counters, seconds), summary(counters, seconds), true, counters, std::nullopt, trace);
}

void run_route_across_ranks(const MachineFlags& mf, const IoFlags& io, const RouterStep& step,
                            const RouterLimits& limits, const RouteFields& fields, const RouteSummary& summary) {
  DistributedSession s = open_share(mf, io);
  world().agree();
  nlohmann::json trace = nlohmann::json::array();
  trace_ranks(s, io, trace, "initial");
  const auto start = std::chrono::steady_clock::now();
  const RouterStepReport rep = s.machine->route(step, limits);
  const double seconds =
      slowest(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  world().agree(mpi::check_share_drawn(s, route_source(s.machine->geometry(), step), "the router step"));
  trace_ranks(s, io, trace, "router step");
  write_shares(s, io);
  nlohmann::json j = fields(rep);
  j["seconds"] = seconds;
  report(s, io, j, summary(rep), true, s.machine->counters(), std::nullopt, trace);
}

void run_redistribute_across_ranks(const MachineFlags& mf, const IoFlags& io, const RedistributePlan& plan,
                                   ElementType type, const std::shared_ptr<const NpyFile>& file,
                                   const RedistributeFields& fields, const std::string& summary) {
  if (!io.input.empty() && !file)
    throw mpi::CollectiveError(fmt::format("--input {}: under mpirun every rank reads its own elements, so it must be "
                                           "a regular file (not a pipe or FIFO)",
                                           io.input));
  const RedistributionPlacement& pl = plan.placement();
  if (pl.n < world().rank_dims())
    throw mpi::CollectiveError(fmt::format("the redistribution's cube has n = {} node dimensions, fewer than the {} "
                                           "that {} ranks hold: allowed --dims {}..40",
                                           pl.n, world().rank_dims(), world().size(), world().rank_dims()));
  const std::size_t wb = info(type).bytes;
  const RedistElement element = input_elements(file, type);
  DistributedSession s;
  on_every_rank([&] {
    const BackendChoice backend = parse_backend_choice(mf.backend);
    s.machine = std::make_unique<mpi::DistributedMachine>(pl.machine(type, backend, tile_dims(mf.tile_dims, pl.n)), world().comm());
    s.backend_note = backend_note(backend, s.machine->local().backend());
    mpi::load_sources(*s.machine, pl, element);
  });
  RedistributionReport rep = mpi::run_redistribution(*s.machine, pl, plan.schedule());
  rep.seconds = slowest(rep.seconds);
  world().agree(mpi::check_destinations(*s.machine, pl, element));
  write_file(io, type, {receivers(pl.r), pl.dest_words}, [&](const BodyWriter& write) {
    s.machine->store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) {
      destination_runs(pl, wb, g, words, static_cast<const unsigned char*>(src),
                       [&](std::uint64_t w, std::uint64_t n, const unsigned char* p) { write(w * wb, p, n * wb); });
    });
  });
  report(s, io, fields(rep, s.machine->local().backend()), summary, true, s.machine->counters());
}

void run_fft_across_ranks(FftAcrossRanks job) {
  const IoFlags& io = job.io;
  check_output_across_ranks(io);
  DistributedSession s;
  on_every_rank([&] {
    s.machine = std::make_unique<mpi::DistributedMachine>(
        MachineOptions{job.n, job.m, job.type, job.backend, job.tile_dims}, world().comm());
    s.backend_note = backend_note(job.backend, s.machine->local().backend());
    // This rank's points, in its share's cyclic order (point t is at node t mod 2^n, word t div 2^n).
    const std::vector<std::complex<double>> x = std::move(job.x);
    const std::vector<unsigned char> share = mpi::cyclic_share(*s.machine, [&x](std::uint64_t t) { return x[t]; });
    s.machine->local().load(share.data(), share.size());
  });
  mpi::DistributedFftMachine machine(*s.machine);
  FftReport rep = distributed_fft(machine, *job.plan, job.options);
  rep.seconds = slowest(rep.seconds);
  s.machine->local().release_scratch();
  // FFTW's transform of the whole input on every rank; each rank checks its words.
  std::vector<std::complex<double>> reference;
  FftDifference d;
  on_every_rank([&] {
    reference = job.points();
    fft_reference(reference, job.options);
    d = fft_share_difference(s.machine->local(), s.machine->geometry(), s.machine->first_word(), reference,
                             job.options.order);
  });
  const FftDifference whole = mpi::combined(d, world().comm());
  FftCheck check;
  on_every_rank([&] { check = check_fft_difference(whole, job.type); });
  // --output: X in index order, each rank its result words.
  const Geometry& geo = s.machine->geometry();
  write_indexed(s, io, {geo.total_words()}, geo.total_words(),
                [&](std::uint64_t i) { return fft_result_address(i, geo.n, geo.m, job.options.order); });
  const Counters counters = s.machine->counters();
  report(s, io, job.fields(rep, check, s.machine->local().backend(), s.machine->local().layout().t, counters),
         job.summary(rep, check), true, counters);
}

void run_bench_across_ranks(const BenchRequest& request, bool compare_single, bool json) {
  mpi::DistributedBenchResult d;
  std::optional<mpi::FftBaselineAcrossRanks> fft_baseline;
  on_every_rank([&] {
    mpi::check_distributed_bench(request, world().size());
    if (request.op != BenchOp::fft) return;
#if HCUBE_HAVE_FFTW3_MPI
    fft_baseline = mpi::fftw_mpi_baseline(request, world().comm());
#else
    throw Error("--op fft under mpirun is timed against fftw3-mpi, which was not found at build time (install "
                "libfftw3-mpi-dev and configure again): run it without mpirun");
#endif
  });
  d = mpi::run_distributed_bench(request, world().comm(), fft_baseline ? &*fft_baseline : nullptr);
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
    // The other ranks wait for rank 0's run without spinning a core it needs.
    mpi::barrier(world().comm());
    world().agree(error);
  }
  if (!prints_results()) return;
  const BenchResult& r = d.bench;
  nlohmann::json j = bench_json(r);
  j["ranks"] = d.ranks;
  j["rank_dims"] = d.rank_dims;
  j["rank_transport"] = d.transport;
  const auto [bytes, messages] = add_traffic(j, d.traffic);
  j["verified"] = d.verified ? nlohmann::json(*d.verified) : nlohmann::json(nullptr);
  j["mpi_alltoall_seconds"] = d.alltoall_seconds;
  j["mpi_alltoall_runs"] = d.alltoall_runs;
  j["ratio_to_mpi_alltoall"] = r.time.seconds / d.alltoall_seconds;
  if (fft_baseline) {
    j["fftw_mpi_threads"] = d.fft_baseline_threads;
    j["fftw_mpi_seconds"] = d.fft_baseline_seconds;
    j["fftw_mpi_runs"] = d.fft_baseline_runs;
    j["ratio_to_fftw_mpi"] = d.fft_baseline_seconds / r.time.seconds;
  }
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
             d.verified                        ? ", verified"
             : request.op == BenchOp::memcpy ? ""
                                               : " (not verified: the labels do not fit the type)");
  fmt::print("MPI_Alltoall of the same data: {:.6f} s (hcube / MPI_Alltoall = {:.2f}); every rank's memcpy of its "
             "share: {:.6f} s (ratio to memcpy {:.1f}%)\n",
             d.alltoall_seconds, r.time.seconds / d.alltoall_seconds, r.time.roofline_seconds, 100 * r.ratio());
  if (fft_baseline)
    fmt::print("fftw3-mpi's transform of the same points on the same ranks ({} thread(s) a rank, {}): {:.6f} s; ratio "
               "to fftw3-mpi (its time / hcube's) {:.3f}; max relative error {:.2g}\n",
               d.fft_baseline_threads, request.fftw_plan, d.fft_baseline_seconds,
               d.fft_baseline_seconds / r.time.seconds, r.fft_error);
  if (single)
    fmt::print("one process, the whole cube: {:.6f} s (ranks / one process = {:.2f})\n", single->time.seconds,
               r.time.seconds / single->time.seconds);
}

}  // namespace hcube::app

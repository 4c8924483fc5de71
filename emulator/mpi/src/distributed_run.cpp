#include "hcube/mpi/distributed_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "hcube/emulator/schedule_run.hpp"
#include "hcube/mpi/world.hpp"

namespace hcube::mpi {

DistributedSession open_distributed_session(const MachineOptions& options, std::shared_ptr<const NpyFile> source,
                                            MPI_Comm comm) {
  DistributedSession s;
  s.machine = std::make_unique<DistributedMachine>(options, comm);
  s.backend_note = backend_note(options.backend, s.machine->local().backend());
  if (source) {
    const std::size_t wb = s.machine->local().word_bytes();
    s.machine->load_runs(
        [&](std::uint64_t g, std::uint64_t words, void* dst) { source->read(g * wb, dst, words * wb); });
  } else {
    s.machine->load_labels();
  }
  s.source = std::move(source);
  s.placed = [](std::uint64_t g) { return g; };
  return s;
}

void advance_reference(DistributedSession& s, const AddressMap& dest) {
  s.placed = [before = std::move(s.placed), dest](std::uint64_t g) { return dest(before(g)); };
}

std::string check_share(const DistributedSession& s, const std::string& what) {
  try {
    verify_share(s.machine->local(), s.machine->geometry(), s.machine->first_word(), s.placed, s.source.get(), what);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

std::string check_share_drawn(const DistributedSession& s, const AddressMap& from, const std::string& what) {
  const Machine& local = s.machine->local();
  const Geometry& geo = s.machine->geometry();
  const Layout& layout = local.layout();
  const ElementType type = local.type();
  const std::size_t wb = local.word_bytes();
  std::optional<NpyWordReader> file;
  if (s.source) file.emplace(s.source, wb);
  std::vector<unsigned char> want(wb);
  try {
    local.scan_storage([&](std::uint64_t first, std::uint64_t words, const unsigned char* data) {
      for (std::uint64_t k = 0; k < words; ++k) {
        const std::uint64_t a =
            s.machine->first_word() + local.geometry().global(layout.node_at(first + k), layout.local_at(first + k));
        const std::uint64_t g = from(a);
        if (g == kZeroWord)
          std::fill(want.begin(), want.end(), 0);
        else if (file)
          file->read(g, want.data());
        else
          write_label(type, g, want.data());
        const unsigned char* got = data + k * wb;
        if (!std::equal(got, got + wb, want.data()))
          throw Error(fmt::format("verification of {} failed: word {} of node {} holds {}, the reference has {}", what,
                                  geo.local_of(a), geo.node_of(a), format_element(type, got),
                                  format_element(type, want.data())));
      }
    });
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

void check_job_schedule(const DistributedSession& s, const Job& job) {
  // The schedule itself was checked when its job was made (a plan's constructor, check_schedule).
  const Schedule& sch = job.schedule;
  const Geometry& geo = s.machine->geometry();
  if (sch.n != geo.n || sch.m != geo.m)
    throw Error(fmt::format("schedule is for n = {}, m = {}: the machine has n = {}, m = {}", sch.n, sch.m, geo.n,
                            geo.m));
}

double run_job_schedule(DistributedMachine& machine, const Job& job) {
  const Schedule& sch = job.schedule;
  const std::vector<AlignmentStep> pre = schedule_pre_alignment(sch, job.f);
  const std::vector<AlignmentStep> post = schedule_post_alignment(sch, job.g);
  const auto start = std::chrono::steady_clock::now();
  for (const AlignmentStep& a : pre) machine.align(a);
  machine.run_checked_cycles(sch);
  for (const AlignmentStep& a : post) machine.align(a);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double run_job_schedule(DistributedSession& s, const Job& job) {
  // The check before the first word moves.
  check_job_schedule(s, job);
  return run_job_schedule(*s.machine, job);
}

void load_sources(DistributedMachine& machine, const RedistributionPlacement& pl, const RedistElement& element) {
  const std::size_t wb = machine.local().word_bytes();
  machine.load_runs([&](std::uint64_t g, std::uint64_t words, void* dst) {
    source_run(pl, element, wb, g, words, static_cast<unsigned char*>(dst));
  });
}

RedistributionReport run_redistribution(DistributedMachine& machine, const RedistributionPlacement& pl,
                                        const RedistSchedule& s) {
  const Geometry& geo = machine.geometry();
  if (geo.n != pl.n || geo.m != pl.m)
    throw Error(fmt::format("redistribution placed on n = {}, m = {}: the machine has n = {}, m = {}", pl.n, pl.m,
                            geo.n, geo.m));
  RedistributionReport rep;
  rep.stats = check_redistribution_schedule(pl.r, s);
  const std::vector<BlockRouteStep> steps = redistribution_block_steps(pl, s);
  const std::uint64_t before = machine.local().counters().kernel_launches;
  const auto start = std::chrono::steady_clock::now();
  machine.route_blocks(steps);
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rep.launches = machine.local().counters().kernel_launches - before;
  return rep;
}

std::string check_destinations(const DistributedMachine& machine, const RedistributionPlacement& pl,
                               const RedistElement& element) {
  std::string error;
  unsigned long long elements = 0;
  try {
    elements = verify_destination_share(machine.local(), machine.first_node(), pl, element);
  } catch (const Error& e) {
    error = e.what();
  }
  allreduce(&elements, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, machine.comm());
  if (!error.empty()) return error;
  try {
    check_destination_elements(pl, elements);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

double slowest(double seconds, MPI_Comm comm) {
  allreduce(&seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return seconds;
}

std::string check_job(DistributedSession& s, const Job& job) {
  if (!job.destination) return {};
  advance_reference(s, job.destination);
  return check_share(s, fmt::format("the {} {}", job.permutation, job.formula));
}

}  // namespace hcube::mpi

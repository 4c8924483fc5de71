#include "hcube/mpi/distributed_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <functional>
#include <optional>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/emulator/verified_run.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/schedule.hpp"
#include "hcube/mpi/distributed_run.hpp"
#include "hcube/mpi/world.hpp"

namespace hcube::mpi {
namespace {

// Every rank starts together and the slowest rank's time counts: a step is done when all are.
double timed_together(const std::function<double()>& run, MPI_Comm comm) {
  barrier(comm);
  return slowest(run(), comm);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

bool runs_across_ranks(BenchOp op) {
  return op == BenchOp::aapc || op == BenchOp::fused_transpose || op == BenchOp::fused_bit_reversal;
}

void check_distributed_bench(const BenchRequest& r) {
  check_bench(r);
  if (!runs_across_ranks(r.op))
    throw Error(fmt::format("--op {} does not run across MPI ranks yet: allowed aapc, fused-transpose, "
                            "fused-bit-reversal (or run it as one process, without mpirun)",
                            to_string(r.op)));
}

DistributedBenchResult run_distributed_bench(const BenchRequest& req, MPI_Comm comm) {
  check_distributed_bench(req);
  DistributedBenchResult out;
  BenchResult& r = out.bench;
  r.request = req;
  const auto q = static_cast<unsigned>(req.log2_words);
  r.n = q / 2;
  r.m = q - r.n;
  r.data_bytes = bit(q) * info(req.type).bytes;
  const MachineOptions options{r.n, r.m, req.type, req.backend, req.tile_dims};
  bool labels = true;
  try {
    check_labels_fit(make_geometry(r.n, r.m), req.type);
  } catch (const Error&) {
    labels = false;  // timed on zeros, as one process times it, and not verified
  }
  DistributedSession s;
  if (labels) {
    s = open_distributed_session(options, nullptr, comm);
  } else {
    s.machine = std::make_unique<DistributedMachine>(options, comm);
    s.machine->load_runs([&](std::uint64_t, std::uint64_t words, void* dst) {
      std::fill_n(static_cast<unsigned char*>(dst), words * s.machine->local().word_bytes(), 0);
    });
  }
  DistributedMachine& mach = *s.machine;
  const Geometry& geo = mach.geometry();
  Machine& local = mach.local();
  out.ranks = mach.ranks();
  out.rank_dims = mach.rank_dims();
  r.backend = to_string(local.backend().kind());
  r.device = local.backend().device_name();
  r.gpu = local.backend().kind() == BackendKind::cuda;
  r.spec_bytes_per_second = local.backend().spec_bytes_per_second();

  std::function<double()> run;
  AddressMap destination;
  std::optional<Job> job;
  if (req.op == BenchOp::aapc) {
    AapcOptions o;
    o.d = geo.n;
    PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, geo, geo.n);
    Schedule schedule = make_aapc_schedule(o);
    ScheduleStats stats = check_schedule(schedule);
    job.emplace(Job{std::move(schedule), std::move(stats), std::move(plan.f), std::move(plan.g), {}, "transpose",
                    plan.formula, {}, {}, 0, {}});
    destination = std::move(plan.destination);
    r.what = fmt::format("a full AAPC (the transpose), Algorithm 4, {} cycles and 2 alignments, on {} ranks",
                         job->schedule.cycles(), out.ranks);
    run = [&] { return run_job_schedule(s, *job); };
  } else {
    const bool transpose = req.op == BenchOp::fused_transpose;
    const DimensionPermutation p =
        parse_dimension_permutation(transpose ? "transpose" : "bit-reversal", geo.n, geo.m);
    destination = [p](std::uint64_t g) { return p.apply(g); };
    r.what = fmt::format("the {} in one tiled pass a side of one MPI_Alltoallv, on {} ranks",
                         transpose ? "transpose" : "bit reversal", out.ranks);
    run = [&mach, to = p.to] {
      const auto start = std::chrono::steady_clock::now();
      mach.permute_address_bits(to);
      return seconds_since(start);
    };
  }

  // The warm-up: counted (the bytes one run moves), verified, and its traffic kept.
  run();
  const Counters counters = mach.counters();
  // A fused pass reads and writes the data once, as one machine counts it; the
  // AAPC's counters are the emulated machine's, the same on any number of ranks.
  r.bytes_moved = req.op == BenchOp::aapc ? counters.bytes_read + counters.bytes_written : 2 * r.data_bytes;
  out.traffic = mach.all_traffic();
  if (labels) {
    advance_reference(s, destination);
    const std::string error = check_share(s, r.what);
    int bad = error.empty() ? 0 : 1;
    allreduce(&bad, 1, MPI_INT, MPI_MAX, comm);
    if (bad != 0)
      throw CollectiveError(error.empty() ? "verification failed on another rank: run with --json on one process to compare"
                                          : error);
    out.verified = true;
  }

  // The roofline: every rank copies its share at once; and MPI_Alltoall of the
  // same data, each rank's share split into equal blocks, one to each rank.
  const std::uint64_t share = local.bytes(), block = share / static_cast<std::uint64_t>(out.ranks);
  const std::function<double()> copy = local.backend().copy_timer(share);
  if (block > static_cast<std::uint64_t>(INT_MAX))
    throw Error(fmt::format("MPI_Alltoall of {} bytes a rank pair: more than one MPI message holds ({})", block,
                            INT_MAX));
  std::vector<unsigned char> send(share, 1), receive(share, 0);
  const auto alltoall = [&] {
    const auto start = std::chrono::steady_clock::now();
    MPI_Alltoall(send.data(), static_cast<int>(block), MPI_BYTE, receive.data(), static_cast<int>(block), MPI_BYTE,
                 comm);
    return seconds_since(start);
  };
  timed_together(copy, comm);
  timed_together(alltoall, comm);
  std::vector<double> ops, copies;
  for (long long k = 0; k < req.repeat; ++k) {
    ops.push_back(timed_together(run, comm));
    copies.push_back(timed_together(copy, comm));
    out.alltoall_runs.push_back(timed_together(alltoall, comm));
    r.time.runs.emplace_back(ops.back(), copies.back());
  }
  r.time.seconds = median(ops);
  r.time.roofline_seconds = median(copies);
  out.alltoall_seconds = median(out.alltoall_runs);
  return out;
}

}  // namespace hcube::mpi

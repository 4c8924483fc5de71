#include "hcube/mpi/distributed_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <functional>
#include <optional>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/emulator/fft.hpp"
#include "hcube/emulator/verified_run.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/host/schedule.hpp"
#include "hcube/plans.hpp"
#include "hcube/mpi/distributed_fft.hpp"
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

bool runs_across_ranks(BenchOp op) { return op != BenchOp::gather_bit_reversal; }

void check_distributed_bench(const BenchRequest& r, int ranks) {
  check_bench(r);
  if (!runs_across_ranks(r.op))
    throw Error(fmt::format("--op {} is one process's baseline (an index gather over the whole array in host memory), "
                            "which has no counterpart across ranks: run it without mpirun",
                            to_string(r.op)));
  if (r.op == BenchOp::fft) {
    // Each of the 2^rd ranks holds whole nodes of at least 2 points: n >= rd, m >= 1.
    const unsigned rd = ceil_log2(static_cast<std::uint64_t>(ranks));
    const long long n = fft_nodes_log2(r);
    if (r.log2_words < rd + 1)
      throw Error(fmt::format("BenchRequest::log2_words {} too small for --op fft on {} ranks (a node each, 2 points a "
                              "node): allowed {}..{}",
                              r.log2_words, ranks, rd + 1, kMaxPointsLog2));
    if (n < rd)
      throw Error(fmt::format("BenchRequest::nodes_log2 {}{} out of range on {} ranks (each holds whole nodes): allowed "
                              "{}..{} for 2^{} points",
                              n, r.nodes_log2 < 0 ? " (the default, half the points' bits)" : "", ranks, rd,
                              r.log2_words - 1, r.log2_words));
  }
}

DistributedBenchResult run_distributed_bench(const BenchRequest& req, MPI_Comm comm,
                                             const FftBaselineAcrossRanks* fft_baseline) {
  int comm_size = 1;
  MPI_Comm_size(comm, &comm_size);
  check_distributed_bench(req, comm_size);
  if (req.op == BenchOp::fft && fft_baseline == nullptr)
    throw Error("BenchRequest::op fft across ranks is timed against a baseline: pass run_distributed_bench one");
  DistributedBenchResult out;
  BenchResult& r = out.bench;
  r.request = req;
  const auto q = static_cast<unsigned>(req.log2_words);
  r.n = req.op == BenchOp::fft ? static_cast<unsigned>(fft_nodes_log2(req)) : q / 2;
  r.m = q - r.n;
  r.data_bytes = bit(q) * info(req.type).bytes;
  MachineOptions options{r.n, r.m, req.type, req.backend, req.tile_dims};
  // R_x(P, K, Q) on N = 2^q elements: the circulant schedule on its own machine, as one process runs it.
  std::optional<RedistributePlan> redistribution;
  if (req.op == BenchOp::redistribute) {
    const Redistribution problem{static_cast<std::uint64_t>(req.P), static_cast<std::uint64_t>(req.K),
                                 static_cast<std::uint64_t>(req.Q), static_cast<std::uint64_t>(req.x), bit(q), false};
    redistribution.emplace(RedistributePlan::Options{problem, "circulant", false, std::nullopt, {req.type, req.backend}});
    options = redistribution->placement().machine(req.type, req.backend, req.tile_dims);
    r.n = redistribution->placement().n;
    r.m = redistribution->placement().m;
  }
  // Labels g < 2^q in the type (the redistribution's elements, else the
  // machine's words); otherwise timed on zeros, as one process times it, and
  // not verified. The FFT loads its own points.
  bool labels = q <= info(req.type).label_bits && req.op != BenchOp::fft;
  DistributedSession s;
  if (labels && !redistribution) {
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
  out.transport = mach.transport();
  r.backend = to_string(local.backend().kind());
  r.device = local.backend().device_name();
  r.gpu = local.backend().kind() == BackendKind::cuda;
  r.spec_bytes_per_second = local.backend().spec_bytes_per_second();
  // The roofline: every rank copies its share of the data at once.
  const std::uint64_t share = r.data_bytes / static_cast<std::uint64_t>(out.ranks);
  const std::function<double()> copy = local.backend().copy_timer(share);

  const auto timed = [](const std::function<void()>& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return seconds_since(start);
  };
  std::function<double()> run;
  AddressMap destination;  // where the warm-up run sends each word (empty: checked otherwise or not at all)
  std::function<std::string()> check;  // the warm-up run's check on this rank, "" when it passed
  std::optional<Job> job;
  std::optional<DistributedFftPlan> fft_plan;
  std::optional<DistributedFftMachine> fft_machine;
  std::vector<unsigned char> fft_points;  // this rank's share of the points, reloaded before each run
  switch (req.op) {
    case BenchOp::memcpy:
      r.what = fmt::format("every rank's memcpy of its share (the roofline), on {} ranks", out.ranks);
      run = copy;
      break;
    case BenchOp::cycle: {
      PortRules rules;
      const Cycle c = half_memory_cycle(geo, rules);
      r.what = fmt::format("one all-port routing cycle, {} exchanges a node pair (K/2 words a node), on {} ranks",
                           c.size(), out.ranks);
      r.check_seconds = seconds_of([&] { check_cycle(geo, c, rules, 0); });
      destination = cycle_destination(geo, c);
      run = [&mach, c, timed] { return timed([&] { mach.run_checked_cycle(c); }); };
      break;
    }
    case BenchOp::alignment: {
      const unsigned d = std::min(geo.n, geo.m);
      const AffineMap map = AffineMap::xor_fold(geo, d, 1);
      r.what = fmt::format("the AAPC alignment (j|i) -> (j|i xor j) on {} bits, in place, on {} ranks", d, out.ranks);
      destination = alignment_destination(map);
      run = [&mach, map, timed] { return timed([&] { mach.align(AlignmentStep(map)); }); };
      break;
    }
    case BenchOp::aapc: {
      AapcOptions o;
      o.d = geo.n;
      PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, geo, geo.n);
      Schedule schedule = make_aapc_schedule(o);
      ScheduleStats stats = check_schedule(schedule);
      job.emplace();
      job->schedule = std::move(schedule);
      job->stats = std::move(stats);
      job->f = std::move(plan.f);
      job->g = std::move(plan.g);
      job->permutation = "transpose";
      job->formula = plan.formula;
      destination = std::move(plan.destination);
      r.what = fmt::format("a full AAPC (the transpose), Algorithm 4, {} cycles and 2 alignments, on {} ranks",
                           job->schedule.cycles(), out.ranks);
      run = [&] { return run_job_schedule(s, *job); };
      break;
    }
    case BenchOp::redistribute: {
      const RedistributionPlacement& pl = redistribution->placement();
      const RedistElement label = [&](std::uint64_t g, unsigned char* word) { write_label(req.type, g, word); };
      if (labels) {
        load_sources(mach, pl, label);
        check = [&mach, &pl, label] { return check_destinations(mach, pl, label); };
      }
      r.what = fmt::format("block-cyclic redistribution R_{}({}, {}, {}), {} circulant steps, on {} ranks", req.x,
                           req.P, req.K, req.Q, redistribution->schedule().steps.size(), out.ranks);
      // Each run leaves the sources as they were, so each is the same run.
      run = [&] { return run_redistribution(mach, pl, redistribution->schedule()).seconds; };
      break;
    }
    case BenchOp::fft: {
      // As hcube fft runs under mpirun: the plan's transform on the ranks' shares, in place.
      DistributedFftPlan::Options o;
      o.points_log2 = q;
      o.nodes_log2 = r.n;
      o.target = {ElementType::c128, req.backend};
      fft_plan.emplace(o);
      fft_machine.emplace(mach);
      fft_points = cyclic_share(mach, bench_fft_point);
      out.fft_baseline_threads = fft_baseline->threads;
      r.what = fmt::format("the distributed FFT of 2^{} points on 2^{} nodes (its AAPCs and local transforms), on {} "
                           "ranks, against {}'s with {} thread(s) a rank, {}",
                           q, r.n, out.ranks, fft_baseline->name, fft_baseline->threads, req.fftw_plan);
      // Each run transforms the same points: loaded before the ranks start together.
      run = [&] {
        local.load(fft_points.data(), fft_points.size());
        barrier(comm);
        return timed([&] { distributed_fft(*fft_machine, fft_plan->plan(), fft_plan->options()); });
      };
      // The warm-up's result against the baseline's, point by point (X[k] at each one's own place).
      check = [&] {
        fft_baseline->run();
        const std::vector<std::complex<double>> reference = fft_baseline->result();
        const FftDifference d =
            combined(fft_share_difference(local, geo, mach.first_word(), reference, FftOrder::natural), comm);
        try {
          r.fft_error = check_fft_difference(d, req.type).error;
        } catch (const Error& e) {
          return fmt::format("hcube's FFT against {}'s: {}", fft_baseline->name, e.what());
        }
        return std::string();
      };
      break;
    }
    default: {
      const bool transpose = req.op == BenchOp::fused_transpose;
      const DimensionPermutation p =
          parse_dimension_permutation(transpose ? "transpose" : "bit-reversal", geo.n, geo.m);
      destination = [p](std::uint64_t g) { return p.apply(g); };
      r.what = fmt::format("the {} in one tiled pass a side of one MPI_Alltoallv, on {} ranks",
                           transpose ? "transpose" : "bit reversal", out.ranks);
      run = [&mach, to = p.to, timed] { return timed([&] { mach.permute_address_bits(to); }); };
    }
  }
  if (labels && destination)
    check = [&] {
      advance_reference(s, destination);
      return check_share(s, r.what);
    };

  // The warm-up: counted (the bytes one run moves), verified, and its traffic kept.
  run();
  const Counters counters = mach.counters();
  // A fused pass reads and writes the data once, as one machine counts it, and
  // so does a copy; the emulated steps' counters are the emulated machine's,
  // the same on any number of ranks.
  const bool fused = req.op == BenchOp::fused_transpose || req.op == BenchOp::fused_bit_reversal;
  r.bytes_moved = fused || req.op == BenchOp::memcpy ? 2 * r.data_bytes : counters.bytes_read + counters.bytes_written;
  out.traffic = mach.all_traffic();
  if (check) {
    std::string error = check();
    int bad = error.empty() ? 0 : 1;
    allreduce(&bad, 1, MPI_INT, MPI_MAX, comm);
    if (bad != 0)
      throw CollectiveError(error.empty() ? "verification failed on another rank: run with --json on one process to compare"
                                          : error);
    out.verified = true;
  }

  // MPI_Alltoall of the same data: each rank's share split into equal blocks, one to each rank.
  const std::uint64_t block = share / static_cast<std::uint64_t>(out.ranks);
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
    if (req.op == BenchOp::fft) out.fft_baseline_runs.push_back(timed_together(fft_baseline->run, comm));
    r.time.runs.emplace_back(ops.back(), copies.back());
  }
  if (!out.fft_baseline_runs.empty()) out.fft_baseline_seconds = median(out.fft_baseline_runs);
  r.time.seconds = median(ops);
  r.time.roofline_seconds = median(copies);
  out.alltoall_seconds = median(out.alltoall_runs);
  return out;
}

}  // namespace hcube::mpi

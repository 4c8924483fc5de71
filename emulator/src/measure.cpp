#include "hcube/emulator/measure.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fftw3.h>
#include <omp.h>

#include <complex>

#include "hcube/core/error.hpp"
#include "hcube/emulator/fft.hpp"
#include "hcube/host/fft_plan.hpp"
#include "hcube/emulator/redistribute.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/emulator/units.hpp"
#include "hcube/emulator/verified_run.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/edelman.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/plans.hpp"
#include "hcube/version.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

double median(std::vector<double> t) {
  if (t.empty()) return 0;
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double seconds_of(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Alternated alternate(long long repeat, const std::function<double()>& op, const std::function<double()>& roofline,
                     bool warm_up_op) {
  if (warm_up_op) op();
  roofline();
  Alternated a;
  std::vector<double> ops, copies;
  for (long long r = 0; r < repeat; ++r) {
    a.runs.emplace_back(op(), roofline());
    ops.push_back(a.runs.back().first);
    copies.push_back(a.runs.back().second);
  }
  a.seconds = median(ops);
  a.roofline_seconds = median(copies);
  return a;
}

double ratio_to_memcpy(std::uint64_t bytes_moved, double seconds, std::uint64_t data_bytes, double memcpy_time) {
  return (static_cast<double>(bytes_moved) / seconds) / (2.0 * static_cast<double>(data_bytes) / memcpy_time);
}

// --- hcube bench -------------------------------------------------------------

const std::vector<std::string>& bench_op_names() {
  static const std::vector<std::string> names = {"memcpy",          "cycle",
                                                 "alignment",       "aapc",
                                                 "fused-transpose", "fused-bit-reversal",
                                                 "gather-bit-reversal", "redistribute",
                                                 "fused-permute",   "small-cycles",
                                                 "fft"};
  return names;
}

BenchOp parse_bench_op(const std::string& s) {
  const auto& names = bench_op_names();
  const auto it = std::find(names.begin(), names.end(), s);
  if (it == names.end())
    throw Error(fmt::format("BenchRequest::op '{}' unknown: allowed {}", printable_input(s), fmt::join(names, ", ")));
  return static_cast<BenchOp>(it - names.begin());
}

std::string to_string(BenchOp op) { return bench_op_names().at(static_cast<std::size_t>(op)); }

double BenchResult::throughput() const { return static_cast<double>(bytes_moved) / time.seconds; }
double BenchResult::roofline() const { return 2.0 * static_cast<double>(data_bytes) / time.roofline_seconds; }
double BenchResult::ratio() const { return ratio_to_memcpy(bytes_moved, time.seconds, data_bytes, time.roofline_seconds); }

long long fft_nodes_log2(const BenchRequest& r) { return r.nodes_log2 < 0 ? r.log2_words / 2 : r.nodes_log2; }

std::complex<double> bench_fft_point(std::uint64_t t) {
  const double s = static_cast<double>(t);
  return {std::sin(0.001 * s) + 1e-6 * s, std::cos(0.37 * s) - 1e-3 * static_cast<double>(t % 7)};
}

std::optional<double> BenchResult::ratio_to_fftw() const {
  if (!fftw_time) return std::nullopt;
  return fftw_time->roofline_seconds / fftw_time->seconds;
}

std::optional<double> BenchResult::ratio_to_direct() const {
  if (!direct_time) return std::nullopt;
  return (static_cast<double>(bytes_moved) / time.seconds) /
         (static_cast<double>(direct_bytes_moved) / direct_time->seconds);
}
std::vector<double> BenchResult::run_ratios() const {
  std::vector<double> out;
  for (const auto& [op_s, copy_s] : time.runs) out.push_back(ratio_to_memcpy(bytes_moved, op_s, data_bytes, copy_s));
  return out;
}

namespace {

const std::vector<std::string>& aapc_algorithm_names() {
  static const std::vector<std::string> names = {"1", "2", "3", "4", "edelman", "edelman-unaligned"};
  return names;
}

void check_aapc_algorithm(const std::string& flag, const std::string& a) {
  const auto& names = aapc_algorithm_names();
  if (std::find(names.begin(), names.end(), a) == names.end())
    throw Error(fmt::format("{} '{}' unknown: allowed {}", flag, printable_input(a), fmt::join(names, ", ")));
}

// An AAPC of the transpose on the d-cube (n = m = d): Algorithms 1-4 with
// their alignments, Edelman's table aligned, or unaligned (node-dependent addresses).
Schedule aapc_schedule(const std::string& algorithm, unsigned d) {
  if (algorithm == "edelman") return make_edelman_schedule(d, d, d, true);
  if (algorithm == "edelman-unaligned") return make_edelman_schedule(d, d, d, false);
  AapcOptions o;
  o.algorithm = parse_aapc_algorithm(algorithm);
  o.d = d;
  return make_aapc_schedule(o);
}

// The machine's operations, each checked once and timed apart: on a GPU the
// host's check of K/2 exchanges costs several times the launch it guards.
void measure_on(BenchResult& r, Machine& mach, const std::function<double()>& roofline) {
  const Geometry& geo = mach.geometry();
  const auto per_run = [&](const std::function<void()>& run) {
    mach.reset_counters();
    run();  // one counted run: the bytes it moves
    r.bytes_moved = mach.counters().bytes_read + mach.counters().bytes_written;
    r.time = alternate(r.request.repeat, [&] { return mach.backend().timed(run); }, roofline);
  };
  const auto checked = [&](const std::function<void()>& check) { r.check_seconds = seconds_of(check); };
  switch (r.request.op) {
    case BenchOp::cycle: {
      PortRules rules;
      const Cycle c = half_memory_cycle(geo, rules);
      r.what = fmt::format("one all-port routing cycle, {} exchanges a node pair (K/2 words a node)", c.size());
      r.cycles = 1;
      checked([&] { check_cycle(geo, c, rules, 0); });
      per_run([&] { mach.run_checked_cycle(c); });
      break;
    }
    case BenchOp::small_cycles: {
      // Cycle c: one exchange across dimension c mod n at local address c mod K,
      // so every cycle moves 2^n words and depends on the one before.
      Schedule s;
      s.algorithm = "small-cycles";
      s.n = geo.n;
      s.m = geo.m;
      s.pre = s.post = AlignmentKind::none;
      for (std::size_t c = 0; c < kSmallCycles; ++c) {
        s.add(direct_exchange(static_cast<unsigned>(c % geo.n), c % geo.words_per_node()));
        s.end_cycle();
      }
      r.what = fmt::format("{} routing cycles of one exchange each ({} words a cycle), one schedule", kSmallCycles,
                           geo.nodes());
      r.cycles = kSmallCycles;
      checked([&] {
        for (std::size_t c = 0; c < s.cycles(); ++c) check_cycle(geo, s.cycle(c), s.rules, c);
      });
      per_run([&] { mach.run_checked_cycles(s); });
      break;
    }
    case BenchOp::alignment: {
      const unsigned d = std::min(geo.n, geo.m);
      const AffineMap map = AffineMap::xor_fold(geo, d, 1);
      r.what = fmt::format("the AAPC alignment (j|i) -> (j|i xor j) on {} bits, in place", d);
      per_run([&] { mach.align(map); });
      break;
    }
    case BenchOp::aapc: {
      const std::string& alg = r.request.algorithm;
      const Schedule s = aapc_schedule(alg, geo.n);
      const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, geo, geo.n);
      const bool unaligned = alg == "edelman-unaligned";
      r.what = fmt::format("a full AAPC (the transpose), {}, {} cycles{}",
                           alg.size() == 1 ? "Algorithm " + alg : "Edelman's table" + std::string(unaligned ? ", unaligned" : ""),
                           s.cycles(), unaligned ? " with node-dependent addresses, no alignment" : " and 2 alignments");
      r.cycles = s.cycles();
      std::optional<CheckedSchedule> run;
      checked([&] { run.emplace(check_schedule_run(mach, s, plan.f, plan.g)); });
      per_run([&] { run_checked_schedule(mach, *run); });
      if (unaligned) {
        // The same table with direct addresses and its two alignments, timed the same way.
        const Schedule aligned = aapc_schedule("edelman", geo.n);
        const CheckedSchedule direct = check_schedule_run(mach, aligned, plan.f, plan.g);
        mach.reset_counters();
        run_checked_schedule(mach, direct);
        r.direct_bytes_moved = mach.counters().bytes_read + mach.counters().bytes_written;
        r.direct_time = alternate(r.request.repeat, [&] { return mach.backend().timed([&] { run_checked_schedule(mach, direct); }); },
                                  roofline);
      }
      break;
    }
    case BenchOp::fused_permute: {
      const std::string& text = r.request.perm;
      const DimensionPermutation p = parse_dimension_permutation(
          text == "random" ? fmt::format("random:{}", r.request.seed) : text, geo.n, geo.m);
      r.to = p.to;
      r.what = fmt::format("the address-bit permutation {} in one tiled pass", fmt::join(p.to, ","));
      per_run([&] { mach.permute_address_bits(p.to); });
      break;
    }
    default: {
      const bool transpose = r.request.op == BenchOp::fused_transpose;
      const DimensionPermutation p = parse_dimension_permutation(transpose ? "transpose" : "bit-reversal", geo.n, geo.m);
      r.what = transpose ? "the transpose in one tiled pass" : "the bit reversal in one tiled pass";
      per_run([&] { mach.permute_address_bits(p.to); });
    }
  }
}

// The baseline a user writes by hand: dst[i] = src[index[i]] with the index
// precomputed (here the bit reversal), OpenMP over i, on host memory.
void gather_bit_reversal(BenchResult& r, unsigned q, std::size_t wb, const std::function<double()>& roofline) {
  const std::uint64_t words = bit(q);
  std::vector<std::uint64_t> index(words);
  for (std::uint64_t i = 0; i < words; ++i) index[i] = reverse_bits(i, q);
  std::vector<unsigned char> src(words * wb, 1), dst(words * wb, 0);
  const auto n = static_cast<std::int64_t>(words);
  r.what = "the bit reversal gathered through a precomputed index (dst[i] = src[index[i]])";
  r.bytes_moved = 2 * words * wb + words * sizeof(std::uint64_t);
  const auto run = [&] {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i)
      std::memcpy(&dst[static_cast<std::uint64_t>(i) * wb], &src[index[static_cast<std::uint64_t>(i)] * wb], wb);
  };
  r.time = alternate(r.request.repeat, [&] { return seconds_of(run); }, roofline);
}

// R_x(P, K, Q) on the array of 2^q elements, the circulant schedule on its own
// machine: one counted run, verified against the layout's closed form, then
// the timed runs (each leaves the sources as they were, so each is the same run).
void bench_redistribute(BenchResult& r, unsigned q, const std::function<double()>& roofline) {
  const BenchRequest& req = r.request;
  const Redistribution problem{static_cast<std::uint64_t>(req.P), static_cast<std::uint64_t>(req.K),
                               static_cast<std::uint64_t>(req.Q), static_cast<std::uint64_t>(req.x), bit(q), false};
  RedistributePlan plan(RedistributePlan::Options{problem, "circulant", false, std::nullopt, {req.type, req.backend}});
  const RedistributionPlacement& pl = plan.placement();
  Machine mach(pl.machine(req.type, req.backend, req.tile_dims));
  r.n = pl.n;
  r.m = pl.m;
  r.what = fmt::format("block-cyclic redistribution R_{}({}, {}, {}), {} circulant steps", req.x, req.P, req.K, req.Q,
                       plan.schedule().steps.size());
  const RedistElement label = [&](std::uint64_t g, unsigned char* out) { write_label(req.type, g, out); };
  load_sources(mach, pl, label);
  mach.reset_counters();
  plan.execute(mach);
  r.bytes_moved = mach.counters().bytes_read + mach.counters().bytes_written;
  verify_redistribution(mach, pl, label);
  r.time = alternate(req.repeat, [&] { return mach.backend().timed([&] { plan.execute(mach); }); }, roofline);
}

}  // namespace

BusyNeighbour::BusyNeighbour() {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(fmt::format("BusyNeighbour: cannot start a process: {}", std::strerror(errno)));
  if (pid == 0) {
    // The child: async-signal-safe calls only (the parent has threads), then spin.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(0);
    volatile unsigned long spins = 0;
    for (;;) spins = spins + 1;
  }
  pid_ = pid;
}

BusyNeighbour::~BusyNeighbour() {
  ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

namespace {

// FFTW's array and plan, freed with it.
struct FftwTransform {
  fftw_complex* data = nullptr;
  fftw_plan plan = nullptr;
  FftwTransform(std::uint64_t points, int threads, unsigned flags) {
    data = fftw_alloc_complex(points);
    if (data == nullptr) throw OutOfMemory(fmt::format("FFTW could not allocate {} points", points));
    fftw_plan_with_nthreads(threads);
    plan = fftw_plan_dft_1d(static_cast<int>(points), data, data, FFTW_FORWARD, flags);
    if (plan == nullptr) {
      fftw_free(data);
      throw Error(fmt::format("FFTW could not plan a transform of {} points", points));
    }
  }
  ~FftwTransform() {
    fftw_destroy_plan(plan);
    fftw_free(data);
  }
  FftwTransform(const FftwTransform&) = delete;
  FftwTransform& operator=(const FftwTransform&) = delete;
};

// --op fft: the distributed FFT of 2^q points on the caller's buffer (DistributedFftPlan), checked
// once against FFTW's transform, then timed against memcpy and, alternated, against FFTW's
// transform with the same threads, planned before any timing (FFTW's planner is not timed, as
// hcube's plan is not).
void bench_fft(BenchResult& r, unsigned q, const std::function<double()>& copy) {
  DistributedFftPlan::Options o;
  o.points_log2 = q;
  o.nodes_log2 = r.n;
  o.target = {ElementType::c128, r.request.backend};
  DistributedFftPlan plan(o);
  const std::uint64_t points = bit(q), bytes = points * sizeof(std::complex<double>);
  // hcube holds the points as the cube does, in cyclic order (the staging a user's FFT has done already).
  std::vector<std::complex<double>> x(points), cyclic(points), work(points);
  for (std::uint64_t t = 0; t < points; ++t) {
    x[t] = bench_fft_point(t);
    cyclic[cyclic_address(t, r.n, r.m)] = x[t];
  }
  r.fftw_threads = omp_get_max_threads();
  FftwTransform fftw(points, r.fftw_threads, r.request.fftw_plan == "measure" ? FFTW_MEASURE : FFTW_ESTIMATE);
  std::memcpy(work.data(), cyclic.data(), bytes);
  const Counters c = plan.execute(work.data(), bytes);
  std::memcpy(fftw.data, x.data(), bytes);
  fftw_execute(fftw.plan);
  const auto* want = reinterpret_cast<const std::complex<double>*>(fftw.data);
  FftDifference d;
  for (std::uint64_t k = 0; k < points; ++k) d.add(work[plan.result_address(k)], want[k]);
  r.fft_error = check_fft_difference(d, ElementType::c128).error;
  r.bytes_moved = c.bytes_read + c.bytes_written;
  r.what = fmt::format("the distributed FFT of 2^{} points on 2^{} nodes (its AAPCs and local transforms), "
                       "against FFTW's with {} thread(s), {}", q, r.n, r.fftw_threads, r.request.fftw_plan);
  const auto hcube = [&] {
    std::memcpy(work.data(), cyclic.data(), bytes);
    return seconds_of([&] { plan.execute(work.data(), bytes); });
  };
  const auto baseline = [&] {
    std::memcpy(fftw.data, x.data(), bytes);
    return seconds_of([&] { fftw_execute(fftw.plan); });
  };
  r.time = alternate(r.request.repeat, hcube, copy, false);
  r.fftw_time = alternate(r.request.repeat, hcube, baseline);
}

}  // namespace

void check_bench(const BenchRequest& req) {
  if (req.log2_words < 2 || req.log2_words > 34)
    throw Error(fmt::format("BenchRequest::log2_words {} out of range: allowed 2..34", req.log2_words));
  if (req.repeat < 1 || req.repeat > 1000)
    throw Error(fmt::format("BenchRequest::repeat {} out of range: allowed 1..1000", req.repeat));
  if (req.op == BenchOp::aapc && req.log2_words % 2 != 0)
    throw Error(
        fmt::format("BenchRequest::op aapc runs the transpose on n = m = d: BenchRequest::log2_words {} must be even",
                    req.log2_words));
  if (req.op == BenchOp::redistribute) {
    if (req.log2_words > 30)
      throw Error(fmt::format("BenchRequest::op redistribute BenchRequest::log2_words {} out of range: allowed 2..30",
                              req.log2_words));
    check_redistribution(Redistribution{static_cast<std::uint64_t>(std::max(req.P, 0LL)),
                                        static_cast<std::uint64_t>(std::max(req.K, 0LL)),
                                        static_cast<std::uint64_t>(std::max(req.Q, 0LL)),
                                        static_cast<std::uint64_t>(std::max(req.x, 0LL)),
                                        bit(static_cast<unsigned>(req.log2_words)), false});
  }
  if (req.op == BenchOp::aapc) check_aapc_algorithm("BenchRequest::algorithm", req.algorithm);
  if (req.op == BenchOp::fused_permute && req.perm != "random") {
    const auto q = static_cast<unsigned>(req.log2_words);
    parse_dimension_permutation(req.perm, q / 2, q - q / 2);
  }
  if (req.op == BenchOp::fft) {
    if (req.type != ElementType::c128)
      throw Error(fmt::format(
          "BenchRequest::op fft times complex128 points (FFTW's double transform): drop BenchRequest::type {}",
          info(req.type).name));
    check_fft_sizes(req.log2_words, fft_nodes_log2(req));
    if (req.fftw_plan != "estimate" && req.fftw_plan != "measure")
      throw Error(fmt::format("BenchRequest::fftw_plan '{}' unknown: allowed estimate, measure",
                              printable_input(req.fftw_plan)));
  }
  if (req.op == BenchOp::gather_bit_reversal && req.backend == BackendChoice::cuda)
    throw Error(
        "BenchRequest::op gather-bit-reversal is the CPU baseline: it runs on host memory (drop BenchRequest::backend "
        "cuda)");
}

BenchResult run_bench(const BenchRequest& req) {
  check_bench(req);
  const auto q = static_cast<unsigned>(req.log2_words);
  const std::size_t wb = info(req.type).bytes;
  BenchResult r;
  r.request = req;
  r.n = q / 2;
  r.m = q - r.n;
  r.data_bytes = bit(q) * wb;
  std::unique_ptr<Machine> mach;
  std::unique_ptr<Backend> copier;  // memcpy and the gather baseline: the backend whose copy is the roofline
  Backend* where = nullptr;
  if (req.op == BenchOp::fft) {
    r.n = static_cast<unsigned>(fft_nodes_log2(req));
    r.m = q - r.n;
  }
  if (req.op == BenchOp::memcpy || req.op == BenchOp::gather_bit_reversal || req.op == BenchOp::redistribute ||
      req.op == BenchOp::fft) {
    copier = make_backend(req.op == BenchOp::gather_bit_reversal ? BackendChoice::cpu : req.backend);
    where = copier.get();
  } else {
    mach = std::make_unique<Machine>(MachineOptions{r.n, r.m, req.type, req.backend, req.tile_dims, req.launch});
    // Distinct words where the type holds every label (made on the backend:
    // no host copy of the data), else zeros: data is written before the roofline.
    if (q <= info(req.type).label_bits) {
      mach->load_labels();
    } else {
      std::vector<unsigned char> zeros(mach->bytes(), 0);
      mach->load(zeros.data(), zeros.size());
    }
    where = &mach->backend();
  }
  r.backend = to_string(where->kind());
  r.device = where->device_name();
  r.gpu = where->kind() == BackendKind::cuda;
  r.spec_bytes_per_second = where->spec_bytes_per_second();
  // The roofline in the same process: a copy of the same bytes, read + written.
  const std::function<double()> copy = where->copy_timer(r.data_bytes);
  if (req.op == BenchOp::memcpy) {
    // The copy alternated with itself: a ratio near 1, whose spread is the run's noise.
    r.what = r.gpu ? "a device copy kernel over the data (the roofline)" : "memcpy of the data (the roofline)";
    r.bytes_moved = 2 * r.data_bytes;
    r.time = alternate(req.repeat, copy, copy);
  } else if (req.op == BenchOp::gather_bit_reversal) {
    gather_bit_reversal(r, q, wb, copy);
  } else if (req.op == BenchOp::redistribute) {
    bench_redistribute(r, q, copy);
  } else if (req.op == BenchOp::fft) {
    bench_fft(r, q, copy);
  } else {
    measure_on(r, *mach, copy);
  }
  r.launch_stats = where->launch_stats();
  return r;
}

// --- hcube sweep -------------------------------------------------------------

long long parse_sweep_to(const std::string& text) {
  if (text == "max") return kSweepLargestFitting;
  if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != std::string::npos)
    throw Error(fmt::format("SweepRequest::to '{}' out of range: allowed an integer 1..{} or max (the largest d that "
                            "fits)",
                            printable_input(text), kSweepMaxDims));
  return std::stoll(text);
}

namespace {

std::uint64_t sweep_data_bytes(const SweepRequest& r, unsigned d) {
  return (std::uint64_t{1} << (2 * d)) * info(r.type).bytes;
}
// The machine and the roofline's copies, without any scratch.
std::uint64_t sweep_base_bytes(const SweepRequest& r, unsigned d) {
  const std::uint64_t data = sweep_data_bytes(r, d);
  return data + 2 * std::min(data, kSweepCopyCapBytes);
}
bool sweep_needs_scratch(const SweepRequest& r, unsigned d) {
  // The alignments follow from each schedule and the transpose's f and g at d.
  const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, make_geometry(d, d), d);
  for (const std::string& alg : r.algorithms)
    if (schedule_needs_scratch(aapc_schedule(alg, d), plan.f, plan.g)) return true;
  return false;
}
// The schedules are built only where the machine and the copies fit: far beyond memory they take seconds to build.
bool sweep_fits(const SweepRequest& r, unsigned d, std::uint64_t available) {
  return sweep_base_bytes(r, d) <= available && sweep_bytes_needed(r, d) <= available;
}

}  // namespace

std::uint64_t sweep_bytes_needed(const SweepRequest& r, unsigned d) {
  return sweep_base_bytes(r, d) + (sweep_needs_scratch(r, d) ? sweep_data_bytes(r, d) : 0);
}

unsigned sweep_largest_fitting(const SweepRequest& r, std::uint64_t available) {
  unsigned d = 0;
  while (d < kSweepMaxDims && sweep_fits(r, d + 1, available)) ++d;
  return d;
}

void check_sweep(const SweepRequest& r) {
  for (const std::string& a : r.algorithms) check_aapc_algorithm("SweepRequest::algorithms entry", a);
  const bool largest = r.to == kSweepLargestFitting;
  if (r.from < 1 || r.from > kSweepMaxDims || (!largest && (r.to > kSweepMaxDims || r.from > r.to)))
    throw Error(fmt::format("SweepRequest::from {} SweepRequest::to {} out of range: allowed 1 <= from <= to <= {}",
                            r.from, largest ? std::string("max") : std::to_string(r.to), kSweepMaxDims));
  if (r.repeat < 1 || r.repeat > 100)
    throw Error(fmt::format("SweepRequest::repeat {} out of range: allowed 1..100", r.repeat));
}

SweepRequest fit_sweep(const SweepRequest& r, std::uint64_t available) {
  check_sweep(r);
  const unsigned largest = sweep_largest_fitting(r, available);
  SweepRequest fitted = r;
  if (r.to == kSweepLargestFitting) {
    if (r.from > largest)
      throw OutOfMemory(fmt::format("SweepRequest::from {} is above the largest d that fits, {} ({} available; d = {} "
                                    "needs at least {})",
                                    r.from, largest, format_bytes(available), r.from,
                                    format_bytes(sweep_base_bytes(r, static_cast<unsigned>(r.from)))));
    fitted.to = largest;
    return fitted;
  }
  // Every d before the first allocation: the range fails now, not after hours of the smaller ones.
  for (auto d = static_cast<unsigned>(r.from); d <= static_cast<unsigned>(r.to); ++d) {
    if (sweep_fits(r, d, available)) continue;
    throw OutOfMemory(fmt::format("sweep at d = {} needs {} (2^{} words of {}, the roofline's copies and any scratch): "
                                  "{} available, the largest d that fits is {}",
                                  d, format_bytes(sweep_bytes_needed(r, d)), 2 * d, info(r.type).name,
                                  format_bytes(available), largest));
  }
  return fitted;
}

SweepResult run_sweep(const SweepRequest& request, const SweepProgress& progress) {
  SweepResult out;
  out.request = fit_sweep(request, make_backend(request.backend)->available_bytes());
  const SweepRequest& req = out.request;
  const std::size_t total = static_cast<std::size_t>(req.to - req.from + 1) * req.algorithms.size();
  for (auto d = static_cast<unsigned>(req.from); d <= static_cast<unsigned>(req.to); ++d) {
    Machine mach(MachineOptions{d, d, req.type, req.backend, req.tile_dims, req.launch});
    out.backend = to_string(mach.backend().kind());
    out.device = mach.backend().device_name();
    const std::uint64_t copy_bytes = std::min(mach.bytes(), kSweepCopyCapBytes);
    const std::function<double()> copy = mach.backend().copy_timer(copy_bytes);
    const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, mach.geometry(), d);
    for (const std::string& alg : req.algorithms) {
      if (progress) progress(out.rows.size(), total, fmt::format("d = {}, {}", d, alg));
      const Schedule s = aapc_schedule(alg, d);
      SweepRow r;
      r.d = d;
      r.algorithm = alg;
      r.words = mach.geometry().total_words();
      r.cycles = s.cycles();
      r.data_bytes = mach.bytes();
      r.memcpy_bytes = copy_bytes;
      const CheckedSchedule run = check_schedule_run(mach, s, plan.f, plan.g);
      // One run per label window, each checked on the backend against the
      // transpose's closed form; the first is counted, and warms up.
      verify_in_windows(
          mach, plan.destination_form,
          [&](std::size_t window) {
            if (window == 0) mach.reset_counters();
            run_checked_schedule(mach, run);
            if (window != 0) return;
            r.bytes_moved = mach.counters().bytes_read + mach.counters().bytes_written;
            r.element_hops = mach.counters().element_hops;
          },
          fmt::format("the AAPC of {} at d = {} (the transpose)", alg, d), req.label_window_bits);
      r.verified = true;
      const Alternated t =
          alternate(req.repeat, [&] { return mach.backend().timed([&] { run_checked_schedule(mach, run); }); }, copy,
                    false);
      r.seconds = t.seconds;
      r.memcpy_seconds = t.roofline_seconds;
      out.rows.push_back(r);
    }
  }
  out.version = version();
  if (progress) progress(total, total, "");
  return out;
}

namespace {

// A CSV field: quoted when it holds a comma or a quote (device names can).
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string sweep_csv(const std::vector<SweepResult>& sweeps) {
  // New columns go at the end: the first fifteen are a contract with scripts that read them.
  std::string out =
      "d,algorithm,words,cycles,seconds,bytes_moved,throughput_gb_per_s,memcpy_seconds,ratio_to_memcpy,verified,"
      "backend,device,version,type,repeat,element_hops,seconds_per_cycle,cycles_per_second,element_hops_per_second,"
      "memcpy_bytes,launch\n";
  for (const SweepResult& s : sweeps) {
    const std::string run = fmt::format("{},{},{},{},{}", csv_field(s.backend), csv_field(s.device),
                                        csv_field(s.version), info(s.request.type).name, s.request.repeat);
    for (const SweepRow& r : s.rows)
      out += fmt::format("{},{},{},{},{:.9f},{},{:.6f},{:.9f},{:.6f},{},{},{},{:.9e},{:.6f},{:.6e},{},{}\n", r.d,
                         r.algorithm, r.words, r.cycles, r.seconds, r.bytes_moved, r.throughput() / 1e9,
                         r.memcpy_seconds, r.ratio(), r.verified ? "yes" : "no", run, r.element_hops,
                         r.seconds_per_cycle(), r.cycles_per_second(), r.element_hops_per_second(), r.memcpy_bytes,
                         to_string(s.request.launch));
  }
  return out;
}

std::string sweep_csv(const SweepResult& s) { return sweep_csv(std::vector<SweepResult>{s}); }

}  // namespace hcube

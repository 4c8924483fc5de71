#include "hcube/plans.hpp"
#include "hcube/typed_plans.hpp"

#include "hcube/host/system/host_memory.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "hcube/emulator/schedule_run.hpp"
#include "hcube/emulator/sdp_run.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/layout.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

// --- Plan --------------------------------------------------------------------

Plan::Plan(const Geometry& geo, const PlanTarget& target)
    : geo_(geo), type_(target.type), backend_(make_backend(target.backend)) {}

Plan::~Plan() = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

BackendKind Plan::backend_kind() const { return backend_->kind(); }

int Plan::cuda_device() const { return backend_->cuda_device(); }

std::uint64_t Plan::data_bytes() const { return geo_.total_words() * info(type_).bytes; }

Counters Plan::execute(void* data, std::uint64_t bytes, Scratch scratch) {
  return run_on(data, bytes, scratch, nullptr, false);
}

Counters Plan::remember(Counters counters, std::unique_ptr<StreamTimer> timer) {
  last_ = std::move(counters);
  last_timer_ = std::move(timer);
  return last_;
}

Counters Plan::last_counters() const {
  Counters c = last_;
  if (last_timer_) c.add_phase("device", last_timer_->seconds());
  return c;
}

Counters Plan::execute_device(void* data, std::uint64_t bytes, CudaStream stream, Scratch scratch) {
  if (backend_->kind() != BackendKind::cuda)
    throw Error("execute_device needs the cuda backend: this plan runs on the " + to_string(backend_->kind()) +
                " backend (PlanTarget::backend)");
  return run_on(data, bytes, scratch, stream, true);
}

void Plan::set_job(Job job) {
  job_ = std::make_unique<Job>(std::move(job));
  pre_.clear();
  post_.clear();
  tile_dims_ = 0;
  if (!job_->one_step.empty() || !job_->untraceable.empty()) return;
  pre_ = schedule_pre_alignment(job_->schedule, job_->f);
  post_ = schedule_post_alignment(job_->schedule, job_->g);
  // Two fused passes (about two copies) buy exchanges on tiles instead of strided gathers.
  if (job_->schedule.cycles() > 0) tile_dims_ = make_layout(geo_).t;
}

void Plan::run_job(Machine& machine, const Machine::Progress& progress) const {
  const CheckedSchedule checked{job_->schedule, job_->stats, pre_, post_};
  run_checked_schedule(machine, checked, progress);
}

bool Plan::job_alignments_copy() const { return alignments_need_scratch(pre_) || alignments_need_scratch(post_); }

Counters Plan::execute(Machine& machine, const Machine::Progress& progress) {
  const Geometry& g = machine.geometry();
  if (g.n != geo_.n || g.m != geo_.m || machine.type() != type_)
    throw Error(fmt::format("plan for n = {}, m = {}, {}: the machine has n = {}, m = {}, {}", geo_.n, geo_.m,
                            info(type_).name, g.n, g.m, info(machine.type()).name));
  const Counters before = machine.counters();
  run(machine, progress);
  Counters done = machine.counters();
  // What this execution did: the machine's counters since `before`.
  Counters diff;
  diff.links_total = done.links_total;
  diff.routing_cycles = done.routing_cycles - before.routing_cycles;
  diff.alignments = done.alignments - before.alignments;
  diff.router_steps = done.router_steps - before.router_steps;
  diff.kernel_launches = done.kernel_launches - before.kernel_launches;
  diff.element_hops = done.element_hops - before.element_hops;
  diff.bytes_read = done.bytes_read - before.bytes_read;
  diff.bytes_written = done.bytes_written - before.bytes_written;
  diff.router_contention = done.router_contention - before.router_contention;
  diff.links_used_per_cycle.assign(done.links_used_per_cycle.begin() + before.links_used_per_cycle.size(),
                                   done.links_used_per_cycle.end());
  for (const PhaseTime& p : done.phases) {
    const double earlier = before.phase_seconds(p.name);
    std::uint64_t calls = p.calls;
    for (const PhaseTime& q : before.phases)
      if (q.name == p.name) calls -= q.calls;
    if (calls > 0) diff.phases.push_back({p.name, p.seconds - earlier, calls});
  }
  return remember(std::move(diff));
}

Counters Plan::run_on(void* data, std::uint64_t bytes, Scratch scratch, CudaStream stream, bool device) {
  if (bytes != data_bytes())
    throw Error(fmt::format("the caller's buffer holds {} bytes: the plan's (2^{}, 2^{}) array of {} needs {}", bytes,
                            geo_.n, geo_.m, info(type_).name, data_bytes()));
  if (data == nullptr) throw Error("the caller's buffer is a null pointer");
  if (scratch.data != nullptr && scratch.bytes < scratch_bytes_)
    throw Error(fmt::format("the caller's scratch holds {} bytes: the plan needs {} (scratch_bytes())", scratch.bytes,
                            scratch_bytes_));
  // The kernels read device memory 16 bytes at a time (cudaMalloc's alignment is 256) and host memory
  // a word at a time: a buffer off that alignment, such as a slice of a tensor, is refused before any launch.
  const std::uint64_t align = device ? kDeviceBufferAlignment : info(type_).bytes;
  const auto check_aligned = [&](const void* p, const char* what) {
    if (reinterpret_cast<std::uintptr_t>(p) % align != 0)
      throw Error(fmt::format("the caller's {} at {} is not aligned to {} bytes ({}): allowed addresses that are "
                              "multiples of {}, as {} returns",
                              what, p, align, device ? "device memory" : info(type_).name, align,
                              device ? "cudaMalloc" : "malloc"));
  };
  check_aligned(data, "buffer");
  if (scratch.data != nullptr) check_aligned(scratch.data, "scratch");
  struct OnDevice {  // the backend's device current on this thread while it works, then the caller's again
    Backend& b;
    int previous = b.enter_device();
    ~OnDevice() { b.leave_device(previous); }
  } on_device{*backend_};
  if (device) {
    backend_->check_device_buffer(data, bytes, "the caller's buffer");
    if (scratch.data != nullptr) backend_->check_device_buffer(scratch.data, scratch.bytes, "the caller's scratch");
  }
  const bool on_host_cuda = !device && backend_->kind() == BackendKind::cuda;
  if (on_host_cuda) {
    // Host data on a GPU plan: a device copy in the default tiles, kept for the next execution.
    if (!staging_)
      staging_ = std::make_unique<Machine>(MachineOptions{geo_.n, geo_.m, type_, BackendChoice::cuda, -1},
                                           make_cuda_backend());
    staging_->reset_counters();
    staging_->load(data, bytes);
    run(*staging_, {});
    staging_->read(data, bytes);
    return remember(staging_->counters());
  }
  void* scratch_data = scratch.data;
  if (scratch_data == nullptr && scratch_bytes() > 0) {
    if (!own_scratch_) own_scratch_ = backend_->allocate(data_bytes());
    scratch_data = own_scratch_.data();
  }
  backend_->set_stream(device ? stream : nullptr);
  struct ResetStream {  // never throws: it runs while a device fault's exception is on its way out
    Backend& b;
    ~ResetStream() { b.reset_stream(); }
  } reset{*backend_};
  // Tiled: the machine's storage is the scratch and its scratch the caller's buffer.
  const bool tiled = tile_dims_ > 0;
  Machine machine(MachineOptions{geo_.n, geo_.m, type_, BackendChoice::automatic, tiled ? tile_dims_ : 0}, backend_,
                  tiled ? scratch_data : data, bytes, tiled ? data : scratch_data);
  machine.set_settle_each_step(false);  // the caller sees the buffer only at the end
  // On device memory nothing waits for the stream: events around the launches time them.
  machine.set_asynchronous(device);
  std::unique_ptr<StreamTimer> timer = device ? backend_->start_timer() : nullptr;
  Buffer caller(data, bytes, [](void*) {});
  std::vector<unsigned> same;  // the identity on the address bits: a re-layout only
  if (tiled) {
    same.resize(geo_.address_bits());
    std::iota(same.begin(), same.end(), 0u);
    machine.load_permuted(same, caller);
  }
  run(machine, {});
  machine.settle();
  if (tiled) machine.read_permuted(same, caller);
  if (timer) timer->stop();
  return remember(machine.counters(), std::move(timer));
}

// --- AapcPlan ----------------------------------------------------------------

AapcPlan::AapcPlan(const Options& o) : AapcPlan(o, build_aapc_schedule(o.schedule)) {}

AapcPlan::AapcPlan(const Options& o, BuiltSchedule built)
    : Plan(built.schedule.geometry(), o.target),
      permutation_(plan_aapc_permutation(o.permutation, built.schedule.geometry(), built.schedule.d)) {
  Job job;
  job.schedule = std::move(built.schedule);
  job.stats = std::move(built.stats);
  job.f = permutation_.f;
  job.g = permutation_.g;
  job.destination = permutation_.destination;
  job.permutation = to_string(o.permutation);
  job.formula = permutation_.formula;
  job.destination_form = permutation_.destination_form;
  set_job(std::move(job));
  set_scratch_bytes(job_alignments_copy() ? data_bytes() : 0);
}

// The schedule was checked once, when it was built: here it only runs.
void AapcPlan::run(Machine& machine, const Machine::Progress& progress) { run_job(machine, progress); }

// --- PermutePlan -------------------------------------------------------------

PermutePlan::PermutePlan(const Options& o)
    : PermutePlan(o, analyse_sdp(o.perm, o.n, o.m, o.cost, o.subcube_dims)) {}

PermutePlan::PermutePlan(const Options& o, SdpProblem problem)
    : PermutePlan(o, std::move(problem), std::optional<std::vector<SdpCandidate>>{}) {}

PermutePlan::PermutePlan(const Options& o, SdpProblem problem, std::vector<SdpCandidate> candidates)
    : PermutePlan(o, std::move(problem), std::optional<std::vector<SdpCandidate>>{std::move(candidates)}) {}

PermutePlan::PermutePlan(const Options& o, SdpProblem problem, std::optional<std::vector<SdpCandidate>> candidates)
    : Plan(Geometry{problem.perm.n, problem.perm.m}, o.target), problem_(std::move(problem)), fused_(o.fused) {
  const DimensionPermutation perm = problem_.perm;
  const Geometry geo = geometry();
  Job job;
  job.f = AffineMap(geo);
  job.g = AffineMap(geo);
  job.destination = [perm](std::uint64_t g) { return perm.apply(g); };
  job.permutation = "dimension-permutation";
  job.formula = fmt::format("source address bit i to bit p_i: {}", perm_text(perm));
  job.destination_form = AffineAddressMap::permute_bits(perm.to);
  if (fused_) {
    if (o.algorithm != SdpAlgorithm::automatic)
      throw Error("PermutePlan::Options::fused runs no routing algorithm: drop PermutePlan::Options::algorithm");
    set_scratch_bytes(data_bytes());
    job.one_step = "fused permutation";
    set_job(std::move(job));
    return;
  }
  candidates_ = candidates ? std::move(*candidates) : sdp_candidates(problem_);
  chosen_ = &choose_sdp(candidates_, o.algorithm, o.cost.ports);
  const SdpPlan& plan = *chosen_->plan;
  set_scratch_bytes(sdp_scratch_bytes(plan, data_bytes(), info(type()).bytes));
  job.schedule = plan.schedule;
  job.stats = check_schedule(plan.schedule);
  if (runs_as_schedule(plan)) {
    job.g = AffineMap::permute_bits(geo, plan.local_after);
  } else {
    // A1' and the extended cube run on a machine of their own geometry (run_sdp_plan).
    job.untraceable = fmt::format(
        "RunOptions::trace is not available for {}: it runs on a machine of its own geometry (n = {}, m = {}); save "
        "the "
        "schedule instead",
        plan.algorithm, plan.schedule.n, plan.schedule.m);
  }
  set_job(std::move(job));
}

void PermutePlan::run(Machine& machine, const Machine::Progress& progress) {
  if (fused_) {
    machine.permute_address_bits(problem_.perm.to);
    return;
  }
  const SdpPlan& plan = *chosen_->plan;
  if (runs_as_schedule(plan)) {
    run_job(machine, progress);
  } else {
    run_sdp_plan(machine, plan, progress);
  }
}

// --- MultiAapcPlan -----------------------------------------------------------

namespace {

// The run a sequence of AAPCs makes, with its texts (Johnsson & Ho 1992, sec. 2.3, 4.1, 4.2).
Job multi_aapc_job(const MultiAapcDesign& p, bool sequential) {
  const unsigned s_axes = p.options.axes;
  Job job;
  job.schedule = make_multi_aapc_schedule(p);
  job.stats = check_schedule(job.schedule);
  const Geometry geo = job.schedule.geometry();
  job.f = AffineMap(geo);
  job.g = AffineMap(geo);
  std::string sum = "a_1";
  for (unsigned u = 2; u <= s_axes; ++u) sum += fmt::format(" xor a_{}", u);
  const std::vector<unsigned>& order = p.order;
  const std::string start = shuffle_state(order, 0), axes = start.substr(0, start.find('|') + 1);
  job.destination = multi_aapc_destination(p);
  job.permutation = "generalized-shuffle";
  job.formula = shuffle_state(order, 0) + " -> " + shuffle_state(order, s_axes);
  // Lemma 1: x = a_0 xor a_1 xor ... xor a_s, the paper's "mod 2 add".
  job.pre_text = fmt::format("{}a_0) -> {}a_0 xor {}): the mod 2 add, one for all {} AAPC{} (Lemma 1)", axes, axes,
                             sum, s_axes, s_axes == 1 ? "" : "s");
  job.post_text = "(..|x) -> (..|x xor the node's axes): the mod 2 add again (Lemma 1)";
  // The shuffle moves bit fields: affine, read off at 0 and the single bits.
  job.destination_form = AffineAddressMap::of(job.destination, geo.address_bits());
  if (p.kind == MultiAapcKind::unequal) {
    job.formula += fmt::format(", axis orders {} (axis u swaps with the low d_u memory bits)", fmt::join(p.dims, ","));
    job.pre_text = "memory bit b ^= bit b of every axis of order > b: the mod 2 add for axes of unequal order";
    job.post_text = "the same mod 2 add";
  } else if (p.kind == MultiAapcKind::concurrent) {
    job.pre_text = fmt::format(
        "(..|v,i) -> (..|q,p), q = v xor {} (stored so that q and ~q share a row), p = i xor {}: Lemma 1 on both "
        "memory axes",
        sum, sum);
    job.post_text = "(..|q,p) -> (..|v,i): i = p xor the node's axes, v = q xor p xor a_1";
  }
  if (sequential && p.kind == MultiAapcKind::sequence) {
    job.aapc_cycles = job.schedule.cycles() / s_axes;
    for (unsigned t = 0; t < s_axes; ++t)
      job.aapc_notes.push_back(fmt::format("axis {} exchanged with the memory axis, {} (addresses still aligned)",
                                           order[t], shuffle_state(order, t + 1)));
  }
  return job;
}

}  // namespace

MultiAapcPlan::MultiAapcPlan(const Options& o) : MultiAapcPlan(o, plan_multi_aapc(o.request)) {}

MultiAapcPlan::MultiAapcPlan(const Options& o, MultiAapcDesign design)
    : Plan(Geometry{design.n, design.m}, o.target), design_(std::move(design)) {
  set_job(multi_aapc_job(design_, o.request.sequential));
  set_scratch_bytes(job_alignments_copy() ? data_bytes() : 0);
}

void MultiAapcPlan::run(Machine& machine, const Machine::Progress& progress) { run_job(machine, progress); }

// --- SchedulePlan ------------------------------------------------------------

namespace {

Job schedule_file_job(const SchedulePlan::Options& o) {
  Job job;
  job.schedule = load_schedule(o.path, &job.stats);  // checked: nothing runs on a bad file
  const Schedule& sch = job.schedule;
  if (o.d && *o.d != static_cast<long long>(sch.d))
    throw Error(
        fmt::format("schedule file {} is for d = {}, SchedulePlan::Options::d asks for {}", o.path, sch.d, *o.d));
  const AffineMap id(sch.geometry());
  job.f = id;
  job.g = id;
  // The result is checked against what the header names, written from its
  // formula; a file that names nothing runs unverified and says so.
  std::optional<NamedPermutation> named = named_permutation(sch);
  job.permutation = "as-scheduled";
  job.formula = "(the file names no permutation: not verified)";
  if (named) {
    job.destination = std::move(named->destination);
    job.permutation = std::move(named->name);
    job.formula = std::move(named->formula);
    job.destination_form = std::move(named->destination_form);
  }
  return job;
}

}  // namespace

SchedulePlan::SchedulePlan(const Options& o) : SchedulePlan(schedule_file_job(o), o.target, true) {}

SchedulePlan::SchedulePlan(Job job, const PlanTarget& target) : SchedulePlan(std::move(job), target, false) {}

SchedulePlan::SchedulePlan(Job job, const PlanTarget& target, bool checked) : Plan(job.schedule.geometry(), target) {
  // A schedule from elsewhere is checked here, once, before it can run (a file is checked as it loads).
  if (!checked) job.stats = check_schedule(job.schedule);
  set_job(std::move(job));
  set_scratch_bytes(job_alignments_copy() ? data_bytes() : 0);
}

void SchedulePlan::run(Machine& machine, const Machine::Progress& progress) { run_job(machine, progress); }

// --- DistributedFftPlan ------------------------------------------------------

namespace {

constexpr unsigned kFftTileDims = 5;

Geometry fft_geometry(const DistributedFftPlan::Options& o) {
  check_fft_sizes(o.points_log2, o.nodes_log2);
  if (o.target.type != ElementType::c64 && o.target.type != ElementType::c128)
    throw Error(fmt::format("an FFT needs complex64 or complex128 points: the plan asks for {}",
                            info(o.target.type).name));
  const unsigned n = static_cast<unsigned>(o.nodes_log2);
  return Geometry{n, static_cast<unsigned>(o.points_log2) - n};
}

}  // namespace

DistributedFftPlan::DistributedFftPlan(const Options& o)
    : Plan(fft_geometry(o), o.target), options_(o.fft), plan_(plan_fft(geometry().n, geometry().m, o.fft.order)) {
  // The library's local transforms gather into scratch; alignments that are no involution copy through it.
  set_scratch_bytes(data_bytes());
  // A plan that routes runs in tiles, as the schedules' plans do: row-major
  // storage makes each exchange word a strided access. Tiles of 2^5 nodes
  // keep runs of 512 bytes for the exchanges while a local transform's rows
  // still share cache lines (docs/performance.md compares 2^0..2^8).
  if (plan_.aapcs() > 0) set_tile_dims(std::min(geometry().n, kFftTileDims));
}

std::uint64_t DistributedFftPlan::result_address(std::uint64_t k) const {
  const unsigned q = geometry().address_bits();
  // fft_result_address(i) holds element i of the result: X[i] in natural order, X[rev(i)] bit-reversed.
  const std::uint64_t i = options_.order == FftOrder::natural ? k : reverse_bits(k, q);
  return fft_result_address(i, geometry().n, geometry().m, options_.order);
}

void DistributedFftPlan::run(Machine& machine, const Machine::Progress&) { report_ = distributed_fft(machine, plan_, options_); }

// --- RedistributePlan --------------------------------------------------------

namespace {

RedistributionPlacement placement_of(const RedistributePlan::Options& o) {
  Redistribution r = o.problem;
  if (r.N == 0) {
    // One superblock: the shortest array on which every pair of processors meets.
    r.N = r.unit();
    check_redistribution(r);
    r.N = redistribution_params(r).L * r.unit();
  }
  check_redistribution(r);
  RedistributionPlacement pl = place_redistribution(r, o.overlap);
  if (o.dims && *o.dims < 0)
    throw Error(
        fmt::format("RedistributePlan::Options::dims {} out of range: allowed 0..40, or left out for the fewest that "
                    "hold the processors",
                    *o.dims));
  if (o.dims) {
    const std::uint64_t nodes = o.overlap ? std::max(r.P, r.Q) : r.P + r.Q;
    if (*o.dims > 40 || bit(static_cast<unsigned>(*o.dims)) < nodes)
      throw Error(fmt::format(
          "{} = {} processors do not fit a {}-cube of {} nodes: allowed RedistributePlan::Options::dims {}..40{}",
          o.overlap ? "max(P, Q)" : "P + Q", nodes, *o.dims,
          *o.dims > 40 ? std::string("(too many)") : std::to_string(bit(static_cast<unsigned>(*o.dims))), pl.n,
          o.overlap ? "" : ", or RedistributePlan::Options::overlap to share nodes"));
    pl.n = static_cast<unsigned>(*o.dims);
  }
  return pl;
}

}  // namespace

RedistributePlan::RedistributePlan(const Options& o) : RedistributePlan(o, placement_of(o)) {}

RedistributePlan::RedistributePlan(const Options& o, RedistributionPlacement placement)
    : Plan(Geometry{placement.n, placement.m}, o.target), placement_(std::move(placement)) {
  const auto& names = redistribution_schedule_names();
  if (std::find(names.begin(), names.end(), o.schedule) == names.end())
    throw Error(fmt::format("RedistributePlan::Options::schedule '{}' unknown: allowed {}", printable_input(o.schedule),
                            fmt::join(names, ", ")));
  // The machine and the schedule's tables of one superblock, refused before either is made.
  const Redistribution& r = placement_.r;
  check_run_fits(fmt::format("R_{}({}, {}, {}) on N = {}", r.x, r.P, r.K, r.Q, r.N), geometry(), type(), backend(),
                 {{"its router program of one superblock", redistribution_program_bytes(r), false}});
  schedule_ = make_redistribution_schedule(r, o.schedule);
  check_redistribution_schedule(r, schedule_);
  // The direct run moves every block straight to its place: no scratch. (A
  // traced run's pack and unpack take a region's scratch, which the machine makes.)
  set_scratch_bytes(0);
}

void RedistributePlan::run(Machine& machine, const Machine::Progress&) { report_ = run_redistribution(machine, placement_, schedule_); }

RedistributionReport RedistributePlan::execute_traced(Machine& machine, const RedistStepDone& after_step) {
  report_ = run_redistribution(machine, placement_, schedule_, after_step);
  return report_;
}

// --- Typed plans ----------------------------------------------------------------

unsigned log2_of_count(std::uint64_t count, const char* what) {
  const unsigned q = ceil_log2(count);
  if (count < 2 || q > 62 || bit(q) != count)
    throw Error(fmt::format("{} = {} is not a power of two: allowed 2, 4, ..., 2^62", what, count));
  return q;
}

std::vector<unsigned> transpose_address_bits(const std::vector<std::uint64_t>& extents, const std::vector<int>& axes) {
  const std::size_t r = extents.size();
  if (r == 0) throw Error("extents is empty: give the array's extents, each a power of two");
  if (axes.size() != r)
    throw Error(fmt::format("axes has {} entries: the array has {} axes (extents)", axes.size(), r));
  std::vector<unsigned> width(r);
  unsigned q = 0;
  for (std::size_t k = 0; k < r; ++k) {
    const std::uint64_t e = extents[k];
    if (e == 0 || (e & (e - 1)) != 0)
      throw Error(fmt::format("extents[{}] = {} is not a power of two: allowed 1, 2, 4, ...", k, e));
    width[k] = ceil_log2(e);
    q += width[k];
    if (q > 62) throw Error(fmt::format("extents hold 2^{} elements or more: allowed at most 2^62", q));
  }
  if (q == 0) throw Error("extents hold one element: allowed 2 or more");
  std::vector<bool> seen(r, false);
  for (const int a : axes) {
    if (a < 0 || static_cast<std::size_t>(a) >= r || seen[static_cast<std::size_t>(a)])
      throw Error(fmt::format("axes = ({}) is not a permutation of 0..{}", fmt::join(axes, ", "), r - 1));
    seen[static_cast<std::size_t>(a)] = true;
  }
  // C order: axis k's bits sit above those of every later axis. Source axis axes[i]
  // becomes result axis i, its bits in their order (a stable dimension permutation).
  std::vector<unsigned> low_bit(r, 0);  // of each source axis
  for (std::size_t k = r - 1; k-- > 0;) low_bit[k] = low_bit[k + 1] + width[k + 1];
  std::vector<unsigned> to(q);
  unsigned next = q;  // result axis i's bits end below those of result axes before it
  for (std::size_t i = 0; i < r; ++i) {
    const auto src = static_cast<std::size_t>(axes[i]);
    next -= width[src];
    for (unsigned t = 0; t < width[src]; ++t) to[low_bit[src] + t] = next + t;
  }
  return to;
}

PermutePlan::Options transpose_options(const std::vector<std::uint64_t>& extents, const std::vector<int>& axes,
                                       ElementType type, BackendChoice backend) {
  const std::vector<unsigned> to = transpose_address_bits(extents, axes);
  const auto q = static_cast<long long>(to.size());
  PermutePlan::Options o;
  o.perm = fmt::format("{}", fmt::join(to, ","));
  // Any split of the address serves one fused pass; the machine's nodes take the high half.
  o.m = (q + 1) / 2;
  o.n = q - o.m;
  o.fused = true;
  o.target = {type, backend};
  return o;
}

}  // namespace hcube

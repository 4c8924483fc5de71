#include "hcube/emulator/fft.hpp"

#include <fftw3.h>
#include <fmt/format.h>

#include <limits>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc_sequence.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {
namespace {

// An alignment as a map of whole global addresses: (j|i) -> (j | M i xor C j xor c).
BitAffine address_map(const AffineMap& a) {
  const Geometry& geo = a.geometry();
  BitAffine r = BitAffine::identity(geo.address_bits());
  for (unsigned b = 0; b < geo.m; ++b) r.columns[b] = a.mem_columns()[b];
  for (unsigned k = 0; k < geo.n; ++k) r.columns[geo.m + k] = bit(geo.m + k) | a.node_columns()[k];
  r.constant = a.constant();
  return r;
}

// The routing cycles of one AAPC in aligned coordinates: the word at local
// address x crosses node dimension nodes[k] exactly when bit k of x is set
// (its relative address), keeping its address.
BitAffine aapc_cycles_map(const Geometry& geo, const std::vector<unsigned>& nodes) {
  BitAffine r = BitAffine::identity(geo.address_bits());
  for (unsigned k = 0; k < nodes.size(); ++k) r.columns[k] |= bit(geo.m + nodes[k]);
  return r;
}

// AAPC t of a sequence with Lemma 1's single alignment (host/aapc_sequence.hpp),
// on axis u of d = m bits: the relative address is x xor the node's other axes.
BitAffine sequence_cycles_map(const Geometry& geo, unsigned u, unsigned axes) {
  const unsigned d = geo.m;
  BitAffine r = BitAffine::identity(geo.address_bits());
  for (unsigned k = 0; k < d; ++k) {
    r.columns[k] |= bit(geo.m + u * d + k);
    for (unsigned w = 0; w < axes; ++w)
      if (w != u) r.columns[geo.m + w * d + k] |= bit(geo.m + u * d + k);
  }
  return r;
}

template <class M>
void check_fft_machine(const M& machine) {
  if (machine.type() != ElementType::c64 && machine.type() != ElementType::c128)
    throw Error(fmt::format("an FFT needs complex64 or complex128 points: the machine holds {}",
                            info(machine.type()).name));
  const Geometry& geo = machine.geometry();
  if (geo.m < 1)
    throw Error(fmt::format("an FFT of 2^{} points on 2^{} nodes: each node needs at least 2 points (n <= {})",
                            geo.address_bits(), geo.n, geo.address_bits() == 0 ? 0 : geo.address_bits() - 1));
}

}  // namespace

AffineTables fft_index_tables(const BitAffine& index, unsigned m) {
  AffineTables t;
  const std::vector<std::uint64_t> mem(index.columns.begin(), index.columns.begin() + m);
  const std::vector<std::uint64_t> node(index.columns.begin() + m, index.columns.end());
  t.mem = byte_tables(mem, t.mem_bytes);
  t.node = byte_tables(node, t.node_bytes);
  t.constant = index.constant;
  return t;
}

namespace {

// One machine as an FftMachine.
class WholeMachine : public FftMachine {
 public:
  explicit WholeMachine(Machine& machine) : machine_(machine) {}
  const Geometry& geometry() const override { return machine_.geometry(); }
  ElementType type() const override { return machine_.type(); }
  void fft_stage(unsigned mem_bit, unsigned index_bit, const BitAffine& index, bool inverse) override {
    machine_.fft_stage(mem_bit, index_bit, fft_index_tables(index, machine_.geometry().m), inverse);
  }
  void fft_block(unsigned lo, unsigned h, std::uint64_t group_bits, const BitAffine& index, bool inverse) override {
    machine_.fft_block(lo, h, group_bits, fft_index_tables(index, machine_.geometry().m), inverse);
  }
  void fft_block_then_align(unsigned lo, unsigned h, std::uint64_t group_bits, const BitAffine& index, bool inverse,
                            const AffineMap& map) override {
    machine_.fft_block_then_align(lo, h, group_bits, fft_index_tables(index, machine_.geometry().m), inverse, map);
  }
  void align(const AffineMap& map) override { machine_.align(map); }
  void run_cycles(const Schedule& schedule) override { machine_.run_cycles(schedule); }
  Counters counters() const override { return machine_.counters(); }
  std::string dft_library() const override { return machine_.dft_library(); }

 private:
  Machine& machine_;
};

}  // namespace

// Runs a plan's steps on a machine, keeping track of where every logical
// index is (`where`: logical index -> global address, for the steps that have
// run). An alignment the next step may absorb is held back (`pending`) and
// composed with the next one: an AAPC's post-alignment with the next
// pre-alignment, the last one with the final memory order. In sequence mode
// the AAPCs of a plan that exchanges the memory axis with each m-bit node axis
// once run as one make_aapc_sequence schedule with Lemma 1's single pair of
// alignments, the stages between them running at the aligned addresses.
class FftRunner {
 public:
  FftRunner(FftMachine& machine, FftPlan plan, AapcAlgorithm algorithm, bool allow_sequence)
      : machine_(machine),
        geo_(machine.geometry()),
        plan_(std::move(plan)),
        algorithm_(algorithm),
        where_(plan_.initial) {
    if (allow_sequence) plan_sequence();
  }

  const FftPlan& plan() const { return plan_; }
  const BitAffine& where() const { return where_; }
  bool sequence_mode() const { return !order_.empty(); }

  void run_step(const FftStep& step, bool inverse) {
    if (step.kind == FftStep::Kind::stage)
      stage(step.index_bit, inverse);
    else if (sequence_mode())
      sequence_aapc(step);
    else
      single_aapc(step);
  }

  void stage(unsigned b, bool inverse) {
    run_held_block();
    machine_.fft_stage(local_bit(b), b, where_.inverse(), inverse);
  }

  // The stages on index bits hi .. lo at once, through the backend's DFT
  // library. held: run with the next alignment, fused into the block's
  // stores, when one comes before anything else touches the words.
  void block(unsigned hi, unsigned lo, bool inverse, bool held = false) {
    if (hi < lo) throw Error(fmt::format("FFT block on index bits {} .. {}: hi below lo", hi, lo));
    run_held_block();
    std::uint64_t group = 0;
    for (unsigned b = lo; b <= hi; ++b) group |= bit(local_bit(b));
    held_ = HeldBlock{lo, hi - lo + 1, group, inverse};
    if (!held) run_held_block();
  }

  // Runs the held-back alignment, if any, and the held block: the two fused
  // when both are there (the block's results written where the alignment
  // sends them: one pass instead of two).
  void flush() {
    const bool moves = pending_ && !pending_->is_identity();
    if (moves && held_) {
      machine_.fft_block_then_align(held_->lo, held_->h, held_->group, where_.inverse(), held_->inverse, *pending_);
      held_.reset();
    } else {
      run_held_block();
      if (moves) machine_.align(*pending_);
    }
    if (moves) where_ = where_.then(address_map(*pending_));
    pending_.reset();
  }

  // The final memory order, then everything held back; checks the result's place.
  void finish() {
    defer(AffineMap::permute_bits(geo_, plan_.final_memory));
    flush();
    if (!(where_ == plan_.target)) throw Error("internal: the FFT's data motion did not end in the planned order");
  }

 private:
  struct HeldBlock {
    unsigned lo, h;
    std::uint64_t group;
    bool inverse;
  };

  void defer(const AffineMap& a) { pending_ = pending_ ? pending_->then(a) : a; }

  void run_held_block() {
    if (!held_) return;
    const HeldBlock b = *held_;
    held_.reset();
    machine_.fft_block(b.lo, b.h, b.group, where_.inverse(), b.inverse);
  }

  // The local address bit that holds index bit b now; throws when b is not local.
  unsigned local_bit(unsigned b) const {
    if (b >= geo_.address_bits())
      throw Error(fmt::format("index bit {} out of range: the FFT has {} bits", b, geo_.address_bits()));
    const std::uint64_t col = where_.columns[b];
    if (popcount(col) != 1 || col >= bit(geo_.m))
      throw Error(fmt::format("index bit {} is not in local memory now: its butterflies span nodes", b));
    return where_.bit_target(b);
  }

  // f of an AAPC: its memory bits to 0 .. d-1 in the order of its node bits, the others above.
  AffineMap memory_order(const FftStep& step) const {
    std::vector<unsigned> perm(geo_.m, geo_.m);
    unsigned next = 0;
    for (const FftSwap& w : step.swaps) perm[w.mem_bit] = next++;
    for (unsigned a = 0; a < geo_.m; ++a)
      if (perm[a] == geo_.m) perm[a] = next++;
    return AffineMap::permute_bits(geo_, perm);
  }

  static AffineMap inverse_permutation(const Geometry& geo, const AffineMap& p) {
    std::vector<unsigned> inv(geo.m);
    for (unsigned b = 0; b < geo.m; ++b) inv[static_cast<unsigned>(__builtin_ctzll(p.mem_columns()[b]))] = b;
    return AffineMap::permute_bits(geo, inv);
  }

  // One AAPC on the step's node bits: (j|i) -> (f(i)|g(j)), f and g the memory order and back.
  void single_aapc(const FftStep& step) {
    const unsigned d = static_cast<unsigned>(step.swaps.size());
    std::vector<unsigned> nodes, mems;
    for (unsigned k = 0; k < d; ++k) {
      nodes.push_back(step.swaps[k].node_bit);
      mems.push_back(k);
    }
    const AffineMap f = memory_order(step), g = inverse_permutation(geo_, f);
    const AffineMap x = AffineMap::xor_align(geo_, nodes, mems);
    auto it = schedules_.find(d);
    if (it == schedules_.end()) {
      AapcOptions o;
      o.algorithm = algorithm_;
      o.d = d;
      o.n = d;
      o.m = geo_.m;
      Schedule s = make_aapc_schedule(o);
      check_schedule(s);  // a complete AAPC on dimensions 0 .. d-1
      it = schedules_.emplace(d, std::move(s)).first;
    }
    const Schedule& base = it->second;
    Schedule sch = base.header();
    sch.n = geo_.n;
    sch.pre = sch.post = AlignmentKind::none;
    sch.reserve(base.cycles(), base.exchanges());
    for (std::size_t c = 0; c < base.cycles(); ++c) {
      for (std::size_t e = 0; e < base.cycle_size(c); ++e) {
        Exchange ex = base.cycle_begin(c)[e];
        ex.dim = nodes[ex.dim];
        sch.add(ex);
      }
      sch.end_cycle();
    }
    defer(f.then(x));
    flush();
    machine_.run_cycles(sch);
    where_ = where_.then(aapc_cycles_map(geo_, nodes));
    defer(x.then(g));
  }

  // The plan is the generalized shuffle when its AAPCs exchange all m memory
  // bits with each m-bit node axis u once, memory bit pi(k) with node bit
  // u m + k for one pi: then f = pi's order before the first, g after the last.
  void plan_sequence() {
    const unsigned m = geo_.m;
    std::vector<const FftStep*> aapcs;
    for (const FftStep& s : plan_.steps)
      if (s.kind == FftStep::Kind::aapc) aapcs.push_back(&s);
    if (aapcs.size() < 2 || geo_.n != aapcs.size() * m) return;
    std::vector<unsigned> order;
    std::vector<bool> seen(aapcs.size(), false);
    for (const FftStep* s : aapcs) {
      if (s->swaps.size() != m) return;
      const unsigned u = s->swaps[0].node_bit / m;
      if (u >= aapcs.size() || seen[u]) return;
      for (unsigned k = 0; k < m; ++k)
        if (s->swaps[k].node_bit != u * m + k || s->swaps[k].mem_bit != aapcs[0]->swaps[k].mem_bit) return;
      seen[u] = true;
      order.push_back(u);
    }
    AapcSequenceOptions o;
    o.algorithm = algorithm_;
    o.d = m;
    o.axes = static_cast<unsigned>(aapcs.size());
    o.m = m;
    o.pipelined = false;  // stages run between the AAPCs
    o.order = order;
    sequence_ = make_aapc_sequence(o);
    check_schedule(sequence_);
    // The cycles of AAPC t: the t-th run of cycles on axis order[t].
    std::size_t c = 0;
    for (unsigned t = 0; t < order.size(); ++t) {
      const std::size_t first = c;
      while (c < sequence_.cycles() && sequence_.cycle_size(c) > 0 && sequence_.cycle_begin(c)[0].dim / m == order[t]) ++c;
      if (c == first) throw Error("internal: an AAPC sequence is not in the planned order");
      ranges_.emplace_back(first, c);
    }
    if (c != sequence_.cycles()) throw Error("internal: an AAPC sequence has cycles beyond its AAPCs");
    seq_f_ = memory_order(*aapcs[0]);
    order_ = std::move(order);
  }

  void sequence_aapc(const FftStep&) {
    const std::size_t t = next_aapc_++;
    const unsigned axes = static_cast<unsigned>(order_.size());
    if (t > 0) run_held_block();  // no alignment between a sequence's AAPCs to fuse it with
    if (t == 0) {
      for (const AlignmentStep& a : schedule_pre_alignment(sequence_, *seq_f_)) defer(a.map);
      flush();
    }
    machine_.run_cycles(sequence_.cycles_between(ranges_[t].first, ranges_[t].second));
    where_ = where_.then(sequence_cycles_map(geo_, order_[t], axes));
    if (t + 1 == axes)
      for (const AlignmentStep& a : schedule_post_alignment(sequence_, inverse_permutation(geo_, *seq_f_))) defer(a.map);
  }

  FftMachine& machine_;
  Geometry geo_;
  FftPlan plan_;
  AapcAlgorithm algorithm_;
  BitAffine where_;
  std::optional<AffineMap> pending_;
  std::optional<HeldBlock> held_;  // a block waiting for the alignment after it
  std::map<unsigned, Schedule> schedules_;  // single AAPCs on dimensions 0 .. d-1, by d
  // Sequence mode.
  std::vector<unsigned> order_;
  Schedule sequence_;
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;
  std::optional<AffineMap> seq_f_;
  std::size_t next_aapc_ = 0;
};

// Checks P and n before anything is read or allocated.
void check_fft_sizes(long long points_log2, long long nodes_log2) {
  if (points_log2 < 1 || points_log2 > kMaxPointsLog2)
    throw Error(
        fmt::format("DistributedFftPlan::Options::points_log2 {} out of range: allowed 1..{} (2 to 2^{} points)",
                    points_log2, kMaxPointsLog2, kMaxPointsLog2));
  const long long P = points_log2, n = nodes_log2;
  if (n < 0)
    throw Error(fmt::format("DistributedFftPlan::Options::nodes_log2 {} out of range: allowed 0..{} for 2^{} points", n,
                            P - 1, P));
  if (n > P)
    throw Error(fmt::format(
        "DistributedFftPlan::Options::nodes_log2 {}: 2^{} nodes for 2^{} points, more nodes than points; allowed 0..{} "
        "(at least 2 points per node)",
        n, n, P, P - 1));
  if (n == P)
    throw Error(
        fmt::format("DistributedFftPlan::Options::nodes_log2 {}: 2^{} nodes for 2^{} points leaves one point per node; "
                    "allowed 0..{} (the local butterflies need at least 2 points per node)",
                    n, n, P, P - 1));
}

LocalTransform parse_local_transform(const std::string& s) {
  if (s == "library") return LocalTransform::library;
  if (s == "radix-2" || s == "radix2") return LocalTransform::radix2;
  throw Error(fmt::format("local transform '{}' unknown: allowed library, radix-2", printable_input(s)));
}

FftReport distributed_fft(Machine& machine, const FftOptions& options) {
  check_fft_machine(machine);
  const Geometry geo = machine.geometry();
  return distributed_fft(machine, plan_fft(geo.n, geo.m, options.order), options);
}

FftReport distributed_fft(Machine& machine, const FftPlan& plan, const FftOptions& options) {
  WholeMachine whole(machine);
  return distributed_fft(whole, plan, options);
}

FftReport distributed_fft(FftMachine& machine, const FftPlan& plan, const FftOptions& options) {
  check_fft_machine(machine);
  const Geometry geo = machine.geometry();
  if (plan.n != geo.n || plan.m != geo.m || plan.order != options.order)
    throw Error(fmt::format("FFT plan for n = {}, m = {}, {} order: the machine has n = {}, m = {} and {} order asked",
                            plan.n, plan.m, to_string(plan.order), geo.n, geo.m, to_string(options.order)));
  const auto start = std::chrono::steady_clock::now();
  const Counters before = machine.counters();
  FftRunner runner(machine, plan, options.algorithm, true);
  const bool library = options.local == LocalTransform::library;
  unsigned blocks = 0;
  for (const FftSegment& seg : runner.plan().segments()) {
    for (std::size_t i = seg.first_step; i < seg.stage_step; ++i) runner.run_step(runner.plan().steps[i], options.inverse);
    if (seg.stage_step == seg.end_step) continue;
    if (library) {
      runner.block(seg.hi, seg.lo, options.inverse, true);
      ++blocks;
    } else {
      for (std::size_t i = seg.stage_step; i < seg.end_step; ++i) runner.run_step(runner.plan().steps[i], options.inverse);
    }
  }
  runner.finish();
  const Counters after = machine.counters();
  FftReport r;
  r.stages = runner.plan().stages();
  r.aapcs = runner.plan().aapcs();
  r.aapc_dims = runner.plan().aapc_dims();
  r.single_alignment_pair = runner.sequence_mode();
  r.local_transforms = blocks;
  r.local_library = library ? machine.dft_library() : "radix-2";
  r.alignments = after.alignments - before.alignments;
  r.cycles = after.routing_cycles - before.routing_cycles;
  r.launches = after.kernel_launches - before.kernel_launches;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// --- staging -------------------------------------------------------------------------

namespace {

FftPlan checked_plan(const Machine& machine, FftOrder order) {
  check_fft_machine(machine);
  return plan_fft(machine.geometry().n, machine.geometry().m, order);
}

}  // namespace

struct FftStaging::Impl {
  Impl(Machine& machine, FftOrder order, AapcAlgorithm algorithm)
      : whole(machine),
        runner(whole, checked_plan(machine, order), algorithm, false),
        segments(runner.plan().segments()),
        index(runner.where().inverse()) {}
  WholeMachine whole;
  FftRunner runner;
  std::vector<FftSegment> segments;
  BitAffine index;       // global address -> logical index, now
  std::size_t next = 0;  // the next segment to move to
  bool finished = false;
};

FftStaging::FftStaging(Machine& machine, FftOrder order, AapcAlgorithm algorithm)
    : impl_(std::make_unique<Impl>(machine, order, algorithm)) {}
FftStaging::~FftStaging() = default;

const FftPlan& FftStaging::plan() const { return impl_->runner.plan(); }
const std::vector<FftSegment>& FftStaging::segments() const { return impl_->segments; }

void FftStaging::move_to(std::size_t s) {
  if (impl_->finished) throw Error("FFT staging already finished");
  if (s != impl_->next)
    throw Error(fmt::format("FFT segment {} requested: the next one is {} (of {})", s, impl_->next,
                            impl_->segments.size()));
  const FftSegment& seg = impl_->segments[s];
  for (std::size_t i = seg.first_step; i < seg.stage_step; ++i) impl_->runner.run_step(plan().steps[i], false);
  impl_->runner.flush();
  impl_->index = impl_->runner.where().inverse();
  ++impl_->next;
}

std::uint64_t FftStaging::logical_index(std::uint64_t node, std::uint64_t local) const {
  const Geometry geo{plan().n, plan().m};
  if (node >= geo.nodes() || local >= geo.words_per_node())
    throw Error(fmt::format("word {} of node {} out of range: 2^{} nodes of 2^{} words", local, node, geo.n, geo.m));
  return impl_->index.apply(geo.global(node, local));
}

std::uint64_t FftStaging::address_of(std::uint64_t logical) const { return impl_->runner.where().apply(logical); }

unsigned FftStaging::local_bit(unsigned index_bit) const {
  const BitAffine& w = impl_->runner.where();
  if (index_bit >= w.bits || popcount(w.columns[index_bit]) != 1 || w.columns[index_bit] >= bit(plan().m))
    throw Error(fmt::format("index bit {} is not in local memory now", index_bit));
  return w.bit_target(index_bit);
}

void FftStaging::stage(unsigned index_bit, bool inverse) { impl_->runner.stage(index_bit, inverse); }

void FftStaging::block(unsigned hi, unsigned lo, bool inverse) { impl_->runner.block(hi, lo, inverse); }

void FftStaging::finish() {
  if (impl_->finished) throw Error("FFT staging already finished");
  if (impl_->next != impl_->segments.size())
    throw Error(fmt::format("FFT staging finished after {} of {} segments", impl_->next, impl_->segments.size()));
  impl_->runner.finish();
  impl_->index = impl_->runner.where().inverse();
  impl_->finished = true;
}

// --- data in and out -------------------------------------------------------------------

namespace {

void check_points(std::uint64_t size, const Geometry& geo) {
  if (size != geo.total_words())
    throw Error(fmt::format("{} points given: a machine of 2^{} nodes x 2^{} words holds 2^{} = {}", size, geo.n, geo.m,
                            geo.address_bits(), geo.total_words()));
}

}  // namespace

void load_cyclic(Machine& machine, const std::vector<std::complex<double>>& x) {
  check_fft_machine(machine);
  const Geometry& geo = machine.geometry();
  check_points(x.size(), geo);
  // Straight from x, run by run: global address h holds point cyclic_address(h, m, n), the inverse map.
  const bool wide = machine.type() == ElementType::c128;
  machine.load_runs([&](std::uint64_t g, std::uint64_t words, void* dst) {
    auto* out = static_cast<unsigned char*>(dst);
    for (std::uint64_t k = 0; k < words; ++k) {
      const std::complex<double>& v = x[cyclic_address(g + k, geo.m, geo.n)];
      if (wide) {
        std::memcpy(out + k * 16, &v, 16);
      } else {
        const std::complex<float> f(static_cast<float>(v.real()), static_cast<float>(v.imag()));
        std::memcpy(out + k * 8, &f, 8);
      }
    }
  });
}

std::vector<std::complex<double>> read_result(const Machine& machine, FftOrder order) {
  check_fft_machine(machine);
  const Geometry& geo = machine.geometry();
  const std::vector<unsigned char> bytes = machine.read();
  std::vector<std::complex<double>> y(geo.total_words());
  for (std::uint64_t i = 0; i < y.size(); ++i) {
    const std::uint64_t a = fft_result_address(i, geo.n, geo.m, order);
    if (machine.type() == ElementType::c128) {
      std::memcpy(&y[i], &bytes[a * 16], 16);
    } else {
      std::complex<float> v;
      std::memcpy(&v, &bytes[a * 8], 8);
      y[i] = std::complex<double>(v.real(), v.imag());
    }
  }
  return y;
}

namespace {

std::vector<std::complex<double>> run_fft(const std::vector<std::complex<double>>& x, unsigned nodes_log2,
                                          FftOrder order, BackendChoice backend, ElementType type,
                                          LocalTransform local = LocalTransform::library) {
  const std::uint64_t size = x.size();
  if (size == 0 || (size & (size - 1)) != 0)
    throw Error(fmt::format("{} points: an FFT here needs a power of two", size));
  const unsigned q = static_cast<unsigned>(__builtin_ctzll(size));
  if (nodes_log2 >= q)
    throw Error(fmt::format("2^{} nodes for 2^{} points: allowed nodes_log2 <= {} (at least 2 points per node)",
                            nodes_log2, q, q == 0 ? 0 : q - 1));
  Machine machine(MachineOptions{nodes_log2, q - nodes_log2, type, backend, -1});
  load_cyclic(machine, x);
  FftOptions o;
  o.order = order;
  o.local = local;
  distributed_fft(machine, o);
  return read_result(machine, order);
}

}  // namespace

std::vector<std::complex<double>> hcube_fft(const std::vector<std::complex<double>>& x, unsigned nodes_log2,
                                            FftOrder order, BackendChoice backend) {
  return run_fft(x, nodes_log2, order, backend, ElementType::c128);
}

std::vector<std::complex<float>> hcube_fft(const std::vector<std::complex<float>>& x, unsigned nodes_log2,
                                           FftOrder order, BackendChoice backend) {
  const std::vector<std::complex<double>> wide(x.begin(), x.end());
  const std::vector<std::complex<double>> y = run_fft(wide, nodes_log2, order, backend, ElementType::c64);
  std::vector<std::complex<float>> out(y.size());
  for (std::size_t i = 0; i < y.size(); ++i)
    out[i] = std::complex<float>(static_cast<float>(y[i].real()), static_cast<float>(y[i].imag()));
  return out;
}

// --- the reference ----------------------------------------------------------------------

namespace {

// FFTW's transform of n points from `in` to `out` (the same array: in place).
void fftw_transform(std::complex<double>* in, std::complex<double>* out, std::size_t n, bool inverse) {
  constexpr std::size_t kMax = std::size_t{1} << 30;
  if (n == 0 || n > kMax) throw Error(fmt::format("FFTW reference of {} points out of range: allowed 1..2^30", n));
  // fftw_complex is double[2], laid out as std::complex<double>.
  fftw_plan p = fftw_plan_dft_1d(static_cast<int>(n), reinterpret_cast<fftw_complex*>(in),
                                 reinterpret_cast<fftw_complex*>(out), inverse ? FFTW_BACKWARD : FFTW_FORWARD,
                                 FFTW_ESTIMATE);
  if (p == nullptr) throw Error("FFTW could not plan the reference transform");
  fftw_execute(p);
  fftw_destroy_plan(p);
}

// FFTW's transform of x in place, in options.order: X[rev k] at k for bit-reversed.
void reference_in_place(std::vector<std::complex<double>>& x, const FftOptions& options) {
  fftw_transform(x.data(), x.data(), x.size(), options.inverse);
  if (options.order != FftOrder::bit_reversed) return;
  const unsigned q = static_cast<unsigned>(__builtin_ctzll(x.size()));
  for (std::uint64_t t = 0; t < x.size(); ++t) {
    const std::uint64_t r = reverse_bits(t, q);
    if (t < r) std::swap(x[t], x[r]);  // an involution: each pair swapped once
  }
}

FftCheck checked(double error, ElementType type) {
  FftCheck c{error, fft_tolerance(type)};
  // Written so that a NaN error fails.
  if (!(c.error < c.tolerance))
    throw Error(fmt::format("verification against FFTW failed: max relative error {:.3g} exceeds {:.0e} for {}",
                            c.error, c.tolerance, info(type).name));
  return c;
}

}  // namespace

void FftDifference::add(std::complex<double> x, std::complex<double> ref) {
  const double d = std::abs(x - ref), r = std::abs(ref);
  // std::max drops a NaN in its second argument: a NaN anywhere makes the error NaN.
  if (std::isnan(d) || std::isnan(r)) nan = true;
  diff = std::max(diff, d);
  scale = std::max(scale, r);
}

double FftDifference::relative_error() const {
  if (nan) return std::numeric_limits<double>::quiet_NaN();
  return scale == 0 ? diff : diff / scale;
}

void fft_reference(std::vector<std::complex<double>>& points, const FftOptions& options) {
  reference_in_place(points, options);
}

FftCheck check_fft_difference(const FftDifference& d, ElementType type) { return checked(d.relative_error(), type); }

std::vector<std::complex<double>> fftw_dft(const std::vector<std::complex<double>>& x, bool inverse) {
  std::vector<std::complex<double>> in = x, out(x.size());
  fftw_transform(in.data(), out.data(), x.size(), inverse);
  return out;
}

double max_relative_error(const std::vector<std::complex<double>>& x, const std::vector<std::complex<double>>& ref) {
  if (x.size() != ref.size())
    throw Error(fmt::format("compared vectors differ in length: {} and {}", x.size(), ref.size()));
  FftDifference e;
  for (std::size_t i = 0; i < x.size(); ++i) e.add(x[i], ref[i]);
  return e.relative_error();
}

double fft_tolerance(ElementType type) { return type == ElementType::c128 ? 1e-12 : 1e-4; }

FftCheck verify_fft(const std::vector<std::complex<double>>& x, const std::vector<std::complex<double>>& y,
                    const FftOptions& options, ElementType type) {
  std::vector<std::complex<double>> ref = x;
  reference_in_place(ref, options);
  return checked(max_relative_error(y, ref), type);
}

namespace {

std::complex<double> point_of(ElementType type, const unsigned char* word) {
  if (type == ElementType::c128) {
    std::complex<double> y;
    std::memcpy(&y, word, 16);
    return y;
  }
  std::complex<float> v;
  std::memcpy(&v, word, 8);
  return {v.real(), v.imag()};
}

}  // namespace

FftDifference fft_share_difference(const Machine& share, const Geometry& geo, std::uint64_t first_word,
                                   const std::vector<std::complex<double>>& reference, FftOrder order,
                                   const std::function<void(std::uint64_t i, const unsigned char* word)>& result) {
  check_fft_machine(share);
  check_points(reference.size(), geo);
  // The share's words at the places the result formula gives, gathered a
  // chunk at a time on its backend: no host copy of the storage on a device.
  const std::size_t wb = share.word_bytes();
  const std::uint64_t held = share.geometry().total_words();
  constexpr std::uint64_t chunk = std::uint64_t{1} << 16;
  std::vector<std::uint64_t> places, index;
  std::vector<unsigned char> got;
  FftDifference e;
  for (std::uint64_t i0 = 0; i0 < reference.size(); i0 += chunk) {
    const std::uint64_t words = std::min<std::uint64_t>(chunk, reference.size() - i0);
    places.clear();
    index.clear();
    for (std::uint64_t i = i0; i < i0 + words; ++i) {
      const std::uint64_t a = fft_result_address(i, geo.n, geo.m, order);
      if (a < first_word || a - first_word >= held) continue;
      places.push_back(a - first_word);
      index.push_back(i);
    }
    got.resize(places.size() * wb);
    share.gather(places.data(), places.size(), got.data());
    for (std::size_t k = 0; k < places.size(); ++k) {
      e.add(point_of(share.type(), &got[k * wb]), reference[index[k]]);
      if (result) result(index[k], &got[k * wb]);
    }
  }
  return e;
}

FftCheck verify_fft_in_place(const Machine& machine, std::vector<std::complex<double>>& points,
                             const FftOptions& options) {
  check_fft_machine(machine);
  const Geometry& geo = machine.geometry();
  check_points(points.size(), geo);
  reference_in_place(points, options);
  const FftDifference d = fft_share_difference(machine, geo, 0, points, options.order,
                                               [&](std::uint64_t i, const unsigned char* word) {
                                                 points[i] = point_of(machine.type(), word);
                                               });
  return check_fft_difference(d, machine.type());
}

}  // namespace hcube

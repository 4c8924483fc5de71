#include "hcube/host/sdp_schedules.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"
#include "sdp_rows.hpp"

namespace hcube {

SdpEffort parse_sdp_effort(const std::string& s) {
  if (s == "estimate") return SdpEffort::estimate;
  if (s == "patient") return SdpEffort::patient;
  throw Error(fmt::format("SdpCost::effort '{}' unknown: allowed estimate, patient", printable_input(s)));
}

std::string to_string(SdpEffort e) { return e == SdpEffort::patient ? "patient" : "estimate"; }

namespace {

// E(v, r) as one routing cycle: v a memory bit, r a processor bit of the address (r >= m).
void add_e(Schedule& s, unsigned v, unsigned r) {
  const std::uint64_t K = bit(s.m);
  for (std::uint64_t a = 0; a < K; ++a)
    if (test_bit(a, v)) s.add(Exchange{r - s.m, a, a ^ bit(v)});
  s.end_cycle();
}

using sdp::plan_header;

// Storage bits of virtual cycles move by local_after: memory bit b to to[b].
std::vector<unsigned> virtual_moves(const DimensionPermutation& p, const DimensionPermutationAnalysis& a) {
  std::vector<unsigned> after(p.m);
  std::iota(after.begin(), after.end(), 0u);
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::virtual_)
      for (unsigned b : c.bits) after[b] = p.to[b];
  return after;
}

// The parts' pivot pairs: the K/2 low members (bit 0 clear, the pivot), dealt
// out as evenly as possible, parts[k] = [first, last) of the low members.
std::vector<std::pair<std::uint64_t, std::uint64_t>> deal(std::uint64_t pairs, std::uint64_t parts) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> r;
  std::uint64_t first = 0;
  for (std::uint64_t k = 0; k < parts; ++k) {
    const std::uint64_t size = pairs / parts + (k < pairs % parts ? 1 : 0);
    r.emplace_back(first, first + size);
    first += size;
  }
  return r;
}

// Parts running sequences of processor bits (sdp::kIdle: idle) with memory bit 0
// as the pivot, the pairs {2a, 2a + 1} dealt to the sequences in ranges
// (parts[k] = [first, last) of the low members); in cycle c part k does
// E(0, seq_k[c]) on its own pairs with offset map map(k, c).
Schedule sequences_schedule(Schedule s, const std::vector<std::vector<unsigned>>& seqs,
                            const std::vector<std::pair<std::uint64_t, std::uint64_t>>& parts,
                            const std::function<std::uint32_t(std::size_t, std::size_t)>& map) {
  std::size_t cycles = 0;
  for (const auto& q : seqs) cycles = std::max(cycles, q.size());
  std::uint64_t width = 1;
  for (std::size_t c = 0; c < cycles; ++c) {
    std::vector<std::uint64_t> load(s.n, 0);
    for (std::size_t k = 0; k < seqs.size(); ++k) {
      if (c >= seqs[k].size() || seqs[k][c] == sdp::kIdle) continue;
      const unsigned r = seqs[k][c] - s.m;
      for (std::uint64_t pair = parts[k].first; pair < parts[k].second; ++pair) {
        s.add(Exchange{r, pair << 1 | 1, pair << 1, map(k, c)});
        ++load[r];
      }
    }
    for (std::uint64_t l : load) width = std::max(width, l);
    s.end_cycle();
  }
  if (width > 0xffffffffu) throw Error("internal: an n-port SDP cycle exceeds a channel's width");
  s.rules.channel_width = static_cast<unsigned>(width);
  return s;
}

}  // namespace

namespace {

// A1's chains one after another (one-port).
std::vector<sdp::Step> a1_chains(const DimensionPermutation& p, const DimensionPermutationAnalysis& a) {
  std::vector<sdp::Step> steps;
  for (const auto& chain : sdp::a1_chains(sdp::units_of(p, a, "A1"))) steps.insert(steps.end(), chain.begin(), chain.end());
  return steps;
}

// Exchanges one after another (one-port), a cycle of K/2 words each, and the
// local reordering they leave.
SdpPlan plan_chains(const DimensionPermutation& p, const char* algorithm, const std::vector<sdp::Step>& chains) {
  SdpPlan plan;
  plan.algorithm = algorithm;
  plan.schedule = plan_header(p, algorithm, PortModel::one_port);
  Schedule& s = plan.schedule;
  s.rules.channel_width = p.m == 0 ? 1 : static_cast<unsigned>(std::min<std::uint64_t>(bit(p.m - 1), 0xffffffffu));
  for (const sdp::Step& e : chains) add_e(s, e.pivot, e.bit);
  plan.local_after = sdp::local_after(p, chains, algorithm);
  plan.startups = s.cycles();
  return plan;
}

}  // namespace

SdpPlan plan_a1_one_port(const DimensionPermutation& p) { return plan_chains(p, "A1", a1_chains(p, analyze(p))); }

}  // namespace hcube

namespace hcube {

namespace {

// The machine of A1' and A3 (sec. 3.1, 4.3.2): m + 1 memory bits, the storage
// dimension u the data leaves empty the lowest (so a part, a range of the
// higher bits, realigns on its own), data local bit i at machine bit i + 1.
// A node-dependent offset of u (bit u of the address a node uses is xored
// with the node bits in `offset`) is the alignment u := u xor node bit,
// without a launch; the offsets accumulate and one alignment clears them.
struct EmptyDimension {
  static constexpr unsigned u = 0;
  const DimensionPermutation& p;
  SdpPlan& plan;
  Geometry geo;
  NodeOffsetMap offset;
  unsigned empties;  // 1; 2 for A4' (a second empty dimension, machine bit 1)

  EmptyDimension(const DimensionPermutation& perm, SdpPlan& pl, const char* algorithm, PortModel model,
                 unsigned empty_dims = 1)
      : p(perm), plan(pl), geo{perm.n, perm.m + empty_dims}, offset(perm.n, 0), empties(empty_dims) {
    plan.algorithm = algorithm;
    plan.schedule = plan_header(p, algorithm, model);
    plan.schedule.m = geo.m;
    plan.schedule.d = std::max(1u, std::min(p.n, geo.m));
    for (unsigned i = 0; i < p.q(); ++i) plan.embed.push_back(i + empties);
    plan.schedule.rules.channel_width = static_cast<unsigned>(std::min<std::uint64_t>(bit(p.m), 0xffffffffu));
  }
  void fold(NodeOffsetMap& o, unsigned processor_bit, unsigned empty = u) const {
    o[processor_bit - p.m] ^= bit(empty);
  }
  // The id of offset map o in the schedule (added when new; 1-based).
  std::uint32_t map_id(const NodeOffsetMap& o) {
    Schedule& s = plan.schedule;
    const auto known = std::find(s.offset_maps.begin(), s.offset_maps.end(), o);
    if (known == s.offset_maps.end()) s.offset_maps.push_back(o);
    return static_cast<std::uint32_t>(std::find(s.offset_maps.begin(), s.offset_maps.end(), o) -
                                      s.offset_maps.begin() + 1);
  }
  // The offset map of the current offsets (0: none).
  std::uint32_t current_map() {
    if (std::none_of(offset.begin(), offset.end(), [](std::uint64_t c) { return c != 0; })) return 0;
    Schedule& s = plan.schedule;
    if (s.offset_maps.empty() || s.offset_maps.back() != offset) s.offset_maps.push_back(offset);
    return static_cast<std::uint32_t>(s.offset_maps.size());
  }
  // E(v, r) on the data's words (v a data storage bit): K/2 exchanges a node.
  void exchange(unsigned v, unsigned r) {
    const std::uint32_t map = current_map();
    for (std::uint64_t x = 0; x < bit(p.m); ++x)
      if (test_bit(x, v)) plan.schedule.add(Exchange{r - p.m, x << 1, (x ^ bit(v)) << 1, map});
    plan.schedule.end_cycle();
  }
  // A real cycle alpha_0 -> ... -> alpha_(s-1) by dimension-order routing:
  // u := node bit alpha_(s-1), E(u, alpha_0), ..., E(u, alpha_(s-1)) (alpha_(j-1)'s
  // content to alpha_j, one-way moves of up to K words), u := node bit alpha_0.
  void cycle(const std::vector<unsigned>& bits) {
    fold(offset, bits.back());
    const std::uint32_t map = current_map();
    for (unsigned r : bits) {
      for (std::uint64_t x = 0; x < bit(p.m); ++x) plan.schedule.add(Exchange{r - p.m, (x << 1) | bit(u), x << 1, map});
      plan.schedule.end_cycle();
    }
    fold(offset, bits.front());
  }
  // The order of the permutation cycle through bit b (A6' cuts its rows where a cycle completes).
  std::size_t order_of(unsigned b) const {
    std::size_t k = 1;
    for (unsigned x = p.to[b]; x != b; x = p.to[x]) ++k;
    return k;
  }
  // n-port: row k runs, on words[k] of the data (a range of the higher bits),
  // one real cycle a phase of `phase` routing cycles by dimension-order
  // routing (the phase's steps in order), with offsets of its own; phase 0:
  // a phase ends where the row completes a cycle (A6', whose rounds differ in
  // length). Ranges go to the rows in the order of their final offsets, so
  // rows that end alike realign in one alignment.
  void parts(const std::vector<sdp::Row>& rows, std::size_t phase, const std::vector<std::uint64_t>& words) {
    Schedule& s = plan.schedule;
    std::vector<std::vector<unsigned>> seqs;
    std::vector<std::vector<std::uint32_t>> maps;  // per row, per step
    std::vector<NodeOffsetMap> final_offset;
    for (const sdp::Row& row : rows) {
      std::vector<unsigned> seq;
      std::vector<std::uint32_t> row_maps;
      NodeOffsetMap o(p.n, 0);
      for (std::size_t c0 = 0, c1 = 0; c0 < row.steps.size(); c0 = c1) {
        std::vector<unsigned> bits;
        for (c1 = c0; c1 < row.steps.size() && (phase == 0 || c1 < c0 + phase); ++c1) {
          if (row.steps[c1].bit != sdp::kIdle) bits.push_back(row.steps[c1].bit);
          if (phase == 0 && !bits.empty() && bits.size() == order_of(bits.front())) {
            ++c1;
            break;
          }
        }
        if (!bits.empty()) fold(o, bits.back());
        const std::uint32_t map = map_id(o);
        // Entries are machine address bits: the data's processor bit b is the machine's b + 1.
        for (std::size_t c = c0; c < c1; ++c) {
          seq.push_back(row.steps[c].bit == sdp::kIdle ? sdp::kIdle : row.steps[c].bit + 1);
          row_maps.push_back(map);
        }
        if (!bits.empty()) fold(o, bits.front());
      }
      seqs.push_back(std::move(seq));
      maps.push_back(std::move(row_maps));
      final_offset.push_back(o);
    }
    std::vector<std::size_t> order(rows.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return final_offset[x] < final_offset[y]; });
    std::vector<std::pair<std::uint64_t, std::uint64_t>> range(rows.size());
    std::uint64_t first = 0;
    for (std::size_t k : order) {
      range[k] = {first, first + words[k]};
      first += words[k];
    }
    s = sequences_schedule(std::move(s), seqs, range, [&](std::size_t k, std::size_t c) { return maps[k][c]; });
    for (std::size_t i = 0; i < order.size();) {
      std::size_t j = i;
      while (j < order.size() && final_offset[order[j]] == final_offset[order[i]]) ++j;
      const std::uint64_t lo = range[order[i]].first, hi = range[order[j - 1]].second;
      if (lo < hi) realign(final_offset[order[i]], lo << 1, hi << 1);
      i = j;
    }
  }
  // The alignment back to u = 0 over the machine addresses [lo, hi) (0, 0: all).
  void realign(const NodeOffsetMap& o, std::uint64_t lo, std::uint64_t hi) {
    if (std::none_of(o.begin(), o.end(), [](std::uint64_t c) { return c != 0; })) return;
    std::vector<std::uint64_t> identity(geo.m);
    for (unsigned b = 0; b < geo.m; ++b) identity[b] = bit(b);
    plan.align_after.emplace_back(AffineMap::from_columns(geo, identity, o), lo, hi);
  }
  // The data's local reordering on the machine: data memory bit b is machine bit b + empties; the empty ones stay.
  void finish(std::vector<unsigned> data_local_after) {
    for (unsigned& x : data_local_after) x += empties;
    for (unsigned e = empties; e-- > 0;) data_local_after.insert(data_local_after.begin(), e);
    plan.local_after = std::move(data_local_after);
    plan.startups = plan.schedule.cycles();
  }
};

}  // namespace

SdpPlan plan_a1_prime(const DimensionPermutation& p, bool all_port, SdpEffort effort) {
  const DimensionPermutationAnalysis a = analyze(p);
  if (all_port && !a.separable)
    throw Error("A1' n-port needs a separable permutation (no cycle mixing processor and storage bits): use A1' "
                "one-port, A1 or A2");
  SdpPlan plan;
  EmptyDimension e(p, plan, "A1'", all_port ? PortModel::all_port : PortModel::one_port);
  std::vector<const ShuffleCycle*> real;
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::real) real.push_back(&c);

  if (!all_port) {
    // Mixed and virtual cycles: A1's chains on the data (u = 0, nothing offset yet).
    DimensionPermutation rest = p;
    for (const ShuffleCycle* c : real)
      for (unsigned b : c->bits) rest.to[b] = b;
    const std::vector<sdp::Step> chains = a1_chains(rest, analyze(rest));
    for (const sdp::Step& x : chains) e.exchange(x.pivot, x.bit);
    // Real cycles one after another, then one alignment back to u = 0.
    for (const ShuffleCycle* c : real) e.cycle(c->bits);
    e.realign(e.offset, 0, 0);
    e.finish(sdp::local_after(rest, chains, "A1'"));
    return plan;
  }
  // n-port, two candidates, the one with fewer modelled element transfers
  // kept (ties: the phases, fewer cycles). Blocks (sdp::block_rows): C rows
  // of K/C words, every dimension used by one row a cycle, K words in all
  // (the per-dimension bound, which nothing beats) when C divides K. Phases,
  // as A1 n-port (sec. 3.1, 4.2.1): part i of beta runs cycle (i + t) mod
  // beta in phase t, split over its rotations L^k(J) without the restoring
  // exchange, a cycle shorter than sigma_max spread over the phase: beta
  // sigma_max cycles, about K / (beta sigma_max) words a link each, Table 3's
  // K t_c; the longest cycle's lock-step rotations cannot always split K
  // evenly (1030 on {3, 6} at K = 1024, against the blocks' 1024).
  std::vector<std::vector<unsigned>> bits;
  for (const ShuffleCycle* c : real) bits.push_back(c->bits);
  if (bits.empty()) {
    e.parts({}, a.sigma_max, {});
  } else {
    const std::uint64_t K = bit(p.m);
    const std::vector<sdp::Row> blocks = sdp::block_rows(bits, 0);
    const std::vector<std::uint64_t> block_words = sdp::deal_words(blocks, p, K, effort);
    const std::uint64_t block_cost = sdp::row_transfers(blocks, block_words, p.n, p.m);
    std::vector<sdp::Row> phases;
    std::vector<std::uint64_t> phase_words;
    if (block_cost > K) {
      phases = sdp::round_robin(sdp::rotation_leaves(bits, 0, false));
      phase_words = sdp::deal_words(phases, p, K, effort);
    }
    if (phases.empty() || block_cost < sdp::row_transfers(phases, phase_words, p.n, p.m)) {
      e.parts(blocks, 0, block_words);
    } else {
      e.parts(phases, a.sigma_max, phase_words);
    }
  }
  e.finish(virtual_moves(p, a));
  return plan;
}

namespace {

// A4' and A6' route real cycles through empty dimensions as A1' n-port does
// (sec. 4.6), which needs every cycle real or virtual.
DimensionPermutationAnalysis separable_analysis(const DimensionPermutation& p, const char* algorithm,
                                                const char* instead) {
  DimensionPermutationAnalysis a = analyze(p);
  if (!a.separable)
    throw Error(fmt::format("{} routes through the empty dimension of A1', which needs a separable permutation (no "
                            "cycle mixing processor and storage bits): use {}",
                            algorithm, instead));
  return a;
}

}  // namespace

SdpPlan plan_a4_prime(const DimensionPermutation& p) {
  const DimensionPermutationAnalysis a = separable_analysis(p, "A4'", "A4 or A2");
  SdpPlan plan;
  EmptyDimension e(p, plan, "A4'", PortModel::all_port, 2);
  constexpr unsigned u2 = 1;
  // The concatenation J_0 J_1 ... of the real cycles (sec. 4.6); row k is its
  // rotation by k, so in every cycle the rows sit on distinct dimensions.
  std::vector<std::vector<unsigned>> cycles;
  std::vector<std::pair<std::size_t, std::size_t>> at;  // position -> (cycle, index)
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::real) {
      for (std::size_t j = 0; j < c.bits.size(); ++j) at.emplace_back(cycles.size(), j);
      cycles.push_back(c.bits);
    }
  const std::size_t sp = at.size();
  struct Move {
    unsigned bit, empty;
    std::uint32_t map;
  };
  std::vector<std::vector<Move>> rows(sp);
  std::vector<NodeOffsetMap> final_offset(sp, NodeOffsetMap(p.n, 0));
  std::vector<std::uint64_t> weight(sp, 1);
  for (std::size_t k = 0; k < sp; ++k) {
    const auto [i, j] = at[k];
    NodeOffsetMap& o = final_offset[k];
    // A whole cycle through `empty` by dimension-order routing (as A1').
    const auto route = [&](const std::vector<unsigned>& bits, unsigned empty) {
      e.fold(o, bits.back(), empty);
      for (unsigned r : bits) rows[k].push_back({r, empty, e.map_id(o)});
      e.fold(o, bits.front(), empty);
    };
    if (j == 0) {  // starts at a cycle's head: every cycle whole through u
      for (std::size_t t = 0; t < cycles.size(); ++t) route(cycles[(i + t) % cycles.size()], EmptyDimension::u);
      weight[k] = 2;  // never carries the doubled data: twice the share
      continue;
    }
    // Cycle i from alpha_j on through u; the others, while u holds a content
    // of cycle i (its data doubled on the active nodes), through u2; then
    // cycle i's head through u.
    const std::vector<unsigned>& c = cycles[i];
    e.fold(o, c[j - 1]);
    for (std::size_t x = j; x < c.size(); ++x) rows[k].push_back({c[x], EmptyDimension::u, e.map_id(o)});
    for (std::size_t t = 1; t < cycles.size(); ++t) route(cycles[(i + t) % cycles.size()], u2);
    for (std::size_t x = 0; x < j; ++x) rows[k].push_back({c[x], EmptyDimension::u, e.map_id(o)});
    e.fold(o, c[j]);
  }
  // Words in proportion to the weights, the rest one by one.
  const std::uint64_t K = bit(p.m), total = std::accumulate(weight.begin(), weight.end(), std::uint64_t{0});
  std::vector<std::uint64_t> words(sp);
  std::uint64_t dealt = 0;
  for (std::size_t k = 0; k < sp; ++k) dealt += words[k] = K * weight[k] / total;  // sp > 0: total > 0
  for (std::size_t k = 0; sp > 0 && dealt < K; k = (k + 1) % sp, ++dealt) ++words[k];
  // In cycle c row k does E(empty, bit) on its range of data words: over both
  // values of the other empty bit when that one holds data (u while routing
  // through u2), else over its occupied half (offset 0).
  Schedule& s = plan.schedule;
  std::uint64_t first = 0, width = 1;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> range(sp);
  for (std::size_t k = 0; k < sp; ++k) {
    range[k] = {first, first + words[k]};
    first += words[k];
  }
  for (std::size_t cyc = 0; cyc < sp; ++cyc) {
    std::vector<std::uint64_t> load(p.n, 0);
    for (std::size_t k = 0; k < sp; ++k) {
      const Move& mv = rows[k][cyc];
      const unsigned other = mv.empty == u2 ? EmptyDimension::u : u2;
      const unsigned halves = mv.empty == u2 ? 2 : 1;
      for (std::uint64_t x = range[k].first; x < range[k].second; ++x)
        for (unsigned h = 0; h < halves; ++h) {
          const std::uint64_t base = x << 2 | (h == 0 ? 0 : bit(other));
          s.add(Exchange{mv.bit - p.m, base | bit(mv.empty), base, mv.map});
          ++load[mv.bit - p.m];
        }
    }
    for (std::uint64_t l : load) width = std::max(width, l);
    s.end_cycle();
  }
  if (width > 0xffffffffu) throw Error("internal: an A4' cycle exceeds a channel's width");
  s.rules.channel_width = static_cast<unsigned>(width);
  for (std::size_t k = 0; k < sp; ++k)
    if (words[k] > 0) e.realign(final_offset[k], range[k].first << 2, range[k].second << 2);
  e.finish(virtual_moves(p, a));
  return plan;
}

SdpPlan plan_a6_prime(const DimensionPermutation& p, SdpEffort effort) {
  const DimensionPermutationAnalysis a = separable_analysis(p, "A6'", "A6 or A2");
  // Sec. 4.6: A6's grouping over A1' chains, S = {sigma_i} (no restoring
  // exchange), each real cycle its rotations on the empty dimension.
  SdpPlan plan;
  EmptyDimension e(p, plan, "A6'", PortModel::all_port);
  std::vector<std::vector<unsigned>> bits;
  std::vector<std::uint64_t> orders;
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::real) {
      bits.push_back(c.bits);
      orders.push_back(c.bits.size());
    }
  const std::vector<sdp::Row> rows = sdp::grouped_rows(sdp::rotation_leaves(bits, 0, false), orders, "A6'");
  e.parts(rows, 0, sdp::deal_words(rows, p, bit(p.m), effort));
  e.finish(virtual_moves(p, a));
  return plan;
}

std::vector<std::vector<std::pair<unsigned, unsigned>>> a3_steps(const DimensionPermutationAnalysis& a) {
  // A piece alpha_0..alpha_(s-1) of a cycle is its halves (alpha_0..alpha_(h-1),
  // alpha_h..alpha_(s-1), h = ceil(s/2)), each a cycle of its own, followed by
  // the coupling (alpha_0 alpha_h) (Lemma 8 with two pieces). A coupling goes
  // to the step after its halves' couplings (its height in the recursion).
  std::vector<std::vector<std::pair<unsigned, unsigned>>> steps;
  const std::function<unsigned(const std::vector<unsigned>&)> halve = [&](const std::vector<unsigned>& piece) {
    if (piece.size() < 2) return 0u;
    const std::size_t h = (piece.size() + 1) / 2;
    const unsigned lo = halve({piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(h)});
    const unsigned hi = halve({piece.begin() + static_cast<std::ptrdiff_t>(h), piece.end()});
    const unsigned level = std::max(lo, hi) + 1;
    if (steps.size() < level) steps.resize(level);
    steps[level - 1].emplace_back(piece[0], piece[h]);
    return level;
  };
  for (const ShuffleCycle& c : a.cycles) halve(c.bits);
  return steps;
}

namespace {

// A3's transpositions on the machine's bits, step by step: a pair of storage
// bits is a relabelling (the local reordering at the end completes it:
// after[x] is where memory bit x goes), a storage and a processor bit the pair
// (the physical storage bit holding that content, the processor bit), two
// processor bits the pair as it is. Each pair's second entry is a processor bit.
std::vector<std::vector<std::pair<unsigned, unsigned>>> a3_machine_steps(const DimensionPermutation& p,
                                                                         std::vector<unsigned>& after) {
  std::vector<unsigned> phys(p.m);  // phys[x]: the data bit that holds what belongs at x
  std::iota(phys.begin(), phys.end(), 0u);
  std::vector<std::vector<std::pair<unsigned, unsigned>>> out;
  for (const auto& step : a3_steps(analyze(p))) {
    auto& pairs = out.emplace_back();
    for (auto [x, y] : step) {
      if (p.is_processor_bit(x)) std::swap(x, y);
      if (!p.is_processor_bit(y)) {
        std::swap(phys[x], phys[y]);
      } else {
        pairs.emplace_back(p.is_processor_bit(x) ? x : phys[x], y);
      }
    }
  }
  after.assign(p.m, 0);
  for (unsigned x = 0; x < p.m; ++x) after[phys[x]] = x;
  return out;
}

}  // namespace

SdpPlan plan_a3(const DimensionPermutation& p, bool all_port) {
  const DimensionPermutationAnalysis a = analyze(p);
  if (all_port && !a.separable)
    throw Error("A3 n-port runs each step's transpositions as A1' n-port's parts, which need a separable permutation "
                "(no cycle mixing processor and storage bits): use A3 one-port");
  std::vector<unsigned> after;
  const auto steps = a3_machine_steps(p, after);
  SdpPlan plan;
  EmptyDimension e(p, plan, "A3", all_port ? PortModel::all_port : PortModel::one_port);
  if (!all_port) {
    // One-port, each transposition of two processor bits by the single-path
    // transpose (the 2-cycle by dimension-order routing through the empty
    // dimension: 2 one-way moves of K words), of a storage and a processor bit
    // by one exchange of K/2 words.
    for (const auto& step : steps)
      for (const auto& [x, y] : step) {
        if (p.is_processor_bit(x)) {
          e.cycle({x, y});
        } else {
          e.exchange(x, y);
        }
      }
    e.realign(e.offset, 0, 0);
  } else {
    // n-port, step by step: each part runs the step's processor transpositions
    // (2-cycles) in turn, part k from transposition k/2 on, in the direction k mod 2.
    std::size_t parts = 1;
    for (const auto& step : steps) parts = std::max(parts, 2 * step.size());
    std::vector<sdp::Row> cycles(parts);
    for (const auto& pairs : steps)
      for (std::size_t k = 0; k < parts && !pairs.empty(); ++k)
        for (std::size_t i = 0; i < pairs.size(); ++i) {
          const auto [x, y] = pairs[(k / 2 + i) % pairs.size()];
          cycles[k].steps.push_back(sdp::Step{0, k % 2 == 0 ? x : y});
          cycles[k].steps.push_back(sdp::Step{0, k % 2 == 0 ? y : x});
        }
    std::vector<std::uint64_t> words;
    for (const auto& [lo, hi] : deal(bit(p.m), parts)) words.push_back(hi - lo);
    e.parts(cycles, 2, words);
  }
  e.finish(after);
  return plan;
}

SdpPlan plan_a3_via_a1(const DimensionPermutation& p, bool all_port, SdpEffort effort) {
  std::vector<unsigned> unused;
  const auto steps = a3_machine_steps(p, unused);
  const bool pivot_needed = std::any_of(steps.begin(), steps.end(), [&](const auto& step) {
    return std::any_of(step.begin(), step.end(), [&](const auto& pair) { return p.is_processor_bit(pair.first); });
  });
  if (pivot_needed && p.m == 0)
    throw Error("A3 via A1 exchanges two processor bits through a storage dimension (sec. 4.3.2): m = 0 (K = 1) has none");
  // Sec. 4.3.2: "in a 2-cube, node (01) and node (10) can exchange K elements in
  // a time of 3K/2 t_c + 3 tau by employing one virtual dimension, i.e., a
  // special case of Algorithm A1": the transposition (x y) is A1's chain
  // E(v, x), E(v, y), E(v, x) with storage bit 0 as v (its content comes back);
  // a storage-processor pair is one exchange; the local reordering (local_after,
  // from the exchanges themselves) completes the relabellings.
  constexpr unsigned v = 0;
  if (!all_port) {
    std::vector<sdp::Step> chain;
    for (const auto& step : steps)
      for (const auto& [x, y] : step) {
        const auto part = p.is_processor_bit(x) ? sdp::with_pivot(v, {x, y, x}) : std::vector<sdp::Step>{{x, y}};
        chain.insert(chain.end(), part.begin(), part.end());
      }
    return plan_chains(p, "A3-A1", chain);
  }
  // n-port: each step's transpositions as A1 n-port runs cycles of order 2
  // (sec. 4.2.1: round-robin over them, each split over its two rotations), the
  // storage-processor pairs as single exchanges rotated over the parts; the
  // steps one after another. 3 cycles of K / (4 T) words a link for T
  // transpositions, 3K/4 a step.
  std::vector<std::vector<sdp::Row>> per_step;
  for (const auto& step : steps) {
    std::vector<std::vector<unsigned>> cycles;
    std::vector<std::vector<sdp::Row>> groups;
    for (const auto& [x, y] : step)
      if (p.is_processor_bit(x)) cycles.push_back({x, y});
      else groups.push_back({sdp::Row{{sdp::Step{x, y}}, 1.0}});
    for (auto& leaf : sdp::rotation_leaves(cycles, v, true)) groups.push_back(std::move(leaf));
    if (!groups.empty()) per_step.push_back(sdp::round_robin(groups));
  }
  std::vector<sdp::Row> rows = per_step.empty() ? std::vector<sdp::Row>{} : sdp::chain_rows(per_step);
  return sdp::rows_plan(p, "A3-A1", rows, pivot_needed ? std::vector<unsigned>{v} : std::vector<unsigned>{}, effort);
}

namespace {

// Routing cycles of a part whose halves hold h words: one chain per set bit of
// h (an aligned block of 2^b words a half), each 2^b words plus a cycle of fill.
std::uint64_t chain_cycles(std::uint64_t h) { return h + popcount(h); }

// The K words as `parts` parts of aligned blocks (each part's list, data
// addresses [lo, hi)), the halves B h_k summing to K/2 with the largest
// h_k + popcount(h_k) (a lane's cycles when each block is cut into B chains)
// as small as the search finds; the blocks laid out largest first, so each is
// aligned to its size. Needs K/2 >= B parts.
std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> pipeline_parts(unsigned m, std::uint64_t parts,
                                                                                 std::uint64_t lanes) {
  const std::uint64_t total = bit(m) / 2 / lanes;
  std::vector<std::uint64_t> half;
  for (std::uint64_t T = (total + parts - 1) / parts;; ++T) {
    const auto fits = [&](std::uint64_t h) { return h >= 1 && chain_cycles(h) <= T; };
    std::uint64_t most = std::min(T, total);
    while (most > 0 && !fits(most)) --most;
    half.clear();
    std::uint64_t left = total;
    for (std::uint64_t k = 0; k < parts && most > 0; ++k) {
      const std::uint64_t after = parts - k - 1;
      std::uint64_t h = k + 1 == parts ? left : std::min(most, left - after);
      while (h > 0 && !fits(h)) --h;
      if (h == 0 || left - h > after * most) break;
      half.push_back(h);
      left -= h;
    }
    if (half.size() == parts && left == 0) break;
  }
  struct Block {
    std::uint64_t words;
    std::size_t part;
  };
  std::vector<Block> blocks;
  for (std::size_t k = 0; k < half.size(); ++k)
    for (unsigned b = 0; b < 64; ++b)
      if (test_bit(half[k], b)) blocks.push_back({bit(b) * 2 * lanes, k});
  std::stable_sort(blocks.begin(), blocks.end(), [](const Block& x, const Block& y) { return x.words > y.words; });
  std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> out(parts);
  std::uint64_t first = 0;
  for (const Block& b : blocks) {
    out[b.part].emplace_back(first, first + b.words);
    first += b.words;
  }
  return out;
}

}  // namespace

SdpPlan plan_a3_pipelined(const DimensionPermutation& p, std::uint64_t packet) {
  const DimensionPermutationAnalysis a = analyze(p);
  if (!a.separable)
    throw Error("A3-pipelined transposes processor bits only, so it needs a separable permutation (no cycle mixing "
                "processor and storage bits): use A3-A1 or A3 one-port");
  std::vector<unsigned> after;
  const auto steps = a3_machine_steps(p, after);
  std::size_t most = 0;
  for (const auto& step : steps) most = std::max(most, step.size());
  if (most > 0 && bit(p.m) < 2 * most)
    throw Error(fmt::format("A3-pipelined gives each of a step's {} transpositions a part of at least 2 words (one "
                            "a path): K = {} < {}",
                            most, bit(p.m), 2 * most));
  // Relay and end slots differ by the chain position, so every exchange names an offset map of its own.
  constexpr unsigned kMostBits = 14;
  if (p.m > kMostBits)
    throw Error(fmt::format("A3-pipelined names an offset map an exchange (the relays' and ends' slots differ by the "
                            "chain position): K = 2^{} > 2^{} would stage too many",
                            p.m, kMostBits));
  if (packet == 0 || (packet & (packet - 1)) != 0)
    throw Error(fmt::format("A3-pipelined runs B chains side by side a link: B = {} is no power of two", packet));
  SdpPlan plan;
  EmptyDimension e(p, plan, "A3-pipelined", PortModel::all_port);
  Schedule& s = plan.schedule;
  std::map<NodeOffsetMap, std::uint32_t> ids;
  const auto map_of = [&](unsigned node_dim, std::uint64_t column) -> std::uint32_t {
    if (column == 0) return 0;
    NodeOffsetMap o(p.n, 0);
    o[node_dim] = column;
    const auto [it, added] = ids.emplace(o, static_cast<std::uint32_t>(s.offset_maps.size() + 1));
    if (added) s.offset_maps.push_back(std::move(o));
    return it->second;
  };
  s.rules.channel_width = 1;
  std::vector<std::uint64_t> identity(e.geo.m);
  for (unsigned b = 0; b < e.geo.m; ++b) identity[b] = bit(b);
  // Machine address of data word w: w << 1 (bit 0 is the empty dimension u); bit 1 (data bit 0) the half.
  constexpr std::uint64_t kU = 1, kHalf = 2;
  for (const auto& pairs : steps) {
    const std::size_t P = pairs.size();
    if (P == 0) continue;
    // B lanes at most K/2P, so that every part has a position a lane.
    std::uint64_t lanes = packet;
    while (lanes > 1 && bit(p.m) / 2 < lanes * P) lanes /= 2;
    const auto parts = pipeline_parts(p.m, P, lanes);
    for (std::size_t phase = 0; phase < P; ++phase) {
      // Part k transposes pair (k + phase) mod P, its blocks' chains one after another.
      std::vector<std::vector<Exchange>> cycles;
      std::vector<AlignmentStep> realign;
      for (std::size_t k = 0; k < P; ++k) {
        const auto [bx, by] = pairs[(k + phase) % P];
        const unsigned X = bx - p.m, Y = by - p.m;
        // Packets of B words: each block cut into B chains, one a lane, the lanes side by side.
        std::vector<std::size_t> lane(lanes, 0);
        for (std::uint64_t at = 0; at < parts[k].size() * lanes; ++at) {
          const auto [first, last] = parts[k][at / lanes];
          const std::uint64_t size = (last - first) / lanes, lo = first + at % lanes * size, hi = lo + size;
          std::size_t& t0 = lane[at % lanes];
          const std::uint64_t L = (hi - lo) / 2;
          const unsigned bits = ceil_log2(L);  // L is a power of two
          const std::uint64_t base = lo << 1, beta0 = base | kU, beta1 = beta0 ^ kHalf;
          if (cycles.size() < t0 + L + 1) cycles.resize(t0 + L + 1);
          for (std::uint64_t t = 0; t <= L; ++t) {
            // End node (x y) = (0 1) swaps chain slot s_t of half 0 on x and half 1 on y,
            // (1 0) the other halves; the relays (0 0), (1 1) alternate two empty slots,
            // each word forwarded the cycle after it arrived; t = L: the empty slot beta0.
            const std::uint64_t st = t < L ? (lo + 2 * reverse_bits(t, bits)) << 1 : beta0;
            const std::uint64_t rx = t % 2 ? beta1 : beta0, ry = rx ^ kHalf;
            cycles[t0 + t].push_back(Exchange{X, rx, st ^ kHalf, map_of(Y, rx ^ st)});
            cycles[t0 + t].push_back(Exchange{Y, ry, st ^ kHalf, map_of(X, ry ^ st)});
          }
          t0 += L + 1;
          // The ends now hold chain position i's word at i + 1 (the last at beta0, beta1):
          // u back, then position r to r - 1 in bit-reversed order, one range per borrow.
          std::vector<std::uint64_t> ends(p.n, 0);
          const auto on_ends = [&](std::uint64_t mask, std::uint64_t range) {
            ends[X] = ends[Y] = mask;
            realign.emplace_back(AffineMap::from_columns(e.geo, identity, ends), base, base + range);
          };
          on_ends(kU, 4);
          for (unsigned i = bits; i-- > 0;) on_ends(bit(bits + 1 - i), bit(bits + 2 - i));
        }
      }
      for (const auto& c : cycles) {
        std::vector<unsigned> per_dim(p.n, 0);
        for (const Exchange& x : c) {
          s.add(x);
          s.rules.channel_width = std::max(s.rules.channel_width, ++per_dim[x.dim]);
        }
        s.end_cycle();
      }
      for (AlignmentStep& step : realign) plan.align_within.emplace_back(s.cycles(), std::move(step));
    }
  }
  e.finish(after);
  return plan;
}

DimensionPermutation extended_cube_permutation(const DimensionPermutation& p, unsigned n) {
  if (n <= p.n)
    throw Error(fmt::format("the extended cube needs more processor dimensions than the data occupies: machine n = {}, "
                            "data {}",
                            n, p.n));
  if (p.m == 0) throw Error("the extended cube spreads the data over storage dimensions: m = 0 (K = 1) has none");
  const unsigned m = p.m, e = std::min(n - p.n, m), q = n + m;
  // S on machine bits: v_i = m - i <-> r_i = m + p.n + i - 1 (node dimension p.n + i - 1).
  std::vector<unsigned> swap(q);
  std::iota(swap.begin(), swap.end(), 0u);
  for (unsigned i = 1; i <= e; ++i) std::swap(swap[m - i], swap[m + p.n + i - 1]);
  // delta on the machine's bits (the unused node bits fixed), conjugated by S:
  // P = S delta S fixes every v_i, so it is a permutation of the other bits.
  std::vector<unsigned> delta(q);
  std::iota(delta.begin(), delta.end(), 0u);
  for (unsigned b = 0; b < p.q(); ++b) delta[b] = p.to[b];
  // The reduced numbering: storage bits 0..m-e-1 as they are, node bit k at m - e + k.
  const auto reduced = [&](unsigned x) { return x < m - e ? x : x - e; };
  DimensionPermutation conj;
  conj.n = n;
  conj.m = m - e;
  conj.to.resize(q - e);
  for (unsigned x = 0; x < q; ++x) {
    if (x >= m - e && x < m) continue;  // a v_i: fixed
    conj.to[reduced(x)] = reduced(swap[delta[swap[x]]]);
  }
  return conj;
}

SdpPlan plan_extended_cube(const DimensionPermutation& p, unsigned n,
                           const std::function<SdpPlan(const DimensionPermutation&)>& inner) {
  const DimensionPermutation conj = extended_cube_permutation(p, n);
  const unsigned m = p.m, e = m - conj.m;
  SdpPlan in = inner(conj);
  if (!in.embed.empty() || !in.align_after.empty())
    throw Error(fmt::format("the extended cube runs a full-cube algorithm the data fills: {} is not one", in.algorithm));

  SdpPlan plan;
  plan.algorithm = in.algorithm;
  plan.gamma = in.gamma;
  plan.schedule = plan_header(p, in.algorithm.c_str(), in.schedule.rules.model);
  Schedule& s = plan.schedule;
  s.n = n;
  s.d = std::max(1u, std::min(n, m));
  s.rules = in.schedule.rules;
  s.rules.channel_width = std::max<unsigned>(s.rules.channel_width, m == 0 ? 1u : static_cast<unsigned>(bit(m - 1)));
  s.offset_maps = in.schedule.offset_maps;  // node bits to addresses below K / 2^e: valid as they are
  // Scatter cycle i: part j spreads over pair (v, r) number (j + i) mod e the
  // words that still hold data (no v of its earlier pairs set) with that v set.
  // One-port one part takes the pairs in order; n-port e parts, cosets of the
  // low m - e bits, keep every unused dimension busy in every cycle (the
  // spanning-tree scatter: K (1 - 2^-e) / e words a link in all).
  const bool all = s.rules.model == PortModel::all_port;
  const auto parts = deal(bit(m - e), all ? e : 1);
  const auto spread = [&](unsigned i) {
    for (std::size_t j = 0; j < parts.size(); ++j) {
      const unsigned d = static_cast<unsigned>((j + i) % e), v = m - 1 - d;
      std::uint64_t earlier = 0;
      for (unsigned k = 0; k < i; ++k) earlier |= bit(m - 1 - static_cast<unsigned>((j + k) % e));
      for (std::uint64_t high = 0; high < bit(e); ++high)
        for (std::uint64_t low = parts[j].first; low < parts[j].second; ++low) {
          const std::uint64_t a = (high << (m - e)) | low;
          if (test_bit(a, v) && (a & earlier) == 0) s.add(Exchange{p.n + d, a, a ^ bit(v)});
        }
    }
    s.end_cycle();
  };
  for (unsigned i = 0; i < e; ++i) spread(i);
  // The full-cube algorithm's addresses lie below K / 2^e: the same in the machine's memory.
  for (std::size_t c = 0; c < in.schedule.cycles(); ++c) {
    for (const Exchange& x : in.schedule.cycle(c)) s.add(x);
    s.end_cycle();
  }
  for (unsigned i = e; i-- > 0;) spread(i);  // each cycle an involution: the scatter reversed
  plan.local_after = in.local_after;
  for (unsigned b = m - e; b < m; ++b) plan.local_after.push_back(b);
  plan.embed.resize(p.q());
  std::iota(plan.embed.begin(), plan.embed.end(), 0u);  // the data's node bits are the machine's low ones
  plan.startups = s.cycles();
  return plan;
}

SdpModel model_plan(const SdpPlan& plan, double t_c, double tau, std::uint64_t packet) {
  if (t_c < 0 || tau < 0) throw Error(fmt::format("cost parameters t_c = {}, tau = {}: allowed non-negative", t_c, tau));
  if (packet < 1) throw Error("packet size B = 0 out of range: allowed at least 1 word");
  const Schedule& s = plan.schedule;
  SdpModel m;
  std::vector<std::uint64_t> load(s.n, 0);
  for (std::size_t c = 0; c < s.cycles(); ++c) {
    std::fill(load.begin(), load.end(), 0);
    std::uint64_t L = 0;
    for (std::size_t e = 0; e < s.cycle_size(c); ++e) L = std::max(L, ++load[s.cycle_begin(c)[e].dim]);
    m.element_transfers += L;
    m.startups += (L + packet - 1) / packet;
  }
  m.time = static_cast<double>(m.element_transfers) * t_c + static_cast<double>(m.startups) * tau;
  return m;
}

}  // namespace hcube

#include "hcube/host/aapc.hpp"
#include "hcube/host/edelman.hpp"
#include "hcube/host/exchange_baselines.hpp"

namespace hcube {
namespace {

// Appends the AAPC `base` (on d node and d memory bits, aligned addresses)
// exchanging storage field V with processor field R bit by bit, unaligned:
// base address bit t < d goes to V[t], the others to the remaining storage
// bits in order; node p adds its R field to V (offset map `map`, 1-based).
void append_field_aapc(Schedule& s, const Schedule& base, const std::vector<unsigned>& V,
                       const std::vector<unsigned>& R) {
  const unsigned d = static_cast<unsigned>(V.size());
  std::vector<unsigned> place(s.m);
  std::vector<bool> used(s.m, false);
  for (unsigned t = 0; t < d; ++t) {
    place[t] = V[t];
    used[V[t]] = true;
  }
  for (unsigned b = d, next = 0; b < s.m; ++b) {
    while (used[next]) ++next;
    place[b] = next++;
  }
  NodeOffsetMap map(s.n, 0);
  for (unsigned t = 0; t < d; ++t) map[R[t] - s.m] = bit(V[t]);
  s.offset_maps.push_back(std::move(map));
  const std::uint32_t index = static_cast<std::uint32_t>(s.offset_maps.size());
  const auto remap = [&](std::uint64_t a) {
    std::uint64_t r = 0;
    for (unsigned b = 0; b < s.m; ++b)
      if (test_bit(a, b)) r |= bit(place[b]);
    return r;
  };
  for (std::size_t c = 0; c < base.cycles(); ++c) {
    for (std::size_t e = 0; e < base.cycle_size(c); ++e) {
      const Exchange& x = base.cycle_begin(c)[e];
      s.add(Exchange{R[x.dim] - s.m, remap(x.addr), remap(x.peer_addr), index});
    }
    s.end_cycle();
  }
  s.rules.channel_width = std::max(s.rules.channel_width, base.rules.channel_width);
}

Schedule field_aapc_base(unsigned d, unsigned m, bool all_port) {
  if (!all_port) return make_exchange_baseline(ExchangeBaseline::standard, d, d, m);
  AapcOptions o;
  o.algorithm = AapcAlgorithm::alg4;
  o.d = d;
  o.n = d;
  o.m = m;
  return block_schedule(make_aapc_schedule(o));
}

}  // namespace

SdpPlan plan_a2(const DimensionPermutation& p, bool all_port) {
  const DimensionPermutationAnalysis a = analyze(p);
  if (p.m < a.sigma_p)
    throw Error(fmt::format("A2 needs a storage dimension for each moving processor dimension: m = {} < sigma_p = {} "
                            "(SDP paper Table 5)",
                            p.m, a.sigma_p));
  // k_j for every moving processor bit j: its predecessor if that is a storage bit, else a free storage bit.
  std::vector<unsigned> pred(p.q());
  for (unsigned b = 0; b < p.q(); ++b) pred[p.to[b]] = b;
  std::vector<unsigned> moving;
  for (unsigned b = p.m; b < p.q(); ++b)
    if (p.to[b] != b) moving.push_back(b);
  std::vector<int> k(p.q(), -1);
  std::vector<bool> taken(p.m, false);
  for (unsigned j : moving)
    if (!p.is_processor_bit(pred[j])) {
      k[j] = static_cast<int>(pred[j]);
      taken[pred[j]] = true;
    }
  unsigned free_bit = 0;
  for (unsigned j : moving)
    if (k[j] < 0) {
      while (taken[free_bit]) ++free_bit;
      k[j] = static_cast<int>(free_bit);
      taken[free_bit] = true;
    }
  SdpPlan plan;
  plan.algorithm = "A2";
  plan.schedule = plan_header(p, "A2", all_port ? PortModel::all_port : PortModel::one_port);
  plan.schedule.rules.channel_width = 1;
  // Where every original content is after the transpositions: pos[b] = position of b's content.
  std::vector<unsigned> pos(p.q()), at(p.q());
  std::iota(pos.begin(), pos.end(), 0u);
  std::iota(at.begin(), at.end(), 0u);
  const auto transpose = [&](unsigned x, unsigned y) {
    std::swap(at[x], at[y]);
    pos[at[x]] = x;
    pos[at[y]] = y;
  };
  for (int phase = 0; phase < 2; ++phase) {
    std::vector<unsigned> V, R;
    for (unsigned j : moving) {
      const unsigned r = phase == 0 ? j : p.to[j];
      if (!p.is_processor_bit(r)) continue;  // delta(j) a storage bit: a local move
      V.push_back(static_cast<unsigned>(k[j]));
      R.push_back(r);
    }
    if (V.empty()) continue;
    append_field_aapc(plan.schedule, field_aapc_base(static_cast<unsigned>(V.size()), p.m, all_port), V, R);
    for (std::size_t t = 0; t < V.size(); ++t) transpose(V[t], R[t]);
  }
  // Every processor position now holds its content; the storage contents move locally.
  plan.local_after.assign(p.m, 0);
  for (unsigned b = 0; b < p.q(); ++b) {
    if (p.is_processor_bit(p.to[b])) {
      if (pos[b] != p.to[b]) throw Error("internal: A2 left a processor dimension with the wrong content");
      continue;
    }
    plan.local_after[pos[b]] = p.to[b];
  }
  plan.startups = plan.schedule.cycles();
  return plan;
}

}  // namespace hcube

namespace hcube {

SdpPlan plan_edelman_bit_reversal(const DimensionPermutation& p) {
  const unsigned q = p.n + p.m;
  for (unsigned i = 0; i < q; ++i)
    if (p.to[i] != q - 1 - i)
      throw Error(fmt::format("Edelman's schedule applies to the bit reversal only: bit {} goes to {}, not {}", i,
                              p.to[i], q - 1 - i));
  if (p.n != p.m || p.n == 0)
    throw Error(fmt::format("Edelman's bit reversal needs n = m >= 1 (a 2^(2d) vector on 2^d nodes): n = {}, m = {}",
                            p.n, p.m));
  SdpPlan plan;
  plan.algorithm = "Edelman";
  plan.schedule = make_edelman_bit_reversal_schedule(p.n);
  plan.local_after.resize(p.m);
  std::iota(plan.local_after.begin(), plan.local_after.end(), 0u);
  plan.startups = plan.schedule.cycles();
  return plan;
}

}  // namespace hcube

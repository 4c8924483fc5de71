#include "hcube/host/aapc_sequence.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <optional>

#include "found_sequences.hpp"
#include "skewed_pairs.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

// Axis i's offset for the relative address: the node's other axes folded onto
// memory bits (bit b of axis u != i adds memory bit b; widths[u] bits each).
NodeOffsetMap other_axes(const std::vector<unsigned>& widths, unsigned i) {
  NodeOffsetMap map;
  for (unsigned u = 0; u < widths.size(); ++u)
    for (unsigned b = 0; b < widths[u]; ++b) map.push_back(u != i ? bit(b) : 0);
  return map;
}

// For a complement pair (in the low `pair_bits` memory bits) crossing dimension
// b of axis i: which member moves flips with bit b of the node's other axes
// (those that have one), i.e. the address is xored with all pair_bits low bits
// when that parity is 1.
NodeOffsetMap pair_flip(const std::vector<unsigned>& widths, unsigned i, unsigned b, unsigned pair_bits) {
  NodeOffsetMap map;
  for (unsigned u = 0; u < widths.size(); ++u)
    for (unsigned k = 0; k < widths[u]; ++k) map.push_back(u != i && k == b ? low_mask(pair_bits) : 0);
  return map;
}

// The longest window of cycles in which a complement pair of the schedule moves.
std::uint64_t max_pair_span(const Schedule& s) {
  std::map<std::uint64_t, std::pair<std::size_t, std::size_t>> window;
  for (std::size_t c = 0; c < s.cycles(); ++c)
    for (std::size_t e = 0; e < s.cycle_size(c); ++e) {
      const std::uint64_t a = s.cycle_begin(c)[e].addr;
      const std::uint64_t key = std::min(a, a ^ low_mask(s.d));
      auto [it, fresh] = window.try_emplace(key, c, c);
      if (!fresh) it->second.second = c;
    }
  std::uint64_t span = 0;
  for (const auto& [key, w] : window) span = std::max<std::uint64_t>(span, w.second - w.first + 1);
  return span;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

void check_orders(const std::vector<unsigned>& dims, unsigned m) {
  for (std::size_t u = 0; u < dims.size(); ++u) {
    if (dims[u] < 1) throw Error(fmt::format("axis {} of order d = 0 out of range: allowed d >= 1", u + 1));
    if (u > 0 && dims[u] > dims[u - 1])
      throw Error(fmt::format("axis orders must not increase (sec. 4.1, memory bits nested): d_{} = {} > d_{} = {}",
                              u + 1, dims[u], u, dims[u - 1]));
  }
  if (dims.empty()) throw Error("number of axes s = 0 out of range: allowed at least 1");
  if (m < dims[0]) throw Error(fmt::format("d_1 = {} exceeds the memory dimensions m = {}: allowed d_1 <= m", dims[0], m));
  std::uint64_t n = 0;
  for (unsigned w : dims) n += w;
  if (n + m > kMaxAddressBits)
    throw Error(fmt::format("n + m = {} + {} out of range: allowed at most {}", n, m, kMaxAddressBits));
}

// A single AAPC of order w that moves complement pairs (Algorithms 1-3): each
// cycle's moves (pair, dimension), pair P being (pair_low, pair_low xor
// (2^w - 1)) with pair_low = insert_zero_bit(P, w - 1); and each pair's first
// and last cycle.
struct PairMoves {
  std::vector<std::vector<std::pair<std::uint64_t, unsigned>>> cycles;
  std::vector<std::uint64_t> first, last;
};

PairMoves pair_moves(AapcAlgorithm alg, unsigned w, unsigned m) {
  const Schedule one = make_aapc_schedule(AapcOptions{alg, w, w, m, LineDrawing::diagonal});
  PairMoves pm;
  pm.first.assign(bit(m - 1), ~std::uint64_t{0});
  pm.last.assign(bit(m - 1), 0);
  for (std::size_t c = 0; c < one.cycles(); ++c) {
    auto& moves = pm.cycles.emplace_back();
    for (std::size_t e = 0; e < one.cycle_size(c); ++e) {
      const Exchange& x = one.cycle_begin(c)[e];
      const std::uint64_t low = test_bit(x.addr, w - 1) ? x.addr ^ low_mask(w) : x.addr;
      const std::uint64_t P = remove_bit(low, w - 1);
      moves.emplace_back(P, x.dim);
      pm.first[P] = std::min<std::uint64_t>(pm.first[P], c);
      pm.last[P] = c;
    }
  }
  return pm;
}

// A schedule of axes of unequal orders, without cycles.
Schedule unequal_header(const AapcSequenceOptions& o, unsigned m) {
  Schedule seq;
  seq.algorithm = std::to_string(static_cast<int>(o.algorithm));
  seq.d = o.dims[0];
  seq.m = m;
  seq.axes = static_cast<unsigned>(o.dims.size());
  seq.axis_dims = o.dims;
  seq.n = std::accumulate(o.dims.begin(), o.dims.end(), 0u);
  return seq;
}

// The SAT solver's schedules pipelined Algorithm 4 runs for `o`. Equal orders (d = 3 on K = 8):
// blocks of two axes, and for an odd number of axes one block of three where that is fewer cycles
// than Algorithm 4 alone on the last axis; unequal orders: the schedule found for them (3,2, 3,1,
// 3,2,2, 3,3,2 on K = 8; 2,1 on K = 4).
struct FoundBlocks {
  const found::Sequence* two = nullptr;    // equal orders: two axes; unequal: the whole sequence
  const found::Sequence* three = nullptr;  // equal orders, odd s: the first three axes, the rest in twos
  std::uint64_t cycles = 0;                // 0: none applies
};

FoundBlocks found_for(const AapcSequenceOptions& o) {
  FoundBlocks f;
  if (!o.pipelined || o.algorithm != AapcAlgorithm::alg4) return f;
  const std::vector<unsigned> widths = o.dims.empty() ? std::vector<unsigned>(o.axes, o.d) : o.dims;
  const std::size_t s = widths.size();
  if (s < 2) return f;
  const unsigned m = o.m == 0 ? widths[0] : o.m;
  const bool equal = std::adjacent_find(widths.begin(), widths.end(), std::not_equal_to<>()) == widths.end();
  if (!equal) {
    f.two = found::sequence(widths, m);
    f.cycles = f.two ? found::cycles(*f.two) : 0;
    return f;
  }
  f.two = found::sequence({widths[0], widths[0]}, m);
  if (f.two) f.cycles = s / 2 * found::cycles(*f.two) + (s % 2) * bit(m - 1);
  const found::Sequence* three = s % 2 == 1 ? found::sequence({widths[0], widths[0], widths[0]}, m) : nullptr;
  if (three && (s == 3 || f.two)) {
    const std::uint64_t with_three = found::cycles(*three) + (s == 3 ? 0 : (s - 3) / 2 * found::cycles(*f.two));
    if (f.cycles == 0 || with_three < f.cycles) {
      f.three = three;
      f.cycles = with_three;
    }
  }
  return f;
}

// How those blocks cover s equal axes: the planner runs this, and the multi-aapc note names it.
FoundCover cover_of(const FoundBlocks& f, unsigned s) {
  FoundCover c;
  if (f.cycles == 0) return c;
  c.three_first = f.three != nullptr;
  const unsigned rest = s - (c.three_first ? 3 : 0);
  c.pairs = rest / 2;
  c.last_alone = rest % 2 == 1;
  return c;
}

// Sec. 4.1 on axes of orders d_1 >= d_2 >= ...: every AAPC moves complement
// pairs of the low d_1 bits (a d_1-complement pair is a d_i-complement pair in
// its low d_i bits, so any pair schedule of order d_i serves), and pair p may
// enter AAPC i once it has left AAPC i-1. Pipelined, AAPC i's pair slots,
// earliest first, take the pairs in the order they leave AAPC i-1: that
// matching gives the smallest start for AAPC i (an exchange argument), i.e.
// start_i = max_k (finish_(k) - first_(k)) + 1 over the two sorted lists.
// Sequential: each AAPC after the previous one's last cycle, pairs unchanged.
// AAPC i runs the pair schedule of algs[i] (1 or 3).
struct Composed {
  std::vector<PairMoves> aapc;
  std::vector<std::uint64_t> start;
  std::vector<std::vector<std::uint64_t>> slot_pair;  // AAPC i's slot P carries pair slot_pair[i][P]
  std::uint64_t cycles = 0;
};

Composed compose_pairs(const AapcSequenceOptions& o, unsigned m, const std::vector<AapcAlgorithm>& algs) {
  const std::vector<unsigned>& w = o.dims;
  const unsigned s_axes = static_cast<unsigned>(w.size());
  const std::uint64_t pairs = bit(m - 1);
  Composed cp;
  cp.start.assign(s_axes, 0);
  cp.slot_pair.resize(s_axes);
  std::vector<std::uint64_t> finish(pairs);  // the cycle each pair left the previous AAPC
  for (unsigned i = 0; i < s_axes; ++i) {
    const PairMoves& pm = cp.aapc.emplace_back(pair_moves(algs[i], w[i], m));
    std::vector<std::uint64_t> slots(pairs), ready(pairs);
    std::iota(slots.begin(), slots.end(), 0);
    std::iota(ready.begin(), ready.end(), 0);
    if (i > 0 && o.pipelined) {
      std::stable_sort(slots.begin(), slots.end(), [&](auto a, auto b) { return pm.first[a] < pm.first[b]; });
      std::stable_sort(ready.begin(), ready.end(), [&](auto a, auto b) { return finish[a] < finish[b]; });
      for (std::uint64_t k = 0; k < pairs; ++k)
        cp.start[i] = std::max(cp.start[i], finish[ready[k]] + 1 - std::min(finish[ready[k]] + 1, pm.first[slots[k]]));
    } else if (i > 0) {
      cp.start[i] = cp.start[i - 1] + cp.aapc[i - 1].cycles.size();
    }
    cp.slot_pair[i].resize(pairs);
    for (std::uint64_t k = 0; k < pairs; ++k) {
      cp.slot_pair[i][slots[k]] = ready[k];
      finish[ready[k]] = cp.start[i] + pm.last[slots[k]];
    }
  }
  for (unsigned i = 0; i < s_axes; ++i)
    cp.cycles = std::max<std::uint64_t>(cp.cycles, cp.start[i] + cp.aapc[i].cycles.size());
  return cp;
}

Schedule compose_unequal(const AapcSequenceOptions& o, unsigned m, const Composed& cp) {
  const std::vector<unsigned>& w = o.dims;
  const unsigned d1 = w[0], s_axes = static_cast<unsigned>(w.size());
  Schedule seq = unequal_header(o, m);
  std::vector<unsigned> offset(s_axes, 0);
  for (unsigned u = 1; u < s_axes; ++u) offset[u] = offset[u - 1] + w[u - 1];
  for (unsigned i = 0; i < s_axes; ++i)
    for (unsigned b = 0; b < w[i]; ++b) seq.offset_maps.push_back(pair_flip(w, i, b, d1));
  for (std::uint64_t g = 0; g < cp.cycles; ++g) {
    for (unsigned i = 0; i < s_axes; ++i) {
      if (g < cp.start[i] || g - cp.start[i] >= cp.aapc[i].cycles.size()) continue;
      for (const auto& [P, b] : cp.aapc[i].cycles[g - cp.start[i]]) {
        const std::uint64_t low = insert_zero_bit(cp.slot_pair[i][P], d1 - 1);
        const std::uint64_t addr = test_bit(low, b) ? low : low ^ low_mask(d1);
        seq.add(Exchange{offset[i] + b, addr, addr, 1 + offset[i] + b});
      }
    }
    seq.end_cycle();
  }
  return seq;
}

// Algorithm 4's pair schedules on unequal orders (its necklace blocks are not pairs): Algorithm
// 1's where the order divides K/2 (K/2 cycles, span d_i) and Algorithm 3's elsewhere, or
// Algorithm 1's throughout when that is fewer cycles (a short last group can cost less than
// Algorithm 3's longer span).
Composed alg4_pairs_unequal(const AapcSequenceOptions& o, unsigned m) {
  std::vector<AapcAlgorithm> mixed;
  for (unsigned w : o.dims) mixed.push_back(bit(m - 1) % w == 0 ? AapcAlgorithm::alg1 : AapcAlgorithm::alg3);
  Composed best = compose_pairs(o, m, mixed);
  Composed ones = compose_pairs(o, m, std::vector<AapcAlgorithm>(o.dims.size(), AapcAlgorithm::alg1));
  return ones.cycles < best.cycles ? ones : best;
}

// Pipelined pairs skewed bit by bit (skewed_pairs.hpp): step t exchanges cube axis axes[t] of
// the cube's axes `widths`, each pair's bit b crossing the steps' axes in order.
Schedule skewed_sequence(Schedule seq, const skewed::Layout& layout, const std::vector<unsigned>& axes,
                         const std::vector<unsigned>& widths, unsigned m) {
  const unsigned d1 = *std::max_element(widths.begin(), widths.end());
  std::vector<unsigned> offset(widths.size(), 0);
  for (std::size_t u = 1; u < widths.size(); ++u) offset[u] = offset[u - 1] + widths[u - 1];
  std::vector<std::vector<std::uint32_t>> map(axes.size());
  for (std::size_t t = 0; t < axes.size(); ++t)
    for (unsigned b = 0; b < widths[axes[t]]; ++b) {
      seq.offset_maps.push_back(pair_flip(widths, axes[t], b, d1));
      map[t].push_back(static_cast<std::uint32_t>(seq.offset_maps.size()));
    }
  std::vector<std::vector<Exchange>> cycles(layout.cycles());
  std::uint64_t exchanges = 0;
  for (std::uint64_t j = 0; j < bit(m - 1); ++j) {
    const std::uint64_t low = insert_zero_bit(j, d1 - 1);
    for (unsigned t = 0; t < axes.size(); ++t)
      for (unsigned b = 0; b < widths[axes[t]]; ++b) {
        const std::uint64_t addr = test_bit(low, b) ? low : low ^ low_mask(d1);
        cycles[layout.cycle(j, t, b)].push_back(Exchange{offset[axes[t]] + b, addr, addr, map[t][b]});
        ++exchanges;
      }
  }
  seq.reserve(cycles.size(), exchanges);
  for (auto& cycle : cycles) {
    std::sort(cycle.begin(), cycle.end(), [](const Exchange& a, const Exchange& b) { return a.dim < b.dim; });
    for (const Exchange& x : cycle) seq.add(x);
    seq.end_cycle();
  }
  return seq;
}

// Pipelined Algorithm 4 runs the fewest cycles of three constructions: the paper's pipeline of
// pairs (Alg. 1's or 3's), the solver's schedules, and the pairs skewed bit by bit; a tie goes
// to the paper's, then to the solver's (proven fewest).
using Construction = SequenceConstruction;

struct Choice {
  Construction how = Construction::pairs;
  std::uint64_t cycles = 0;
  std::optional<skewed::Layout> layout;  // made to count the skewed pairs, and built from if they run
};

// The pair schedule Algorithm 4 pipelines with: Alg. 1's when d divides K/2, Alg. 3's otherwise.
AapcAlgorithm pipelined_base(unsigned d, unsigned m) {
  return bit(m - 1) % d == 0 ? AapcAlgorithm::alg1 : AapcAlgorithm::alg3;
}

// The paper's pipeline of pairs on equal orders: Corollary 2's count of the pair schedule it runs.
std::uint64_t pairs_pipeline_cycles(unsigned d, unsigned m, unsigned axes) {
  return corollary2_cycles(pipelined_base(d, m), d, m, axes);
}

std::vector<unsigned> step_widths(const AapcSequenceOptions& o) {
  return o.dims.empty() ? std::vector<unsigned>(o.axes, o.d) : o.dims;
}

// `o` after make_aapc_sequence's checks: equal orders in d and axes, unequal ones in dims.
// `pairs_cycles`: the paper's pipeline of pairs (pairs_pipeline_cycles, or alg4_pairs_unequal's).
Choice choose(const AapcSequenceOptions& o, unsigned m, std::uint64_t pairs_cycles) {
  Choice c{Construction::pairs, pairs_cycles, std::nullopt};
  const std::vector<unsigned> widths = step_widths(o);
  if (!o.pipelined || o.algorithm != AapcAlgorithm::alg4 || widths.size() < 2) return c;
  if (const std::uint64_t cycles = found_for(o).cycles; cycles != 0 && cycles < c.cycles) {
    c.how = Construction::found;
    c.cycles = cycles;
  }
  c.layout.emplace(widths, m);
  if (c.layout->cycles() < c.cycles) {
    c.how = Construction::skewed;
    c.cycles = c.layout->cycles();
  }
  return c;
}

// Options as make_aapc_sequence reads them: a list of equal orders as d and axes.
AapcSequenceOptions normalized(const AapcSequenceOptions& options) {
  AapcSequenceOptions o = options;
  if (!o.dims.empty() && std::adjacent_find(o.dims.begin(), o.dims.end(), std::not_equal_to<>()) == o.dims.end()) {
    o.d = o.dims[0];
    o.axes = static_cast<unsigned>(o.dims.size());
    o.dims.clear();
  }
  return o;
}

// What make_aapc_sequence chooses for `options`, without building the schedule.
Choice choice_for(const AapcSequenceOptions& options) {
  const AapcSequenceOptions o = normalized(options);
  const std::vector<unsigned> widths = step_widths(o);
  const unsigned m = o.m == 0 ? widths[0] : o.m;
  if (!o.pipelined || o.algorithm != AapcAlgorithm::alg4 || widths.size() < 2) return Choice{};
  if (!o.dims.empty()) {
    check_orders(o.dims, m);
    return choose(o, m, alg4_pairs_unequal(o, m).cycles);
  }
  return choose(o, m, pairs_pipeline_cycles(o.d, m, o.axes));
}

Schedule make_unequal_sequence(const AapcSequenceOptions& o, unsigned m) {
  if (o.algorithm == AapcAlgorithm::alg2)
    throw Error("axes of unequal order run with AapcSequenceOptions::algorithm 1, 3 or 4: Algorithm 2's pairs span K/2 cycles");
  if (!o.order.empty()) throw Error("axes of unequal order run in the order 0, 1, ..., s-1 only");
  if (o.algorithm != AapcAlgorithm::alg4)
    return compose_unequal(o, m, compose_pairs(o, m, std::vector<AapcAlgorithm>(o.dims.size(), o.algorithm)));
  const Composed pairs = alg4_pairs_unequal(o, m);
  std::vector<unsigned> axes(o.dims.size());
  std::iota(axes.begin(), axes.end(), 0u);
  Choice c = choose(o, m, pairs.cycles);
  Schedule seq;
  switch (c.how) {
    case Construction::found:  // orders 3,2, 3,1, 3,2,2 and 3,3,2 on K = 8, 2,1 on K = 4
      seq = unequal_header(o, m);
      found::append(seq, *found_for(o).two, axes, o.dims);
      break;
    case Construction::skewed:
      seq = skewed_sequence(unequal_header(o, m), *c.layout, axes, o.dims, m);
      break;
    case Construction::pairs:
      seq = compose_unequal(o, m, pairs);
      break;
  }
  seq.algorithm = "4";
  return seq;
}

}  // namespace

Schedule make_aapc_sequence(const AapcSequenceOptions& o) {
  if (!o.dims.empty()) {
    const unsigned m = o.m == 0 ? o.dims[0] : o.m;
    check_orders(o.dims, m);
    if (std::adjacent_find(o.dims.begin(), o.dims.end(), std::not_equal_to<>()) != o.dims.end())
      return make_unequal_sequence(o, m);
    AapcSequenceOptions equal = o;
    equal.d = o.dims[0];
    equal.axes = static_cast<unsigned>(o.dims.size());
    equal.dims.clear();
    return make_aapc_sequence(equal);
  }
  if (o.axes < 1) throw Error("number of axes s = 0 out of range: allowed at least 1");
  const unsigned m = o.m == 0 ? o.d : o.m;
  if (o.d < 1 || static_cast<std::uint64_t>(o.d) * o.axes + m > kMaxAddressBits)
    throw Error(fmt::format("s = {} axes of d = {} bits with m = {}: allowed d >= 1 and s d + m <= {}", o.axes, o.d, m,
                            kMaxAddressBits));
  const unsigned d = o.d, s_axes = o.axes, n = d * s_axes;
  std::vector<unsigned> order = o.order;
  if (order.empty())
    for (unsigned t = 0; t < s_axes; ++t) order.push_back(t);
  std::vector<bool> seen(s_axes, false);
  for (unsigned u : order) {
    if (u >= s_axes || seen[u])
      throw Error(fmt::format("axis order must list each axis 0..{} once: got {}", s_axes - 1, u));
    seen[u] = true;
  }
  if (order.size() != s_axes)
    throw Error(fmt::format("axis order lists {} axes: expected s = {}", order.size(), s_axes));
  // Pipelining moves complement pairs, which works whichever member a node's
  // offset makes move; Alg. 4's necklace blocks are not pairs, so it pipelines
  // with Alg. 1's pair schedule when d divides K/2 (the same K/2 cycles and
  // span d) and with Alg. 3's otherwise (docs/multi-aapc.md says why).
  const AapcAlgorithm base =
      o.pipelined && o.algorithm == AapcAlgorithm::alg4 ? pipelined_base(d, m) : o.algorithm;
  const Schedule one = make_aapc_schedule(AapcOptions{base, d, d, m, o.lines});

  Schedule seq = one.header();
  seq.algorithm = std::to_string(static_cast<int>(o.algorithm));
  seq.n = n;
  seq.axes = s_axes;
  // The file keeps a non-default order, so that `hcube run` can verify the shuffle it realises.
  for (unsigned t = 0; t < s_axes; ++t)
    if (order[t] != t) seq.axis_order = order;
  if (s_axes == 1) return make_aapc_schedule(AapcOptions{o.algorithm, d, d, m, o.lines});
  const std::uint64_t lag = o.pipelined ? max_pair_span(one) : one.cycles();
  const std::uint64_t total = one.cycles() + (s_axes - 1) * lag;
  const std::vector<unsigned> widths(s_axes, d);
  const Choice choice = choose(o, m, pairs_pipeline_cycles(d, m, s_axes));
  if (choice.how == Construction::skewed) return skewed_sequence(seq, *choice.layout, order, widths, m);
  // d = 3 on K = 8: for odd s the solver's 9-cycle schedule of three AAPCs first, then two at a
  // time by its 6-cycle one (Corollary 2 counts 7): 3s cycles, the farthest word's distance,
  // against Corollary 2's 3s + 1 and the pair pipeline's 4s.
  if (choice.how == Construction::found) {
    const FoundBlocks f = found_for(o);
    const FoundCover cover = cover_of(f, s_axes);
    const unsigned first = cover.three_first ? 3 : 0;
    if (cover.three_first) found::append(seq, *f.three, {order[0], order[1], order[2]}, widths);
    for (unsigned k = 0, t = first; k < cover.pairs; ++k, t += 2)
      found::append(seq, *f.two, {order[t], order[t + 1]}, widths);
    if (cover.last_alone) {
      const Schedule last = make_aapc_schedule(AapcOptions{AapcAlgorithm::alg4, d, d, m, o.lines});
      seq.offset_maps.push_back(other_axes(widths, order.back()));
      const auto map = static_cast<std::uint32_t>(seq.offset_maps.size());
      for (std::size_t c = 0; c < last.cycles(); ++c) {
        for (std::size_t e = 0; e < last.cycle_size(c); ++e) {
          const Exchange& x = last.cycle_begin(c)[e];
          seq.add(Exchange{x.dim + order.back() * d, x.addr, x.addr, map});
        }
        seq.end_cycle();
      }
    }
    return seq;
  }
  if (o.pipelined) {
    for (unsigned t = 0; t < s_axes; ++t)
      for (unsigned r = 0; r < d; ++r) seq.offset_maps.push_back(pair_flip(widths, order[t], r, d));
  } else {
    for (unsigned t = 0; t < s_axes; ++t) seq.offset_maps.push_back(other_axes(widths, order[t]));
  }
  seq.reserve(total, one.exchanges() * s_axes);
  for (std::uint64_t g = 0; g < total; ++g) {
    for (unsigned t = 0; t < s_axes; ++t) {
      if (g < t * lag || g - t * lag >= one.cycles()) continue;
      const std::size_t c = g - t * lag;
      for (std::size_t e = 0; e < one.cycle_size(c); ++e) {
        const Exchange& x = one.cycle_begin(c)[e];
        const std::uint32_t map = o.pipelined ? 1 + t * d + x.dim : 1 + t;
        seq.add(Exchange{x.dim + order[t] * d, x.addr, x.addr, map});
      }
    }
    seq.end_cycle();
  }
  return seq;
}

namespace {

// Axis u (the next widths[u] node bits) swaps its field with the low
// widths[u] memory bits, axis after axis in `order`.
AddressMap axis_exchanges(const Geometry& geo, const std::vector<unsigned>& widths, const std::vector<unsigned>& order) {
  std::vector<unsigned> offset(widths.size(), 0);
  for (std::size_t u = 1; u < widths.size(); ++u) offset[u] = offset[u - 1] + widths[u - 1];
  return [geo, widths, offset, order](std::uint64_t g) {
    std::uint64_t node = geo.node_of(g), local = geo.local_of(g);
    for (unsigned u : order) {
      const std::uint64_t lo = low_mask(widths[u]), axis = (node >> offset[u]) & lo, mem = local & lo;
      node = (node & ~(lo << offset[u])) | (mem << offset[u]);
      local = (local & ~lo) | axis;
    }
    return geo.global(node, local);
  };
}

std::vector<unsigned> identity_order(std::size_t axes) {
  std::vector<unsigned> order(axes);
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

}  // namespace

AddressMap shuffle_destination(const Geometry& geo, const std::vector<unsigned>& widths) {
  return axis_exchanges(geo, widths, identity_order(widths.size()));
}

AddressMap shuffle_destination(const Geometry& geo, unsigned d, unsigned axes, std::vector<unsigned> order) {
  return axis_exchanges(geo, std::vector<unsigned>(axes, d), order.empty() ? identity_order(axes) : order);
}

std::uint64_t unequal_orders_cycles(const std::vector<unsigned>& dims, unsigned m, bool pipelined) {
  check_orders(dims, m);
  const std::uint64_t pairs = bit(m - 1);
  std::uint64_t total = dims.back() * ceil_div(pairs, dims.back());
  for (std::size_t i = 1; i < dims.size(); ++i) {
    const unsigned a = dims[i - 1], b = dims[i];
    total += pipelined ? a + b - std::gcd(a, b) : a * ceil_div(pairs, a);
  }
  return total;
}

std::uint64_t unequal_orders_target(const std::vector<unsigned>& dims, unsigned m, bool pipelined) {
  check_orders(dims, m);
  const std::uint64_t pairs = bit(m - 1);
  if (!pipelined) return dims.size() * pairs;
  return pairs + std::accumulate(dims.begin(), dims.end() - 1, std::uint64_t{0});
}

SequenceConstruction sequence_construction(const AapcSequenceOptions& options) { return choice_for(options).how; }

std::uint64_t pipelined_alg4_cycles(const std::vector<unsigned>& widths, unsigned m) {
  AapcSequenceOptions o;
  o.algorithm = AapcAlgorithm::alg4;
  o.pipelined = true;
  o.dims = widths;
  o.m = m;
  return choice_for(o).cycles;
}

bool uses_found_schedule(const AapcSequenceOptions& options) {
  return sequence_construction(options) == SequenceConstruction::found;
}

FoundCover found_cover(const AapcSequenceOptions& options) {
  return cover_of(found_for(options),
                  options.dims.empty() ? options.axes : static_cast<unsigned>(options.dims.size()));
}

std::uint64_t skewed_pipeline_cycles(const std::vector<unsigned>& widths, unsigned m) {
  return skewed::Layout(widths, m).cycles();
}

std::uint64_t pair_pipeline_lower_bound(const std::vector<unsigned>& widths, unsigned m) {
  return skewed::pair_lower_bound(widths, m);
}

std::uint64_t corollary2_cycles(AapcAlgorithm alg, unsigned d, unsigned m, unsigned axes) {
  const std::uint64_t half = bit(m - 1), rem = half % d;
  switch (alg) {
    case AapcAlgorithm::alg1: return d * ((half + d - 1) / d) + (axes - 1) * d;
    case AapcAlgorithm::alg2: return half + (axes - 1) * half;
    case AapcAlgorithm::alg3: return half + (axes - 1) * (d + rem);
    case AapcAlgorithm::alg4: return half + (axes - 1) * d;
  }
  return 0;
}

}  // namespace hcube

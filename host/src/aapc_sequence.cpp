#include "hcube/host/aapc_sequence.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "found_sequences.hpp"
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

// The SAT solver's schedule pipelined Algorithm 4 runs for `o`, or null: for
// equal orders two axes at a time (d = 3 on K = 8), else the orders it was
// found for (3,2, 3,1, 3,2,2, 3,3,2 on K = 8; 2,1 on K = 4).
const found::Sequence* found_for(const AapcSequenceOptions& o) {
  if (!o.pipelined || o.algorithm != AapcAlgorithm::alg4) return nullptr;
  const std::vector<unsigned> widths = o.dims.empty() ? std::vector<unsigned>(o.axes, o.d) : o.dims;
  if (widths.size() < 2) return nullptr;
  const unsigned m = o.m == 0 ? widths[0] : o.m;
  const bool equal = std::adjacent_find(widths.begin(), widths.end(), std::not_equal_to<>()) == widths.end();
  return found::sequence(equal ? std::vector<unsigned>{widths[0], widths[0]} : widths, m);
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
Schedule compose_unequal(const AapcSequenceOptions& o, unsigned m, const std::vector<AapcAlgorithm>& algs) {
  const std::vector<unsigned>& w = o.dims;
  const unsigned d1 = w[0], s_axes = static_cast<unsigned>(w.size());
  Schedule seq = unequal_header(o, m);
  std::vector<unsigned> offset(s_axes, 0);
  for (unsigned u = 1; u < s_axes; ++u) offset[u] = offset[u - 1] + w[u - 1];
  for (unsigned i = 0; i < s_axes; ++i)
    for (unsigned b = 0; b < w[i]; ++b) seq.offset_maps.push_back(pair_flip(w, i, b, d1));
  const std::uint64_t pairs = bit(m - 1);
  std::vector<PairMoves> aapc;
  std::vector<std::uint64_t> start(s_axes, 0);
  std::vector<std::vector<std::uint64_t>> slot_pair(s_axes);  // AAPC i's slot P carries pair slot_pair[i][P]
  std::vector<std::uint64_t> finish(pairs);                   // the cycle each pair left the previous AAPC
  for (unsigned i = 0; i < s_axes; ++i) {
    const PairMoves& pm = aapc.emplace_back(pair_moves(algs[i], w[i], m));
    std::vector<std::uint64_t> slots(pairs), ready(pairs);
    std::iota(slots.begin(), slots.end(), 0);
    std::iota(ready.begin(), ready.end(), 0);
    if (i > 0 && o.pipelined) {
      std::stable_sort(slots.begin(), slots.end(), [&](auto a, auto b) { return pm.first[a] < pm.first[b]; });
      std::stable_sort(ready.begin(), ready.end(), [&](auto a, auto b) { return finish[a] < finish[b]; });
      for (std::uint64_t k = 0; k < pairs; ++k)
        start[i] = std::max(start[i], finish[ready[k]] + 1 - std::min(finish[ready[k]] + 1, pm.first[slots[k]]));
    } else if (i > 0) {
      start[i] = start[i - 1] + aapc[i - 1].cycles.size();
    }
    slot_pair[i].resize(pairs);
    for (std::uint64_t k = 0; k < pairs; ++k) {
      slot_pair[i][slots[k]] = ready[k];
      finish[ready[k]] = start[i] + pm.last[slots[k]];
    }
  }
  std::uint64_t total = 0;
  for (unsigned i = 0; i < s_axes; ++i) total = std::max<std::uint64_t>(total, start[i] + aapc[i].cycles.size());
  for (std::uint64_t g = 0; g < total; ++g) {
    for (unsigned i = 0; i < s_axes; ++i) {
      if (g < start[i] || g - start[i] >= aapc[i].cycles.size()) continue;
      for (const auto& [P, b] : aapc[i].cycles[g - start[i]]) {
        const std::uint64_t low = insert_zero_bit(slot_pair[i][P], d1 - 1);
        const std::uint64_t addr = test_bit(low, b) ? low : low ^ low_mask(d1);
        seq.add(Exchange{offset[i] + b, addr, addr, 1 + offset[i] + b});
      }
    }
    seq.end_cycle();
  }
  return seq;
}

// Algorithm 4's necklace blocks are not pairs: on unequal orders it runs
// Algorithm 1's pair schedule where the order divides K/2 (K/2 cycles, span
// d_i) and Algorithm 3's elsewhere, or Algorithm 1's throughout when that is
// fewer cycles (a short last group can cost less than Algorithm 3's longer span).
Schedule make_unequal_sequence(const AapcSequenceOptions& o, unsigned m) {
  if (o.algorithm == AapcAlgorithm::alg2)
    throw Error("axes of unequal order run with AapcSequenceOptions::algorithm 1, 3 or 4: Algorithm 2's pairs span K/2 cycles");
  if (!o.order.empty()) throw Error("axes of unequal order run in the order 0, 1, ..., s-1 only");
  if (o.algorithm != AapcAlgorithm::alg4) return compose_unequal(o, m, std::vector<AapcAlgorithm>(o.dims.size(), o.algorithm));
  // Orders 3,2, 3,1, 3,2,2 and 3,3,2 on K = 8, 2,1 on K = 4: the solver's schedules, the fewest cycles.
  if (const found::Sequence* f = found_for(o)) {
    Schedule seq = unequal_header(o, m);
    std::vector<unsigned> axes(o.dims.size());
    std::iota(axes.begin(), axes.end(), 0u);
    found::append(seq, *f, axes, o.dims);
    return seq;
  }
  std::vector<AapcAlgorithm> mixed;
  for (unsigned w : o.dims) mixed.push_back(bit(m - 1) % w == 0 ? AapcAlgorithm::alg1 : AapcAlgorithm::alg3);
  Schedule best = compose_unequal(o, m, mixed);
  Schedule ones = compose_unequal(o, m, std::vector<AapcAlgorithm>(o.dims.size(), AapcAlgorithm::alg1));
  if (ones.cycles() < best.cycles()) best = std::move(ones);
  best.algorithm = "4";
  return best;
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
  AapcAlgorithm base = o.algorithm;
  const std::uint64_t half = bit(m - 1);
  if (o.pipelined && base == AapcAlgorithm::alg4) base = half % d == 0 ? AapcAlgorithm::alg1 : AapcAlgorithm::alg3;
  const Schedule one = make_aapc_schedule(AapcOptions{base, d, d, m, o.lines});

  Schedule seq = one.header();
  seq.algorithm = std::to_string(static_cast<int>(o.algorithm));
  seq.n = n;
  seq.axes = s_axes;
  // The file keeps a non-default order, so that `hcube run` can verify the shuffle it realises.
  for (unsigned t = 0; t < s_axes; ++t)
    if (order[t] != t) seq.axis_order = order;
  if (s_axes == 1) return make_aapc_schedule(AapcOptions{o.algorithm, d, d, m, o.lines});
  std::uint64_t lag = one.cycles();
  const std::vector<unsigned> widths(s_axes, d);
  // d = 3 on K = 8: two AAPCs at a time by the solver's 6-cycle schedule (Corollary 2 counts 7),
  // pair after pair, and Algorithm 4 alone for an odd last axis: 3s cycles, 3s + 1 for odd s,
  // against Corollary 2's 3s + 1 and the pair pipeline's 4s.
  if (const found::Sequence* two = found_for(o)) {
    for (unsigned t = 0; t + 1 < s_axes; t += 2) found::append(seq, *two, {order[t], order[t + 1]}, widths);
    if (s_axes % 2 == 1) {
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
    lag = max_pair_span(one);
    for (unsigned t = 0; t < s_axes; ++t)
      for (unsigned r = 0; r < d; ++r) seq.offset_maps.push_back(pair_flip(widths, order[t], r, d));
  } else {
    for (unsigned t = 0; t < s_axes; ++t) seq.offset_maps.push_back(other_axes(widths, order[t]));
  }
  const std::uint64_t total = one.cycles() + (s_axes - 1) * lag;
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

bool uses_found_schedule(const AapcSequenceOptions& options) { return found_for(options) != nullptr; }

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

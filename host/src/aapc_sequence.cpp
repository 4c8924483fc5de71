#include "hcube/host/aapc_sequence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "hcube/host/error.hpp"

namespace hcube {
namespace {

// Axis t's offset for the relative address: the node's other axes folded onto
// memory bits 0..d-1 (node bit k of axis u != t adds memory bit k mod d).
NodeOffsetMap other_axes(unsigned d, unsigned axes, unsigned t) {
  NodeOffsetMap map(d * axes, 0);
  for (unsigned k = 0; k < d * axes; ++k)
    if (k / d != t) map[k] = bit(k % d);
  return map;
}

// For a complement pair crossing dimension r of axis t: which member moves
// flips with bit r of the node's other axes, i.e. the address is xored with
// all d low bits when that parity is 1.
NodeOffsetMap pair_flip(unsigned d, unsigned axes, unsigned t, unsigned r) {
  NodeOffsetMap map(d * axes, 0);
  for (unsigned u = 0; u < axes; ++u)
    if (u != t) map[u * d + r] = low_mask(d);
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

}  // namespace

Schedule make_aapc_sequence(const AapcSequenceOptions& o) {
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
  if (s_axes == 1) return make_aapc_schedule(AapcOptions{o.algorithm, d, d, m, o.lines});
  std::uint64_t lag = one.cycles();
  if (o.pipelined) {
    lag = max_pair_span(one);
    for (unsigned t = 0; t < s_axes; ++t)
      for (unsigned r = 0; r < d; ++r) seq.offset_maps.push_back(pair_flip(d, s_axes, order[t], r));
  } else {
    for (unsigned t = 0; t < s_axes; ++t) seq.offset_maps.push_back(other_axes(d, s_axes, order[t]));
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

AddressMap shuffle_destination(const Geometry& geo, unsigned d, unsigned axes, std::vector<unsigned> order) {
  if (order.empty())
    for (unsigned t = 0; t < axes; ++t) order.push_back(t);
  return [geo, d, order](std::uint64_t g) {
    const std::uint64_t lo = low_mask(d);
    std::uint64_t node = geo.node_of(g), local = geo.local_of(g);
    // Each AAPC swaps the memory axis with the next axis of the order.
    for (unsigned u : order) {
      const std::uint64_t axis = (node >> (u * d)) & lo, mem = local & lo;
      node = (node & ~(lo << (u * d))) | (mem << (u * d));
      local = (local & ~lo) | axis;
    }
    return geo.global(node, local);
  };
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

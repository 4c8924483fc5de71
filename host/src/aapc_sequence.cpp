#include "hcube/host/aapc_sequence.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "hcube/core/error.hpp"

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

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// Pipelined lag between AAPC i-1 (order a) and AAPC i (order b): pairs leave
// AAPC i-1 a at a time every a cycles and enter AAPC i b at a time every b
// cycles; the latest-ready group of AAPC i waits a + b - gcd(a, b) cycles.
std::uint64_t unequal_lag(unsigned a, unsigned b) { return a + b - std::gcd(a, b); }

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

// The cycle each AAPC of unequal orders starts in, and the total: AAPC i
// after AAPC i-1's lag (pipelined) or its whole d ceil(K/2d) cycles.
std::vector<std::uint64_t> unequal_starts(const std::vector<unsigned>& w, unsigned m, bool pipelined,
                                          std::uint64_t* total) {
  const std::uint64_t pairs = bit(m - 1);
  std::vector<std::uint64_t> start(w.size(), 0);
  for (std::size_t i = 1; i < w.size(); ++i)
    start[i] = start[i - 1] + (pipelined ? unequal_lag(w[i - 1], w[i]) : w[i - 1] * ceil_div(pairs, w[i - 1]));
  *total = start.back() + w.back() * ceil_div(pairs, w.back());
  return start;
}

// Sec. 4.1: Algorithm 1 on axes of different orders. Every AAPC keeps the
// complement pairs of the first (a d_1-complement pair is a d_i-complement
// pair in the low d_i bits), taking them d_i at a time in the same order.
Schedule make_unequal_sequence(const AapcSequenceOptions& o, unsigned m) {
  const std::vector<unsigned>& w = o.dims;
  const unsigned d1 = w[0], s_axes = static_cast<unsigned>(w.size());
  if (o.algorithm != AapcAlgorithm::alg1)
    throw Error(fmt::format("axes of unequal order ({}) need --algorithm 1 (sec. 4.1): Algorithm {} regroups its "
                            "addresses when the order changes",
                            fmt::join(w, ","), static_cast<int>(o.algorithm)));
  if (!o.order.empty()) throw Error("axes of unequal order run in the order 0, 1, ..., s-1 only");
  Schedule seq;
  seq.algorithm = "1";
  seq.d = d1;
  seq.m = m;
  seq.axes = s_axes;
  seq.axis_dims = w;
  std::vector<unsigned> offset(s_axes, 0);
  for (unsigned u = 1; u < s_axes; ++u) offset[u] = offset[u - 1] + w[u - 1];
  seq.n = offset.back() + w.back();
  // Node dimension k = offset[i] + b: which pair member crosses flips with bit b of the other axes.
  for (unsigned i = 0; i < s_axes; ++i)
    for (unsigned b = 0; b < w[i]; ++b) {
      NodeOffsetMap map(seq.n, 0);
      for (unsigned u = 0; u < s_axes; ++u)
        if (u != i && b < w[u]) map[offset[u] + b] = low_mask(d1);
      seq.offset_maps.push_back(std::move(map));
    }
  const std::uint64_t pairs = bit(m - 1);
  std::uint64_t total = 0;
  const std::vector<std::uint64_t> start = unequal_starts(w, m, o.pipelined, &total);
  // Pair p: its low member has bit d1-1 clear (p with that bit inserted).
  const auto low_of = [d1](std::uint64_t p) { return insert_zero_bit(p, d1 - 1); };
  for (std::uint64_t g = 0; g < total; ++g) {
    for (unsigned i = 0; i < s_axes; ++i) {
      if (g < start[i]) continue;
      const std::uint64_t h = (g - start[i]) / w[i], c = (g - start[i]) % w[i];
      for (std::uint64_t j = 0; j < w[i]; ++j) {
        const std::uint64_t p = h * w[i] + j;
        if (p >= pairs) break;
        const unsigned b = static_cast<unsigned>((j + c) % w[i]);
        const std::uint64_t low = low_of(p), addr = test_bit(low, b) ? low : low ^ low_mask(d1);
        seq.add(Exchange{offset[i] + b, addr, addr, 1 + offset[i] + b});
      }
    }
    seq.end_cycle();
  }
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
  std::uint64_t total = 0;
  unequal_starts(dims, m, pipelined, &total);
  return total;
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

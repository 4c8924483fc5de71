#include "hcube/host/aapc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <numeric>

#include "hcube/core/error.hpp"
#include "hcube/host/necklace.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

AapcAlgorithm parse_aapc_algorithm(const std::string& s) {
  if (s == "1") return AapcAlgorithm::alg1;
  if (s == "2") return AapcAlgorithm::alg2;
  if (s == "3") return AapcAlgorithm::alg3;
  if (s == "4") return AapcAlgorithm::alg4;
  throw Error(fmt::format("algorithm '{}' unknown: allowed 1, 2, 3, 4", printable_input(s)));
}

LineDrawing parse_line_drawing(const std::string& s) {
  if (s == "diagonal" || s == "1") return LineDrawing::diagonal;
  if (s == "type1") return LineDrawing::type1;
  if (s == "greedy" || s == "type2" || s == "2") return LineDrawing::greedy;
  throw Error(fmt::format("line drawing '{}' unknown: allowed diagonal, type1 (the paper's), greedy (type2)",
                          printable_input(s)));
}

PairOrder parse_pair_order(const std::string& s) {
  if (s == "split") return PairOrder::split;
  if (s == "table5") return PairOrder::table5;
  throw Error(fmt::format("pair order '{}' unknown: allowed split, table5 (the paper's Table 5)", printable_input(s)));
}

std::string to_string(PairOrder o) { return o == PairOrder::split ? "split" : "table5"; }

std::string to_string(LineDrawing l) {
  switch (l) {
    case LineDrawing::diagonal: return "diagonal";
    case LineDrawing::type1: return "type1";
    case LineDrawing::greedy: break;
  }
  return "greedy";
}

namespace {

// The member of a complement pair (x, x xor (2^d - 1)) that must cross dimension
// k: exactly one of the two has relative bit k set.
std::uint64_t pair_member(std::uint64_t x, unsigned k, unsigned d) { return test_bit(x, k) ? x : x ^ low_mask(d); }

// Pair P of the K/2 complement pairs over all local addresses: the low member
// is (P >> (d-1)) << d | (P mod 2^(d-1)), its partner differs in the low d bits.
std::uint64_t pair_low(std::uint64_t P, unsigned d) { return ((P >> (d - 1)) << d) | (P & low_mask(d - 1)); }

// The pair that Algorithms 1-3 schedule as pair (label) u. Algorithm 2 runs
// on labels 0..head-1; with PairOrder::split its d - 1 wrapping labels
// head - k (k = 1..d-1) take the pairs 2^k - 1, whose member with bits 0..k-1
// crosses only in the last k steps and the other only in the first d - k
// (sec. 3.2), and every other label the other pairs in increasing order.
struct PairLabels {
  std::uint64_t head = 0;  // Algorithm 2's pairs; 0: labels are pair indices
  unsigned d = 1;
  PairOrder order = PairOrder::table5;

  std::uint64_t pair(std::uint64_t u) const {
    if (order == PairOrder::table5 || head < d) return u;
    if (u + d > head && u < head) return low_mask(static_cast<unsigned>(head - u));
    std::uint64_t P = u < head ? u : u - (d - 1);  // the P-th pair that is no 2^k - 1 ...
    for (unsigned k = 1; k < d; ++k)
      if (low_mask(k) <= P) ++P;  // ... skipping them in increasing order
    return P;
  }
};

// Alg. 1 (sec. 3.1, Figure 2): groups of d pairs; in step r of a group pair v
// crosses dimension (v + r) mod d. A short last group still takes d steps.
void add_alg1(Schedule& s, const PairLabels& labels, std::uint64_t first, std::uint64_t count) {
  const unsigned d = labels.d;
  for (std::uint64_t g = 0; g < count; g += d)
    for (unsigned r = 0; r < d; ++r) {
      for (std::uint64_t v = 0; v < std::min<std::uint64_t>(d, count - g); ++v) {
        const unsigned k = static_cast<unsigned>((v + r) % d);
        s.add(direct_exchange(k, pair_member(pair_low(labels.pair(first + g + v), d), k, d)));
      }
      s.end_cycle();
    }
}

// Alg. 2 (sec. 3.2, Table 5) on the labels' head pairs: pair u crosses
// dimension r in step (u + r) mod head, so every step has one pair on every dimension.
void add_alg2(Schedule& s, const PairLabels& labels) {
  const std::uint64_t count = labels.head;
  for (std::uint64_t t = 0; t < count; ++t) {
    for (unsigned r = 0; r < labels.d; ++r) {
      const std::uint64_t u = (t + count - r % count) % count;
      s.add(direct_exchange(r, pair_member(pair_low(labels.pair(u), labels.d), r, labels.d)));
    }
    s.end_cycle();
  }
}

using Grid = std::vector<std::vector<std::uint64_t>>;  // [cycle t][dimension k] -> address

// The leftover c cyclic pairs with the full q-necklace of 0^c 1^q (q = d - c),
// sec. 3.5.2-3.5.3, by the closed form ("type 1", diagonal lines): necklace
// member r makes its e-th exchange (dimension r + e) in cycle r + e - o, where
// o is the e-th free column counted from the right; pair u holds column s_u,
// crossing dimension t + s_u in cycle t. The pair columns S are the last c
// columns; that needs e - o distinct mod d, which fails for d even with
// c < d/2, where one pair column is skewed to d/2 - 1 (S = {0..c-2, d/2-1}).
Grid mixed_block_diagonal(const std::vector<std::uint64_t>& pairs, unsigned d) {
  const unsigned c = static_cast<unsigned>(pairs.size()), q = d - c;
  const auto columns_work = [&](const std::vector<unsigned>& S) {
    std::vector<unsigned> O;
    for (unsigned o = 0; o < d; ++o)
      if (std::find(S.begin(), S.end(), o) == S.end()) O.push_back(o);
    std::vector<bool> seen(d, false);
    for (unsigned i = 0; i < q; ++i) {
      const unsigned v = (O[i] + i) % d;  // e - o + const for e = q-1-i
      if (seen[v]) return std::vector<unsigned>{};
      seen[v] = true;
    }
    return O;
  };
  std::vector<unsigned> S(c);
  std::iota(S.begin(), S.end(), q);
  std::vector<unsigned> O = columns_work(S);
  if (O.empty()) {
    std::iota(S.begin(), S.end(), 0u);
    S.back() = d / 2 - 1;
    O = columns_work(S);
  }
  if (O.empty()) throw Error(fmt::format("internal: no diagonal line drawing for d = {}, c = {}", d, c));
  const std::uint64_t seed = low_mask(q);  // 0^c 1^q
  Grid grid(d, std::vector<std::uint64_t>(d));
  for (unsigned t = 0; t < d; ++t) {
    for (unsigned i = 0; i < q; ++i) {
      const unsigned k = (t + O[i]) % d, e = q - 1 - i;
      grid[t][k] = rotate_left(seed, (k + d - e) % d, d);
    }
    for (unsigned u = 0; u < c; ++u) {
      const unsigned k = (t + S[u]) % d;
      grid[t][k] = pair_member(pairs[u], k, d);
    }
  }
  return grid;
}

// The paper's lines give each member distinct dimensions 2i + j (i < q) when
// d is odd or q <= d/2 (sec. 3.5.3); at q = d/2 the members {0, 2, ...} repeat
// after two rotations, not a full necklace, so the block needs q < d/2 there.
bool type1_lines_distinct(unsigned d, unsigned q) { return d % 2 == 1 || 2 * q < d; }

// The paper's type 1 (sec. 3.5.3, Figure 3 left, Table 7 left): line i lies in
// row i of the generating table (entry (row + column) mod d) from its diagonal
// to the right, so member j's entry on line i is dimension (2i + j) mod d in
// column (time step) (i + j) mod d; pair u keeps row q + u, crossing dimension
// (q + u + t) mod d in step t. In step t the members use t .. t + q - 1.
Grid mixed_block_type1(const std::vector<std::uint64_t>& pairs, unsigned d) {
  const unsigned c = static_cast<unsigned>(pairs.size()), q = d - c;
  const std::uint64_t seed = alg4_mixed_seed(d, c, LineDrawing::type1);
  Grid grid(d, std::vector<std::uint64_t>(d));
  for (unsigned j = 0; j < d; ++j)
    for (unsigned i = 0; i < q; ++i) grid[(i + j) % d][(2 * i + j) % d] = rotate_left(seed, j, d);
  for (unsigned t = 0; t < d; ++t)
    for (unsigned u = 0; u < c; ++u) {
      const unsigned k = (q + u + t) % d;
      grid[t][k] = pair_member(pairs[u], k, d);
    }
  return grid;
}

// The same block as a bipartite edge colouring ("type 2", greedy lines; for
// c = 1 the paper's Table 7, mixed_block_one_pair): the c
// pairs (each needing all d dimensions) and the d necklace members (each its q
// dimensions) on one side, dimensions on the other, cycles as colours. Every
// vertex has degree at most d, so d colours suffice (Konig); edges take the
// first colour free at both ends, and when there is none an alternating path
// of two colours is swapped to free one.
// Table 7's type-2 block for one leftover pair (the paper prints d = 5): member
// r of the (d-1)-necklace crosses its dimensions r, r+1, ... in order, idle in
// cycle (q - r) mod d; the pair crosses dimension t + q in cycle t. At cycle t
// the members use dimensions t .. t+q-1, each once, for every d.
Grid mixed_block_one_pair(std::uint64_t pair, unsigned d) {
  const unsigned q = d - 1;
  Grid grid(d, std::vector<std::uint64_t>(d));
  for (unsigned r = 0; r < d; ++r) {
    const std::uint64_t member = rotate_left(low_mask(q), r, d);
    const unsigned idle = (q + d - r) % d;
    for (unsigned t = 0, e = 0; t < d; ++t)
      if (t != idle) grid[t][(r + e++) % d] = member;
  }
  for (unsigned t = 0; t < d; ++t) grid[t][(t + q) % d] = pair_member(pair, (t + q) % d, d);
  return grid;
}

Grid mixed_block_greedy(const std::vector<std::uint64_t>& pairs, unsigned d) {
  const unsigned c = static_cast<unsigned>(pairs.size()), q = d - c;
  if (c == 1) return mixed_block_one_pair(pairs[0], d);
  const std::uint64_t seed = low_mask(q);
  std::vector<std::uint64_t> left_addr_base;  // per left vertex: pair low member or necklace member
  std::vector<std::vector<unsigned>> left_dims;
  for (unsigned u = 0; u < c; ++u) {
    left_addr_base.push_back(pairs[u]);
    std::vector<unsigned> all(d);
    std::iota(all.begin(), all.end(), 0u);
    left_dims.push_back(all);
  }
  for (unsigned r = 0; r < d; ++r) {
    left_addr_base.push_back(rotate_left(seed, r, d));
    std::vector<unsigned> mine;
    for (unsigned e = 0; e < q; ++e) mine.push_back((r + e) % d);
    left_dims.push_back(mine);
  }
  const int L = static_cast<int>(left_dims.size());
  std::vector<std::vector<int>> lc(L, std::vector<int>(d, -1)), rc(d, std::vector<int>(d, -1));
  const auto free_at = [&](const std::vector<int>& row) {
    return static_cast<unsigned>(std::find(row.begin(), row.end(), -1) - row.begin());
  };
  for (int v = 0; v < L; ++v)
    for (unsigned k : left_dims[v]) {
      const unsigned a = free_at(lc[v]), b = free_at(rc[k]);
      if (rc[k][a] != -1) {
        // Swap colours a and b along the path leaving k by its a-edge; it cannot reach v.
        std::vector<std::array<int, 3>> path;
        for (int kk = static_cast<int>(k);;) {
          const int w = rc[kk][a];
          if (w < 0) break;
          path.push_back({w, kk, static_cast<int>(a)});
          const int next = lc[w][b];
          if (next < 0) break;
          path.push_back({w, next, static_cast<int>(b)});
          kk = next;
        }
        for (const auto& [w, kk, col] : path) lc[w][col] = rc[kk][col] = -1;
        for (const auto& [w, kk, col] : path) {
          const int other = col == static_cast<int>(a) ? static_cast<int>(b) : static_cast<int>(a);
          lc[w][other] = kk;
          rc[kk][other] = w;
        }
      }
      lc[v][a] = static_cast<int>(k);
      rc[k][a] = v;
    }
  Grid grid(d, std::vector<std::uint64_t>(d));
  for (unsigned t = 0; t < d; ++t)
    for (unsigned k = 0; k < d; ++k) {
      const int v = rc[k][t];
      if (v < 0) throw Error(fmt::format("internal: greedy line drawing left cycle {} dimension {} empty", t, k));
      grid[t][k] = v < static_cast<int>(c) ? pair_member(left_addr_base[v], k, d) : left_addr_base[v];
    }
  return grid;
}

// Alg. 4 on the d relative-address bits, appended to s: blocks of d cyclic
// pairs, the mixed block, then every other full q-necklace in q cycles
// (Lemma 2). Every cycle has exactly d exchanges, dimension k at entry k's
// slot in the order emitted.
void add_alg4(Schedule& s, unsigned d, LineDrawing lines) {
  const std::vector<std::uint64_t> lows = cyclic_pair_lows(d);
  const std::size_t p = lows.size(), c = p % d;
  for (std::size_t blk = 0; blk + c < p; blk += d)
    for (unsigned r = 0; r < d; ++r) {
      for (unsigned v = 0; v < d; ++v) {
        const unsigned k = (v + r) % d;
        s.add(direct_exchange(k, pair_member(lows[blk + v], k, d)));
      }
      s.end_cycle();
    }
  std::uint64_t mixed_seed = ~std::uint64_t{0};
  if (c > 0) {
    const std::vector<std::uint64_t> rest(lows.end() - static_cast<std::ptrdiff_t>(c), lows.end());
    const Grid grid = alg4_mixed_block(rest, d, lines);
    for (unsigned t = 0; t < d; ++t) {
      for (unsigned k = 0; k < d; ++k) s.add(direct_exchange(k, grid[t][k]));
      s.end_cycle();
    }
    // The necklace by its smallest rotation, as necklaces() names it.
    const std::uint64_t seed = alg4_mixed_seed(d, static_cast<unsigned>(c), lines);
    mixed_seed = seed;
    for (unsigned r = 1; r < d; ++r) mixed_seed = std::min(mixed_seed, rotate_left(seed, r, d));
  }
  // The other full necklaces, each followed by its complement necklace (the
  // two are d complement pairs: a group of Table 8), then the ones whose
  // complement is the mixed block's necklace.
  const std::vector<Necklace> all = necklaces(d);
  const auto index_of = [&](std::uint64_t x) {
    for (std::size_t k = 0; k < all.size(); ++k)
      for (unsigned r = 0; r < d; ++r)
        if (rotate_left(all[k].first, r, d) == x) return k;
    throw Error(fmt::format("internal: address {} in no necklace", x));
  };
  std::vector<std::size_t> order, leftover;
  std::vector<bool> placed(all.size(), false);
  for (std::size_t k = 0; k < all.size(); ++k) {
    const Necklace& nk = all[k];
    if (placed[k] || !nk.full(d) || nk.weight == 0 || nk.first == mixed_seed) continue;
    placed[k] = true;
    const std::size_t comp = index_of(nk.first ^ low_mask(d));
    if (all[comp].first == mixed_seed) {
      leftover.push_back(k);
      continue;
    }
    order.push_back(k);
    if (!placed[comp]) {
      placed[comp] = true;
      order.push_back(comp);
    }
  }
  order.insert(order.end(), leftover.begin(), leftover.end());
  for (std::size_t k : order) {
    const Necklace& nk = all[k];
    for (unsigned i = 0; i < d; ++i) {
      if (!test_bit(nk.first, i)) continue;
      // Member r (rotation by r) crosses dimension i + r: all d dimensions busy.
      for (unsigned r = 0; r < d; ++r) s.add(direct_exchange((i + r) % d, rotate_left(nk.first, r, d)));
      s.end_cycle();
    }
  }
}

}  // namespace

std::vector<std::vector<std::uint64_t>> alg4_mixed_block(const std::vector<std::uint64_t>& pair_lows, unsigned d,
                                                         LineDrawing lines) {
  if (pair_lows.empty() || pair_lows.size() >= d)
    throw Error(fmt::format("mixed block needs 1..{} pairs, got {}", d - 1, pair_lows.size()));
  switch (lines) {
    case LineDrawing::diagonal: return mixed_block_diagonal(pair_lows, d);
    case LineDrawing::type1:
      // Where the paper's lines collide (d even, q > d/2) it leaves the skew open: hcube's diagonal is drawn.
      return type1_lines_distinct(d, d - static_cast<unsigned>(pair_lows.size())) ? mixed_block_type1(pair_lows, d)
                                                                                 : mixed_block_diagonal(pair_lows, d);
    case LineDrawing::greedy: break;
  }
  return mixed_block_greedy(pair_lows, d);
}

std::uint64_t alg4_mixed_seed(unsigned d, unsigned c, LineDrawing lines) {
  const unsigned q = d - c;
  if (lines != LineDrawing::type1 || !type1_lines_distinct(d, q)) return low_mask(q);
  std::uint64_t seed = 0;
  for (unsigned i = 0; i < q; ++i) seed |= std::uint64_t{1} << ((2 * i) % d);
  return seed;
}

std::optional<Alg4MixedBlock> alg4_mixed_block_of(unsigned d, LineDrawing lines) {
  const std::vector<std::uint64_t> lows = cyclic_pair_lows(d);
  const std::size_t p = lows.size(), c = p % d;
  if (c == 0) return std::nullopt;
  return Alg4MixedBlock{(p - c) / d * d, std::vector<std::uint64_t>(lows.end() - static_cast<std::ptrdiff_t>(c), lows.end()),
                        alg4_mixed_seed(d, static_cast<unsigned>(c), lines)};
}

void check_aapc_dimensions(long long d, long long n, long long m) {
  if (d < 1 || d > 32) throw Error(fmt::format("AAPC dimension d = {} out of range: allowed 1..32", d));
  if (n < d) throw Error(fmt::format("d = {} exceeds the processor dimensions n = {}: allowed d <= n", d, n));
  if (m < d) throw Error(fmt::format("d = {} exceeds the memory dimensions m = {}: allowed d <= m", d, m));
  if (n + m > static_cast<long long>(kMaxAddressBits))
    throw Error(fmt::format("n + m = {} + {} = {} out of range: allowed at most {}", n, m, n + m, kMaxAddressBits));
}

Schedule make_aapc_schedule(const AapcOptions& o) {
  Schedule s;
  s.d = o.d;
  s.n = o.n == 0 ? o.d : o.n;
  s.m = o.m == 0 ? o.d : o.m;
  check_aapc_dimensions(s.d, s.n, s.m);
  s.algorithm = std::to_string(static_cast<int>(o.algorithm));
  const unsigned d = o.d;
  const std::uint64_t pairs = bit(s.m - 1);  // K/2
  // Alg. 1 may leave its last group short; the others run exactly K/2 cycles of d exchanges.
  const std::uint64_t cycles = o.algorithm == AapcAlgorithm::alg1 ? d * ((pairs + d - 1) / d) : pairs;
  s.reserve(cycles, pairs * d);
  switch (o.algorithm) {
    case AapcAlgorithm::alg1:
      add_alg1(s, PairLabels{0, d, PairOrder::table5}, 0, pairs);
      break;
    case AapcAlgorithm::alg2:
      add_alg2(s, PairLabels{pairs, d, o.pairs});
      break;
    case AapcAlgorithm::alg3: {
      // Alg. 3 (sec. 3.3): Alg. 2 on d + (K/2 mod d) pairs, Alg. 1 on the rest.
      const PairLabels labels{d + pairs % d, d, o.pairs};
      add_alg2(s, labels);
      add_alg1(s, labels, labels.head, pairs - labels.head);
      break;
    }
    case AapcAlgorithm::alg4: {
      s.lines = to_string(o.lines);
      add_alg4(s, d, o.lines);
      // K > 2^d repeats the AAPC on each value of the high memory bits (sec. 2.1).
      s.repeat_with_high_bits(d, bit(s.m - d));
      break;
    }
  }
  return s;
}

Schedule block_schedule(const Schedule& s) {
  const ScheduleStats st = check_schedule(s);
  Schedule b = s.header();
  b.blocked = true;
  b.rules.channel_width = static_cast<unsigned>(std::max<std::uint64_t>(1, st.max_block_size));
  for (std::uint64_t r = 0; r < st.block_transfers; ++r) {
    for (std::size_t c = r; c < s.cycles(); c += st.block_transfers)
      for (std::size_t e = 0; e < s.cycle_size(c); ++e) b.add(s.cycle_begin(c)[e]);
    b.end_cycle();
  }
  return b;
}

Schedule widen_schedule(const Schedule& s, unsigned width) {
  if (width < 1) throw Error("channel width b = 0 out of range: allowed at least 1");
  if (width == 1 || s.cycles() == 0) return s;  // the schedule already is optimal for b = 1
  const ScheduleStats st = check_schedule(s);
  const std::uint64_t T = st.block_transfers;  // Table 8's rows: cycle c in row c mod T
  Schedule w = s.header();
  w.rules.channel_width = width;
  if (T > 0 && width <= s.cycles() / T) {
    // Table 9 (sec. 6): row by row, right to left, b cycles a step. Two cycles
    // that share an address lie less than T apart, so at least a row's length
    // (>= floor(cycles / T) >= b) apart in this order (Lemma 5's proof): never in one step.
    std::size_t in_step = 0;
    for (std::uint64_t r = 0; r < T; ++r)
      for (std::uint64_t c = r + (s.cycles() - 1 - r) / T * T;; c -= T) {
        for (std::size_t e = 0; e < s.cycle_size(c); ++e) w.add(s.cycle_begin(c)[e]);
        if (++in_step == width) {
          w.end_cycle();
          in_step = 0;
        }
        if (c < T) break;
      }
    if (in_step > 0) w.end_cycle();
    return w;
  }
  // Fewer than b cycles in some row: each block transfer split on its own.
  const Schedule blocked = block_schedule(s);
  for (std::size_t r = 0; r < blocked.cycles(); ++r) {
    std::vector<std::vector<Exchange>> per_dim(s.n);
    for (std::size_t e = 0; e < blocked.cycle_size(r); ++e) {
      const Exchange& x = blocked.cycle_begin(r)[e];
      per_dim[x.dim].push_back(x);
    }
    std::size_t longest = 0;
    for (const auto& l : per_dim) longest = std::max(longest, l.size());
    // Each address appears once in a block transfer, so any split is legal.
    for (std::size_t lo = 0; lo < longest; lo += width) {
      for (const auto& l : per_dim)
        for (std::size_t i = lo; i < std::min(l.size(), lo + width); ++i) w.add(l[i]);
      w.end_cycle();
    }
  }
  return w;
}

AapcBounds paper_bounds(AapcAlgorithm alg, unsigned d, unsigned m) {
  const std::uint64_t half = bit(m - 1), rem = half % d;
  const auto ceil_div = [](std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; };
  AapcBounds b;
  switch (alg) {
    case AapcAlgorithm::alg1: b = {d * ceil_div(half, d), d, d, 0, 2 * (rem == 0 ? d : rem), 2 * d}; break;
    case AapcAlgorithm::alg2: b = {half, half, half, 0, 2 * d, 2 * d}; break;
    case AapcAlgorithm::alg3: b = {half, d + rem, d + rem, 0, 2 * d, 2 * (d + rem)}; break;
    case AapcAlgorithm::alg4: b = {half, d, d, 0, 0, 0}; break;
  }
  b.max_block_size = ceil_div(b.cycles, b.block_transfers);
  return b;
}

std::uint64_t lemma5_cycles(unsigned d, unsigned m, unsigned b) {
  const std::uint64_t K = bit(m), denom = std::uint64_t{2} * d * b;
  return d * ((K + denom - 1) / denom);
}

std::uint64_t wide_channel_cycles(unsigned d, unsigned m, unsigned b) {
  const std::uint64_t half = bit(m - 1);
  return half / d >= b ? (half + b - 1) / b : d;
}

}  // namespace hcube

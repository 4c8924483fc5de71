#include "hcube/host/fft_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/geometry.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

FftOrder parse_fft_order(const std::string& s) {
  if (s == "natural") return FftOrder::natural;
  if (s == "bit-reversed" || s == "bit_reversed" || s == "bitreversed") return FftOrder::bit_reversed;
  throw Error(fmt::format("FFT order '{}' unknown: allowed natural, bit-reversed", printable_input(s)));
}

std::string to_string(FftOrder o) { return o == FftOrder::natural ? "natural" : "bit-reversed"; }

// --- BitAffine ----------------------------------------------------------------

BitAffine BitAffine::identity(unsigned bits) {
  BitAffine a;
  a.bits = bits;
  for (unsigned b = 0; b < bits; ++b) a.columns.push_back(bit(b));
  return a;
}

BitAffine BitAffine::permutation(const std::vector<unsigned>& to) {
  BitAffine a;
  a.bits = static_cast<unsigned>(to.size());
  std::uint64_t seen = 0;
  for (unsigned t : to) {
    if (t >= a.bits || test_bit(seen, t))
      throw Error(fmt::format("bit permutation of {} bits maps onto bit {} twice or out of range", a.bits, t));
    seen |= bit(t);
    a.columns.push_back(bit(t));
  }
  return a;
}

std::uint64_t BitAffine::apply(std::uint64_t x) const {
  std::uint64_t y = constant;
  for (unsigned b = 0; b < bits; ++b)
    if (test_bit(x, b)) y ^= columns[b];
  return y;
}

BitAffine BitAffine::then(const BitAffine& next) const {
  if (next.bits != bits) throw Error("internal: composed bit maps of different widths");
  BitAffine r;
  r.bits = bits;
  for (unsigned b = 0; b < bits; ++b) r.columns.push_back(next.apply(columns[b]) ^ next.constant);
  r.constant = next.apply(constant);
  return r;
}

BitAffine BitAffine::inverse() const {
  // Gauss-Jordan on [A | I], rows as bit masks: row r of A is bit r of every column.
  std::vector<std::uint64_t> rows(bits, 0), inv(bits, 0);
  for (unsigned r = 0; r < bits; ++r) {
    for (unsigned c = 0; c < bits; ++c)
      if (test_bit(columns[c], r)) rows[r] |= bit(c);
    inv[r] = bit(r);
  }
  for (unsigned c = 0; c < bits; ++c) {
    unsigned p = c;
    while (p < bits && !test_bit(rows[p], c)) ++p;
    if (p == bits) throw Error("internal: a bit map that should be a bijection is singular");
    std::swap(rows[p], rows[c]);
    std::swap(inv[p], inv[c]);
    for (unsigned r = 0; r < bits; ++r)
      if (r != c && test_bit(rows[r], c)) {
        rows[r] ^= rows[c];
        inv[r] ^= inv[c];
      }
  }
  // Now rows = I and inv holds the rows of A^-1; turn them back into columns.
  BitAffine r;
  r.bits = bits;
  r.columns.assign(bits, 0);
  for (unsigned row = 0; row < bits; ++row)
    for (unsigned c = 0; c < bits; ++c)
      if (test_bit(inv[row], c)) r.columns[c] |= bit(row);
  // x = A^-1 (y xor c) = A^-1 y xor A^-1 c.
  BitAffine lin = r;
  r.constant = lin.apply(constant);
  return r;
}

bool BitAffine::is_permutation() const {
  if (constant != 0) return false;
  std::uint64_t seen = 0;
  for (std::uint64_t c : columns) {
    if (popcount(c) != 1 || (seen & c) != 0) return false;
    seen |= c;
  }
  return true;
}

unsigned BitAffine::bit_target(unsigned b) const {
  return static_cast<unsigned>(__builtin_ctzll(columns[b]));
}

// --- orders ---------------------------------------------------------------------

std::uint64_t cyclic_address(std::uint64_t x, unsigned n, unsigned m) {
  return ((x & low_mask(n)) << m) | (x >> n);
}

std::uint64_t fft_result_address(std::uint64_t i, unsigned n, unsigned m, FftOrder order) {
  return order == FftOrder::natural ? cyclic_address(i, n, m) : i;
}

// --- the plan ---------------------------------------------------------------------

unsigned FftPlan::stages() const {
  return static_cast<unsigned>(
      std::count_if(steps.begin(), steps.end(), [](const FftStep& s) { return s.kind == FftStep::Kind::stage; }));
}

unsigned FftPlan::aapcs() const { return static_cast<unsigned>(steps.size()) - stages(); }

std::vector<unsigned> FftPlan::aapc_dims() const {
  std::vector<unsigned> d;
  for (const FftStep& s : steps)
    if (s.kind == FftStep::Kind::aapc) d.push_back(static_cast<unsigned>(s.swaps.size()));
  return d;
}

std::vector<FftSegment> FftPlan::segments() const {
  std::vector<FftSegment> segs;
  std::size_t i = 0;
  while (i < steps.size()) {
    FftSegment seg;
    seg.first_step = i;
    while (i < steps.size() && steps[i].kind == FftStep::Kind::aapc) {
      ++seg.aapcs;
      ++i;
    }
    seg.stage_step = i;
    if (i < steps.size()) seg.hi = steps[i].index_bit;
    while (i < steps.size() && steps[i].kind == FftStep::Kind::stage) seg.lo = steps[i++].index_bit;
    seg.end_step = i;
    segs.push_back(seg);
  }
  return segs;
}

std::string FftPlan::describe() const {
  std::string s = fmt::format("FFT of 2^{} points on 2^{} nodes of 2^{} words, {} order: {} stages, {} AAPCs\n", q(), n,
                              m, to_string(order), stages(), aapcs());
  for (const FftSegment& seg : segments()) {
    for (std::size_t i = seg.first_step; i < seg.stage_step; ++i) {
      std::string bits;
      for (const FftSwap& w : steps[i].swaps) bits += fmt::format("{}m{}<->n{}", bits.empty() ? "" : " ", w.mem_bit, w.node_bit);
      s += fmt::format("  AAPC d = {}: {}\n", steps[i].swaps.size(), bits);
    }
    if (seg.stage_step < seg.end_step)
      s += fmt::format("  stages on index bits {} .. {}\n", seg.hi, seg.lo);
  }
  return s;
}

namespace {

// Logical index bit -> address bit (memory bits 0 .. m-1, node bit k at m + k).
std::vector<unsigned> target_bits(unsigned n, unsigned m, FftOrder order) {
  const unsigned q = n + m;
  std::vector<unsigned> t(q);
  for (unsigned b = 0; b < q; ++b) {
    if (order == FftOrder::bit_reversed)
      t[b] = b;  // address = t
    else
      t[b] = b < m ? m - 1 - b : m + q - 1 - b;  // address = cyclic_address(rev_q(t))
  }
  return t;
}

}  // namespace

FftPlan plan_fft(unsigned n, unsigned m, FftOrder order) {
  if (m < 1)
    throw Error(fmt::format("an FFT on 2^{} nodes of 2^{} words: each node needs at least 2 points (m >= 1)", n, m));
  if (n + m > kMaxAddressBits)
    throw Error(fmt::format("an FFT of 2^{} points out of range: allowed at most 2^{}", n + m, kMaxAddressBits));
  const unsigned q = n + m;
  FftPlan plan;
  plan.n = n;
  plan.m = m;
  plan.order = order;

  std::vector<unsigned> pos(q), occ(q);  // logical bit -> address bit, and back
  for (unsigned b = 0; b < q; ++b) pos[b] = b < n ? m + b : b - n;
  for (unsigned b = 0; b < q; ++b) occ[pos[b]] = b;
  plan.initial = BitAffine::permutation(pos);
  const std::vector<unsigned> target = target_bits(n, m, order);
  plan.target = BitAffine::permutation(target);

  int next = static_cast<int>(q) - 1;  // the highest index bit not transformed yet
  const auto done = [&](unsigned b) { return static_cast<int>(b) > next; };
  const auto in_memory = [&](unsigned b) { return pos[b] < m; };
  const auto placed = [&] {
    for (unsigned b = 0; b < q; ++b)
      if (target[b] >= m && pos[b] != target[b]) return false;
    return true;
  };
  // Each AAPC places at least one finished bit or brings the next bit closer;
  // far fewer than this are ever needed (the tests check every n, m up to 24 bits).
  const unsigned limit = 4 * q + 8;
  while (true) {
    while (next >= 0 && in_memory(static_cast<unsigned>(next))) {
      FftStep st;
      st.kind = FftStep::Kind::stage;
      st.index_bit = static_cast<unsigned>(next--);
      plan.steps.push_back(st);
    }
    if (next < 0 && placed()) break;
    if (plan.aapcs() >= limit) throw Error(fmt::format("internal: FFT plan for n = {}, m = {} does not converge", n, m));

    std::vector<FftSwap> swaps;
    std::vector<bool> mem_used(m, false), node_used(n, false);
    const auto add = [&](unsigned mem_bit, unsigned node_bit) {
      swaps.push_back({mem_bit, node_bit});
      mem_used[mem_bit] = true;
      node_used[node_bit] = true;
    };
    // 1. Deliveries: a finished bit whose place is a node bit goes there.
    for (unsigned a = 0; a < m; ++a) {
      const unsigned c = occ[a];
      if (done(c) && target[c] >= m) add(a, target[c] - m);
    }
    // 2. The next bits still in nodes come in, each in exchange for a parked
    //    (not yet transformed) bit needed later than itself, latest first.
    std::vector<unsigned> wanted;  // most urgent first
    for (int b = next; b >= 0; --b)
      if (!in_memory(static_cast<unsigned>(b)) && !node_used[pos[b] - m]) wanted.push_back(static_cast<unsigned>(b));
    std::vector<unsigned> parked;  // least urgent first
    for (unsigned a = 0; a < m; ++a)
      if (!mem_used[a] && !done(occ[a])) parked.push_back(occ[a]);
    std::sort(parked.begin(), parked.end());
    std::size_t e = 0;
    for (unsigned w : wanted) {
      if (e == parked.size() || parked[e] > w) break;
      add(pos[parked[e++]], pos[w] - m);
    }
    if (swaps.empty()) throw Error(fmt::format("internal: FFT plan for n = {}, m = {} is stuck", n, m));
    std::sort(swaps.begin(), swaps.end(), [](const FftSwap& x, const FftSwap& y) { return x.node_bit < y.node_bit; });
    for (const FftSwap& w : swaps) {
      const unsigned na = m + w.node_bit;
      std::swap(occ[w.mem_bit], occ[na]);
      pos[occ[w.mem_bit]] = w.mem_bit;
      pos[occ[na]] = na;
    }
    FftStep st;
    st.kind = FftStep::Kind::aapc;
    st.swaps = std::move(swaps);
    plan.steps.push_back(std::move(st));
  }
  plan.final_memory.resize(m);
  for (unsigned a = 0; a < m; ++a) plan.final_memory[a] = target[occ[a]];
  return plan;
}

}  // namespace hcube

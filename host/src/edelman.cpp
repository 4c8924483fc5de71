#include "hcube/host/edelman.hpp"

#include <fmt/format.h>

#include "hcube/host/aapc.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

std::uint64_t swap_bits(std::uint64_t x, unsigned a, unsigned b) {
  if (test_bit(x, a) != test_bit(x, b)) x ^= bit(a) | bit(b);
  return x;
}

}  // namespace

EdelmanTable edelman_table(unsigned d) {
  if (d < 1 || d > 32) throw Error(fmt::format("Edelman's table for d = {} out of range: allowed 1..32", d));
  EdelmanTable t(bit(d - 1), std::vector<std::uint64_t>(d));
  for (std::uint64_t i = 0; i < t.size(); ++i)
    for (unsigned j = 0; j < d; ++j) {
      std::uint64_t v = 2 * i + 1;
      if (j + 1 < d) v ^= bit(j + 1);
      t[i][j] = swap_bits(v, 0, j);
    }
  return t;
}

std::optional<std::string> edelman_violation(const EdelmanTable& table, unsigned d) {
  if (table.size() != bit(d - 1)) return fmt::format("{} steps: expected 2^(d-1) = {}", table.size(), bit(d - 1));
  std::vector<std::vector<std::uint64_t>> seen_in_column(d, std::vector<std::uint64_t>(bit(d), ~std::uint64_t{0}));
  for (std::uint64_t i = 0; i < table.size(); ++i) {
    if (table[i].size() != d) return fmt::format("step {}: {} links, expected d = {}", i, table[i].size(), d);
    for (unsigned j = 0; j < d; ++j) {
      const std::uint64_t w = table[i][j];
      if (w >= bit(d)) return fmt::format("step {}, link {}: {} is not a {}-bit address", i, j, w, d);
      if (!test_bit(w, j)) return fmt::format("step {}, link {}: bit {} of {:0{}b} is 0 (condition 1)", i, j, j, w, d);
      for (unsigned k = 0; k < j; ++k)
        if (table[i][k] == w)
          return fmt::format("step {}: {:0{}b} on links {} and {} (condition 2)", i, w, d, k, j);
      std::uint64_t& seen = seen_in_column[j][w];
      if (seen != ~std::uint64_t{0})
        return fmt::format("link {}: {:0{}b} in steps {} and {} (condition 3)", j, w, d, seen, i);
      seen = i;
    }
  }
  return std::nullopt;
}

namespace {

// The table's rows as cycles: link j of row i uses location f(w[i][j]) xor
// (node k's offset, when `offset` is given); unaligned runs carry no alignment.
Schedule edelman_cycles(unsigned d, unsigned n, unsigned m, std::uint64_t (*f)(std::uint64_t, unsigned),
                        const NodeOffsetMap* offset) {
  const EdelmanTable table = edelman_table(d);
  if (const auto bad = edelman_violation(table, d)) throw Error("internal: Edelman's table breaks a condition: " + *bad);
  Schedule s;
  s.algorithm = "edelman";
  s.d = d;
  s.n = n;
  s.m = m;
  if (offset != nullptr) {
    s.pre = s.post = AlignmentKind::none;
    s.offset_maps.push_back(*offset);
  }
  const std::uint32_t map = offset != nullptr ? 1u : 0u;
  s.reserve(table.size() << (m - d), (table.size() * d) << (m - d));
  for (const std::vector<std::uint64_t>& row : table) {
    for (unsigned j = 0; j < d; ++j) s.add(Exchange{j, f(row[j], d), f(row[j], d), map});
    s.end_cycle();
  }
  s.repeat_with_high_bits(d, bit(m - d));
  return s;
}

std::uint64_t same(std::uint64_t w, unsigned) { return w; }

std::uint64_t reversed(std::uint64_t w, unsigned d) { return reverse_bits(w, d); }

}  // namespace

Schedule make_edelman_schedule(unsigned d, unsigned n, unsigned m, bool aligned) {
  check_aapc_dimensions(d, n, m);
  if (aligned) return edelman_cycles(d, n, m, same, nullptr);
  // Node k uses location w xor k: its d low bits added to the address.
  NodeOffsetMap map(n, 0);
  for (unsigned b = 0; b < d; ++b) map[b] = bit(b);
  return edelman_cycles(d, n, m, same, &map);
}

Schedule make_edelman_bit_reversal_schedule(unsigned d) {
  check_aapc_dimensions(d, d, d);
  NodeOffsetMap map(d, 0);
  for (unsigned b = 0; b < d; ++b) map[b] = bit(d - 1 - b);
  Schedule s = edelman_cycles(d, d, d, reversed, &map);
  s.algorithm = "edelman-bit-reversal";
  return s;
}

}  // namespace hcube

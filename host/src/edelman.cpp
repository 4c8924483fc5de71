#include "hcube/host/edelman.hpp"

#include <fmt/format.h>

#include "hcube/host/aapc.hpp"
#include "hcube/host/bits.hpp"
#include "hcube/host/error.hpp"

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

Schedule make_edelman_schedule(unsigned d, unsigned n, unsigned m, bool aligned) {
  check_aapc_dimensions(d, n, m);
  const EdelmanTable table = edelman_table(d);
  if (const auto bad = edelman_violation(table, d)) throw Error("internal: Edelman's table breaks a condition: " + *bad);
  Schedule s;
  s.algorithm = "edelman";
  s.d = d;
  s.n = n;
  s.m = m;
  if (!aligned) {
    // Node k uses location w xor k: its d low bits added to the address.
    s.pre = s.post = AlignmentKind::none;
    NodeOffsetMap map(n, 0);
    for (unsigned b = 0; b < d; ++b) map[b] = bit(b);
    s.offset_maps.push_back(std::move(map));
  }
  s.reserve(table.size() << (m - d), (table.size() * d) << (m - d));
  for (const std::vector<std::uint64_t>& row : table) {
    for (unsigned j = 0; j < d; ++j) s.add(Exchange{j, row[j], row[j], aligned ? 0u : 1u});
    s.end_cycle();
  }
  s.repeat_with_high_bits(d, bit(m - d));
  return s;
}

}  // namespace hcube

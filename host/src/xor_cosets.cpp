#include "hcube/host/xor_cosets.hpp"

#include <algorithm>

#include "hcube/core/bits.hpp"

namespace hcube {
namespace {

// Column b of a byte-sliced table set: the image of bit(b).
std::uint64_t column(const std::vector<std::uint64_t>& tables, unsigned b) {
  return tables[(b / 8) * 256 + (std::uint64_t{1} << (b % 8))];
}

}  // namespace

XorCosets plan_xor_cosets(const AffineTables& map, const Layout& layout) {
  const unsigned m = layout.geo.m;
  for (unsigned b = 0; b < m; ++b)
    if (column(map.mem, b) != bit(b)) return XorCosets{};  // not i xor (C j xor c)
  const unsigned chunk_bits = std::min(layout.t, kMaxCosetChunkBits);
  std::uint64_t columns[kMaxCosetChunkBits] = {};
  for (unsigned b = 0; b < chunk_bits; ++b) columns[b] = column(map.node, b);
  XorCosets p = xor_cosets_of(columns, chunk_bits);
  p.constant = map.constant;
  return p;
}

}  // namespace hcube

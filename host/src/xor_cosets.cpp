#include "hcube/host/xor_cosets.hpp"

#include <algorithm>
#include <vector>

#include "hcube/host/bits.hpp"

namespace hcube {
namespace {

// Column b of a byte-sliced table set: the image of bit(b).
std::uint64_t column(const std::vector<std::uint64_t>& tables, unsigned b) {
  return tables[(b / 8) * 256 + (std::uint64_t{1} << (b % 8))];
}

}  // namespace

XorCosets plan_xor_cosets(const AffineTables& map, const Layout& layout) {
  XorCosets p;
  const unsigned m = layout.geo.m;
  for (unsigned b = 0; b < m; ++b)
    if (column(map.mem, b) != bit(b)) return p;  // not i xor (C j xor c)
  p.usable = true;
  p.constant = map.constant;
  p.chunk_bits = std::min(layout.t, kMaxCosetChunkBits);
  // Reduced echelon form of the chunk's offsets, pivots ascending.
  // (A vector: GCC 12's -Warray-bounds misreads std::sort over a 5-entry array.)
  std::vector<std::uint64_t> rows;
  for (unsigned b = 0; b < p.chunk_bits; ++b) {
    std::uint64_t v = column(map.node, b);
    for (const std::uint64_t r : rows)
      if (v & (r & ~(r - 1))) v ^= r;  // the lowest set bit of r is its pivot
    if (v == 0) continue;
    const std::uint64_t pivot_bit = v & ~(v - 1);
    for (std::uint64_t& r : rows)
      if (r & pivot_bit) r ^= v;
    rows.push_back(v);
  }
  std::sort(rows.begin(), rows.end(), [](std::uint64_t a, std::uint64_t b) { return (a & ~(a - 1)) < (b & ~(b - 1)); });
  const auto count = static_cast<unsigned>(rows.size());
  p.dims = count;
  for (unsigned r = 0; r < count; ++r) {
    p.basis[r] = rows[r];
    p.pivot[r] = static_cast<unsigned>(__builtin_ctzll(rows[r]));
  }
  for (std::uint64_t k = 0; k < bit(p.chunk_bits); ++k) {
    std::uint64_t off = 0;
    for (unsigned b = 0; b < p.chunk_bits; ++b)
      if ((k >> b) & 1u) off ^= column(map.node, b);
    p.coords[k] = static_cast<std::uint8_t>(p.coordinates(off));
  }
  return p;
}

}  // namespace hcube

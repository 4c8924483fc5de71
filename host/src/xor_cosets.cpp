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

XorCosets xor_cosets_of(const std::uint64_t* columns, unsigned count) {
  XorCosets p;
  p.usable = true;
  p.chunk_bits = count;
  // Reduced echelon form of the columns, pivots ascending.
  // (A vector: GCC 12's -Warray-bounds misreads std::sort over a 5-entry array.)
  std::vector<std::uint64_t> rows;
  for (unsigned b = 0; b < count; ++b) {
    std::uint64_t v = columns[b];
    for (const std::uint64_t r : rows)
      if (v & (r & ~(r - 1))) v ^= r;  // the lowest set bit of r is its pivot
    if (v == 0) continue;
    const std::uint64_t pivot_bit = v & ~(v - 1);
    for (std::uint64_t& r : rows)
      if (r & pivot_bit) r ^= v;
    rows.push_back(v);
  }
  std::sort(rows.begin(), rows.end(), [](std::uint64_t a, std::uint64_t b) { return (a & ~(a - 1)) < (b & ~(b - 1)); });
  const auto dims = static_cast<unsigned>(rows.size());
  p.dims = dims;
  for (unsigned r = 0; r < dims; ++r) {
    p.basis[r] = rows[r];
    p.pivot[r] = static_cast<unsigned>(__builtin_ctzll(rows[r]));
  }
  for (std::uint64_t k = 0; k < bit(count); ++k) {
    std::uint64_t off = 0;
    for (unsigned b = 0; b < count; ++b)
      if ((k >> b) & 1u) off ^= columns[b];
    p.coords[k] = static_cast<std::uint8_t>(p.coordinates(off));
  }
  return p;
}

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

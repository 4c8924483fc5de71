// How an in-place xor alignment i -> i xor C j xor c splits into small
// independent units for a GPU thread block. In the tiled layout a node's words
// form a column of its tile; take a chunk of 2^chunk_bits consecutive columns.
// Across the chunk the offsets C k span a subspace S of local addresses (the
// chunk's high node bits only add a constant), so the rows pair coset by coset:
// the rows i0 xor S of the chunk swap with the rows i1 xor S, where
// i1 = reduce(i0 xor base). A unit is at most 2^chunk_bits rows of 2^chunk_bits
// words, loaded and stored in coalesced row runs (shared memory between).
#pragma once

#include <cstdint>

#include "hcube/core/bits.hpp"
#include "hcube/core/hd.hpp"

namespace hcube {

inline constexpr unsigned kMaxCosetChunkBits = 5;

struct XorCosets {
  bool usable = false;      // false: the map is not a pure xor (the per-word body runs)
  unsigned chunk_bits = 0;  // columns (nodes) per unit: 2^chunk_bits
  unsigned dims = 0;        // dim S: rows per unit 2^dims
  std::uint64_t constant = 0;
  // S in reduced echelon form: basis[b] has bit pivot[b] set, every other basis vector clear there.
  std::uint64_t basis[kMaxCosetChunkBits] = {};
  unsigned pivot[kMaxCosetChunkBits] = {};
  // Coordinates of C k (k < 2^chunk_bits) in that basis.
  std::uint8_t coords[1u << kMaxCosetChunkBits] = {};

  // The coset representative: x with its pivot bits cleared by the basis.
  HCUBE_HD std::uint64_t reduce(std::uint64_t x) const {
    for (unsigned b = 0; b < dims; ++b)
      if (test_bit(x, pivot[b])) x ^= basis[b];
    return x;
  }
  // The coordinates of x (an element of S) and the element with coordinates s.
  HCUBE_HD unsigned coordinates(std::uint64_t x) const {
    unsigned s = 0;
    for (unsigned b = 0; b < dims; ++b) s |= static_cast<unsigned>(test_bit(x, pivot[b])) << b;
    return s;
  }
  HCUBE_HD std::uint64_t element(unsigned s) const {
    std::uint64_t x = 0;
    for (unsigned b = 0; b < dims; ++b)
      if ((s >> b) & 1u) x ^= basis[b];
    return x;
  }
  // The inverse of representative: x's pivot bits dropped.
  HCUBE_HD std::uint64_t compress(std::uint64_t x) const {
    for (unsigned b = dims; b-- > 0;) x = remove_bit(x, pivot[b]);
    return x;
  }
  // The q-th coset representative: q's bits spread over the non-pivot positions.
  // pivot[] ascends, so inserting a zero at each pivot in turn keeps the lower ones.
  HCUBE_HD std::uint64_t representative(std::uint64_t q) const {
    for (unsigned b = 0; b < dims; ++b) q = insert_zero_bit(q, pivot[b]);
    return q;
  }
};

// The span S of `count` (at most kMaxCosetChunkBits) column offsets: the
// offsets of columns 2^0 .. 2^(count-1), so that column k's offset has
// coordinates coords[k]; chunk_bits = count, usable, constant 0. Fixed-size
// arithmetic only, so a kernel's launcher may call it per block.
inline XorCosets xor_cosets_of(const std::uint64_t* columns, unsigned count) {
  XorCosets p;
  p.usable = true;
  p.chunk_bits = count;
  // Reduced echelon form of the columns; a row's pivot is its lowest set bit.
  std::uint64_t rows[kMaxCosetChunkBits] = {};
  unsigned dims = 0;
  for (unsigned b = 0; b < count && b < kMaxCosetChunkBits; ++b) {
    std::uint64_t v = columns[b];
    for (unsigned r = 0; r < dims; ++r)
      if (v & (rows[r] & ~(rows[r] - 1))) v ^= rows[r];
    if (v == 0) continue;
    const std::uint64_t pivot_bit = v & ~(v - 1);
    for (unsigned r = 0; r < dims; ++r)
      if (rows[r] & pivot_bit) rows[r] ^= v;
    // Insert v keeping the pivots ascending.
    unsigned at = dims++;
    while (at > 0 && (rows[at - 1] & ~(rows[at - 1] - 1)) > pivot_bit) {
      rows[at] = rows[at - 1];
      --at;
    }
    rows[at] = v;
  }
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

}  // namespace hcube

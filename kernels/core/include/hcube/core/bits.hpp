// Bit manipulation on cube addresses, shared by planning code and kernels.
#pragma once

#include <cstdint>

#include "hcube/core/hd.hpp"

namespace hcube {

HCUBE_HD constexpr std::uint64_t bit(unsigned k) { return std::uint64_t{1} << k; }

HCUBE_HD constexpr std::uint64_t low_mask(unsigned width) {
  return width >= 64 ? ~std::uint64_t{0} : bit(width) - 1;
}

HCUBE_HD constexpr bool test_bit(std::uint64_t x, unsigned k) { return ((x >> k) & 1u) != 0; }

// log2 of how many words of `word_bytes` fit in `bytes` (0 if not two): a
// tile's index bits, the lanes of a vector register.
HCUBE_HD constexpr unsigned words_bits(unsigned long long bytes, unsigned long long word_bytes) {
  unsigned bits = 0;
  while (word_bytes << (bits + 1) <= bytes) ++bits;
  return bits;
}

// The fewest bits b with 2^b >= v: the address bits of v items.
HCUBE_HD constexpr unsigned ceil_log2(std::uint64_t v) {
  unsigned b = 0;
  while (b < 64 && bit(b) < v) ++b;
  return b;
}

// Spreads p over the positions other than k: the p-th node whose bit k is 0.
// It enumerates the lower halves of the node pairs of one dimension.
HCUBE_HD constexpr std::uint64_t insert_zero_bit(std::uint64_t p, unsigned k) {
  return ((p >> k) << (k + 1)) | (p & low_mask(k));
}

// The inverse of insert_zero_bit: x with bit k taken out, the bits above it moved down.
HCUBE_HD constexpr std::uint64_t remove_bit(std::uint64_t x, unsigned k) {
  return ((x >> (k + 1)) << k) | (x & low_mask(k));
}

// The width low bits of x in reverse order.
HCUBE_HD constexpr std::uint64_t reverse_bits(std::uint64_t x, unsigned width) {
  std::uint64_t r = 0;
  for (unsigned b = 0; b < width; ++b)
    if (test_bit(x, b)) r |= bit(width - 1 - b);
  return r;
}

// Binary-reflected Gray code of a field value and its inverse.
HCUBE_HD constexpr std::uint64_t gray_encode(std::uint64_t v) { return v ^ (v >> 1); }

HCUBE_HD constexpr std::uint64_t gray_decode(std::uint64_t g) {
  for (unsigned s = 1; s < 64; s <<= 1) g ^= g >> s;
  return g;
}

inline unsigned popcount(std::uint64_t x) { return static_cast<unsigned>(__builtin_popcountll(x)); }

}  // namespace hcube

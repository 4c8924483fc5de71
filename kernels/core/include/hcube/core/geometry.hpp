// The address model, as kernels and planners share it: 2^n nodes, K = 2^m
// local words each, and the global address g = node * K + local (node bits
// high: the (j|i) notation of Johnsson-Ho and Edelman).
#pragma once

#include <cstdint>

#include "hcube/core/bits.hpp"
#include "hcube/core/hd.hpp"

namespace hcube {

// Address arithmetic stays in 64 bits with room to spare; memory runs out far earlier.
inline constexpr unsigned kMaxAddressBits = 56;

struct Geometry {
  unsigned n = 0;  // processor (node) dimensions
  unsigned m = 0;  // memory dimensions: K = 2^m words per node

  HCUBE_HD constexpr std::uint64_t nodes() const { return bit(n); }
  HCUBE_HD constexpr std::uint64_t words_per_node() const { return bit(m); }
  HCUBE_HD constexpr std::uint64_t total_words() const { return bit(n + m); }
  HCUBE_HD constexpr unsigned address_bits() const { return n + m; }

  HCUBE_HD constexpr std::uint64_t global(std::uint64_t node, std::uint64_t local) const {
    return (node << m) | local;
  }
  HCUBE_HD constexpr std::uint64_t node_of(std::uint64_t g) const { return g >> m; }
  HCUBE_HD constexpr std::uint64_t local_of(std::uint64_t g) const { return g & low_mask(m); }
};

}  // namespace hcube

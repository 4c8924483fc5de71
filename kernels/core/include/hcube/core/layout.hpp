// Where word `local` of node `node` lives in the machine's storage.
//
// Nodes are grouped in tiles of 2^t consecutive nodes (a subcube: one GPU
// thread block); inside a tile the layout is the Connection Machine's "pvar"
// order, word a of every node of the tile stored contiguously. t = n is the
// full pvar layout, t = 0 is the user's row-major A[node][local]. Every node
// touches the same local address in a direct-addressed exchange, so for t >= 5
// one exchange is a run of whole 2^t-word streams. docs/architecture.md has
// the measurement behind the default.
#pragma once

#include <cstdint>

#include "hcube/core/bits.hpp"
#include "hcube/core/geometry.hpp"
#include "hcube/core/hd.hpp"

namespace hcube {

struct Layout {
  Geometry geo;
  unsigned t = 0;  // tile dimensions: 2^t nodes per tile, 0 <= t <= n

  HCUBE_HD constexpr std::uint64_t index(std::uint64_t node, std::uint64_t local) const {
    return ((node >> t) << (geo.m + t)) | (local << t) | (node & low_mask(t));
  }
  HCUBE_HD constexpr std::uint64_t node_at(std::uint64_t s) const {
    return ((s >> (geo.m + t)) << t) | (s & low_mask(t));
  }
  HCUBE_HD constexpr std::uint64_t local_at(std::uint64_t s) const {
    return (s >> t) & low_mask(geo.m);
  }
  // The storage index bit that holds global address bit g (address = node * 2^m + local).
  HCUBE_HD constexpr unsigned storage_bit(unsigned g) const {
    return g < geo.m ? t + g : (g - geo.m < t ? g - geo.m : g);
  }
};

// The tile width used when the user does not choose one (see architecture.md).
inline constexpr unsigned kDefaultTileDims = 8;

}  // namespace hcube

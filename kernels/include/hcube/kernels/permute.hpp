// The fused permutation: every word to the global address a GF(2)-linear map
// of its own gives (a permutation of the address bits, say), in one pass out
// of place -- the result without emulating the cube's routing. Reads stream in
// storage order; the destination's node and local parts come from the byte
// tables (alignment.hpp's AffineView over the whole address).
#pragma once

#include <cstdint>

#include "hcube/host/bits.hpp"
#include "hcube/host/layout.hpp"
#include "hcube/kernels/alignment.hpp"

namespace hcube::kernels {

template <class Word>
struct PermuteCopyBody {
  const Word* src;
  Word* dst;
  Layout layout;
  AffineView map;  // (node, local) -> destination global address node * 2^m + local

  HCUBE_HD void operator()(std::uint64_t s) const {
    const std::uint64_t j = layout.node_at(s);
    const std::uint64_t d = map.mem_part(layout.local_at(s)) ^ map.node_part(j);
    const unsigned m = layout.geo.m;
    dst[layout.index(d >> m, d & low_mask(m))] = src[s];
  }
};

}  // namespace hcube::kernels

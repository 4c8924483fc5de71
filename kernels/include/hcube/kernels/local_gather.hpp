// A local permutation of blocks given by a table, every node its own: on node
// j the region of `blocks` blocks of `block_words` words from local address
// `lo` takes block f from block from[j * blocks + f]. Out of place, over the
// region's words only; used where the permutation has no affine form, as the
// packing and unpacking of a block-cyclic redistribution's messages.
#pragma once

#include <cstdint>

#include "hcube/host/bits.hpp"
#include "hcube/host/layout.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

template <class Word>
struct LocalGatherBody {
  const Word* src;
  Word* dst;
  Layout layout;
  const std::uint64_t* from;  // `blocks` entries a node; null: the identity (a copy of the region)
  std::uint64_t lo, block_words, blocks;

  HCUBE_HD std::uint64_t count() const { return layout.geo.nodes() * blocks * block_words; }
  // Index g runs over the region tile by tile, the tile's nodes fastest, so the
  // writes follow storage order (a run of 2^t words a local address).
  HCUBE_HD void operator()(std::uint64_t g) const {
    const unsigned t = layout.t;
    const std::uint64_t region = blocks * block_words, rest = g >> t, r = rest % region;
    const std::uint64_t j = ((rest / region) << t) | (g & low_mask(t));
    const std::uint64_t f = r / block_words, e = r % block_words, b = from != nullptr ? from[j * blocks + f] : f;
    dst[layout.index(j, lo + r)] = src[layout.index(j, lo + b * block_words + e)];
  }
};

}  // namespace hcube::kernels

// A local permutation of blocks given by a table, every node its own: on nodes
// first_node .. first_node + nodes - 1, the region of `blocks` blocks of
// `block_words` words from local address `lo` takes as block f the block
// from[(j - first_node) * blocks + f]. Out of place, over the region's words
// only; used where the permutation has no affine form, as the packing and
// unpacking of a block-cyclic redistribution's messages.
#pragma once

#include <cstdint>

#include "hcube/core/layout.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

struct BlockRegion {
  std::uint64_t first_node, nodes, lo, block_words, blocks;
  HCUBE_HD std::uint64_t words() const { return nodes * blocks * block_words; }
};

template <class Word>
struct LocalGatherBody {
  const Word* src;
  Word* dst;
  Layout layout;
  const std::uint64_t* from;  // `blocks` entries a node of the range; null: the identity (a copy of the region)
  BlockRegion region;

  // Index g takes the region's nodes fastest: neighbouring threads write one
  // local address of neighbouring nodes, a run of a tile's pvar row.
  HCUBE_HD void operator()(std::uint64_t g) const {
    const std::uint64_t k = g % region.nodes, r = g / region.nodes, j = region.first_node + k;
    const std::uint64_t f = r / region.block_words, e = r % region.block_words;
    const std::uint64_t b = from != nullptr ? from[k * region.blocks + f] : f;
    dst[layout.index(j, region.lo + r)] = src[layout.index(j, region.lo + b * region.block_words + e)];
  }
};

}  // namespace hcube::kernels

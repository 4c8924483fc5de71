// A local permutation of blocks given by a table, every node its own: on nodes
// first_node .. first_node + nodes - 1, the region of `blocks` blocks of
// `block_words` words from local address `lo`. Used where the permutation has
// no affine form, as the packing and unpacking of a block-cyclic
// redistribution's messages. It runs as two passes through a dense scratch of
// the region's words only (word (k, r) of the region at r * nodes + k), so a
// permutation of a small region costs a small scratch.
#pragma once

#include <cstdint>

#include "hcube/core/layout.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

struct BlockRegion {
  std::uint64_t first_node, nodes, lo, block_words, blocks;
  HCUBE_HD std::uint64_t words() const { return nodes * blocks * block_words; }
};

// Node k's entry f, f = u * period + p: base[k * period + p] + u * step[k *
// period + p] below valid[k], f itself from there. A redistribution's blocks
// repeat with its superblock, so one superblock's entries serve every one;
// an explicit table is the case period = blocks (step and valid null).
struct BlockTableView {
  const std::uint64_t* base = nullptr;   // nodes x period; null: the identity
  const std::uint64_t* step = nullptr;   // nodes x period; null: 0
  const std::uint64_t* valid = nullptr;  // per node; null: every entry
  std::uint64_t period = 1;
  HCUBE_HD std::uint64_t at(std::uint64_t k, std::uint64_t f) const {
    if (base == nullptr || (valid != nullptr && f >= valid[k])) return f;
    const std::uint64_t u = f / period, i = k * period + f % period;
    return base[i] + (step != nullptr ? u * step[i] : 0);
  }
};

enum class LocalPass : unsigned char {
  copy,     // dst = src over the region, both in the layout (a table is not read)
  gather,   // dense dst word (k, f, e) = src's word e of block table(k, f)
  scatter,  // dense dst word e of block table(k, f) = src's word (k, f, e)
  store,    // dst's region, in the layout, = the dense src
};

template <class Word>
struct LocalGatherBody {
  const Word* src;
  Word* dst;
  Layout layout;
  BlockTableView table;
  BlockRegion region;
  LocalPass pass;

  // Index g takes the region's nodes fastest: neighbouring threads touch one
  // local address of neighbouring nodes, a run of a tile's pvar row, and
  // neighbouring words of the dense scratch.
  HCUBE_HD void operator()(std::uint64_t g) const {
    const std::uint64_t k = g % region.nodes, r = g / region.nodes, j = region.first_node + k;
    const std::uint64_t at = region.lo + r;
    switch (pass) {
      case LocalPass::copy:
        dst[layout.index(j, at)] = src[layout.index(j, at)];
        break;
      case LocalPass::gather: {
        const std::uint64_t f = r / region.block_words, e = r % region.block_words;
        dst[g] = src[layout.index(j, region.lo + table.at(k, f) * region.block_words + e)];
        break;
      }
      case LocalPass::scatter: {
        const std::uint64_t f = r / region.block_words, e = r % region.block_words;
        dst[(table.at(k, f) * region.block_words + e) * region.nodes + k] = src[layout.index(j, at)];
        break;
      }
      case LocalPass::store:
        dst[layout.index(j, at)] = src[g];
        break;
    }
  }
};

}  // namespace hcube::kernels

// The fused permutation: dst[pi(s)] = src[s] for a permutation pi of the
// storage index bits, in one out-of-place pass, tile by tile
// (host/bit_permutation_tiling.hpp): a tile is loaded into a buffer (L1 on the
// CPU, shared memory on a GPU) in runs of consecutive source words and stored
// in runs of consecutive destination words, so neither side strides through
// memory one word at a time.
#pragma once

#include <cstdint>

#include "hcube/core/hd.hpp"

namespace hcube::kernels {

// Device view of BitPermutationTiling::table.
struct TilingView {
  const std::uint64_t* table;
  unsigned tile_bits, run_bits, outer_bits;

  HCUBE_HD std::uint64_t tile_words() const { return std::uint64_t{1} << tile_bits; }
  HCUBE_HD std::uint64_t run_words() const { return std::uint64_t{1} << run_bits; }
  HCUBE_HD std::uint64_t runs() const { return std::uint64_t{1} << (tile_bits - run_bits); }
  HCUBE_HD std::uint64_t tiles() const { return std::uint64_t{1} << outer_bits; }
  // The tile buffer holds one padding word after each run: the store phase reads
  // a column across runs (a bit reversal: 32 runs for a warp's 32 words), which
  // unpadded would fall into one shared-memory bank, and padded spreads over 32.
  HCUBE_HD std::uint64_t buffer_words() const { return tile_words() + runs(); }
  HCUBE_HD std::uint64_t slot(std::uint64_t t) const { return t + (t >> run_bits); }
  HCUBE_HD const std::uint64_t* src_run() const { return table; }
  HCUBE_HD const std::uint64_t* dst_run() const { return table + runs(); }
  HCUBE_HD const std::uint64_t* from_run() const { return table + 2 * runs(); }
  HCUBE_HD const std::uint64_t* from_low() const { return table + 3 * runs(); }
  // Where tile o's word 0 is read from and its image written to.
  HCUBE_HD std::uint64_t src_base(std::uint64_t o) const { return deposit(o, outer_masks()); }
  HCUBE_HD std::uint64_t dst_base(std::uint64_t o) const { return deposit(o, outer_masks() + outer_bits); }

 private:
  HCUBE_HD const std::uint64_t* outer_masks() const { return table + 3 * runs() + run_words(); }
  HCUBE_HD static std::uint64_t deposit(std::uint64_t o, const std::uint64_t* masks) {
    std::uint64_t a = 0;
    for (unsigned k = 0; o != 0; ++k, o >>= 1)
      if (o & 1u) a |= masks[k];
    return a;
  }
};

// One body, two phases: load(r, k) puts word k of source run r in the buffer,
// store(r, k) writes word k of destination run r from it. A launcher runs every
// load of a tile, then every store (CPU: loops per tile, the inner one over a
// run's consecutive words; CUDA: a thread block per tile, __syncthreads between).
template <class Word>
struct BitPermuteTileBody {
  using word_type = Word;
  const Word* src;
  Word* dst;
  TilingView view;

  // Where source run r of the tile based at `base` starts; destination run r likewise.
  HCUBE_HD const Word* src_run(std::uint64_t base, std::uint64_t r) const { return src + base + view.src_run()[r]; }
  HCUBE_HD Word* dst_run(std::uint64_t base, std::uint64_t r) const { return dst + base + view.dst_run()[r]; }
  // `buffer` holds view.buffer_words() words.
  HCUBE_HD void load(std::uint64_t base, std::uint64_t r, std::uint64_t k, Word* buffer) const {
    buffer[view.slot((r << view.run_bits) | k)] = src_run(base, r)[k];
  }
  HCUBE_HD void store(std::uint64_t base, std::uint64_t r, std::uint64_t k, const Word* buffer) const {
    dst_run(base, r)[k] = buffer[view.slot(view.from_run()[r] | view.from_low()[k])];
  }
};

}  // namespace hcube::kernels

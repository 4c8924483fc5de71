// How the fused pass tiles a permutation of the storage index bits
// (dst[pi(s)] = src[s]): one tile is the set of words that differ only in the
// source's low bits and the bits that become the destination's low bits, so a
// tile is read as runs of consecutive source words and written as runs of
// consecutive destination words (the cache-blocked transpose; for bit reversal
// the buffer-through-cache scheme of Carter and Gatlin's COBRA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hcube {

// Throws hcube::Error naming `what` unless `to` is a permutation of 0..size-1.
void check_bit_permutation(const std::vector<unsigned>& to, const std::string& what);

struct BitPermutationTiling {
  unsigned q = 0;           // index bits
  unsigned run_bits = 0;    // b: reads and writes come in runs of 2^b words (at least min(q, max_tile_bits / 2))
  unsigned tile_bits = 0;   // words per tile = 2^tile_bits
  unsigned outer_bits = 0;  // tiles = 2^outer_bits, outer_bits = q - tile_bits
  // Within a tile, word t counts the tile's source positions in ascending order
  // and destination word u its destination positions, so t = (r, k) is word k
  // of source run r and u = (r, k) word k of destination run r. One table, so a
  // backend stages one array (offsets in words), with R = 2^(tile_bits - b) runs:
  //   [0, R)          src_run[r]: source run r's offset from the tile's source base
  //   [R, 2R)         dst_run[r]: destination run r's offset from the tile's destination base
  //   [2R, 3R)        from_run[r]: the tile word that lands on word 0 of destination run r
  //   [3R, 3R+B)      from_low[k]: what word k of a destination run adds to it (B = 2^b;
  //                   the bit sets are disjoint: from = from_run | from_low)
  //   [3R+B, +o)      outer bit i's source position mask, bit(position)
  //   [3R+B+o, +o)    the same bit's destination mask
  std::vector<std::uint64_t> table;

  std::uint64_t tile_words() const { return std::uint64_t{1} << tile_bits; }
  std::uint64_t runs() const { return std::uint64_t{1} << (tile_bits - run_bits); }
  std::uint64_t tiles() const { return std::uint64_t{1} << outer_bits; }
};

// `to[i]` is the destination position of index bit i (a permutation of 0..q-1,
// checked). A tile holds at most 2^max_tile_bits words, among them the
// source's and the destination's low b bits, b = min(q, max_tile_bits / 2).
BitPermutationTiling plan_bit_permutation_tiling(const std::vector<unsigned>& to, unsigned max_tile_bits);

// The largest tile, in index bits, that keeps a tile of `word_bytes` words
// within `tile_bytes` (a level-1 cache or a GPU block's shared memory).
unsigned max_tile_bits_for(std::size_t word_bytes, std::size_t tile_bytes);

}  // namespace hcube

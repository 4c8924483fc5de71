// Primitive 2, the local alignment: every node permutes its own words by
// i -> M i xor C j (host/affine_map.hpp), evaluated with byte lookup tables.
#pragma once

#include <cstdint>

#include "hcube/host/layout.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

struct AffineView {
  const std::uint64_t* mem_table;   // mem_bytes tables of 256 entries
  const std::uint64_t* node_table;  // node_bytes tables of 256 entries
  unsigned mem_bytes;
  unsigned node_bytes;
  std::uint64_t constant;

  HCUBE_HD static std::uint64_t lookup(const std::uint64_t* table, unsigned bytes, std::uint64_t x) {
    std::uint64_t r = 0;
    for (unsigned b = 0; b < bytes; ++b) r ^= table[b * 256 + ((x >> (8 * b)) & 0xff)];
    return r;
  }
  HCUBE_HD std::uint64_t mem_part(std::uint64_t local) const {
    return lookup(mem_table, mem_bytes, local) ^ constant;
  }
  HCUBE_HD std::uint64_t node_part(std::uint64_t node) const { return lookup(node_table, node_bytes, node); }
};

// General map, out of place: reads stream in storage order, writes scatter.
template <class Word>
struct AlignCopyBody {
  const Word* src;
  Word* dst;
  Layout layout;
  AffineView map;

  HCUBE_HD void operator()(std::uint64_t s) const {
    const std::uint64_t j = layout.node_at(s);
    dst[layout.index(j, map.mem_part(layout.local_at(s)) ^ map.node_part(j))] = src[s];
  }
};

// An involution (i -> i xor C j xor c, or any map with f(f(i)) = i) swaps each
// pair once, in place, no scratch. Only local addresses in [lo, hi) take part
// (the map keeps that range: Algorithm 5 realigns some rows alone).
template <class Word>
struct AlignXorBody {
  Word* mem;
  Layout layout;
  AffineView map;
  std::uint64_t lo;
  std::uint64_t hi;

  HCUBE_HD void operator()(std::uint64_t s) const {
    const std::uint64_t i = layout.local_at(s);
    if (i < lo || i >= hi) return;
    const std::uint64_t j = layout.node_at(s);
    const std::uint64_t p = map.mem_part(i) ^ map.node_part(j);
    if (i < p) swap_words(mem[s], mem[layout.index(j, p)]);
  }
};

}  // namespace hcube::kernels

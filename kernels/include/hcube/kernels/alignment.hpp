// Primitive 2, the local alignment: every node permutes its own words by
// i -> M i xor C j (host/affine_map.hpp), evaluated with byte lookup tables.
#pragma once

#include <cstdint>

#include "hcube/core/bits.hpp"
#include "hcube/core/layout.hpp"
#include "hcube/core/xor_cosets.hpp"
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

// Unit u of the coset launcher (host/xor_cosets.hpp), chunks fastest: two
// row sets a xor S and b xor S of 2^chunk_bits columns starting at storage
// index `first`, 2^(chunk_bits + dims + 1) words. In a chunk the map pairs
// coset a with a xor beta, beta = reduce(base): with beta != 0 a unit is such a
// pair (the lower coset found directly, so no unit idles); with beta = 0 every
// coset maps onto itself and a unit is two neighbouring cosets. Row x ^ S(r),
// column k of a region takes row S(r ^ g ^ coords[k]) of its source region:
// the other one of a pair, else itself.
struct XorCosetUnit {
  std::uint64_t a, b, first;
  unsigned g;
  bool pair;
};
template <class Word>
HCUBE_HD XorCosetUnit xor_coset_unit(const AlignXorBody<Word>& body, const XorCosets& plan, std::uint64_t u) {
  const Layout& L = body.layout;
  const unsigned t = L.t, cb = plan.chunk_bits;
  const std::uint64_t chunks = std::uint64_t{1} << (t - cb), tiles = std::uint64_t{1} << (L.geo.n - t);
  const std::uint64_t h = u % chunks, rest = u / chunks, T = rest % tiles, q = rest / tiles;
  const std::uint64_t base = plan.constant ^ body.map.node_part((T << t) | (h << cb)), beta = plan.reduce(base);
  XorCosetUnit unit;
  unit.first = T * (L.geo.words_per_node() << t) + (h << cb);
  unit.pair = beta != 0;
  unit.g = plan.coordinates(base);  // base xor beta lies in S and has base's pivot bits
  if (!unit.pair) {
    unit.a = plan.representative(2 * q);
    unit.b = plan.representative(2 * q + 1);
    return unit;
  }
  // The lower coset of a pair has the highest bit of beta's compressed form clear.
  const std::uint64_t gamma = plan.compress(beta);
  unsigned high = 0;
  while ((gamma >> (high + 1)) != 0) ++high;
  unit.a = plan.representative(insert_zero_bit(q, high));
  unit.b = unit.a ^ beta;
  return unit;
}
// How many units cover the machine (at least two cosets: dims < m).
HCUBE_HD inline std::uint64_t xor_coset_units(const Layout& L, const XorCosets& plan) {
  return L.geo.total_words() >> (plan.chunk_bits + plan.dims + 1);
}

}  // namespace hcube::kernels

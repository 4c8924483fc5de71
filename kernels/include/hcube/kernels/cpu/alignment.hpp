// The host launcher of an in-place xor alignment, i -> i xor C j xor c: the
// same swaps as AlignXorBody, region by region. In the tiled pvar layout a
// node's words form a column of its tile. When C sends the node bits of a
// chunk of the tile's columns below bit beta, the chunk's rows pair block by
// block: a block of 2^beta rows with one other block (or itself), so a unit
// swaps two contiguous regions of rows, and walks its own region row by row
// (long sequential runs) while the partner's lines stay in L2. Other maps run
// the per-word body.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hcube/kernels/alignment.hpp"
#include "hcube/kernels/cpu/launch.hpp"

namespace hcube::kernels::cpu {

// A unit's two regions fit the L2 cache (measured at 2^26 words: 64 KiB 0.45,
// 128 KiB 0.5, 256 KiB 0.5-0.7 of memcpy; the row-at-a-time walk doubled the
// line-at-a-time one).
inline constexpr std::uint64_t kAlignRegionBytes = 256 * 1024;

template <class Word>
void run_align_xor(const AlignXorBody<Word>& body) {
  const Layout& L = body.layout;
  const AffineView& map = body.map;
  const unsigned t = L.t, m = L.geo.m;
  const std::uint64_t K = L.geo.words_per_node(), total = L.geo.total_words();
  const auto generic = [&] { launch(total, body); };
  // Only i -> i xor (C j xor c): the memory part must be the identity plus the constant.
  const std::uint64_t c = map.mem_part(0);
  for (unsigned b = 0; b < m; ++b)
    if ((map.mem_part(bit(b)) ^ c) != bit(b)) return generic();
  const std::uint64_t row = bit(t);
  std::vector<std::uint64_t> off(row);
  for (std::uint64_t col = 0; col < row; ++col) off[col] = map.node_part(col);
  // The smallest beta with off[0 .. count) below 2^beta.
  const auto span_bits = [&](std::uint64_t count) {
    std::uint64_t span = 0;
    for (std::uint64_t k = 0; k < count; ++k) span |= off[k];
    unsigned beta = 0;
    while (beta < m && (span >> beta) != 0) ++beta;
    return beta;
  };
  // The widest chunk of columns (at least one cache line, or the row) whose region fits.
  unsigned cb = 0;
  while (cb < t && (sizeof(Word) << (cb + 1)) <= 64) ++cb;
  const auto region = [&](unsigned bits) { return sizeof(Word) << (span_bits(bit(bits)) + bits); };
  if (region(cb) > kAlignRegionBytes) return generic();
  while (cb < t && region(cb + 1) <= kAlignRegionBytes) ++cb;
  const unsigned beta = span_bits(bit(cb));
  const std::uint64_t chunk = bit(cb), chunks = bit(t - cb), block = bit(beta), blocks = (K + block - 1) / block;
  const std::uint64_t tile_words = K << t, tiles = bit(L.geo.n - t);
  const std::uint64_t hi = body.hi == 0 ? K : body.hi, lo = body.lo;
  const auto units = static_cast<std::int64_t>(tiles * blocks * chunks);
#pragma omp parallel for schedule(static) if (total >= kParallelThreshold)
  for (std::int64_t u = 0; u < units; ++u) {
    const std::uint64_t h = static_cast<std::uint64_t>(u) % chunks, rest = static_cast<std::uint64_t>(u) / chunks;
    const std::uint64_t B = rest % blocks, T = rest / blocks;
    const std::uint64_t base = c ^ map.node_part((T << t) | (h << cb));
    // The partner block is B xor (base >> beta): the lower block of a pair does the swaps.
    if (((B << beta) ^ base) >> beta < B) continue;
    Word* cols = body.mem + T * tile_words + (h << cb);
    const std::uint64_t first = std::max(B << beta, lo), last = std::min((B + 1) << beta, std::min(hi, K));
    for (std::uint64_t i = first; i < last; ++i) {
      Word* r = cols + (i << t);
      for (std::uint64_t k = 0; k < chunk; ++k) {
        const std::uint64_t p = i ^ base ^ off[k];
        if (i < p) swap_words(r[k], cols[(p << t) + k]);
      }
    }
  }
}

}  // namespace hcube::kernels::cpu

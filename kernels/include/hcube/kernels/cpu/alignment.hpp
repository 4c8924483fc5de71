// The host launcher of an in-place xor alignment, i -> i xor C j xor c: the
// same swaps as AlignXorBody, in cache-line units. In the tiled pvar layout a
// node's words form a column of its tile, and a group of G = 64 / wb adjacent
// columns is one cache line a row; when C sends the group's own node bits
// below bit beta, the group's partner rows for a block of 2^beta rows are
// again a block of 2^beta rows, so a unit (tile, row block, column group)
// swaps whole lines between two blocks. Other maps run the per-word body.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hcube/kernels/alignment.hpp"
#include "hcube/kernels/cpu/launch.hpp"

namespace hcube::kernels::cpu {

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
  unsigned gb = 0;
  while (gb < t && (sizeof(Word) << (gb + 1)) <= 64) ++gb;
  const std::uint64_t G = bit(gb);
  std::vector<std::uint64_t> off(G);
  std::uint64_t span = 0;
  for (std::uint64_t low = 0; low < G; ++low) span |= off[low] = map.node_part(low);
  unsigned beta = 0;
  while (beta < m && (span >> beta) != 0) ++beta;
  if (beta > 8) return generic();
  const std::uint64_t hi = body.hi == 0 ? K : body.hi, lo = body.lo;
  const std::uint64_t block = bit(beta), blocks = (K + block - 1) / block, groups = bit(t - gb), tiles = bit(L.geo.n - t);
  const std::uint64_t tile_words = K << t;
  const auto units = static_cast<std::int64_t>(tiles * blocks * groups);
#pragma omp parallel for schedule(static) if (total >= kParallelThreshold)
  for (std::int64_t u = 0; u < units; ++u) {
    const std::uint64_t g = static_cast<std::uint64_t>(u) % groups, rest = static_cast<std::uint64_t>(u) / groups;
    const std::uint64_t B = rest % blocks, T = rest / blocks;
    const std::uint64_t first = std::max(B * block, lo), last = std::min((B + 1) * block, hi);
    if (first >= last) continue;
    const std::uint64_t base = c ^ map.node_part((T << t) | (g << gb));
    Word* tile = body.mem + T * tile_words + (g << gb);
    for (std::uint64_t i = first; i < last; ++i) {
      Word* row = tile + (i << t);
      for (std::uint64_t low = 0; low < G; ++low) {
        const std::uint64_t p = i ^ base ^ off[low];
        if (i < p) swap_words(row[low], tile[(p << t) + low]);
      }
    }
  }
}

}  // namespace hcube::kernels::cpu

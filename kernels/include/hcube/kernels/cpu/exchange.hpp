// The host launcher of a routing cycle: the same swaps as ExchangeBody, done
// row by row. In the tiled pvar layout a direct exchange (no offset map) pairs
// whole rows: the 2^t words of local address a of one tile with those of
// local address b of the partner tile (a dimension above the tile bits) or of
// the same tile (a dimension inside it, words 2^dim apart). The rows are
// visited tile by tile in address order, so each thread reads its tile and
// the few partner tiles as sequential streams; swapping rows as plain loops
// streams through memory. An exchange with node-dependent addresses runs the
// per-word body.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hcube/kernels/cpu/launch.hpp"
#include "hcube/kernels/exchange.hpp"

namespace hcube::kernels::cpu {

// How many exchanges ahead a routing cycle prefetches its rows.
inline constexpr std::uint64_t kPrefetchRows = 2;

template <class Word>
void run_exchanges(const ExchangeBody<Word>& body, std::uint64_t count) {
  const Layout& L = body.layout;
  const unsigned t = L.t, n = L.geo.n, pair_bits = n - 1;
  const std::uint64_t row = bit(t), tiles = bit(n - t), tile_words = L.geo.words_per_node() << t;
  // A cycle's exchanges touch disjoint words, so any order is the same cycle:
  // the direct ones sorted by local address (one sweep through each tile).
  std::vector<std::uint32_t> direct;
  for (std::uint64_t e = 0; e < count; ++e) {
    if (body.exchanges[e].offset_map == 0) {
      direct.push_back(static_cast<std::uint32_t>(e));
    } else {
      // Node-dependent addresses: the per-word body over this exchange's pairs.
      launch(bit(pair_bits), [&](std::uint64_t p) { body((e << pair_bits) | p); });
    }
  }
  if (direct.empty()) return;
  std::stable_sort(direct.begin(), direct.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return body.exchanges[x].addr < body.exchanges[y].addr; });
  // Work item (tile, slice of the sorted exchanges): enough items for every thread even with one tile.
  const std::uint64_t slices = std::min<std::uint64_t>(direct.size(), std::max<std::uint64_t>(1, 64 / tiles));
  const auto items = static_cast<std::int64_t>(tiles * slices);
  Word* mem = body.mem;
  const bool prefetch = L.geo.total_words() * sizeof(Word) >= kStreamingBytes;
#pragma omp parallel for schedule(static, 1) if (direct.size() * L.geo.nodes() >= kParallelThreshold) \
    num_threads(team_size())
  for (std::int64_t w = 0; w < items; ++w) {
    const std::uint64_t T = static_cast<std::uint64_t>(w) / slices, s = static_cast<std::uint64_t>(w) % slices;
    const std::uint64_t first = direct.size() * s / slices, last = direct.size() * (s + 1) / slices;
    Word* tile = mem + T * tile_words;
    // The rows of exchange k: this tile's and its partner's (this tile holds the
    // low side of the pair, or the dimension is inside the tile); false when the
    // partner tile does the swap.
    const auto rows = [&](std::uint64_t k, Word*& a, Word*& b) {
      const Exchange& x = body.exchanges[direct[k]];
      if (x.dim >= t && ((T >> (x.dim - t)) & 1u)) return false;
      a = tile + (x.addr << t);
      b = (x.dim >= t ? tile + bit(x.dim - t) * tile_words : tile) + (x.peer_addr << t);
      return true;
    };
    for (std::uint64_t k = first; k < last; ++k) {
      Word *a = nullptr, *b = nullptr;
      // The rows two exchanges ahead are fetched while these swap: they lie in
      // other tiles' pages (2^26 u32 words: 0.61 -> 0.68 of memcpy).
      if (prefetch && k + kPrefetchRows < last && rows(k + kPrefetchRows, a, b))
        for (std::size_t c = 0; c < row * sizeof(Word); c += 64) {
          __builtin_prefetch(reinterpret_cast<const char*>(a) + c, 1, 3);
          __builtin_prefetch(reinterpret_cast<const char*>(b) + c, 1, 3);
        }
      if (!rows(k, a, b)) continue;
      const unsigned dim = body.exchanges[direct[k]].dim;
      if (dim >= t) {
        for (std::uint64_t j = 0; j < row; ++j) swap_words(a[j], b[j]);
      } else {
        const std::uint64_t step = bit(dim);
        for (std::uint64_t i = 0; i < row; i += 2 * step)
          for (std::uint64_t j = i; j < i + step; ++j) swap_words(a[j], b[j + step]);
      }
    }
  }
}

}  // namespace hcube::kernels::cpu

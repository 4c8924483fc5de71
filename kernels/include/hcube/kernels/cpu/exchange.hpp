// The host launcher of a routing cycle: the same swaps as ExchangeBody, done
// row by row. In the tiled pvar layout a direct exchange (no offset map) pairs
// whole rows: the 2^t words of local address a of one tile with those of
// local address b of the partner tile (a dimension above the tile bits) or of
// the same tile (a dimension inside it, words 2^dim apart). Swapping rows as
// plain loops streams through memory; an exchange with node-dependent
// addresses runs the per-word body.
#pragma once

#include <algorithm>
#include <cstdint>

#include "hcube/kernels/cpu/launch.hpp"
#include "hcube/kernels/exchange.hpp"

namespace hcube::kernels::cpu {

template <class Word>
void run_exchanges(const ExchangeBody<Word>& body, std::uint64_t count) {
  const Layout& L = body.layout;
  const unsigned t = L.t, n = L.geo.n;
  const std::uint64_t row = bit(t), tiles = bit(n - t), tile_words = L.geo.words_per_node() << t;
  // Work item w = (exchange e, tile pair or tile i): tiles / 2 pairs above the tile bits, `tiles` inside.
  const std::uint64_t per_exchange = std::max<std::uint64_t>(tiles / 2, 1) * 2;  // upper bound, both cases
  const auto items = static_cast<std::int64_t>(count * per_exchange);
  const unsigned pair_bits = n - 1;
#pragma omp parallel for schedule(static) if (count * L.geo.total_words() / 2 >= kParallelThreshold)
  for (std::int64_t w = 0; w < items; ++w) {
    // Tile-major: one tile (pair) at a time through all the cycle's exchanges, which stays in its pages.
    const std::uint64_t i = static_cast<std::uint64_t>(w) / count, e = static_cast<std::uint64_t>(w) % count;
    const Exchange& x = body.exchanges[e];
    if (x.offset_map != 0) {
      // Node-dependent addresses: the per-word body over this exchange's pairs, split in per_exchange slices.
      const std::uint64_t pairs = bit(pair_bits), first = pairs * i / per_exchange, last = pairs * (i + 1) / per_exchange;
      for (std::uint64_t p = first; p < last; ++p) body((e << pair_bits) | p);
      continue;
    }
    Word* mem = body.mem;
    if (x.dim >= t) {
      if (i >= tiles / 2) continue;
      const std::uint64_t lo_tile = insert_zero_bit(i, x.dim - t), hi_tile = lo_tile | bit(x.dim - t);
      Word* a = mem + lo_tile * tile_words + (x.addr << t);
      Word* b = mem + hi_tile * tile_words + (x.peer_addr << t);
      for (std::uint64_t k = 0; k < row; ++k) swap_words(a[k], b[k]);
    } else {
      if (i >= tiles) continue;
      Word* a = mem + i * tile_words + (x.addr << t);
      Word* b = mem + i * tile_words + (x.peer_addr << t);
      const std::uint64_t step = bit(x.dim);
      for (std::uint64_t k = 0; k < row; k += 2 * step)
        for (std::uint64_t j = k; j < k + step; ++j) swap_words(a[j], b[j + step]);
    }
  }
}

}  // namespace hcube::kernels::cpu

// Primitive 1, the routing cycle: one launch swaps the words of every
// exchange of the cycle across its dimension, for every node pair at once.
#pragma once

#include <cstdint>

#include "hcube/core/bits.hpp"
#include "hcube/core/exchange.hpp"
#include "hcube/core/layout.hpp"
#include "hcube/kernels/alignment.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

// Thread t handles pair p = t mod 2^(n-1) of exchange e = t / 2^(n-1):
// consecutive threads take consecutive nodes of a subcube, i.e. one stream.
template <class Word>
struct ExchangeBody {
  Word* mem;
  Layout layout;
  const Exchange* exchanges;
  const std::uint64_t* offset_tables;  // map k at (k-1) * offset_bytes * 256, for node-dependent addresses
  unsigned offset_bytes;

  HCUBE_HD std::uint64_t count(std::uint64_t num_exchanges) const { return num_exchanges << (layout.geo.n - 1); }

  HCUBE_HD void operator()(std::uint64_t t) const {
    const unsigned pair_bits = layout.geo.n - 1;
    const Exchange x = exchanges[t >> pair_bits];
    const std::uint64_t low = insert_zero_bit(t & low_mask(pair_bits), x.dim), high = low | bit(x.dim);
    std::uint64_t a = x.addr, b = x.peer_addr;
    if (x.offset_map != 0) {
      const std::uint64_t* table = offset_tables + std::uint64_t{x.offset_map - 1} * offset_bytes * 256;
      a ^= AffineView::lookup(table, offset_bytes, low);
      b ^= AffineView::lookup(table, offset_bytes, high);
    }
    swap_words(mem[layout.index(low, a)], mem[layout.index(high, b)]);
  }
};

}  // namespace hcube::kernels

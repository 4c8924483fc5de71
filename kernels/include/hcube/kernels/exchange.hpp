// Primitive 1, the routing cycle: one launch swaps the words of every
// exchange of the cycle across its dimension, for every node pair at once.
#pragma once

#include <cstdint>

#include "hcube/host/bits.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/host/layout.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

// Thread t handles pair p = t mod 2^(n-1) of exchange e = t / 2^(n-1):
// consecutive threads take consecutive nodes of a subcube, i.e. one stream.
template <class Word>
struct ExchangeBody {
  Word* mem;
  Layout layout;
  const Exchange* exchanges;

  HCUBE_HD std::uint64_t count(std::uint64_t num_exchanges) const { return num_exchanges << (layout.geo.n - 1); }

  HCUBE_HD void operator()(std::uint64_t t) const {
    const unsigned pair_bits = layout.geo.n - 1;
    const Exchange x = exchanges[t >> pair_bits];
    const std::uint64_t low = insert_zero_bit(t & low_mask(pair_bits), x.dim);
    swap_words(mem[layout.index(low, x.addr)], mem[layout.index(low | bit(x.dim), x.peer_addr)]);
  }
};

}  // namespace hcube::kernels

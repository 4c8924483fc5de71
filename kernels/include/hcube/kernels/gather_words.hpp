// Words picked out of storage by index, into a packed buffer: how a check
// reads the machine's words at the places a reference formula gives, a chunk
// at a time, without a host copy of the whole storage. The scatter puts a
// packed buffer back: the words a distributed machine received from another rank.
#pragma once

#include <cstdint>

#include "hcube/core/bits.hpp"
#include "hcube/core/exchange.hpp"
#include "hcube/core/layout.hpp"
#include "hcube/kernels/alignment.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

template <class Word>
struct GatherWordsBody {
  const Word* storage;
  const std::uint64_t* index;  // storage indices, checked in range by the caller
  Word* out;

  HCUBE_HD void operator()(std::uint64_t i) const { out[i] = storage[index[i]]; }
};

template <class Word>
struct ScatterWordsBody {
  Word* storage;
  const std::uint64_t* index;  // distinct storage indices, checked in range by the caller
  const Word* in;

  HCUBE_HD void operator()(std::uint64_t i) const { storage[index[i]] = in[i]; }
};

// The words of exchanges along node dimensions above the storage's own (a
// distributed machine's exchanges with another rank), in the packed order
// both ranks use: word e 2^n + j is node j's word of exchange e, at addr
// (peer_addr on the `upper` side, whose rank bit is set) xor the offset map's L(j).
struct ExchangeWords {
  Layout layout;
  const Exchange* exchanges;
  const std::uint64_t* offset_tables;  // map k at (k-1) * offset_bytes * 256
  unsigned offset_bytes;
  bool upper;

  HCUBE_HD std::uint64_t index(std::uint64_t i) const {
    const std::uint64_t j = i & low_mask(layout.geo.n);
    const Exchange x = exchanges[i >> layout.geo.n];
    std::uint64_t a = upper ? x.peer_addr : x.addr;
    if (x.offset_map != 0)
      a ^= AffineView::lookup(offset_tables + std::uint64_t{x.offset_map - 1} * offset_bytes * 256, offset_bytes, j);
    return layout.index(j, a);
  }
};

template <class Word>
struct GatherExchangeWordsBody {
  ExchangeWords words;
  const Word* storage;
  Word* out;

  HCUBE_HD void operator()(std::uint64_t i) const { out[i] = storage[words.index(i)]; }
};

template <class Word>
struct ScatterExchangeWordsBody {
  ExchangeWords words;
  Word* storage;
  const Word* in;

  HCUBE_HD void operator()(std::uint64_t i) const { storage[words.index(i)] = in[i]; }
};

}  // namespace hcube::kernels

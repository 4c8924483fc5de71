// The CPU's gather and scatter of a distributed machine's exchange words
// (kernels/gather_words.hpp): an exchange without an offset map holds, on
// each tile's 2^t nodes, one address, which the tiled layout keeps in 2^t
// consecutive words: copied as one run instead of word by word.
#pragma once

#include <cstdint>
#include <cstring>

#include "hcube/core/bits.hpp"
#include "hcube/backends/cpu/launch.hpp"
#include "hcube/kernels/gather_words.hpp"

namespace hcube::kernels::cpu {

// Shorter runs go word by word through the body.
inline constexpr unsigned kExchangeWordsRunBits = 3;

// `to_packed`: gather (storage to packed) or scatter (packed to storage).
template <class Word, class Body>
void copy_exchange_words(std::uint64_t count, const Body& body, const ExchangeWords& w, Word* storage, Word* packed,
                         bool to_packed) {
  const unsigned n = w.layout.geo.n, t = w.layout.t;
  if (t < kExchangeWordsRunBits) {
    launch(count, body);
    return;
  }
  const std::uint64_t run = bit(t), runs = count >> t;
  const auto total = static_cast<std::int64_t>(runs);
#pragma omp parallel for schedule(static) if (count >= kParallelThreshold) num_threads(team_size())
  for (std::int64_t k = 0; k < total; ++k) {
    const std::uint64_t first = static_cast<std::uint64_t>(k) << t;  // the run's first packed word
    const Exchange& x = w.exchanges[first >> n];
    if (x.offset_map != 0) {
      for (std::uint64_t i = first; i < first + run; ++i) body(i);
      continue;
    }
    Word* in_storage = storage + w.index(first);
    Word* in_packed = packed + first;
    if (to_packed)
      std::memcpy(in_packed, in_storage, run * sizeof(Word));
    else
      std::memcpy(in_storage, in_packed, run * sizeof(Word));
  }
}

template <class Word>
void launch_exchange_words(std::uint64_t count, const GatherExchangeWordsBody<Word>& body) {
  copy_exchange_words(count, body, body.words, const_cast<Word*>(body.storage), body.out, true);
}

template <class Word>
void launch_exchange_words(std::uint64_t count, const ScatterExchangeWordsBody<Word>& body) {
  copy_exchange_words(count, body, body.words, body.storage, const_cast<Word*>(body.in), false);
}

}  // namespace hcube::kernels::cpu

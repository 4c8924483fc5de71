// Words picked out of storage by index, into a packed buffer: how a check
// reads the machine's words at the places a reference formula gives, a chunk
// at a time, without a host copy of the whole storage. The scatter puts a
// packed buffer back: the words a distributed machine received from another rank.
#pragma once

#include <cstdint>

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

}  // namespace hcube::kernels

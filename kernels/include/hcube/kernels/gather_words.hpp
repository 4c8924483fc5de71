// Words picked out of storage by index, into a packed buffer: how a check
// reads the machine's words at the places a reference formula gives, a chunk
// at a time, without a host copy of the whole storage.
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

}  // namespace hcube::kernels

// A local permutation given by a table, every node its own: word (j, i) takes
// the word that was at (j, from[j K + i]). Out of place; used where the
// permutation has no affine form, as the packing and unpacking of a block-
// cyclic redistribution's messages.
#pragma once

#include <cstdint>

#include "hcube/host/layout.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

template <class Word>
struct LocalGatherBody {
  const Word* src;
  Word* dst;
  Layout layout;
  const std::uint64_t* from;  // by global address j K + i

  HCUBE_HD void operator()(std::uint64_t s) const {
    const std::uint64_t j = layout.node_at(s), i = layout.local_at(s);
    dst[s] = src[layout.index(j, from[layout.geo.global(j, i)])];
  }
};

}  // namespace hcube::kernels

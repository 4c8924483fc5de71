// Copy-in and copy-out: between the user's row-major A[node][local] and the
// machine's tiled storage. Thread s handles storage word s, so storage is
// streamed and the user's side is read or written a row of a tile at a time.
#pragma once

#include <cstdint>

#include "hcube/core/layout.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

enum class Direction { to_storage, to_user };

template <class Word, Direction dir>
struct RelayoutBody {
  const Word* src;
  Word* dst;
  Layout layout;

  HCUBE_HD void operator()(std::uint64_t s) const {
    const std::uint64_t g = layout.geo.global(layout.node_at(s), layout.local_at(s));
    if constexpr (dir == Direction::to_storage)
      dst[s] = src[g];
    else
      dst[g] = src[s];
  }
};

}  // namespace hcube::kernels

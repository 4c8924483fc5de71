// The device copy roofline: dst[i] = src[i] in 16-byte words, the fastest a
// backend moves bytes through its own memory, which `hcube bench` divides by.
#pragma once

#include <cstdint>

#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

struct CopyBody {
  const Word16* src;
  Word16* dst;

  HCUBE_HD void operator()(std::uint64_t i) const { dst[i] = src[i]; }
};

}  // namespace hcube::kernels

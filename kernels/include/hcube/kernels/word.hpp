// The words the kernels move. Data motion is bit-exact and type-blind, so
// every element type maps onto one of three word sizes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hcube/core/error.hpp"
#include "hcube/core/hd.hpp"

namespace hcube::kernels {

struct alignas(16) Word16 {
  std::uint64_t lo, hi;
};

template <class Word>
HCUBE_HD inline void swap_words(Word& a, Word& b) {
  const Word t = a;
  a = b;
  b = t;
}

// Calls f(Word{}) with the word type of the given size.
template <class F>
void dispatch_word(std::size_t word_bytes, F&& f) {
  switch (word_bytes) {
    case 4: f(std::uint32_t{}); return;
    case 8: f(std::uint64_t{}); return;
    case 16: f(Word16{}); return;
    default: throw Error("internal: word size must be 4, 8 or 16 bytes");
  }
}

}  // namespace hcube::kernels

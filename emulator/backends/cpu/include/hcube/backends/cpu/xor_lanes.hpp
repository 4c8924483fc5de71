// The in-register step of the host alignment's vector path: L rows of 32
// bytes (L = 32 / word size) in which lane k of row s must move to row s xor k.
// It is a butterfly over the lane bits: for lane bit e, the lanes with bit e
// set swap between rows s and s xor 2^e, two blends a row pair (8 x 8 u32: 24
// blends for 64 words).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "hcube/core/bits.hpp"

namespace hcube::kernels::cpu {

// a with the 32-bit elements whose index has bit DwordBit set taken from b.
template <unsigned DwordBit>
__attribute__((target("avx2"))) inline __m256i blend_upper(__m256i a, __m256i b) {
  static_assert(DwordBit < 3);
  constexpr int mask = DwordBit == 0 ? 0xAA : DwordBit == 1 ? 0xCC : 0xF0;
  return _mm256_blend_epi32(a, b, mask);
}

// One butterfly stage: lane bit E of L lanes (a lane is 8 / L 32-bit elements).
template <unsigned L, unsigned E>
__attribute__((target("avx2"))) inline void xor_lanes_stage(__m256i (&x)[L]) {
  constexpr unsigned dword_bit = E + words_bits(32 / L, 4);  // a lane is 2^(dword_bit - E) elements
  for (unsigned s = 0; s < L; ++s) {
    if (s & (1u << E)) continue;
    const __m256i a = x[s], b = x[s | (1u << E)];
    x[s] = blend_upper<dword_bit>(a, b);
    x[s | (1u << E)] = blend_upper<dword_bit>(b, a);
  }
}

// x[s] lane k := x[s xor k] lane k, for L = 2, 4 or 8 lanes.
template <unsigned L>
__attribute__((target("avx2"))) inline void xor_lanes(__m256i (&x)[L]) {
  static_assert(L == 2 || L == 4 || L == 8);
  xor_lanes_stage<L, 0>(x);
  if constexpr (L >= 4) xor_lanes_stage<L, 1>(x);
  if constexpr (L == 8) xor_lanes_stage<L, 2>(x);
}

}  // namespace hcube::kernels::cpu
#endif

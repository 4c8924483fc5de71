// The FFT's local compute primitive: one radix-2 decimation-in-frequency
// butterfly stage over one local address bit, on complex words, for every
// node at once (host/fft_plan.hpp plans the stages and the AAPCs between).
//
// The words at local addresses i and i xor 2^a of a node form a pair; their
// logical indices (the position in the DIF's in-place array) differ in one bit
// b. `index` maps (node, local) to the logical index t, an affine map over
// GF(2) evaluated with the alignment's byte tables, so the stage also runs
// while words sit at the aligned addresses of an AAPC sequence (Lemma 1). With
// top = the word whose bit b of t is 0, bottom its partner:
//   top' = top + bottom,  bottom' = (top - bottom) * w,  w = exp(-+ i pi (t mod 2^b) / 2^b),
// the twiddle computed from t in double precision for both word types.
#pragma once

#include <cmath>
#include <cstdint>

#include "hcube/host/bits.hpp"
#include "hcube/host/layout.hpp"
#include "hcube/kernels/alignment.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

struct alignas(8) Complex64 {
  float re, im;
};
struct alignas(16) Complex128 {
  double re, im;
};

template <class C>
struct ComplexTraits;
template <>
struct ComplexTraits<Complex64> {
  using Real = float;
};
template <>
struct ComplexTraits<Complex128> {
  using Real = double;
};

// (sin, cos) of pi * frac for frac in [0, 1), a dyadic fraction. On the host
// the argument is folded into [0, 1/4] first (exactly, frac being dyadic),
// so the result is correct to an ulp or two; CUDA has sincospi.
HCUBE_HD inline void sincos_pi(double frac, double* s, double* c) {
#if defined(__CUDA_ARCH__)
  sincospi(frac, s, c);
#else
  constexpr double kPi = 3.141592653589793238462643383279502884;
  bool negate_cos = false, swap = false;
  if (frac > 0.5) {  // sin(pi - x) = sin x, cos(pi - x) = -cos x
    frac = 1.0 - frac;
    negate_cos = true;
  }
  if (frac > 0.25) {  // sin(pi/2 - x) = cos x
    frac = 0.5 - frac;
    swap = true;
  }
  const double a = kPi * frac;
  double sv = std::sin(a), cv = std::cos(a);
  if (swap) {
    const double t = sv;
    sv = cv;
    cv = t;
  }
  *s = sv;
  *c = negate_cos ? -cv : cv;
#endif
}

template <class C>
struct FftStageBody {
  C* mem;
  Layout layout;
  AffineView index;       // (node, local) -> logical index t
  unsigned storage_bit;   // the pair's local address bit a, as a storage index bit (a + layout.t)
  unsigned index_bit;     // b
  double sign;            // -1 forward, +1 inverse

  // One thread per pair.
  HCUBE_HD std::uint64_t count() const { return layout.geo.total_words() >> 1; }

  HCUBE_HD void operator()(std::uint64_t p) const {
    using R = typename ComplexTraits<C>::Real;
    const std::uint64_t lo = insert_zero_bit(p, storage_bit), hi = lo | bit(storage_bit);
    const std::uint64_t t = index.mem_part(layout.local_at(lo)) ^ index.node_part(layout.node_at(lo));
    const bool swapped = test_bit(t, index_bit);
    C* top = mem + (swapped ? hi : lo);
    C* bottom = mem + (swapped ? lo : hi);
    const std::uint64_t j = t & low_mask(index_bit);  // the same for both words of the pair
    double s = 0, c = 1;
    if (j != 0) sincos_pi(static_cast<double>(j) / static_cast<double>(bit(index_bit)), &s, &c);
    const R wr = static_cast<R>(c), wi = static_cast<R>(sign * s);
    const C x = *top, y = *bottom;
    const R dr = x.re - y.re, di = x.im - y.im;
    *top = C{x.re + y.re, x.im + y.im};
    *bottom = C{dr * wr - di * wi, dr * wi + di * wr};
  }
};

}  // namespace hcube::kernels

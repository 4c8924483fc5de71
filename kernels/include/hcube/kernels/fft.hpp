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

#include "hcube/core/bits.hpp"
#include "hcube/core/layout.hpp"
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

// --- a block of stages through a library DFT -------------------------------
//
// The DIF stages on index bits lo+h-1 .. lo (all local) leave at in-block
// position u of every group (the 2^h words of one node that differ only in
// those index bits) w_N^(L k) * sum_v x[v] w_(2^h)^(v k), with k = rev_h(u),
// L = t mod 2^lo and N = 2^(lo+h): a DFT of each group, then a twiddle. The
// gather lays every group out as one contiguous row in index order, a library
// (FFTW, cuFFT) transforms all rows at once, and the scatter writes each word
// back with its twiddle.

// The bits of x where keep is set, packed towards bit 0 (pext).
HCUBE_HD inline std::uint64_t compress_bits(std::uint64_t x, std::uint64_t keep) {
  std::uint64_t out = 0;
  unsigned k = 0;
  for (unsigned b = 0; keep >> b != 0; ++b)
    if (test_bit(keep, b)) out |= ((x >> b) & 1u) << k++;
  return out;
}

HCUBE_HD inline std::uint64_t reverse_low_bits(std::uint64_t x, unsigned h) {
  std::uint64_t r = 0;
  for (unsigned b = 0; b < h; ++b) r |= ((x >> b) & 1u) << (h - 1 - b);
  return r;
}

struct FftBlockShape {
  Layout layout;
  AffineView index;          // (node, local) -> logical index t
  std::uint64_t group_bits;  // the local address bits that hold index bits lo .. lo+h-1
  unsigned lo;
  unsigned h;

  // The logical index t of the word at storage index s.
  HCUBE_HD std::uint64_t logical(std::uint64_t s) const {
    return index.mem_part(layout.local_at(s)) ^ index.node_part(layout.node_at(s));
  }

  // The word's row (node, its other local bits) and its in-block index bits.
  HCUBE_HD void locate(std::uint64_t s, std::uint64_t* row, std::uint64_t* u, std::uint64_t* t) const {
    const std::uint64_t j = layout.node_at(s), i = layout.local_at(s);
    *t = logical(s);
    *u = (*t >> lo) & low_mask(h);
    const unsigned m = layout.geo.m;
    *row = (j << (m - h)) | compress_bits(i, low_mask(m) & ~group_bits);
  }
};

// w = exp(sign 2 pi i num / 2^logn) for num < 2^logn, in double precision:
// pi (2 num / 2^logn), the argument folded from [0, 2) into sincos_pi's [0, 1).
HCUBE_HD inline void twiddle(std::uint64_t num, unsigned logn, double sign, double* wr, double* wi) {
  double sv = 0, cv = 1;
  if (num != 0) {
    double twice = static_cast<double>(num) / static_cast<double>(bit(logn)) * 2.0;
    const bool flip = twice >= 1.0;  // sin(pi + x) = -sin x, cos(pi + x) = -cos x
    if (flip) twice -= 1.0;
    sincos_pi(twice, &sv, &cv);
    if (flip) {
      sv = -sv;
      cv = -cv;
    }
  }
  *wr = cv;
  *wi = sign * sv;
}

template <class C>
struct FftGatherBody {
  const C* mem;
  C* rows;
  FftBlockShape shape;

  HCUBE_HD void operator()(std::uint64_t s) const {
    std::uint64_t row = 0, u = 0, t = 0;
    shape.locate(s, &row, &u, &t);
    rows[(row << shape.h) | u] = mem[s];
  }
};

template <class C>
struct FftScatterBody {
  C* mem;
  const C* rows;
  FftBlockShape shape;
  double sign;  // -1 forward, +1 inverse

  HCUBE_HD void operator()(std::uint64_t s) const {
    using R = typename ComplexTraits<C>::Real;
    std::uint64_t row = 0, u = 0, t = 0;
    shape.locate(s, &row, &u, &t);
    const std::uint64_t k = reverse_low_bits(u, shape.h), L = t & low_mask(shape.lo);
    const C y = rows[(row << shape.h) | k];
    const unsigned logn = shape.lo + shape.h;
    double re = 1, im = 0;
    twiddle((L * k) & low_mask(logn), logn, sign, &re, &im);
    const R wr = static_cast<R>(re), wi = static_cast<R>(im);
    mem[s] = C{y.re * wr - y.im * wi, y.re * wi + y.im * wr};
  }
};

}  // namespace hcube::kernels

// Address labels made and checked where the data is: the word at storage
// index s holds (or must hold) the label L(s) = M s xor c, an affine map over
// GF(2) (the storage index is a bit permutation of the global address, and a
// permutation's reference is affine for the closed forms: transpose, bit
// reversal, the AAPC permutations, dimension permutations). A check compares
// the whole word bit for bit with the label's encoding, so a NaN, a -0 where
// a +0 belongs or a wrong imaginary part is a mismatch. One body each, run by
// the CPU backend's OpenMP launcher and by Thrust on CUDA (kernels/thrust_labels.hpp).
#pragma once

#include <cstdint>
#include <cstring>

#include "hcube/core/hd.hpp"
#include "hcube/kernels/alignment.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

// How a label is written into a word; the same order as hcube::ElementType.
enum class LabelCode : std::uint8_t { u32, i32, u64, f32, f64, c64, c128 };

// The bits of a float or double, as the host and the device both write them.
template <class Bits, class Real>
HCUBE_HD inline Bits bits_of(Real r) {
  Bits b;
  std::memcpy(&b, &r, sizeof b);
  return b;
}

// The label v as a word: integers as they are, reals converted, complex
// numbers as (v, -v) so that both halves must move together.
template <class Word>
HCUBE_HD inline Word encode_label(LabelCode code, std::uint64_t v) {
  if constexpr (sizeof(Word) == 4) {
    return code == LabelCode::f32 ? bits_of<std::uint32_t>(static_cast<float>(v)) : static_cast<std::uint32_t>(v);
  } else if constexpr (sizeof(Word) == 8) {
    if (code == LabelCode::f64) return bits_of<std::uint64_t>(static_cast<double>(v));
    if (code == LabelCode::c64) {
      const auto re = static_cast<float>(v);
      return std::uint64_t{bits_of<std::uint32_t>(re)} | std::uint64_t{bits_of<std::uint32_t>(-re)} << 32;
    }
    return v;
  } else {
    const auto re = static_cast<double>(v);
    return Word16{bits_of<std::uint64_t>(re), bits_of<std::uint64_t>(-re)};
  }
}

HCUBE_HD inline bool same_word(std::uint32_t a, std::uint32_t b) { return a == b; }
HCUBE_HD inline bool same_word(std::uint64_t a, std::uint64_t b) { return a == b; }
HCUBE_HD inline bool same_word(const Word16& a, const Word16& b) { return a.lo == b.lo && a.hi == b.hi; }

// x -> M x xor c, M by byte tables (AffineView::lookup: `bytes` tables of 256).
struct LinearView {
  const std::uint64_t* table;
  unsigned bytes;
  std::uint64_t constant;

  HCUBE_HD std::uint64_t operator()(std::uint64_t x) const { return AffineView::lookup(table, bytes, x) ^ constant; }
};

// The label word for storage index s.
template <class Word>
struct LabelOf {
  LinearView label;
  LabelCode code;

  HCUBE_HD Word operator()(std::uint64_t s) const { return encode_label<Word>(code, label(s)); }
};

// Writes every word's label: mem[s] = label of s.
template <class Word>
struct LabelFillBody {
  Word* mem;
  LabelOf<Word> of;

  HCUBE_HD void operator()(std::uint64_t s) const { mem[s] = of(s); }
};

// Words that are not their label: how many, and the first storage index of one
// (kNone when none). A reduction's value and its combining step.
struct LabelTally {
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  std::uint64_t mismatches = 0;
  std::uint64_t first = kNone;
};
struct CombineTallies {
  HCUBE_HD LabelTally operator()(const LabelTally& a, const LabelTally& b) const {
    return LabelTally{a.mismatches + b.mismatches, a.first < b.first ? a.first : b.first};
  }
};

// The tally of one word: storage index s against its label.
template <class Word>
struct LabelCheckBody {
  const Word* mem;
  LabelOf<Word> of;

  HCUBE_HD LabelTally operator()(std::uint64_t s) const {
    if (same_word(mem[s], of(s))) return LabelTally{0, LabelTally::kNone};
    return LabelTally{1, s};
  }
};

}  // namespace hcube::kernels

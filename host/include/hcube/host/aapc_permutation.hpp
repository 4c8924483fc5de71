// Permutations built on one AAPC (Johnsson & Ho 1992, sec. 2.2): the axis
// exchange (j|i) -> (i|j) on d processor and d memory bits, and the family
// (j|i) -> (f(i)|g(j)) whose f and g are folded into the pre- and
// post-alignment at no extra routing cycles. Bits above the d AAPC bits are
// passengers: n > d gives independent AAPCs in subcubes, m > d repeats it.
#pragma once

#include <string>

#include "hcube/host/affine_map.hpp"
#include "hcube/host/reference.hpp"

namespace hcube {

enum class AapcPermutation {
  transpose,        // (j|i) -> (i|j): matrix transposition, consecutive <-> cyclic storage
  bit_reversal,     // (j|i) -> (rev i|rev j): the paper's (a7..a3|a2a1a0) -> (a7a6a0a1a2|a3a4a5)
  vector_reversal,  // (j|i) -> (~i|~j): a reversed vector, consecutive <-> cyclic
  gray,             // (j|i) -> (G(i)|G^-1(j)): axis exchange keeping nodes in Gray code
};
AapcPermutation parse_aapc_permutation(const std::string& s);
std::string to_string(AapcPermutation p);
std::string aapc_permutation_names();

struct PermutationPlan {
  AffineMap f;              // on the memory bits before the AAPC: (j|i) -> (j|f(i))
  AffineMap g;              // on the memory bits after it: (i|j) -> (i|g(j))
  AddressMap destination;   // the reference, written directly from the formula
  std::string formula;
  AffineAddressMap destination_form = {};  // destination's closed form (every one here is affine over GF(2))
};
PermutationPlan plan_aapc_permutation(AapcPermutation p, const Geometry& geo, unsigned d);

// What the machine runs: pre = f, then (j|i) -> (j|i xor j) on the d AAPC
// bits; post = the same xor, then g. One launch each (Lemma 1's point: the
// code conversions cost no extra data motion).
// With axes > 1, the xor folds all axes (Lemma 1).
AffineMap pre_alignment(const Geometry& geo, unsigned d, const AffineMap& f, unsigned axes = 1);
AffineMap post_alignment(const Geometry& geo, unsigned d, const AffineMap& g, unsigned axes = 1);

}  // namespace hcube

#include "hcube/host/aapc_permutation.hpp"

#include <fmt/format.h>

#include <numeric>

#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {
namespace {

struct Named {
  const char* name;
  AapcPermutation p;
};
const Named kNames[] = {
    {"transpose", AapcPermutation::transpose},
    {"consecutive-to-cyclic", AapcPermutation::transpose},
    {"cyclic-to-consecutive", AapcPermutation::transpose},
    {"bit-reversal", AapcPermutation::bit_reversal},
    {"vector-reversal", AapcPermutation::vector_reversal},
    {"gray", AapcPermutation::gray},
};

}  // namespace

AapcPermutation parse_aapc_permutation(const std::string& s) {
  for (const Named& n : kNames)
    if (s == n.name) return n.p;
  throw Error(fmt::format("permutation '{}' unknown: allowed {}", printable_input(s), aapc_permutation_names()));
}

std::string aapc_permutation_names() {
  std::string s;
  for (const Named& n : kNames) s += (s.empty() ? "" : ", ") + std::string(n.name);
  return s;
}

std::string to_string(AapcPermutation p) {
  for (const Named& n : kNames)
    if (n.p == p) return n.name;
  return "?";
}

namespace {

PermutationPlan plan_of(AapcPermutation p, const Geometry& geo, unsigned d) {
  if (d < 1 || d > geo.n || d > geo.m)
    throw Error(fmt::format("AAPC dimension d = {} out of range: allowed 1..min(n, m) = {}", d, std::min(geo.n, geo.m)));
  const std::uint64_t lo = low_mask(d);
  // The destination of word (j|i), split into the AAPC bits (low d) and passengers.
  const auto make = [geo, d, lo](auto node_of_i, auto local_of_j) {
    return [=](std::uint64_t g) {
      const std::uint64_t j = geo.node_of(g), i = geo.local_of(g);
      return geo.global((j & ~lo) | node_of_i(i & lo), (i & ~lo) | local_of_j(j & lo));
    };
  };
  std::vector<unsigned> rev(geo.m);
  std::iota(rev.begin(), rev.end(), 0u);
  for (unsigned b = 0; b < d; ++b) rev[b] = d - 1 - b;
  const AffineMap id(geo);
  switch (p) {
    case AapcPermutation::transpose:
      return {id, id, make([](std::uint64_t x) { return x; }, [](std::uint64_t x) { return x; }), "(j|i) -> (i|j)"};
    case AapcPermutation::bit_reversal:
      return {AffineMap::permute_bits(geo, rev), AffineMap::permute_bits(geo, rev),
              make([d](std::uint64_t x) { return reverse_bits(x, d); }, [d](std::uint64_t x) { return reverse_bits(x, d); }),
              "(j|i) -> (rev i|rev j)"};
    case AapcPermutation::vector_reversal:
      return {AffineMap::complement(geo, 0, d), AffineMap::complement(geo, 0, d),
              make([lo](std::uint64_t x) { return x ^ lo; }, [lo](std::uint64_t x) { return x ^ lo; }),
              "(j|i) -> (~i|~j)"};
    case AapcPermutation::gray:
      return {AffineMap::gray(geo, 0, d, true), AffineMap::gray(geo, 0, d, false),
              make([](std::uint64_t x) { return gray_encode(x); }, [](std::uint64_t x) { return gray_decode(x); }),
              "(j|i) -> (G(i)|G^-1(j))"};
  }
  throw Error("internal: unknown permutation");
}

}  // namespace

PermutationPlan plan_aapc_permutation(AapcPermutation p, const Geometry& geo, unsigned d) {
  PermutationPlan plan = plan_of(p, geo, d);
  // Bit moves, a complement and Gray codes of bit fields: affine, so its values
  // at 0 and at single bits are the whole map (the tests compare everywhere).
  plan.destination_form = AffineAddressMap::of(plan.destination, geo.address_bits());
  return plan;
}

AffineMap pre_alignment(const Geometry& geo, unsigned d, const AffineMap& f, unsigned axes) {
  return f.then(AffineMap::xor_fold(geo, d, axes));
}

AffineMap post_alignment(const Geometry& geo, unsigned d, const AffineMap& g, unsigned axes) {
  return AffineMap::xor_fold(geo, d, axes).then(g);
}

}  // namespace hcube

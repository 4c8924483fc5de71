// --perm (parse_dimension_permutation). Input: byte 0 and byte 1 give n and m
// (each byte % 32: 'A' is 1, 'D' is 4; n + m up to 62, past the 56 allowed),
// then the --perm text. An accepted permutation is one of the q = n + m bits,
// and its analysis adds up.
#include <vector>

#include "fuzz_common.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/host/dimension_permutation.hpp"

using namespace hcube;
using namespace hcube::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const unsigned n = small_dims(data[0]), m = small_dims(data[1]);
  DimensionPermutation p;
  if (!accepted([&] { p = parse_dimension_permutation(text(data + 2, size - 2), n, m); })) return 0;
  const unsigned q = n + m;
  HCUBE_FUZZ_EXPECT(p.n == n && p.m == m && p.to.size() == q, "parse_dimension_permutation: wrong size");
  std::vector<bool> seen(q, false);
  for (unsigned i = 0; i < q; ++i) {
    HCUBE_FUZZ_EXPECT(p.to[i] < q && !seen[p.to[i]], "parse_dimension_permutation accepted a non-permutation");
    seen[p.to[i]] = true;
  }
  HCUBE_FUZZ_EXPECT(p.apply(low_mask(q)) == low_mask(q) && p.apply(0) == 0, "apply is not a bit permutation");

  const DimensionPermutationAnalysis a = analyze(p);
  unsigned moved = 0, real = 0;
  for (const ShuffleCycle& c : a.cycles) {
    moved += static_cast<unsigned>(c.bits.size());
    real += c.kind == ShuffleCycle::Kind::real ? 1 : 0;
  }
  HCUBE_FUZZ_EXPECT(a.sigma == moved && a.sigma == a.sigma_p + a.sigma_s && a.beta == a.cycles.size() &&
                        a.real_cycles == real && a.sigma <= q,
                    "analyze's counts do not add up");
  return 0;
}

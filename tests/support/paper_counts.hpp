// The paper's counts written from its formulas, for tests of several binaries
// (Johnsson & Ho 1992), independent of the planners' own code.
#pragma once

#include <algorithm>
#include <cstdint>

namespace hcube::test {

// Theorem 2, the smallest case that applies (K = 2^m words per node).
inline std::uint64_t theorem2(unsigned d, unsigned m, unsigned s) {
  const std::uint64_t K = std::uint64_t{1} << m;
  std::uint64_t t = ~std::uint64_t{0};
  if (s <= 3 || K <= 8 * d) t = std::min<std::uint64_t>(t, K / 2 + (s - 1) * d);
  if (8 * d <= K && K <= 2 * (s + 1) * d) t = std::min<std::uint64_t>(t, (s + 3) * d);
  if (K >= 2 * (s + 1) * d) t = std::min<std::uint64_t>(t, K / 2 + 2 * d);
  return t;
}

}  // namespace hcube::test

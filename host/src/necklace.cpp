#include "hcube/host/necklace.hpp"

#include "hcube/core/bits.hpp"

namespace hcube {

std::uint64_t rotate_left(std::uint64_t x, unsigned r, unsigned d) {
  r %= d;
  if (r == 0) return x;
  return ((x << r) | (x >> (d - r))) & low_mask(d);
}

unsigned necklace_period(std::uint64_t x, unsigned d) {
  for (unsigned p = 1; p < d; ++p)
    if (d % p == 0 && rotate_left(x, p, d) == x) return p;
  return d;
}

std::uint64_t distinguished(std::uint64_t x, unsigned d) {
  std::uint64_t best = x;
  for (unsigned r = 1; r < d; ++r) best = std::min(best, rotate_left(x, r, d));
  return best;
}

std::vector<Necklace> necklaces(unsigned d) {
  std::vector<Necklace> out;
  for (std::uint64_t x = 0; x < bit(d); ++x) {
    // x is distinguished iff no rotation is smaller; checked cheaply by rotating.
    bool smallest = true;
    for (unsigned r = 1; r < d && smallest; ++r) smallest = rotate_left(x, r, d) >= x;
    if (smallest) out.push_back(Necklace{x, necklace_period(x, d), popcount(x)});
  }
  return out;
}

std::vector<std::uint64_t> cyclic_pair_lows(unsigned d) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t x = 0; x < bit(d - 1); ++x)  // x < ~x exactly when the top bit is clear
    if (is_cyclic(x, d)) out.push_back(x);
  return out;
}

}  // namespace hcube

// Necklaces of d-bit strings (Johnsson & Ho 1992, sec. 2.1): the addresses
// obtained from one another by cyclic rotation. A necklace is full when it
// has d distinct members; the members of degenerate necklaces are cyclic.
#pragma once

#include <cstdint>
#include <vector>

namespace hcube {

// Left rotation of a d-bit string by r positions.
std::uint64_t rotate_left(std::uint64_t x, unsigned r, unsigned d);
// The least number of rotations (> 0) that give x back: a divisor of d.
unsigned necklace_period(std::uint64_t x, unsigned d);
inline bool is_cyclic(std::uint64_t x, unsigned d) { return necklace_period(x, d) < d; }
// The smallest member of x's necklace (the distinguished address).
std::uint64_t distinguished(std::uint64_t x, unsigned d);

struct Necklace {
  std::uint64_t first = 0;  // the distinguished address
  unsigned period = 0;      // number of distinct members
  unsigned weight = 0;      // bits equal to 1 (a q-necklace has weight q)
  bool full(unsigned d) const { return period == d; }
};

// Every necklace of d-bit strings, in increasing order of distinguished address.
std::vector<Necklace> necklaces(unsigned d);

// The complement pairs (x, ~x) of cyclic addresses, x < ~x, in increasing x.
std::vector<std::uint64_t> cyclic_pair_lows(unsigned d);

}  // namespace hcube

// The trivially correct reference every test compares the machine against:
// out[dest(g)] = in[g] for every global address g, computed one word at a
// time on the host, with the destination given directly by a formula.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "hcube/host/affine_map.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/host/geometry.hpp"
#include "hcube/host/router_step.hpp"

namespace hcube {

using AddressMap = std::function<std::uint64_t(std::uint64_t)>;

// The closed form of a destination that is affine over GF(2) on the q address
// bits, g -> A g xor c (every permutation of address bits, the AAPC
// permutations with their Gray codes and complements): the same map as its
// AddressMap, in a form a backend evaluates by table lookups over all words
// at once (Machine::count_label_mismatches), and which composes and inverts.
struct AffineAddressMap {
  std::vector<std::uint64_t> columns;  // q entries: the image of address bit b
  std::uint64_t constant = 0;

  unsigned bits() const { return static_cast<unsigned>(columns.size()); }
  std::uint64_t operator()(std::uint64_t g) const;
  // This map, then `next` (both on q bits).
  AffineAddressMap then(const AffineAddressMap& next) const;
  // Throws hcube::Error when A is singular (not a permutation).
  AffineAddressMap inverse() const;
  static AffineAddressMap identity(unsigned q);
  // Bit i of the address goes to bit to[i].
  static AffineAddressMap permute_bits(const std::vector<unsigned>& to);
  // The form of a destination known to be affine, read off its values at 0
  // and at each single address bit (q + 1 calls): the caller vouches that `f`
  // is affine (a formula built of bit moves, xors and complements; the tests
  // compare the two at every address).
  static AffineAddressMap of(const AddressMap& f, unsigned q);
};

// Moves words of `word_bytes` bytes; throws hcube::Error if dest is not a
// bijection of 0 .. total-1 (a word lost or duplicated).
std::vector<unsigned char> reference_permute(const std::vector<unsigned char>& in, std::size_t word_bytes,
                                             std::uint64_t total_words, const AddressMap& dest);

// Destination formulas of the primitives, written from their definitions.
AddressMap cycle_destination(const Geometry& geo, const Cycle& cycle, const OffsetMaps& maps = {});
AddressMap alignment_destination(const AffineMap& map);
AddressMap alignment_destination(const AlignmentStep& step);
// Words no message touches stay; a delivered word lands at its receiver and
// its source keeps its old value, so this reference returns the whole new state.
std::vector<unsigned char> reference_route(const std::vector<unsigned char>& in, std::size_t word_bytes,
                                           const Geometry& geo, const RouterStep& step);
// The same as a map, for a state not held whole (a rank's share): after the
// step, the word at global address a is the one that was at route_source(a)
// before it (a itself where no message writes).
AddressMap route_source(const Geometry& geo, const RouterStep& step);

}  // namespace hcube

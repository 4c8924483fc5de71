// The exchange descriptor a routing-cycle kernel reads (host/cycle.hpp
// checks and plans cycles of them).
#pragma once

#include <cstdint>

namespace hcube {

// Every node j with bit `dim` clear swaps its word `addr` with word
// `peer_addr` of node j xor 2^dim. A direct-addressed exchange has
// peer_addr == addr. With offset_map = k > 0, the addresses depend on the
// node through map L = maps[k-1]: node j uses addr xor L(j), its partner
// peer_addr xor L(partner) -- direct addressing within each subcube where L
// is constant, as the sequences of AAPCs of Johnsson & Ho (sec. 2.3) need.
struct Exchange {
  std::uint32_t dim = 0;
  std::uint32_t offset_map = 0;
  std::uint64_t addr = 0;
  std::uint64_t peer_addr = 0;

  constexpr Exchange() = default;
  constexpr Exchange(std::uint32_t d, std::uint64_t a, std::uint64_t p, std::uint32_t map = 0)
      : dim(d), offset_map(map), addr(a), peer_addr(p) {}

  friend bool operator==(const Exchange& a, const Exchange& b) {
    return a.dim == b.dim && a.addr == b.addr && a.peer_addr == b.peer_addr && a.offset_map == b.offset_map;
  }
};

inline Exchange direct_exchange(std::uint32_t dim, std::uint64_t addr) { return {dim, addr, addr}; }

}  // namespace hcube

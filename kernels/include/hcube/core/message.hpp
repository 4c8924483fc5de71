// The message descriptor a router-step kernel reads (host/router_step.hpp
// checks steps of them): up to B consecutive local words from one node to another.
#pragma once

#include <cstdint>

namespace hcube {

struct Message {
  std::uint64_t src_node = 0;
  std::uint64_t src_addr = 0;  // first local word sent
  std::uint64_t dst_node = 0;
  std::uint64_t dst_addr = 0;  // first local word written at the receiver
  std::uint64_t length = 0;    // words
};

}  // namespace hcube

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

namespace hcube {

// A message of blocks (host/router_step.hpp's BlockRouteStep): its block f,
// f < blocks, is read from the sender's block from[first + f mod per] +
// (f div per) from_step and written to the receiver's block to[first + f mod
// per] + (f div per) to_step. The packing and unpacking of a block-cyclic
// redistribution done on the fly, as an MPI indexed datatype does it.
struct BlockMessage {
  std::uint64_t src_node = 0;
  std::uint64_t dst_node = 0;
  std::uint64_t first = 0;   // its first entry in the step's from and to tables
  std::uint64_t per = 1;     // entries: the blocks of one period
  std::uint64_t blocks = 0;  // blocks sent
};

}  // namespace hcube

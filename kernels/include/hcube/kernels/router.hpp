// Primitive 3, the router step: every message copies up to B words from its
// sender's local memory to its receiver's. The host has checked that no word
// is both read and written in the step, so all copies run at once.
#pragma once

#include <cstdint>

#include "hcube/core/layout.hpp"
#include "hcube/core/message.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

// Thread t copies word t mod B of message t / B (B = longest message).
template <class Word>
struct RouterBody {
  Word* mem;
  Layout layout;
  const Message* messages;
  std::uint64_t max_length;

  HCUBE_HD void operator()(std::uint64_t t) const {
    const Message msg = messages[t / max_length];
    const std::uint64_t w = t % max_length;
    if (w >= msg.length) return;
    mem[layout.index(msg.dst_node, msg.dst_addr + w)] = mem[layout.index(msg.src_node, msg.src_addr + w)];
  }
};

}  // namespace hcube::kernels

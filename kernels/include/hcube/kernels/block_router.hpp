// A router step of block messages (core/message.hpp's BlockMessage): every
// message moves its blocks straight from the sender's places to the
// receiver's, so a block-cyclic redistribution (docs/redistribution.md) reads
// and writes each element once instead of packing, routing and unpacking it.
// The host has checked that no word is both read and written in the step.
#pragma once

#include <cstdint>

#include "hcube/core/layout.hpp"
#include "hcube/core/message.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube::kernels {

struct BlockRouteView {
  const BlockMessage* messages = nullptr;
  const std::uint64_t* from = nullptr;  // sender blocks of every message's period
  const std::uint64_t* to = nullptr;    // receiver blocks, likewise
  std::uint64_t src_lo = 0, dst_lo = 0;  // local words where block 0 starts
  std::uint64_t block_words = 1;
  std::uint64_t from_step = 0, to_step = 0;  // blocks a period advances at the sender, the receiver

  HCUBE_HD std::uint64_t src_word(const BlockMessage& m, std::uint64_t f) const {
    return src_lo + (from[m.first + f % m.per] + f / m.per * from_step) * block_words;
  }
  HCUBE_HD std::uint64_t dst_word(const BlockMessage& m, std::uint64_t f) const {
    return dst_lo + (to[m.first + f % m.per] + f / m.per * to_step) * block_words;
  }
};

// Thread t copies word t mod B of message t / B (B = the longest message's words).
template <class Word>
struct BlockRouterBody {
  Word* mem;
  Layout layout;
  BlockRouteView route;
  std::uint64_t longest;

  HCUBE_HD void operator()(std::uint64_t t) const {
    const BlockMessage& m = route.messages[t / longest];
    const std::uint64_t w = t % longest, bw = route.block_words;
    if (w >= m.blocks * bw) return;
    const std::uint64_t f = w / bw, e = w % bw;
    mem[layout.index(m.dst_node, route.dst_word(m, f) + e)] = mem[layout.index(m.src_node, route.src_word(m, f) + e)];
  }
};

}  // namespace hcube::kernels

// The host launcher of block router steps (kernels/block_router.hpp). A
// redistribution's message holds a block or two of each period (superblock)
// at its sender and receiver, so message by message each cache line would be
// fetched once a step, and a loop a message a period costs more than the
// copy. Instead one period's blocks of every message become one table of
// storage indices, sorted by destination, and each period replays it shifted:
// a block b + uL lies u periods' words further at both ends (layout.index is
// additive in the local address). A piece is a range of periods whose words
// at each node lie in one run that stays in cache. Periods some messages do
// not fill (the last, partial one) are walked message by message.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hcube/kernels/block_router.hpp"
#include "hcube/backends/cpu/launch.hpp"

namespace hcube::kernels::cpu {

template <class Word>
void run_block_router(const BlockRouterBody<Word>& body, std::uint64_t messages) {
  const BlockRouteView& v = body.route;
  const Layout& layout = body.layout;
  const std::uint64_t bw = v.block_words, stride = std::uint64_t{1} << layout.t;  // a node's next word
  std::uint64_t periods = 0, full = ~std::uint64_t{0}, words = 0;
  for (std::uint64_t k = 0; k < messages; ++k) {
    const BlockMessage& m = v.messages[k];
    periods = std::max(periods, (m.blocks + m.per - 1) / m.per);
    full = std::min(full, m.blocks / m.per);
    words += m.blocks * bw;
  }
  if (periods == 0) return;
  struct Entry {
    std::uint64_t src, dst;  // storage indices of the block's first word, period 0
  };
  std::vector<Entry> table;
  if (full > 0) {
    for (std::uint64_t k = 0; k < messages; ++k) {
      const BlockMessage& m = v.messages[k];
      for (std::uint64_t i = 0; i < m.per; ++i)
        table.push_back({layout.index(m.src_node, v.src_word(m, i)), layout.index(m.dst_node, v.dst_word(m, i))});
    }
    std::sort(table.begin(), table.end(), [](const Entry& a, const Entry& b) { return a.dst < b.dst; });
  }
  const std::uint64_t src_shift = v.from_step * bw * stride, dst_shift = v.to_step * bw * stride;
  const std::uint64_t period_bytes = std::max<std::uint64_t>(1, words / periods * sizeof(Word));
  const std::uint64_t chunk = std::max<std::uint64_t>(1, kDynamicChunkBytes / period_bytes);
  const auto pieces = static_cast<std::int64_t>((periods + chunk - 1) / chunk);
  Word* mem = body.mem;
#pragma omp parallel for schedule(dynamic, 1) if (words >= kParallelThreshold) num_threads(team_size())
  for (std::int64_t p = 0; p < pieces; ++p) {
    const std::uint64_t u0 = static_cast<std::uint64_t>(p) * chunk, u1 = std::min(periods, u0 + chunk);
    for (std::uint64_t u = u0; u < std::min(u1, full); ++u) {
      const std::uint64_t s0 = u * src_shift, d0 = u * dst_shift;
      if (stride == 1 && bw == 1) {  // one word a block (x = 1): no inner loop
        for (const Entry& e : table) mem[d0 + e.dst] = mem[s0 + e.src];
      } else if (stride == 1) {
        for (const Entry& e : table) {
          const Word* in = mem + s0 + e.src;
          Word* out = mem + d0 + e.dst;
          for (std::uint64_t w = 0; w < bw; ++w) out[w] = in[w];
        }
      } else {
        for (const Entry& e : table)
          for (std::uint64_t w = 0; w < bw; ++w) mem[d0 + e.dst + w * stride] = mem[s0 + e.src + w * stride];
      }
    }
    // The periods not every message fills, message by message.
    for (std::uint64_t k = 0; k < messages && u1 > full; ++k) {
      const BlockMessage& m = v.messages[k];
      for (std::uint64_t f = std::max(u0, full) * m.per; f < std::min(u1 * m.per, m.blocks); ++f) {
        const std::uint64_t s = v.src_word(m, f), d = v.dst_word(m, f);
        for (std::uint64_t w = 0; w < bw; ++w) mem[layout.index(m.dst_node, d + w)] = mem[layout.index(m.src_node, s + w)];
      }
    }
  }
}

}  // namespace hcube::kernels::cpu

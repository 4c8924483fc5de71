#include "found_sequences.hpp"

#include <fmt/format.h>

#include <array>
#include <map>
#include <numeric>

#include "hcube/core/error.hpp"

namespace hcube::found {

namespace {

// One exchange as the solver wrote it: in cycle `cycle`, dimension `dim`, node j (bit dim
// clear) swaps its word addr xor L(j) with word addr xor L(j xor 2^dim) of its neighbour, L's
// column k the memory bits node bit k adds (column dim is 0: the word keeps its address).
struct Entry {
  std::uint8_t cycle, dim, addr;
  std::array<std::uint8_t, 9> columns;  // n <= 9
};

// scripts/corollary2_sat.py --dims 3,3 --m 3 --find-first (tests/data/corollary2/corollary2_3-3_m3.json):
// every dimension busy in 4 of the 6 cycles, K/2 = 4 exchanges a dimension as in one AAPC.
constexpr Entry kOrders33[] = {
    {0, 0, 3, {0, 0, 2, 3, 0, 6}}, {0, 1, 6, {0, 0, 0, 0, 3, 4}}, {0, 2, 7, {0, 0, 0, 0, 3, 4}},
    {1, 0, 5, {0, 0, 0, 3, 0, 4}}, {1, 1, 2, {0, 0, 0, 0, 3, 4}}, {1, 2, 4, {0, 0, 0, 0, 3, 4}},
    {1, 5, 7, {0, 0, 4, 0, 3, 0}}, {2, 0, 7, {0, 0, 4, 3, 0, 0}}, {2, 1, 3, {0, 0, 4, 0, 3, 0}},
    {2, 2, 6, {3, 0, 0, 0, 0, 4}}, {2, 3, 5, {3, 0, 0, 0, 0, 4}}, {2, 4, 2, {0, 3, 0, 0, 0, 4}},
    {3, 0, 1, {0, 0, 6, 3, 0, 2}}, {3, 1, 7, {0, 0, 4, 0, 3, 0}}, {3, 3, 3, {3, 0, 2, 0, 0, 6}},
    {3, 4, 6, {0, 3, 0, 0, 0, 4}}, {3, 5, 4, {0, 0, 4, 0, 3, 0}}, {4, 2, 5, {3, 0, 0, 0, 0, 4}},
    {4, 3, 7, {3, 0, 0, 0, 0, 4}}, {4, 4, 3, {0, 3, 0, 0, 0, 4}}, {4, 5, 6, {3, 0, 4, 0, 0, 0}},
    {5, 3, 1, {3, 0, 2, 0, 0, 6}}, {5, 4, 7, {0, 3, 0, 0, 0, 4}}, {5, 5, 5, {3, 0, 4, 0, 0, 0}},
};

// --dims 3,2 --m 3 (corollary2_3-2_m3.json).
constexpr Entry kOrders32[] = {
    {0, 0, 5, {0, 0, 0, 1, 0}}, {0, 1, 6, {0, 0, 0, 0, 7}}, {0, 2, 7, {0, 0, 0, 0, 0}},
    {1, 0, 3, {0, 0, 0, 1, 0}}, {1, 1, 7, {0, 0, 0, 0, 7}}, {1, 2, 4, {1, 0, 0, 0, 0}},
    {1, 3, 5, {1, 0, 0, 0, 0}}, {1, 4, 6, {0, 7, 0, 0, 0}}, {2, 0, 1, {0, 0, 0, 7, 0}},
    {2, 1, 2, {1, 0, 0, 0, 6}}, {2, 2, 5, {1, 0, 0, 0, 0}}, {2, 3, 3, {1, 0, 0, 0, 0}},
    {2, 4, 7, {0, 7, 0, 0, 0}}, {3, 0, 7, {0, 0, 0, 7, 0}}, {3, 1, 3, {1, 0, 0, 0, 6}},
    {3, 3, 1, {7, 0, 0, 0, 0}}, {3, 4, 2, {1, 6, 0, 0, 0}}, {4, 2, 6, {0, 0, 0, 0, 0}},
    {4, 3, 7, {7, 0, 0, 0, 0}}, {4, 4, 3, {1, 6, 0, 0, 0}},
};

// --dims 3,1 --m 3 (corollary2_3-1_m3.json).
constexpr Entry kOrders31[] = {
    {0, 0, 1, {0, 0, 4, 5}}, {0, 1, 3, {0, 0, 1, 0}}, {0, 2, 7, {0, 0, 0, 1}}, {1, 0, 3, {0, 6, 4, 3}},
    {1, 1, 2, {0, 0, 1, 0}}, {1, 2, 6, {0, 0, 0, 1}}, {1, 3, 1, {5, 0, 4, 0}}, {2, 0, 5, {0, 6, 4, 3}},
    {2, 1, 7, {0, 0, 1, 0}}, {2, 3, 3, {3, 6, 4, 0}}, {3, 0, 7, {0, 0, 4, 5}}, {3, 2, 4, {1, 0, 0, 0}},
    {3, 3, 5, {3, 6, 4, 0}}, {4, 1, 6, {0, 0, 1, 0}}, {4, 2, 5, {1, 0, 0, 0}}, {4, 3, 7, {5, 0, 4, 0}},
};

// --dims 3,2,2 --m 3 --keep-address --shortest --from 7 (corollary2_3-2-2_m3_restricted.json): 7
// cycles, the farthest word's distance, where the pair pipelines take 10.
constexpr Entry kOrders322[] = {
    {0, 0, 1, {0, 2, 0, 1, 0, 1, 2}}, {0, 1, 6, {0, 0, 0, 1, 3, 1, 3}}, {0, 2, 7, {0, 0, 0, 1, 0, 1, 0}},
    {1, 0, 3, {0, 2, 0, 1, 0, 1, 2}}, {1, 1, 7, {0, 0, 0, 1, 3, 1, 3}}, {1, 3, 1, {1, 2, 0, 0, 0, 1, 2}},
    {1, 4, 6, {0, 3, 0, 1, 0, 1, 3}}, {2, 3, 3, {1, 2, 0, 0, 0, 1, 2}}, {2, 4, 7, {0, 3, 0, 1, 0, 1, 3}},
    {2, 6, 6, {0, 3, 0, 1, 3, 1, 0}}, {3, 0, 5, {0, 0, 0, 1, 0, 1, 0}}, {3, 1, 2, {1, 0, 0, 1, 2, 0, 2}},
    {3, 2, 6, {0, 0, 0, 1, 0, 1, 0}}, {3, 5, 3, {1, 0, 0, 1, 2, 0, 2}}, {3, 6, 7, {0, 3, 0, 1, 3, 1, 0}},
    {4, 0, 7, {0, 0, 0, 1, 0, 1, 0}}, {4, 1, 3, {1, 0, 0, 1, 2, 0, 2}}, {4, 3, 5, {1, 0, 0, 0, 0, 1, 0}},
    {4, 4, 2, {1, 2, 0, 1, 0, 0, 2}}, {4, 5, 1, {1, 0, 0, 1, 2, 0, 2}}, {5, 2, 4, {1, 0, 0, 1, 0, 0, 0}},
    {5, 3, 7, {1, 0, 0, 0, 0, 1, 0}}, {5, 4, 3, {1, 2, 0, 1, 0, 0, 2}}, {5, 5, 5, {1, 0, 0, 1, 0, 0, 0}},
    {5, 6, 2, {1, 2, 0, 1, 2, 0, 0}}, {6, 2, 5, {1, 0, 0, 1, 0, 0, 0}}, {6, 5, 7, {1, 0, 0, 1, 0, 0, 0}},
    {6, 6, 3, {1, 2, 0, 1, 2, 0, 0}},
};

// --dims 3,3,2 --m 3 --keep-address --shortest --from 8 (corollary2_3-3-2_m3_restricted.json): 8
// cycles, the farthest word's distance, where the pair pipelines take 11.
constexpr Entry kOrders332[] = {
    {0, 0, 1, {0, 0, 2, 3, 0, 6, 3, 0}}, {0, 1, 7, {0, 0, 0, 0, 3, 4, 0, 3}}, {0, 2, 5, {0, 0, 0, 3, 0, 4, 3, 0}},
    {1, 0, 3, {0, 0, 6, 3, 0, 2, 3, 0}}, {1, 2, 6, {0, 0, 0, 3, 0, 4, 3, 0}}, {1, 3, 1, {3, 0, 2, 0, 0, 6, 3, 0}},
    {1, 4, 7, {0, 3, 0, 0, 0, 4, 0, 3}}, {1, 5, 5, {0, 0, 4, 3, 0, 0, 3, 0}}, {2, 0, 5, {0, 0, 4, 3, 0, 0, 3, 0}},
    {2, 1, 2, {0, 0, 1, 0, 3, 5, 0, 3}}, {2, 3, 3, {3, 0, 6, 0, 0, 2, 3, 0}}, {2, 5, 6, {0, 0, 4, 3, 0, 0, 3, 0}},
    {2, 7, 7, {0, 3, 0, 0, 3, 4, 0, 0}}, {3, 2, 7, {0, 0, 0, 3, 0, 4, 3, 0}}, {3, 3, 5, {3, 0, 4, 0, 0, 0, 3, 0}},
    {3, 4, 2, {0, 3, 1, 0, 0, 5, 0, 3}}, {4, 0, 7, {0, 0, 0, 3, 0, 4, 3, 0}}, {4, 1, 6, {0, 0, 4, 0, 3, 0, 0, 3}},
    {4, 2, 4, {0, 0, 0, 3, 0, 4, 3, 0}}, {4, 6, 3, {3, 0, 6, 3, 0, 2, 0, 0}}, {4, 7, 2, {0, 3, 1, 0, 3, 5, 0, 0}},
    {5, 1, 3, {0, 0, 5, 0, 3, 1, 0, 3}}, {5, 3, 7, {3, 0, 0, 0, 0, 4, 3, 0}}, {5, 4, 6, {0, 3, 4, 0, 0, 0, 0, 3}},
    {5, 6, 1, {3, 0, 2, 3, 0, 6, 0, 0}}, {6, 4, 3, {0, 3, 5, 0, 0, 1, 0, 3}}, {6, 5, 4, {3, 0, 4, 3, 0, 0, 0, 0}},
    {6, 6, 7, {3, 0, 0, 3, 0, 4, 0, 0}}, {6, 7, 6, {0, 3, 4, 0, 3, 0, 0, 0}}, {7, 5, 7, {3, 0, 4, 3, 0, 0, 0, 0}},
    {7, 6, 5, {3, 0, 4, 3, 0, 0, 0, 0}}, {7, 7, 3, {0, 3, 5, 0, 3, 1, 0, 0}},
};

// --dims 2,1 --m 2 (corollary2_2-1_m2.json): 3 cycles where the pair pipelines take 4; words
// cross the second axis before they have finished the first, and some cross a dimension twice.
constexpr Entry kOrders21[] = {
    {0, 0, 3, {0, 0, 2}}, {0, 1, 2, {0, 0, 0}}, {0, 2, 0, {0, 0, 0}}, {1, 0, 0, {0, 0, 2}},
    {1, 2, 3, {2, 0, 0}}, {2, 0, 1, {0, 0, 0}}, {2, 1, 3, {0, 0, 0}}, {2, 2, 0, {2, 0, 0}},
};

}  // namespace

struct Sequence {
  std::vector<unsigned> widths;
  unsigned m;
  std::size_t cycles;
  const Entry* begin;
  const Entry* end;
};

namespace {

const Sequence kFound[] = {
    {{3, 3}, 3, 6, std::begin(kOrders33), std::end(kOrders33)},
    {{3, 2}, 3, 5, std::begin(kOrders32), std::end(kOrders32)},
    {{3, 1}, 3, 5, std::begin(kOrders31), std::end(kOrders31)},
    {{3, 2, 2}, 3, 7, std::begin(kOrders322), std::end(kOrders322)},
    {{3, 3, 2}, 3, 8, std::begin(kOrders332), std::end(kOrders332)},
    {{2, 1}, 2, 3, std::begin(kOrders21), std::end(kOrders21)},
};

std::vector<unsigned> axis_offsets(const std::vector<unsigned>& widths) {
  std::vector<unsigned> offset(widths.size(), 0);
  for (std::size_t u = 1; u < widths.size(); ++u) offset[u] = offset[u - 1] + widths[u - 1];
  return offset;
}

}  // namespace

const Sequence* sequence(const std::vector<unsigned>& widths, unsigned m) {
  for (const Sequence& s : kFound)
    if (s.widths == widths && s.m == m) return &s;
  return nullptr;
}

void append(Schedule& seq, const Sequence& s, const std::vector<unsigned>& axes, const std::vector<unsigned>& widths) {
  if (axes.size() != s.widths.size() || seq.m != s.m)
    throw Error(fmt::format("internal: a found sequence of {} axes and m = {} placed on {} axes, m = {}",
                            s.widths.size(), s.m, axes.size(), seq.m));
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] >= widths.size() || widths[axes[i]] != s.widths[i])
      throw Error(fmt::format("internal: found axis {} of order {} placed on axis {}", i, s.widths[i], axes[i]));
  const std::vector<unsigned> to = axis_offsets(widths);
  const unsigned n = std::accumulate(widths.begin(), widths.end(), 0u);
  // Where each of the found cube's node bits lies on this cube.
  std::vector<unsigned> place;
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (unsigned b = 0; b < s.widths[i]; ++b) place.push_back(to[axes[i]] + b);
  std::map<NodeOffsetMap, std::uint32_t> index;  // identical maps shared
  std::size_t cycle = 0;
  for (const Entry* e = s.begin; e != s.end; ++e) {
    for (; cycle < e->cycle; ++cycle) seq.end_cycle();
    // Lemma 1's frame: bit b of every axis the block does not touch adds memory bit b.
    NodeOffsetMap map(n, 0);
    for (unsigned u = 0; u < widths.size(); ++u)
      for (unsigned b = 0; b < widths[u]; ++b) map[to[u] + b] = bit(b);
    for (std::size_t k = 0; k < place.size(); ++k) map[place[k]] = e->columns[k];
    auto [it, fresh] = index.try_emplace(map, 0);
    if (fresh) {
      seq.offset_maps.push_back(map);
      it->second = static_cast<std::uint32_t>(seq.offset_maps.size());
    }
    seq.add(Exchange{place[e->dim], e->addr, e->addr, it->second});
  }
  for (; cycle < s.cycles; ++cycle) seq.end_cycle();
}

}  // namespace hcube::found

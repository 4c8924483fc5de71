#include "skewed_pairs.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "hcube/core/bits.hpp"

namespace hcube::skewed {

Layout::Layout(std::vector<unsigned> widths, unsigned m) : widths_(std::move(widths)), pairs_(bit(m - 1)) {
  const unsigned steps = static_cast<unsigned>(widths_.size());
  const std::uint64_t n = std::accumulate(widths_.begin(), widths_.end(), std::uint64_t{0});
  std::vector<std::vector<unsigned>> candidates{{steps}};
  // Below n pairs one row leaves pairs idle: chunks of h steps each fill a row of max(K/2, h d).
  if (pairs_ < n)
    for (unsigned h = 1; h < steps; ++h)
      for (unsigned h0 = 1; h0 <= h; ++h0) {
        std::vector<unsigned> sizes{h0};
        for (unsigned left = steps - h0; left > 0; left -= std::min(left, h)) sizes.push_back(std::min(left, h));
        candidates.push_back(std::move(sizes));
      }
  cycles_ = std::numeric_limits<std::uint64_t>::max();
  for (const auto& sizes : candidates) {
    std::vector<Chunk> chunks = chunks_of(sizes);
    const std::uint64_t cycles = place(chunks);
    if (cycles < cycles_) {
      cycles_ = cycles;
      chunks_ = std::move(chunks);
    }
  }
  const unsigned d1 = widths_.empty() ? 0 : *std::max_element(widths_.begin(), widths_.end());
  chunk_of_.assign(steps, 0);
  rank_.assign(steps, std::vector<unsigned>(d1, 0));
  for (unsigned c = 0; c < chunks_.size(); ++c) {
    std::vector<unsigned> seen(d1, 0);
    for (unsigned t = chunks_[c].first; t < chunks_[c].first + chunks_[c].count; ++t) {
      chunk_of_[t] = c;
      for (unsigned b = 0; b < widths_[t]; ++b) rank_[t][b] = seen[b]++;
    }
  }
}

std::vector<Layout::Chunk> Layout::chunks_of(const std::vector<unsigned>& sizes) const {
  const unsigned d1 = *std::max_element(widths_.begin(), widths_.end());
  std::vector<Chunk> chunks;
  unsigned first = 0;
  for (unsigned size : sizes) {
    Chunk& c = chunks.emplace_back();
    c.first = first;
    c.count = size;
    c.ops.assign(d1, 0);
    c.offset.assign(d1, 0);
    for (unsigned t = first; t < first + size; ++t)
      for (unsigned b = 0; b < widths_[t]; ++b) ++c.ops[b];
    std::uint64_t total = 0;
    for (unsigned b = 0; b < d1; ++b) {
      c.offset[b] = total;
      total += c.ops[b];
    }
    c.row = std::max(pairs_, total);
    first += size;
  }
  return chunks;
}

Layout::Span Layout::span(const Chunk& c, std::uint64_t pair) const {
  Span s{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()};
  for (std::size_t b = 0; b < c.ops.size(); ++b) {
    if (c.ops[b] == 0) continue;
    const auto sigma = static_cast<std::int64_t>((pair + c.offset[b]) % c.row);
    s.first = std::min(s.first, sigma);
    s.last = std::max(s.last, sigma + static_cast<std::int64_t>(c.ops[b]) - 1);
  }
  return s;
}

// Each pair runs its chunks one after another: chunk c + 1 starts as early as that allows
// every pair (its chains then follow too, every op of a later chunk being later).
std::uint64_t Layout::place(std::vector<Chunk>& chunks) const {
  const unsigned steps = static_cast<unsigned>(widths_.size());
  const std::uint64_t n = std::accumulate(widths_.begin(), widths_.end(), std::uint64_t{0});
  // One row of K/2 >= n pairs: every residue is some pair's, so the last bit ends at Q + s - 1.
  if (chunks.size() == 1 && pairs_ >= n) return chunks[0].row + steps - 1;
  std::int64_t start = 0, end = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    chunks[c].start = static_cast<std::uint64_t>(start);
    std::int64_t shift = 0, last = 0;
    for (std::uint64_t j = 0; j < pairs_; ++j) {
      const Span here = span(chunks[c], j);
      last = std::max(last, here.last);
      if (c + 1 < chunks.size()) shift = std::max(shift, here.last - span(chunks[c + 1], j).first + 1);
    }
    end = std::max(end, start + last + 1);
    start += shift;
  }
  return static_cast<std::uint64_t>(end);
}

std::uint64_t Layout::cycle(std::uint64_t pair, unsigned step, unsigned b) const {
  const Chunk& c = chunks_[chunk_of_[step]];
  return c.start + (pair + c.offset[b]) % c.row + rank_[step][b];
}

// In T cycles, cycle c can hold at most one crossing per pair (K/2) and per dimension usable
// then: bit b of step t only in cycles t .. T - s_b + t (s_b the steps holding bit b), its chain
// needing t cycles before and s_b - 1 - t after. The fewest T whose cycles hold the K/2 n
// crossings; at least K/2 + s - 1 (a dimension's window) and n (a pair's crossings).
std::uint64_t pair_lower_bound(const std::vector<unsigned>& widths, unsigned m) {
  const std::uint64_t pairs = bit(m - 1), steps = widths.size();
  const std::uint64_t n = std::accumulate(widths.begin(), widths.end(), std::uint64_t{0});
  const unsigned d1 = *std::max_element(widths.begin(), widths.end());
  std::vector<std::uint64_t> chain(d1, 0);  // s_b
  for (unsigned w : widths)
    for (unsigned b = 0; b < w; ++b) ++chain[b];
  const auto fits = [&](std::uint64_t T) {
    std::uint64_t held = 0;
    for (std::uint64_t c = 0; c < T && held < pairs * n; ++c) {
      std::uint64_t usable = 0;
      for (unsigned t = 0; t < steps; ++t)
        for (unsigned b = 0; b < widths[t]; ++b) usable += c >= t && c + chain[b] <= T + t;
      held += std::min(pairs, usable);
    }
    return held >= pairs * n;
  };
  std::uint64_t T = std::max<std::uint64_t>(pairs + steps - 1, n);
  // Where K/2 >= n every cycle of the window holds n crossings but the first and last s - 1, and T = K/2 + s - 1 fits.
  if (pairs >= n) return T;
  while (!fits(T)) ++T;
  return T;
}

}  // namespace hcube::skewed

#include "hcube/host/router_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {
namespace {

struct Range {
  std::uint64_t node, lo, hi;  // words [lo, hi) of node
  std::size_t msg;
  bool write;
};

[[noreturn]] void fail(std::size_t i, const Message& m, const std::string& why) {
  throw Error(fmt::format("router message {} {}: {}", i, to_string(m), why));
}

// The words a message's blocks read (sender side) or write, as ranges:
// each block where the message lists its blocks once (blocks <= per), else
// the hull of its periodic span.
void message_ranges(const BlockRouteStep& s, const BlockMessage& m, bool write,
                    std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) {
  const std::vector<std::uint64_t>& at = write ? s.to : s.from;
  const std::uint64_t lo = write ? s.dst_lo : s.src_lo, stride = write ? s.to_step : s.from_step, bw = s.block_words;
  if (m.blocks <= m.per) {
    for (std::uint64_t f = 0; f < m.blocks; ++f) out.emplace_back(lo + at[m.first + f] * bw, lo + (at[m.first + f] + 1) * bw);
    return;
  }
  std::uint64_t first = ~std::uint64_t{0}, last = 0;
  for (std::uint64_t e = 0; e < m.per; ++e) {
    first = std::min(first, at[m.first + e]);
    last = std::max(last, at[m.first + e] + (m.blocks - 1 - e) / m.per * stride);
  }
  out.emplace_back(lo + first * bw, lo + (last + 1) * bw);
}

// Throws unless the words `node` reads and writes over all steps are apart
// (check_block_route, where their hulls overlap).
void check_block_words_apart(const std::vector<BlockRouteStep>& steps, std::uint64_t node,
                             std::pair<std::uint64_t, std::uint64_t> read_hull,
                             std::pair<std::uint64_t, std::uint64_t> write_hull) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> reads, writes;
  for (const BlockRouteStep& s : steps)
    for (const BlockMessage& m : s.messages) {
      if (m.src_node == node) message_ranges(s, m, false, reads);
      if (m.dst_node == node) message_ranges(s, m, true, writes);
    }
  std::sort(reads.begin(), reads.end());
  std::sort(writes.begin(), writes.end());
  // Two sorted lists of ranges: a read range meets a write range iff some pair overlaps.
  for (std::size_t r = 0, w = 0; r < reads.size() && w < writes.size();) {
    if (reads[r].first < writes[w].second && writes[w].first < reads[r].second)
      throw Error(fmt::format("block router steps: node {} reads words {}..{} and writes words {}..{}: they overlap "
                              "(it reads within {}..{} and writes within {}..{})",
                              node, reads[r].first, reads[r].second - 1, writes[w].first, writes[w].second - 1,
                              read_hull.first, read_hull.second - 1, write_hull.first, write_hull.second - 1));
    if (reads[r].second <= writes[w].second) ++r; else ++w;
  }
}

}  // namespace

std::string to_string(const Message& m) {
  return fmt::format("{{node {} words {}..{} -> node {} words {}..{}}}", m.src_node, m.src_addr,
                     m.src_addr + m.length - 1, m.dst_node, m.dst_addr, m.dst_addr + m.length - 1);
}

RouterStepReport check_router_step(const Geometry& geo, const RouterStep& step, const RouterLimits& limits) {
  const std::uint64_t N = geo.nodes(), K = geo.words_per_node();
  RouterStepReport rep;
  std::vector<Range> ranges;
  ranges.reserve(2 * step.size());
  for (std::size_t i = 0; i < step.size(); ++i) {
    const Message& m = step[i];
    if (m.src_node >= N) fail(i, m, fmt::format("source node {} out of range: allowed 0..{}", m.src_node, N - 1));
    if (m.dst_node >= N) fail(i, m, fmt::format("destination node {} out of range: allowed 0..{}", m.dst_node, N - 1));
    if (m.length == 0 || m.length > limits.max_message)
      fail(i, m, fmt::format("length {} out of range: allowed 1..{} (B)", m.length, limits.max_message));
    if (m.src_addr >= K || m.length > K - m.src_addr)
      fail(i, m, fmt::format("source words {}..{} out of range: allowed 0..{}", m.src_addr,
                             m.src_addr + m.length - 1, K - 1));
    if (m.dst_addr >= K || m.length > K - m.dst_addr)
      fail(i, m, fmt::format("destination words {}..{} out of range: allowed 0..{}", m.dst_addr,
                             m.dst_addr + m.length - 1, K - 1));
    ranges.push_back({m.src_node, m.src_addr, m.src_addr + m.length, i, false});
    ranges.push_back({m.dst_node, m.dst_addr, m.dst_addr + m.length, i, true});
    rep.words += m.length;
    rep.element_hops += m.length * static_cast<std::uint64_t>(__builtin_popcountll(m.src_node ^ m.dst_node));
    rep.max_message = std::max(rep.max_message, m.length);
  }
  // One message sent per node; receivers hit twice are contention.
  std::vector<std::pair<std::uint64_t, std::size_t>> senders, receivers;
  for (std::size_t i = 0; i < step.size(); ++i) {
    senders.emplace_back(step[i].src_node, i);
    receivers.emplace_back(step[i].dst_node, i);
  }
  std::sort(senders.begin(), senders.end());
  std::sort(receivers.begin(), receivers.end());
  for (std::size_t i = 1; i < senders.size(); ++i)
    if (senders[i].first == senders[i - 1].first)
      fail(senders[i].second, step[senders[i].second],
           fmt::format("node {} already sends message {}: one message per node per step", senders[i].first,
                       senders[i - 1].second));
  for (std::size_t i = 1; i < receivers.size(); ++i) {
    if (receivers[i].first != receivers[i - 1].first) continue;
    if (limits.contention == ContentionPolicy::reject)
      fail(receivers[i].second, step[receivers[i].second],
           fmt::format("node contention: node {} also receives message {}", receivers[i].first,
                       receivers[i - 1].second));
    if (i == 1 || receivers[i - 2].first != receivers[i].first) ++rep.contention;
  }
  // A word written by one message may be neither read nor written by another.
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return std::tie(a.node, a.lo) < std::tie(b.node, b.lo); });
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    for (std::size_t k = i + 1; k < ranges.size() && ranges[k].node == ranges[i].node && ranges[k].lo < ranges[i].hi;
         ++k) {
      const Range& a = ranges[i];
      const Range& b = ranges[k];
      if (!a.write && !b.write) continue;
      const Range& w = a.write ? a : b;
      const Range& o = a.write ? b : a;
      if (a.msg == b.msg) fail(a.msg, step[a.msg], "its source and destination words overlap");
      fail(w.msg, step[w.msg],
           fmt::format("writes word {} of node {} that message {} also {}", std::max(a.lo, b.lo), a.node, o.msg,
                       o.write ? "writes" : "reads"));
    }
  }
  return rep;
}

RouterStepReport check_block_route(const Geometry& geo, const std::vector<BlockRouteStep>& steps) {
  const std::uint64_t N = geo.nodes(), K = geo.words_per_node();
  RouterStepReport rep;
  // Per node, the hull of the words read and of the words written over all steps.
  std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> reads, writes;
  const auto widen = [](auto& hulls, std::uint64_t node, std::uint64_t lo, std::uint64_t hi) {
    const auto [it, fresh] = hulls.try_emplace(node, lo, hi);
    if (!fresh) it->second = {std::min(it->second.first, lo), std::max(it->second.second, hi)};
  };
  for (std::size_t t = 0; t < steps.size(); ++t) {
    const BlockRouteStep& step = steps[t];
    const std::uint64_t bw = step.block_words;
    if (bw == 0) throw Error(fmt::format("block router step {}: blocks of 0 words: allowed 1 or more", t));
    const BlockRouteStep& step0 = steps.front();
    if (step.src_lo != step0.src_lo || step.dst_lo != step0.dst_lo || bw != step0.block_words ||
        step.from_step != step0.from_step || step.to_step != step0.to_step)
      throw Error(fmt::format("block router step {}: its block shape (lo, block words, period steps) is not step 0's: "
                              "steps of one launch share it",
                              t));
    if (step.from.size() != step.to.size())
      throw Error(fmt::format("block router step {}: {} sender entries and {} receiver entries: expected as many", t,
                              step.from.size(), step.to.size()));
    // A side's words: blocks entry .. entry + (count - 1) div per * stride of the period's entries.
    const auto span = [&](const BlockMessage& m, const std::vector<std::uint64_t>& at, std::uint64_t stride,
                          std::uint64_t lo, const char* side, std::size_t i) {
      std::uint64_t first = ~std::uint64_t{0}, last = 0;
      const std::uint64_t limit = (K - std::min(K, lo)) / bw;  // blocks that fit from word lo
      for (std::uint64_t e = 0; e < std::min(m.per, m.blocks); ++e) {
        const std::uint64_t periods = (m.blocks - 1 - e) / m.per;
        if (at[m.first + e] >= limit || (periods > 0 && stride > (limit - at[m.first + e]) / periods))
          throw Error(fmt::format("block router step {} message {}: a {} block past the {} blocks of {} words from "
                                  "word {} that fit in K = {}",
                                  t, i, side, limit, bw, lo, K));
        first = std::min(first, at[m.first + e]);
        last = std::max(last, at[m.first + e] + periods * stride);
      }
      if (last >= limit)
        throw Error(fmt::format("block router step {} message {}: {} block {} out of range: {} blocks of {} words from "
                                "word {} fit in K = {}",
                                t, i, side, last, limit, bw, lo, K));
      return std::pair{lo + first * bw, lo + (last + 1) * bw};
    };
    std::vector<std::uint64_t> senders, receivers;
    for (std::size_t i = 0; i < step.messages.size(); ++i) {
      const BlockMessage& m = step.messages[i];
      if (m.src_node >= N || m.dst_node >= N)
        throw Error(fmt::format("block router step {} message {}: node {} -> node {} out of range: allowed 0..{}", t,
                                i, m.src_node, m.dst_node, N - 1));
      if (m.blocks == 0 || m.per == 0 || m.first > step.from.size() ||
          std::min(m.per, m.blocks) > step.from.size() - m.first)
        throw Error(fmt::format("block router step {} message {}: {} blocks, period {} from entry {}: allowed 1 or "
                                "more blocks in a period inside the {} entries",
                                t, i, m.blocks, m.per, m.first, step.from.size()));
      const auto [slo, shi] = span(m, step.from, step.from_step, step.src_lo, "sender", i);
      const auto [dlo, dhi] = span(m, step.to, step.to_step, step.dst_lo, "receiver", i);
      widen(reads, m.src_node, slo, shi);
      widen(writes, m.dst_node, dlo, dhi);
      senders.push_back(m.src_node);
      receivers.push_back(m.dst_node);
      rep.words += m.blocks * bw;
      rep.element_hops += m.blocks * bw * static_cast<std::uint64_t>(__builtin_popcountll(m.src_node ^ m.dst_node));
      rep.max_message = std::max(rep.max_message, m.blocks * bw);
    }
    for (auto* nodes : {&senders, &receivers}) {
      std::sort(nodes->begin(), nodes->end());
      if (const auto twice = std::adjacent_find(nodes->begin(), nodes->end()); twice != nodes->end())
        throw Error(fmt::format("block router step {}: node {} {} two messages: one message per node per step", t,
                                *twice, nodes == &senders ? "sends" : "receives"));
    }
  }
  // No word read by one step is written by any: the steps may run in any order,
  // or at once. The hulls decide at once where they are apart; where they
  // overlap, the blocks themselves (a grid cycle's messages interleave reads
  // and writes within one node: host/grid.hpp).
  for (const auto& [node, w] : writes)
    if (const auto r = reads.find(node); r != reads.end() && r->second.first < w.second && w.first < r->second.second)
      check_block_words_apart(steps, node, r->second, w);
  return rep;
}

Message parse_message(const std::string& text) {
  const std::vector<std::uint64_t> f = parse_uint_fields(text, ':', "message");
  if (f.size() != 4 && f.size() != 5)
    throw Error(fmt::format("message '{}' malformed: expected src_node:src_addr:dst_node:dst_addr[:length]",
                            printable_input(text)));
  return Message{f[0], f[1], f[2], f[3], f.size() == 5 ? f[4] : 1};
}

ContentionPolicy parse_contention_policy(const std::string& s) {
  if (s == "report") return ContentionPolicy::report;
  if (s == "reject") return ContentionPolicy::reject;
  throw Error(fmt::format("contention policy '{}' unknown: allowed report, reject", printable_input(s)));
}

}  // namespace hcube

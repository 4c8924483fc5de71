#include "hcube/host/block_cyclic.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {
namespace {

// Sizes up to this keep every product below 2^63.
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 40;

// The non-negative residue of a mod b.
std::uint64_t mod(std::int64_t a, std::uint64_t b) {
  const auto m = static_cast<std::int64_t>(b);
  return static_cast<std::uint64_t>(((a % m) + m) % m);
}

// Blocks a superblock: both layouts repeat every L = lcm(P, KQ) blocks.
std::uint64_t superblock(const Redistribution& r) { return redistribution_params(r).L; }

// The blocks each (source, destination) pair exchanges, in ascending order:
// those of the first superblock, repeated (MessageBlocks).
struct PairBlocks {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;  // (source, destination), in first-seen order
  std::vector<MessageBlocks> blocks;                           // per pair
};

PairBlocks pair_blocks(const Redistribution& r) {
  const std::uint64_t L = superblock(r);
  std::unordered_map<std::uint64_t, std::size_t> index;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
  std::vector<std::vector<std::uint64_t>> patterns;
  for (std::uint64_t i = 0; i < std::min(L, r.blocks()); ++i) {
    const std::uint64_t s = source_place(r, i).proc, d = destination_place(r, i).proc;
    const auto [it, fresh] = index.emplace(s * r.Q + d, pairs.size());
    if (fresh) {
      pairs.emplace_back(s, d);
      patterns.emplace_back();
    }
    patterns[it->second].push_back(i);
  }
  PairBlocks pb;
  pb.pairs = std::move(pairs);
  for (std::vector<std::uint64_t>& pattern : patterns) pb.blocks.emplace_back(std::move(pattern), L, r.blocks());
  return pb;
}

// Delta: the most partners any source or destination has (among the pairs
// `edges`, all when empty), which no schedule can do in fewer steps.
std::uint64_t most_partners(const Redistribution& r, const PairBlocks& pb, const std::vector<std::uint64_t>* edges = nullptr) {
  std::vector<std::uint64_t> degree(r.P + r.Q, 0);
  const auto count = [&](std::uint64_t e) {
    ++degree[pb.pairs[e].first];
    ++degree[r.P + pb.pairs[e].second];
  };
  if (edges != nullptr) {
    for (const std::uint64_t e : *edges) count(e);
  } else {
    for (std::uint64_t e = 0; e < pb.pairs.size(); ++e) count(e);
  }
  return *std::max_element(degree.begin(), degree.end());
}

// Koenig's edge colouring of the pairs `edges` with Delta (of those edges)
// colours from `first` on: each pair gets its colour in `colour`. Built edge by
// edge; when the free colours at the two ends differ, the path from the
// destination alternating them is swapped (in a bipartite graph it cannot end
// at the source). Returns Delta.
std::uint64_t koenig_colouring(const Redistribution& r, const PairBlocks& pb, const std::vector<std::uint64_t>& edges,
                               std::uint64_t first, std::vector<std::uint64_t>& colour) {
  const std::uint64_t nodes = r.P + r.Q, delta = most_partners(r, pb, &edges);
  constexpr std::uint64_t none = ~std::uint64_t{0};
  // at[v * delta + c]: the pair of colour c at node v (sources 0..P-1, destinations P..).
  std::vector<std::uint64_t> at(nodes * delta, none), local(pb.pairs.size(), none);
  const auto other = [&](std::uint64_t e, std::uint64_t v) {
    return v < r.P ? r.P + pb.pairs[e].second : pb.pairs[e].first;
  };
  const auto free_colour = [&](std::uint64_t v) {
    for (std::uint64_t c = 0; c < delta; ++c)
      if (at[v * delta + c] == none) return c;
    throw Error("internal: edge colouring ran out of colours");
  };
  for (const std::uint64_t e : edges) {
    const std::uint64_t u = pb.pairs[e].first, v = r.P + pb.pairs[e].second;
    const std::uint64_t a = free_colour(u), b = free_colour(v);
    if (at[v * delta + a] != none) {
      std::vector<std::uint64_t> path;
      std::uint64_t w = v, c = a;
      while (at[w * delta + c] != none) {
        const std::uint64_t f = at[w * delta + c];
        path.push_back(f);
        w = other(f, w);
        c = c == a ? b : a;
      }
      for (const std::uint64_t f : path) {
        at[pb.pairs[f].first * delta + local[f]] = none;
        at[(r.P + pb.pairs[f].second) * delta + local[f]] = none;
      }
      for (const std::uint64_t f : path) {
        local[f] = local[f] == a ? b : a;
        at[pb.pairs[f].first * delta + local[f]] = f;
        at[(r.P + pb.pairs[f].second) * delta + local[f]] = f;
      }
    }
    local[e] = a;
    at[u * delta + a] = e;
    at[v * delta + a] = e;
  }
  for (const std::uint64_t e : edges) colour[e] = first + local[e];
  return delta;
}

std::vector<std::uint64_t> all_edges(const PairBlocks& pb) {
  std::vector<std::uint64_t> edges(pb.pairs.size());
  std::iota(edges.begin(), edges.end(), 0u);
  return edges;
}

// Steps given as a colour per pair: step c holds the pairs of colour c.
RedistSchedule schedule_from_colours(const std::string& name, const PairBlocks& pb,
                                     const std::vector<std::uint64_t>& colour) {
  RedistSchedule s;
  s.name = name;
  const std::uint64_t steps = colour.empty() ? 0 : *std::max_element(colour.begin(), colour.end()) + 1;
  s.steps.resize(steps);
  for (std::size_t e = 0; e < pb.pairs.size(); ++e)
    s.steps[colour[e]].push_back(RedistMessage{pb.pairs[e].first, pb.pairs[e].second, pb.blocks[e]});
  for (RedistStep& step : s.steps)
    std::sort(step.begin(), step.end(), [](const RedistMessage& a, const RedistMessage& b) { return a.src < b.src; });
  return s;
}

// Where the paper gives no schedule (P > Q, or y not a multiple of x): the
// fewest steps, Delta, with one message size a step where that costs no step.
// A step mixing sizes costs its largest (sec. 2's model), so each size is
// coloured apart (Koenig per size, Delta_s colours each); when the Delta_s add
// up to Delta that is the schedule, else a colouring of all pairs at once.
RedistSchedule equal_size_colouring(const Redistribution& r) {
  const PairBlocks pb = pair_blocks(r);
  std::map<std::uint64_t, std::vector<std::uint64_t>> by_size;
  for (std::uint64_t e = 0; e < pb.pairs.size(); ++e) by_size[pb.blocks[e].size()].push_back(e);
  std::vector<std::uint64_t> colour(pb.pairs.size());
  std::uint64_t used = 0;
  for (auto it = by_size.rbegin(); it != by_size.rend(); ++it) used += koenig_colouring(r, pb, it->second, used, colour);
  if (used > most_partners(r, pb)) koenig_colouring(r, pb, all_edges(pb), 0, colour);
  return schedule_from_colours("circulant", pb, colour);
}

}  // namespace

MessageBlocks::MessageBlocks(std::vector<std::uint64_t> pattern, std::uint64_t period, std::uint64_t end)
    : pattern_(std::move(pattern)), period_(period), end_(end) {
  if (period_ == 0) throw Error("message blocks repeat every 0 blocks: allowed a period of 1 or more");
  for (std::size_t k = 0; k < pattern_.size(); ++k)
    if (pattern_[k] >= period_ || (k > 0 && pattern_[k] <= pattern_[k - 1]))
      throw Error(fmt::format("message blocks: pattern entry {} is {}: allowed ascending blocks below the period {}",
                              k, pattern_[k], period_));
}

std::uint64_t MessageBlocks::size() const {
  if (pattern_.empty()) return 0;
  // Whole periods below end, then the pattern's entries below what is left.
  const std::uint64_t whole = end_ / period_, rest = end_ % period_;
  return whole * pattern_.size() +
         static_cast<std::uint64_t>(std::lower_bound(pattern_.begin(), pattern_.end(), rest) - pattern_.begin());
}

std::vector<std::uint64_t> MessageBlocks::to_vector() const { return {begin(), end()}; }

std::uint64_t Redistribution::unit() const { return std::gcd(x, dest_block()); }

void check_redistribution(const Redistribution& r) {
  const auto count = [](std::uint64_t v, const char* name) {
    if (v == 0 || v > kMaxCount)
      throw Error(fmt::format("{} = {} out of range: allowed 1..{}", name, v, kMaxCount));
  };
  count(r.P, "P");
  count(r.Q, "Q");
  if (r.x == 0 || r.x > kMaxElements) throw Error(fmt::format("x = {} out of range: allowed 1..{}", r.x, kMaxElements));
  if (r.y == 0) {
    count(r.K, "K");
  } else {
    if (r.y > kMaxElements) throw Error(fmt::format("y = {} out of range: allowed 1..{}", r.y, kMaxElements));
    // The superblock, lcm(aP, bQ) units, stays below 2^60 with a b <= 2^20 (K <= 2^20 for the paper's).
    const std::uint64_t u = std::gcd(r.x, r.y), a = r.x / u, b = r.y / u;
    if (a > kMaxCount || b > kMaxCount || a * b > kMaxCount)
      throw Error(fmt::format("x = {} and y = {} are a = {} and b = {} units of gcd(x, y) = {}: allowed a b <= {}", r.x,
                              r.y, a, b, u, kMaxCount));
    if (r.K != 0 && r.K * r.x != r.y)
      throw Error(fmt::format("K = {} with y = {}: the destination block is K x = {}; give one of them (K = 0 with y)",
                              r.K, r.y, r.K * r.x));
  }
  if (r.N == 0 || r.N > kMaxElements) throw Error(fmt::format("N = {} out of range: allowed 1..{}", r.N, kMaxElements));
  const std::uint64_t u = r.unit();
  if (r.N % u != 0) {
    if (u == r.x)
      throw Error(fmt::format("N = {} is not a multiple of the block size x = {}: allowed multiples of {} (such as {})",
                              r.N, r.x, r.x, (r.N / r.x + 1) * r.x));
    throw Error(fmt::format("N = {} is not a multiple of gcd(x, y) = {}: allowed multiples of {} (such as {})", r.N, u,
                            u, (r.N / u + 1) * u));
  }
}

std::string describe(const Redistribution& r) {
  if (r.dest_block() % r.x == 0) return fmt::format("R_{}({}, {}, {})", r.x, r.P, r.dest_block() / r.x, r.Q);
  return fmt::format("cyclic({}) on {} -> cyclic({}) on {}", r.x, r.P, r.dest_block(), r.Q);
}

BlockPlace source_place(const Redistribution& r, std::uint64_t i) {
  const std::uint64_t a = r.source_units(), block = i / a;
  return {block % r.P, (block / r.P) * a + i % a};
}

BlockPlace destination_place(const Redistribution& r, std::uint64_t i) {
  const std::uint64_t b = r.dest_units(), big = i / b;
  return {big % r.Q, (big / r.Q) * b + i % b};
}

std::uint64_t senders(const Redistribution& r) { return r.reverse ? r.Q : r.P; }
std::uint64_t receivers(const Redistribution& r) { return r.reverse ? r.P : r.Q; }
BlockPlace send_place(const Redistribution& r, std::uint64_t i) {
  return r.reverse ? destination_place(r, i) : source_place(r, i);
}
BlockPlace receive_place(const Redistribution& r, std::uint64_t i) {
  return r.reverse ? source_place(r, i) : destination_place(r, i);
}

namespace {

// A reverse problem's schedule: the forward problem's, every message turned
// around (each step stays a matching, so contention-free stays so).
Redistribution forward_of(Redistribution r) {
  r.reverse = false;
  return r;
}
RedistSchedule turned_around(RedistSchedule s) {
  for (RedistStep& step : s.steps)
    for (RedistMessage& msg : step) std::swap(msg.src, msg.dst);
  return s;
}

}  // namespace

RedistributionParams redistribution_params(const Redistribution& r) {
  check_redistribution(r);
  RedistributionParams p;
  if (r.source_units() != 1) {
    // Not the paper's problem: its superblock only, in units.
    const std::uint64_t a = r.source_units() * r.P, b = r.dest_units() * r.Q;
    p.L = a / std::gcd(a, b) * b;
    p.Ls = p.L / r.P;
    p.Ld = p.L / r.Q;
    return p;
  }
  const std::uint64_t K = r.dest_units();
  p.G1 = std::gcd(r.P, K);
  p.K1 = K / p.G1;
  p.P1 = r.P / p.G1;
  p.G2 = std::gcd(p.P1, r.Q);
  p.Q1 = r.Q / p.G2;
  p.P2 = p.P1 / p.G2;
  p.G = p.G1 * p.G2;  // gcd(P, KQ)
  p.Ls = p.K1 * p.Q1;
  p.L = p.Ls * r.P;
  p.Ld = p.L / r.Q;
  // n K1 = 1 (mod P1): the smallest n >= 0, found by Euclid's extended algorithm.
  std::int64_t a = static_cast<std::int64_t>(p.K1 % p.P1), b = static_cast<std::int64_t>(p.P1), x0 = 1, x1 = 0;
  while (b != 0) {
    const std::int64_t q = a / b;
    std::swap(a, b);
    b -= q * a;
    std::swap(x0, x1);
    x1 -= q * x0;
  }
  p.n = p.P1 == 1 ? 0 : mod(x0, p.P1);
  p.m = (static_cast<std::int64_t>(p.n * p.K1) - 1) / static_cast<std::int64_t>(p.P1);  // exact; -1 when P1 = 1
  p.lemma_case = p.G > K ? 1 : (K % p.G == 0 ? 2 : 3);
  p.steps = p.lemma_case == 1 ? p.Ls : r.Q;
  return p;
}

std::uint64_t circulant_destination(const RedistributionParams& p, std::uint64_t Q, std::uint64_t i, std::uint64_t j) {
  const std::uint64_t i1 = i / p.Q1, i2 = i % p.Q1, j1 = j / p.G1, j2 = j % p.G1;
  const std::uint64_t X = mod(static_cast<std::int64_t>(p.n) * (static_cast<std::int64_t>(j1) - static_cast<std::int64_t>(i1)), p.P1);
  return (X + mod(static_cast<std::int64_t>(i2) - static_cast<std::int64_t>(j2), p.Q1) * p.P1) % Q;
}

std::uint64_t circulant_local_block(const RedistributionParams& p, std::uint64_t i, std::uint64_t j) {
  const std::uint64_t i1 = i / p.Q1, i2 = i % p.Q1, j1 = j / p.G1, j2 = j % p.G1;
  const std::uint64_t Y = mod(p.m * (static_cast<std::int64_t>(j1) - static_cast<std::int64_t>(i1)), p.K1);
  return Y + mod(static_cast<std::int64_t>(i2) - static_cast<std::int64_t>(j2), p.Q1) * p.K1;
}

RedistSchedule circulant_schedule(const Redistribution& r) {
  if (r.reverse) return turned_around(circulant_schedule(forward_of(r)));
  check_redistribution(r);
  if (r.source_units() != 1 && r.dest_units() == 1) {
    // y divides x: cyclic(x) on P -> cyclic(y) on Q is the paper's R_y(Q, x/y, P)
    // undone, on the same units: its schedule turned around.
    RedistSchedule s = turned_around(circulant_schedule(Redistribution{r.Q, r.source_units(), r.P, r.unit(), r.N}));
    s.name = "circulant";
    return s;
  }
  if (r.P > r.Q || r.source_units() != 1) return equal_size_colouring(r);
  const RedistributionParams p = redistribution_params(r);
  // Step of (source j, destination d): the row of C_send (Eq. 17) where column
  // j names d. Rows 0 .. steps-1: all of them (not all-to-all, G > K), or the
  // first G2 row blocks, onto which rows i1 + t G2 fold (all-to-all).
  std::vector<std::uint64_t> step_of(r.P * r.Q, ~std::uint64_t{0});
  for (std::uint64_t i = 0; i < p.steps; ++i)
    for (std::uint64_t j = 0; j < r.P; ++j) step_of[j * r.Q + circulant_destination(p, r.Q, i, j)] = i;
  RedistSchedule s;
  s.name = "circulant";
  s.steps.resize(p.steps);
  // A message per (step, source): its blocks of the first superblock in ascending order.
  std::vector<std::vector<std::uint64_t>> message(p.steps * r.P);
  for (std::uint64_t b = 0; b < std::min(p.L, r.blocks()); ++b) {
    const std::uint64_t j = source_place(r, b).proc, d = destination_place(r, b).proc, i = step_of[j * r.Q + d];
    if (i == ~std::uint64_t{0})
      throw Error(fmt::format("internal: the circulant schedule of {} has no step from source {} to destination {}",
                              describe(r), j, d));
    message[i * r.P + j].push_back(b);
  }
  for (std::uint64_t i = 0; i < p.steps; ++i)
    for (std::uint64_t j = 0; j < r.P; ++j) {
      std::vector<std::uint64_t>& blocks = message[i * r.P + j];
      if (blocks.empty()) continue;
      const std::uint64_t d = destination_place(r, blocks.front()).proc;
      s.steps[i].push_back(RedistMessage{j, d, MessageBlocks(std::move(blocks), p.L, r.blocks())});
    }
  // With less than a superblock of data some rows carry nothing: they are not steps.
  s.steps.erase(std::remove_if(s.steps.begin(), s.steps.end(), [](const RedistStep& st) { return st.empty(); }),
                s.steps.end());
  return s;
}

RedistSchedule caterpillar_schedule(const Redistribution& r) {
  if (r.reverse) return turned_around(caterpillar_schedule(forward_of(r)));
  check_redistribution(r);
  const PairBlocks pb = pair_blocks(r);
  const std::uint64_t T = std::max(r.P, r.Q);
  // Source s meets destination d in step (T - 1 - s - d) mod T: one step a pair.
  std::vector<std::uint64_t> colour(pb.pairs.size());
  for (std::size_t e = 0; e < pb.pairs.size(); ++e)
    colour[e] = mod(static_cast<std::int64_t>(T) - 1 - static_cast<std::int64_t>(pb.pairs[e].first) -
                        static_cast<std::int64_t>(pb.pairs[e].second),
                    T);
  RedistSchedule s = schedule_from_colours("caterpillar", pb, colour);
  s.steps.resize(T);  // every one of the max(P, Q) steps is taken, idle or not
  return s;
}

RedistSchedule bipartite_stepwise_schedule(const Redistribution& r) {
  if (r.reverse) return turned_around(bipartite_stepwise_schedule(forward_of(r)));
  check_redistribution(r);
  const PairBlocks pb = pair_blocks(r);
  std::vector<std::uint64_t> colour(pb.pairs.size());
  koenig_colouring(r, pb, all_edges(pb), 0, colour);
  return schedule_from_colours("bipartite-stepwise", pb, colour);
}

RedistSchedule bipartite_greedy_schedule(const Redistribution& r) {
  if (r.reverse) return turned_around(bipartite_greedy_schedule(forward_of(r)));
  check_redistribution(r);
  const PairBlocks pb = pair_blocks(r);
  // Largest messages first, so that each step's largest message is shared by
  // other large ones and small messages travel together.
  std::vector<std::uint64_t> order(pb.pairs.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint64_t a, std::uint64_t b) { return pb.blocks[a].size() > pb.blocks[b].size(); });
  std::vector<std::uint64_t> colour(pb.pairs.size());
  std::vector<std::uint64_t> src_busy(r.P, 0), dst_busy(r.Q, 0);  // step + 1 last used
  std::vector<std::uint64_t> left = order;
  for (std::uint64_t step = 0; !left.empty(); ++step) {
    std::vector<std::uint64_t> rest;
    for (const std::uint64_t e : left) {
      const auto [s, d] = pb.pairs[e];
      if (src_busy[s] == step + 1 || dst_busy[d] == step + 1) {
        rest.push_back(e);
        continue;
      }
      src_busy[s] = dst_busy[d] = step + 1;
      colour[e] = step;
    }
    left = std::move(rest);
  }
  return schedule_from_colours("bipartite-greedy", pb, colour);
}

const std::vector<std::string>& redistribution_schedule_names() {
  static const std::vector<std::string> names = {"circulant", "caterpillar", "bipartite-stepwise", "bipartite-greedy"};
  return names;
}

RedistSchedule make_redistribution_schedule(const Redistribution& r, const std::string& name) {
  if (name == "circulant") return circulant_schedule(r);
  if (name == "caterpillar") return caterpillar_schedule(r);
  if (name == "bipartite-stepwise") return bipartite_stepwise_schedule(r);
  if (name == "bipartite-greedy") return bipartite_greedy_schedule(r);
  throw Error(fmt::format("schedule '{}' unknown: allowed {}", printable_input(name),
                          fmt::join(redistribution_schedule_names(), ", ")));
}

double RedistStats::modelled_cost(double ts, double tau) const {
  double cost = 0;
  for (const std::uint64_t size : message_sizes) cost += ts + static_cast<double>(size) * tau;
  return cost;
}

RedistStats check_redistribution_schedule(const Redistribution& r, const RedistSchedule& s) {
  check_redistribution(r);
  RedistStats st;
  st.steps = s.steps.size();
  // Every message repeats with the superblock up to N/x, as the pairs do: the
  // first superblock's blocks decide which block goes where, once.
  const std::uint64_t L = superblock(r), first = std::min(L, r.blocks());
  std::vector<bool> sent(first, false);
  const std::uint64_t S = senders(r), R = receivers(r);
  std::vector<std::uint64_t> src_step(S, 0), dst_step(R, 0);  // step + 1 last used
  for (std::uint64_t i = 0; i < s.steps.size(); ++i) {
    std::uint64_t largest = 0;
    for (const RedistMessage& msg : s.steps[i]) {
      if (msg.src >= S || msg.dst >= R)
        throw Error(fmt::format("{} step {}: message {} -> {} names a processor out of range ({} senders, {} "
                                "receivers)",
                                s.name, i, msg.src, msg.dst, S, R));
      if (msg.blocks.period() != L || msg.blocks.end_block() != r.blocks())
        throw Error(fmt::format("{} step {}: message {} -> {} repeats every {} blocks up to block {}: the problem's "
                                "superblock is {} blocks, its array {} blocks",
                                s.name, i, msg.src, msg.dst, msg.blocks.period(), msg.blocks.end_block(), L,
                                r.blocks()));
      if (src_step[msg.src] == i + 1)
        throw Error(fmt::format("{} step {}: source {} sends two messages", s.name, i, msg.src));
      src_step[msg.src] = i + 1;
      if (dst_step[msg.dst] == i + 1) ++st.contention;
      dst_step[msg.dst] = i + 1;
      for (const std::uint64_t b : msg.blocks.pattern()) {
        if (b >= first)
          throw Error(fmt::format("{} step {}: block {} out of range: allowed 0..{}", s.name, i, b, r.blocks() - 1));
        if (sent[b]) throw Error(fmt::format("{} step {}: block {} is sent twice", s.name, i, b));
        sent[b] = true;
        if (send_place(r, b).proc != msg.src || receive_place(r, b).proc != msg.dst)
          throw Error(fmt::format("{} step {}: block {} goes {} -> {}, the message {} -> {}", s.name, i, b,
                                  send_place(r, b).proc, receive_place(r, b).proc, msg.src, msg.dst));
      }
      largest = std::max<std::uint64_t>(largest, msg.blocks.size() * r.unit());
    }
    st.message_sizes.push_back(largest);
    st.max_message = std::max(st.max_message, largest);
  }
  for (std::uint64_t b = 0; b < first; ++b)
    if (!sent[b]) throw Error(fmt::format("{}: block {} is never sent", s.name, b));
  st.partners = most_partners(r, pair_blocks(r));  // counted from the layouts, not the schedule
  return st;
}

}  // namespace hcube

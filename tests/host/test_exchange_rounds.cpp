// exchange_rounds (host/exchange_rounds.hpp): a distributed machine runs a
// schedule round by round, each round's exchanges inside a process in cycle
// order and then its crossing exchanges all at once. Checked here against
// the schedule run cycle by cycle, on a plain array of labels, for the
// papers' schedules, sequences with node-dependent addresses and random ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hcube/host/aapc.hpp"
#include "hcube/host/edelman.hpp"
#include "hcube/host/exchange_rounds.hpp"
#include "hcube/host/multi_aapc_plan.hpp"

namespace hcube {
namespace {

// Node j's address of an exchange on its `high` side or not: addr or
// peer_addr, xor the map's columns of j's set bits (docs/schedule-format.md).
std::uint64_t address(const Schedule& s, const Exchange& x, std::uint64_t j, bool high) {
  std::uint64_t a = high ? x.peer_addr : x.addr;
  if (x.offset_map != 0)
    for (unsigned k = 0; k < s.n; ++k)
      if ((j >> k) & 1) a ^= s.offset_maps[x.offset_map - 1][k];
  return a;
}

// The words an exchange swaps: pairs of (node << m | address).
std::vector<std::pair<std::uint64_t, std::uint64_t>> swaps(const Schedule& s, const Exchange& x) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (std::uint64_t j = 0; j < (std::uint64_t{1} << s.n); ++j) {
    if ((j >> x.dim) & 1) continue;
    const std::uint64_t k = j | (std::uint64_t{1} << x.dim);
    out.emplace_back((j << s.m) | address(s, x, j, false), (k << s.m) | address(s, x, k, true));
  }
  return out;
}

std::vector<std::uint64_t> labels(const Schedule& s) {
  std::vector<std::uint64_t> w(std::uint64_t{1} << (s.n + s.m));
  for (std::uint64_t g = 0; g < w.size(); ++g) w[g] = g;
  return w;
}

// Cycle by cycle, exchange by exchange: the machine's meaning of the schedule.
std::vector<std::uint64_t> in_cycle_order(const Schedule& s) {
  std::vector<std::uint64_t> w = labels(s);
  for (std::size_t c = 0; c < s.cycles(); ++c)
    for (std::size_t e = 0; e < s.cycle_size(c); ++e)
      for (const auto& [a, b] : swaps(s, s.cycle_begin(c)[e])) std::swap(w[a], w[b]);
  return w;
}

// Round by round: the exchanges inside in cycle order, then every crossing
// exchange of the round read first and written after, as the messages do.
std::vector<std::uint64_t> in_rounds(const Schedule& s, unsigned first_crossing, const ExchangeRounds& plan) {
  std::vector<std::uint64_t> w = labels(s);
  const Exchange* all = s.exchanges() == 0 ? nullptr : s.cycle_begin(0);
  for (std::uint32_t round = 0; round < plan.rounds; ++round) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> crossing;
    for (std::size_t i = 0; i < s.exchanges(); ++i) {
      if (plan.round[i] != round) continue;
      const auto pairs = swaps(s, all[i]);
      if (all[i].dim >= first_crossing)
        crossing.insert(crossing.end(), pairs.begin(), pairs.end());
      else
        for (const auto& [a, b] : pairs) std::swap(w[a], w[b]);
    }
    std::vector<std::uint64_t> read;
    for (const auto& [a, b] : crossing) {
      read.push_back(w[a]);
      read.push_back(w[b]);
    }
    for (std::size_t k = 0; k < crossing.size(); ++k) {
      w[crossing[k].first] = read[2 * k + 1];
      w[crossing[k].second] = read[2 * k];
    }
  }
  return w;
}

void expect_same_result(const Schedule& s, const std::string& what) {
  const std::vector<std::uint64_t> want = in_cycle_order(s);
  for (unsigned r = 1; r <= std::min(3u, s.n); ++r) {
    const ExchangeRounds plan = exchange_rounds(s, s.n - r);
    ASSERT_EQ(plan.round.size(), s.exchanges()) << what;
    EXPECT_EQ(in_rounds(s, s.n - r, plan), want) << what << ", r = " << r << ", " << plan.rounds << " rounds";
  }
}

TEST(ExchangeRounds, ThePapersSchedulesGiveTheirCycleOrderResult) {
  for (unsigned d = 2; d <= 6; ++d) {
    for (const AapcAlgorithm a : {AapcAlgorithm::alg1, AapcAlgorithm::alg2, AapcAlgorithm::alg3, AapcAlgorithm::alg4}) {
      AapcOptions o;
      o.algorithm = a;
      o.d = d;
      o.m = d + 1;
      expect_same_result(make_aapc_schedule(o), "Algorithm " + std::to_string(static_cast<int>(a)) + ", d = " +
                                                    std::to_string(d));
    }
    for (const bool aligned : {true, false})
      expect_same_result(make_edelman_schedule(d, d, d, aligned),
                         std::string("Edelman ") + (aligned ? "aligned" : "unaligned") + ", d = " + std::to_string(d));
  }
}

// Sequences of AAPCs: node-dependent addresses (offset maps) across the
// processes' dimensions, Algorithm 5, axes of unequal orders.
TEST(ExchangeRounds, SequencesWithOffsetMapsGiveTheirCycleOrderResult) {
  for (const auto& [axes, dims, algorithm, sequential] :
       std::vector<std::tuple<long long, std::string, std::string, bool>>{
           {2, "3", "4", false}, {2, "3", "4", true}, {3, "2", "5", false}, {kUnsetSize, "3,2", "1", false}}) {
    MultiAapcRequest q;
    q.axes = axes;
    q.dims = dims;
    q.algorithm = algorithm;
    q.sequential = sequential;
    const Schedule s = make_multi_aapc_schedule(plan_multi_aapc(q));
    expect_same_result(s, "multi-aapc " + dims + " algorithm " + algorithm);
  }
}

// Random cycles, addresses and peer addresses, some node-dependent: the
// rounds follow every dependence, not only the papers' patterns.
TEST(ExchangeRounds, RandomSchedulesGiveTheirCycleOrderResult) {
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 60; ++trial) {
    Schedule s;
    s.n = 4;
    s.m = 3;
    const std::uint64_t K = 8;
    s.offset_maps.push_back({3, 5, 6, 1});
    for (int c = 0; c < 12; ++c) {
      // Distinct addresses within a cycle, so that no word is in two exchanges of it.
      std::vector<std::uint64_t> free(K);
      for (std::uint64_t a = 0; a < K; ++a) free[a] = a;
      std::shuffle(free.begin(), free.end(), rng);
      if (rng() % 5 == 0) {  // a node-dependent exchange alone in its cycle
        s.add(Exchange(static_cast<std::uint32_t>(rng() % 4), free[0], free[1], 1));
      } else {
        for (std::uint32_t dim = 0; dim < 4; ++dim)
          if (rng() % 3 != 0) {
            const std::uint64_t a = free.back();
            free.pop_back();
            const std::uint64_t p = rng() % 2 == 0 ? a : free.back();
            if (p != a) free.pop_back();
            s.add(Exchange(dim, a, p));
            if (free.size() < 2) break;
          }
      }
      s.end_cycle();
    }
    expect_same_result(s, "random schedule " + std::to_string(trial));
  }
}

// What makes the distributed AAPC fast: in Algorithm 4's and Edelman's
// aligned schedules every exchange keeps its address (peer_addr = addr, no
// map), so only the exchanges of one address depend on each other, and an
// address crosses each dimension at most once: at most r + 1 rounds on r
// dimensions across processes (exactly r + 1 from d = 6 on: hcube's count of
// its own planner, not a paper's number), where the cycle by cycle run
// synchronises 2^(d-1) times. A schedule with an offset map in every cycle
// needs a round per cycle.
TEST(ExchangeRounds, TheAapcTakesAtMostOneRoundMoreThanItsProcessDimensions) {
  for (unsigned d = 4; d <= 11; ++d)
    for (unsigned r = 1; r <= 3; ++r) {
      AapcOptions o;
      o.d = d;
      for (const Schedule& s : {make_aapc_schedule(o), make_edelman_schedule(d, d, d, true)}) {
        const std::uint32_t rounds = exchange_rounds(s, d - r).rounds;
        EXPECT_LE(rounds, r + 1) << "algorithm " << s.algorithm << ", d = " << d << ", r = " << r;
        if (d >= 6) {
          EXPECT_EQ(rounds, r + 1) << "algorithm " << s.algorithm << ", d = " << d << ", r = " << r;
        }
      }
    }
  const Schedule unaligned = make_edelman_schedule(5, 5, 5, false);
  EXPECT_EQ(exchange_rounds(unaligned, 4).rounds, unaligned.cycles());
  EXPECT_EQ(exchange_rounds(unaligned, 5).rounds, 1u);  // nothing crosses: one round
}

}  // namespace
}  // namespace hcube

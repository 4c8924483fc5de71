// Corollary 2 decided on small cases (issue 24): scripts/corollary2_sat.py asked a SAT solver
// for the fewest routing cycles a sequence of AAPCs takes on hcube's machine (all-port, one
// exchange a dimension a cycle, Lemma 1's single alignment, any offset maps and peer addresses,
// any path), and wrote its answers to tests/data/corollary2/. The solver is not needed here:
// this test pins those answers, runs every schedule the solver found on every backend bit for
// bit against the generalized shuffle, and, for the smallest cases, decides "one cycle fewer
// is impossible" again by an exhaustive search written here, apart from the SAT encoding.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <numeric>
#include <set>

#include "backend_test.hpp"
#include "hcube/core/error.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/affine_map.hpp"
#include "hcube/host/aapc_sequence.hpp"
#include "hcube/host/schedule.hpp"

namespace hcube {
namespace {

nlohmann::json result(const std::string& name) {
  std::ifstream in(std::string(HCUBE_TEST_DATA_DIR) + "/corollary2/" + name);
  if (!in) throw Error("missing test data corollary2/" + name);
  return nlohmann::json::parse(in);
}

// What the solver answered for the axes' orders `widths` with m memory bits: UNSAT for every
// T below the fewest, SAT at it, with the schedule it found.
struct Answer {
  std::vector<unsigned> widths;
  unsigned m = 0;
  std::uint64_t fewest = 0;
  Schedule schedule;
};

Answer answer(const std::string& name) {
  const nlohmann::json j = result(name);
  Answer a;
  a.widths = j["widths"].get<std::vector<unsigned>>();
  a.m = j["m"];
  a.fewest = j["fewest_cycles"];
  std::uint64_t t = j["runs"].front()["T"];
  for (const auto& run : j["runs"]) {
    EXPECT_EQ(run["T"], t) << "the runs go up one cycle at a time";
    EXPECT_EQ(run["status"], t < a.fewest ? "UNSAT" : "SAT") << "T = " << t;
    ++t;
  }
  EXPECT_EQ(t, a.fewest + 1);
  EXPECT_FALSE(j.value("keep_address", true)) << "only the full model decides";
  a.schedule = schedule_from_json(j["runs"].back()["schedule"], name);
  return a;
}

class Corollary2Sat : public BackendTest {
 protected:
  // The found schedule: checked (ports, channel width 1, no word in two exchanges) and run
  // between its two alignments, compared with the shuffle written from its formula.
  void run_found(const Answer& a) {
    check_schedule(a.schedule);
    EXPECT_EQ(a.schedule.cycles(), a.fewest);
    const unsigned n = std::accumulate(a.widths.begin(), a.widths.end(), 0u);
    auto mach = make_labelled(n, a.m);
    const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                            shuffle_destination(mach->geometry(), a.widths));
    const AffineMap id(mach->geometry());
    run_schedule(*mach, a.schedule, id, id);
    EXPECT_EQ(mach->read(), expected);
    EXPECT_EQ(mach->counters().alignments, 2u);
  }
};

// The small cases the solver decided: the fewest cycles on hcube's machine against Corollary 2
// (K/2 + (s-1)d) and against hcube's own planners.
TEST_P(Corollary2Sat, FewestCyclesOfTheSmallCases) {
  struct Case {
    const char* file;
    std::uint64_t fewest;
  };
  // d = 1, s = 2 and 3 (K = 2): Corollary 2's 1 + (s-1) is the fewest. d = 2, s = 2 (K = 4, d
  // divides K/2): Corollary 2's 2 + 2 = 4 is the fewest. Orders 2,1 (K = 4): 3, one fewer than
  // the pipelined pair schedules (4, unequal_orders_cycles) and their derived K/2 + d_1 = 4.
  for (const Case& c : {Case{"corollary2_1-1_m1.json", 2}, Case{"corollary2_1-1-1_m1.json", 3},
                        Case{"corollary2_2-2_m2.json", 4}, Case{"corollary2_2-1_m2.json", 3}}) {
    SCOPED_TRACE(c.file);
    const Answer a = answer(c.file);
    EXPECT_EQ(a.fewest, c.fewest);
    run_found(a);
    const std::uint64_t half = std::uint64_t{1} << (a.m - 1);
    if (std::adjacent_find(a.widths.begin(), a.widths.end(), std::not_equal_to<>()) == a.widths.end()) {
      const unsigned d = a.widths[0], s = static_cast<unsigned>(a.widths.size());
      EXPECT_EQ(a.fewest, half + (s - 1) * d);  // Corollary 2, met and not beaten
      EXPECT_EQ(corollary2_cycles(AapcAlgorithm::alg4, d, a.m, s), a.fewest);
    } else {
      EXPECT_LT(a.fewest, unequal_orders_cycles(a.widths, a.m));
      EXPECT_LT(a.fewest, unequal_orders_target(a.widths, a.m));
    }
  }
}

// --- an exhaustive search, independent of the SAT encoding ------------------------------------

// Every routing cycle hcube's machine allows on n node bits and m memory bits: each dimension r
// idle or one exchange {addr a, peer_addr a', offset map L}, node j (bit r clear) swapping its
// word a xor L(j) with word a' xor L(j xor 2^r) of its neighbour; a cycle in which a word takes
// part in two exchanges is not one. Each cycle as the involution it applies to the slots
// node 2^m + address.
std::set<std::vector<std::uint32_t>> all_cycles(unsigned n, unsigned m) {
  const std::uint64_t K = std::uint64_t{1} << m, N = std::uint64_t{1} << n;
  // Per dimension: the swaps of each choice (a, L columns of the other bits, delta), or none.
  std::vector<std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>>> options(n);
  for (unsigned r = 0; r < n; ++r) {
    options[r].push_back({});  // idle
    const std::uint64_t choices = K << ((n - 1) * m + m);
    for (std::uint64_t c = 0; c < choices; ++c) {
      const std::uint64_t a = c & (K - 1), delta = (c >> m) & (K - 1);
      std::vector<std::uint64_t> col(n, 0);
      for (unsigned k = 0, f = 0; k < n; ++k)
        if (k != r) col[k] = (c >> (2 * m + m * f++)) & (K - 1);
      std::vector<std::pair<std::uint32_t, std::uint32_t>> swaps;
      for (std::uint64_t j = 0; j < N; ++j) {
        if ((j >> r) & 1) continue;
        std::uint64_t u = a;
        for (unsigned k = 0; k < n; ++k)
          if ((j >> k) & 1) u ^= col[k];
        swaps.emplace_back(static_cast<std::uint32_t>(j * K + u),
                           static_cast<std::uint32_t>((j | (std::uint64_t{1} << r)) * K + (u ^ delta)));
      }
      options[r].push_back(std::move(swaps));
    }
  }
  std::set<std::vector<std::uint32_t>> cycles;
  std::vector<std::size_t> pick(n, 0);
  while (true) {
    std::vector<std::uint32_t> perm(N * K);
    std::iota(perm.begin(), perm.end(), 0u);
    std::vector<bool> used(N * K, false);
    bool ok = true;
    for (unsigned r = 0; r < n && ok; ++r)
      for (const auto& [x, y] : options[r][pick[r]]) {
        if (used[x] || used[y]) {
          ok = false;
          break;
        }
        used[x] = used[y] = true;
        std::swap(perm[x], perm[y]);
      }
    if (ok) cycles.insert(std::move(perm));
    unsigned r = 0;
    while (r < n && ++pick[r] == options[r].size()) pick[r++] = 0;
    if (r == n) break;
  }
  return cycles;
}

// Whether T <= 2 cycles suffice, by meeting in the middle: the word in aligned slot p must
// reach A(S(A(p))) (A Lemma 1's xor alignment, S the shuffle); a cycle is an involution, so T
// cycles exist iff a state ceil(T/2) cycles from the start is one floor(T/2) cycles from the goal.
bool feasible(const std::vector<unsigned>& widths, unsigned m, unsigned T) {
  const unsigned n = std::accumulate(widths.begin(), widths.end(), 0u);
  const Geometry geo{n, m};
  const std::uint64_t K = geo.words_per_node();
  const AffineMap align = AffineMap::xor_fold(geo, widths);
  const AddressMap shuffle = shuffle_destination(geo, widths);
  using State = std::vector<std::uint32_t>;  // slot -> the aligned slot its word must reach
  State start(geo.total_words()), goal(geo.total_words());
  for (std::uint64_t node = 0; node < geo.nodes(); ++node)
    for (std::uint64_t x = 0; x < K; ++x) {
      // The word aligned to x started at A(x) (A is an involution) and ends at S of that.
      const std::uint64_t to = shuffle(geo.global(node, align.apply(node, x)));
      start[node * K + x] = static_cast<std::uint32_t>(geo.node_of(to) * K + align.apply(geo.node_of(to), geo.local_of(to)));
      goal[node * K + x] = static_cast<std::uint32_t>(node * K + x);
    }
  const std::set<State> cycles = all_cycles(n, m);
  const auto step = [&](const std::set<State>& from) {
    std::set<State> next;
    for (const State& s : from)
      for (const State& c : cycles) {
        State t(s.size());
        for (std::size_t k = 0; k < s.size(); ++k) t[k] = s[c[k]];
        next.insert(std::move(t));
      }
    return next;
  };
  std::set<State> ahead = {start}, back = {goal};
  for (unsigned h = 0; h < (T + 1) / 2; ++h) ahead = step(ahead);
  for (unsigned h = 0; h < T / 2; ++h) back = step(back);
  for (const State& s : ahead)
    if (back.count(s)) return true;
  return false;
}

TEST(Corollary2Search, TheSmallestCasesAgreeWithTheSolver) {
  ASSERT_EQ(answer("corollary2_1-1_m1.json").fewest, 2u);
  EXPECT_FALSE(feasible({1, 1}, 1, 1));
  EXPECT_TRUE(feasible({1, 1}, 1, 2));  // the search finds what exists
  ASSERT_EQ(answer("corollary2_1-1-1_m1.json").fewest, 3u);
  EXPECT_FALSE(feasible({1, 1, 1}, 1, 2));
}

HCUBE_ON_EVERY_BACKEND(Corollary2Sat);

}  // namespace
}  // namespace hcube

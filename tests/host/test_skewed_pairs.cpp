// Pipelined AAPCs with complement pairs skewed bit by bit (docs/multi-aapc.md, "Pairs skewed
// bit by bit"): the generalized shuffle against its formula on every backend, the count
// max(K/2, n) + s - 1 (the fewest any pipeline of pairs takes where K/2 >= n) with every
// dimension busy from its first use, and Corollary 2 met or beaten on every machine hcube holds.
#include <gtest/gtest.h>

#include "backend_test.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/aapc_sequence.hpp"

namespace hcube {
namespace {

class SkewedPairs : public BackendTest {};

struct SkewCase {
  std::vector<unsigned> widths;  // the axes' orders
  unsigned m;
  std::vector<unsigned> order;  // equal orders only
};

AapcSequenceOptions pipelined_alg4(const SkewCase& k) {
  AapcSequenceOptions o;
  o.algorithm = AapcAlgorithm::alg4;
  o.pipelined = true;
  o.m = k.m;
  o.order = k.order;
  const bool equal = std::adjacent_find(k.widths.begin(), k.widths.end(), std::not_equal_to<>()) == k.widths.end();
  if (equal) {
    o.d = k.widths[0];
    o.axes = static_cast<unsigned>(k.widths.size());
  } else {
    o.dims = k.widths;
  }
  return o;
}

// Equal and unequal orders, K/2 above and below n, axes in another order: each run bit for bit
// against the shuffle written from its formula.
TEST_P(SkewedPairs, GeneralizedShuffleOnEveryBackend) {
  const std::vector<SkewCase> cases = {
      {{2, 2}, 3, {}},    {{4, 4}, 4, {}},       {{5, 5}, 5, {}},    {{3, 3}, 4, {}},    {{3, 3, 3}, 4, {}},
      {{2, 2, 2}, 4, {2, 0, 1}}, {{3, 3}, 5, {1, 0}}, {{2, 2, 2, 2}, 3, {}}, {{4, 3}, 5, {}}, {{3, 2, 2}, 4, {}},
      {{4, 3, 2, 1}, 4, {}}, {{5, 3}, 5, {}}};
  const auto& types = all_element_types();
  std::size_t t = 0;
  for (const SkewCase& k : cases) {
    SCOPED_TRACE(testing::Message() << "orders " << fmt::format("{}", fmt::join(k.widths, ",")) << ", m = " << k.m);
    const AapcSequenceOptions o = pipelined_alg4(k);
    ASSERT_EQ(sequence_construction(o), SequenceConstruction::skewed);
    const Schedule sch = make_aapc_sequence(o);
    const ScheduleStats st = check_schedule(sch);  // legal, clash-free on every node
    const unsigned n = std::accumulate(k.widths.begin(), k.widths.end(), 0u);
    const std::uint64_t half = std::uint64_t{1} << (k.m - 1);
    // Every pair crosses every dimension once: no exchange is spent on a word going back.
    EXPECT_EQ(sch.exchanges(), n * half);
    EXPECT_EQ(st.cycles, skewed_pipeline_cycles(k.widths, k.m));
    auto mach = make_labelled(n, k.m, types[t++ % types.size()].type);
    const Geometry& geo = mach->geometry();
    const AddressMap dest =
        k.order.empty() && o.dims.empty() ? shuffle_destination(geo, k.widths[0], o.axes)
        : o.dims.empty()                  ? shuffle_destination(geo, k.widths[0], o.axes, k.order)
                                          : shuffle_destination(geo, k.widths);
    const auto expected = reference_permute(mach->read(), mach->word_bytes(), geo.total_words(), dest);
    const AffineMap id(geo);
    run_schedule(*mach, sch, id, id);
    ASSERT_EQ(mach->read(), expected);
    EXPECT_EQ(mach->counters().alignments, 2u);  // Lemma 1's one pair, as every pipeline
  }
}

HCUBE_ON_EVERY_BACKEND(SkewedPairs);

// Where K/2 >= n one skewed row takes K/2 + s - 1 cycles, the fewest of any pipeline of pairs:
// the dimension of AAPC t is busy in every cycle from t to t + K/2 - 1, idle only in the t
// cycles before and the s - 1 - t after, which the bit chains force.
TEST(SkewedPairsCount, OneRowKeepsEveryDimensionBusyFromItsFirstUse) {
  for (unsigned d = 1; d <= 5; ++d)
    for (unsigned s = 2; s <= 5; ++s)
      for (unsigned m = d; s * d + m <= 24; ++m) {
        const std::uint64_t half = std::uint64_t{1} << (m - 1);
        if (half < s * d) continue;
        SCOPED_TRACE(testing::Message() << "d = " << d << ", s = " << s << ", m = " << m);
        const std::vector<unsigned> widths(s, d);
        EXPECT_EQ(skewed_pipeline_cycles(widths, m), half + s - 1);
        EXPECT_EQ(pair_pipeline_lower_bound(widths, m), half + s - 1);
        if (s * d + m > 16) continue;  // the schedule itself where it is small
        const Schedule sch = make_aapc_sequence(pipelined_alg4(SkewCase{widths, m, {}}));
        ASSERT_EQ(check_schedule(sch).cycles, half + s - 1);
        for (unsigned t = 0; t < s; ++t)
          for (unsigned b = 0; b < d; ++b)
            for (std::size_t c = 0; c < sch.cycles(); ++c) {
              const Exchange* first = sch.cycle_begin(c);
              const auto uses = std::count_if(first, first + sch.cycle_size(c),
                                              [&](const Exchange& x) { return x.dim == t * d + b; });
              EXPECT_EQ(uses, c >= t && c < t + half ? 1 : 0) << "dimension " << t * d + b << ", cycle " << c;
            }
      }
  // Unequal orders: n = 9, K/2 = 16: 16 + 3 - 1.
  EXPECT_EQ(skewed_pipeline_cycles({4, 3, 2}, 5), 18u);
  // Below n pairs the cycles must hold K/2 n crossings, cycle c at most min(K/2, the dimensions
  // usable in it): three axes of d = 3 on K = 8 (4 pairs, n = 9) fit in no fewer than
  // 3 + 4 x 8 + 3 >= 36 crossings, 10 cycles (9 hold 3 + 4 x 7 + 3 = 34); a CaDiCaL run of the
  // pair model agrees (T = 9 UNSAT, docs/multi-aapc.md). The skewed rows take 11.
  EXPECT_EQ(pair_pipeline_lower_bound({3, 3, 3}, 3), 10u);
  EXPECT_EQ(skewed_pipeline_cycles({3, 3, 3}, 3), 11u);
  // Four axes of d = 5 on K = 32 (16 pairs, n = 20): 23 both, the skewed chunks the fewest of pairs.
  EXPECT_EQ(pair_pipeline_lower_bound({5, 5, 5, 5}, 5), 23u);
  EXPECT_EQ(skewed_pipeline_cycles({5, 5, 5, 5}, 5), 23u);
}

// Corollary 2 (Johnsson & Ho 1992, sec. 4.1: K/2 + (s-1)d) met or beaten on every machine hcube
// holds (s d + m <= 56 bits), by the fewest of the paper's pipeline of pairs, the skewed pairs and
// the solver's d = 3, K = 8 schedule; below it by (s-1)(d-1) wherever K/2 >= n and d > 1.
TEST(Corollary2Met, OnEveryMachineSize) {
  std::size_t machines = 0, beaten = 0;
  for (unsigned d = 1; 2 * d <= kMaxAddressBits; ++d)
    for (unsigned s = 2; s * d + d <= kMaxAddressBits; ++s)
      for (unsigned m = d; s * d + m <= kMaxAddressBits; ++m) {
        const std::uint64_t half = std::uint64_t{1} << (m - 1), n = std::uint64_t{s} * d;
        const std::uint64_t corollary2 = half + (s - 1) * d;
        std::uint64_t pairs = corollary2;  // Alg. 1's pairs where d divides K/2
        if (half % d != 0) pairs = half + (s - 1) * (d + half % d);  // Alg. 3's
        std::uint64_t fewest = std::min(pairs, skewed_pipeline_cycles(std::vector<unsigned>(s, d), m));
        if (d == 3 && m == 3) fewest = std::min<std::uint64_t>(fewest, 3 * s);
        ++machines;
        ASSERT_LE(fewest, corollary2) << "d = " << d << ", s = " << s << ", m = " << m;
        if (half >= n) {
          ASSERT_EQ(fewest, half + s - 1) << "d = " << d << ", s = " << s << ", m = " << m;
        }
        beaten += fewest < corollary2;
        if (s * d + m <= 12) {  // the planner runs that count
          const Schedule sch = make_aapc_sequence(pipelined_alg4(SkewCase{std::vector<unsigned>(s, d), m, {}}));
          EXPECT_EQ(check_schedule(sch).cycles, fewest) << "d = " << d << ", s = " << s << ", m = " << m;
        }
      }
  EXPECT_GT(machines, 3000u);
  EXPECT_GT(beaten, machines / 2);
}

}  // namespace
}  // namespace hcube

// Algorithm 5 (Johnsson & Ho 1992, sec. 4.2) and AAPCs of unequal orders
// (sec. 4.1): Figure 4 reproduced, Theorem 2's regimes with the schedule's
// count beside the bound, and every schedule run bit for bit against the
// generalized shuffle on every backend. The counts here are written from the
// paper's formulas, not with the planner's own code.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "backend_test.hpp"
#include "paper_counts.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc_sequence.hpp"
#include "hcube/host/concurrent_aapc.hpp"
#include "hcube/host/multi_aapc_plan.hpp"
#include "hcube/host/schedule_json.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

using test::theorem2;

// The skewed layout's count, from its construction's geometry (docs/multi-aapc.md, "Rows rotated
// bit by bit"): the pipeline of K/2 - R pairs ends in cycle K/2 - R + s - 1, the last rotated
// head (axes 0..1 from cycle K/2 - 1) in cycle K/2 + 1.
std::uint64_t skewed_count(unsigned d, unsigned s, unsigned m, std::uint64_t rows_per_bit) {
  const std::uint64_t half = std::uint64_t{1} << (m - 1), rotated = rows_per_bit << d;
  return rotated == 0 ? half + s - 1 : std::max(half - rotated + s - 1, half + 1);
}

ConcurrentOptions options(unsigned d, unsigned s, unsigned m, RotationLayout layout = RotationLayout::compact,
                          long long rotated_rows = -1) {
  ConcurrentOptions o;
  o.d = d;
  o.axes = s;
  o.m = m;
  o.layout = layout;
  o.rotated_rows = rotated_rows;
  return o;
}


// Figure 4 (s = 6, one memory axis besides the AAPCs'): the OCR text lost the
// swap marks of the second set of each pair and garbled the labels (the text
// calls the pairs d_0^{0,1} and d_1^{0,1}); every exchange entry is as printed.
TEST(Figure4, PaperLayoutForSixAxes) {
  const ConcurrentPlan plan = place_data_sets(6, 5, 4, RotationLayout::paper);
  const std::string figure4 =
      "time step    0    1    2    3    4    5    6    7    8    9   10\n"
      "d_0^0      v,5  v,6    *            i,1  i,2  i,3  i,4  i,5\n"
      "d_0^1           v,5  v,6    *            i,1  i,2  i,3  i,4  i,5\n"
      "d_1^0      v,3  v,4  v,5  v,6    *            i,1  i,2  i,3\n"
      "d_1^1           v,3  v,4  v,5  v,6    *            i,1  i,2  i,3\n"
      "d_2        i,1  i,2  i,3  i,4  i,5  i,6\n"
      "d_3             i,1  i,2  i,3  i,4  i,5  i,6\n"
      "d_4                  i,1  i,2  i,3  i,4  i,5  i,6\n"
      "d_5                       i,1  i,2  i,3  i,4  i,5  i,6\n"
      "d_6                            i,1  i,2  i,3  i,4  i,5  i,6\n";
  EXPECT_EQ(plan_chart(plan), figure4);
  EXPECT_EQ(plan.columns, 11u);  // R + 2 columns for R = 9 data sets: K/2 + 2d
  // Sec. 4.2: s - 2 sets start elsewhere for s even, s - 1 for s odd, in pairs on axes s-2, s-4, ... (from 0).
  const ConcurrentPlan odd = place_data_sets(7, 6, 6, RotationLayout::paper);
  const unsigned starts[] = {5, 5, 3, 3, 1, 1};
  for (unsigned i = 0; i < 6; ++i) EXPECT_EQ(odd.rows[i].start, starts[i]) << "data set " << i;
}

// Every plan: each data set crosses its axes in order, one column each, an
// axis carries one data set per column, and a rotated set makes one AAPC more.
void expect_valid(const ConcurrentPlan& plan) {
  std::set<std::pair<unsigned, std::uint64_t>> used;
  for (const PlanRow& row : plan.rows) {
    std::vector<unsigned> axes;
    for (std::size_t k = 0; k < row.steps.size(); ++k) {
      EXPECT_TRUE(used.insert({row.steps[k].axis, row.steps[k].column}).second) << row.label;
      if (k > 0) {
        EXPECT_LT(row.steps[k - 1].column, row.steps[k].column) << row.label;
      }
      EXPECT_LT(row.steps[k].column, plan.columns);
      axes.push_back(row.steps[k].axis);
    }
    std::vector<unsigned> want;
    if (row.rotated)
      for (unsigned t = row.start; t < plan.axes; ++t) want.push_back(t);
    for (unsigned t = 0; t < (row.rotated ? row.start + 1 : plan.axes); ++t) want.push_back(t);
    EXPECT_EQ(axes, want) << row.label;
  }
}

// The compact layout: R data sets of which rho start elsewhere take
// R + s - 1 - rho columns for rho <= s - 2, R + 1 for rho = s - 1, and
// R + (rho - s + 1) beyond (the extra exchanges all fall on axis 0), given at
// least two data sets start on axis 0 (with one, a rotated set may wait a column).
TEST(ConcurrentPlan, CompactLayoutColumns) {
  for (unsigned s = 2; s <= 9; ++s)
    for (std::uint64_t standard = 1; standard <= 12; ++standard)
      for (std::uint64_t rho = 0; rho <= 2 * s; ++rho) {
        const ConcurrentPlan plan = place_data_sets(s, standard, rho, RotationLayout::compact);
        SCOPED_TRACE(testing::Message() << "s = " << s << ", standard " << standard << ", rotated " << rho);
        expect_valid(plan);
        const std::uint64_t R = standard + rho;
        const std::uint64_t want =
            rho + 2 <= s ? R + s - 1 - rho : R + std::max<std::uint64_t>(1, rho - (s - 1));
        if (standard >= 2) {
          EXPECT_EQ(plan.columns, want);
        } else {
          EXPECT_LE(plan.columns, want + 1);
        }
      }
  for (unsigned s = 3; s <= 8; ++s)
    for (std::uint64_t rho = 0; rho <= 2 * s; ++rho) expect_valid(place_data_sets(s, 5, rho, RotationLayout::paper));
}

struct Regime {
  unsigned d, s, m;
  const char* name;
};

// Theorem 2's three regimes, and the schedule's count beside the bound. When d
// divides K/2 and d <= 4 the schedule meets the bound; for d = 3 Algorithm 1's
// last group of fewer than d pairs costs less than d cycles more.
TEST(Theorem2, EachRegimeMeetsTheBound) {
  const Regime regimes[] = {
      {2, 2, 4, "s <= 3"},           {2, 3, 5, "s <= 3"},         {1, 5, 3, "K <= 8d"},
      {2, 4, 4, "K <= 8d"},          {2, 8, 5, "8d <= K <= 2(s+1)d"}, {2, 10, 5, "8d <= K <= 2(s+1)d"},
      {2, 6, 5, "K >= 2(s+1)d"},     {4, 4, 8, "K >= 2(s+1)d"},   {4, 5, 9, "K >= 2(s+1)d"},
      {1, 4, 4, "K >= 2(s+1)d"},     {3, 4, 6, "K >= 2(s+1)d"},   {3, 6, 7, "K >= 2(s+1)d"},
  };
  for (const Regime& r : regimes) {
    const ConcurrentDesign design = design_concurrent(options(r.d, r.s, r.m));
    const std::uint64_t bound = theorem2(r.d, r.m, r.s), half = std::uint64_t{1} << (r.m - 1);
    EXPECT_EQ(theorem2_bound(r.d, r.m, r.s).cycles, bound);
    const std::string line = fmt::format("d = {}, s = {}, m = {} ({}): {} cycles, Theorem 2: {}, {} rotated rows", r.d,
                                         r.s, r.m, r.name, design.cycles, bound, design.rotated_rows);
    std::cout << "[ theorem 2 ] " << line << "\n";
    SCOPED_TRACE(line);
    if (half % r.d == 0)
      EXPECT_LE(design.cycles, bound);
    else
      EXPECT_LT(design.cycles, bound + r.d);
    // Never worse than pipelining Algorithm 1 (no rotated rows): d ceil(K/2d) + (s - 1) d.
    EXPECT_LE(design.cycles, r.d * ceil_div(half, r.d) + (r.s - 1) * r.d);
  }
  EXPECT_EQ(theorem2_bound(2, 5, 8).source, "Theorem 2, 8d <= K <= 2(s+1)d");
  EXPECT_EQ(theorem2_bound(2, 5, 6).source, "Theorem 2, K >= 2(s+1)d");
  EXPECT_EQ(theorem2_bound(2, 4, 2).source, "Theorem 2, s <= 3 or K <= 8d");
}

// Every (d, s, m) with d <= 4 and d | K/2 in a wide range: the planner meets Theorem 2.
TEST(Theorem2, MetForEveryPowerOfTwoDUpTo4) {
  for (unsigned d : {1u, 2u, 4u})
    for (unsigned s = 1; s <= 12; ++s)
      for (unsigned m = 2 * d; m <= 2 * d + 4; ++m) {
        if (s * d + m > kMaxAddressBits) continue;
        EXPECT_LE(design_concurrent(options(d, s, m)).cycles, theorem2(d, m, s)) << "d = " << d << ", s = " << s << ", m = " << m;
      }
}

// Algorithm 5 as the planner runs it (the concurrent plan in columns or skewed, or pipelining with
// Algorithm 4 where that is fewer: the pairs skewed bit by bit take K/2 + s - 1 where K/2 >= n)
// against Theorem 2 on every machine with d <= 8, s <= 16, 2d <= m <= 12: met or beaten everywhere
// (docs/multi-aapc.md, "Theorem 2"). Small ones run the planned schedule's count.
TEST(Theorem2, MetByAlgorithm5OnEveryMachine) {
  std::size_t machines = 0;
  for (unsigned d = 1; d <= 8; ++d)
    for (unsigned s = 2; s <= 16; ++s)
      for (unsigned m = 2 * d; m <= 12 && s * d + m <= kMaxAddressBits; ++m) {
        SCOPED_TRACE(::testing::Message() << "d = " << d << ", s = " << s << ", m = " << m);
        MultiAapcRequest r;
        r.axes = s;
        r.dims = std::to_string(d);
        r.m = m;
        r.algorithm = "5";
        const MultiAapcDesign p = plan_multi_aapc(r);
        const std::uint64_t half = std::uint64_t{1} << (m - 1);
        const std::uint64_t pairs = half % d == 0 ? half + (s - 1) * d : half + (s - 1) * (d + half % d);
        const std::uint64_t pipelined = std::min(pairs, skewed_pipeline_cycles(std::vector<unsigned>(s, d), m));
        const std::uint64_t cycles = p.kind == MultiAapcKind::concurrent ? p.design.cycles : pipelined;
        if (p.kind == MultiAapcKind::concurrent) {
          EXPECT_LE(cycles, pipelined);
        }
        ++machines;
        EXPECT_LE(cycles, theorem2(d, m, s));
        if (p.kind == MultiAapcKind::concurrent && p.design.layout == RotationLayout::skewed) {
          EXPECT_EQ(cycles, skewed_count(d, s, m, p.design.rotated_rows / d));
        }
        if (s * d + m <= 13) {
          EXPECT_EQ(check_schedule(make_multi_aapc_schedule(p)).cycles, cycles);
        }
      }
  EXPECT_GT(machines, 300u);
}

// Where Algorithm 5 as hcube plans it takes fewer cycles than Theorem 2's count
// (docs/beyond-the-papers.md): a row of rotated sets fits the idle columns, so
// three or more axes cost no more columns than two.
TEST(Theorem2, BeatenWhereTheRotatedRowsFitTheIdleColumns) {
  struct Row {
    unsigned d, s, m;
    std::uint64_t hcube, theorem;
  };
  for (const Row& r : {Row{1, 3, 4, 9, 10}, Row{1, 8, 4, 9, 11}, Row{2, 3, 6, 34, 36}, Row{3, 3, 8, 132, 134},
                       Row{4, 4, 10, 516, 520}, Row{2, 4, 4, 10, 14}, Row{2, 8, 5, 18, 22}}) {
    SCOPED_TRACE(::testing::Message() << "d = " << r.d << ", s = " << r.s << ", m = " << r.m);
    EXPECT_EQ(theorem2(r.d, r.m, r.s), r.theorem);
    EXPECT_EQ(design_concurrent(options(r.d, r.s, r.m)).cycles, r.hcube);
  }
}

TEST(ConcurrentOptions, BadInputIsRejected) {
  const auto rejects = [](unsigned d, unsigned s, unsigned m, long long rows, RotationLayout layout,
                          const char* mention) {
    try {
      design_concurrent(options(d, s, m, layout, rows));
      ADD_FAILURE() << "accepted d = " << d << ", s = " << s << ", m = " << m;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
  };
  rejects(2, 3, 3, -1, RotationLayout::compact, "spare memory axis");
  rejects(2, 0, 4, -1, RotationLayout::compact, "s = 0");
  rejects(0, 2, 4, -1, RotationLayout::compact, "d = 0");
  rejects(2, 3, 4, 3, RotationLayout::compact, "0..2");
  rejects(2, 2, 4, 1, RotationLayout::paper, "s >= 3");
  rejects(2, 1, 4, 1, RotationLayout::compact, "s >= 2");
  EXPECT_THROW(parse_rotation_layout("zigzag"), Error);
}

class ConcurrentRun : public BackendTest {
 protected:
  // A sequence on axes of unequal orders, built, checked and run bit for bit
  // against the generalized shuffle (shuffle_destination) with its two alignments.
  std::uint64_t run_unequal(AapcAlgorithm alg, const std::vector<unsigned>& dims, unsigned m, bool pipelined) {
    AapcSequenceOptions o;
    o.algorithm = alg;
    o.m = m;
    o.pipelined = pipelined;
    o.dims = dims;
    const Schedule sch = make_aapc_sequence(o);
    check_schedule(sch);
    const unsigned n = std::accumulate(dims.begin(), dims.end(), 0u);
    auto mach = make_labelled(n, m);
    const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                            shuffle_destination(mach->geometry(), dims));
    const AffineMap id(mach->geometry());
    run_schedule(*mach, sch, id, id);
    EXPECT_EQ(mach->read(), expected);
    EXPECT_EQ(mach->counters().alignments, 2u);
    return sch.cycles();
  }

  // An Algorithm 5 schedule (s axes of d) run bit for bit against the shuffle; the alignments it ran.
  std::uint64_t run_against_shuffle(const Schedule& sch, ElementType type = ElementType::u32) {
    auto mach = make_labelled(sch.n, sch.m, type);
    const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                            shuffle_destination(mach->geometry(), sch.d, sch.axes));
    const AffineMap id(mach->geometry());
    run_schedule(*mach, sch, id, id);
    EXPECT_EQ(mach->read(), expected);
    EXPECT_EQ(mach->counters().kernel_launches, sch.cycles() + mach->counters().alignments);
    return mach->counters().alignments;
  }

  // A design's schedule written to JSON, read back and run.
  Schedule round_trip(const ConcurrentOptions& o, const ConcurrentDesign& design) {
    const Schedule sch = make_concurrent_schedule(o, design);
    Schedule back = schedule_from_json(nlohmann::json::parse(to_json(sch).dump()), "round trip");
    EXPECT_EQ(back.pre, AlignmentKind::concurrent);
    EXPECT_EQ(back.rotated_rows, design.rotated_rows);
    EXPECT_EQ(back.cycles(), sch.cycles());
    run_against_shuffle(back);
    return back;
  }
};

// Bit for bit against the shuffle, for both layouts and every forced number of rotated rows.
TEST_P(ConcurrentRun, ShuffleForEveryLayoutAndRowCount) {
  const auto& types = all_element_types();
  std::size_t k = 0;
  for (unsigned d = 1; d <= 3; ++d)
    for (unsigned s = 1; s <= 6; ++s)
      for (unsigned m : {2 * d, 2 * d + 1}) {
        if (s * d + m > 15) continue;
        const std::uint64_t rows = std::uint64_t{1} << (m - d - 1);
        for (RotationLayout layout : {RotationLayout::compact, RotationLayout::paper})
          for (long long r = -1; r <= static_cast<long long>(std::min<std::uint64_t>(rows, 3)); ++r) {
            if (r > 0 && s < (layout == RotationLayout::paper ? 3u : 2u)) continue;
            const ConcurrentOptions o = options(d, s, m, layout, r);
            const ConcurrentDesign design = design_concurrent(o);
            const Schedule sch = make_concurrent_schedule(o, design);
            SCOPED_TRACE(testing::Message() << "d = " << d << ", s = " << s << ", m = " << m << ", "
                                            << to_string(layout) << ", rotated rows " << design.rotated_rows);
            const ScheduleStats st = check_schedule(sch);  // legal: no word in two exchanges, one word per channel
            EXPECT_EQ(st.cycles, design.cycles);
            if (design.layout == RotationLayout::skewed) continue;  // SkewedLayoutBitForBit runs those
            // One launch per routing cycle; two alignments, plus one each for the rotated rows.
            EXPECT_EQ(run_against_shuffle(sch, types[k++ % types.size()].type), design.rotated_rows > 0 ? 4u : 2u);
            // Every pair crosses every dimension of every axis once, rotated pairs one axis twice.
            std::uint64_t steps = 0;
            for (const PlanRow& row : design.plan.rows) steps += row.steps.size();
            EXPECT_LE(st.exchanges, steps * d * d);
            EXPECT_EQ(st.exchanges, (design.standard_pairs * s + design.rotated_pairs * (s + 1)) * d);
          }
      }
}

// The schedule is data: saved, loaded and run again, with its alignments.
TEST_P(ConcurrentRun, ScheduleFileRoundTrip) {
  const ConcurrentOptions o = options(2, 4, 5);
  const ConcurrentDesign design = design_concurrent(o);
  ASSERT_GT(design.rotated_rows, 0u);
  nlohmann::json bad = to_json(round_trip(o, design));
  bad["rotated_rows"] = 99;
  EXPECT_THROW(check_schedule(schedule_from_json(bad, "bad")), Error);
}

// Sec. 4.1: pipelined Algorithm 1 on axes of non-increasing orders, AAPC i
// starting d_(i-1) + (d_i - gcd(d_(i-1), d_i)) cycles after AAPC i-1. The
// formula counts whole groups: with K/2 >= lcm(d_(i-1), d_i) the schedule
// takes exactly that; below it a short last group lets AAPC i start sooner.
TEST_P(ConcurrentRun, UnequalOrdersPipelineWithTheGcdDelay) {
  const std::vector<std::vector<unsigned>> cases = {{2, 1},    {3, 2},    {3, 2, 2}, {3, 3, 2},
                                                    {4, 3, 2}, {4, 2, 1}, {4, 3},    {3, 1, 1}};
  for (const auto& dims : cases)
    for (unsigned extra : {0u, 1u, 2u})
      for (bool pipelined : {true, false}) {
        const unsigned m = dims[0] + extra;
        const std::uint64_t half = std::uint64_t{1} << (m - 1);
        std::uint64_t want = dims.back() * ceil_div(half, dims.back());
        bool whole_groups = true;
        for (std::size_t i = 1; i < dims.size(); ++i) {
          want += pipelined ? dims[i - 1] + dims[i] - std::gcd(dims[i - 1], dims[i])
                            : dims[i - 1] * ceil_div(half, dims[i - 1]);
          whole_groups = whole_groups && half >= std::lcm(dims[i - 1], dims[i]);
        }
        SCOPED_TRACE(testing::Message() << "orders " << fmt::format("{}", fmt::join(dims, ",")) << ", m = " << m
                                        << (pipelined ? ", pipelined" : ", sequential"));
        const std::uint64_t cycles = run_unequal(AapcAlgorithm::alg1, dims, m, pipelined);
        EXPECT_EQ(unequal_orders_cycles(dims, m, pipelined), want);
        EXPECT_LE(cycles, want);
        if (whole_groups || !pipelined) {
          EXPECT_EQ(cycles, want);
        }
      }
  // The paper's extra delay, d_i - gcd(d_(i-1), d_i): 1 for 3 -> 2, 0 for 4 -> 2, 2 for 4 -> 3.
  EXPECT_EQ(unequal_orders_cycles({3, 2}, 3), 3u + 1u + 2u * 2u);
  EXPECT_EQ(unequal_orders_cycles({4, 2}, 4), 4u + 0u + 2u * 4u);
  EXPECT_EQ(unequal_orders_cycles({4, 3}, 4), 4u + 2u + 3u * 3u);
  // K/2 = 8 < lcm(4, 3): AAPC 1's pairs leave at cycles 3 (x4) and 7 (x4), AAPC 2's groups of 3
  // start at 0 (x3), 3 (x3), 6 (x2): the lag is max(3 - 0, 7 - 3) + 1 = 5, not 4 + 3 - 1 = 6.
  EXPECT_EQ(run_unequal(AapcAlgorithm::alg1, {4, 3}, 4, true), 5u + 9u);
}

// Algorithms 3 and 4 on unequal orders (sec. 4.1): every AAPC a pair schedule
// of its own order (Algorithm 3's; Algorithm 4 runs Algorithm 1's where the
// order divides K/2, which then has the same windows as Algorithm 3's, or
// Algorithm 1's throughout when that is fewer), AAPC i's slots taking the
// pairs in the order they leave AAPC i-1.
TEST_P(ConcurrentRun, UnequalOrdersWithAlgorithms3And4) {
  const std::vector<std::vector<unsigned>> cases = {{3, 2}, {3, 2, 2}, {3, 3, 2}, {4, 3}, {4, 3, 2, 1}, {5, 3}, {2, 1}};
  for (const auto& dims : cases)
    for (unsigned extra : {0u, 1u})
      for (bool pipelined : {true, false}) {
        const unsigned m = dims[0] + extra;
        if (std::accumulate(dims.begin(), dims.end(), 0u) + m > 14) continue;
        SCOPED_TRACE(testing::Message() << "orders " << fmt::format("{}", fmt::join(dims, ",")) << ", m = " << m
                                        << (pipelined ? ", pipelined" : ", sequential"));
        const std::uint64_t half = std::uint64_t{1} << (m - 1);
        const std::uint64_t a1 = run_unequal(AapcAlgorithm::alg1, dims, m, pipelined);
        const std::uint64_t a3 = run_unequal(AapcAlgorithm::alg3, dims, m, pipelined);
        const std::uint64_t a4 = run_unequal(AapcAlgorithm::alg4, dims, m, pipelined);
        const std::vector<std::vector<unsigned>> found = {{3, 2}, {3, 2, 2}, {3, 3, 2}, {2, 1}};
        if (pipelined && m == dims[0] && std::find(found.begin(), found.end(), dims) != found.end()) {
          // The SAT solver's schedules (tests/data/corollary2/): the farthest word's distance.
          EXPECT_EQ(a4, std::accumulate(dims.begin(), dims.end(), 0u));
          EXPECT_LT(a4, std::min(a1, a3));
        } else if (pipelined) {
          // The fewest of Algorithm 1's and 3's pair pipelines and the pairs skewed bit by bit:
          // K/2 + s - 1 where K/2 >= n, never fewer than max(K/2 + s - 1, n).
          const std::uint64_t n = std::accumulate(dims.begin(), dims.end(), std::uint64_t{0});
          EXPECT_LE(a4, std::min(a1, a3));
          EXPECT_GE(a4, std::max<std::uint64_t>(half + dims.size() - 1, n));
          if (half >= n) {
            EXPECT_EQ(a4, half + dims.size() - 1);
          }
        } else {
          EXPECT_EQ(a4, std::min(a1, a3));
        }
        // Every channel of the last axis is busy K/2 / d_s cycles at best, and pipelining
        // cannot start it before a pair has crossed the earlier axes' dimensions.
        std::uint64_t before = 0;
        for (std::size_t i = 0; i + 1 < dims.size(); ++i) before += dims[i];
        EXPECT_GE(a3, half + (pipelined ? before : (dims.size() - 1) * half));
        if (!pipelined) {
          EXPECT_EQ(a3, dims.size() * half);  // Algorithm 3 takes K/2 cycles for any order
        }
      }
  // Worked by hand (docs/multi-aapc.md). (3,2), K/2 = 4: Algorithm 3 on order 3 is Algorithm 2 on
  // all 4 pairs, which leave at cycles 2, 3, 3, 3; order 2 takes them in windows starting 0, 0, 2, 2:
  // lag max(2, 3, 1, 1) + 1 = 4, 8 cycles (K/2 + d_1 = 7).
  EXPECT_EQ(run_unequal(AapcAlgorithm::alg3, {3, 2}, 3, true), 8u);
  // (4,3), K/2 = 16: order 4 releases pairs at 3, 7, 11, 15 (four each); order 3 (16 mod 3 = 1:
  // Algorithm 2 on 4 pairs, windows starting 0, 0, 0, 1, then groups of 3 at 4, 7, 10, 13) needs a
  // lag of 15 - 10 + 1 = 6: 22 cycles, against Algorithm 1's 6 + 3 ceil(16/3) = 24.
  EXPECT_EQ(run_unequal(AapcAlgorithm::alg3, {4, 3}, 5, true), 22u);
  EXPECT_EQ(run_unequal(AapcAlgorithm::alg4, {4, 3}, 5, true), 17u);  // skewed pairs: 16 + 2 - 1
  // Below n pairs (4,3,2,1 on K = 16: 8 pairs, n = 10) skewed rows in chunks: 12 (derived 17).
  EXPECT_EQ(run_unequal(AapcAlgorithm::alg4, {4, 3, 2, 1}, 4, true), 12u);
  EXPECT_EQ(run_unequal(AapcAlgorithm::alg1, {4, 3}, 5, true), 24u);
}

TEST(UnequalOrders, BadInputIsRejected) {
  AapcSequenceOptions o;
  o.algorithm = AapcAlgorithm::alg1;
  o.dims = {2, 3};
  EXPECT_THROW(make_aapc_sequence(o), Error);  // increasing
  o.dims = {3, 2};
  o.algorithm = AapcAlgorithm::alg2;
  EXPECT_THROW(make_aapc_sequence(o), Error);  // Algorithm 2's pairs span K/2 cycles
  o.algorithm = AapcAlgorithm::alg1;
  o.m = 2;
  EXPECT_THROW(make_aapc_sequence(o), Error);  // m below d_1
  o.m = 0;
  o.dims = {3, 0};
  EXPECT_THROW(make_aapc_sequence(o), Error);
}

// An alignment on part of the memory must keep that part and run in place.
TEST(AlignmentStep, RangeMustBeKeptAndTheMapAnInvolution) {
  const Geometry geo{2, 4};
  const AffineMap swap_low = AffineMap::permute_bits(geo, {1, 0, 2, 3});  // an involution on bits 0, 1
  EXPECT_NO_THROW(check_alignment_step(AlignmentStep(swap_low, 4, 12)));
  EXPECT_THROW(check_alignment_step(AlignmentStep(swap_low, 2, 6)), Error);  // bit 1 moves words out of [2, 6)
  const AffineMap rotate = AffineMap::permute_bits(geo, {1, 2, 0, 3});       // not an involution
  EXPECT_THROW(check_alignment_step(AlignmentStep(rotate, 0, 8)), Error);
  EXPECT_THROW(check_alignment_step(AlignmentStep(swap_low, 8, 4)), Error);
  EXPECT_THROW(check_alignment_step(AlignmentStep(swap_low, 0, 32)), Error);
  EXPECT_NO_THROW(check_alignment_step(AlignmentStep(rotate)));  // the whole memory: any bijection
}

// The skewed layout, every number of rows it takes, bit for bit against the shuffle: pairs
// skewed bit by bit, R = rows 2^d pairs a bit rotated into the pipeline's idle corners.
TEST_P(ConcurrentRun, SkewedLayoutBitForBit) {
  const auto& types = all_element_types();
  std::size_t k = 0, runs = 0;
  for (unsigned d = 1; d <= 2; ++d)
    for (unsigned s = 1; s <= 9; ++s)
      for (unsigned m = 2 * d; s * d + m <= 15; ++m) {
        const std::uint64_t half = std::uint64_t{1} << (m - 1);
        if (half < s * d) continue;
        for (std::uint64_t rows = 0; (rows << d) <= s - 1 && rows * d <= (half >> d); ++rows) {
          const ConcurrentOptions o = options(d, s, m, RotationLayout::skewed, static_cast<long long>(rows * d));
          const ConcurrentDesign design = design_concurrent(o);
          const Schedule sch = make_concurrent_schedule(o, design);
          SCOPED_TRACE(testing::Message() << "d = " << d << ", s = " << s << ", m = " << m << ", rows a bit " << rows);
          EXPECT_EQ(design.cycles, skewed_count(d, s, m, rows));
          const ScheduleStats st = check_schedule(sch);  // no word in two exchanges, one word per channel
          EXPECT_EQ(st.cycles, design.cycles);
          // Every pair crosses each dimension once in each bit; a rotated one its start axis twice.
          EXPECT_EQ(st.exchanges, (half * s + (rows << d)) * d);
          // The global alignments, and one a bit on its block of rotated rows, before and after.
          EXPECT_EQ(run_against_shuffle(sch, types[k++ % types.size()].type), rows > 0 ? 2 + 2 * d : 2);
          ++runs;
        }
      }
  EXPECT_GT(runs, 20u);
}

// A skewed schedule is data too: its blocks of rows rotated bit by bit travel in the file.
TEST_P(ConcurrentRun, SkewedScheduleFileRoundTrip) {
  const ConcurrentOptions o = options(2, 5, 5, RotationLayout::skewed);
  const ConcurrentDesign design = design_concurrent(o);
  ASSERT_EQ(design.rotated_rows, 2u);  // a row of 4 pairs in each of the 2 bits
  const Schedule back = round_trip(o, design);
  EXPECT_TRUE(back.rotated_by_bit);
  EXPECT_EQ(back.cycles(), 17u);  // 16 - 4 + max(4, 5); Theorem 2: 20
  nlohmann::json bad = to_json(back);
  bad["rotated_rows"] = 3;
  EXPECT_THROW(check_schedule(schedule_from_json(bad, "bad")), Error);  // not a block a bit
  bad["rotated_rows"] = 2;
  bad["rotated_by_bit"] = 1;
  EXPECT_THROW(schedule_from_json(bad, "bad"), Error);
  bad["rotated_by_bit"] = true;
  bad["pre"] = bad["post"] = "xor-align";
  bad["rotated_rows"] = 0;
  EXPECT_THROW(check_schedule(schedule_from_json(bad, "bad")), Error);  // concurrent alignments only
}

// Where the word at (node, local) ends, followed one exchange at a time from the schedule's own
// semantics (node j with bit dim clear swaps its word at addr xor L(j) with the word of j xor
// 2^dim at peer_addr xor L(j xor 2^dim)): machines too large to hold are checked on samples.
std::uint64_t follow_word(const Schedule& sch, const std::vector<AlignmentStep>& pre,
                          const std::vector<AlignmentStep>& post, std::uint64_t node, std::uint64_t local) {
  const auto align = [&](const std::vector<AlignmentStep>& steps) {
    for (const AlignmentStep& a : steps)
      if (local >= a.lo && local < a.end()) local = a.map.apply(node, local);
  };
  const auto touched = [&](const Exchange& e, std::uint64_t j) {
    const std::uint64_t offset = e.offset_map ? apply_offset(sch.offset_maps[e.offset_map - 1], j) : 0;
    return (((j >> e.dim) & 1) != 0 ? e.peer_addr : e.addr) ^ offset;
  };
  align(pre);
  for (std::size_t c = 0; c < sch.cycles(); ++c)
    for (const Exchange& e : sch.cycle(c))
      if (touched(e, node) == local) {
        node ^= std::uint64_t{1} << e.dim;
        local = touched(e, node);
        break;  // the checker has shown no word takes part in two exchanges of a cycle
      }
  align(post);
  return (node << sch.m) | local;
}

// Where the skewed layout meets or beats Theorem 2 but the machine is too large to run (d = 3
// needs s >= 9 axes for a row of 8 pairs): checked, and 4000 words a machine followed to the
// shuffle's destination. Theorem 2's K/2 + 2d at s = 14, 15 was one cycle out of reach before.
TEST(SkewedLayout, LargeMachinesFollowedWordByWord) {
  struct Row {
    unsigned d, s, m;
    std::uint64_t cycles;
  };
  for (const Row& r : {Row{3, 14, 8, 133}, Row{3, 15, 8, 134}, Row{3, 14, 10, 517}, Row{3, 9, 8, 129},
                       Row{3, 12, 9, 259}, Row{2, 13, 7, 65}, Row{1, 20, 6, 33}, Row{1, 9, 5, 17}}) {
    SCOPED_TRACE(::testing::Message() << "d = " << r.d << ", s = " << r.s << ", m = " << r.m);
    const ConcurrentOptions o = options(r.d, r.s, r.m, RotationLayout::skewed);
    const ConcurrentDesign design = design_concurrent(o);
    EXPECT_EQ(design.cycles, r.cycles);
    EXPECT_LE(design.cycles, theorem2(r.d, r.m, r.s));
    const Schedule sch = make_concurrent_schedule(o, design);
    EXPECT_EQ(check_schedule(sch).cycles, r.cycles);
    const Geometry geo{r.s * r.d, r.m};
    const AffineMap id(geo);
    const auto pre = concurrent_pre_alignment(geo, r.d, r.s, design.rotated_rows, true, id);
    const auto post = concurrent_post_alignment(geo, r.d, r.s, design.rotated_rows, true, id);
    const AddressMap to = shuffle_destination(geo, r.d, r.s);
    std::mt19937_64 rng(r.s * 1000 + r.m);
    for (int w = 0; w < 4000; ++w) {
      // The first 256: 64 local addresses on each of the nodes 0, 0101..., 1010..., 1111...; then random words.
      const std::uint64_t node = (w < 256 ? (w >> 6) * 0x5555555555555555ULL : rng()) & (geo.nodes() - 1);
      const std::uint64_t local = (w < 256 ? static_cast<std::uint64_t>(w) : rng()) & ((std::uint64_t{1} << r.m) - 1);
      ASSERT_EQ(follow_word(sch, pre, post, node, local), to((node << r.m) | local)) << "node " << node << " local " << local;
    }
  }
}

TEST(SkewedLayout, BadInputIsRejected) {
  const auto rejects = [](unsigned d, unsigned s, unsigned m, long long rows, const char* mention) {
    try {
      design_concurrent(options(d, s, m, RotationLayout::skewed, rows));
      ADD_FAILURE() << "accepted d = " << d << ", s = " << s << ", m = " << m << ", rows " << rows;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
  };
  rejects(2, 5, 4, -1, "K/2 >= s d");          // 8 pairs, 10 dimensions
  rejects(2, 5, 5, 1, "multiples of d = 2");    // a row is rotated in one bit
  rejects(2, 5, 5, 4, "up to 2");               // 8 rotated pairs a bit > s - 1 = 4
  rejects(3, 8, 8, 3, "up to 0");               // a row of 8 pairs is more than s - 1 = 7
  EXPECT_EQ(parse_rotation_layout("skewed"), RotationLayout::skewed);
  EXPECT_EQ(to_string(RotationLayout::skewed), "skewed");
}

HCUBE_ON_EVERY_BACKEND(ConcurrentRun);

}  // namespace
}  // namespace hcube

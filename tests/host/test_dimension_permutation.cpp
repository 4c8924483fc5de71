// Stable dimension permutations (Ho & Johnsson 1988), the analysis layer: the
// --perm forms, the decomposition into generalized shuffles with the paper's
// classification and counts, and Theorem 1's lower bound, each against values
// written by hand from the definitions.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <unordered_set>

#include "backend_test.hpp"
#include "hcube/emulator/sdp_run.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/host/sdp_planner.hpp"
#include "hcube/host/sdp_schedules.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

// A permutation with the given real cycles on processor bits (paper numbering r -> bit m + r).
DimensionPermutation real_cycles(unsigned n, unsigned m, const std::vector<std::vector<unsigned>>& cycles) {
  DimensionPermutation p;
  p.n = n;
  p.m = m;
  p.to.resize(n + m);
  std::iota(p.to.begin(), p.to.end(), 0u);
  for (const auto& c : cycles)
    for (std::size_t k = 0; k < c.size(); ++k) p.to[m + c[k]] = m + c[(k + 1) % c.size()];
  return p;
}

// A random permutation of the n + m address bits.
DimensionPermutation random_permutation(unsigned n, unsigned m, std::mt19937& rng) {
  DimensionPermutation p;
  p.n = n;
  p.m = m;
  p.to.resize(n + m);
  std::iota(p.to.begin(), p.to.end(), 0u);
  std::shuffle(p.to.begin(), p.to.end(), rng);
  return p;
}

std::string error_of(const std::string& text, unsigned n, unsigned m) {
  try {
    parse_dimension_permutation(text, n, m);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(DimensionPermutation, NamedForms) {
  // n = m = 3: the transpose exchanges node and local fields, (j|i) -> (i|j).
  const DimensionPermutation t = parse_dimension_permutation("transpose", 3, 3);
  for (std::uint64_t j = 0; j < 8; ++j)
    for (std::uint64_t i = 0; i < 8; ++i) EXPECT_EQ(t.apply(j * 8 + i), i * 8 + j);
  EXPECT_EQ(parse_dimension_permutation("bit-reversal", 2, 3).to, (std::vector<unsigned>{4, 3, 2, 1, 0}));
  EXPECT_EQ(parse_dimension_permutation("shuffle:1", 2, 2).to, (std::vector<unsigned>{1, 2, 3, 0}));
  EXPECT_EQ(parse_dimension_permutation("unshuffle:1", 2, 2).to, (std::vector<unsigned>{3, 0, 1, 2}));
  EXPECT_EQ(parse_dimension_permutation("swap-axes:0:4:2", 3, 3).to, (std::vector<unsigned>{4, 5, 2, 3, 0, 1}));
  EXPECT_EQ(parse_dimension_permutation("2,0,1", 1, 2).to, (std::vector<unsigned>{2, 0, 1}));
  // Source bit i lands at to[i]: shuffle:1 on 4 bits takes 0b0001 to 0b0010, 0b1000 to 0b0001.
  const DimensionPermutation s = parse_dimension_permutation("shuffle:1", 2, 2);
  EXPECT_EQ(s.apply(0b0001), 0b0010u);
  EXPECT_EQ(s.apply(0b1000), 0b0001u);
}

TEST(DimensionPermutation, BadInputNamesTheValue) {
  EXPECT_NE(error_of("0,1,2", 2, 2).find("lists 3 bits"), std::string::npos);
  EXPECT_NE(error_of("0,1,2,4", 2, 2).find("= 4 out of range: allowed 0..3"), std::string::npos);
  EXPECT_NE(error_of("0,1,1,3", 2, 2).find("not a permutation"), std::string::npos);
  EXPECT_NE(error_of("rotate", 2, 2).find("'rotate' unknown"), std::string::npos);
  EXPECT_NE(error_of("transpose", 2, 1).find("even"), std::string::npos);
  EXPECT_NE(error_of("swap-axes:0:1:2", 2, 2).find("not overlap"), std::string::npos);
  EXPECT_NE(error_of("shuffle", 2, 2).find("takes 1 argument"), std::string::npos);
  EXPECT_NE(error_of("shuffle:x", 2, 2).find("'x'"), std::string::npos);
}

// Found by tests/fuzz (perm): a newline in --perm split the one-line error message.
TEST(DimensionPermutation, BadTextIsQuotedOnOneLine) {
  EXPECT_EQ(error_of("bit-reversal\n", 2, 2).rfind("PermutePlan::Options::perm 'bit-reversal\\n' unknown: ", 0), 0u);
  EXPECT_EQ(error_of("shuffle:1:\n", 2, 2),
            "PermutePlan::Options::perm shuffle:1:\\n: 'shuffle' takes 1 argument after ':'");
  EXPECT_EQ(error_of("shuffle:\n", 2, 2), "PermutePlan::Options::perm shuffle k '\\n' is not a non-negative integer");
  EXPECT_EQ(error_of("0,1\n,2,3", 2, 2),
            "PermutePlan::Options::perm '0,1\\n,2,3' malformed: field '1\\n' is not a non-negative integer");
  EXPECT_EQ(error_of("swap-axes:0:1:2\x85", 2, 2),
            "PermutePlan::Options::perm swap-axes w '2\\x85' is not a non-negative integer");
}

// The paper's Table 1 permutation: real cycles of orders 4, 3 and 2 (J0 = 0..3,
// J1 = 4..6, J2 = 7, 8 in the paper's processor numbering), here on processor
// bits m.. of n = 9, m = 2.
TEST(DimensionPermutation, AnalysisOfTable1sPermutation) {
  std::vector<unsigned> to = {0, 1};  // storage bits stay
  const unsigned m = 2;
  for (unsigned b : {1u, 2u, 3u, 0u}) to.push_back(m + b);
  for (unsigned b : {5u, 6u, 4u}) to.push_back(m + b);
  for (unsigned b : {8u, 7u}) to.push_back(m + b);
  DimensionPermutation p;
  p.n = 9;
  p.m = m;
  p.to = to;
  const DimensionPermutationAnalysis a = analyze(p);
  ASSERT_EQ(a.beta, 3u);
  EXPECT_EQ(a.cycles[0].bits, (std::vector<unsigned>{2, 3, 4, 5}));
  EXPECT_EQ(a.cycles[1].bits, (std::vector<unsigned>{6, 7, 8}));
  EXPECT_EQ(a.cycles[2].bits, (std::vector<unsigned>{9, 10}));
  for (const ShuffleCycle& c : a.cycles) EXPECT_EQ(c.kind, ShuffleCycle::Kind::real);
  EXPECT_EQ(a.sigma, 9u);
  EXPECT_EQ(a.sigma_p, 9u);
  EXPECT_EQ(a.sigma_s, 0u);
  EXPECT_EQ(a.real_cycles, 3u);
  EXPECT_EQ(a.odd_real_cycles, 1u);  // oJ: the cycle of order 3
  EXPECT_EQ(a.sigma_max, 4u);
  EXPECT_EQ(a.sigma_min, 2u);
  EXPECT_TRUE(a.separable);
  // Theorem 1 with K = 4: one-port max(9 * 2 t_c, (9 - 1) tau), n-port max(2 t_c, 8 tau).
  const DimensionPermutationBound one = lower_bound(a, 4, false, 1.0, 3.0);
  EXPECT_DOUBLE_EQ(one.transfer, 18.0);
  EXPECT_DOUBLE_EQ(one.startups, 24.0);
  EXPECT_DOUBLE_EQ(one.time(), 24.0);
  const DimensionPermutationBound all = lower_bound(a, 4, true, 1.0, 3.0);
  EXPECT_DOUBLE_EQ(all.transfer, 2.0);
  EXPECT_DOUBLE_EQ(all.time(), 24.0);
  EXPECT_THROW(lower_bound(a, 4, true, -1.0, 0.0), Error);
}

// Lemma 3 (real cycle, even and odd order), Lemma 4 (mixed), Corollary 4
// (extended cube), each written from the paper's formula with K = 16, t_c = 1, tau = 5.
TEST(DimensionPermutation, LemmaBoundsAndCorollary4) {
  const DimensionPermutation p = real_cycles(7, 4, {{0, 1, 2}, {3, 4, 5, 6}});  // orders 3 (odd) and 4
  const DimensionPermutationAnalysis a = analyze(p);
  const ShuffleCycle& odd = a.cycles[0];
  const ShuffleCycle& even = a.cycles[1];
  EXPECT_DOUBLE_EQ(shuffle_lower_bound(odd, 16, false, 1, 5).transfer, 3 * 8.0);   // sigma_p K/2 t_c
  EXPECT_DOUBLE_EQ(shuffle_lower_bound(odd, 16, false, 1, 5).startups, 2 * 5.0);   // (sigma_p - 1) tau
  EXPECT_DOUBLE_EQ(shuffle_lower_bound(even, 16, false, 1, 5).startups, 4 * 5.0);  // sigma_p tau
  EXPECT_DOUBLE_EQ(shuffle_lower_bound(even, 16, true, 1, 5).transfer, 8.0);       // K/2 t_c
  const DimensionPermutationAnalysis mixed = analyze(parse_dimension_permutation("shuffle:1", 3, 2));
  EXPECT_DOUBLE_EQ(shuffle_lower_bound(mixed.cycles[0], 16, false, 1, 5).startups, 3 * 5.0);  // Lemma 4: sigma_p tau
  // Corollary 4 with n = 10, m_p = 7 (sigma_p = 7, oJ = 1):
  // one-port max((16 + 7 - 1 - 1), 7 * 16 / 2^4) t_c = 21; n-port max(16/(3 + 7) + 5, 16/16) = 6.6.
  EXPECT_DOUBLE_EQ(extended_cube_lower_bound(a, 16, 10, 7, false, 1, 5).transfer, 21.0);
  EXPECT_DOUBLE_EQ(extended_cube_lower_bound(a, 16, 10, 7, true, 1, 5).transfer, 6.6);
  EXPECT_DOUBLE_EQ(extended_cube_lower_bound(a, 16, 10, 7, true, 1, 5).startups, 30.0);
  EXPECT_THROW(extended_cube_lower_bound(a, 16, 7, 7, true, 1, 5), Error);
}

TEST(DimensionPermutation, MixedVirtualAndBitReversal) {
  // A shuffle of all q bits is one mixed cycle: sigma_p = n, sigma_s = m, not separable.
  const DimensionPermutationAnalysis s = analyze(parse_dimension_permutation("shuffle:1", 3, 2));
  ASSERT_EQ(s.beta, 1u);
  EXPECT_EQ(s.cycles[0].kind, ShuffleCycle::Kind::mixed);
  EXPECT_EQ(s.sigma_p, 3u);
  EXPECT_EQ(s.sigma_s, 2u);
  EXPECT_FALSE(s.separable);
  EXPECT_EQ(s.real_cycles, 0u);
  // Storage bits only: virtual, no communication, a zero bound.
  const DimensionPermutationAnalysis v = analyze(parse_dimension_permutation("1,0,2,3", 2, 2));
  ASSERT_EQ(v.beta, 1u);
  EXPECT_EQ(v.cycles[0].kind, ShuffleCycle::Kind::virtual_);
  EXPECT_EQ(lower_bound(v, 4, false, 1.0, 1.0).time(), 0.0);
  // Bit reversal of q = 7 bits: pairs (0,6), (1,5), (2,4); bit 3 stays.
  const DimensionPermutationAnalysis r = analyze(parse_dimension_permutation("bit-reversal", 4, 3));
  EXPECT_EQ(r.beta, 3u);
  EXPECT_EQ(r.sigma, 6u);
  // Transpose with n = m: every cycle pairs a storage bit with a processor bit: mixed.
  const DimensionPermutationAnalysis t = analyze(parse_dimension_permutation("transpose", 4, 4));
  EXPECT_EQ(t.beta, 4u);
  for (const ShuffleCycle& c : t.cycles) EXPECT_EQ(c.kind, ShuffleCycle::Kind::mixed);
  EXPECT_EQ(to_string(ShuffleCycle::Kind::virtual_), "virtual");
}

}  // namespace
}  // namespace hcube

// --- Algorithm A1, one-port, on the machine ------------------------------------------


namespace hcube {
namespace {

class SdpRun : public BackendTest {
 protected:
  // Runs the plan and compares with the permutation applied word by word.
  void expect_runs(const DimensionPermutation& p, const SdpPlan& plan) {
    auto mach = make_labelled(p.n, p.m);
    const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                            [&](std::uint64_t g) { return p.apply(g); });
    last_ = run_sdp_plan(*mach, plan);
    ASSERT_EQ(mach->read(), expected);
  }
  SdpRunResult last_;
};

TEST_P(SdpRun, A1OnePortForRandomPermutations) {
  std::mt19937 rng(7);
  for (unsigned n = 1; n <= 5; ++n)
    for (unsigned m = 1; m <= 5; ++m)
      for (int trial = 0; trial < 6; ++trial) {
        const DimensionPermutation p = random_permutation(n, m, rng);
        const DimensionPermutationAnalysis a = analyze(p);
        const SdpPlan plan = plan_a1_one_port(p);
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", perm " << fmt::format("{}", fmt::join(p.to, ",")));
        // sigma_p + beta' exchanges of K/2 words, one dimension per cycle.
        EXPECT_EQ(plan.schedule.cycles(), a.sigma_p + a.real_cycles);
        const ScheduleStats st = check_schedule(plan.schedule);
        for (std::uint32_t per : st.exchanges_per_cycle) EXPECT_EQ(per, std::uint64_t{1} << (m - 1));
        expect_runs(p, plan);
      }
}

TEST_P(SdpRun, A1OnePortNamedPermutations) {
  for (const char* name : {"transpose", "bit-reversal", "shuffle:1", "shuffle:3", "unshuffle:2", "swap-axes:0:4:2"}) {
    SCOPED_TRACE(name);
    const DimensionPermutation p = parse_dimension_permutation(name, 4, 4);
    expect_runs(p, plan_a1_one_port(p));
  }
  // A real cycle needs a storage dimension as pivot.
  DimensionPermutation no_memory;
  no_memory.n = 2;
  no_memory.to = {1, 0};
  EXPECT_THROW(plan_a1_one_port(no_memory), Error);
}

// A1 n-port for non-separable permutations (sec. 4.4): A1 one-port's chains as
// commuting blocks, the data parted by the untouched storage bits, part k
// starting at block k. sigma_p + beta' cycles; with as many parts as blocks of
// equal length, each cycle puts K/2P words on each used dimension.
TEST_P(SdpRun, A1NPortForMixedCycles) {
  std::mt19937 rng(29);
  int mixed = 0;
  for (unsigned n = 1; n <= 5; ++n)
    for (unsigned m = 1; m <= 6; ++m)
      for (int trial = 0; trial < 6; ++trial) {
        const DimensionPermutation p = random_permutation(n, m, rng);
        const DimensionPermutationAnalysis a = analyze(p);
        if (a.separable) continue;
        ++mixed;
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", perm " << fmt::format("{}", fmt::join(p.to, ",")));
        const SdpPlan plan = plan_a1_all_port(p);
        EXPECT_EQ(plan.schedule.cycles(), a.sigma_p + a.real_cycles);
        EXPECT_EQ(plan.schedule.rules.model, PortModel::all_port);
        check_schedule(plan.schedule);
        // Never more words on a link than one-port A1 puts there.
        EXPECT_LE(model_plan(plan, 1, 0, bit(m)).element_transfers,
                  model_plan(plan_a1_one_port(p), 1, 0, bit(m)).element_transfers);
        expect_runs(p, plan);
      }
  EXPECT_GE(mixed, 40);
  // Two mixed cycles of one run each, two free storage bits: 2 parts, so every
  // cycle moves K/4 words on each of two dimensions instead of K/2 on one.
  // Bits: storage 0..3, processor 4..5; cycles 0 -> 4 -> 0 and 1 -> 5 -> 1.
  const DimensionPermutation two{2, 4, {4, 5, 2, 3, 0, 1}};
  const SdpPlan plan = plan_a1_all_port(two);
  ASSERT_EQ(plan.schedule.cycles(), 2u);
  const ScheduleStats st = check_schedule(plan.schedule);
  for (std::uint32_t per : st.exchanges_per_cycle) EXPECT_EQ(per, 8u);  // K/2 in all: K/4 on each of 2 dimensions
  EXPECT_EQ(model_plan(plan, 1, 0, 16).element_transfers, 8u);           // 2 cycles of K/4 = 4
  EXPECT_EQ(model_plan(plan_a1_one_port(two), 1, 0, 16).element_transfers, 16u);
  expect_runs(two, plan);
}


// Table 1 of the SDP paper, verbatim: J0 = 0,1,2,3, J1 = 4,5,6, J2 = 7,8; 13 sequences of 12 cycles.
TEST(SdpA4, Table1Sequences) {
  const std::vector<std::string> table1 = {
      "0 1 2 3 0 4 5 6 4 7 8 7", "1 2 3 0 4 5 6 4 7 8 7 1", "2 3 0 4 5 6 4 7 8 7 1 2", "3 0 4 5 6 4 7 8 7 1 2 3",
      "0 4 5 6 4 7 8 7 1 2 3 0", "4 5 6 4 7 8 7 1 2 3 0 1", "5 6 4 7 8 7 1 2 3 0 1 5", "6 4 7 8 7 1 2 3 0 1 5 6",
      "4 7 8 7 1 2 3 0 1 5 6 4", "7 8 7 1 2 3 0 1 5 6 4 5", "8 7 1 2 3 0 1 5 6 4 5 8", "7 1 2 3 0 1 5 6 4 5 8 7",
      "1 2 3 0 1 5 6 4 5 8 7 8"};
  const unsigned m = 5;
  const DimensionPermutation p = real_cycles(9, m, {{0, 1, 2, 3}, {4, 5, 6}, {7, 8}});
  const auto seqs = a4_sequences(analyze(p), p);
  ASSERT_EQ(seqs.size(), 13u);  // sigma_p + beta + sigma_min - 1 = 9 + 3 + 2 - 1
  for (std::size_t k = 0; k < seqs.size(); ++k) {
    std::string row;
    for (unsigned b : seqs[k]) row += (row.empty() ? "" : " ") + std::to_string(b - m);
    EXPECT_EQ(row, table1[k]) << "Seq" << k;
  }
  // Lemma 7: every processor dimension is used by at most two sequences in a cycle.
  for (std::size_t c = 0; c < 12; ++c) {
    std::map<unsigned, int> uses;
    for (const auto& q : seqs) ++uses[q[c]];
    for (const auto& [dim, count] : uses) EXPECT_LE(count, 2) << "cycle " << c << ", dimension " << dim - m;
  }
  const SdpPlan plan = plan_a4(p);
  EXPECT_EQ(plan.schedule.cycles(), 12u);  // sigma_p + beta
  // The paper's cost with B = K/P: (sigma_p + beta) K/P t_c + (sigma_p + beta) tau; K = 32, P = 13: ceil(16/13) pairs a part.
  const SdpModel model = model_plan(plan, 1.0, 10.0, 1 << 20);
  EXPECT_EQ(model.startups, 12u);
  // K too small for the stated complexity: named.
  try {
    plan_a4(real_cycles(9, 4, {{0, 1, 2, 3}, {4, 5, 6}, {7, 8}}));
    ADD_FAILURE() << "A4 accepted K = 16 < 2P = 26";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("K >= 2P = 26"), std::string::npos) << e.what();
  }
}

// Lemma 11 and the SDP paper's examples: Figure 8 (orders 7, 3, 3: f({8, 4, 4}) =
// 16 = sigma_p + beta) and Table 4's A6 start-ups (14, 12, 24 tau for {3,6},
// {2,2,5}, {2,5,11}).
TEST(SdpA6, StartupsOfLemma11) {
  EXPECT_EQ(a6_startups({8, 4, 4}), 16u);
  EXPECT_EQ(a6_startups({4, 7}), 14u);
  EXPECT_EQ(a6_startups({3, 3, 6}), 12u);
  EXPECT_EQ(a6_startups({3, 6, 12}), 24u);
  EXPECT_EQ(a6_startups({5}), 5u);
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::uint64_t> s(1 + rng() % 6);
    std::uint64_t sum = 0;
    for (auto& x : s) sum += (x = 2 + rng() % 9);
    const std::uint64_t f = a6_startups(s);
    EXPECT_GE(f, sum);
    EXPECT_LT(f, 2 * sum);
  }
  // Figure 8's permutation: A6 takes f(S) = 16 cycles.
  const DimensionPermutation p = real_cycles(13, 6, {{0, 1, 2, 3, 4, 5, 6}, {7, 8, 9}, {10, 11, 12}});
  EXPECT_EQ(plan_a6(p).schedule.cycles(), 16u);
}

// Table 4 of the SDP paper (start-up counts, tau's coefficients) for A4 and A6,
// from the schedules themselves with B = K (one packet a cycle): A4 11, 12, 21;
// A6 14, 12, 24 for real cycles of orders {3,6}, {2,2,5}, {2,5,11}.
TEST(SdpTable4, StartupsOfA4AndA6) {
  struct Row {
    std::vector<std::vector<unsigned>> cycles;
    unsigned n;
    std::uint64_t a4, a6;
  };
  const Row rows[] = {
      {{{0, 1, 2}, {3, 4, 5, 6, 7, 8}}, 9, 11, 14},
      {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9, 12, 12},
      {{{0, 1}, {2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}}, 18, 21, 24},
  };
  for (const Row& r : rows) {
    const DimensionPermutation p = real_cycles(r.n, 6, r.cycles);  // K = 64 >= 2P for every row
    const std::uint64_t K = 64;
    EXPECT_EQ(model_plan(plan_a4(p), 1.0, 1.0, K).startups, r.a4) << "A4, n = " << r.n;
    EXPECT_EQ(model_plan(plan_a6(p), 1.0, 1.0, K).startups, r.a6) << "A6, n = " << r.n;
  }
}

// Table 2 of the SDP paper: beta = 2, J0 = 0..7, J1 = 8, 9, 10, gamma = 3. The
// construction reproduces every printed row. Executed on the contents (cycle c
// transposes pivot v_(c mod mu) with the row's entry, a dummy idling), rows
// Seq0..Seq7 realise the permutation on the processor bits and rows Seq8..Seq11
// do not: the paper's construction breaks when a dummy heads a piece (the
// digest's finding), so hcube builds its own rows with dummies (SdpRun.A5ForEveryGamma).
TEST(SdpA5, Table2SequencesAndWhereTheyFail) {
  const std::vector<std::string> table2 = {
      "0 3 6 8 1 4 7 9 2 5 x 10 3 6 0 8",  "3 6 8 0 4 7 9 1 5 x 10 2 6 0 8 3",  "6 8 0 3 7 9 1 4 x 10 2 5 0 8 3 6",
      "8 0 3 6 9 1 4 7 10 2 5 x 8 3 6 0",  "1 4 7 9 2 5 x 10 3 6 0 8 4 7 1 9",  "4 7 9 1 5 x 10 2 6 0 8 3 7 1 9 4",
      "7 9 1 4 x 10 2 5 0 8 3 6 1 9 4 7",  "9 1 4 7 10 2 5 x 8 3 6 0 9 4 7 1",  "2 5 x 10 3 6 0 8 4 7 1 9 5 x 2 10",
      "5 x 10 2 6 0 8 3 7 1 9 4 x 2 10 5", "x 10 2 5 0 8 3 6 1 9 4 7 2 10 5 x", "10 2 5 x 8 3 6 0 9 4 7 1 10 5 x 2"};
  const unsigned m = 4, n = 11;
  const DimensionPermutation p = real_cycles(n, m, {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10}});
  const auto seqs = a5_sequences(analyze(p), 3);
  ASSERT_EQ(seqs.size(), 12u);
  for (std::size_t k = 0; k < seqs.size(); ++k) {
    std::string row;
    for (unsigned b : seqs[k]) row += (row.empty() ? "" : " ") + (b == kA5Dummy ? std::string("x") : std::to_string(b - m));
    EXPECT_EQ(row, table2[k]) << "Seq" << k;
    // Execute the row on the contents: pivots are storage bits 0..mu-1 (mu = 4).
    std::vector<unsigned> at(n + m);
    std::iota(at.begin(), at.end(), 0u);
    for (std::size_t c = 0; c < seqs[k].size(); ++c)
      if (seqs[k][c] != kA5Dummy) std::swap(at[c % 4], at[seqs[k][c]]);
    bool realises = true;
    for (unsigned b = m; b < n + m; ++b) realises = realises && at[p.to[b]] == b;
    EXPECT_EQ(realises, k < 8) << "Seq" << k;
  }
}

TEST_P(SdpRun, NPortAlgorithmsForRandomSeparablePermutations) {
  std::mt19937 rng(11);
  for (unsigned n = 2; n <= 5; ++n)
    for (unsigned m = 2; m <= 6; ++m)
      for (int trial = 0; trial < 4; ++trial) {
        // Random real cycles on the processor bits, a random virtual permutation of the storage bits.
        DimensionPermutation p;
        p.n = n;
        p.m = m;
        p.to.resize(n + m);
        std::vector<unsigned> proc(n), stor(m);
        std::iota(proc.begin(), proc.end(), m);
        std::iota(stor.begin(), stor.end(), 0u);
        std::vector<unsigned> proc_img = proc, stor_img = stor;
        std::shuffle(proc_img.begin(), proc_img.end(), rng);
        std::shuffle(stor_img.begin(), stor_img.end(), rng);
        for (unsigned i = 0; i < n; ++i) p.to[proc[i]] = proc_img[i];
        for (unsigned i = 0; i < m; ++i) p.to[stor[i]] = stor_img[i];
        const DimensionPermutationAnalysis a = analyze(p);
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", perm " << fmt::format("{}", fmt::join(p.to, ",")));
        const SdpPlan a1 = plan_a1_all_port(p);
        check_schedule(a1.schedule);
        EXPECT_EQ(a1.schedule.cycles(), a.real_cycles * (a.sigma_max + 1));
        expect_runs(p, a1);
        const std::uint64_t P = a.sigma_p + a.real_cycles + a.sigma_min - 1;
        const SdpPlan a6 = plan_a6(p);
        check_schedule(a6.schedule);
        expect_runs(p, a6);
        if (a.real_cycles > 0 && (std::uint64_t{1} << m) >= 2 * P) {
          const SdpPlan a4 = plan_a4(p);
          check_schedule(a4.schedule);
          EXPECT_EQ(a4.schedule.cycles(), a.sigma_p + a.real_cycles);
          expect_runs(p, a4);
        }
      }
}

// A2 for any permutation with m >= sigma_p (mixed cycles too): two unaligned
// AAPCs, one-port (standard exchange) or all-port (Algorithm 4, blocked).
TEST_P(SdpRun, A2ForRandomPermutations) {
  std::mt19937 rng(17);
  int ran = 0;
  for (unsigned n = 1; n <= 4; ++n)
    for (unsigned m = 2; m <= 6; ++m)
      for (int trial = 0; trial < 6; ++trial) {
        const DimensionPermutation p = random_permutation(n, m, rng);
        const DimensionPermutationAnalysis a = analyze(p);
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", perm " << fmt::format("{}", fmt::join(p.to, ",")));
        if (m < a.sigma_p) {
          EXPECT_THROW(plan_a2(p, true), Error);
          continue;
        }
        for (bool all : {false, true}) {
          const SdpPlan plan = plan_a2(p, all);
          check_schedule(plan.schedule);
          if (!all) {
            // One standard exchange per phase: sigma_p dimensions, then those whose successor is a processor bit.
            std::uint64_t second = 0;
            for (unsigned b = m; b < n + m; ++b)
              if (p.to[b] != b && p.to[b] >= m) ++second;
            EXPECT_EQ(plan.schedule.cycles(), a.sigma_p + second);
          }
          expect_runs(p, plan);
          ++ran;
        }
      }
  EXPECT_GT(ran, 40);
}

// Words on each dimension of each cycle of a schedule: load[c][d].
std::vector<std::vector<std::uint64_t>> link_loads(const Schedule& s) {
  std::vector<std::vector<std::uint64_t>> load(s.cycles(), std::vector<std::uint64_t>(s.n, 0));
  for (std::size_t c = 0; c < s.cycles(); ++c)
    for (std::size_t e = 0; e < s.cycle_size(c); ++e) ++load[c][s.cycle_begin(c)[e].dim];
  return load;
}

// The pieces mu = sum ceil(sigma_i / gamma) of A5 for a permutation's real cycles.
unsigned a5_pieces(const DimensionPermutationAnalysis& a, unsigned gamma) {
  unsigned mu = 0;
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::real) mu += (static_cast<unsigned>(c.bits.size()) + gamma - 1) / gamma;
  return mu;
}

// A5 for every piece order, with dummies or without: (gamma + 1) mu cycles, every
// row checked to realise the permutation (rows_plan), the result bit for bit.
TEST_P(SdpRun, A5ForEveryGamma) {
  struct Case {
    std::vector<std::vector<unsigned>> cycles;
    unsigned n, m, gamma;
  };
  const Case cases[] = {
      {{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10}}, 11, 4, 3},  // Table 2's permutation, with its dummy: mu = 4
      {{{0, 1, 2}, {3, 4, 5, 6, 7, 8}}, 9, 4, 3},          // Table 4's {3, 6}, gamma = 3: no dummies
      {{{0, 1, 2}, {3, 4, 5, 6, 7, 8}}, 9, 4, 6},          // gamma = 6: the 3-cycle padded
      {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9, 5, 2},        // Table 4's {2, 2, 5}, gamma = 2: mu = 5
      {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9, 4, 3},        // gamma = 3: mu = 4
      {{{0, 1, 2, 3}, {4, 5}}, 6, 6, 1},                   // gamma = 1: mu = 6
      {{{0, 2, 1}}, 3, 3, 2},                              // one cycle, padded
  };
  for (const Case& k : cases) {
    const DimensionPermutation p = real_cycles(k.n, k.m, k.cycles);
    SCOPED_TRACE(testing::Message() << "n = " << k.n << ", m = " << k.m << ", gamma " << k.gamma);
    const DimensionPermutationAnalysis a = analyze(p);
    const SdpPlan plan = plan_a5(p, k.gamma);
    const unsigned mu = a5_pieces(a, k.gamma);
    EXPECT_EQ(plan.gamma, k.gamma);
    EXPECT_EQ(plan.schedule.cycles(), (k.gamma + 1) * mu);
    EXPECT_EQ(plan.unit_words, std::uint64_t{1} << mu);  // cosets of the mu pivots
    check_schedule(plan.schedule);
    expect_runs(p, plan);
  }
  // Random permutations, real, virtual and mixed cycles, every gamma that finds its pivots.
  std::mt19937 rng(23);
  int ran = 0, refused = 0;
  for (int trial = 0; trial < 40; ++trial) {
    // Processor bits among themselves, storage bits among themselves, and half the
    // time one image exchanged between the two (a mixed cycle beside the real ones).
    const unsigned n = 2 + static_cast<unsigned>(rng() % 4), m = 3 + static_cast<unsigned>(rng() % 4);
    DimensionPermutation p{n, m, {}};
    p.to.resize(n + m);
    std::iota(p.to.begin(), p.to.end(), 0u);
    std::shuffle(p.to.begin(), p.to.begin() + m, rng);
    std::shuffle(p.to.begin() + m, p.to.end(), rng);
    if (trial % 2 == 1) std::swap(p.to[rng() % m], p.to[m + rng() % n]);
    const DimensionPermutationAnalysis a = analyze(p);
    if (a.real_cycles == 0) continue;
    // Mostly the larger gammas, whose pieces (and pivots) are fewer.
    const unsigned gamma = a.sigma_max - static_cast<unsigned>(rng() % (trial % 4 == 0 ? a.sigma_max : (a.sigma_max + 1) / 2));
    SCOPED_TRACE(testing::Message() << "perm " << fmt::format("{}", fmt::join(p.to, ",")) << ", gamma " << gamma);
    // Pivots: the storage bits that pivot no block of a mixed cycle (a storage bit followed by a processor bit).
    unsigned free_bits = 0;
    for (unsigned x = 0; x < m; ++x) free_bits += p.to[x] < m ? 1 : 0;
    const unsigned mu = a5_pieces(a, gamma);
    try {
      const SdpPlan plan = plan_a5(p, gamma);
      EXPECT_LE(mu, free_bits);
      // The mixed cycles' blocks follow the real rows: one cycle per processor bit of theirs.
      std::uint64_t blocks = 0;
      for (const ShuffleCycle& c : a.cycles)
        if (c.kind == ShuffleCycle::Kind::mixed) blocks += c.processor_bits;
      EXPECT_EQ(plan.schedule.cycles(), (gamma + 1) * mu + blocks);
      check_schedule(plan.schedule);
      expect_runs(p, plan);
      ++ran;
    } catch (const Error& e) {
      EXPECT_GT(mu, free_bits) << e.what();
      EXPECT_NE(std::string(e.what()).find(fmt::format("mu = {} pieces", mu)), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_GE(ran, 10);
  EXPECT_GE(refused, 1);
  // gamma out of range, named.
  const DimensionPermutation t2 = real_cycles(11, 5, {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10}});
  try {
    plan_a5(t2, 9);
    ADD_FAILURE() << "A5 accepted gamma = 9 > sigma_max = 8";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gamma = 9 out of range: allowed 1..sigma_max = 8"), std::string::npos)
        << e.what();
  }
  // By default the gamma with the lowest modelled time: at tau = 0 the fewest
  // transfers, with a large tau the fewest start-ups.
  const DimensionPermutation t4 = real_cycles(9, 6, {{0, 1, 2}, {3, 4, 5, 6, 7, 8}});
  const auto time_of = [&](unsigned g, double tau) { return model_plan(plan_a5(t4, g), 1, tau, 64).time; };
  for (double tau : {0.0, 1000.0}) {
    const SdpPlan best = plan_a5(t4, 0, 1, tau);
    for (unsigned g = 1; g <= 6; ++g)
      if (a5_pieces(analyze(t4), g) <= 6) {
        EXPECT_LE(model_plan(best, 1, tau, 64).time, time_of(g, tau)) << g;
      }
  }
  EXPECT_EQ(plan_a5(t4, 0, 1, 1000.0).gamma, 3u);  // (gamma + 1) mu = 12 start-ups, the fewest
}

// A4, A5 and A6 with mixed cycles (sec. 4.4): each run of processor bits after
// a storage bit u is A1's chain with pivot u. A4 and A5 run the blocks after
// their real rows (sigma_p + beta' and (gamma + 1) mu + sigma_p(mixed) cycles),
// A6 groups them with the real cycles (f(S) cycles, a block counting its length).
TEST_P(SdpRun, NPortAlgorithmsForMixedCycles) {
  std::mt19937 rng(31);
  int mixed = 0;
  for (unsigned n = 1; n <= 5; ++n)
    for (unsigned m = 1; m <= 5; ++m)
      for (int trial = 0; trial < 4; ++trial) {
        const DimensionPermutation p = random_permutation(n, m, rng);
        const DimensionPermutationAnalysis a = analyze(p);
        if (a.separable) continue;
        ++mixed;
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", perm " << fmt::format("{}", fmt::join(p.to, ",")));
        std::vector<std::uint64_t> s;  // A6's units: sigma + 1 a real cycle, a block its length
        std::uint64_t real_bits = 0;
        for (const ShuffleCycle& c : a.cycles) {
          if (c.kind == ShuffleCycle::Kind::real) {
            s.push_back(c.bits.size() + 1);
            real_bits += c.bits.size();
          }
          if (c.kind != ShuffleCycle::Kind::mixed) continue;
          // A block: a storage bit followed by a run of processor bits.
          for (std::size_t k = 0; k < c.bits.size(); ++k) {
            if (p.is_processor_bit(c.bits[k])) continue;
            std::uint64_t run = 0;
            for (std::size_t j = (k + 1) % c.bits.size(); p.is_processor_bit(c.bits[j]); j = (j + 1) % c.bits.size()) ++run;
            if (run > 0) s.push_back(run);
          }
        }
        const std::uint64_t mixed_bits = a.sigma_p - real_bits;
        try {
          const SdpPlan a4 = plan_a4(p);
          EXPECT_EQ(a4.schedule.cycles(), a.sigma_p + a.real_cycles);
          check_schedule(a4.schedule);
          expect_runs(p, a4);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("K >= 2P"), std::string::npos) << e.what();
        }
        try {
          const SdpPlan a5 = plan_a5(p);
          EXPECT_EQ(a5.schedule.cycles(), (a5.gamma + 1) * a5_pieces(a, a5.gamma) + mixed_bits);
          check_schedule(a5.schedule);
          expect_runs(p, a5);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("pivot storage dimension of its own"), std::string::npos) << e.what();
        }
        if (s.size() <= 10) {
          const SdpPlan a6 = plan_a6(p);
          EXPECT_EQ(a6.schedule.cycles(), a6_startups(s));
          check_schedule(a6.schedule);
          expect_runs(p, a6);
        }
      }
  EXPECT_GE(mixed, 40);
  // The case: the transpose of n = m = 4 is four mixed 2-cycles (j_i, i_i),
  // blocks of one exchange each. Each part's b = local xor (node bits at their
  // partners) stays put, so the 16 words a node are dealt freely: every
  // algorithm takes 4 cycles and K/2 = 8 words on the busiest links in all, the
  // n-port bound of Theorem 1 (K/2 t_c, sigma_p - oJ = 4 start-ups).
  const DimensionPermutation t = parse_dimension_permutation("transpose", 4, 4);
  for (const SdpPlan& plan : {plan_a4(t), plan_a5(t), plan_a6(t), plan_a1_all_port(t)}) {
    SCOPED_TRACE(plan.algorithm);
    EXPECT_EQ(plan.schedule.cycles(), 4u);
    EXPECT_EQ(plan.unit_words, 1u);
    EXPECT_EQ(model_plan(plan, 1, 0, 16).element_transfers, 8u);
    check_schedule(plan.schedule);
    expect_runs(t, plan);
  }
}

// A3's recursion: ceil(log2 s) steps for a cycle of order s, each step disjoint
// transpositions, the steps applied in turn giving the permutation; checked on
// the contents of the bits, independently of the plan.
TEST(SdpA3, StepsHalveEveryCycle) {
  std::mt19937 rng(41);
  for (int trial = 0; trial < 200; ++trial) {
    const unsigned n = 1 + static_cast<unsigned>(rng() % 6), m = static_cast<unsigned>(rng() % 6);
    const DimensionPermutation p = random_permutation(n, m, rng);
    const DimensionPermutationAnalysis a = analyze(p);
    const auto steps = a3_steps(a);
    std::size_t longest = 1;
    for (const ShuffleCycle& c : a.cycles) longest = std::max(longest, c.bits.size());
    std::size_t levels = 0;
    while ((std::size_t{1} << levels) < longest) ++levels;
    EXPECT_EQ(steps.size(), levels);
    std::vector<unsigned> at(n + m);  // at[x]: the bit whose content x holds
    std::iota(at.begin(), at.end(), 0u);
    std::size_t transpositions = 0;
    for (const auto& step : steps) {
      std::vector<bool> used(n + m, false);
      for (const auto& [x, y] : step) {
        EXPECT_FALSE(used[x] || used[y]) << "a bit twice in one step";
        used[x] = used[y] = true;
        std::swap(at[x], at[y]);
        ++transpositions;
      }
    }
    for (unsigned x = 0; x < n + m; ++x) EXPECT_EQ(p.to[at[x]], x);
    EXPECT_EQ(transpositions, a.sigma - a.beta);  // a cycle of order s: s - 1 transpositions
  }
}

// A3 on the machine: one-port, a processor transposition by the single-path
// transpose (2 cycles of K words), a storage-processor one by an exchange (K/2
// words), storage ones by relabelling; n-port (separable) each step's
// processor transpositions over parts. 2K words a node; bit for bit.
TEST_P(SdpRun, A3ForRandomPermutations) {
  std::mt19937 rng(43);
  for (unsigned n = 1; n <= 5; ++n)
    for (unsigned m = 0; m <= 4; ++m)
      for (int trial = 0; trial < 4; ++trial) {
        const DimensionPermutation p = random_permutation(n, m, rng);
        const DimensionPermutationAnalysis a = analyze(p);
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", perm " << fmt::format("{}", fmt::join(p.to, ",")));
        std::uint64_t pp = 0, sp = 0;
        std::vector<std::uint64_t> pairs_per_step;
        for (const auto& step : a3_steps(a)) {
          std::uint64_t pairs = 0;
          for (const auto& [x, y] : step) {
            const unsigned procs = (p.is_processor_bit(x) ? 1u : 0u) + (p.is_processor_bit(y) ? 1u : 0u);
            pp += procs == 2 ? 1 : 0;
            sp += procs == 1 ? 1 : 0;
            pairs += procs == 2 ? 1 : 0;
          }
          pairs_per_step.push_back(pairs);
        }
        const SdpPlan one = plan_a3(p);
        EXPECT_EQ(one.schedule.cycles(), 2 * pp + sp);
        EXPECT_EQ(one.schedule.m, m + 1);
        const std::uint64_t transfers = model_plan(one, 1, 0, bit(m + 1)).element_transfers;
        EXPECT_EQ(transfers, 2 * pp * bit(m) + sp * (bit(m) / 2));
        // Table 3, one-port: ceil(log2 sigma_max) (sigma_p K t_c + sigma_p tau) at most
        // (each step transposes at most sigma_p bits, in pairs of 2 cycles of K words).
        if (a.separable && a.real_cycles > 0) {
          const std::uint64_t steps = a3_steps(a).size();
          EXPECT_LE(transfers, steps * a.sigma_p * bit(m));
          EXPECT_LE(one.schedule.cycles(), steps * a.sigma_p);
        }
        EXPECT_LE(one.align_after.size(), 1u);
        check_schedule(one.schedule);
        expect_runs(p, one);
        if (!a.separable) {
          EXPECT_THROW(plan_a3(p, true), Error);
          continue;
        }
        const SdpPlan all = plan_a3(p, true);
        std::uint64_t cycles = 0;
        for (std::uint64_t pairs : pairs_per_step) cycles += 2 * pairs;
        EXPECT_EQ(all.schedule.cycles(), cycles);
        EXPECT_LE(model_plan(all, 1, 0, bit(m + 1)).element_transfers, model_plan(one, 1, 0, bit(m + 1)).element_transfers);
        check_schedule(all.schedule);
        expect_runs(p, all);
      }
}

// The bound of sdp_transfer_bound against an exhaustive count: for small
// sizes, every way of spreading the units' exchanges over the cycles (a_c
// active units in cycle c, at most U, sum U S) and every way of cutting a
// cycle's unit-exchanges over its dimensions; the fewest words on the busiest
// links, summed, equal the formula.
TEST(SdpPaperCounts, TransferBoundAgainstAnExhaustiveCount) {
  // The per-cycle part: min over (a_1..a_C) of sum ceil(a_c / D).
  const auto exhaustive = [](std::uint64_t U, std::uint64_t A, std::uint64_t C, std::uint64_t D) {
    std::uint64_t best = ~std::uint64_t{0};
    std::vector<std::uint64_t> a(C, 0);
    const std::function<void(std::size_t, std::uint64_t, std::uint64_t)> go = [&](std::size_t c, std::uint64_t left,
                                                                                   std::uint64_t sum) {
      if (c == C) {
        if (left == 0) best = std::min(best, sum);
        return;
      }
      for (std::uint64_t x = 0; x <= std::min(U, left); ++x) go(c + 1, left - x, sum + (x + D - 1) / D);
    };
    go(0, A, 0);
    return best;
  };
  for (std::uint64_t U = 1; U <= 7; ++U)
    for (std::uint64_t C = 1; C <= 5; ++C)
      for (std::uint64_t D = 1; D <= 5; ++D)
        for (std::uint64_t S = 1; S <= C; ++S) {
          // One cycle of D dimensions, S exchanges a unit: per-cycle and per-dimension parts.
          const std::uint64_t per_cycle = exhaustive(U, U * S, C, D), per_dim = (U * S + D - 1) / D;
          EXPECT_EQ(sdp_transfer_bound(U, 2, {S}, {D}, C), std::max(per_cycle, per_dim))
              << "U " << U << " C " << C << " D " << D << " S " << S;
        }
  // Table 4's {3, 6} with gamma = 3 at K = 1024: 128 units of 8 words (mu = 3
  // pivots), 4 and 8 exchanges on the two cycles in 12 cycles: every cycle has
  // all 128 units active on 9 dimensions, so 15 units on one of them, 15 * 4
  // words, 720 in all -- not the paper's 2/3 K = 682.7.
  EXPECT_EQ(sdp_transfer_bound(128, 8, {4, 8}, {3, 6}, 12), 720u);
}

// Table 4 of the SDP paper: A4, A5 and A6 for real cycles of orders {3, 6},
// {2, 2, 5} and {2, 5, 11}, from the schedules themselves (B = K, one packet a
// cycle): start-ups as printed; element transfers against the paper's
// fractions of K (docs/sdp.md, "The paper's counts"):
//  - A4 and A6 within a word a cycle of the paper's count (its parts are
//    fractions of K, hcube's whole pivot pairs); A6 at K = 512 on {2, 2, 5}
//    exactly the paper's 3K/4 = 384;
//  - A5 at the bound of its exchanges (sdp_transfer_bound) up to a unit a
//    cycle; with dummies that bound lies above the paper's (gamma + 1) K / 2 gamma:
//    every unit makes sigma_i + mu_i exchanges on cycle i's sigma_i dimensions.
TEST(SdpTable4, ElementTransfersAgainstThePapers) {
  struct Row {
    std::vector<std::vector<unsigned>> cycles;
    unsigned n, m;
    std::uint64_t a4, a6;                 // the paper's start-ups
    std::vector<std::pair<unsigned, std::uint64_t>> a5;  // gamma, start-ups
  };
  const Row rows[] = {
      {{{0, 1, 2}, {3, 4, 5, 6, 7, 8}}, 9, 14, 11, 14, {{3, 12}, {6, 14}}},
      {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9, 14, 12, 12, {{2, 15}, {3, 16}}},
      {{{0, 1}, {2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}}, 18, 12, 21, 24, {{6, 28}, {11, 36}}},
  };
  for (const Row& r : rows) {
    const DimensionPermutation p = real_cycles(r.n, r.m, r.cycles);
    const DimensionPermutationAnalysis a = analyze(p);
    const double K = static_cast<double>(bit(r.m));
    SCOPED_TRACE(testing::Message() << "n = " << r.n << ", K = " << K);
    std::vector<std::uint64_t> sizes;
    for (const auto& c : r.cycles) sizes.push_back(c.size());
    // A4: (sigma_p + beta) / (sigma_p + beta + sigma_min - 1) K.
    // Memory: K words a node for A4 and A6 (the pivot comes back); for A5 K
    // while each cycle has at most 2 pieces (their pivots swap), else the
    // pivots' rotation goes through scratch: 2K.
    const SdpPlan a4_plan = plan_a4(p, SdpEffort::patient);
    EXPECT_EQ(memory_words(a4_plan), bit(r.m));
    const SdpModel a4 = model_plan(a4_plan, 1, 1, bit(r.m));
    const double sp = a.sigma_p, beta = a.real_cycles, smin = a.sigma_min;
    EXPECT_EQ(a4.startups, r.a4);
    EXPECT_LE(static_cast<double>(a4.element_transfers), (sp + beta) / (sp + beta + smin - 1) * K + static_cast<double>(r.a4));
    EXPECT_GE(static_cast<double>(a4.element_transfers), (sp + beta) / (sp + beta + smin - 1) * K - static_cast<double>(r.a4));
    // A6: Theorem 2, min(S) K / (2 (min(S) - 1)) = (sigma_min + 1) K / (2 sigma_min).
    const SdpPlan a6 = plan_a6(p, SdpEffort::patient);
    EXPECT_EQ(memory_words(a6), bit(r.m));
    const SdpModel m6 = model_plan(a6, 1, 1, bit(r.m));
    EXPECT_EQ(m6.startups, r.a6);
    const double paper6 = (smin + 1) / (2 * smin) * K;
    std::vector<std::uint64_t> steps6;
    for (std::uint64_t sz : sizes) steps6.push_back(sz + 1);
    const std::uint64_t bound6 = sdp_transfer_bound(bit(r.m) / 2, 2, steps6, sizes, r.a6);
    EXPECT_EQ(static_cast<double>(bound6), std::ceil(paper6));  // the smallest cycle's dimensions
    EXPECT_GE(m6.element_transfers, bound6);
    EXPECT_LE(static_cast<double>(m6.element_transfers), paper6 + static_cast<double>(r.a6));
    // A5 for the printed gammas.
    for (const auto& [gamma, startups] : r.a5) {
      SCOPED_TRACE(testing::Message() << "gamma " << gamma);
      const SdpPlan plan = plan_a5(p, gamma, 1.0, 0.0, 0, SdpEffort::patient);
      const SdpModel m5 = model_plan(plan, 1, 1, bit(r.m));
      EXPECT_EQ(m5.startups, startups);
      std::size_t most_pieces = 0;
      for (std::uint64_t sz : sizes) most_pieces = std::max<std::size_t>(most_pieces, (sz + gamma - 1) / gamma);
      EXPECT_EQ(memory_words(plan), (most_pieces <= 2 ? 1u : 2u) * bit(r.m));
      std::vector<std::uint64_t> steps5;
      bool dummies = false;
      for (std::uint64_t sz : sizes) {
        steps5.push_back(sz + (sz + gamma - 1) / gamma);
        dummies = dummies || sz % gamma != 0;
      }
      const std::uint64_t bound5 =
          sdp_transfer_bound(bit(r.m) / plan.unit_words, plan.unit_words, steps5, sizes, startups);
      const double paper5 = (gamma + 1.0) / (2.0 * gamma) * K;
      EXPECT_GE(m5.element_transfers, bound5);
      EXPECT_LE(m5.element_transfers, bound5 + startups * plan.unit_words / 2);
      if (dummies) {
        EXPECT_GT(static_cast<double>(bound5), paper5 + 1);
      }
      // The premise of the bound, from the schedule: every unit makes sigma_i + mu_i
      // exchanges of W/2 words on cycle i's dimensions.
      const auto load = link_loads(plan.schedule);
      std::size_t first = 0;
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        std::uint64_t words = 0;
        for (const auto& cycle : load)
          for (std::size_t d = first; d < first + sizes[i]; ++d) words += cycle[d];
        EXPECT_EQ(words, bit(r.m) / 2 * steps5[i]) << "cycle " << i;
        first += sizes[i];
      }
    }
  }
  // The sizes: A6 on {2, 2, 5} at K = 512 is the paper's 384, on
  // {2, 5, 11} at K = 256 the paper's 192; on {3, 6} at K = 1024 its bound
  // ceil(2K/3) = 683; A5 with gamma = 3 on {3, 6} at K = 1024 is 720, its
  // bound; A4 869 and 475 against the paper's 866.5 and 472.6.
  const DimensionPermutation p36 = real_cycles(9, 10, {{0, 1, 2}, {3, 4, 5, 6, 7, 8}});
  const DimensionPermutation p225 = real_cycles(9, 9, {{0, 1}, {2, 3}, {4, 5, 6, 7, 8}});
  // The search with SdpEffort::patient (the annealing); estimate stays within a few words (below).
  constexpr SdpEffort kPatient = SdpEffort::patient;
  EXPECT_EQ(model_plan(plan_a6(p225, kPatient), 1, 0, 512).element_transfers, 384u);
  EXPECT_EQ(model_plan(plan_a6(real_cycles(18, 8, {{0, 1}, {2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}}), kPatient),
                       1, 0, 256)
                .element_transfers,
            192u);
  EXPECT_EQ(model_plan(plan_a6(p36, kPatient), 1, 0, 1024).element_transfers, 683u);
  EXPECT_EQ(model_plan(plan_a5(p36, 3, 1.0, 0.0, 0, kPatient), 1, 0, 1024).element_transfers, 720u);
  EXPECT_EQ(model_plan(plan_a4(p36, kPatient), 1, 0, 1024).element_transfers, 869u);
  EXPECT_EQ(model_plan(plan_a4(p225, kPatient), 1, 0, 512).element_transfers, 475u);
  // estimate, greedy dealing and single moves: 684, 870 and 476 here.
  EXPECT_LE(model_plan(plan_a6(p36), 1, 0, 1024).element_transfers, 684u);
  EXPECT_LE(model_plan(plan_a4(p36), 1, 0, 1024).element_transfers, 870u);
}

// The fewest exchanges E(v, r) -- v one of k pivots, r one of the sigma
// processor bits alpha_0..alpha_(sigma-1) of a real cycle, each pivot used at
// most cap times -- that leave alpha_j's content in alpha_(j+1) and the
// pivots' contents in the pivots (in any order); -1 when none does. Breadth
// first over the bits' contents, independent of the planner.
int fewest_exchanges(unsigned sigma, unsigned k, unsigned cap) {
  const unsigned bits = sigma + k;  // <= 8: contents and uses packed 4 bits each
  const auto content = [](std::uint64_t s, unsigned i) { return static_cast<unsigned>((s >> (4 * i)) & 15u); };
  std::uint64_t start = 0;
  for (unsigned i = 0; i < bits; ++i) start |= std::uint64_t{i} << (4 * i);
  const auto done = [&](std::uint64_t s) {
    for (unsigned j = 0; j < sigma; ++j)
      if (content(s, (j + 1) % sigma) != j) return false;
    for (unsigned p = 0; p < k; ++p)
      if (content(s, sigma + p) < sigma) return false;
    return true;
  };
  std::unordered_set<std::uint64_t> seen{start};
  std::vector<std::uint64_t> level{start};
  for (int depth = 0; !level.empty(); ++depth) {
    std::vector<std::uint64_t> next;
    for (std::uint64_t s : level) {
      if (done(s)) return depth;
      for (unsigned p = 0; p < k; ++p) {
        const unsigned use_shift = 4 * (bits + p);
        if (content(s, bits + p) == cap) continue;
        for (unsigned r = 0; r < sigma; ++r) {
          const unsigned a = content(s, sigma + p), b = content(s, r);
          std::uint64_t t = s + (std::uint64_t{1} << use_shift);
          t &= ~((std::uint64_t{15} << (4 * (sigma + p))) | (std::uint64_t{15} << (4 * r)));
          t |= (std::uint64_t{b} << (4 * (sigma + p))) | (std::uint64_t{a} << (4 * r));
          if (seen.insert(t).second) next.push_back(t);
        }
      }
    }
    level = std::move(next);
  }
  return -1;
}

// docs/sdp.md, "Lemma (A5 with dummies)": a row of A5 (sec. 4.3, Lemma 8)
// gives each pivot one piece of one cycle and gamma + 1 slots, so a unit needs
// at least sigma + ceil(sigma / gamma) exchanges on a cycle of order sigma,
// and with a dummy the busiest dimension carries more than the paper's
// (gamma + 1) K / (2 gamma). Checked here over every row of exchanges, then
// for the cases {3, 6} (gamma 6) and {2, 2, 5} (gamma 2, 3).
TEST(SdpA5, LemmaEveryRowWithDummiesExceedsThePapersCount) {
  for (unsigned sigma = 2; sigma <= 6; ++sigma)
    for (unsigned gamma = 1; gamma <= 6; ++gamma)
      for (unsigned k = 1, mu = (sigma + gamma - 1) / gamma; sigma + k <= 8 && k <= mu + 1; ++k) {
        // Every row with k pivots of gamma + 1 uses: none with fewer than mu
        // pivots, else exactly Lemma 8's sigma + mu (extra pivots never help).
        EXPECT_EQ(fewest_exchanges(sigma, k, gamma + 1), k >= mu ? static_cast<int>(sigma + mu) : -1)
            << "sigma " << sigma << " gamma " << gamma << " pivots " << k;
      }
  // With no limit on a pivot's uses, A1's chain (sigma + 1) is the fewest.
  for (unsigned sigma = 2; sigma <= 5; ++sigma) EXPECT_EQ(fewest_exchanges(sigma, 2, 15), static_cast<int>(sigma + 1));

  struct Case {
    std::vector<std::vector<unsigned>> cycles;
    unsigned n, m, gamma;
    std::uint64_t bound, hcube;  // the lemma's words at hcube's units; hcube's run
  };
  const Case cases[] = {
      {{{0, 1, 2}, {3, 4, 5, 6, 7, 8}}, 9, 10, 6, 684, 684},
      {{{0, 1, 2}, {3, 4, 5, 6, 7, 8}}, 9, 14, 6, 10924, 10924},
      {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9, 9, 2, 416, 480},
      {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9, 9, 3, 384, 384},
      {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9, 14, 2, 13120, 13152},
      {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9, 14, 3, 12288, 12288},
  };
  for (const Case& c : cases) {
    const std::uint64_t K = bit(c.m);
    SCOPED_TRACE(testing::Message() << "K = " << K << ", gamma = " << c.gamma);
    unsigned mu = 0;
    for (const auto& cyc : c.cycles) mu += static_cast<unsigned>((cyc.size() + c.gamma - 1) / c.gamma);
    const std::uint64_t W = bit(mu), U = K / W;  // hcube's units: cosets of the mu pivots
    double fraction = 0;                        // of K/2, over the busiest dimension
    std::uint64_t words = 0;
    for (const auto& cyc : c.cycles) {
      const unsigned sigma = static_cast<unsigned>(cyc.size()), mu_i = (sigma + c.gamma - 1) / c.gamma;
      const auto e = static_cast<std::uint64_t>(fewest_exchanges(sigma, mu_i, c.gamma + 1));
      fraction = std::max(fraction, static_cast<double>(e) / sigma);
      words = std::max(words, (U * e + sigma - 1) / sigma * (W / 2));
    }
    const double paper = (c.gamma + 1.0) / (2.0 * c.gamma) * static_cast<double>(K);
    EXPECT_GT(fraction * static_cast<double>(K) / 2, paper);  // for any split of the data
    EXPECT_EQ(words, c.bound);
    const SdpPlan plan = plan_a5(real_cycles(c.n, c.m, c.cycles), c.gamma, 1.0, 0.0, 0, SdpEffort::patient);
    EXPECT_EQ(plan.unit_words, W);
    EXPECT_EQ(model_plan(plan, 1, 0, K).element_transfers, c.hcube);
    EXPECT_GE(c.hcube, c.bound);
  }
}

// A1' one-port: sigma_p cycles of K words (real cycles by dimension-order routing
// through the empty storage dimension, mixed ones as in A1), one alignment at
// the end, on a machine of 2K words a node; K = 1 works. Then A1' n-port.
TEST_P(SdpRun, A1PrimeForRandomPermutations) {
  std::mt19937 rng(17);
  for (unsigned n = 1; n <= 5; ++n)
    for (unsigned m = 0; m <= 4; ++m)
      for (int trial = 0; trial < 5; ++trial) {
        const DimensionPermutation p = random_permutation(n, m, rng);
        const DimensionPermutationAnalysis a = analyze(p);
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", perm " << fmt::format("{}", fmt::join(p.to, ",")));
        const SdpPlan plan = plan_a1_prime(p);
        EXPECT_EQ(plan.schedule.cycles(), a.sigma_p);
        EXPECT_EQ(plan.schedule.m, m + 1);
        const ScheduleStats st = check_schedule(plan.schedule);
        EXPECT_LE(plan.align_after.size(), 1u);  // one alignment back to u = 0, when any node bit is left on u
        EXPECT_EQ(st.cycles, a.sigma_p);
        // Real-cycle cycles carry K words on one dimension, mixed ones K/2.
        const SdpModel model = model_plan(plan, 1, 0, bit(m + 1));
        std::uint64_t expected_transfers = 0;
        for (const ShuffleCycle& c : a.cycles) {
          if (c.kind == ShuffleCycle::Kind::real) expected_transfers += c.bits.size() * bit(m);
          if (c.kind == ShuffleCycle::Kind::mixed)
            for (unsigned b : c.bits) expected_transfers += p.is_processor_bit(b) ? bit(m) / 2 : 0;
        }
        EXPECT_EQ(model.element_transfers, expected_transfers);
        expect_runs(p, plan);
        EXPECT_EQ(last_.counters.routing_cycles, a.sigma_p);
        EXPECT_LE(last_.counters.alignments, 2u);

        // n-port: A1 n-port's parts without the restoring exchange (beta sigma_max
        // cycles) or the blocks (C cycles, C the power of two at least the sum
        // of the orders' powers of two; K words when C divides K, the
        // per-dimension bound); each part realigns its own range. Then A6' and
        // A4' on the same permutations.
        if (!a.separable) {
          EXPECT_THROW(plan_a1_prime(p, true), Error);
          EXPECT_THROW(plan_a6_prime(p), Error);
          EXPECT_THROW(plan_a4_prime(p), Error);
          continue;
        }
        const SdpPlan all = plan_a1_prime(p, true);
        std::uint64_t widths = 0;
        for (const ShuffleCycle& c : a.cycles)
          if (c.kind == ShuffleCycle::Kind::real) widths += bit(ceil_log2(c.bits.size()));
        const std::uint64_t C = widths == 0 ? 0 : bit(ceil_log2(widths));
        if (C > 0 && C <= bit(m)) {
          EXPECT_EQ(all.schedule.cycles(), C);
          EXPECT_EQ(model_plan(all, 1, 0, bit(m + 1)).element_transfers, bit(m));
        } else {
          EXPECT_TRUE(all.schedule.cycles() == a.real_cycles * a.sigma_max || all.schedule.cycles() == C);
        }
        EXPECT_LE(all.align_after.size(), std::max<std::uint64_t>(C, a.real_cycles * a.sigma_max));
        check_schedule(all.schedule);
        expect_runs(p, all);

        // A6' (A6 built on A1', sec. 4.6): A6's grouping with S = {sigma_i}, each
        // cycle A1' n-port's rotations; f({sigma_i}) cycles, between sigma_p and
        // the paper's worst case 2 sigma_p - 1.
        const SdpPlan a6p = plan_a6_prime(p);
        std::vector<std::uint64_t> orders;
        for (const ShuffleCycle& c : a.cycles)
          if (c.kind == ShuffleCycle::Kind::real) orders.push_back(c.bits.size());
        const std::uint64_t f = orders.empty() ? 0 : a6_startups(orders);
        EXPECT_EQ(a6p.schedule.cycles(), f);
        EXPECT_GE(f, a.sigma_p);
        EXPECT_LE(f, orders.empty() ? 0 : 2 * a.sigma_p - 1);
        EXPECT_EQ(a6p.schedule.m, m + 1);
        check_schedule(a6p.schedule);
        expect_runs(p, a6p);

        // A4' (A4 built on A1', sec. 4.6): the rotations of J_0 J_1 ..., sigma_p
        // cycles on a machine of 4K words (two empty dimensions).
        const SdpPlan a4p = plan_a4_prime(p);
        EXPECT_EQ(a4p.schedule.cycles(), a.sigma_p);
        EXPECT_EQ(a4p.schedule.m, m + 2);
        check_schedule(a4p.schedule);
        expect_runs(p, a4p);
      }
}

// A6' and A4' at Table 4's orders against sec. 4.6: A6' K t_c + (2 sigma_p - 1) tau, the
// start-ups f({sigma_i}), between sigma_p and the paper's worst case; the words
// near K (whole words dealt to fractional shares; A1' n-port's blocks reach
// K exactly, in 16 cycles against A6''s 12 and 10); A4' 2K t_c +
// sigma_p tau, its sigma_p start-ups and below 2K words (rows at a cycle's head
// never double their data and take twice the share).
TEST(SdpOnA1Prime, CountsAtTable4sOrders) {
  struct Case {
    std::vector<std::vector<unsigned>> cycles;
    unsigned m;
    std::uint64_t startups, transfers, a1_prime, a4_prime;
  };
  const Case cases[] = {
      {{{0, 1, 2}, {3, 4, 5, 6, 7, 8}}, 10, 12, 1030, 1024, 1683},
      {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9, 10, 517, 512, 774},
  };
  for (const Case& c : cases) {
    const DimensionPermutation p = real_cycles(9, c.m, c.cycles);
    const SdpModel m6 = model_plan(plan_a6_prime(p, SdpEffort::patient), 1, 0, bit(c.m + 1));
    const SdpModel m1 = model_plan(plan_a1_prime(p, true, SdpEffort::patient), 1, 0, bit(c.m + 1));
    SCOPED_TRACE(testing::Message() << "K = " << bit(c.m));
    EXPECT_EQ(m6.startups, c.startups);
    EXPECT_LT(m6.startups, 2 * 9 - 1);
    EXPECT_EQ(m6.element_transfers, c.transfers);
    EXPECT_EQ(m1.element_transfers, c.a1_prime);
    // A4': sigma_p = 9 start-ups (the paper's), at most the paper's 2K words.
    const SdpModel m4 = model_plan(plan_a4_prime(p), 1, 0, bit(c.m + 2));
    EXPECT_EQ(m4.startups, 9u);
    EXPECT_EQ(m4.element_transfers, c.a4_prime);
    EXPECT_LE(m4.element_transfers, 2 * bit(c.m));
  }
}

// The extended cube: data on 2^p.n of 2^n nodes, spread over e = min(n - p.n, m)
// unused dimensions, a full-cube algorithm on K / 2^e words, gathered back.
TEST_P(SdpRun, ExtendedCubeForRandomPermutations) {
  std::mt19937 rng(23);
  struct Inner {
    const char* name;
    std::function<SdpPlan(const DimensionPermutation&)> make;
  };
  const std::vector<Inner> inners = {{"A1", plan_a1_one_port},
                                     {"A2", [](const DimensionPermutation& q) { return plan_a2(q, true); }},
                                     {"A4", [](const DimensionPermutation& q) { return plan_a4(q); }},
                                     {"A6", [](const DimensionPermutation& q) { return plan_a6(q); }}};
  std::map<std::string, int> ran;
  for (unsigned pn = 1; pn <= 3; ++pn)
    for (unsigned extra = 1; extra <= 3; ++extra)
      for (unsigned m = 0; m <= 4; ++m)
        for (int trial = 0; trial < 5; ++trial) {
          const DimensionPermutation p = random_permutation(pn, m, rng);
          const unsigned n = pn + extra, e = std::min(extra, m);
          for (const Inner& in : inners) {
            SCOPED_TRACE(testing::Message() << in.name << ", data n = " << pn << ", machine n = " << n << ", m = " << m
                                            << ", perm " << fmt::format("{}", fmt::join(p.to, ",")));
            SdpPlan plan;
            try {
              plan = plan_extended_cube(p, n, in.make);
            } catch (const Error&) {
              continue;  // the full-cube algorithm does not apply to the conjugated permutation
            }
            const ScheduleStats st = check_schedule(plan.schedule);
            // Scatter and gather: K/2, K/4, ... words on the busiest link, e cycles each.
            const SdpPlan full = in.make(extended_cube_permutation(p, n));
            EXPECT_EQ(st.cycles, 2 * e + full.schedule.cycles());
            // One-port: K/2, K/4, ... on one dimension a cycle; n-port the scatter is spread
            // over all e dimensions, never more on a link.
            std::uint64_t spread = 0;
            for (unsigned i = 1; i <= e; ++i) spread += bit(m) >> i;
            const std::uint64_t transfers = model_plan(plan, 1, 0, bit(m)).element_transfers,
                                inner = model_plan(full, 1, 0, bit(m)).element_transfers;
            if (full.schedule.rules.model == PortModel::one_port) {
              EXPECT_EQ(transfers, 2 * spread + inner);
            } else {
              EXPECT_LE(transfers, 2 * spread + inner);
            }
            expect_runs(p, plan);
            EXPECT_EQ(last_.counters.routing_cycles, st.cycles);
            ++ran[in.name];
          }
        }
  for (const Inner& in : inners) EXPECT_GE(ran[in.name], 8) << in.name;
  // Data n = 1, m = 2, node bit 2 <-> local bit 0 on a machine of n = 2: v_1 = local
  // bit 1 and the unused node bit (address bit 3) swap, so the full-cube
  // permutation on (n = 2, m = 1) exchanges local bit 0 and node bit 0.
  const DimensionPermutation p{1, 2, {2, 1, 0}};
  const DimensionPermutation conj = extended_cube_permutation(p, 2);
  EXPECT_EQ(conj.n, 2u);
  EXPECT_EQ(conj.m, 1u);
  EXPECT_EQ(conj.to, (std::vector<unsigned>{1, 0, 2}));
  EXPECT_THROW(plan_extended_cube(p, 1, plan_a1_one_port), Error);
  // n-port scatter, data n = 1, m = 4 on n = 3 (e = 2): two parts take the two
  // unused dimensions in turn, K/4 then K/8 words on each: K (1 - 1/4) / 2 = 6
  // words a link for the scatter, against one-port's 8 + 4 = 12.
  const DimensionPermutation real{1, 4, {0, 1, 2, 3, 4}};  // the identity: only the scatter and gather move
  const SdpPlan wide = plan_extended_cube(real, 3, [](const DimensionPermutation& q) { return plan_a2(q, true); });
  const SdpPlan narrow = plan_extended_cube(real, 3, plan_a1_one_port);
  EXPECT_EQ(model_plan(wide, 1, 0, 16).element_transfers, 2u * 6u);
  EXPECT_EQ(model_plan(narrow, 1, 0, 16).element_transfers, 2u * 12u);
  expect_runs(real, wide);
  expect_runs(real, narrow);
  EXPECT_THROW(plan_extended_cube(p, 2, [](const DimensionPermutation& q) { return plan_a1_prime(q); }), Error);
}

// The fused path: every word straight to its destination in one launch, every tile width.
TEST_P(SdpRun, FusedPermutationForRandomPermutationsAndTileWidths) {
  std::mt19937 rng(3);
  for (unsigned n = 0; n <= 6; n += 2)
    for (unsigned m = 1; m <= 6; m += 2)
      for (long long t : {-1LL, 0LL, 1LL}) {
        const DimensionPermutation p = random_permutation(n, m, rng);
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", tile dims " << t);
        auto mach = make_labelled(n, m, ElementType::u64, t > static_cast<long long>(n) ? -1 : t);
        const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                                [&](std::uint64_t g) { return p.apply(g); });
        mach->permute_address_bits(p.to);
        ASSERT_EQ(mach->read(), expected);
        EXPECT_EQ(mach->counters().kernel_launches, 1u);
      }
  // Many tiles: q = 16 and 18 with 4-, 8- and 16-byte words, named permutations
  // too; the CPU backend writes the bit reversal and the transpose by block
  // transposes in 64-128 KiB tiles (cpu_backend.cpp), the others gathered in 16 KiB.
  for (unsigned half : {8u, 9u})
    for (ElementType type : {ElementType::u32, ElementType::f64, ElementType::c128})
      for (const char* name : {"bit-reversal", "transpose", "shuffle:3", "5,9,0,14,2,11,7,1,15,3,12,6,10,4,13,8"}) {
        if (half == 9 && std::string(name).find(',') != std::string::npos) continue;  // a 16-bit list
        const DimensionPermutation p = parse_dimension_permutation(name, half, half);
        SCOPED_TRACE(testing::Message() << name << ", " << info(type).name << ", q = " << 2 * half);
        auto mach = make_labelled(half, half, type);
        const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                                [&](std::uint64_t g) { return p.apply(g); });
        mach->permute_address_bits(p.to);
        ASSERT_EQ(mach->read(), expected);
      }
  auto mach = make_labelled(2, 2);
  EXPECT_THROW(mach->permute_address_bits({0, 1, 2}), Error);
  EXPECT_THROW(mach->permute_address_bits({0, 1, 1, 3}), Error);
}

// The distributed machine's chunk exchange: read_permuted is permute_address_bits
// then read, leaving the machine as it was; load_permuted is load then
// permute_address_bits. Checked against the reference's own permutation.
TEST_P(SdpRun, ReadAndLoadThroughAnAddressBitPermutation) {
  std::mt19937 rng(11);
  for (unsigned n = 0; n <= 6; n += 3)
    for (unsigned m = 1; m <= 5; m += 2)
      for (long long t : {-1LL, 0LL, 1LL}) {
        const DimensionPermutation p = random_permutation(n, m, rng);
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", tile dims " << t);
        auto mach = make_labelled(n, m, ElementType::u32, t > static_cast<long long>(n) ? -1 : t);
        const std::vector<unsigned char> before = mach->read();
        const auto expected = reference_permute(before, mach->word_bytes(), mach->geometry().total_words(),
                                                [&](std::uint64_t g) { return p.apply(g); });
        std::vector<unsigned char> got(before.size());
        mach->read_permuted(p.to, got.data(), got.size());
        ASSERT_EQ(got, expected);
        ASSERT_EQ(mach->read(), before);
        mach->load_permuted(p.to, before.data(), before.size());
        ASSERT_EQ(mach->read(), expected);
        EXPECT_EQ(mach->counters().kernel_launches, 2u);
        // The same on buffers of the backend's own memory (a distributed
        // machine's MPI buffers): the pass writes and reads them directly.
        mach->load(before.data(), before.size());
        Buffer out = mach->backend().allocate(before.size()), in = mach->backend().allocate(before.size());
        mach->read_permuted(p.to, out);
        mach->backend().read_storage(out, 0, got.data(), got.size());
        ASSERT_EQ(got, expected);
        ASSERT_EQ(mach->read(), before);
        mach->backend().write_storage(before.data(), in, 0, before.size());
        mach->load_permuted(p.to, in);
        ASSERT_EQ(mach->read(), expected);
        EXPECT_EQ(mach->counters().kernel_launches, 4u);
      }
  auto mach = make_labelled(2, 2);
  std::vector<unsigned char> buf(mach->bytes());
  EXPECT_THROW(mach->read_permuted({0, 1, 1, 3}, buf.data(), buf.size()), Error);
  EXPECT_THROW(mach->load_permuted({0, 1, 2, 3}, buf.data(), buf.size() - 1), Error);
  const Buffer small = mach->backend().allocate(buf.size() - 1);
  EXPECT_THROW(mach->load_permuted({0, 1, 2, 3}, small), Error);
}

// A1 and A1' n-port on Table 4's orders against Table 3's n-port counts (t_c
// = 1, tau = 0): A1 beta max_i (sigma_i + 1) K / (2 sigma_i beta) = 2K/3 =
// 682.7 on {3, 6} at K = 1024 and 3K/4 = 384 on {2, 2, 5} at K = 512; A1'
// K t_c = 1024 and 512. Both meet lower bounds computed here, independently
// of the planner:
//  - A1: a unit of 2 words (closed under the pivot) makes sigma_i + 1
//    exchanges of one word on cycle i's sigma_i dimensions, so one of them
//    carries ceil(U (sigma_i + 1) / sigma_i) words over the whole schedule:
//    683 and 384, for any schedule of A1's chains.
//  - A1': in a phase of sigma_max cycles the longest cycle's x_t words run
//    its rotations in lock-step (N_k words each), putting max_k N_k >=
//    ceil(x_t / sigma_max) on one of its dimensions in every cycle; each of
//    another cycle's dimensions carries all its words of the phase, and one of
//    the other cycles has at least (K - x_t) / (beta - 1). The least sum over
//    every split of K into the x_t (counted below) is 1030 and 517, for any
//    parts running each cycle once, in phases of sigma_max cycles. The
//    planner's blocks are not such phases and reach the per-dimension bound
//    K (every word crosses each of the sigma_p dimensions once, so the
//    cycles' busiest links carry at least sigma_p K / sigma_p words): 1024
//    and 512 in 16 cycles.
TEST_P(SdpRun, A1AndA1PrimeNPortAtTable3sCounts) {
  struct Case {
    std::vector<std::vector<unsigned>> cycles;
    unsigned m;
    std::uint64_t a1_cycles, a1, a1_prime_cycles, a1_prime;
    double paper_a1, paper_a1_prime;
  };
  const Case cases[] = {
      {{{0, 1, 2}, {3, 4, 5, 6, 7, 8}}, 10, 14, 683, 16, 1024, 2.0 / 3 * 1024, 1024},
      {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9, 18, 384, 16, 512, 3.0 / 4 * 512, 512},
  };
  const auto a1_bound = [](const std::vector<std::uint64_t>& orders, std::uint64_t K) {
    std::uint64_t words = 0;
    for (std::uint64_t s : orders) words = std::max(words, (K / 2 * (s + 1) + s - 1) / s);
    return words;
  };
  const auto a1_prime_bound = [](const std::vector<std::uint64_t>& orders, std::uint64_t K) {
    const std::uint64_t beta = orders.size(), smax = *std::max_element(orders.begin(), orders.end());
    const auto phase = [&](std::uint64_t x) {
      return std::max((x + smax - 1) / smax * smax, beta == 1 ? 0 : (K - x + beta - 2) / (beta - 1));
    };
    std::uint64_t best = ~std::uint64_t{0};
    const std::function<void(std::uint64_t, std::uint64_t, std::uint64_t)> split = [&](std::uint64_t t,
                                                                                     std::uint64_t left,
                                                                                     std::uint64_t sum) {
      if (t + 1 == beta) {
        best = std::min(best, sum + phase(left));
        return;
      }
      for (std::uint64_t x = 0; x <= left; ++x) split(t + 1, left - x, sum + phase(x));
    };
    split(0, K, 0);
    return best;
  };
  EXPECT_EQ(a1_bound({3, 6}, 1024), 683u);
  EXPECT_EQ(a1_bound({2, 2, 5}, 512), 384u);
  EXPECT_EQ(a1_prime_bound({3, 6}, 1024), 1030u);
  EXPECT_EQ(a1_prime_bound({2, 2, 5}, 512), 517u);
  for (const Case& c : cases) {
    const DimensionPermutation p = real_cycles(9, c.m, c.cycles);
    SCOPED_TRACE(testing::Message() << "K = " << bit(c.m));
    const SdpPlan a1 = plan_a1_all_port(p, SdpEffort::patient);
    EXPECT_EQ(a1.schedule.cycles(), c.a1_cycles);
    const std::uint64_t t1 = model_plan(a1, 1, 0, bit(c.m)).element_transfers;
    EXPECT_EQ(t1, c.a1);
    std::vector<std::uint64_t> orders;
    for (const auto& cyc : c.cycles) orders.push_back(cyc.size());
    EXPECT_EQ(t1, a1_bound(orders, bit(c.m)));  // optimal for A1's chains
    EXPECT_LE(static_cast<double>(t1), c.paper_a1 + 1);
    check_schedule(a1.schedule);
    expect_runs(p, a1);
    const SdpPlan a1p = plan_a1_prime(p, true, SdpEffort::patient);
    EXPECT_EQ(a1p.schedule.cycles(), c.a1_prime_cycles);
    const std::uint64_t t1p = model_plan(a1p, 1, 0, bit(c.m + 1)).element_transfers;
    EXPECT_EQ(t1p, c.a1_prime);
    EXPECT_LT(t1p, a1_prime_bound(orders, bit(c.m)));  // below every schedule of phases
    std::uint64_t crossings = 0;  // every word crosses each of the 9 dimensions once
    for (std::size_t cyc = 0; cyc < a1p.schedule.cycles(); ++cyc) crossings += a1p.schedule.cycle_size(cyc);
    EXPECT_EQ(crossings, 9 * bit(c.m));
    EXPECT_EQ(t1p, crossings / 9);  // the per-dimension bound, met
    EXPECT_EQ(static_cast<double>(t1p), c.paper_a1_prime);
    check_schedule(a1p.schedule);
    expect_runs(p, a1p);
  }
}

// A1' n-port at the paper's K t_c (Table 3) on Table 4's orders, with either
// effort: the blocks (sdp::block_rows) put K/16 words on every one of the 9
// dimensions in each of 16 cycles, the per-dimension bound K (checked on the
// schedule's exchanges, not the planner's arithmetic), and the run matches
// the permutation written out bit by bit (processor bit alpha_k of a real
// cycle to alpha_(k+1), storage bits kept), not DimensionPermutation::apply.
TEST_P(SdpRun, A1PrimeNPortAtThePerDimensionBound) {
  const struct {
    std::vector<std::vector<unsigned>> cycles;
    unsigned m;
  } cases[] = {{{{0, 1, 2}, {3, 4, 5, 6, 7, 8}}, 10}, {{{0, 1}, {2, 3}, {4, 5, 6, 7, 8}}, 9}};
  for (const auto& c : cases)
    for (const SdpEffort effort : {SdpEffort::estimate, SdpEffort::patient}) {
      const std::uint64_t K = bit(c.m);
      SCOPED_TRACE(testing::Message() << "K = " << K << ", " << to_string(effort));
      const DimensionPermutation p = real_cycles(9, c.m, c.cycles);
      const SdpPlan plan = plan_a1_prime(p, true, effort);
      ASSERT_EQ(plan.schedule.cycles(), 16u);
      for (std::size_t cyc = 0; cyc < 16; ++cyc) {
        std::vector<std::uint64_t> load(9, 0);
        for (std::size_t e = 0; e < plan.schedule.cycle_size(cyc); ++e) ++load[plan.schedule.cycle_begin(cyc)[e].dim];
        for (std::uint64_t l : load) EXPECT_EQ(l, K / 16) << "cycle " << cyc;
      }
      EXPECT_EQ(model_plan(plan, 1, 0, 2 * K).element_transfers, K);
      check_schedule(plan.schedule);
      const auto formula = [&](std::uint64_t g) {
        std::uint64_t d = g & (K - 1);
        for (const auto& cyc : c.cycles)
          for (std::size_t k = 0; k < cyc.size(); ++k)
            if (test_bit(g, c.m + cyc[k])) d |= bit(c.m + cyc[(k + 1) % cyc.size()]);
        return d;
      };
      auto mach = make_labelled(p.n, p.m);
      const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(), formula);
      run_sdp_plan(*mach, plan);
      EXPECT_EQ(mach->read(), expected);
    }
}

// The counts pinned in SdpA5.LemmaEveryRowWithDummiesExceedsThePapersCount,
// SdpTable4.ElementTransfersAgainstThePapers and SdpOnA1Prime.CountsAtTable4sOrders
// at K = 512 and 1024, run bit for bit (the dealing decides which words take
// which row, so every dealing the search finds is checked on the machine).
TEST_P(SdpRun, PinnedCountsRunBitForBit) {
  const DimensionPermutation p36 = real_cycles(9, 10, {{0, 1, 2}, {3, 4, 5, 6, 7, 8}});
  const DimensionPermutation p225 = real_cycles(9, 9, {{0, 1}, {2, 3}, {4, 5, 6, 7, 8}});
  const struct {
    const char* name;
    const DimensionPermutation& p;
    SdpPlan plan;
    std::uint64_t B, transfers;  // B: the packet, K words (2K on A1''s machine)
  } runs[] = {
      {"A5 gamma 6, {3, 6}", p36, plan_a5(p36, 6, 1.0, 0.0, 0, SdpEffort::patient), 1024, 684},
      {"A5 gamma 2, {2, 2, 5}", p225, plan_a5(p225, 2, 1.0, 0.0, 0, SdpEffort::patient), 512, 480},
      {"A5 gamma 3, {2, 2, 5}", p225, plan_a5(p225, 3, 1.0, 0.0, 0, SdpEffort::patient), 512, 384},
      {"A6, {3, 6}", p36, plan_a6(p36, SdpEffort::patient), 1024, 683},
      {"A4, {3, 6}", p36, plan_a4(p36, SdpEffort::patient), 1024, 869},
      {"A4, {2, 2, 5}", p225, plan_a4(p225, SdpEffort::patient), 512, 475},
      {"A6', {3, 6}", p36, plan_a6_prime(p36, SdpEffort::patient), 2048, 1030},
      {"A6', {2, 2, 5}", p225, plan_a6_prime(p225, SdpEffort::patient), 1024, 517},
  };
  for (const auto& r : runs) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(model_plan(r.plan, 1, 0, r.B).element_transfers, r.transfers);
    expect_runs(r.p, r.plan);
  }
}

// A3 via A1 on the 2-cube (sec. 4.3.2): a processor transposition (x y) as
// E(v, x), E(v, y), E(v, x), "3K/2 t_c + 3 tau", on K words a node. One-port:
// 3 cycles of K/2 words a processor pair, 1 a storage-processor pair; for the
// transpose (all orders 2: one step of sigma_p / 2 pairs) exactly the paper's
// 3 sigma_p K / 4. n-port: A1 n-port over each step's pairs, 3K/4 words a step
// (never more than one-port's words).
TEST_P(SdpRun, A3ViaA1ForRandomPermutations) {
  std::mt19937 rng(47);
  for (unsigned n = 1; n <= 5; ++n)
    for (unsigned m = 1; m <= 4; ++m)
      for (int trial = 0; trial < 4; ++trial) {
        const DimensionPermutation p = random_permutation(n, m, rng);
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", perm " << fmt::format("{}", fmt::join(p.to, ",")));
        // n-port, a step is a round-robin over its pairs: rounds of 3 cycles (1
        // when it has no processor pair), one round a pair.
        std::uint64_t pp = 0, sp = 0, rounds = 0;
        for (const auto& step : a3_steps(analyze(p))) {
          std::uint64_t pairs = 0, round = 1;
          for (const auto& [x, y] : step) {
            const unsigned procs = (p.is_processor_bit(x) ? 1u : 0u) + (p.is_processor_bit(y) ? 1u : 0u);
            pp += procs == 2 ? 1 : 0;
            sp += procs == 1 ? 1 : 0;
            pairs += procs > 0 ? 1 : 0;
            round = procs == 2 ? 3 : round;
          }
          rounds += pairs * round;
        }
        const SdpPlan one = plan_a3_via_a1(p);
        EXPECT_EQ(one.algorithm, "A3-A1");
        EXPECT_EQ(one.schedule.cycles(), 3 * pp + sp);
        EXPECT_EQ(model_plan(one, 1, 0, bit(m)).element_transfers, (3 * pp + sp) * (bit(m) / 2));
        check_schedule(one.schedule);
        expect_runs(p, one);
        const SdpPlan all = plan_a3_via_a1(p, true);
        EXPECT_EQ(all.schedule.rules.model, PortModel::all_port);
        EXPECT_EQ(all.schedule.cycles(), rounds);
        EXPECT_LE(model_plan(all, 1, 0, bit(m)).element_transfers, (3 * pp + sp) * (bit(m) / 2));
        check_schedule(all.schedule);
        expect_runs(p, all);
      }
  // The transpose of a 4 x 4 processor grid (bits 0 <-> 2, 1 <-> 3), K = 16:
  // one step of 2 pairs, 6 cycles of K/2, the paper's 3 sigma_p K / 4 = 48
  // (single path: 2 cycles of K a pair, sigma_p K = 64).
  const DimensionPermutation t = real_cycles(4, 4, {{0, 2}, {1, 3}});
  const SdpPlan one = plan_a3_via_a1(t);
  EXPECT_EQ(model_plan(one, 1, 0, 16).element_transfers, 48u);
  EXPECT_EQ(model_plan(plan_a3(t), 1, 0, 32).element_transfers, 64u);
  expect_runs(t, one);
  // Table 4's {3, 6} at K = 1024, n-port: steps of 3, 3 and 1 pairs, 3K/4 each
  // (2304 with fractional parts; 2316 in whole pivot pairs, K/3 being none),
  // against single-path parts' 3076 and the paper's pipelined ceil(log2 6)
  // (K/2B + 1) B, about 1536.
  const DimensionPermutation p36 = real_cycles(9, 10, {{0, 1, 2}, {3, 4, 5, 6, 7, 8}});
  const SdpPlan all36 = plan_a3_via_a1(p36, true);
  EXPECT_EQ(all36.schedule.cycles(), 21u);
  EXPECT_EQ(model_plan(all36, 1, 0, 1024).element_transfers, 2316u);
  EXPECT_EQ(model_plan(plan_a3(p36, true), 1, 0, 2048).element_transfers, 3076u);
  expect_runs(p36, all36);
  DimensionPermutation no_memory;
  no_memory.n = 2;
  no_memory.to = {1, 0};
  EXPECT_THROW(plan_a3_via_a1(no_memory), Error);
}

// A3-pipelined: each step's transpositions over P parts, part k transposing
// pair (k + phase) mod P; a transposition's chains move one word a cycle on
// both links of both its dimensions, both ways (the relays forwarding the
// word that arrived the cycle before), so a cycle costs one word and a chain
// of L words L + 1 cycles. Bit for bit on random separable permutations.
TEST_P(SdpRun, A3PipelinedForRandomPermutations) {
  std::mt19937 rng(53);
  int separable = 0;
  for (unsigned n = 1; n <= 6; ++n)
    for (unsigned m = 1; m <= 6; ++m)
      for (int trial = 0; trial < 6; ++trial) {
        // Every third trial any permutation; the others separable: processor and
        // storage bits each permuted among themselves.
        DimensionPermutation p = random_permutation(n, m, rng);
        if (trial % 3 != 0) {
          std::iota(p.to.begin(), p.to.end(), 0u);
          std::shuffle(p.to.begin(), p.to.begin() + m, rng);
          std::shuffle(p.to.begin() + m, p.to.end(), rng);
        }
        const DimensionPermutationAnalysis a = analyze(p);
        SCOPED_TRACE(testing::Message() << "n = " << n << ", m = " << m << ", perm " << fmt::format("{}", fmt::join(p.to, ",")));
        if (!a.separable) {
          EXPECT_THROW(plan_a3_pipelined(p), Error);
          continue;
        }
        std::uint64_t most = 0, floor = 0;
        bool powers = true;
        for (const auto& step : a3_steps(a)) {
          std::uint64_t pairs = 0;
          for (const auto& [x, y] : step) pairs += p.is_processor_bit(x) ? 1 : 0;
          most = std::max(most, pairs);
          // Each pair's links carry its 2^m words' halves, plus a cycle of fill per part.
          if (pairs > 0) floor += bit(m) / 2 + pairs;
          powers = powers && (pairs & (pairs - 1)) == 0;
        }
        if (bit(m) < 2 * most) {
          EXPECT_THROW(plan_a3_pipelined(p), Error);
          continue;
        }
        ++separable;
        const SdpPlan plan = plan_a3_pipelined(p);
        EXPECT_EQ(plan.algorithm, "A3-pipelined");
        EXPECT_EQ(plan.schedule.m, m + 1);
        const ScheduleStats st = check_schedule(plan.schedule);
        EXPECT_EQ(plan.schedule.rules.channel_width, 1u);
        const std::uint64_t transfers = model_plan(plan, 1, 0, 1).element_transfers;
        EXPECT_EQ(transfers, st.cycles);  // one word on the busiest link every cycle
        EXPECT_GE(transfers, floor);
        if (powers) {
          EXPECT_EQ(transfers, floor);  // P parts of K/P words: one chain a half, K/2 + P a step
        }
        expect_runs(p, plan);
        // Packets of B words: B chains side by side, K/2 + P B words in K/2B + P cycles a step
        // when a part's half (K/2P words) holds B positions or more.
        const std::uint64_t B = std::uint64_t{2} << (rng() % 2);
        if (B > bit(m)) continue;
        const SdpPlan packets = plan_a3_pipelined(p, B);
        EXPECT_LE(packets.schedule.rules.channel_width, B);
        check_schedule(packets.schedule);
        const SdpModel model = model_plan(packets, 1, 0, B);
        EXPECT_EQ(model.startups, packets.schedule.cycles());
        if (powers && bit(m) / (2 * std::max<std::uint64_t>(most, 1)) >= B) {
          std::uint64_t words = 0, cycles = 0;
          for (const auto& step : a3_steps(a)) {
            std::uint64_t pairs = 0;
            for (const auto& [x, y] : step) pairs += p.is_processor_bit(x) ? 1 : 0;
            if (pairs == 0) continue;
            words += bit(m) / 2 + pairs * B;
            cycles += bit(m) / (2 * B) + pairs;
          }
          EXPECT_EQ(model.element_transfers, words);
          EXPECT_EQ(packets.schedule.cycles(), cycles);
        }
        expect_runs(p, packets);
      }
  EXPECT_GE(separable, 100);
}

// A3-pipelined against Table 3's n-port A3, ceil(log2 sigma_max) (K/2B + 1)
// (tau + B t_c) at B = 1: a step of P transpositions takes K/2 + P cycles of
// one word when P is a power of two (P parts of K/P words, one chain of
// K/2P a half), a few more otherwise (K/P is no block of a power of two).
TEST_P(SdpRun, A3PipelinedAgainstTable3) {
  // The 4 x 4 processor transpose at K = 16: one step of 2 pairs, 8 + 2 = 10
  // words (paper 9; A3-A1 12 n-port, single path 16).
  const DimensionPermutation t = real_cycles(4, 4, {{0, 2}, {1, 3}});
  const SdpPlan pt = plan_a3_pipelined(t);
  EXPECT_EQ(model_plan(pt, 1, 0, 1).element_transfers, 10u);
  expect_runs(t, pt);
  // Table 4's {3, 6} at K = 1024: steps of 3, 3 and 1 pairs, 3 (512 + 1) = 1539
  // words in the paper, A3-A1's 2316 and single-path parts' 3076 before.
  const DimensionPermutation p36 = real_cycles(9, 10, {{0, 1, 2}, {3, 4, 5, 6, 7, 8}});
  const SdpPlan a36 = plan_a3_pipelined(p36);
  // Steps of 3 pairs: parts with halves 172, 172 and 168 words (4 + 4 + 3 chains),
  // 176 cycles a phase; the step of 1 pair takes K/2 + 1 = 513 as in the paper.
  EXPECT_EQ(model_plan(a36, 1, 0, 1).element_transfers, 3u * 176u * 2u + 513u);
  EXPECT_EQ(model_plan(a36, 1, 0, 1).element_transfers, 1569u);
  // Packets of B = 8 (Table 3: 3 (K/2B + 1) = 195 start-ups, 3 (K/2 + B) = 1560 words):
  // a step of 3 pairs deals a lane's 64 positions as 22, 22, 20 (16 + 4 + 2: 25 cycles
  // a phase, 8 words each), 600 words; the step of one pair 65 cycles, 520 words.
  const SdpPlan b36 = plan_a3_pipelined(p36, 8);
  EXPECT_EQ(b36.schedule.cycles(), 2u * 75u + 65u);
  EXPECT_EQ(model_plan(b36, 1, 0, 8).element_transfers, 2u * 600u + 520u);
  expect_runs(p36, b36);
  EXPECT_THROW(plan_a3_pipelined(p36, 3), Error);
  EXPECT_LT(model_plan(a36, 1, 0, 1).element_transfers, model_plan(plan_a3_via_a1(p36, true), 1, 0, 1024).element_transfers);
  expect_runs(p36, a36);
}

HCUBE_ON_EVERY_BACKEND(SdpRun);

}  // namespace
}  // namespace hcube

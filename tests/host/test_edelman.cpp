// Edelman's optimal AAPC schedule (Edelman's paper; lecture notes sec. 9):
// the direct construction against the printed tables, conditions 1-3, and
// runs aligned (direct addressing) and unaligned (node k using w xor k) on
// every backend against the transpose written from its formula.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "backend_test.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/edelman.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

// A printed table, rows = steps, entries = links 0..d-1 in binary (most significant bit first).
EdelmanTable parse_rows(const std::vector<std::string>& rows) {
  EdelmanTable t;
  for (const std::string& row : rows) {
    std::vector<std::uint64_t> entries;
    std::size_t pos = 0;
    while (pos < row.size()) {
      const std::size_t end = row.find(' ', pos);
      entries.push_back(std::stoull(row.substr(pos, end - pos), nullptr, 2));
      if (end == std::string::npos) break;
      pos = end + 1;
    }
    t.push_back(entries);
  }
  return t;
}

// Edelman's printed tables i-iii (d = 3, 4, 5; step s printed from 1, n = 2s - 1),
// legible in the seed, and d = 1, 2 from the construction's definition.
TEST(Edelman, PrintedTables) {
  EXPECT_EQ(edelman_table(1), parse_rows({"1"}));
  EXPECT_EQ(edelman_table(2), parse_rows({"11 10", "01 11"}));
  EXPECT_EQ(edelman_table(3), parse_rows({"011 110 100", "001 111 110", "111 010 101", "101 011 111"}));
  EXPECT_EQ(edelman_table(4), parse_rows({"0011 0110 1100 1000", "0001 0111 1110 1010", "0111 0010 1101 1100",
                                          "0101 0011 1111 1110", "1011 1110 0100 1001", "1001 1111 0110 1011",
                                          "1111 1010 0101 1101", "1101 1011 0111 1111"}));
  EXPECT_EQ(edelman_table(5),
            parse_rows({"00011 00110 01100 11000 10000", "00001 00111 01110 11010 10010",
                        "00111 00010 01101 11100 10100", "00101 00011 01111 11110 10110",
                        "01011 01110 00100 11001 11000", "01001 01111 00110 11011 11010",
                        "01111 01010 00101 11101 11100", "01101 01011 00111 11111 11110",
                        "10011 10110 11100 01000 10001", "10001 10111 11110 01010 10011",
                        "10111 10010 11101 01100 10101", "10101 10011 11111 01110 10111",
                        "11011 11110 10100 01001 11001", "11001 11111 10110 01011 11011",
                        "11111 11010 10101 01101 11101", "11101 11011 10111 01111 11111"}));
}

TEST(Edelman, ConditionsHoldUpTo15) {
  for (unsigned d = 1; d <= 15; ++d) {
    const auto bad = edelman_violation(edelman_table(d), d);
    EXPECT_FALSE(bad.has_value()) << "d = " << d << ": " << *bad;
  }
  // The checker names what a broken table breaks.
  EdelmanTable t = edelman_table(3);
  std::swap(t[0][0], t[1][0]);
  EXPECT_FALSE(edelman_violation(t, 3).has_value());  // still a valid table: column 0 permuted
  t[0][1] = t[0][0];
  ASSERT_TRUE(edelman_violation(t, 3).has_value());
  t = edelman_table(3);
  t[0][1] = 0b101;  // bit 1 clear
  EXPECT_NE(edelman_violation(t, 3)->find("condition 1"), std::string::npos);
  t = edelman_table(3);
  t[1][2] = t[0][2];
  EXPECT_NE(edelman_violation(t, 3)->find("condition 3"), std::string::npos);
  EXPECT_THROW(edelman_table(0), Error);
}

// K/2 steps with every link busy; the span the AAPC paper reports exceeds 2^(d-2).
TEST(Edelman, CountsAndSpan) {
  for (unsigned d = 2; d <= 10; ++d) {
    const ScheduleStats st = check_schedule(make_edelman_schedule(d, d, d, true));  // complete: each word its bits once
    EXPECT_EQ(st.cycles, std::uint64_t{1} << (d - 1));
    EXPECT_EQ(st.min_channel_use, 1.0);
    if (d >= 3) {
      EXPECT_GT(st.max_span, 1u << (d - 2)) << "d = " << d;
    }
    std::printf("[ measured ] Edelman d = %u: %llu steps, max span %u (Algorithm 4: d = %u)\n", d,
                static_cast<unsigned long long>(st.cycles), st.max_span, d);
  }
}

class EdelmanRun : public BackendTest {};

TEST_P(EdelmanRun, AlignedAndUnalignedAreTheTranspose) {
  for (unsigned d = 1; d <= 5; ++d)
    for (unsigned extra_n : {0u, 1u})
      for (unsigned extra_m : {0u, 2u})
        for (bool aligned : {true, false}) {
          const unsigned n = d + extra_n, m = d + extra_m;
          SCOPED_TRACE(testing::Message() << "d = " << d << ", n = " << n << ", m = " << m
                                          << (aligned ? ", aligned" : ", unaligned"));
          const Schedule s = make_edelman_schedule(d, n, m, aligned);
          check_schedule(s);
          auto mach = make_labelled(n, m);
          const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, mach->geometry(), d);
          const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                                  plan.destination);
          run_schedule(*mach, s, plan.f, plan.g);
          ASSERT_EQ(mach->read(), expected);
          // Unaligned runs need no alignment at all: the indirect addresses do its work.
          EXPECT_EQ(mach->counters().alignments, aligned ? 2u : 0u);
          EXPECT_EQ(mach->counters().routing_cycles, std::uint64_t{1} << (m - 1));
        }
}

// Edelman's bit reversal of a 2^(2d) vector: location rev_d(w xor k), no
// alignment, every link busy in each of the 2^(d-1) cycles; bit for bit against
// the address formula p|q -> rev(q)|rev(p).
TEST_P(EdelmanRun, BitReversalWithTheSameTable) {
  for (unsigned d = 1; d <= 7; ++d) {
    SCOPED_TRACE(testing::Message() << "d = " << d);
    const Schedule s = make_edelman_bit_reversal_schedule(d);
    check_schedule(s);
    EXPECT_EQ(s.cycles(), std::uint64_t{1} << (d - 1));
    auto mach = make_labelled(d, d);
    const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                            [&](std::uint64_t g) { return reverse_bits(g, 2 * d); });
    run_schedule(*mach, s, AffineMap(mach->geometry()), AffineMap(mach->geometry()));
    ASSERT_EQ(mach->read(), expected);
    EXPECT_EQ(mach->counters().alignments, 0u);
    EXPECT_EQ(mach->counters().routing_cycles, std::uint64_t{1} << (d - 1));
    // One word each way on every link in every cycle.
    EXPECT_EQ(mach->counters().element_hops, (std::uint64_t{1} << (d - 1)) * d * (std::uint64_t{1} << d));
  }
}

HCUBE_ON_EVERY_BACKEND(EdelmanRun);

}  // namespace
}  // namespace hcube

// Sequences of AAPCs (Johnsson & Ho 1992, sec. 2.3, 4.1): the generalized
// shuffle against its formula on every backend, Lemma 1's single pair of
// alignments, Table 3 state by state, and Corollary 2's pipelined counts.
#include <gtest/gtest.h>

#include "backend_test.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/aapc_sequence.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

class AapcSequence : public BackendTest {
 protected:
  std::unique_ptr<Machine> make(unsigned n, unsigned m, ElementType type = ElementType::u32) {
    return make_labelled(n, m, type);
  }
};

TEST_P(AapcSequence, GeneralizedShuffleForEveryAlgorithmAndMode) {
  const auto& types = all_element_types();
  std::size_t k = 0;
  for (unsigned d = 1; d <= 4; ++d)
    for (unsigned s = 1; s <= 4; ++s)
      for (unsigned m : {d, d + 1}) {
        if (s * d + m > 16) continue;
        for (int alg = 1; alg <= 4; ++alg)
          for (bool pipelined : {false, true}) {
            const Schedule sch = make_aapc_sequence(
                AapcSequenceOptions{static_cast<AapcAlgorithm>(alg), d, s, m, pipelined, LineDrawing::diagonal, {}, {}});
            auto mach = make(s * d, m, types[k++ % types.size()].type);
            const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                                    shuffle_destination(mach->geometry(), d, s));
            const AffineMap id(mach->geometry());
            run_schedule(*mach, sch, id, id);
            SCOPED_TRACE(testing::Message() << "algorithm " << alg << ", d = " << d << ", s = " << s << ", m = " << m
                                            << (pipelined ? ", pipelined" : ", sequential"));
            ASSERT_EQ(mach->read(), expected);
            // Lemma 1: one pre- and one post-alignment for the whole sequence.
            EXPECT_EQ(mach->counters().alignments, 2u);
            EXPECT_EQ(mach->counters().kernel_launches, sch.cycles() + 2);
          }
      }
}

// Table 3: (k, j|i) -> (j, i|k) with two-bit axes, 16 nodes of 4 words, state
// by state (columns P0..P15, rows local addresses). Transcribed from the
// paper (legible).
TEST_P(AapcSequence, Table3StateByState) {
  const std::vector<std::vector<std::string>> table3 = {
      {"0 4 8 12 16 20 24 28 32 36 40 44 48 52 56 60", "1 5 9 13 17 21 25 29 33 37 41 45 49 53 57 61",
       "2 6 10 14 18 22 26 30 34 38 42 46 50 54 58 62", "3 7 11 15 19 23 27 31 35 39 43 47 51 55 59 63"},
      {"0 5 10 15 17 20 27 30 34 39 40 45 51 54 57 60", "1 4 11 14 16 21 26 31 35 38 41 44 50 55 56 61",
       "2 7 8 13 19 22 25 28 32 37 42 47 49 52 59 62", "3 6 9 12 18 23 24 29 33 36 43 46 48 53 58 63"},
      {"0 5 10 15 20 17 30 27 40 45 34 39 60 57 54 51", "4 1 14 11 16 21 26 31 44 41 38 35 56 61 50 55",
       "8 13 2 7 28 25 22 19 32 37 42 47 52 49 62 59", "12 9 6 3 24 29 18 23 36 33 46 43 48 53 58 63"},
      {"0 17 34 51 20 5 54 39 40 57 10 27 60 45 30 15", "16 1 50 35 4 21 38 55 56 41 26 11 44 61 14 31",
       "32 49 2 19 52 37 22 7 8 25 42 59 28 13 62 47", "48 33 18 3 36 53 6 23 24 9 58 43 12 29 46 63"},
      {"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", "16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31",
       "32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47", "48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63"},
  };
  const auto rows = [](const std::vector<unsigned char>& state) {
    std::vector<std::string> out;
    for (unsigned a = 0; a < 4; ++a) {
      std::string row;
      for (unsigned p = 0; p < 16; ++p) {
        std::uint32_t label;
        std::memcpy(&label, &state[(p * 4 + a) * 4], 4);
        row += fmt::format("{}{}", p ? " " : "", label);
      }
      out.push_back(row);
    }
    return out;
  };
  const Schedule sch =
      make_aapc_sequence(AapcSequenceOptions{AapcAlgorithm::alg4, 2, 2, 2, false, LineDrawing::diagonal, {}, {}});
  ASSERT_EQ(sch.cycles(), 4u);  // two AAPCs of K/2 = 2 cycles, one after the other
  auto mach = make(4, 2);
  EXPECT_EQ(rows(mach->read()), table3[0]) << "initial allocation";
  const AffineMap id(mach->geometry());
  for (const AlignmentStep& a : schedule_pre_alignment(sch, id)) mach->align(a);
  EXPECT_EQ(rows(mach->read()), table3[1]) << "after the mod 2 addition (one alignment for both AAPCs)";
  for (std::size_t c = 0; c < sch.cycles(); ++c) {
    mach->run_cycle(sch.cycle(c), sch.rules, sch.offset_maps);
    if (c == 1) {
      EXPECT_EQ(rows(mach->read()), table3[2]) << "after the first AAPC";
    }
  }
  EXPECT_EQ(rows(mach->read()), table3[3]) << "after the second AAPC";
  for (const AlignmentStep& a : schedule_post_alignment(sch, id)) mach->align(a);
  EXPECT_EQ(rows(mach->read()), table3[4]) << "after the final mod 2 addition";
}

HCUBE_ON_EVERY_BACKEND(AapcSequence);

// Corollary 2, on the schedules: pipelined Alg. 1 and Alg. 3 take exactly
// d ceil(K/2d) + (s-1)d and K/2 + (s-1)(d + K/2 mod d) cycles. Alg. 4 takes
// the fewest of its constructions: at most K/2 + (s-1)d, and K/2 + s - 1 where
// K/2 >= n (the pairs skewed bit by bit); for d = 3 on K = 8 the SAT solver's
// schedule. tests/host/test_skewed_pairs.cpp holds the skewed pipeline's own tests.
TEST(Corollary2, PipelinedCycleCounts) {
  for (unsigned d = 1; d <= 6; ++d)
    for (unsigned m = d; m <= d + 2; ++m)
      for (unsigned s = 1; s <= 4; ++s) {
        if (s * d + m > 20) continue;  // the exact clash test is quadratic per cycle
        const std::uint64_t half = bit(m - 1);
        for (AapcAlgorithm alg : {AapcAlgorithm::alg1, AapcAlgorithm::alg3, AapcAlgorithm::alg4}) {
          const Schedule sch = make_aapc_sequence(AapcSequenceOptions{alg, d, s, m, true, LineDrawing::diagonal, {}, {}});
          const ScheduleStats st = check_schedule(sch);  // legal, clash-free on every node (exact GF(2) test)
          SCOPED_TRACE(testing::Message() << "algorithm " << static_cast<int>(alg) << ", d = " << d << ", m = " << m
                                          << ", s = " << s);
          if (alg == AapcAlgorithm::alg4 && d == 3 && m == 3 && s > 1) {
            // The SAT solver's 6-cycle schedule two AAPCs at a time and, for odd s, its 9-cycle one
            // of three first: 3 s, the farthest word's distance, one below Corollary 2.
            EXPECT_EQ(st.cycles, 3 * s);
            EXPECT_EQ(st.cycles + 1, corollary2_cycles(alg, d, m, s));
          } else if (alg != AapcAlgorithm::alg4 || s == 1) {
            EXPECT_EQ(st.cycles, corollary2_cycles(alg, d, m, s));
          } else {
            EXPECT_LE(st.cycles, corollary2_cycles(alg, d, m, s));
            EXPECT_LE(st.cycles, corollary2_cycles(AapcAlgorithm::alg3, d, m, s));
            EXPECT_GE(st.cycles, std::max<std::uint64_t>(half + s - 1, s * d));
            if (half >= s * d) {
              EXPECT_EQ(st.cycles, half + s - 1);
            }
          }
          // Full channels while the pipeline is full: s d exchanges per cycle.
          if (s > 1 && half % d == 0 && alg == AapcAlgorithm::alg1 && (s - 1) * d < half) {
            EXPECT_EQ(sch.cycle_size((s - 1) * d), s * d);
          }
        }
        // Sequential: s AAPCs one after another.
        const Schedule seq =
            make_aapc_sequence(AapcSequenceOptions{AapcAlgorithm::alg4, d, s, m, false, LineDrawing::diagonal, {}, {}});
        EXPECT_EQ(check_schedule(seq).cycles, s * half);
      }
}

// What the multi-aapc note says comes from the planner's own choice of blocks: d = 3 on K = 8
// runs the three-AAPC block first for every odd s (9 + 6 (s - 3)/2 < 6 (s - 1)/2 + 4), twos
// for even s; where no solver schedule applies, no blocks.
TEST(Corollary2, FoundCoverFollowsThePlanner) {
  for (unsigned s = 2; s <= 7; ++s) {
    SCOPED_TRACE(testing::Message() << "s = " << s);
    const FoundCover c =
        found_cover(AapcSequenceOptions{AapcAlgorithm::alg4, 3, s, 3, true, LineDrawing::diagonal, {}, {}});
    EXPECT_EQ(c.three_first, s % 2 == 1);
    EXPECT_EQ(c.pairs, (s % 2 == 1 ? s - 3 : s) / 2);
    EXPECT_FALSE(c.last_alone);
  }
  for (const AapcSequenceOptions& o :
       {AapcSequenceOptions{AapcAlgorithm::alg4, 4, 3, 4, true, LineDrawing::diagonal, {}, {}},
        AapcSequenceOptions{AapcAlgorithm::alg4, 3, 3, 3, false, LineDrawing::diagonal, {}, {}},
        AapcSequenceOptions{AapcAlgorithm::alg3, 3, 3, 3, true, LineDrawing::diagonal, {}, {}}}) {
    const FoundCover c = found_cover(o);
    EXPECT_FALSE(c.three_first);
    EXPECT_EQ(c.pairs, 0u);
    EXPECT_FALSE(c.last_alone);
  }
}

TEST_P(AapcSequence, AnyAxisOrder) {
  for (bool pipelined : {false, true}) {
    const std::vector<unsigned> order = {2, 0, 1};
    const Schedule sch = make_aapc_sequence(
        AapcSequenceOptions{AapcAlgorithm::alg3, 2, 3, 3, pipelined, LineDrawing::diagonal, order, {}});
    auto mach = make(6, 3);
    const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                            shuffle_destination(mach->geometry(), 2, 3, order));
    const AffineMap id(mach->geometry());
    run_schedule(*mach, sch, id, id);
    EXPECT_EQ(mach->read(), expected) << (pipelined ? "pipelined" : "sequential");
  }
  EXPECT_THROW(make_aapc_sequence(AapcSequenceOptions{AapcAlgorithm::alg3, 2, 3, 3, true, LineDrawing::diagonal,
                                                      {0, 0, 1}, {}}),
               Error);
}

// d = 3 on K = 8: the solver's two- and three-AAPC schedules placed on any axes, in any order,
// with the other axes folded into their offset maps (the three-AAPC block first for odd s).
TEST_P(AapcSequence, FoundScheduleOnAnyAxesInAnyOrder) {
  const std::vector<std::vector<unsigned>> orders = {{1, 0}, {2, 0, 1}, {1, 2, 0}, {3, 1, 0, 2}, {4, 0, 3, 2, 1}};
  for (const auto& order : orders) {
    const auto s = static_cast<unsigned>(order.size());
    SCOPED_TRACE(testing::Message() << "s = " << s << ", order " << fmt::format("{}", fmt::join(order, ",")));
    const Schedule sch =
        make_aapc_sequence(AapcSequenceOptions{AapcAlgorithm::alg4, 3, s, 3, true, LineDrawing::diagonal, order, {}});
    EXPECT_EQ(check_schedule(sch).cycles, 3 * s);
    auto mach = make(3 * s, 3, ElementType::u64);
    const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                            shuffle_destination(mach->geometry(), 3, s, order));
    const AffineMap id(mach->geometry());
    run_schedule(*mach, sch, id, id);
    ASSERT_EQ(mach->read(), expected);
  }
}

TEST(AapcSequenceOptions, BadInputIsRejected) {
  EXPECT_THROW(make_aapc_sequence(AapcSequenceOptions{AapcAlgorithm::alg4, 2, 0, 2, true, LineDrawing::diagonal, {}, {}}),
               Error);
  EXPECT_THROW(make_aapc_sequence(AapcSequenceOptions{AapcAlgorithm::alg4, 0, 2, 2, true, LineDrawing::diagonal, {}, {}}),
               Error);
  EXPECT_THROW(make_aapc_sequence(AapcSequenceOptions{AapcAlgorithm::alg4, 3, 2, 2, true, LineDrawing::diagonal, {}, {}}),
               Error);  // d > m
}

}  // namespace
}  // namespace hcube

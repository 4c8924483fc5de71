// hcube tune's choice of where stores start to stream, from made-up scores at
// three sizes around a 32 MiB L3 (2^24, 2^25, 2^26 bytes), margin 5%.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hcube/core/error.hpp"
#include "hcube/emulator/tune.hpp"
#include "hcube/emulator/wisdom.hpp"
#include "hcube/backends/cpu/tuning.hpp"

namespace hcube {
namespace {

constexpr std::uint64_t kDefault = std::uint64_t{1} << 24, kNever = std::uint64_t{1} << 62;

std::uint64_t choose(const std::vector<std::uint64_t>& sizes, const std::vector<double>& streamed,
                     const std::vector<double>& plain) {
  return choose_streaming_bytes(sizes, streamed, plain, kDefault, 1.05);
}

TEST(TuneStreaming, TheDefaultStaysWhereTheMeasurementsAgreeWithIt) {
  EXPECT_EQ(choose({24, 25, 26}, {1.0, 1.0, 1.0}, {0.5, 0.6, 0.7}), kDefault);  // streaming wins everywhere
  EXPECT_EQ(choose({24, 25, 26}, {1.0, 1.0, 1.0}, {1.0, 1.02, 0.98}), kDefault);  // within the noise
  EXPECT_EQ(choose({23, 24, 25}, {0.8, 1.0, 1.0}, {1.0, 0.9, 0.5}), kDefault);  // plain below it, streamed from it
  EXPECT_EQ(choose({}, {}, {}), kDefault);
}

TEST(TuneStreaming, TheThresholdMovesToWhereStreamingStopsLosing) {
  // Plain stores win at 2^24 (the L3 holds half of it), streaming from 2^26: 2^25 ties.
  EXPECT_EQ(choose({24, 25, 26}, {0.6, 0.9, 1.0}, {1.0, 0.9, 0.6}), std::uint64_t{1} << 25);
  // The sizes in any order.
  EXPECT_EQ(choose({26, 24, 25}, {1.0, 0.6, 0.9}, {0.6, 1.0, 0.9}), std::uint64_t{1} << 25);
  // Streaming already wins below the default.
  EXPECT_EQ(choose({23, 24, 25}, {1.0, 1.0, 1.0}, {0.5, 0.5, 0.5}), std::uint64_t{1} << 23);
  // Plain stores win at the largest size: no threshold at or below it fits, so never.
  EXPECT_EQ(choose({24, 25, 26}, {1.0, 1.0, 0.5}, {0.5, 0.5, 1.0}), kNever);
  EXPECT_EQ(choose({24, 25, 26}, {0.5, 0.5, 0.5}, {1.0, 1.0, 1.0}), kNever);
}

TEST(TuneStreaming, ScoresOfOtherLengthsAreRefused) {
  EXPECT_THROW(choose({24, 25}, {1.0}, {1.0, 1.0}), Error);
}

TEST(Wisdom, EveryKeyHcubeReadsHasARangeThatHoldsItsDefault) {
  const kernels::cpu::tuning::Knobs d;
  const std::pair<const char*, std::uint64_t> keys[] = {{wisdom_key::streaming_bytes, d.streaming_bytes},
                                                        {wisdom_key::prefetch_runs, d.prefetch_runs},
                                                        {wisdom_key::prefetch_rows, d.prefetch_rows},
                                                        {wisdom_key::align_region_bytes, d.align_region_bytes},
                                                        {"fused.tile_bytes.4", 131072}};
  for (const auto& [key, standard] : keys) {
    const std::optional<WisdomRange> r = wisdom_range(key);
    ASSERT_TRUE(r.has_value()) << key;
    EXPECT_LE(r->low, standard) << key;
    EXPECT_GE(r->high, standard) << key;
  }
  EXPECT_FALSE(wisdom_range("no.such.key").has_value());
}

}  // namespace
}  // namespace hcube

// The fused pass's tiling (host/bit_permutation_tiling.hpp) and its kernel
// body under the host tile launcher, against dst[pi(s)] = src[s] computed bit by bit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "hcube/host/bit_permutation_tiling.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/backends/cpu/launch.hpp"
#include "hcube/kernels/permute.hpp"
#include "hcube/kernels/word.hpp"
#include "launcher_settings.hpp"
#include "test_words.hpp"

namespace hcube {
namespace {

std::uint64_t apply(const std::vector<unsigned>& to, std::uint64_t s) {
  std::uint64_t d = 0;
  for (unsigned i = 0; i < to.size(); ++i)
    if (test_bit(s, i)) d |= bit(to[i]);
  return d;
}

std::vector<unsigned> random_bits(unsigned q, std::mt19937& rng) {
  std::vector<unsigned> to(q);
  std::iota(to.begin(), to.end(), 0u);
  std::shuffle(to.begin(), to.end(), rng);
  return to;
}

std::vector<unsigned> reversal(unsigned q) {
  std::vector<unsigned> to(q);
  for (unsigned i = 0; i < q; ++i) to[i] = q - 1 - i;
  return to;
}

kernels::TilingView view_of(const BitPermutationTiling& plan) {
  return kernels::TilingView{plan.table.data(), plan.tile_bits, plan.run_bits, plan.outer_bits};
}
// The view borrows the plan's tables: a temporary plan would leave it dangling.
kernels::TilingView view_of(BitPermutationTiling&&) = delete;

// Every (tile, word) pair is one source index, read in runs of 2^b and written
// in runs of 2^b, and lands where pi sends it.
void expect_exact_cover(const std::vector<unsigned>& to, unsigned max_tile_bits) {
  const BitPermutationTiling plan = plan_bit_permutation_tiling(to, max_tile_bits);
  const kernels::TilingView v = view_of(plan);
  const auto q = static_cast<unsigned>(to.size());
  ASSERT_EQ(plan.tile_bits + plan.outer_bits, q);
  ASSERT_LE(plan.tile_bits, std::min(q, max_tile_bits));
  ASSERT_GE(plan.run_bits, std::min(q, max_tile_bits / 2));
  ASSERT_EQ(v.runs() * v.run_words(), v.tile_words());
  // Source index of tile o's word t = (run, word in run): runs are consecutive words.
  const auto source = [&](std::uint64_t o, std::uint64_t t) {
    return v.src_base(o) + v.src_run()[t >> plan.run_bits] + (t & low_mask(plan.run_bits));
  };
  std::vector<bool> read(std::size_t{1} << q, false);
  for (std::uint64_t o = 0; o < v.tiles(); ++o) {
    for (std::uint64_t t = 0; t < v.tile_words(); ++t) {
      const std::uint64_t s = source(o, t);
      ASSERT_FALSE(read[s]) << "source index " << s << " read twice";
      read[s] = true;
    }
    for (std::uint64_t r = 0; r < v.runs(); ++r)
      for (std::uint64_t k = 0; k < v.run_words(); ++k) {
        const std::uint64_t t = v.from_run()[r] | v.from_low()[k];
        ASSERT_EQ(v.dst_base(o) + v.dst_run()[r] + k, apply(to, source(o, t)));
      }
  }
}

TEST(BitPermutationTiling, EveryIndexOnceInRunsForManyPermutationsAndTileSizes) {
  std::mt19937 rng(11);
  for (unsigned q = 1; q <= 14; ++q)
    for (unsigned cap : {0u, 1u, 2u, 3u, 4u, 6u, 9u, 12u}) {
      SCOPED_TRACE(testing::Message() << "q = " << q << ", max tile bits " << cap);
      expect_exact_cover(random_bits(q, rng), cap);
      expect_exact_cover(reversal(q), cap);
      std::vector<unsigned> id(q);
      std::iota(id.begin(), id.end(), 0u);
      expect_exact_cover(id, cap);
    }
}

TEST(BitPermutationTiling, BitReversalTilesAreSquareRunsOfTheSourceAndDestination) {
  // q = 24, 16 KiB of uint32: runs of 2^6 words, tiles of 2^12 (64 rows of 64).
  const BitPermutationTiling plan = plan_bit_permutation_tiling(reversal(24), max_tile_bits_for(4, 16 * 1024));
  EXPECT_EQ(plan.run_bits, 6u);
  EXPECT_EQ(plan.tile_bits, 12u);
  EXPECT_EQ(plan.tiles(), std::uint64_t{1} << 12);
  // A permutation that keeps the low bits reads and writes whole 2^12-word tiles.
  std::vector<unsigned> swap_high(24);
  std::iota(swap_high.begin(), swap_high.end(), 0u);
  std::swap(swap_high[20], swap_high[23]);
  const BitPermutationTiling keep = plan_bit_permutation_tiling(swap_high, 12);
  EXPECT_EQ(keep.tile_bits, 12u);
  EXPECT_EQ(keep.runs(), 1u);
  EXPECT_EQ(keep.run_bits, 12u);
}

TEST(BitPermutationTiling, MaxTileBitsFollowTheWordSize) {
  EXPECT_EQ(max_tile_bits_for(1, 16384), 14u);
  EXPECT_EQ(max_tile_bits_for(4, 16384), 12u);
  EXPECT_EQ(max_tile_bits_for(16, 16384), 10u);
  EXPECT_EQ(max_tile_bits_for(16, 8), 0u);
}

// The host launcher (block transposes or gathers, streamed or not) and the
// per-word load and store the CUDA launcher runs (a thread per word of a tile)
// against dst[pi(s)] = src[s].
template <class Word>
void check_launchers(const std::vector<unsigned>& to, unsigned cap, bool per_word = true) {
  const auto q = static_cast<unsigned>(to.size());
  const BitPermutationTiling plan = plan_bit_permutation_tiling(to, cap);
  std::vector<Word> src(std::size_t{1} << q), expected(src.size());
  for (std::uint64_t s = 0; s < src.size(); ++s) expected[apply(to, s)] = src[s] = word_of<Word>(s);
  const auto same = [](const Word* a, const std::vector<Word>& b) {
    return std::memcmp(a, b.data(), b.size() * sizeof(Word)) == 0;
  };
  // A destination on a 64-byte boundary (the machine's storage: 32-byte AVX2
  // blocks) and one 16 bytes off it (16-byte blocks only).
  const std::size_t bytes = src.size() * sizeof(Word);
  // aligned_alloc wants a size that is a multiple of the alignment.
  std::unique_ptr<void, decltype(&std::free)> area(std::aligned_alloc(64, (bytes + 64 + 63) / 64 * 64), &std::free);
  // The large cases (no per-word check) run the defaults alone: their size streams already.
  const std::vector<kernels::cpu::tuning::Knobs> settings =
      per_word ? launcher_settings() : std::vector<kernels::cpu::tuning::Knobs>{kernels::cpu::tuning::Knobs{}};
  for (const kernels::cpu::tuning::Knobs& knobs : settings)
    for (const std::size_t offset : {std::size_t{0}, std::size_t{16}}) {
      auto* dst = reinterpret_cast<Word*>(static_cast<char*>(area.get()) + offset);
      std::memset(static_cast<void*>(dst), 0, bytes);
      kernels::cpu::launch_tiles(kernels::BitPermuteTileBody<Word>{src.data(), dst, view_of(plan)}, knobs);
      EXPECT_TRUE(same(dst, expected)) << sizeof(Word) << "-byte words, q = " << q << ", max tile bits " << cap
                                       << ", destination offset " << offset << ", " << describe(knobs);
    }
  if (!per_word) return;
  std::vector<Word> by_word(src.size(), Word{}), buffer(view_of(plan).buffer_words());
  const kernels::BitPermuteTileBody<Word> body{src.data(), by_word.data(), view_of(plan)};
  const std::uint64_t low = bit(plan.run_bits) - 1;
  for (std::uint64_t o = 0; o < plan.tiles(); ++o) {
    for (std::uint64_t t = 0; t < plan.tile_words(); ++t)
      body.load(body.view.src_base(o), t >> plan.run_bits, t & low, buffer.data());
    for (std::uint64_t u = 0; u < plan.tile_words(); ++u)
      body.store(body.view.dst_base(o), u >> plan.run_bits, u & low, buffer.data());
  }
  EXPECT_TRUE(same(by_word.data(), expected)) << "per word: " << sizeof(Word) << "-byte words, q = " << q << ", max tile bits "
                                       << cap;
}

TEST(BitPermutationTiling, HostLauncherMovesEveryWordToItsImage) {
  std::mt19937 rng(5);
  for (unsigned q : {1u, 5u, 10u, 17u})
    for (unsigned cap : {2u, 5u, 8u, 12u}) {
      const std::vector<unsigned> to = random_bits(q, rng);
      check_launchers<std::uint32_t>(to, cap);
      check_launchers<std::uint64_t>(to, cap);
      check_launchers<kernels::Word16>(to, cap);
    }
}

// The permutations that move the low bits away run as SIMD block transposes
// (backends/cpu/lane_transpose.hpp) from the tile buffer; above 16 MiB they
// stream, and a bit reversal's runs 4 KiB apart go through the staging area.
// They also run at 128 KiB, and 16-byte words at 64 KiB (the CPU backend's
// tiles for block transposes, rows padded by a line).
TEST(BitPermutationTiling, BlockTransposesStreamedAndStaged) {
  alignas(64) static const char aligned[64] = {};
  for (unsigned q : {8u, 14u, 18u, 23u}) {
    std::vector<unsigned> reversal(q), transpose(q);
    for (unsigned i = 0; i < q; ++i) {
      reversal[i] = q - 1 - i;
      transpose[i] = (i + q / 2) % q;
    }
    for (const auto& to : {reversal, transpose}) {
      const BitPermutationTiling plan = plan_bit_permutation_tiling(to, 12);
      const kernels::TilingView view = view_of(plan);
      const kernels::cpu::LaneTranspose lanes32 = kernels::cpu::plan_lane_transpose<std::uint32_t>(view, aligned);
      const kernels::cpu::LaneTranspose lanes64 = kernels::cpu::plan_lane_transpose<std::uint64_t>(view, aligned);
      const kernels::cpu::LaneTranspose lanes128 = kernels::cpu::plan_lane_transpose<kernels::Word16>(view, aligned);
#if defined(__SSE2__)
      // At q = 8 the runs (6 bits) take in the bits the low source bits go to: no block.
      EXPECT_EQ(lanes32.usable, q > 8) << "q = " << q;
      EXPECT_EQ(lanes64.usable, q > 8) << "q = " << q;
      if (q > 8) {
        EXPECT_EQ(lanes32.lane_bits, kernels::cpu::have_avx2() ? 3u : 2u) << "8 x 8 blocks where AVX2 runs";
        EXPECT_EQ(lanes64.lane_bits, kernels::cpu::have_avx2() ? 2u : 1u) << "4 x 4 blocks where AVX2 runs";
        // 16-byte words: 2 x 2 blocks in 32-byte registers, else the gather.
        EXPECT_EQ(lanes128.usable, kernels::cpu::have_avx2()) << "q = " << q;
      }
      if (q == 23 && to == reversal) {
        EXPECT_TRUE(lanes32.stage);
        EXPECT_TRUE(lanes64.stage);
        EXPECT_EQ(lanes128.stage, kernels::cpu::have_avx2());
      }
#endif
      // 2^23 words: 32 MiB of u32, past the streaming threshold; 64 MiB of u64, 128 MiB of 16-byte words.
      check_launchers<std::uint32_t>(to, 12, q < 23);
      check_launchers<std::uint64_t>(to, 11, q < 23);
      check_launchers<kernels::Word16>(to, 10, q < 23);
      if (lanes32.usable && q > 14) {
        check_launchers<std::uint32_t>(to, 15, false);
        check_launchers<std::uint64_t>(to, 14, false);
        check_launchers<kernels::Word16>(to, 13, false);
        check_launchers<kernels::Word16>(to, 12, false);
      }
    }
  }
  // Keeping the lowest bit: no block transpose, the gather runs.
  std::vector<unsigned> keep_low = {0, 3, 2, 1};
  const BitPermutationTiling keep_low_plan = plan_bit_permutation_tiling(keep_low, 4);
  EXPECT_FALSE(kernels::cpu::plan_lane_transpose<std::uint32_t>(view_of(keep_low_plan), aligned).usable);
  check_launchers<std::uint32_t>(keep_low, 4);
}

// Every other permutation with runs of a block's width runs as the block
// network (backends/cpu/lane_network.hpp): random ones, ones keeping some or
// all low bits, streamed past 16 MiB; each word to its image.
TEST(BitPermutationTiling, BlockNetworkForEveryOtherPermutation) {
  alignas(64) static const char aligned[64] = {};
  std::mt19937 rng(11);
  unsigned networks = 0;
  for (unsigned q : {6u, 9u, 12u, 16u})
    for (unsigned trial = 0; trial < 12; ++trial) {
      std::vector<unsigned> to = random_bits(q, rng);
      if (trial % 4 == 1)  // the two lowest bits kept
        for (unsigned k = 0; k < 2; ++k) std::swap(to[k], *std::find(to.begin(), to.end(), k));
      if (trial % 4 == 2) std::iota(to.begin(), to.end(), 0u);    // the identity
      for (unsigned cap : {6u, 8u, 12u}) {
        const BitPermutationTiling tiling = plan_bit_permutation_tiling(to, cap);  // the view borrows its tables
        const kernels::TilingView view = view_of(tiling);
        const bool lanes = kernels::cpu::plan_lane_transpose<std::uint32_t>(view, aligned).usable;
        const kernels::cpu::LaneNetwork net = kernels::cpu::plan_lane_network<std::uint32_t>(view, aligned);
        if (kernels::cpu::have_avx2() && view.run_bits >= 3 && view.tile_bits >= 6) {
          EXPECT_TRUE(net.usable) << "q = " << q << ", cap " << cap;
        }
        networks += net.usable && !lanes ? 1 : 0;
        check_launchers<std::uint32_t>(to, cap, false);
        check_launchers<std::uint64_t>(to, cap, false);
        check_launchers<kernels::Word16>(to, cap, false);
      }
    }
  if (kernels::cpu::have_avx2()) {
    EXPECT_GT(networks, 40u);
  }
  // Streamed: 2^23 u32 words, 32 MiB.
  check_launchers<std::uint32_t>(random_bits(23, rng), 12, false);
}

TEST(BitPermutationTiling, RejectsWhatIsNotAPermutation) {
  EXPECT_THROW(plan_bit_permutation_tiling({0, 2}, 4), Error);
  EXPECT_THROW(plan_bit_permutation_tiling({1, 1}, 4), Error);
  try {
    check_bit_permutation({0, 3, 3, 1}, "PermutePlan::Options::perm");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bit position 3 appears twice (entry 2)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hcube

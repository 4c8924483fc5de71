// Local alignments as affine maps over GF(2): each builder is checked against
// its definition written out directly, and the lookup tables against apply().
#include <gtest/gtest.h>

#include <random>

#include "hcube/host/affine_map.hpp"
#include "hcube/core/error.hpp"
#include "hcube/kernels/alignment.hpp"

namespace hcube {
namespace {

TEST(AffineMap, XorAlignIsThePapersPreAlignment) {
  const Geometry g{3, 4};
  const AffineMap a = AffineMap::xor_align(g, {0, 1, 2}, {0, 1, 2});
  for (std::uint64_t j = 0; j < 8; ++j)
    for (std::uint64_t i = 0; i < 16; ++i) EXPECT_EQ(a.apply(j, i), i ^ j);
  EXPECT_TRUE(a.is_pure_xor());
  EXPECT_EQ(a.moving_nodes(), 7u);
  // Node bit 2 laid onto memory bit 0 only.
  const AffineMap b = AffineMap::xor_align(g, {2}, {0});
  EXPECT_EQ(b.apply(4, 6), 7u);
  EXPECT_EQ(b.apply(3, 6), 6u);
  EXPECT_EQ(b.moving_nodes(), 4u);
}

TEST(AffineMap, PermuteBitsMovesBitBToPermB) {
  const Geometry g{1, 3};
  const AffineMap p = AffineMap::permute_bits(g, {2, 0, 1});  // bit 0 -> 2, 1 -> 0, 2 -> 1
  for (std::uint64_t i = 0; i < 8; ++i) {
    const std::uint64_t expected = ((i & 1) << 2) | (((i >> 1) & 1) << 0) | (((i >> 2) & 1) << 1);
    EXPECT_EQ(p.apply(0, i), expected);
  }
  EXPECT_FALSE(p.is_pure_xor());
  EXPECT_THROW(AffineMap::permute_bits(g, {0, 0, 1}), Error);
  EXPECT_THROW(AffineMap::permute_bits(g, {0, 1}), Error);
  EXPECT_THROW(AffineMap::permute_bits(g, {0, 1, 3}), Error);
}

TEST(AffineMap, GrayFieldConversionMatchesTheFormula) {
  const Geometry g{0, 8};
  const AffineMap enc = AffineMap::gray(g, 2, 4, true), dec = AffineMap::gray(g, 2, 4, false);
  for (std::uint64_t i = 0; i < 256; ++i) {
    const std::uint64_t field = (i >> 2) & 15, rest = i & ~(std::uint64_t{15} << 2);
    EXPECT_EQ(enc.apply(0, i), rest | (gray_encode(field) << 2));
    EXPECT_EQ(dec.apply(0, i), rest | (gray_decode(field) << 2));
    EXPECT_EQ(enc.then(dec).apply(0, i), i);
  }
  EXPECT_THROW(AffineMap::gray(g, 6, 3, true), Error);
  EXPECT_THROW(AffineMap::gray(g, 0, 0, true), Error);
  EXPECT_EQ(parse_gray(g, "2:4:decode").apply(0, 0x3c), dec.apply(0, 0x3c));
  EXPECT_THROW(parse_gray(g, "2:4"), Error);
  EXPECT_THROW(parse_gray(g, "2:x:encode"), Error);
  EXPECT_THROW(parse_gray(g, "7:4:encode"), Error);
}

TEST(AffineMap, ThenComposesInOrder) {
  const Geometry g{2, 3};
  const AffineMap x = AffineMap::xor_align(g, {0, 1}, {1, 2});
  const AffineMap p = AffineMap::permute_bits(g, {1, 2, 0});
  const AffineMap xp = x.then(p);
  for (std::uint64_t j = 0; j < 4; ++j)
    for (std::uint64_t i = 0; i < 8; ++i) EXPECT_EQ(xp.apply(j, i), p.apply(j, x.apply(j, i)));
}

TEST(AffineMap, EveryMapIsABijectionOfEachNodesWords) {
  const Geometry g{3, 5};
  const AffineMap a = AffineMap::xor_align(g, {2, 0}, {4, 1})
                          .then(AffineMap::permute_bits(g, {3, 1, 4, 0, 2}))
                          .then(AffineMap::gray(g, 1, 3, true));
  for (std::uint64_t j = 0; j < g.nodes(); ++j) {
    std::vector<bool> hit(g.words_per_node());
    for (std::uint64_t i = 0; i < g.words_per_node(); ++i) {
      const std::uint64_t d = a.apply(j, i);
      ASSERT_LT(d, hit.size());
      EXPECT_FALSE(hit[d]);
      hit[d] = true;
    }
  }
}

TEST(AffineMap, BadXorAlignmentsAreRejected) {
  const Geometry g{3, 3};
  EXPECT_THROW(AffineMap::xor_align(g, {0, 1}, {0}), Error);
  EXPECT_THROW(AffineMap::xor_align(g, {3}, {0}), Error);
  EXPECT_THROW(AffineMap::xor_align(g, {0}, {3}), Error);
  EXPECT_THROW(AffineMap::xor_align(g, {0, 0}, {0, 1}), Error);
  EXPECT_THROW(AffineMap::xor_align(g, {0, 1}, {1, 1}), Error);
}

TEST(AffineMap, LookupTablesAgreeWithApply) {
  std::mt19937_64 rng(7);
  for (unsigned n : {0u, 5u, 11u, 17u})
    for (unsigned m : {1u, 7u, 9u, 20u}) {
      const Geometry g{n, m};
      std::vector<unsigned> perm(m);
      for (unsigned b = 0; b < m; ++b) perm[b] = (b * 5 + 3) % m;
      if (m % 5 == 0) std::iota(perm.begin(), perm.end(), 0u);
      AffineMap a = AffineMap::permute_bits(g, perm).then(AffineMap::gray(g, 0, m, false));
      if (n > 0) a = AffineMap::xor_align(g, {n - 1}, {m - 1}).then(a);
      const AffineTables t = make_tables(a);
      const kernels::AffineView v{t.mem.data(), t.node.data(), t.mem_bytes, t.node_bytes, t.constant};
      for (int trial = 0; trial < 200; ++trial) {
        const std::uint64_t j = rng() & low_mask(n), i = rng() & low_mask(m);
        EXPECT_EQ(v.mem_part(i) ^ v.node_part(j), a.apply(j, i));
      }
    }
}

TEST(AffineMap, ComplementAddsAConstantAndComposes) {
  const Geometry g{2, 4};
  const AffineMap c = AffineMap::complement(g, 1, 2);
  EXPECT_EQ(c.apply(3, 0b0000), 0b0110u);
  EXPECT_TRUE(c.is_pure_xor());
  EXPECT_EQ(c.moving_nodes(), 4u);  // the constant moves every node's words
  const AffineMap x = AffineMap::xor_align(g, {0}, {1}).then(c);
  EXPECT_EQ(x.apply(1, 0), 0b0100u);  // node bit 0 cancels one complemented bit
  EXPECT_EQ(x.moving_nodes(), 4u);
  const AffineMap y = AffineMap::xor_align(g, {0, 1}, {1, 2}).then(c);
  EXPECT_EQ(y.moving_nodes(), 3u);    // node 3 has C j = c and keeps its words
  const AffineMap p = AffineMap::permute_bits(g, {1, 0, 2, 3});
  EXPECT_EQ(c.then(p).apply(0, 0), p.apply(0, c.apply(0, 0)));
  EXPECT_THROW(AffineMap::complement(g, 3, 2), Error);
  const AffineTables t = make_tables(y);
  const kernels::AffineView v{t.mem.data(), t.node.data(), t.mem_bytes, t.node_bytes, t.constant};
  for (std::uint64_t j = 0; j < 4; ++j)
    for (std::uint64_t i = 0; i < 16; ++i) EXPECT_EQ(v.mem_part(i) ^ v.node_part(j), y.apply(j, i));
}

TEST(AffineMap, Gf2RankCountsIndependentColumns) {
  EXPECT_EQ(gf2_rank({1, 2, 3}), 2u);
  EXPECT_EQ(gf2_rank({1, 2, 4}), 3u);
  EXPECT_EQ(gf2_rank({0, 0}), 0u);
  EXPECT_EQ(gf2_rank({}), 0u);
}

}  // namespace
}  // namespace hcube

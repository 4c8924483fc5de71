// The address model: bit helpers, Gray code, geometry limits and the tiled
// storage layout (a bijection for every tile width).
#include <gtest/gtest.h>

#include <set>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/geometry.hpp"
#include "hcube/host/layout.hpp"

namespace hcube {
namespace {

TEST(Bits, InsertZeroBitEnumeratesLowerHalvesOfPairs) {
  for (unsigned k = 0; k < 5; ++k) {
    std::set<std::uint64_t> seen;
    for (std::uint64_t p = 0; p < 16; ++p) {
      const std::uint64_t j = insert_zero_bit(p, k);
      EXPECT_FALSE(test_bit(j, k));
      EXPECT_LT(j, 32u);
      seen.insert(j);
    }
    EXPECT_EQ(seen.size(), 16u);
  }
}

TEST(Bits, GrayCodeMatchesTheReflectedSequence) {
  // Binary-reflected Gray code: 0 1 3 2 6 7 5 4, neighbours differ in one bit.
  const std::uint64_t expected[] = {0, 1, 3, 2, 6, 7, 5, 4};
  for (std::uint64_t v = 0; v < 8; ++v) EXPECT_EQ(gray_encode(v), expected[v]);
  for (std::uint64_t v = 0; v < 4096; ++v) {
    EXPECT_EQ(gray_decode(gray_encode(v)), v);
    EXPECT_EQ(popcount(gray_encode(v) ^ gray_encode(v + 1)), 1u);
  }
}

TEST(Geometry, GlobalAddressHasNodeBitsHigh) {
  const Geometry g = make_geometry(3, 2);
  EXPECT_EQ(g.nodes(), 8u);
  EXPECT_EQ(g.words_per_node(), 4u);
  EXPECT_EQ(g.global(5, 3), 5u * 4 + 3);
  EXPECT_EQ(g.node_of(23), 5u);
  EXPECT_EQ(g.local_of(23), 3u);
}

TEST(Geometry, RejectsOutOfRangeDimensionsNamingThem) {
  EXPECT_THROW(make_geometry(-1, 2), Error);
  try {
    make_geometry(40, 30);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("70"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("56"), std::string::npos) << e.what();
  }
}

TEST(Layout, IsABijectionForEveryTileWidth) {
  for (unsigned n = 0; n <= 5; ++n)
    for (unsigned m = 0; m <= 3; ++m)
      for (unsigned t = 0; t <= n; ++t) {
        const Layout l = make_layout(make_geometry(n, m), t);
        std::vector<bool> hit(l.geo.total_words(), false);
        for (std::uint64_t j = 0; j < l.geo.nodes(); ++j)
          for (std::uint64_t a = 0; a < l.geo.words_per_node(); ++a) {
            const std::uint64_t s = l.index(j, a);
            ASSERT_LT(s, hit.size());
            ASSERT_FALSE(hit[s]);
            hit[s] = true;
            EXPECT_EQ(l.node_at(s), j);
            EXPECT_EQ(l.local_at(s), a);
          }
      }
}

TEST(Layout, ExtremesArePvarAndRowMajor) {
  const Geometry g = make_geometry(4, 3);
  const Layout pvar = make_layout(g, 4), rows = make_layout(g, 0);
  EXPECT_EQ(pvar.index(5, 2), 2u * 16 + 5);  // word a of every node contiguous
  EXPECT_EQ(rows.index(5, 2), 5u * 8 + 2);   // the user's A[node][local]
  EXPECT_EQ(make_layout(g).t, 4u);           // default: min(n, kDefaultTileDims)
  EXPECT_THROW(make_layout(g, 5), Error);
}

}  // namespace
}  // namespace hcube

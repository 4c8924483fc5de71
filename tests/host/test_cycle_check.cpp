// The routing-cycle checker: port models, channel width, and word clashes.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>


#include "hcube/core/bits.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

const Geometry kGeo{4, 4};

std::string violation(const Cycle& c, PortRules rules = {}) {
  auto v = find_violation(kGeo, c, rules);
  return v ? std::to_string(v->entry) + ": " + v->reason : "";
}

TEST(CycleCheck, AllPortCycleUsingEveryDimensionIsLegal) {
  Cycle c;
  for (unsigned k = 0; k < 4; ++k) c.push_back(direct_exchange(k, k));
  EXPECT_EQ(violation(c), "");
}

TEST(CycleCheck, AWordInTwoExchangesIsAClash) {
  EXPECT_EQ(violation({direct_exchange(0, 1), direct_exchange(1, 1)}),
            "1: local word 1 already used by exchange 0 {dim 0, addr 1}");
  // Different dimensions meet on some node whichever side each uses.
  EXPECT_NE(violation({{0, 1, 2}, {1, 3, 2}}), "");
  EXPECT_NE(violation({{0, 1, 2}, {1, 1, 3}}), "");
}

TEST(CycleCheck, OppositeSidesOfOneDimensionDoNotClash) {
  // {0, 1, 2} touches word 1 on even nodes and word 2 on odd ones;
  // {0, 2, 1} the reverse: disjoint, but two exchanges on dimension 0.
  EXPECT_EQ(violation({{0, 1, 2}, {0, 2, 1}}, {PortModel::all_port, 2}), "");
  EXPECT_NE(violation({{0, 1, 2}, {0, 1, 3}}, {PortModel::all_port, 2}), "");
}

TEST(CycleCheck, ChannelWidthLimitsExchangesPerDimension) {
  const Cycle c = {direct_exchange(2, 0), direct_exchange(2, 1), direct_exchange(2, 2)};
  EXPECT_EQ(violation(c), "1: dim 2 carries 2 exchanges: channel width allows 1");
  EXPECT_EQ(violation(c, {PortModel::all_port, 2}), "2: dim 2 carries 3 exchanges: channel width allows 2");
  EXPECT_EQ(violation(c, {PortModel::all_port, 3}), "");
  EXPECT_EQ(violation(c, {PortModel::all_port, 0}), "0: channel width 0: allowed at least 1");
}

TEST(CycleCheck, OnePortAllowsOneDimensionPerCycle) {
  EXPECT_EQ(violation({direct_exchange(0, 0), direct_exchange(1, 1)}, {PortModel::one_port, 1}),
            "1: one-port cycle uses dim 1 after dim 0: one dimension per cycle");
  EXPECT_EQ(violation({direct_exchange(3, 0), direct_exchange(3, 1)}, {PortModel::one_port, 2}), "");
}

TEST(CycleCheck, RangesAreNamed) {
  EXPECT_EQ(violation({direct_exchange(4, 0)}), "0: dim 4 out of range: allowed 0..3");
  EXPECT_EQ(violation({direct_exchange(0, 16)}), "0: addr 16 out of range: allowed 0..15");
  EXPECT_EQ(violation({{0, 1, 99}}), "0: peer_addr 99 out of range: allowed 0..15");
}

TEST(CycleCheck, CheckCycleNamesCycleAndEntry) {
  try {
    check_cycle(kGeo, {direct_exchange(0, 1), direct_exchange(1, 1)}, {}, 7);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "cycle 7, exchange 1 {dim 1, addr 1}: local word 1 already used by exchange 0 {dim 0, addr 1}");
  }
}

TEST(CycleCheck, ParsesExchangesAndRejectsMalformedText) {
  EXPECT_EQ(parse_cycle("0:3,2:5:6"), (Cycle{{0, 3, 3}, {2, 5, 6}}));
  EXPECT_THROW(parse_cycle(""), Error);
  EXPECT_THROW(parse_exchange("0-1"), Error);
  EXPECT_THROW(parse_exchange("0:1:2:3"), Error);
  EXPECT_THROW(parse_exchange("0:-1"), Error);
  EXPECT_THROW(parse_exchange("99:1"), Error);
}

// Found by tests/fuzz (cycle): the text was quoted as it was, so a newline in
// --cycle split the one-line error message.
TEST(CycleCheck, MalformedTextIsQuotedOnOneLine) {
  const auto error_of = [](const std::string& text) {
    try {
      parse_cycle(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("0:1\n,1"), "exchange '0:1\\n' malformed: field '1\\n' is not a non-negative integer");
  EXPECT_EQ(error_of("0:1:2:\x1b[2J"), "exchange '0:1:2:\\x1b[2J' malformed: field '\\x1b[2J' is not a non-negative integer");
  EXPECT_EQ(error_of("70:1\t"), "exchange '70:1\\t' malformed: field '1\\t' is not a non-negative integer");
  const std::string long_text = "0:" + std::string(300, '0') + ":1:1";  // long, cut at 200 bytes
  EXPECT_EQ(error_of(long_text), "exchange '" + long_text.substr(0, 200) + "...' malformed: expected dim:addr or dim:addr:peer_addr");
  EXPECT_EQ(error_of("0:1:2:3\n"), "exchange '0:1:2:3\\n' malformed: field '3\\n' is not a non-negative integer");
  try {
    parse_port_model("all\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "port model 'all\\n' unknown: allowed all, one");
  }
}

TEST(CycleCheck, OffsetMapsMakeAddressesNodeDependent) {
  const Geometry g{2, 2};
  const OffsetMaps maps = {{0, 1}};  // node bit 1 adds memory bit 0
  const PortRules wide{PortModel::all_port, 2};
  // {dim 0, addr 0, map 1} uses word 0 on nodes 0, 1 and word 1 on nodes 2, 3.
  const Exchange a{0, 0, 0, 1};
  EXPECT_FALSE(find_violation(g, {a, direct_exchange(1, 2)}, {}, maps));
  const auto v = find_violation(g, {a, direct_exchange(0, 1)}, wide, maps);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->reason, "a local word is also used by exchange 0 {dim 0, addr 0, map 1} on some node");
  // Word 1 on nodes 0 and 1 only: disjoint from a's words there.
  const Exchange c{0, 1, 1, 1};
  EXPECT_FALSE(find_violation(g, {a, direct_exchange(1, 2), c}, wide, maps));
  EXPECT_EQ(find_violation(g, {Exchange{0, 0, 0, 2}}, {}, maps)->reason, "offset map 2 undefined: the schedule has 1");
  EXPECT_THROW(check_offset_maps(g, {{0}}), Error);
  EXPECT_THROW(check_offset_maps(g, {{0, 4}}), Error);
  EXPECT_EQ(apply_offset(maps[0], 3), 1u);
}

// The checker (exact tests between maps, address keys under one map) against
// every node's touched words listed one by one, on random small cycles.
TEST(CycleCheck, ClashesUnderOffsetMapsMatchEveryNodesWords) {
  std::mt19937_64 rng(17);
  const Geometry g{3, 3};
  const PortRules wide{PortModel::all_port, 64};
  unsigned clashes = 0, clean = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    OffsetMaps maps(2, NodeOffsetMap(g.n, 0));
    for (NodeOffsetMap& m : maps)
      for (std::uint64_t& col : m) col = rng() % 3 == 0 ? rng() % g.words_per_node() : 0;
    Cycle c;
    for (std::size_t e = 0, count = 1 + rng() % 4; e < count; ++e)
      c.push_back(Exchange{static_cast<std::uint32_t>(rng() % g.n), rng() % g.words_per_node(),
                           rng() % g.words_per_node(), static_cast<std::uint32_t>(rng() % 3)});
    bool expected = false;
    for (std::uint64_t j = 0; j < g.nodes() && !expected; ++j) {
      std::vector<std::uint64_t> words;
      for (const Exchange& x : c) {
        const std::uint64_t a = test_bit(j, x.dim) ? x.peer_addr : x.addr;
        words.push_back(x.offset_map ? a ^ apply_offset(maps[x.offset_map - 1], j) : a);
      }
      std::sort(words.begin(), words.end());
      expected = std::adjacent_find(words.begin(), words.end()) != words.end();
    }
    const bool found = find_violation(g, c, wide, maps).has_value();
    ASSERT_EQ(found, expected) << "trial " << trial;
    (expected ? clashes : clean) += 1;
  }
  EXPECT_GT(clashes, 300u);
  EXPECT_GT(clean, 300u);
}

TEST(CycleCheck, UseCountsHopsAndLinks) {
  const CycleUse u = cycle_use(kGeo, {direct_exchange(0, 0), direct_exchange(0, 1), direct_exchange(3, 2)});
  EXPECT_EQ(u.element_hops, 3u * 16);  // each exchange moves one word per node
  EXPECT_EQ(u.links_used, 2u * 16);    // two dimensions, both directions of 8 links
  EXPECT_EQ(u.dims_used, 2u);
}

}  // namespace
}  // namespace hcube

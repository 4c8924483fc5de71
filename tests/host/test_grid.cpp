// The NEWS grid (host/grid.hpp): topologies and their links, the grid cycle's
// checker rule by rule, the cycle's reference, the Gray-code embedding in the
// cube (dilation 1, every link, wrap-arounds included), and the block
// router's check that the embedding relies on.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "hcube/core/error.hpp"
#include "hcube/host/grid.hpp"

namespace hcube {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(GridTopology, ParsesAndNamesRingsToriAndMeshes) {
  const GridTopology r = parse_grid_topology("ring:7");
  EXPECT_EQ(r.kind, GridKind::ring);
  EXPECT_EQ(r.nodes(), 7u);
  EXPECT_EQ(r.dims(), 1u);
  const GridTopology t = parse_grid_topology("torus:3x5");
  EXPECT_EQ(t.z1, 3u);
  EXPECT_EQ(t.z2, 5u);
  EXPECT_EQ(t.nodes(), 15u);
  EXPECT_EQ(to_string(parse_grid_topology("mesh:4x8")), "mesh:4x8");
  EXPECT_EQ(to_string(t), "torus:3x5");
  EXPECT_TRUE(has(error_of([] { parse_grid_topology("ring:1"); }), "z = 1 out of range: allowed 2..65536"));
  EXPECT_TRUE(has(error_of([] { parse_grid_topology("mesh:4x0"); }), "z2 = 0 out of range"));
  EXPECT_TRUE(has(error_of([] { parse_grid_topology("torus:4"); }), "needs two sides, e.g. torus:4x4"));
  EXPECT_TRUE(has(error_of([] { parse_grid_topology("hex:4"); }), "unknown: allowed ring:z, torus:z1xz2 or mesh:z1xz2"));
  EXPECT_TRUE(has(error_of([] { parse_grid_topology("ring:x"); }), "not a whole number"));
  EXPECT_TRUE(has(error_of([] { parse_grid_topology("torus:65536x65536"); }), "allowed at most 1048576"));
}

TEST(GridTopology, NeighboursAndLinks) {
  const GridTopology ring = parse_grid_topology("ring:5");
  EXPECT_EQ(ring.neighbour(4, 0, 1), 0u);
  EXPECT_EQ(ring.neighbour(0, 0, -1), 4u);
  EXPECT_EQ(ring.directed_links(), 10u);
  const GridTopology mesh = parse_grid_topology("mesh:3x2");
  EXPECT_EQ(mesh.neighbour(2, 0, 1), std::nullopt);  // (2, 0): the east border
  EXPECT_EQ(mesh.neighbour(3, 1, -1), 0u);          // (0, 1) -> (0, 0)
  EXPECT_EQ(mesh.neighbour(0, 1, -1), std::nullopt);
  EXPECT_EQ(mesh.directed_links(), 2u * (2 * 2 + 3 * 1));
  const GridTopology torus = parse_grid_topology("torus:2x3");
  EXPECT_EQ(torus.directed_links(), 2u * (2 * 3 + 3 * 2));  // T(2) has two edges between its nodes
  EXPECT_EQ(torus.neighbour(4, 1, 1), 0u);                   // (0, 2) -> (0, 0)
}

// A ring of 4 with 4 blocks a node.
const GridTopology kRing = parse_grid_topology("ring:4");

GridCycle cycle_of(const std::vector<std::tuple<std::uint64_t, int, std::uint64_t, std::uint64_t>>& sends) {
  GridCycle c;
  for (const auto& [node, dir, from, to] : sends) c.add(node, 0, dir, {{from, to}});
  return c;
}

TEST(GridCycleCheck, CountsWhatALegalCycleMoves) {
  GridCycle c = cycle_of({{0, 1, 0, 1}, {1, 1, 0, 1}, {2, -1, 0, 2}, {3, 0, 0, 2}});
  c.add(2, 0, 1, {{2, 1}, {3, 3}});  // a second message from node 2, the other way
  const GridCycleUse u = check_grid_cycle(kRing, 4, c, GridRules{PortModel::all_port, Duplex::full});
  EXPECT_EQ(u.link_blocks, 5u);
  EXPECT_EQ(u.local_blocks, 1u);
  EXPECT_EQ(u.links_used, 4u);
  EXPECT_EQ(u.max_message, 2u);
}

TEST(GridCycleCheck, RefusesEachBrokenRule) {
  const GridRules all{PortModel::all_port, Duplex::full};
  const auto err = [&](const GridCycle& c, GridRules rules = {PortModel::all_port, Duplex::full},
                       const GridTopology& t = kRing) {
    return error_of([&] { check_grid_cycle(t, 4, c, rules, 7); });
  };
  // A link carries one message a cycle.
  GridCycle twice = cycle_of({{0, 1, 0, 1}});
  twice.add(0, 0, 1, {{2, 2}});
  EXPECT_TRUE(has(err(twice), "grid cycle 7, message 1 (node 0 X+): its link also carries message 0"));
  // Half duplex: an edge one way a cycle; full duplex allows both.
  const GridCycle both = cycle_of({{0, 1, 0, 1}, {1, -1, 0, 2}});
  EXPECT_TRUE(has(err(both, {PortModel::all_port, Duplex::half}), "the other way: links are half duplex"));
  EXPECT_EQ(err(both, all), "");
  // One-port: one message sent and one received a node.
  const GridCycle two_sends = cycle_of({{1, 1, 0, 1}, {1, -1, 1, 2}});
  EXPECT_TRUE(has(err(two_sends, {PortModel::one_port, Duplex::full}), "node 1 also sends message 0: one-port"));
  const GridCycle two_receives = cycle_of({{0, 1, 0, 1}, {2, -1, 1, 2}});
  EXPECT_TRUE(has(err(two_receives, {PortModel::one_port, Duplex::full}), "node 1 also receives message 0"));
  // A block written twice, or read and written, in one cycle.
  EXPECT_TRUE(has(err(cycle_of({{0, 1, 0, 3}, {2, -1, 1, 3}})), "writes block 3 of node 1 that message 0 also writes"));
  EXPECT_TRUE(has(err(cycle_of({{0, 1, 0, 3}, {1, 1, 3, 0}})), "writes block 3 of node 1 that message 1 also reads"));
  // Ranges.
  EXPECT_TRUE(has(err(cycle_of({{0, 1, 0, 4}})), "block 0 -> 4 out of range: allowed 0..3"));
  EXPECT_TRUE(has(err(cycle_of({{4, 1, 0, 0}})), "node 4 out of range: allowed 0..3"));
  EXPECT_TRUE(has(err(cycle_of({{0, 2, 0, 0}})), "direction 2 out of range"));
  GridCycle y;
  y.add(0, 1, 1, {{0, 0}});
  EXPECT_TRUE(has(err(y), "dimension 1 out of range"));
  // A mesh has no link past its border.
  EXPECT_TRUE(has(err(cycle_of({{1, 1, 0, 0}}), all, parse_grid_topology("mesh:2x2")),
                  "no link X+ from node 1: it is on the border of mesh:2x2"));
}

TEST(GridCycleCheck, ReferenceCopiesFromTheStateBefore) {
  // Node i block b holds 10 i + b (one byte a block).
  std::vector<unsigned char> state(16);
  for (unsigned i = 0; i < 16; ++i) state[i] = static_cast<unsigned char>(10 * (i / 4) + i % 4);
  GridCycle c = cycle_of({{0, 1, 0, 1}, {1, 1, 1, 2}, {3, 1, 2, 0}});  // node 1 reads block 1 as node 0 writes it
  c.add(2, 0, 0, {{0, 3}});
  const std::vector<unsigned char> out = reference_grid_cycle(state, 4, 1, kRing, c);
  EXPECT_EQ(out[4 + 1], 0);    // node 1 block 1 <- node 0 block 0
  EXPECT_EQ(out[8 + 2], 11);   // node 2 block 2 <- node 1 block 1 as it was
  EXPECT_EQ(out[0 + 0], 32);   // node 0 block 0 <- node 3 block 2 (wrap-around)
  EXPECT_EQ(out[8 + 3], 20);   // node 2 block 3 <- its own block 0
  EXPECT_EQ(out[12 + 1], 31);  // untouched
}

// Every link of every grid with sides powers of two joins cube nodes one bit
// apart, and the nodes map one to one: the binary-reflected Gray code, computed here.
TEST(GridEmbedding, GrayCodeHasDilationOne) {
  for (const char* kind : {"ring", "torus", "mesh"})
    for (unsigned a = 1; a <= 5; ++a)
      for (unsigned b = kind == std::string("ring") ? 0 : 1; b <= (kind == std::string("ring") ? 0 : 4); ++b) {
        const std::string name = kind == std::string("ring") ? fmt::format("ring:{}", 1u << a)
                                                             : fmt::format("{}:{}x{}", kind, 1u << a, 1u << b);
        SCOPED_TRACE(name);
        const GridTopology t = parse_grid_topology(name);
        EXPECT_EQ(grid_cube_dims(t), a + b);
        std::set<std::uint64_t> seen;
        for (std::uint64_t v = 0; v < t.nodes(); ++v) {
          const std::uint64_t x = t.x_of(v), y = t.y_of(v);
          EXPECT_EQ(grid_cube_node(t, v), (x ^ (x >> 1)) | ((y ^ (y >> 1)) << a));
          seen.insert(grid_cube_node(t, v));
          for (unsigned dim = 0; dim < t.dims(); ++dim)
            for (int dir : {-1, 1})
              if (const auto w = t.neighbour(v, dim, dir)) {
                EXPECT_EQ(__builtin_popcountll(grid_cube_node(t, v) ^ grid_cube_node(t, *w)), 1);
              }
        }
        EXPECT_EQ(seen.size(), t.nodes());
      }
  EXPECT_TRUE(has(error_of([] { grid_cube_dims(parse_grid_topology("torus:4x6")); }),
                  "torus:4x6 embeds in the cube only with sides that are powers of two: z2 = 6 is not"));
}

TEST(GridEmbedding, ACycleBecomesNeighbourRouterStepsPerDirection) {
  const GridTopology t = parse_grid_topology("torus:4x2");
  GridCycle c;
  c.add(0, 0, 1, {{0, 1}, {2, 3}});
  c.add(1, 0, -1, {{0, 1}});
  c.add(5, 1, 1, {{1, 2}});
  c.add(3, 0, 0, {{0, 1}});
  check_grid_cycle(t, 4, c, GridRules{});
  const std::vector<BlockRouteStep> steps = embed_grid_cycle(t, c, 2);
  ASSERT_EQ(steps.size(), 4u);  // copies, X-, X+, Y+
  EXPECT_EQ(steps[0].messages[0].src_node, 2u);  // grid node 3 = (3, 0): G(3) = 2
  EXPECT_EQ(steps[0].messages[0].dst_node, 2u);
  EXPECT_EQ(steps[1].messages[0].src_node, 1u);  // (1, 0) -> (0, 0)
  EXPECT_EQ(steps[1].messages[0].dst_node, 0u);
  EXPECT_EQ(steps[2].from, (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(steps[2].to, (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(steps[3].messages[0].src_node, 4u | 1u);  // (1, 1): G(1) + 4 G(1)
  EXPECT_EQ(steps[3].messages[0].dst_node, 1u);       // (1, 0)
  for (const BlockRouteStep& s : steps) EXPECT_EQ(s.block_words, 2u);
  // The block router accepts the steps in one launch although node 0's reads
  // and writes interleave: blocks 0 and 2 read, block 1 written by node 1's message.
  const RouterStepReport rep = check_block_route(Geometry{3, 3}, steps);
  EXPECT_EQ(rep.element_hops, 2u * 4);  // four blocks of two words, one dimension each
}

TEST(GridEmbedding, BlockRouteChecksBlocksWhereTheHullsOverlap) {
  // Node 0 reads blocks 0 and 2 and receives block 1: the hulls overlap, the blocks do not.
  BlockRouteStep s;
  s.block_words = 1;
  s.messages = {BlockMessage{0, 1, 0, 2, 2}, BlockMessage{1, 0, 2, 1, 1}};
  s.from = {0, 2, 1};
  s.to = {0, 2, 1};
  EXPECT_NO_THROW(check_block_route(Geometry{1, 2}, {s}));
  s.to = {0, 2, 2};  // now it writes block 2, which it reads
  EXPECT_TRUE(has(error_of([&] { check_block_route(Geometry{1, 2}, {s}); }),
                  "node 0 reads words 2..2 and writes words 2..2: they overlap"));
}

}  // namespace
}  // namespace hcube

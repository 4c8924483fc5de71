// The lecture notes' all-to-all scatter on the NEWS grid (host/grid_scatter.hpp):
// the notes' worked numbers (T(8) pipeline, bidirectional z = 5, T(4,4)
// product), every plan's rounds and cost terms against the formulas over many
// sizes (non powers of two among them), the packets' hops against their
// routes' lengths, DEX's congestion against the notes' max(z1, z2)/2, and runs
// on every backend verified bit for bit against the scatter's definition
// (written here), on the grid and through the Gray-code embedding on the cube.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <tuple>
#include <random>

#include "backend_test.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/emulator/scatter_run.hpp"
#include "hcube/host/grid_scatter.hpp"

namespace hcube {
namespace {

GridSchedule plan(const std::string& topology, ScatterAlgorithm a, std::uint64_t mu = 1) {
  return make_grid_scatter(parse_grid_topology(topology), a, mu);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Notes sec. 2, 3, 5: T(8) pipeline 7 rounds, 7 t_s + 28 mu t_m; the
// bidirectional pipeline at z = 5 2 rounds, 2 t_s + 3 mu t_m; the product on
// T(4,4) 6 rounds, 6 t_s + 48 mu t_m.
TEST(GridScatter, NotesWorkedNumbers) {
  const ScatterCost pipe = scatter_cost(plan("ring:8", ScatterAlgorithm::pipeline));
  EXPECT_EQ(pipe.rounds, 7u);
  EXPECT_EQ(pipe.startups, 7u);
  EXPECT_EQ(pipe.element_units, 28u);
  EXPECT_EQ(pipe.hop_units, 0u);
  const ScatterCost bi = scatter_cost(plan("ring:5", ScatterAlgorithm::bidirectional));
  EXPECT_EQ(bi.rounds, 2u);
  EXPECT_EQ(bi.startups, 2u);
  EXPECT_EQ(bi.element_units, 3u);
  const ScatterCost prod = scatter_cost(plan("torus:4x4", ScatterAlgorithm::product));
  EXPECT_EQ(prod.rounds, 6u);
  EXPECT_EQ(prod.startups, 6u);
  EXPECT_EQ(prod.element_units, 48u);
  // The pipeline's messages shrink one packet a round: 7, 6, ..., 1.
  const GridSchedule s = plan("ring:8", ScatterAlgorithm::pipeline);
  for (std::size_t r = 0; r < 7; ++r)
    EXPECT_EQ(check_grid_cycle(s.topology, s.node_blocks, s.cycles[r], s.rules).max_message, 7 - r);
}

// Each plan's counts equal the formula; the formula's source is said.
void expect_formula(const GridSchedule& s, ScatterAlgorithm a) {
  const ScatterCost c = scatter_cost(s);
  const std::optional<ScatterFormula> f = scatter_formula(s.topology, a);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(c.rounds, f->rounds);
  EXPECT_EQ(c.startups, f->startups);
  EXPECT_EQ(c.element_units, f->element_units);
  EXPECT_EQ(c.hop_units, f->hop_units);
}

// Sum over all ordered pairs of nodes of the packets' route lengths.
std::uint64_t route_hops(const GridTopology& t, const std::function<std::uint64_t(std::uint64_t, std::uint64_t)>& d) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < t.nodes(); ++i)
    for (std::uint64_t j = 0; j < t.nodes(); ++j) sum += d(i, j);
  return sum;
}

TEST(GridScatter, PipelinesMatchTheNotesFormulas) {
  for (std::uint64_t z = 2; z <= 21; ++z) {
    SCOPED_TRACE(testing::Message() << "z = " << z);
    const GridTopology t = parse_grid_topology(fmt::format("ring:{}", z));
    const GridSchedule pipe = make_grid_scatter(t, ScatterAlgorithm::pipeline, 1);
    expect_formula(pipe, ScatterAlgorithm::pipeline);
    EXPECT_EQ(scatter_cost(pipe).rounds, z - 1);
    EXPECT_EQ(scatter_cost(pipe).element_units, z * (z - 1) / 2);  // notes: (t_s + mu t_m z/2)(z-1)
    // Every packet goes right, (j - i) mod z links.
    EXPECT_EQ(scatter_cost(pipe).element_hops, route_hops(t, [z](auto i, auto j) { return (j + z - i) % z; }));
    const GridSchedule bi = make_grid_scatter(t, ScatterAlgorithm::bidirectional, 1);
    expect_formula(bi, ScatterAlgorithm::bidirectional);
    EXPECT_EQ(scatter_cost(bi).rounds, z / 2);
    if (z % 2 == 1) {
      // Notes: sum_{i=1}^{(z-1)/2} (t_s + mu t_m ((z+1)/2 - i)) = t_s (z-1)/2 + mu t_m (z^2-1)/8.
      std::uint64_t units = 0;
      for (std::uint64_t i = 1; i <= (z - 1) / 2; ++i) units += (z + 1) / 2 - i;
      EXPECT_EQ(scatter_cost(bi).element_units, units);
      EXPECT_EQ(scatter_cost(bi).element_units, (z * z - 1) / 8);
      EXPECT_TRUE(scatter_formula(t, ScatterAlgorithm::bidirectional)->from_notes);
      // Odd z meets the bisection bound (1/2) floor(z/2) ceil(z/2).
      EXPECT_EQ(static_cast<double>(scatter_cost(bi).element_units), bisection_bound(t));
    } else {
      EXPECT_FALSE(scatter_formula(t, ScatterAlgorithm::bidirectional)->from_notes);
    }
    // Each packet the short way round (ties to the right).
    EXPECT_EQ(scatter_cost(bi).element_hops, route_hops(t, [z](auto i, auto j) {
                const std::uint64_t right = (j + z - i) % z;
                return right <= z / 2 ? right : z - right;
              }));
    EXPECT_EQ(pipe.rules.ports, PortModel::one_port);
    EXPECT_EQ(pipe.rules.duplex, Duplex::half);
    EXPECT_EQ(bi.rules.ports, PortModel::all_port);
  }
}

TEST(GridScatter, ProductMatchesTheNotesFormula) {
  for (std::uint64_t z1 = 2; z1 <= 7; ++z1)
    for (std::uint64_t z2 = 2; z2 <= 7; ++z2) {
      SCOPED_TRACE(testing::Message() << z1 << " x " << z2);
      const GridTopology t = parse_grid_topology(fmt::format("torus:{}x{}", z1, z2));
      const GridSchedule s = make_grid_scatter(t, ScatterAlgorithm::product, 1);
      expect_formula(s, ScatterAlgorithm::product);
      const ScatterCost c = scatter_cost(s);
      EXPECT_EQ(c.rounds, z1 + z2 - 2);
      if (z1 == z2) {
        EXPECT_EQ(c.element_units, z1 * z1 * (z1 - 1));  // notes: (2 t_s + mu t_m z^2)(z-1)
        EXPECT_TRUE(scatter_formula(t, ScatterAlgorithm::product)->from_notes);
      }
      // Right along the row, then down the column.
      EXPECT_EQ(c.element_hops, route_hops(t, [&](auto i, auto j) {
                  return (t.x_of(j) + z1 - t.x_of(i)) % z1 + (t.y_of(j) + z2 - t.y_of(i)) % z2;
                }));
    }
}

// The product on a mesh ("analogous ... similar"): both ways along each path
// at once, all-port and full duplex, so its rounds and messages are the
// torus's; each packet goes straight along its row, then its column.
TEST(GridScatter, ProductOnAMeshHasTheTorusTerms) {
  for (std::uint64_t z1 = 2; z1 <= 7; ++z1)
    for (std::uint64_t z2 = 2; z2 <= 7; ++z2) {
      SCOPED_TRACE(testing::Message() << z1 << " x " << z2);
      const GridTopology t = parse_grid_topology(fmt::format("mesh:{}x{}", z1, z2));
      const GridSchedule s = make_grid_scatter(t, ScatterAlgorithm::product, 1);
      EXPECT_EQ(s.rules.ports, PortModel::all_port);
      EXPECT_EQ(s.rules.duplex, Duplex::full);
      expect_formula(s, ScatterAlgorithm::product);
      EXPECT_FALSE(scatter_formula(t, ScatterAlgorithm::product)->from_notes);
      const ScatterCost c = scatter_cost(s), torus = scatter_cost(plan(fmt::format("torus:{}x{}", z1, z2),
                                                                          ScatterAlgorithm::product));
      EXPECT_EQ(c.rounds, torus.rounds);
      EXPECT_EQ(c.element_units, torus.element_units);
      EXPECT_EQ(c.element_hops, route_hops(t, [&](auto i, auto j) {
                  const auto dist = [](std::uint64_t u, std::uint64_t v) { return u > v ? u - v : v - u; };
                  return dist(t.x_of(i), t.x_of(j)) + dist(t.y_of(i), t.y_of(j));
                }));
    }
}

TEST(GridScatter, BexMatchesTheNotesPrintedTerms) {
  for (unsigned a = 1; a <= 3; ++a)
    for (unsigned b = 1; b <= 3; ++b) {
      const std::uint64_t z1 = 1u << a, z2 = 1u << b, N = z1 * z2;
      SCOPED_TRACE(testing::Message() << z1 << " x " << z2);
      const GridTopology t = parse_grid_topology(fmt::format("mesh:{}x{}", z1, z2));
      const GridSchedule s = make_grid_scatter(t, ScatterAlgorithm::bex, 1);
      expect_formula(s, ScatterAlgorithm::bex);
      const ScatterCost c = scatter_cost(s);
      EXPECT_EQ(c.rounds, (z1 - 1) + (z2 - 1));
      EXPECT_EQ(c.element_units, c.rounds * N / 2);  // every round a block of N/2 packets
      if (a == b) {
        // Notes: sqrt(N) t_s + 2N t_d/3 + N sqrt(N) mu t_m, "roughly": exactly
        // 2 (sqrt(N) - 1) t_s, 2 (N - 1)/3 t_d and N (sqrt(N) - 1) mu t_m.
        EXPECT_EQ(c.startups, 2 * (z1 - 1));
        EXPECT_EQ(c.hop_units, 2 * (N - 1) / 3);
        EXPECT_EQ(c.element_units, N * (z1 - 1));
      }
      // SEX's rounds move half the packets across 2^j links: sum N (N/2) 2^j.
      EXPECT_EQ(c.element_hops, N * N / 2 * ((z1 - 1) + (z2 - 1)));
      EXPECT_EQ(s.switching, Switching::wormhole);
    }
}

TEST(GridScatter, DexCongestionIsTheNotesMaxHalfSide) {
  for (unsigned a = 1; a <= 4; ++a)
    for (unsigned b = 1; b <= 3; ++b) {
      const std::uint64_t z1 = 1u << a, z2 = 1u << b, N = z1 * z2;
      SCOPED_TRACE(testing::Message() << z1 << " x " << z2);
      const GridTopology t = parse_grid_topology(fmt::format("mesh:{}x{}", z1, z2));
      const GridSchedule s = make_grid_scatter(t, ScatterAlgorithm::dex, 1);
      ASSERT_EQ(s.congestion.size(), N - 1);
      EXPECT_EQ(max_congestion(s), std::max(z1, z2) / 2);  // notes sec. 11
      // Permutation p -> p xor t: a link carries as many messages as the top
      // power of two of t's X part, or of its Y part, whichever is larger; the
      // rounds split each permutation into that many.
      std::uint64_t rounds = 0;
      for (std::uint64_t perm = 1; perm < N; ++perm) {
        const auto top = [](std::uint64_t v) { return v == 0 ? 1 : std::uint64_t{1} << (63 - __builtin_clzll(v)); };
        const std::uint64_t c = std::max(top(perm % z1), top(perm / z1));
        EXPECT_EQ(s.congestion[perm - 1], c) << "permutation " << perm;
        rounds += c;
      }
      const ScatterCost c = scatter_cost(s);
      EXPECT_EQ(c.rounds, rounds);
      EXPECT_EQ(c.element_units, rounds);  // one packet a message
      // XY routes: |dx| + |dy| links a packet.
      EXPECT_EQ(c.element_hops, route_hops(t, [&](auto i, auto j) {
                  const auto dist = [](std::uint64_t u, std::uint64_t v) { return u > v ? u - v : v - u; };
                  return dist(t.x_of(i), t.x_of(j)) + dist(t.y_of(i), t.y_of(j));
                }));
      EXPECT_FALSE(scatter_formula(t, ScatterAlgorithm::dex).has_value());
    }
  // The notes' figure, M(2,4): of the 7 permutations, those moving the Y
  // coordinate by 2 or 3 load a middle link twice.
  const GridSchedule m24 = plan("mesh:2x4", ScatterAlgorithm::dex);
  EXPECT_EQ(m24.congestion, (std::vector<std::uint64_t>{1, 1, 1, 2, 2, 2, 2}));
}

// Every round's messages, from the plan's cycles: the directed links they
// cross (each at most once: contention-free) and the nodes that start a
// message (read outside the transit slots, from `slots` on) and finish one
// (write outside them), one each.
void expect_contention_free_one_port(const GridSchedule& s, std::uint64_t slots) {
  std::size_t c = 0;
  for (std::size_t r = 0; r < s.rounds(); ++r) {
    std::map<std::tuple<std::uint64_t, std::uint32_t, std::int32_t>, int> links;
    std::map<std::uint64_t, int> sends, receives;
    for (; c < s.round_ends[r]; ++c)
      for (const GridMessage& m : s.cycles[c].messages) {
        if (m.dir == 0) continue;
        EXPECT_EQ(++links[std::make_tuple(m.node, m.dim, m.dir)], 1) << "round " << r << ", link from node " << m.node;
        const std::uint64_t to = *s.topology.neighbour(m.node, m.dim, m.dir);
        const std::uint64_t from_block = s.cycles[c].from[m.first], to_block = s.cycles[c].to[m.first];
        if (from_block < slots) {
          EXPECT_EQ(++sends[m.node], 1) << "round " << r;
        }
        if (to_block < slots) {
          EXPECT_EQ(++receives[to], 1) << "round " << r;
        }
      }
    EXPECT_EQ(s.congestion[r], 1u);
  }
  EXPECT_EQ(s.congestion.size(), s.rounds());
  EXPECT_EQ(max_congestion(s), 1u);
}

// Notes sec. 12: DEX on T(4t) in 2t^2 one-port, contention-free rounds of one
// packet, each packet the short way round (half-way for the opposite node).
TEST(GridScatter, RingDexIsTheNotesLemma) {
  for (std::uint64_t z = 4; z <= 40; z += 4) {
    SCOPED_TRACE(testing::Message() << "ring:" << z);
    const std::uint64_t t = z / 4;
    const GridSchedule s = plan(fmt::format("ring:{}", z), ScatterAlgorithm::dex);
    EXPECT_TRUE(s.one_port_rounds);
    const ScatterCost c = scatter_cost(s);
    EXPECT_EQ(c.rounds, t == 1 ? 3u : 2 * t * t);  // z = 4: the one-port bound z - 1 (the lemma needs t >= 2)
    EXPECT_EQ(c.element_units, c.rounds);
    expect_formula(s, ScatterAlgorithm::dex);
    EXPECT_EQ(scatter_formula(s.topology, ScatterAlgorithm::dex)->from_notes, t > 1);
    expect_contention_free_one_port(s, 2 * z);
    EXPECT_EQ(c.element_hops, route_hops(s.topology, [z](auto i, auto j) {
                const std::uint64_t d = i > j ? i - j : j - i;
                return std::min(d, z - d);
              }));
    // Every round from t = 2 on crosses all 2z directed links.
    if (t > 1) {
      EXPECT_EQ(c.element_hops, 2 * z * c.rounds);
    }
  }
  EXPECT_EQ(scatter_cost(plan("ring:8", ScatterAlgorithm::dex)).rounds, 8u);  // t = 2: 2t^2 = 8
}

// Notes sec. 8: QEX on M(2^k, 2^k), phases on quarters of side 2^(k-1)..1, 2^l
// steps of 3 contention-free rounds a phase; a packet crosses, in every phase
// where its coordinates' bit differs, 2^l links in X and 2^l in Y.
TEST(GridScatter, QexRoundsAndRoutes) {
  for (std::uint64_t z : {2, 4, 8, 16}) {
    SCOPED_TRACE(testing::Message() << "mesh:" << z << "x" << z);
    const GridSchedule s = plan(fmt::format("mesh:{}x{}", z, z), ScatterAlgorithm::qex);
    const ScatterCost c = scatter_cost(s);
    EXPECT_EQ(c.rounds, 3 * (z - 1));
    EXPECT_EQ(c.element_units, c.rounds * z * z / 4);
    expect_formula(s, ScatterAlgorithm::qex);
    expect_contention_free_one_port(s, 4 * z * z);
    EXPECT_EQ(c.element_hops, route_hops(s.topology, [&](auto i, auto j) {
                return (s.topology.x_of(i) ^ s.topology.x_of(j)) + (s.topology.y_of(i) ^ s.topology.y_of(j));
              }));
  }
}

// The interleaved DEX on T(z, z) and M(z, z), z = 4t (hcube's design from
// notes sec. 12): one-port, contention-free rounds of one packet, XY routed
// (each side the short way round on a torus, straight on a mesh), every pair
// once; the rounds against the one-port bound N - 1 and the bisection bound
// (one packet a message, so it bounds the rounds too). The counts are the
// first-fit packing's, pinned; on a torus of even t the Latin order keeps all
// 4N directed links busy in all but 2 or 3 rounds (z^3/8 + 2 at z = 8, 16).
TEST(GridScatter, InterleavedDexOnTorusAndMesh) {
  const std::map<std::string, std::uint64_t> rounds = {{"torus:4x4", 15},    {"torus:8x8", 66},   {"torus:12x12", 252},
                                                       {"torus:16x16", 514}, {"mesh:4x4", 17},    {"mesh:8x8", 129},
                                                       {"mesh:12x12", 461},  {"mesh:16x16", 1025}};
  for (const auto& [name, expected] : rounds) {
    SCOPED_TRACE(name);
    const GridSchedule s = plan(name, ScatterAlgorithm::idex);
    const GridTopology& t = s.topology;
    const std::uint64_t z = t.z1, N = t.nodes();
    EXPECT_TRUE(s.one_port_rounds);
    EXPECT_TRUE(interleaved_dex(t, ScatterAlgorithm::idex));
    const ScatterCost c = scatter_cost(s);
    EXPECT_EQ(c.rounds, expected);
    EXPECT_EQ(c.element_units, c.rounds);  // one packet a message
    EXPECT_GE(c.rounds, N - 1);            // one-port: N - 1 packets to receive
    EXPECT_GE(static_cast<double>(c.rounds), bisection_bound(t));
    expect_contention_free_one_port(s, 2 * N);
    EXPECT_FALSE(scatter_formula(t, ScatterAlgorithm::idex).has_value());
    const auto side = [&](std::uint64_t u, std::uint64_t v) {
      const std::uint64_t d = u > v ? u - v : v - u;
      return t.wraps() ? std::min(d, z - d) : d;
    };
    EXPECT_EQ(c.element_hops, route_hops(t, [&](auto i, auto j) {
                return side(t.x_of(i), t.x_of(j)) + side(t.y_of(i), t.y_of(j));
              }));
    if (t.wraps()) {
      // dex on a torus is this plan; the sum of the routes is z^5/2, z^3/8 rounds' worth of all 4N links.
      EXPECT_EQ(scatter_cost(plan(name, ScatterAlgorithm::dex)).rounds, expected);
      EXPECT_EQ(c.element_hops, z * z * z * z * z / 2);
      EXPECT_EQ(bisection_bound(t), static_cast<double>(z * z * z / 8));
      if (z % 8 == 0) {
        // t even: every Latin diagonal of two full layers of pairs, (4t-2)^2 t/2 rounds, busies all 4N links.
        EXPECT_LE(c.rounds, z * z * z / 8 + 3);
        const std::uint64_t q = z / 4;
        std::uint64_t busy = 0;
        for (std::size_t r = 0, cycle = 0; r < s.rounds(); ++r) {
          std::uint64_t links = 0;
          for (; cycle < s.round_ends[r]; ++cycle)
            for (const GridMessage& m : s.cycles[cycle].messages) links += m.dir != 0;
          busy += links == 4 * N;
        }
        EXPECT_GE(busy, (4 * q - 2) * (4 * q - 2) * q / 2);
      }
    }
  }
  EXPECT_EQ(scatter_cost(plan("torus:4x4", ScatterAlgorithm::idex)).rounds, 15u);  // the one-port bound itself
  EXPECT_FALSE(interleaved_dex(parse_grid_topology("mesh:8x8"), ScatterAlgorithm::dex));
  EXPECT_TRUE(has(error_of([] { plan("torus:6x6", ScatterAlgorithm::dex); }),
                  "square with z a multiple of 4, and 6x6 is not"));
  EXPECT_TRUE(has(error_of([] { plan("mesh:4x8", ScatterAlgorithm::idex); }), "and 4x8 is not"));
  EXPECT_TRUE(has(error_of([] { plan("ring:8", ScatterAlgorithm::idex); }), "on a ring the cycle's DEX is dex"));
  EXPECT_TRUE(has(error_of([] { plan("torus:28x28", ScatterAlgorithm::dex); }),
                  "(the largest square torus it runs: torus:24x24)"));
  EXPECT_TRUE(has(error_of([] { plan("mesh:24x24", ScatterAlgorithm::idex); }),
                  "(the largest square mesh it runs: mesh:20x20)"));
}

TEST(GridScatter, BisectionBound) {
  EXPECT_EQ(bisection_bound(parse_grid_topology("ring:8")), 8.0);  // (1/2) 4 4
  EXPECT_EQ(bisection_bound(parse_grid_topology("ring:5")), 3.0);  // (1/2) 2 3
  EXPECT_EQ(bisection_bound(parse_grid_topology("ring:6")), 4.5);
  EXPECT_EQ(bisection_bound(parse_grid_topology("torus:4x4")), 8.0);   // (1/2) 2 2 4
  EXPECT_EQ(bisection_bound(parse_grid_topology("torus:3x7")), 18.0);  // the larger side cut: (1/2) 3 4 3
  EXPECT_EQ(bisection_bound(parse_grid_topology("mesh:4x4")), 16.0);   // one cut, not two
  EXPECT_EQ(wormhole_cube_bound(3), 3.5);  // notes: (2^n - 1)/2
  EXPECT_EQ(wormhole_cube_bound(10), 511.5);
  for (const char* name : {"ring:8", "ring:9", "torus:4x4", "torus:5x3"}) {
    const GridTopology t = parse_grid_topology(name);
    const ScatterAlgorithm a = t.kind == GridKind::ring ? ScatterAlgorithm::bidirectional : ScatterAlgorithm::product;
    EXPECT_GE(static_cast<double>(scatter_cost(make_grid_scatter(t, a, 1)).element_units), bisection_bound(t)) << name;
  }
}

TEST(GridScatter, RefusesWhatItCannotRun) {
  EXPECT_TRUE(has(
      error_of([] { plan("torus:4x4", ScatterAlgorithm::pipeline); }),
      "check_scatter_algorithm::a pipeline does not run on torus:4x4: the notes' ring pipelines run on rings (ring:z); "
      "allowed there: product"));
  EXPECT_TRUE(has(error_of([] { plan("mesh:4x6", ScatterAlgorithm::dex); }), "powers of two, and 6 is not"));
  EXPECT_TRUE(has(error_of([] { plan("mesh:4x4", ScatterAlgorithm::sex); }), "cube's standard exchange"));
  EXPECT_TRUE(has(error_of([] { plan("ring:4", ScatterAlgorithm::pipeline, 0); }), "packets of 0 words out of range"));
  // Too large a plan is refused before it is built, naming the largest that fits.
  EXPECT_TRUE(has(error_of([] { plan("ring:1000", ScatterAlgorithm::pipeline); }),
                  "pipeline on ring:1000: its plan moves 499501000 blocks, allowed at most 4194304 (the largest ring "
                  "it runs: ring:203)"));
  EXPECT_TRUE(has(error_of([] { plan("mesh:64x64", ScatterAlgorithm::bex); }), "the largest square mesh it runs: mesh:16x16"));
  ScatterTopology cube = parse_scatter_topology("cube:3");
  EXPECT_TRUE(cube.cube);
  EXPECT_TRUE(has(error_of([&] { check_scatter_algorithm(cube, ScatterAlgorithm::bex); }), "on the cube it is sex"));
  EXPECT_NO_THROW(check_scatter_algorithm(cube, ScatterAlgorithm::dex));
  EXPECT_TRUE(has(error_of([] { make_cube_scatter(ScatterAlgorithm::sex, 3, 3); }), "so packets are powers of two"));
  EXPECT_TRUE(has(error_of([] { make_cube_scatter(ScatterAlgorithm::product, 3, 1); }), "allowed there: sex, dex"));
  const CubeScatterPlan sex = make_cube_scatter(ScatterAlgorithm::sex, 3, 4);
  EXPECT_EQ(sex.schedule.m, 5u);  // packets of 4 words: 8 x 4 words a node
  EXPECT_EQ(sex.stats.cycles, 3u);
  EXPECT_EQ(sex.cost.element_units, 12u);  // notes: 3(t_s + 4 mu t_m)
  // The definition: word 3 of node 5's packet 6 goes to word 3 of node 6's packet 5.
  EXPECT_EQ(sex.destination((5u << 5) | (6u << 2) | 3u), (6u << 5) | (5u << 2) | 3u);
  EXPECT_TRUE(has(error_of([] { parse_scatter_topology("cube:0"); }), "d = 0 out of range: allowed 1..32"));
  EXPECT_TRUE(has(error_of([] { parse_scatter_topology("star:3"); }), "allowed ring:z, torus:z1xz2, mesh:z1xz2 or cube:d"));
  EXPECT_TRUE(has(error_of([] { parse_scatter_topology("ring:0"); }), "out of range: allowed 2..65536"));
  EXPECT_TRUE(has(error_of([] { parse_scatter_algorithm("rex"); }),
                  "allowed pipeline, bidirectional, product, dex, bex, sex, qex, idex"));
  // The cycle's DEX folds the ring in quadrants of t nodes; QEX splits a square mesh in quarters.
  EXPECT_TRUE(has(error_of([] { plan("ring:6", ScatterAlgorithm::dex); }),
                  "check_scatter_algorithm::a dex does not run on ring:6: the notes' cycle DEX needs z = 4t, and z = 6 is not a "
                  "multiple of 4"));
  EXPECT_TRUE(has(error_of([] { plan("ring:8", ScatterAlgorithm::bex); }), "wormhole meshes"));
  EXPECT_TRUE(has(error_of([] { plan("mesh:4x8", ScatterAlgorithm::qex); }),
                  "square with sides powers of two, and 4x8 is not"));
  EXPECT_TRUE(has(error_of([] { plan("mesh:6x6", ScatterAlgorithm::qex); }), "and 6x6 is not"));
  EXPECT_TRUE(has(error_of([] { plan("torus:4x4", ScatterAlgorithm::qex); }), "mesh:2^kx2^k"));
  EXPECT_TRUE(has(error_of([] { plan("ring:400", ScatterAlgorithm::dex); }), "(the largest ring it runs: ring:252)"));
}

// --- runs ---------------------------------------------------------------------

class GridScatterRun : public BackendTest {
 protected:
  // Random words, so that a packet in the wrong place shows.
  static std::vector<unsigned char> random_input(const GridSchedule& s, std::size_t wb) {
    std::mt19937_64 rng(0xC0FFEE + s.topology.nodes());
    std::vector<unsigned char> in(s.topology.nodes() * s.topology.nodes() * s.packet_words * wb);
    for (auto& b : in) b = static_cast<unsigned char>(rng());
    return in;
  }
  // The definition, written here: node j's packet i is node i's packet j.
  static std::vector<unsigned char> transposed(const std::vector<unsigned char>& in, std::uint64_t N, std::size_t block) {
    std::vector<unsigned char> out(in.size());
    for (std::uint64_t i = 0; i < N; ++i)
      for (std::uint64_t j = 0; j < N; ++j)
        std::memcpy(&out[(j * N + i) * block], &in[(i * N + j) * block], block);
    return out;
  }
};

const std::vector<std::pair<std::string, ScatterAlgorithm>>& cases() {
  static const std::vector<std::pair<std::string, ScatterAlgorithm>> c = {
      {"ring:2", ScatterAlgorithm::pipeline},       {"ring:5", ScatterAlgorithm::pipeline},
      {"ring:8", ScatterAlgorithm::pipeline},       {"ring:2", ScatterAlgorithm::bidirectional},
      {"ring:7", ScatterAlgorithm::bidirectional},  {"ring:8", ScatterAlgorithm::bidirectional},
      {"torus:2x2", ScatterAlgorithm::product},     {"torus:3x5", ScatterAlgorithm::product},
      {"torus:4x4", ScatterAlgorithm::product},     {"torus:6x2", ScatterAlgorithm::product},
      {"mesh:2x2", ScatterAlgorithm::dex},          {"mesh:2x4", ScatterAlgorithm::dex},
      {"mesh:8x4", ScatterAlgorithm::dex},          {"mesh:2x2", ScatterAlgorithm::bex},
      {"mesh:4x8", ScatterAlgorithm::bex},          {"mesh:8x2", ScatterAlgorithm::bex},
      {"ring:4", ScatterAlgorithm::dex},            {"ring:8", ScatterAlgorithm::dex},
      {"ring:12", ScatterAlgorithm::dex},           {"ring:16", ScatterAlgorithm::dex},
      {"mesh:2x2", ScatterAlgorithm::qex},          {"mesh:4x4", ScatterAlgorithm::qex},
      {"mesh:8x8", ScatterAlgorithm::qex},          {"mesh:2x2", ScatterAlgorithm::product},
      {"mesh:4x4", ScatterAlgorithm::product},      {"mesh:3x5", ScatterAlgorithm::product},
      {"torus:4x4", ScatterAlgorithm::idex},        {"torus:8x8", ScatterAlgorithm::dex},
      {"torus:12x12", ScatterAlgorithm::idex},      {"mesh:4x4", ScatterAlgorithm::idex},
      {"mesh:8x8", ScatterAlgorithm::idex},         {"mesh:12x12", ScatterAlgorithm::idex}};
  return c;
}

TEST_P(GridScatterRun, EveryAlgorithmIsTheScatter) {
  for (const auto& [name, a] : cases())
    for (std::uint64_t mu : {1, 3}) {
      SCOPED_TRACE(testing::Message() << to_string(a) << " on " << name << ", mu = " << mu);
      const GridSchedule s = plan(name, a, mu);
      const ElementType type = mu == 1 ? ElementType::u32 : ElementType::u64;
      const std::size_t wb = info(type).bytes;
      const std::vector<unsigned char> in = random_input(s, wb);
      const ScatterRun run = run_scatter(s, in, type, choice());
      EXPECT_EQ(run.output, transposed(in, s.topology.nodes(), mu * wb));
      EXPECT_EQ(run.counters.routing_cycles, s.cycles.size());
      EXPECT_EQ(run.counters.element_hops, scatter_cost(s).element_hops * mu);
    }
}

TEST_P(GridScatterRun, LabelsAndATraceCheckedCycleByCycle) {
  const GridSchedule s = plan("torus:3x4", ScatterAlgorithm::product);
  const std::vector<unsigned char> in = scatter_labels(ElementType::u32, 12, 1);
  std::size_t seen = 0;
  const ScatterRun run = run_scatter(s, in, ElementType::u32, choice(), ScatterMachine::grid,
                                     [&](std::size_t c, const std::vector<unsigned char>& memory) {
                                       EXPECT_EQ(c, seen++);
                                       EXPECT_EQ(memory.size(), 12 * s.words_per_node() * 4);
                                     });
  EXPECT_EQ(seen, s.cycles.size());
  // Node j's word i holds the label of node i's word j.
  const auto* out = reinterpret_cast<const std::uint32_t*>(run.output.data());
  for (std::uint32_t j = 0; j < 12; ++j)
    for (std::uint32_t i = 0; i < 12; ++i) ASSERT_EQ(out[j * 12 + i], i * 12 + j);
  // A wrong reference is caught: the check is no formality.
  std::vector<unsigned char> wrong = run.output;
  wrong[5] ^= 1;
  EXPECT_TRUE(has(error_of([&] {
                    check_scatter_result(wrong, scatter_reference(in, 12, 1, 4), ElementType::u32, 12, 1);
                  }),
                  "verification of the scatter failed: node 0 holds"));
}

// Sides powers of two: the same plan on the cube, each grid node at its Gray
// code and each cycle router steps between cube neighbours, leaves every
// node's memory as the grid machine does, and every word crosses one cube
// dimension a grid link (dilation 1).
TEST_P(GridScatterRun, GrayCodeEmbeddingGivesTheSameResult) {
  for (const auto& [name, a] : cases()) {
    const GridTopology t = parse_grid_topology(name);
    if ((t.z1 & (t.z1 - 1)) != 0 || (t.z2 & (t.z2 - 1)) != 0) continue;
    SCOPED_TRACE(testing::Message() << to_string(a) << " on " << name);
    const GridSchedule s = make_grid_scatter(t, a, 2);
    const std::vector<unsigned char> in = random_input(s, 4);
    const ScatterRun grid = run_scatter(s, in, ElementType::u32, choice(), ScatterMachine::grid);
    std::size_t cycles = 0;
    const ScatterRun cube = run_scatter(s, in, ElementType::u32, choice(), ScatterMachine::cube,
                                        [&](std::size_t, const std::vector<unsigned char>&) { ++cycles; });
    EXPECT_EQ(cube.memory, grid.memory);
    EXPECT_EQ(cube.output, transposed(in, t.nodes(), 2 * 4));
    EXPECT_EQ(cube.cube_dims, grid_cube_dims(t));
    EXPECT_EQ(cycles, s.cycles.size());
    EXPECT_EQ(cube.counters.element_hops, grid.counters.element_hops);
    EXPECT_EQ(cube.counters.kernel_launches, s.cycles.size());  // one launch a grid cycle
    EXPECT_GE(cube.counters.router_steps, s.cycles.size());
  }
}

// A cube file's wormhole rounds run on the cube machine: round t sends node i's packet to
// i xor t (each hop of every packet on its own directed link, one-port), for d = 1..4.
TEST_P(GridScatterRun, CubeRoundsRunOnTheCube) {
  for (unsigned d = 1; d <= 4; ++d)
    for (std::uint64_t mu : {1, 3}) {
      SCOPED_TRACE(testing::Message() << "cube:" << d << ", mu = " << mu);
      const std::uint64_t N = std::uint64_t{1} << d;
      ScatterRounds r;
      r.topology = parse_scatter_topology(fmt::format("cube:{}", d));
      std::uint64_t hops = 0, longest = 0;
      for (std::uint64_t t = 1; t < N; ++t) {
        r.rounds.emplace_back();
        for (std::uint64_t i = 0; i < N; ++i) r.rounds.back().push_back(ScatterPacket{i, i ^ t, 0});
        hops += N * std::uint64_t{popcount(t)};
        longest += std::uint64_t{popcount(t)};
      }
      CubeScatterSchedule s = cube_scatter_from_rounds(r, mu);
      EXPECT_EQ(s.cycles.size(), longest);  // a round lasts its longest route
      EXPECT_EQ(s.node_blocks, 2 * N + d);
      std::mt19937_64 rng(N + mu);
      std::vector<unsigned char> in(N * N * mu * 8);
      for (auto& b : in) b = static_cast<unsigned char>(rng());
      const ScatterRun run = run_cube_scatter(s, in, ElementType::u64, choice());
      EXPECT_EQ(run.output, transposed(in, N, mu * 8));
      EXPECT_EQ(run.counters.element_hops, hops * mu);
      // A packet delivered to the wrong sender's place is caught by the verification.
      BlockRouteStep& last = s.cycles.back().back();
      if (last.to.size() >= 2) {
        std::swap(last.to[0], last.to[1]);
        EXPECT_THROW(run_cube_scatter(s, in, ElementType::u64, choice()), Error);
      }
    }
}

HCUBE_ON_EVERY_BACKEND(GridScatterRun);

}  // namespace
}  // namespace hcube

// hcube scatter as a user runs it: the notes' worked numbers in --json, the
// result of a .npy input checked here against the scatter's definition (node
// j's packet i is node i's packet j), the Gray-code embedding's run identical
// to the grid's, the cube's SEX and DEX with the aapc command's model fields,
// traces, and one-line errors for what cannot run.
#include <cstring>

#include "cli_harness.hpp"

namespace {

using namespace hcube::test;

class CliScatter : public Cli {
 protected:
  // Random uint64 packets: N rows of N mu words.
  Words write_input(const fs::path& file, std::uint64_t N, std::uint64_t mu) const {
    Words in = random_words(N * N * mu);
    write_u64(file, {N, N * mu}, in);
    return in;
  }
  static Words transposed(const Words& in, std::uint64_t N, std::uint64_t mu) {
    Words out(in.size());
    for (std::uint64_t i = 0; i < N; ++i)
      for (std::uint64_t j = 0; j < N; ++j)
        for (std::uint64_t e = 0; e < mu; ++e) out[(j * N + i) * mu + e] = in[(i * N + j) * mu + e];
    return out;
  }
  static Words read_words(const fs::path& file, std::uint64_t N, std::uint64_t mu) {
    const hcube::NpyArray a = hcube::read_npy(file.string());
    EXPECT_EQ(a.type, hcube::ElementType::u64);
    EXPECT_EQ(a.shape, (std::vector<std::uint64_t>{N, N * mu}));
    Words w(a.data.size() / 8);
    std::memcpy(w.data(), a.data.data(), a.data.size());
    return w;
  }
};

TEST_F(CliScatter, TheNotesWorkedNumbers) {
  // Notes: T(8) pipeline 7 rounds, 7 t_s + 28 mu t_m.
  const json pipe = ok_json({"scatter", "--topology", "ring:8", "--algorithm", "pipeline"});
  EXPECT_EQ(pipe["verified"], true);
  EXPECT_EQ(pipe["rounds"], 7);
  EXPECT_EQ(pipe["cycles"], 7);
  EXPECT_EQ(pipe["model"], json({{"startups", 7}, {"element_units", 28}, {"hop_units", 0}}));
  EXPECT_EQ(pipe["notes"]["model"], pipe["model"]);
  EXPECT_EQ(pipe["notes"]["from_notes"], true);
  EXPECT_EQ(pipe["bisection_bound"], 8.0);
  EXPECT_EQ(pipe["ports"], "one");
  EXPECT_EQ(pipe["duplex"], "half");
  EXPECT_EQ(pipe["element_hops"], 8 * 28);  // each packet (j - i) mod 8 links
  // Bidirectional, z = 5: 2 rounds, 2 t_s + 3 mu t_m.
  const json bi = ok_json({"scatter", "--topology", "ring:5", "--algorithm", "bidirectional"});
  EXPECT_EQ(bi["rounds"], 2);
  EXPECT_EQ(bi["model"], json({{"startups", 2}, {"element_units", 3}, {"hop_units", 0}}));
  EXPECT_EQ(bi["ports"], "all");
  // T(4,4) product: 6 rounds, 6 t_s + 48 mu t_m.
  const json prod = ok_json({"scatter", "--topology", "torus:4x4", "--algorithm", "product"});
  EXPECT_EQ(prod["rounds"], 6);
  EXPECT_EQ(prod["model"], json({{"startups", 6}, {"element_units", 48}, {"hop_units", 0}}));
  EXPECT_EQ(prod["notes"]["formula"], "(2 t_s + mu t_m z^2)(z-1)");
  // The prose says the notes' number beside hcube's.
  EXPECT_TRUE(contains(ok({"scatter", "--topology", "ring:8"}),
                       "7 rounds in 7 routing cycles: 7 t_s + 28 mu t_m (notes: 7 t_s + 28 mu t_m"));
}

TEST_F(CliScatter, MeshesDexAndBex) {
  const json dex = ok_json({"scatter", "--topology", "mesh:4x8", "--algorithm", "dex"});
  EXPECT_EQ(dex["verified"], true);
  EXPECT_EQ(dex["max_congestion"], 4);  // notes: max(z1, z2)/2
  EXPECT_EQ(dex["congestion"].size(), 31u);
  EXPECT_EQ(dex["switching"], "wormhole");
  EXPECT_EQ(dex["notes"], nullptr);  // the notes give no formula for it
  EXPECT_EQ(dex["model"]["startups"], dex["rounds"]);
  const json bex = ok_json({"scatter", "--topology", "mesh:4x4", "--algorithm", "bex"});
  // 2 (sqrt(N) - 1) rounds of N/2 packets, paths 2^j long 2^j times: 2 (N - 1)/3 t_d.
  EXPECT_EQ(bex["model"], json({{"startups", 6}, {"element_units", 48}, {"hop_units", 10}}));
  EXPECT_EQ(bex["notes"]["from_notes"], false);
  // The product on a mesh: the torus's terms, both ways at once (all-port, full duplex).
  const json prod = ok_json({"scatter", "--topology", "mesh:4x4", "--algorithm", "product"});
  EXPECT_EQ(prod["verified"], true);
  EXPECT_EQ(prod["model"], json({{"startups", 6}, {"element_units", 48}, {"hop_units", 0}}));
  EXPECT_EQ(prod["ports"], "all");
  EXPECT_EQ(prod["duplex"], "full");
  EXPECT_EQ(prod["notes"]["from_notes"], false);
}

// Notes sec. 12: DEX on T(8) (t = 2) in 2t^2 = 8 one-port, contention-free
// rounds of one packet; sec. 8: QEX on M(8, 8) in 3 (8 - 1) = 21 rounds.
TEST_F(CliScatter, RingDexAndQex) {
  const json dex = ok_json({"scatter", "--topology", "ring:8", "--algorithm", "dex"});
  EXPECT_EQ(dex["verified"], true);
  EXPECT_EQ(dex["rounds"], 8);
  EXPECT_EQ(dex["model"], json({{"startups", 8}, {"element_units", 8}, {"hop_units", 24}}));
  EXPECT_EQ(dex["notes"]["rounds"], 8);
  EXPECT_EQ(dex["notes"]["from_notes"], true);
  EXPECT_EQ(dex["ports"], "one");
  EXPECT_EQ(dex["switching"], "wormhole");
  EXPECT_EQ(dex["max_congestion"], 1);
  EXPECT_EQ(dex["congestion"], json(std::vector<int>(8, 1)));
  EXPECT_EQ(dex["contention_free"], true);
  EXPECT_EQ(dex["bisection_bound"], 8.0);  // z^2/8 = 2t^2: met
  for (int z : {12, 16, 20}) {
    const json r = ok_json({"scatter", "--topology", "ring:" + std::to_string(z), "-a", "dex"});
    EXPECT_EQ(r["rounds"], z * z / 8) << z;
    EXPECT_EQ(r["max_congestion"], 1) << z;
  }
  EXPECT_TRUE(contains(ok({"scatter", "--topology", "ring:8", "-a", "dex"}),
                       "worst link congestion of a round: 1 (contention-free)"));
  const json qex = ok_json({"scatter", "--topology", "mesh:8x8", "--algorithm", "qex"});
  EXPECT_EQ(qex["verified"], true);
  EXPECT_EQ(qex["rounds"], 21);
  EXPECT_EQ(qex["model"], json({{"startups", 21}, {"element_units", 21 * 16}, {"hop_units", 84}}));
  EXPECT_EQ(qex["notes"]["from_notes"], false);
  EXPECT_EQ(qex["contention_free"], true);
  EXPECT_EQ(qex["ports"], "one");
}

// The interleaved DEX (hcube's design, notes sec. 12): dex on T(8, 8), idex
// on M(8, 8) (dex there is the binary DEX), one-port, contention-free, with
// the one-port bound N - 1 beside the bisection bound.
TEST_F(CliScatter, InterleavedDexOnTorusAndMesh) {
  const json torus = ok_json({"scatter", "--topology", "torus:8x8", "--algorithm", "dex"});
  EXPECT_EQ(torus["verified"], true);
  EXPECT_EQ(torus["algorithm"], "dex");
  EXPECT_EQ(torus["rounds"], 66);
  EXPECT_EQ(torus["model"], json({{"startups", 66}, {"element_units", 66}, {"hop_units", 383}}));
  EXPECT_EQ(torus["notes"], json(nullptr));
  EXPECT_EQ(torus["ports"], "one");
  EXPECT_EQ(torus["switching"], "wormhole");
  EXPECT_EQ(torus["contention_free"], true);
  EXPECT_EQ(torus["max_congestion"], 1);
  EXPECT_EQ(torus["bisection_bound"], 64.0);  // z^3/8
  EXPECT_EQ(torus["one_port_bound"], 63);
  EXPECT_EQ(torus["element_hops"], 8 * 8 * 8 * 8 * 8 / 2);
  EXPECT_EQ(ok_json({"scatter", "--topology", "torus:8x8", "-a", "idex"})["rounds"], 66);
  const json mesh = ok_json({"scatter", "--topology", "mesh:8x8", "--algorithm", "idex", "--packet-words", "3"});
  EXPECT_EQ(mesh["verified"], true);
  EXPECT_EQ(mesh["rounds"], 129);
  EXPECT_EQ(mesh["bisection_bound"], 128.0);  // one cut: z^3/4
  EXPECT_EQ(mesh["one_port_bound"], 63);
  EXPECT_EQ(mesh["contention_free"], true);
  EXPECT_FALSE(ok_json({"scatter", "--topology", "mesh:8x8", "-a", "dex"}).contains("one_port_bound"));
  EXPECT_TRUE(contains(ok({"scatter", "--topology", "torus:12x12", "-a", "dex"}),
                       "one-port lower bound: 143 rounds"));
  expect_error({"scatter", "--topology", "torus:6x6", "-a", "dex"}, {"square with z a multiple of 4", "6x6 is not"});
  expect_error({"scatter", "--topology", "mesh:12x12", "-a", "dex"}, {"powers of two", "idex (square"});
}

TEST_F(CliScatter, InputAndOutputOnEveryTopology) {
  struct Case {
    std::string topology, algorithm;
    std::uint64_t N, mu;
  };
  for (const Case& c : std::vector<Case>{{"ring:6", "pipeline", 6, 2},
                                         {"ring:7", "bidirectional", 7, 1},
                                         {"torus:3x4", "product", 12, 3},
                                         {"mesh:2x4", "dex", 8, 2},
                                         {"mesh:4x2", "bex", 8, 1},
                                         {"torus:4x4", "dex", 16, 2},
                                         {"mesh:4x4", "idex", 16, 3},
                                         {"cube:3", "sex", 8, 2},
                                         {"cube:3", "dex", 8, 4}}) {
    SCOPED_TRACE(c.algorithm + " on " + c.topology);
    const fs::path in = path("in.npy"), out = path("out.npy");
    const Words words = write_input(in, c.N, c.mu);
    const json j = ok_json({"scatter", "--topology", c.topology, "--algorithm", c.algorithm, "--packet-words",
                            std::to_string(c.mu), "-i", in.string(), "-o", out.string()});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["type"], "uint64");
    EXPECT_EQ(read_words(out, c.N, c.mu), transposed(words, c.N, c.mu));
  }
}

TEST_F(CliScatter, GrayCodeEmbeddingGivesTheSameResult) {
  for (const Args& run : std::vector<Args>{{"--topology", "ring:8", "--algorithm", "pipeline"},
                                           {"--topology", "ring:8", "--algorithm", "bidirectional"},
                                           {"--topology", "torus:4x2", "--algorithm", "product"},
                                           {"--topology", "mesh:4x4", "--algorithm", "dex"},
                                           {"--topology", "mesh:2x4", "--algorithm", "bex"}}) {
    SCOPED_TRACE(::testing::PrintToString(run));
    const fs::path in = path("in.npy"), grid = path("grid.npy"), cube = path("cube.npy");
    write_input(in, run[1] == "ring:8" ? 8 : run[1] == "mesh:4x4" ? 16 : 8, 2);
    Args a = {"scatter"};
    a.insert(a.end(), run.begin(), run.end());
    a.insert(a.end(), {"--packet-words", "2", "-i", in.string()});
    Args g = a, c = a;
    g.insert(g.end(), {"-o", grid.string()});
    c.insert(c.end(), {"--embed", "cube", "-o", cube.string()});
    const json jg = ok_json(g), jc = ok_json(c);
    EXPECT_EQ(jc["embed"], "cube");
    EXPECT_EQ(jc["verified"], true);
    EXPECT_EQ(jc["cube"]["identical_to_grid"], true);
    EXPECT_EQ(jc["cube"]["dilation"], 1);
    EXPECT_EQ(jc["cube"]["launches"], jg["cycles"]);  // one launch of neighbour router steps a grid cycle
    EXPECT_EQ(jc["rounds"], jg["rounds"]);
    EXPECT_EQ(jc["model"], jg["model"]);
    EXPECT_EQ(jc["element_hops"], jg["element_hops"]);  // every word crosses one cube dimension a grid link
    EXPECT_EQ(read_text(cube), read_text(grid));
  }
  EXPECT_TRUE(contains(ok({"scatter", "--topology", "torus:4x4", "--embed", "cube"}),
                       "run on the 4-cube, grid node (x, y) at Gray-code node G(x) + 2^2 G(y)"));
}

// The cube's SEX and DEX report what hcube aapc --algorithm sex|dex reports.
TEST_F(CliScatter, TheCubeReusesSexAndDex) {
  const json sex = ok_json({"scatter", "--topology", "cube:3", "--algorithm", "sex"});
  EXPECT_EQ(sex["verified"], true);
  EXPECT_EQ(sex["rounds"], 3);
  EXPECT_EQ(sex["cycles"], 3);
  EXPECT_EQ(sex["model"], json({{"startups", 3}, {"element_units", 12}, {"hop_units", 0}}));
  const json aapc = ok_json({"aapc", "--algorithm", "sex", "--dims", "3"});
  EXPECT_EQ(sex["model"], aapc["model"]);
  const json dex = ok_json({"scatter", "--topology", "cube:3", "--algorithm", "dex", "--packet-words", "2"});
  EXPECT_EQ(dex["model"], json({{"startups", 7}, {"element_units", 7}, {"hop_units", 12}}));
  EXPECT_EQ(dex["cycles"], 12);
  EXPECT_EQ(sex["notes"]["from_notes"], true);
  EXPECT_EQ(dex["notes"]["from_notes"], false);  // the notes' t_d term is n/2 a round, not the exact 12
  // Notes: the wormhole cube's bound (2^n - 1)/2 mu t_m, DEX twice it.
  EXPECT_EQ(dex["wormhole_bound"]["element_units"], 3.5);
  EXPECT_EQ(sex.count("wormhole_bound"), 0u);
  EXPECT_TRUE(contains(ok({"scatter", "--topology", "cube:4", "-a", "dex"}),
                       "wormhole hypercube lower bound: (2^d - 1)/2 mu t_m = 7.5 mu t_m (notes); DEX's 15 is twice it"));
}

TEST_F(CliScatter, TraceRecordsEveryCycle) {
  const json j = ok_json({"scatter", "--topology", "ring:4", "--trace"});
  const json& trace = j["trace"];
  ASSERT_EQ(trace.size(), 4u);  // initial and 3 cycles
  EXPECT_EQ(trace[1]["round"], 1);
  EXPECT_EQ(trace[1]["messages"].size(), 4u);
  EXPECT_EQ(trace[1]["messages"][0], json({{"src_node", 0}, {"dst_node", 1}, {"dim", 0}, {"dir", 1}, {"blocks", 3},
                                           {"elements", 3}}));
  // At the end node j's words 4..7 hold the labels i * 4 + j.
  const json& last = trace[3]["state"];
  for (unsigned jn = 0; jn < 4; ++jn)
    for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(last[jn][4 + i], i * 4 + jn);
  const std::string prose = ok({"scatter", "--topology", "ring:4", "--trace"});
  EXPECT_TRUE(contains(prose, "after routing cycle 1 of round 1: 0->1 X+ (3 packets)"));
  const json cube = ok_json({"scatter", "--topology", "cube:2", "--trace"});
  EXPECT_EQ(cube["trace"].size(), 5u);  // initial, pre-alignment, 2 cycles, post-alignment
}

TEST_F(CliScatter, BadInputIsAOneLineError) {
  expect_error({"scatter", "--topology", "ring:1"}, {"z = 1 out of range: allowed 2..65536"});
  expect_error({"scatter", "--topology", "hex:3"}, {"allowed ring:z, torus:z1xz2, mesh:z1xz2 or cube:d"});
  expect_error({"scatter", "--topology", "torus:4x4", "--algorithm", "pipeline"}, {"allowed there: product"});
  expect_error({"scatter", "--topology", "mesh:3x4", "--algorithm", "bex"}, {"powers of two", "3 is not"});
  expect_error({"scatter", "--topology", "ring:6", "--embed", "cube"}, {"z = 6 is not"});
  expect_error({"scatter", "--topology", "cube:3", "--embed", "cube"}, {"the cube already"});
  expect_error({"scatter", "--topology", "ring:3000"}, {"allowed at most 4194304", "ring:203"});
  expect_error({"scatter", "--topology", "ring:8", "--packet-words", "0"}, {"--packet-words 0 out of range"});
  expect_error({"scatter", "--topology", "ring:8", "--packet-words", "100000000"},
               {"--packet-words 100000000 out of range: allowed 1..16777216"});
  expect_error({"scatter", "--topology", "ring:8", "--packet-words", "1000000"}, {"allowed at most 67108864 words"});
  expect_error({"scatter", "--topology", "torus:16x16", "--trace"}, {"--trace prints every word"});
  expect_error({"scatter", "--topology", "cube:3", "--packet-words", "3"}, {"powers of two"});
  expect_error({"scatter", "--topology", "ring:4", "--algorithm", "rex"}, {"allowed pipeline, bidirectional"});
  expect_error({"scatter", "--topology", "ring:4", "--algorithm", "qex"}, {"mesh:2^kx2^k"});
  expect_error({"scatter", "--topology", "ring:10", "--algorithm", "dex"},
               {"z = 10 is not a multiple of 4", "allowed there: pipeline, bidirectional, dex (z a multiple of 4)"});
  expect_error({"scatter", "--topology", "mesh:8x4", "--algorithm", "qex"}, {"8x4 is not"});
  const fs::path in = path("in.npy");
  write_input(in, 5, 1);
  expect_error({"scatter", "--topology", "ring:4", "-i", in.string()}, {"has shape (5, 5)", "takes (4, 4)"});
}

}  // namespace

// hcube synthesize as a user runs it: the fewest routing cycles of an AAPC (d = 3: K/2 = 4, the
// channel bound) and of two AAPCs in sequence (d = 3, s = 2: 6, one below Corollary 2's 7, T = 5
// UNSAT; Johnsson & Ho 1992, sec. 2.3), each file run by `hcube run` and simulated here against
// the generalized shuffle written from its formula, apart from the library. Without CaDiCaL the
// tests skip, unless HCUBE_REQUIRE_CADICAL=1 (.ci/run sets it) makes them fail.
#include <chrono>
#include <numeric>

#include "cli_harness.hpp"
#include "hcube/synthesize.hpp"
#include "require.hpp"

namespace {

using namespace hcube::test;

// The generalized shuffle (a_s..a_1|a_0) -> (a_(s-1)..a_0|a_s) on axes of `widths` bits (sec. 2.3,
// 4.1): AAPC u swaps node axis u with the low widths[u] memory bits.
std::uint64_t shuffle(std::uint64_t node, std::uint64_t local, const std::vector<unsigned>& widths, unsigned m) {
  unsigned at = 0;
  for (unsigned w : widths) {
    const std::uint64_t lo = (std::uint64_t{1} << w) - 1;
    const std::uint64_t axis = (node >> at) & lo;
    node = (node & ~(lo << at)) | ((local & lo) << at);
    local = (local & ~lo) | axis;
    at += w;
  }
  return (node << m) | local;
}

// Runs a schedule file's exchanges between Lemma 1's xor alignments (each axis' bit b folded onto
// memory bit b) on labelled words, as docs/schedule-format.md defines them, and compares with the
// shuffle: whether the file realises it.
bool realises_shuffle(const json& file, const std::vector<unsigned>& widths) {
  const unsigned n = file["n"], m = file["m"];
  const std::uint64_t N = std::uint64_t{1} << n, K = std::uint64_t{1} << m;
  const auto fold = [&](std::uint64_t node) {
    std::uint64_t x = 0;
    for (unsigned w : widths) {
      x ^= node & ((std::uint64_t{1} << w) - 1);
      node >>= w;
    }
    return x;
  };
  std::vector<std::uint64_t> words(N * K);
  for (std::uint64_t j = 0; j < N; ++j)
    for (std::uint64_t i = 0; i < K; ++i) words[j * K + (i ^ fold(j))] = j * K + i;  // pre-alignment
  const std::vector<std::vector<std::uint64_t>> maps = file.value("offset_maps", std::vector<std::vector<std::uint64_t>>{});
  for (const json& cycle : file["cycles"]) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> swaps;
    for (const json& e : cycle) {
      const unsigned dim = e["dim"];
      const std::uint64_t a = e["addr"], p = e.value("peer_addr", a);
      const unsigned map = e.value("map", 0u);
      const auto L = [&](std::uint64_t j) {
        std::uint64_t x = 0;
        for (unsigned k = 0; k < n && map > 0; ++k)
          if ((j >> k) & 1) x ^= maps.at(map - 1).at(k);
        return x;
      };
      for (std::uint64_t j = 0; j < N; ++j) {
        if ((j >> dim) & 1) continue;
        const std::uint64_t h = j | (std::uint64_t{1} << dim);
        swaps.emplace_back(j * K + (a ^ L(j)), h * K + (p ^ L(h)));
      }
    }
    for (const auto& [x, y] : swaps) std::swap(words[x], words[y]);
  }
  for (std::uint64_t j = 0; j < N; ++j)
    for (std::uint64_t i = 0; i < K; ++i) {
      const std::uint64_t label = words[j * K + (i ^ fold(j))];  // post-alignment
      if (shuffle(label / K, label % K, widths, m) != j * K + i) return false;
    }
  return true;
}

class CliSynthesize : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    if (!hcube::synthesis_available())
      HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_CADICAL", "hcube was built without CaDiCaL (libcadical-dev)");
  }

  // Synthesizes, then checks the JSON, the file (simulated here) and `hcube run` on it.
  json synthesized(Args args, const std::vector<unsigned>& widths) {
    const fs::path out = path("found.json");
    args.insert(args.begin(), "synthesize");
    args.insert(args.end(), {"--output", out.string()});
    const auto t0 = std::chrono::steady_clock::now();
    const json j = ok_json(args);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "synthesize took " << took << " s\n";
    EXPECT_EQ(j["command"], "synthesize");
    EXPECT_EQ(j["output"], out.string());
    const json file = json::parse(read_text(out));
    EXPECT_EQ(file["format"], "hcube-schedule/1");
    EXPECT_EQ(file["cycles"].size(), j["cycles"].get<std::size_t>());
    EXPECT_TRUE(realises_shuffle(file, widths));
    const json run = ok_json({"run", "--schedule", out.string()});
    EXPECT_EQ(run["verified"], true) << run.dump();
    EXPECT_EQ(run["cycles"], j["cycles"]) << run.dump();
    return j;
  }
};

// An AAPC of d = 3 (K = 8): K/2 = 4 cycles, each node's d links carrying one word each way a cycle
// and every dimension crossed by K/2 of its words (the channel bound; sec. 2.2, Table 6).
TEST_F(CliSynthesize, AapcOfThreeDimensionsTakesFourCyclesByTheChannelBound) {
  const json j = synthesized({"aapc", "--dims", "3"}, {3});
  EXPECT_EQ(j["cycles"], 4);
  EXPECT_EQ(j["optimal"], true);
  EXPECT_EQ(j["lower_bound"], 4);
  EXPECT_EQ(j["lower_bound_proof"], "channels");
  EXPECT_EQ(j["channel_bound"], 4);
  EXPECT_EQ(j["distance_bound"], 3);
  EXPECT_EQ(j["pattern"], "aapc");
  EXPECT_EQ(j["m"], 3);
}

// Two AAPCs of d = 3 (K = 8): 6 cycles, one fewer than Corollary 2's K/2 + d = 7; T = 5 is
// impossible (a word is 6 dimensions away) and the solver's UNSAT at T = 5 agrees. About 20 s of
// CPU: ctest's label slow.
TEST_F(CliSynthesize, Slow_TwoAapcsOfThreeDimensionsTakeSixCycles) {
  const json j = synthesized({"multi-aapc", "--dims", "3", "--axes", "2"}, {3, 3});
  EXPECT_EQ(j["cycles"], 6);
  EXPECT_EQ(j["optimal"], true);
  EXPECT_EQ(j["lower_bound"], 6);
  EXPECT_EQ(j["unsat_at"], 5);
  EXPECT_EQ(j["distance_bound"], 6);
  EXPECT_EQ(j["axes"], 2);
  // The planner runs the schedule this synthesizer found (host/data/found/).
  EXPECT_EQ(ok_json({"multi-aapc", "--dims", "3", "--axes", "2"})["cycles"], j["cycles"]);
}

// Orders 3,2 (K = 8): 5 cycles, the farthest word's distance, as the planner's cached schedule
// (host/data/found/) takes, where the pair pipeline took 8. About 3 s of CPU.
TEST_F(CliSynthesize, Slow_OrdersThreeTwoAsThePlannersFoundTable) {
  const json j = synthesized({"multi-aapc", "--dims", "3,2"}, {3, 2});
  EXPECT_EQ(j["cycles"], 5);
  EXPECT_EQ(j["optimal"], true);
  EXPECT_EQ(j["unsat_at"], 4);
  EXPECT_EQ(ok_json({"multi-aapc", "--dims", "3,2"})["cycles"], j["cycles"]);
}

// Axes of orders 2,1 (K = 4): 3 cycles, where the pair pipeline takes 4 (docs/multi-aapc.md).
TEST_F(CliSynthesize, OrdersTwoOneTakeThreeCycles) {
  const json j = synthesized({"multi-aapc", "--dims", "2,1"}, {2, 1});
  EXPECT_EQ(j["cycles"], 3);
  EXPECT_EQ(j["optimal"], true);
}

// The planner's cache (host/data/found/, embedded in the library): each file is a schedule the
// synthesizer wrote, realises the generalized shuffle of its axes (simulated here), is verified
// by `hcube run`, and is what `hcube multi-aapc` runs for those orders: its cycles, not the pair
// pipeline's. Needs no solver: the files are the solver's answers, kept.
class CliFoundCache : public Cli {};

TEST_F(CliFoundCache, EveryCachedScheduleIsWhatThePlannerRuns) {
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(HCUBE_FOUND_DIR)) {
    SCOPED_TRACE(entry.path().string());
    const json file = json::parse(read_text(entry.path()));
    EXPECT_EQ(file["algorithm"], "sat");
    const std::vector<unsigned> widths =
        file.contains("axis_dims") ? file["axis_dims"].get<std::vector<unsigned>>()
                                   : std::vector<unsigned>(file["axes"].get<unsigned>(), file["d"].get<unsigned>());
    const unsigned m = file["m"];
    EXPECT_TRUE(realises_shuffle(file, widths));
    const json run = ok_json({"run", "--schedule", entry.path().string()});
    EXPECT_EQ(run["verified"], true) << run.dump();
    std::string dims;
    for (unsigned w : widths) dims += (dims.empty() ? "" : ",") + std::to_string(w);
    const json planned = ok_json({"multi-aapc", "--dims", dims, "--mem-dims", std::to_string(m)});
    EXPECT_EQ(planned["cycles"], file["cycles"].size()) << "orders " << dims;
    ++files;
  }
  EXPECT_EQ(files, 6u);
}

// One-port: one dimension a cycle, so an AAPC of d = 2 (K = 4) needs d K/2 = 4 cycles (channels).
TEST_F(CliSynthesize, OnePortAapc) {
  const json j = synthesized({"aapc", "--dims", "2", "--port-model", "one"}, {2});
  EXPECT_EQ(j["cycles"], 4);
  EXPECT_EQ(j["lower_bound_proof"], "channels");
  EXPECT_EQ(j["port_model"], "one");
}

TEST_F(CliSynthesize, BadInputGetsOneLineNamingTheValueAndTheRange) {
  const std::string out = path("x.json").string();
  expect_error({"synthesize", "aapc", "--dims", "3", "--max-cycles", "0", "-o", out},
               {"--max-cycles 0", "allowed 1 .. 256"});
  expect_error({"synthesize", "transpose", "--dims", "3", "-o", out}, {"'transpose'", "allowed aapc, multi-aapc"});
  expect_error({"synthesize", "aapc", "--dims", "3", "--port-model", "two", "-o", out}, {"two", "allowed all, one"});
  expect_error({"synthesize", "aapc", "--dims", "9", "-o", out}, {"--dims 9", "allowed 1 .. 6"});
  expect_error({"synthesize", "aapc", "--dims", "3", "--time-limit", "-1", "-o", out}, {"-1", "allowed 0 (none) .. 1000000"});
  expect_error({"synthesize", "aapc", "--dims", "3", "--time-limit", "1e300", "-o", out}, {"1e+300", "allowed 0"});
  // Fewer cycles than the distance bound: refused before any solving.
  expect_error({"synthesize", "multi-aapc", "--dims", "3", "--axes", "2", "--max-cycles", "5", "-o", out},
               {"--max-cycles 5", "distance", "allowed 6 .. 256"});
  EXPECT_FALSE(fs::exists(out));
}

// The time limit stops the solver and says which T is undecided; no file is written.
TEST_F(CliSynthesize, TimeLimitStopsTheSearch) {
  const std::string out = path("x.json").string();
  const auto t0 = std::chrono::steady_clock::now();
  expect_error({"synthesize", "multi-aapc", "--dims", "3", "--axes", "2", "--time-limit", "0.5", "-o", out},
               {"--time-limit 0.5", "T = 6", "undecided"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30);
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace

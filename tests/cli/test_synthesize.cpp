// hcube synthesize as a user runs it: the fewest routing cycles of an AAPC (d = 3: K/2 = 4, the
// channel bound) and of two AAPCs in sequence (d = 3, s = 2: 6, one below Corollary 2's 7, T = 5
// UNSAT; Johnsson & Ho 1992, sec. 2.3), each file run by `hcube run` and simulated here against
// the generalized shuffle written from its formula, apart from the library. Without CaDiCaL the
// tests skip, unless HCUBE_REQUIRE_CADICAL=1 (.ci/run sets it) makes them fail.
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <numeric>
#include <optional>

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

// One exchange of a schedule file, its offset map's columns resolved (empty: none).
struct FileExchange {
  unsigned dim = 0;
  std::uint64_t addr = 0, peer = 0;
  std::vector<std::uint64_t> cols;
};
using FileCycles = std::vector<std::vector<FileExchange>>;

FileCycles cycles_of(const json& file) {
  const std::vector<std::vector<std::uint64_t>> maps = file.value("offset_maps", std::vector<std::vector<std::uint64_t>>{});
  FileCycles cycles;
  for (const json& cycle : file["cycles"]) {
    cycles.emplace_back();
    for (const json& e : cycle) {
      const std::uint64_t a = e["addr"];
      const unsigned map = e.value("map", 0u);
      cycles.back().push_back({e["dim"], a, e.value("peer_addr", a), map > 0 ? maps.at(map - 1) : std::vector<std::uint64_t>{}});
    }
  }
  return cycles;
}

// Runs the cycles on the words of slots node * K + local, as docs/schedule-format.md defines
// them; false where a cycle uses a node's word twice (the machine's rule).
bool route(unsigned n, unsigned m, const FileCycles& cycles, std::vector<std::uint64_t>& words) {
  const std::uint64_t N = std::uint64_t{1} << n, K = std::uint64_t{1} << m;
  for (const auto& cycle : cycles) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> swaps;
    std::vector<bool> used(N * K, false);
    for (const FileExchange& e : cycle) {
      const auto slot = [&](std::uint64_t j) {
        std::uint64_t x = ((j >> e.dim) & 1) ? e.peer : e.addr;
        for (unsigned k = 0; k < e.cols.size(); ++k)
          if ((j >> k) & 1) x ^= e.cols[k];
        return j * K + x;
      };
      for (std::uint64_t j = 0; j < N; ++j) {
        if (used[slot(j)]) return false;
        used[slot(j)] = true;
        if (!((j >> e.dim) & 1)) swaps.emplace_back(slot(j), slot(j | (std::uint64_t{1} << e.dim)));
      }
    }
    for (const auto& [x, y] : swaps) std::swap(words[x], words[y]);
  }
  return true;
}

// Runs a schedule file's exchanges between Lemma 1's xor alignments (each axis' bit b folded onto
// memory bit b) on labelled words and compares with the shuffle: whether the file realises it.
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
  if (!route(n, m, cycles_of(file), words)) return false;
  for (std::uint64_t j = 0; j < N; ++j)
    for (std::uint64_t i = 0; i < K; ++i) {
      const std::uint64_t label = words[j * K + (i ^ fold(j))];  // post-alignment
      if (shuffle(label / K, label % K, widths, m) != j * K + i) return false;
    }
  return true;
}

// Address bit i of g to bit to[i] (hcube permute's --perm).
std::uint64_t permuted(std::uint64_t g, const std::vector<unsigned>& to) {
  std::uint64_t out = 0;
  for (unsigned i = 0; i < to.size(); ++i)
    if ((g >> i) & 1) out |= std::uint64_t{1} << to[i];
  return out;
}

// Whether the cycles alone (no alignments) move the word at every g to permuted(g).
bool realises_permutation(unsigned n, unsigned m, const FileCycles& cycles, const std::vector<unsigned>& to) {
  std::vector<std::uint64_t> words(std::uint64_t{1} << (n + m));
  std::iota(words.begin(), words.end(), 0);
  if (!route(n, m, cycles, words)) return false;
  for (std::uint64_t p = 0; p < words.size(); ++p)
    if (permuted(words[p], to) != p) return false;
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
    return synthesized(std::move(args), [&](const json& file) { return realises_shuffle(file, widths); });
  }

  // A permutation's file: no alignments, its perm the bit permutation asked for, which the cycles
  // alone realise; `to` written here, not read from the file.
  json permutation(Args args, const std::vector<unsigned>& to) {
    args.insert(args.begin(), "permute");
    return synthesized(std::move(args), [&](const json& file) {
      EXPECT_EQ(file["pre"], "none");
      EXPECT_EQ(file["post"], "none");
      EXPECT_EQ(file["perm"], to);
      return realises_permutation(file["n"], file["m"], cycles_of(file), to);
    });
  }

  json synthesized(Args args, const std::function<bool(const json&)>& realises) {
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
    EXPECT_TRUE(realises(file));
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

// Algorithm 4's K/2 re-derived at d = 4 (K = 16): 8 cycles, optimal by the channel bound (a
// schedule found at the bound needs no UNSAT), in well under a second.
TEST_F(CliSynthesize, AapcOfFourDimensionsTakesEightCyclesByTheChannelBound) {
  const json j = synthesized({"aapc", "--dims", "4"}, {4});
  EXPECT_EQ(j["cycles"], 8);
  EXPECT_EQ(j["optimal"], true);
  EXPECT_EQ(j["lower_bound_proof"], "channels");
  EXPECT_EQ(j["channel_bound"], 8);
  EXPECT_EQ(j["distance_bound"], 4);
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

// Two AAPCs of d = 2 on K = 8: 5 cycles, T = 4 UNSAT in the full model (about 45 s of CPU): the
// pairs skewed bit by bit, which the planner runs, are the machine's fewest, one below Corollary 2.
TEST_F(CliSynthesize, Slow_SkewedPairsAreOptimalForTwoAapcsOfTwoDimensionsOnEightWords) {
  const json j = synthesized({"multi-aapc", "--dims", "2", "--axes", "2", "--mem-dims", "3"}, {2, 2});
  EXPECT_EQ(j["cycles"], 5);
  EXPECT_EQ(j["optimal"], true);
  EXPECT_EQ(j["unsat_at"], 4);
  EXPECT_EQ(j["lower_bound_proof"], "unsat");
  const json planned = ok_json({"multi-aapc", "--dims", "2", "--axes", "2", "--mem-dims", "3"});
  EXPECT_EQ(planned["cycles"], j["cycles"]);
  EXPECT_EQ(planned["bound"], 6);  // Corollary 2: K/2 + (s-1)d
  EXPECT_NE(planned["note"].get<std::string>().find("skewed"), std::string::npos) << planned["note"];
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

// Equal axes with m = d: the restricted schedules the translations (c, ..., c) keep are searched
// first (one node in 2^d encoded). Three axes of d = 2 (K = 4): the farthest word's 6 cycles,
// found there. Two of d = 3: none takes 6 there, so the restricted model is asked and finds one.
// Unequal orders have no such translations. The 3,3,3 schedule this found in about 400 s of CPU
// (9 cycles) is the planner's cache, checked by CliFoundCache without a solver.
TEST_F(CliSynthesize, TranslationSymmetricSchedulesAreSearchedFirstOnEqualAxes) {
  const auto models = [](const json& j) {
    std::vector<std::string> v;
    for (const json& run : j["runs"]) v.push_back(run["model"].get<std::string>() + " " + run["status"].get<std::string>());
    return v;
  };
  const json three = synthesized({"multi-aapc", "--dims", "2", "--axes", "3"}, {2, 2, 2});
  EXPECT_EQ(three["cycles"], 6);
  EXPECT_EQ(three["optimal"], true);
  EXPECT_EQ(three["lower_bound_proof"], "distance");
  EXPECT_EQ(models(three), (std::vector<std::string>{"full UNSAT", "symmetric SAT"}));
  const json two = synthesized({"multi-aapc", "--dims", "2", "--axes", "2"}, {2, 2});
  EXPECT_EQ(two["cycles"], 4);
  EXPECT_EQ(models(two), (std::vector<std::string>{"full UNSAT", "symmetric UNSAT", "restricted SAT"}));
  const json unequal = synthesized({"multi-aapc", "--dims", "2,1"}, {2, 1});
  for (const std::string& run : models(unequal)) EXPECT_EQ(run.rfind("symmetric", 0), std::string::npos) << run;
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
  EXPECT_EQ(files, 7u);
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

// Permutations of the address bits (hcube permute's --perm), the cycles alone moving every word
// from g to perm(g): node bits and memory bits exchanged, bit reversal, and a swap of two node
// bits. Each file is simulated here against the permutation and run verified by `hcube run`.

// The transpose of n = m = 2 (bits 0,1 <-> 2,3): a word crosses both dimensions where its two
// address halves differ in both bits, so 2 cycles (distance), and 1 is proven impossible.
TEST_F(CliSynthesize, PermuteTransposeOfTwoTwoTakesTheDistanceBound) {
  const json j = permutation({"-n", "2", "-m", "2", "-p", "transpose"}, {2, 3, 0, 1});
  EXPECT_EQ(j["pattern"], "permute");
  EXPECT_EQ(j["perm"], std::vector<unsigned>({2, 3, 0, 1}));
  EXPECT_EQ(j["cycles"], 2);
  EXPECT_EQ(j["optimal"], true);
  EXPECT_EQ(j["lower_bound"], 2);
  EXPECT_EQ(j["lower_bound_proof"], "distance");
  EXPECT_EQ(j["unsat_at"], 1);
}

// The transpose and the bit reversal of n = m = 3: K/2 = 4 cycles, as an AAPC of d = 3: each
// dimension carries N words a cycle and N K/2 cross it (channels).
TEST_F(CliSynthesize, PermuteTransposeAndBitReversalOfThreeThreeTakeTheChannelBound) {
  for (const auto& [name, to] : {std::pair<std::string, std::vector<unsigned>>{"transpose", {3, 4, 5, 0, 1, 2}},
                                 {"bit-reversal", {5, 4, 3, 2, 1, 0}}}) {
    SCOPED_TRACE(name);
    const json j = permutation({"--dims", "3", "--mem-dims", "3", "--perm", name}, to);
    EXPECT_EQ(j["cycles"], 4);
    EXPECT_EQ(j["optimal"], true);
    EXPECT_EQ(j["lower_bound_proof"], "channels");
    EXPECT_EQ(j["distance_bound"], 3);
  }
}

// The bit reversal of n = 3, m = 2 (q = 5): node bits 3,4 <-> memory bits 1,0 and node bit 2
// stays, so a word crosses at most 2 dimensions: 2 cycles.
TEST_F(CliSynthesize, PermuteBitReversalOfThreeTwo) {
  const json j = permutation({"-n", "3", "-m", "2", "-p", "bit-reversal"}, {4, 3, 2, 1, 0});
  EXPECT_EQ(j["cycles"], 2);
  EXPECT_EQ(j["optimal"], true);
  EXPECT_EQ(j["distance_bound"], 2);
}

// Node bits 1 and 2 swapped (n = 2, m = 1, perm 0,2,1): nodes 01 and 10 trade their words, 2
// dimensions apart (distance 2), through nodes 00 and 11, whose words stay. An exchange is a swap,
// so the words it pushes into 01 and 10 must go back: 3 cycles, T = 2 UNSAT. Checked here apart
// from the solver: none of the (1 + 8)^4 pairs of cycles (per dimension idle or addr, delta, the
// other node bit's column) realises it.
TEST_F(CliSynthesize, PermuteSwapOfTwoNodeBitsTakesOneAboveTheDistanceBound) {
  const std::vector<unsigned> to{0, 2, 1};
  const json j = permutation({"-n", "2", "-m", "1", "-p", "0,2,1"}, to);
  EXPECT_EQ(j["distance_bound"], 2);
  EXPECT_EQ(j["channel_bound"], 1);
  EXPECT_EQ(j["unsat_at"], 2);
  EXPECT_EQ(j["cycles"], 3);
  EXPECT_EQ(j["lower_bound_proof"], "unsat");
  EXPECT_EQ(j["optimal"], true);
  std::vector<std::optional<FileExchange>> choices{std::nullopt};
  for (unsigned dim = 0; dim < 2; ++dim)
    for (std::uint64_t a = 0; a < 2; ++a)
      for (std::uint64_t delta = 0; delta < 2; ++delta)
        for (std::uint64_t col = 0; col < 2; ++col) {
          std::vector<std::uint64_t> cols(2, 0);
          cols[1 - dim] = col;
          choices.push_back(FileExchange{dim, a, a ^ delta, cols});
        }
  // Per cycle, dimension 0's choice and dimension 1's (index 0: idle).
  const auto pick = [&](std::size_t c, unsigned dim) {
    return c == 0 ? std::optional<FileExchange>() : choices[1 + dim * 8 + (c - 1)];
  };
  std::size_t realised = 0;
  for (std::size_t code = 0; code < 9 * 9 * 9 * 9; ++code) {
    FileCycles cycles(2);
    for (unsigned t = 0; t < 2; ++t)
      for (unsigned dim = 0; dim < 2; ++dim)
        if (const auto e = pick(code / static_cast<std::size_t>(std::pow(9, 2 * t + dim)) % 9, dim))
          cycles[t].push_back(*e);
    realised += realises_permutation(2, 1, cycles, to);
  }
  EXPECT_EQ(realised, 0u);
}

// Memory bits 0 and 1 swapped on n = 1, m = 3: a word changes address only while crossing, so each
// of the 8 that move crosses twice; 2 words cross a cycle (n N): 8 cycles (channels).
TEST_F(CliSynthesize, PermuteOfMemoryBitsAloneCrossesTwice) {
  const json j = permutation({"-n", "1", "-m", "3", "-p", "1,0,2,3"}, {1, 0, 2, 3});
  EXPECT_EQ(j["distance_bound"], 2);
  EXPECT_EQ(j["channel_bound"], 8);
  EXPECT_EQ(j["cycles"], 8);
  EXPECT_EQ(j["optimal"], true);
}

// One-port: the transpose of n = m = 2 needs each dimension's N K/2 = 8 crossings, N = 4 a cycle.
TEST_F(CliSynthesize, PermuteOnePort) {
  const json j = permutation({"-n", "2", "-m", "2", "-p", "transpose", "--port-model", "one"}, {2, 3, 0, 1});
  EXPECT_EQ(j["cycles"], 4);
  EXPECT_EQ(j["lower_bound_proof"], "channels");
}

// `hcube run` verifies the file against its perm, written from the address formula: the transpose's
// cycles under a perm naming the bit reversal fail; bad perm fields are refused as the file loads.
TEST_F(CliSynthesize, RunVerifiesThePermItNames) {
  const fs::path out = path("t.json");
  ok_json({"synthesize", "permute", "-n", "2", "-m", "2", "-p", "transpose", "-o", out.string()});
  json file = json::parse(read_text(out));
  const auto rewrite = [&](const json& perm) {
    file["perm"] = perm;
    std::ofstream(path("bad.json")) << file.dump();
    return path("bad.json").string();
  };
  const Result r = run({"run", "--schedule", rewrite({3, 2, 1, 0}), "--backend", "cpu"});
  EXPECT_NE(r.code, 0);
  EXPECT_TRUE(contains(r.err, "verification of the dimension-permutation")) << r.err;
  EXPECT_TRUE(contains(r.err, "perm = 3,2,1,0 failed")) << r.err;
  expect_error({"run", "--schedule", rewrite({0, 1, 2, 9})}, {"perm entry 3", "= 9 out of range", "allowed 0..3"});
  expect_error({"run", "--schedule", rewrite({0, 1, 2, 99})}, {"'perm' entry 99 out of range", "allowed 0..n+m-1"});
  expect_error({"run", "--schedule", rewrite({0, 1, 2})}, {"perm lists 3 bits", "expected n + m = 4"});
  expect_error({"run", "--schedule", rewrite({0, 1, 2, 2})}, {"perm", "not a permutation", "bit position 2"});
  expect_error({"run", "--schedule", rewrite(-1)}, {"'perm' must be an array"});
}

TEST_F(CliSynthesize, PermuteBadFlagsGetOneLine) {
  const std::string out = path("x.json").string();
  expect_error({"synthesize", "permute", "-n", "2", "-m", "2", "-o", out}, {"--perm missing", "transpose"});
  expect_error({"synthesize", "aapc", "--dims", "2", "-p", "transpose", "-o", out}, {"--perm transpose", "permute only"});
  expect_error({"synthesize", "permute", "-p", "transpose", "-o", out}, {"--dims missing", "n, the processor"});
  expect_error({"synthesize", "permute", "-n", "0", "-m", "2", "-p", "1,0", "-o", out},
               {"n = 0, m = 2", "allowed n, m >= 1 and n + m <= 12"});
  expect_error({"synthesize", "permute", "-n", "7", "-m", "6", "-p", "transpose", "-o", out}, {"n = 7, m = 6", "<= 12"});
  expect_error({"synthesize", "permute", "-n", "2", "-m", "1", "-p", "0,1,5", "-o", out},
               {"--perm entry 2", "= 5 out of range", "allowed 0..2"});
  expect_error({"synthesize", "permute", "-n", "2", "-m", "1", "-p", "transpose", "-o", out}, {"transpose", "q = 3"});
  expect_error({"synthesize", "permute", "-n", "2", "-m", "2", "-p", "foo", "-o", out}, {"'foo' unknown", "bit-reversal"});
  expect_error({"synthesize", "permute", "-n", "2", "-m", "2", "-p", "transpose", "--axes", "2", "-o", out},
               {"--axes 2", "multi-aapc only"});
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

// The all-to-all scatter (hcube scatter's machine model, direct packets): node a's packet for b a
// round. Each file is checked here apart from the library: every ordered pair once and, one-port,
// one send and one receive a node a round; then `hcube scatter --schedule` runs and verifies it.
class CliSynthesizeScatter : public CliSynthesize {
 protected:
  json scatter(const std::string& topology, const std::string& ports, std::uint64_t nodes) {
    const fs::path out = path("scatter.json");
    Args args{"synthesize", "scatter", "--topology", topology, "--output", out.string()};
    if (!ports.empty()) args.insert(args.end(), {"--port-model", ports});
    const json j = ok_json(args);
    const json file = json::parse(read_text(out));
    EXPECT_EQ(file["format"], "hcube-scatter/1");
    EXPECT_EQ(file["topology"], topology);
    EXPECT_EQ(file["rounds"].size(), j["cycles"].get<std::size_t>());
    std::vector<int> sent(nodes * nodes, 0);
    for (const json& round : file["rounds"]) {
      std::vector<int> sends(nodes, 0), receives(nodes, 0);
      for (const json& p : round) {
        const std::uint64_t a = p[0], b = p[1];
        ++sent.at(a * nodes + b);
        if (file["port_model"] == "one") {
          EXPECT_TRUE(++sends[a] == 1 && ++receives[b] == 1) << round.dump();
        }
      }
    }
    for (std::uint64_t a = 0; a < nodes; ++a)
      for (std::uint64_t b = 0; b < nodes; ++b) EXPECT_EQ(sent[a * nodes + b], a == b ? 0 : 1) << a << " -> " << b;
    const json run = ok_json({"scatter", "--schedule", out.string(), "--json"});
    EXPECT_EQ(run["verified"], true) << run.dump();
    EXPECT_EQ(run["rounds"], j["cycles"]) << run.dump();
    EXPECT_LE(j["seconds"].get<double>(), 10.0);
    return j;
  }
};

// ring:8, one-port (the default for the scatter): 8 rounds, the bisection bound (16 packets each
// way over the cut's 2 links), which the notes' DEX also takes (2t^2 = 8 for z = 8).
TEST_F(CliSynthesizeScatter, RingOfEightTakesTheBisectionBoundAsDex) {
  const json j = scatter("ring:8", "", 8);
  EXPECT_EQ(j["pattern"], "scatter");
  EXPECT_EQ(j["port_model"], "one");
  EXPECT_EQ(j["cycles"], 8);
  EXPECT_EQ(j["optimal"], true);
  EXPECT_EQ(j["lower_bound"], 8);
  EXPECT_EQ(j["lower_bound_proof"], "bisection");
  EXPECT_EQ(ok_json({"scatter", "--topology", "ring:8", "--algorithm", "dex", "--json"})["rounds"], j["cycles"]);
}

// Small meshes and cubes in both port models: each the bound, one-port N - 1 or the bisection.
TEST_F(CliSynthesizeScatter, SmallMeshesAndCubesTakeTheirBounds) {
  struct Case {
    const char* topology;
    const char* ports;
    std::uint64_t nodes, rounds;
    const char* proof;
  };
  for (const Case& c : {Case{"mesh:2x2", "one", 4, 3, "one-port"}, Case{"mesh:2x2", "all", 4, 2, "bisection"},
                        Case{"mesh:2x4", "one", 8, 8, "bisection"}, Case{"mesh:2x4", "all", 8, 8, "bisection"},
                        Case{"mesh:4x4", "one", 16, 16, "bisection"}, Case{"mesh:4x4", "all", 16, 16, "bisection"},
                        Case{"cube:2", "one", 4, 3, "one-port"}, Case{"cube:2", "all", 4, 2, "bisection"},
                        Case{"cube:3", "one", 8, 7, "one-port"}, Case{"cube:3", "all", 8, 4, "bisection"}}) {
    SCOPED_TRACE(std::string(c.topology) + " " + c.ports);
    const json j = scatter(c.topology, c.ports, c.nodes);
    EXPECT_EQ(j["cycles"], c.rounds);
    EXPECT_EQ(j["optimal"], true);
    EXPECT_EQ(j["lower_bound_proof"], c.proof);
  }
}

// torus:3x3 all-port: the bounds say 3, the solver proves 3 impossible on the model's routes.
TEST_F(CliSynthesizeScatter, TorusOfThreeByThreeProvesItsBoundUnsat) {
  const json j = scatter("torus:3x3", "all", 9);
  EXPECT_EQ(j["cycles"], 4);
  EXPECT_EQ(j["unsat_at"], 3);
  EXPECT_EQ(j["lower_bound_proof"], "unsat");
}

TEST_F(CliSynthesizeScatter, BadInputGetsOneLine) {
  const std::string out = path("x.json").string();
  expect_error({"synthesize", "scatter", "-o", out}, {"topology missing", "ring:z"});
  expect_error({"synthesize", "aapc", "--dims", "3", "--topology", "ring:8", "-o", out}, {"ring:8", "scatter only"});
  expect_error({"synthesize", "scatter", "--topology", "ring:65", "-o", out}, {"ring:65", "allowed 2 .. 64"});
  expect_error({"synthesize", "scatter", "--topology", "ring:8", "--max-cycles", "7", "-o", out},
               {"--max-cycles 7", "bisection", "allowed 8 .. 256"});
  EXPECT_FALSE(fs::exists(out));
  // A file that breaks the model: one line naming the round, the packet and what is allowed.
  const auto refused = [&](const std::string& rounds, const std::vector<std::string>& mentions) {
    std::ofstream(out) << (R"({"format":"hcube-scatter/1","topology":"mesh:2x2","port_model":"one","rounds":)" + rounds + "}");
    expect_error({"scatter", "--schedule", out}, mentions);
  };
  refused(R"([[[0,1,0],[1,0,0],[2,3,0],[3,2,0]],[[0,2,0],[2,0,0],[1,3,0],[3,1,0]],[[0,3,0],[3,0,0],[1,2,0]]])",
          {"packet 2 -> 1", "never sent"});
  refused(R"([[[0,1,0],[0,2,0]]])", {"round 0 packet 0 -> 2", "one-port"});
  refused(R"([[[0,1,1]]])", {"dir 1", "allowed 0"});
  refused(R"([[[0,7,0]]])", {"0 -> 7", "allowed two distinct nodes 0 .. 3"});
}

// On the cube the file's wormhole rounds run on the cube machine, verified; a --topology beside it must agree.
TEST_F(CliSynthesizeScatter, CubeFileRunsAndTopologyMustAgree) {
  const fs::path out = path("c2.json");
  ok_json({"synthesize", "scatter", "--topology", "cube:2", "-o", out.string(), "--json"});
  const json run =
      ok_json({"scatter", "--schedule", out.string(), "--json", "--type", "uint64", "-o", path("s.npy").string()});
  EXPECT_EQ(run["verified"], true);
  EXPECT_EQ(run["run"], true);
  EXPECT_EQ(run["rounds"], 3);
  // A round lasts its longest e-cube route: the most dimensions its packets' ends differ in.
  std::uint64_t hops = 0;
  const json file = json::parse(std::ifstream(out));
  for (const json& round : file["rounds"]) {
    std::uint64_t longest = 0;
    for (const json& p : round)
      longest = std::max<std::uint64_t>(longest, __builtin_popcountll(p[0].get<std::uint64_t>() ^ p[1].get<std::uint64_t>()));
    hops += longest;
  }
  EXPECT_EQ(run["cycles"], hops);
  EXPECT_EQ(run["cube_mem_dims"], 4);  // 2N + d = 10 words a node: 16
  // The labels: node i's word j is 4 i + j; node j must end with node i's packet j at word i.
  const Words got = read_u64(path("s.npy"), Cube{2, 2});  // 4 nodes of 4 packets
  ASSERT_EQ(got.size(), 16u);
  for (std::uint64_t i = 0; i < 4; ++i)
    for (std::uint64_t j = 0; j < 4; ++j) EXPECT_EQ(got[j * 4 + i], 4 * i + j) << "node " << j << " word " << i;
  expect_error({"scatter", "--schedule", out.string(), "--trace"}, {"--trace", "run, not traced"});
  expect_error({"scatter", "--schedule", out.string(), "--topology", "mesh:2x2"},
               {"--topology mesh:2x2 differs", "allowed cube:2 or none"});
  expect_error({"scatter", "--schedule", out.string(), "--algorithm", "sex"}, {"allowed without --algorithm"});
}

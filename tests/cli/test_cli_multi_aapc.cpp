// Tests of hcube multi-aapc as a user runs it: the real binary, its JSON, its
// trace and the files it writes. The generalized shuffle and the paper's
// cycle counts are written here from their formulas (Johnsson & Ho 1992,
// sec. 2.3, Table 6, Corollary 2), not with the emulator's own code.
#include <sstream>

#include "cli_harness.hpp"
#include "paper_counts.hpp"

namespace {

using namespace hcube::test;

class CliMultiAapc : public Cli {
 protected:
  // A rejected multi-aapc run: expect_error's one-line error, and no --output
  // file left behind, not even a partial one.
  void expect_rejected(Args args, const std::vector<std::string>& mentions) const {
    args.insert(args.begin(), "multi-aapc");
    args.push_back("--output");
    args.push_back(path("out.npy").string());
    expect_error(args, mentions);
    for (const auto& entry : fs::directory_iterator(dir_))
      EXPECT_FALSE(contains(entry.path().filename().string(), "out.npy")) << "left behind: " << entry.path();
  }
};

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

using hcube::test::theorem2;

// Table 6: one AAPC takes d ceil(K/2d) cycles with Algorithm 1, K/2 with 3 and 4.
std::uint64_t single_cycles(int alg, unsigned d, unsigned m) {
  const std::uint64_t half = std::uint64_t{1} << (m - 1);
  return alg == 1 ? d * ceil_div(half, d) : half;
}

// Corollary 2: s pipelined AAPCs.
std::uint64_t corollary2(int alg, unsigned d, unsigned m, unsigned s) {
  const std::uint64_t half = std::uint64_t{1} << (m - 1);
  if (alg == 1) return d * ceil_div(half, d) + (s - 1) * d;
  if (alg == 3) return half + (s - 1) * (d + half % d);
  return half + (s - 1) * d;
}

// The generalized shuffle from its definition: AAPC t exchanges node axis
// order[t] (node bits u d .. u d + d - 1) with the memory axis (the low d
// memory bits); the other bits stay.
Words shuffle(const Words& in, const Cube& c, unsigned d, const std::vector<unsigned>& order) {
  const std::uint64_t lo = (std::uint64_t{1} << d) - 1;
  Words out(in.size());
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    for (std::uint64_t i = 0; i < c.K(); ++i) {
      std::uint64_t node = j, local = i;
      for (unsigned u : order) {
        const std::uint64_t axis = (node >> (u * d)) & lo;
        node = (node & ~(lo << (u * d))) | ((local & lo) << (u * d));
        local = (local & ~lo) | axis;
      }
      out[c.g(node, local)] = in[c.g(j, i)];
    }
  return out;
}

std::vector<unsigned> identity_order(unsigned s) {
  std::vector<unsigned> order(s);
  for (unsigned t = 0; t < s; ++t) order[t] = t;
  return order;
}


std::string unmarked(const std::string& cell) { return cell.substr(0, cell.find('*')); }

struct Case {
  unsigned d, s, m;
};

// --- help ------------------------------------------------------------------

TEST_F(CliMultiAapc, HelpNamesTheCommandAndItsFlags) {
  EXPECT_TRUE(contains(ok({"--help"}), "multi-aapc"));
  const std::string help = ok({"multi-aapc", "--help"});
  for (const char* flag : {"--axes", "--dims", "--mem-dims", "--algorithm", "--sequential", "--order", "--lines",
                           "--layout", "--rotated-rows", "--figure", "--save-schedule", "--type", "--backend", "--tile-dims", "--input", "--output", "--trace", "--json"})
    EXPECT_TRUE(contains(help, flag)) << "multi-aapc --help lacks " << flag;
}

// --- counts ----------------------------------------------------------------

TEST_F(CliMultiAapc, CyclesMeetThePaperCounts) {
  const Case cases[] = {{1, 3, 1}, {1, 4, 2}, {2, 2, 2}, {2, 3, 3}, {2, 2, 4}, {3, 2, 3}, {3, 2, 4}, {4, 2, 4}};
  for (const Case& k : cases)
    for (int alg : {1, 3, 4})
      for (bool sequential : {false, true}) {
        SCOPED_TRACE(testing::Message() << "algorithm " << alg << ", d = " << k.d << ", s = " << k.s
                                        << ", m = " << k.m << (sequential ? ", sequential" : ", pipelined"));
        Args args = {"multi-aapc", "--axes",     std::to_string(k.s), "--dims", std::to_string(k.d),
                     "--mem-dims", std::to_string(k.m), "--algorithm", std::to_string(alg)};
        if (sequential) args.push_back("--sequential");
        const json j = ok_json(args);
        const std::uint64_t half = std::uint64_t{1} << (k.m - 1);
        const std::uint64_t bound = sequential ? k.s * single_cycles(alg, k.d, k.m) : corollary2(alg, k.d, k.m, k.s);
        EXPECT_EQ(j["command"], "multi-aapc");
        EXPECT_EQ(j["verified"], true);
        EXPECT_EQ(j["axes"], k.s);
        EXPECT_EQ(j["d"], k.d);
        EXPECT_EQ(j["m"], k.m);
        EXPECT_EQ(j["n"], k.s * k.d);
        EXPECT_EQ(j["K"], 2 * half);
        EXPECT_EQ(j["algorithm"], std::to_string(alg));
        EXPECT_EQ(j["pipelined"], !sequential);
        EXPECT_EQ(j["order"], json(identity_order(k.s)));
        EXPECT_EQ(j["bound"], bound);
        EXPECT_EQ(j["bound_source"], sequential ? "s x Table 6" : "Corollary 2");
        // Lemma 1: one pre- and one post-alignment for the whole sequence.
        EXPECT_EQ(j["alignments"], 2);
        EXPECT_EQ(j["counters"]["alignments"], 2);
        EXPECT_EQ(j["launches"], j["cycles"].get<std::uint64_t>() + 2);
        EXPECT_EQ(j["counters"]["kernel_launches"], j["launches"]);
        EXPECT_EQ(j["counters"]["routing_cycles"], j["cycles"]);
        // Every AAPC: K/2 complement pairs cross each of the d dimensions of its axis.
        EXPECT_EQ(j["exchanges"], k.s * k.d * half);
        EXPECT_TRUE(j["max_span"].is_number());
        EXPECT_TRUE(j["seconds"].is_number());
        EXPECT_TRUE(j["backend"].is_string());
        EXPECT_EQ(j["permutation"], "generalized-shuffle");
        EXPECT_FALSE(j.contains("trace"));
        const std::uint64_t cycles = j["cycles"];
        if (alg == 4 && !sequential && k.d == 3 && k.m == 3) {
          // The SAT solver's two-AAPC schedule (tests/data/corollary2/): 6 cycles, one fewer.
          EXPECT_EQ(cycles, 3 * k.s);
          EXPECT_EQ(cycles + 1, bound);
          ASSERT_TRUE(j["note"].is_string());
          EXPECT_TRUE(contains(j["note"], "SAT solver")) << j["note"];
        } else if (alg == 4 && !sequential && k.s > 1) {
          // The fewest of the paper's pair pipeline (Alg. 1's pairs where d divides K/2, Alg. 3's
          // elsewhere) and the pairs skewed bit by bit: K/2 + s - 1 where K/2 >= n, and never fewer
          // than max(K/2 + s - 1, n) (a pair bound); the note says when the skewed pairs run.
          const std::uint64_t pairs = corollary2(half % k.d == 0 ? 4 : 3, k.d, k.m, k.s), n = k.s * k.d;
          EXPECT_LE(cycles, std::min(pairs, bound));
          EXPECT_GE(cycles, std::max<std::uint64_t>(half + k.s - 1, n));
          if (half >= n) {
            EXPECT_EQ(cycles, half + k.s - 1);
          }
          if (cycles < pairs) {
            ASSERT_TRUE(j["note"].is_string());
            EXPECT_TRUE(contains(j["note"], "skewed")) << j["note"];
          } else {
            EXPECT_EQ(j["note"], nullptr);
          }
        } else {
          EXPECT_EQ(cycles, bound);
          EXPECT_EQ(j["note"], nullptr);
        }
      }
}

TEST_F(CliMultiAapc, ProseShowsTheBoundAndTheAlg4Note) {
  // d = 3 does not divide K/2 = 8 (the paper's pairs: 8 + (3 + 2) = 13), but K/2 >= n = 6: the
  // pairs skewed bit by bit take 8 + 2 - 1 = 9 against Corollary 2's 8 + 3 = 11.
  const std::string over = ok({"multi-aapc", "--axes", "2", "--dims", "3", "--mem-dims", "4"});
  EXPECT_TRUE(contains(over, "9 routing cycles (paper: 11, Corollary 2)")) << over;
  EXPECT_TRUE(contains(over, "(a_2,a_1|a_0) -> (a_1,a_0|a_2)")) << over;
  EXPECT_TRUE(contains(over, "verified against the reference: yes")) << over;
  std::size_t notes = 0;
  std::istringstream lines(over);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("note: ", 0) == 0) {
      ++notes;
      EXPECT_TRUE(contains(line, "9 cycles, 2 fewer than Corollary 2's 11")) << line;
      EXPECT_TRUE(contains(line, "no pipeline of pairs takes fewer than 9")) << line;
      EXPECT_TRUE(contains(line, "docs/multi-aapc.md")) << line;
    }
  EXPECT_EQ(notes, 1u) << over;

  // K = 8: the SAT solver's schedule, one cycle fewer than Corollary 2, and the note says so.
  const std::string under = ok({"multi-aapc", "--axes", "2", "--dims", "3"});
  EXPECT_TRUE(contains(under, "6 routing cycles (paper: 7, Corollary 2)")) << under;
  EXPECT_TRUE(contains(under, "note: 6 cycles, 1 fewer than Corollary 2's 7")) << under;
  EXPECT_TRUE(contains(under, "scripts/corollary2_sat.py")) << under;

  // d = 2 divides K/2: Corollary 2 exactly, no note; sequential: s times Table 6.
  const std::string met = ok({"multi-aapc", "--axes", "3", "--dims", "2", "--mem-dims", "3"});
  EXPECT_TRUE(contains(met, "8 routing cycles (paper: 8, Corollary 2)")) << met;
  EXPECT_FALSE(contains(met, "note: ")) << met;
  const std::string seq = ok({"multi-aapc", "--axes", "2", "--dims", "3", "--sequential"});
  EXPECT_TRUE(contains(seq, "8 routing cycles (paper: 8, s x Table 6)")) << seq;
  EXPECT_FALSE(contains(seq, "note: ")) << seq;
}

TEST_F(CliMultiAapc, OneAxisIsOneAapc) {
  for (int alg : {1, 3, 4}) {
    SCOPED_TRACE(alg);
    const json j = ok_json({"multi-aapc", "-s", "1", "-d", "3", "-m", "4", "-a", std::to_string(alg)});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["cycles"], single_cycles(alg, 3, 4));
    EXPECT_EQ(j["launches"], single_cycles(alg, 3, 4) + 2);
  }
}

// --- the shuffle, against its formula -------------------------------------

TEST_F(CliMultiAapc, OutputIsTheShuffle) {
  struct Run {
    Case k;
    std::vector<unsigned> order;  // empty: the default
  };
  const Run runs[] = {
      {{2, 2, 2}, {}},        {{2, 3, 3}, {}},        {{3, 2, 4}, {}},
      {{2, 3, 2}, {2, 1, 0}}, {{2, 3, 3}, {1, 2, 0}}, {{1, 4, 2}, {3, 0, 2, 1}},
  };
  for (const Run& r : runs)
    for (int alg : {1, 3, 4})
      for (bool sequential : {false, true}) {
        const Cube c{r.k.s * r.k.d, r.k.m};
        const std::vector<unsigned> order = r.order.empty() ? identity_order(r.k.s) : r.order;
        std::string order_text;
        for (unsigned u : order) order_text += (order_text.empty() ? "" : ",") + std::to_string(u);
        SCOPED_TRACE(testing::Message() << "algorithm " << alg << ", d = " << r.k.d << ", s = " << r.k.s
                                        << ", m = " << r.k.m << ", order " << order_text
                                        << (sequential ? ", sequential" : ", pipelined"));
        const Words in = random_words(c.total());
        write_u64(path("in.npy"), c.shape(), in);
        Args args = {"multi-aapc", "-s", std::to_string(r.k.s), "-d", std::to_string(r.k.d), "-m",
                     std::to_string(r.k.m), "-a", std::to_string(alg), "-i", path("in.npy").string(),
                     "-o", path("out.npy").string()};
        if (!r.order.empty()) args.insert(args.end(), {"--order", order_text});
        if (sequential) args.push_back("--sequential");
        const json j = ok_json(args);
        EXPECT_EQ(j["verified"], true);
        EXPECT_EQ(j["type"], "uint64");
        EXPECT_EQ(j["order"], json(order));
        EXPECT_EQ(read_u64(path("out.npy"), c), shuffle(in, c, r.k.d, order));
      }
  // The default order is (a_s, ..., a_1 | a_0) -> (a_(s-1), ..., a_0 | a_s), written out for s = 3, d = 2, m = 3.
  const Cube c{6, 3};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  ok({"multi-aapc", "-s", "3", "-d", "2", "-m", "3", "-i", path("in.npy").string(), "-o", path("out.npy").string()});
  Words want(in.size());
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    for (std::uint64_t i = 0; i < c.K(); ++i) {
      const std::uint64_t a1 = j & 3, a2 = (j >> 2) & 3, a3 = (j >> 4) & 3, a0 = i & 3, high = i & 4;
      want[c.g(a2 << 4 | a1 << 2 | a0, high | a3)] = in[c.g(j, i)];
    }
  EXPECT_EQ(read_u64(path("out.npy"), c), want);
}

TEST_F(CliMultiAapc, OtherTypesAndGreedyLines) {
  for (const char* type : {"uint32", "double", "complex128"}) {
    SCOPED_TRACE(type);
    const json j = ok_json({"multi-aapc", "-s", "2", "-d", "2", "-m", "3", "--type", type});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["type"], type);
  }
  const json g = ok_json({"multi-aapc", "-s", "2", "-d", "3", "-m", "4", "--sequential", "--lines", "greedy"});
  EXPECT_EQ(g["verified"], true);
  EXPECT_EQ(g["lines"], "greedy");
  EXPECT_EQ(g["cycles"], 16);
}

// --- Algorithm 5 and axes of unequal order (sec. 4) -------------------------


// The shuffle for axes of the given orders: axis u (the next widths[u] node
// bits) swaps with the low widths[u] memory bits, in order.
Words shuffle_widths(const Words& in, const Cube& c, const std::vector<unsigned>& widths) {
  Words out(in.size());
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    for (std::uint64_t i = 0; i < c.K(); ++i) {
      std::uint64_t node = j, local = i;
      unsigned offset = 0;
      for (unsigned w : widths) {
        const std::uint64_t lo = (std::uint64_t{1} << w) - 1, axis = (node >> offset) & lo;
        node = (node & ~(lo << offset)) | ((local & lo) << offset);
        local = (local & ~lo) | axis;
        offset += w;
      }
      out[c.g(node, local)] = in[c.g(j, i)];
    }
  return out;
}

TEST_F(CliMultiAapc, Algorithm5MeetsTheorem2AndIsTheShuffle) {
  const Case cases[] = {{2, 6, 5}, {2, 4, 4}, {1, 5, 3}, {2, 3, 5}, {3, 4, 6}, {1, 8, 2}};
  for (const Case& k : cases)
    for (const char* layout : {"compact", "paper", "skewed"}) {
      SCOPED_TRACE(testing::Message() << "d = " << k.d << ", s = " << k.s << ", m = " << k.m << ", " << layout);
      if (std::string(layout) == "skewed" && (std::uint64_t{1} << (k.m - 1)) < k.s * k.d) continue;  // K/2 < s d
      const Cube c{k.s * k.d, k.m};
      const Words in = random_words(c.total());
      write_u64(path("in.npy"), c.shape(), in);
      const json j = ok_json({"multi-aapc", "--axes", std::to_string(k.s), "--dims", std::to_string(k.d), "--mem-dims",
                              std::to_string(k.m), "--algorithm", "5", "--layout", layout, "-i",
                              path("in.npy").string(), "-o", path("out.npy").string()});
      // The fields users' scripts read.
      EXPECT_EQ(j["axes"], k.s);
      EXPECT_EQ(j["d"], k.d);
      EXPECT_EQ(j["m"], k.m);
      EXPECT_EQ(j["K"], std::uint64_t{1} << k.m);
      EXPECT_EQ(j["algorithm"], "5");
      EXPECT_EQ(j["verified"], true);
      EXPECT_TRUE(j["seconds"].is_number());
      EXPECT_EQ(j["bound"], theorem2(k.d, k.m, k.s));
      EXPECT_TRUE(contains(j["bound_source"], "Theorem 2")) << j["bound_source"];
      EXPECT_EQ(j["launches"], j["cycles"].get<std::uint64_t>() + j["alignments"].get<std::uint64_t>());
      const std::uint64_t half = std::uint64_t{1} << (k.m - 1);
      if (half % k.d == 0 && std::string(layout) == "compact") {
        EXPECT_LE(j["cycles"].get<std::uint64_t>(), j["bound"].get<std::uint64_t>());
      }
      EXPECT_EQ(read_u64(path("out.npy"), c), shuffle(in, c, k.d, identity_order(k.s)));
    }
  // d = 2, s = 6, K = 32: with 2 rotated rows the compact layout takes R + 1 = 9 columns of d cycles, the
  // paper's R + 2 = 10 (Theorem 2); left to itself it runs the skewed layout, a row of 4 pairs rotated
  // in each bit: 16 - 4 + max(5, 5) = 17.
  const json compact = ok_json({"multi-aapc", "-s", "6", "-d", "2", "-m", "5", "-a", "5", "--rotated-rows", "2"});
  EXPECT_EQ(compact["schedule"], "concurrent");
  EXPECT_EQ(compact["layout"], "compact");
  EXPECT_EQ(compact["cycles"], 18);
  EXPECT_EQ(compact["columns"], 9);
  EXPECT_EQ(compact["rotated_data_sets"], 4);
  EXPECT_EQ(compact["alignments"], 4);  // one each for the rotated rows, before and after
  const json paper = ok_json({"multi-aapc", "-s", "6", "-d", "2", "-m", "5", "-a", "5", "--layout", "paper"});
  EXPECT_EQ(paper["cycles"], 20);
  EXPECT_EQ(paper["bound"], 20);
  const json skewed = ok_json({"multi-aapc", "-s", "6", "-d", "2", "-m", "5", "-a", "5"});
  EXPECT_EQ(skewed["schedule"], "concurrent");
  EXPECT_EQ(skewed["layout"], "skewed");
  EXPECT_EQ(skewed["cycles"], 17);
  EXPECT_EQ(skewed["rotated_rows"], 2);
  EXPECT_EQ(skewed["rotated_pairs"], 8);
  EXPECT_TRUE(skewed["columns"].is_null());
  EXPECT_TRUE(skewed["data_sets"].is_null());
  EXPECT_EQ(skewed["alignments"], 6);  // a block of rotated rows a bit, before and after
  EXPECT_TRUE(contains(skewed["note"], "3 fewer than Theorem 2")) << skewed["note"];
  fs::remove(path("out.npy"));  // the runs above wrote it
  expect_rejected({"-s", "6", "-d", "2", "-m", "5", "-a", "5", "--layout", "skewed", "--rotated-rows", "3"},
                  {"rotated rows 3 out of range for the skewed layout", "multiples of d = 2"});
  expect_rejected({"-s", "6", "-d", "2", "-m", "4", "-a", "5", "--layout", "skewed"}, {"K/2 >= s d", "K/2 = 8"});
}

TEST_F(CliMultiAapc, Algorithm5FigureAndFallback) {
  const std::string out = ok({"multi-aapc", "-s", "6", "-d", "2", "-m", "5", "-a", "5", "--layout", "paper", "--figure"});
  EXPECT_TRUE(contains(out, "time step    0    1    2")) << out;
  EXPECT_TRUE(contains(out, "d_0^0      v,5  v,6    *       i,1  i,2  i,3  i,4  i,5")) << out;
  EXPECT_TRUE(contains(out, "20 routing cycles (paper: 20, Theorem 2, K >= 2(s+1)d)")) << out;
  const json fig = ok_json({"multi-aapc", "-s", "6", "-d", "2", "-m", "5", "-a", "5", "--rotated-rows", "2", "--figure"});
  ASSERT_TRUE(fig["figure"].is_string());
  EXPECT_TRUE(contains(fig["figure"], "v,6")) << fig["figure"];
  // The skewed layout has no columns to draw, and says so.
  const std::string none = ok({"multi-aapc", "-s", "6", "-d", "2", "-m", "5", "-a", "5", "--figure"});
  EXPECT_TRUE(contains(none, "in columns of d cycles: this run has none")) << none;
  EXPECT_FALSE(ok_json({"multi-aapc", "-s", "6", "-d", "2", "-m", "5", "-a", "5", "--figure"}).contains("figure"));
  // No spare memory axis (m < 2d): Algorithm 5 pipelines, as Theorem 2's first case does.
  const json piped = ok_json({"multi-aapc", "-s", "3", "-d", "2", "-m", "3", "-a", "5"});
  EXPECT_EQ(piped["schedule"], "pipelined");
  EXPECT_EQ(piped["verified"], true);
  EXPECT_EQ(piped["cycles"], 4 + 2 * 2);
  EXPECT_EQ(piped["bound"], theorem2(2, 3, 3));
  ASSERT_TRUE(piped["note"].is_string());
  EXPECT_TRUE(contains(piped["note"], "spare memory axis")) << piped["note"];
  // --trace shows the rotated rows' own alignments.
  const std::string trace = ok({"multi-aapc", "-s", "3", "-d", "1", "-m", "2", "-a", "5", "--rotated-rows", "1", "--trace"});
  EXPECT_TRUE(contains(trace, "after the pre-alignment of the rotated rows")) << trace;
  EXPECT_TRUE(contains(trace, "after the post-alignment of the rotated rows")) << trace;
  EXPECT_TRUE(contains(trace, "verified against the reference: yes")) << trace;
}

// Every multi-AAPC schedule is data: saved with --save-schedule and run again by hcube run.
TEST_F(CliMultiAapc, SavedSchedulesRunAgain) {
  const std::vector<Args> runs = {{"-s", "3", "-d", "2", "-m", "3"},
                                  {"-s", "3", "-d", "2", "-m", "3", "--sequential"},
                                  {"--dims", "3,2,2", "-m", "4", "-a", "1"},
                                  {"-s", "4", "-d", "2", "-m", "5", "-a", "5", "--rotated-rows", "2"}};
  for (const Args& r : runs) {
    Args args = {"multi-aapc"};
    args.insert(args.end(), r.begin(), r.end());
    args.insert(args.end(), {"--save-schedule", path("s.json").string()});
    const json first = ok_json(args);
    ASSERT_TRUE(fs::exists(path("s.json")));
    const json again = ok_json({"run", "--schedule", path("s.json").string()});
    EXPECT_EQ(again["verified"], true);
    EXPECT_EQ(again["permutation"], "generalized-shuffle");
    EXPECT_EQ(again["cycles"], first["cycles"]);
    EXPECT_EQ(again["launches"], first["launches"]);
  }
}

// hcube run checks a saved sequence against the shuffle its header names, not
// against a replay of its own cycles: the order survives the file, and a header
// edited to name another order fails verification though every cycle is legal.
TEST_F(CliMultiAapc, RunVerifiesTheShuffleTheHeaderNames) {
  ok_json({"multi-aapc", "-s", "3", "-d", "2", "-m", "2", "--order", "2,0,1", "--save-schedule",
           path("o.json").string()});
  json file = json::parse(std::ifstream(path("o.json")));
  EXPECT_EQ(file["axis_order"], json({2, 0, 1}));
  EXPECT_EQ(ok_json({"run", "--schedule", path("o.json").string()})["verified"], true);
  file["axis_order"] = json({0, 1, 2});
  std::ofstream(path("edited.json")) << file.dump();
  expect_error({"run", "--schedule", path("edited.json").string(), "--json"}, {"verification", "failed"});
}

TEST_F(CliMultiAapc, UnequalOrdersWithAlgorithm1) {
  const std::vector<std::vector<unsigned>> cases = {{3, 2, 2}, {3, 2}, {4, 3, 2, 1}, {2, 1, 1}};
  for (const auto& dims : cases)
    for (bool sequential : {false, true}) {
      std::string text;
      unsigned n = 0;
      for (unsigned w : dims) {
        text += (text.empty() ? "" : ",") + std::to_string(w);
        n += w;
      }
      const unsigned m = dims[0] + 1;
      SCOPED_TRACE(text + (sequential ? ", sequential" : ", pipelined"));
      if (!sequential && dims == std::vector<unsigned>{3, 2, 2}) {
        // The bound for unequal orders is hcube's derivation from sec. 4.1's lags: not the paper's number.
        const std::string prose = ok({"multi-aapc", "--dims", text, "-m", std::to_string(m), "-a", "1"});
        EXPECT_TRUE(contains(prose, "routing cycles (derived: ")) << prose;
        EXPECT_FALSE(contains(prose, "(paper: ")) << prose;
      }
      const Cube c{n, m};
      const Words in = random_words(c.total());
      write_u64(path("in.npy"), c.shape(), in);
      Args args = {"multi-aapc", "--dims", text, "-m", std::to_string(m), "-a", "1", "-i", path("in.npy").string(),
                   "-o", path("out.npy").string()};
      if (sequential) args.push_back("--sequential");
      const json j = ok_json(args);
      EXPECT_EQ(j["verified"], true);
      EXPECT_EQ(j["axes"], dims.size());
      EXPECT_EQ(j["axis_dims"], json(dims));
      EXPECT_EQ(j["alignments"], 2);
      const std::uint64_t half = std::uint64_t{1} << (m - 1);
      std::uint64_t want = dims.back() * ceil_div(half, dims.back());
      for (std::size_t i = 1; i < dims.size(); ++i) {
        const unsigned a = dims[i - 1], b = dims[i];
        unsigned g = a;
        for (unsigned r = b; r != 0;) {
          const unsigned t = g % r;
          g = r;
          r = t;
        }
        // Sec. 4.1: the extra delay d_i - gcd(d_(i-1), d_i) on top of d_(i-1).
        want += sequential ? a * ceil_div(half, a) : a + (b - g);
      }
      EXPECT_EQ(j["cycles"], want);
      EXPECT_EQ(j["bound"], want);
      EXPECT_EQ(j["bound_from_paper"], false);
      EXPECT_EQ(read_u64(path("out.npy"), c), shuffle_widths(in, c, dims));
    }
}

// `multi-aapc -d 3,2,2 -a 3` and `-a 4`, which needed Algorithm 1 before: every
// AAPC a pair schedule of its order, verified bit for bit against the shuffle; the bound
// they are held against is hcube's (Corollary 2's form, K/2 + d_1 + ... + d_(s-1)).
TEST_F(CliMultiAapc, UnequalOrdersWithAlgorithms3And4) {
  for (const std::string alg : {"3", "4"})
    for (unsigned m : {3u, 4u}) {
      const std::vector<unsigned> dims = {3, 2, 2};
      SCOPED_TRACE("-a " + alg + ", m = " + std::to_string(m));
      const Cube c{7, m};
      const Words in = random_words(c.total());
      write_u64(path("in.npy"), c.shape(), in);
      const json j = ok_json({"multi-aapc", "-d", "3,2,2", "-m", std::to_string(m), "-a", alg, "-i",
                              path("in.npy").string(), "-o", path("out.npy").string()});
      EXPECT_EQ(j["verified"], true);
      EXPECT_EQ(j["algorithm"], alg);
      EXPECT_EQ(j["axis_dims"], json(dims));
      EXPECT_EQ(j["alignments"], 2);
      const std::uint64_t half = std::uint64_t{1} << (m - 1);
      EXPECT_EQ(j["bound"], half + 3 + 2);
      EXPECT_EQ(j["bound_from_paper"], false);
      if (alg == "4" && m == 3) {
        // The SAT solver's schedule: 7 cycles, the farthest word's distance (tests/data/corollary2/).
        EXPECT_EQ(j["cycles"], 7);
        EXPECT_TRUE(contains(j["note"], "SAT solver")) << j["note"];
      } else if (alg == "4") {
        // The pairs skewed bit by bit: n = 7 cycles at least, a pair crossing one dimension a cycle.
        EXPECT_GE(j["cycles"].get<std::uint64_t>(), std::max<std::uint64_t>(half + 3 - 1, 7));
        EXPECT_LT(j["cycles"].get<std::uint64_t>(), half + 3 + 2);
        EXPECT_TRUE(contains(j["note"], "skewed")) << j["note"];
      } else {
        EXPECT_GE(j["cycles"].get<std::uint64_t>(), half + 3 + 2);
      }
      EXPECT_EQ(read_u64(path("out.npy"), c), shuffle_widths(in, c, dims));
    }
  // K/2 = 4: order 3 (Algorithm 3 = Algorithm 2 on all 4 pairs) releases pairs at cycles 2, 3, 3, 3 and
  // order 2 takes them in windows starting 0, 0, 2, 2: lag 4; order 2 to order 2, lag 2; then 4 cycles.
  const std::string alg3 = ok({"multi-aapc", "-d", "3,2,2", "-a", "3"});
  EXPECT_TRUE(contains(alg3, "10 routing cycles (derived: 9, ")) << alg3;
  EXPECT_TRUE(contains(alg3, "note: 10 cycles, 1 more than the derived 9")) << alg3;
  // 3,3,2: Algorithm 3's span 4 costs more than Algorithm 1's short last group (lags 3 and 3 + 2 - 1,
  // then 2 x 2); Algorithm 4 runs the solver's 8 cycles, and on K = 16 the better pair pipeline.
  EXPECT_EQ(ok_json({"multi-aapc", "-d", "3,3,2", "-a", "3"})["cycles"], 12);
  EXPECT_EQ(ok_json({"multi-aapc", "-d", "3,3,2", "-a", "1"})["cycles"], 11);
  EXPECT_EQ(ok_json({"multi-aapc", "-d", "3,3,2", "-a", "4"})["cycles"], 8);
  // On K = 16 (8 pairs, n = 8) one skewed row: 8 + 3 - 1 = 10, below either pair pipeline.
  EXPECT_EQ(ok_json({"multi-aapc", "-d", "3,3,2", "-m", "4", "-a", "4"})["cycles"], 10);
  EXPECT_GT(std::min(ok_json({"multi-aapc", "-d", "3,3,2", "-m", "4", "-a", "1"})["cycles"].get<std::uint64_t>(),
                     ok_json({"multi-aapc", "-d", "3,3,2", "-m", "4", "-a", "3"})["cycles"].get<std::uint64_t>()),
            10u);
}

// --- trace -----------------------------------------------------------------

TEST_F(CliMultiAapc, TraceShowsTable3) {
  // The paper's Table 3: s = 2 AAPCs of d = 2 on 16 nodes of K = 4 words, Algorithm 4, one after the other.
  const std::string out =
      ok({"multi-aapc", "--axes", "2", "--dims", "2", "--mem-dims", "2", "--algorithm", "4", "--sequential",
          "--trace"});
  const auto initial = table_after(out, "initial state");
  const auto pre = table_after(out, "after the pre-alignment");
  const auto first = table_after(out, "after AAPC 1 of 2");
  const auto second = table_after(out, "after AAPC 2 of 2");
  const auto post = table_after(out, "after the post-alignment");
  for (const auto* t : {&initial, &pre, &first, &second, &post}) {
    ASSERT_EQ(t->size(), 16u) << out;
    for (const auto& row : *t) ASSERT_EQ(row.size(), 4u) << out;
  }
  // 2 cycles per AAPC, each headed by its exchanges with their offset maps.
  for (int c = 0; c < 4; ++c) EXPECT_TRUE(contains(out, "after routing cycle " + std::to_string(c) + " of 4: dim "));
  EXPECT_TRUE(contains(out, " (map 1)")) << out;
  EXPECT_TRUE(contains(out, " (map 2)")) << out;
  EXPECT_FALSE(contains(out, "after AAPC 3")) << out;
  EXPECT_LT(out.find("after AAPC 1 of 2"), out.find("after routing cycle 2 of 4"));
  EXPECT_TRUE(contains(out, "mod 2 add")) << out;

  const Cube c{4, 2};
  const std::vector<unsigned> order = {0, 1};
  const Words want = shuffle(labels(c), c, 2, order);
  for (std::uint64_t j = 0; j < 16; ++j)
    for (std::uint64_t i = 0; i < 4; ++i) {
      EXPECT_EQ(initial[j][i], std::to_string(j) + "." + std::to_string(i));
      // Lemma 1's pre-alignment: address i of node j holds the word (j, i xor a_1 xor a_2).
      const std::uint64_t x = i ^ (j & 3) ^ (j >> 2);
      EXPECT_EQ(unmarked(pre[j][i]), std::to_string(j) + "." + std::to_string(x));
      const std::uint64_t w = want[c.g(j, i)];
      EXPECT_EQ(unmarked(post[j][i]), std::to_string(w / 4) + "." + std::to_string(w % 4));
    }
  // After the first AAPC node 4 holds at address 0 the word of node 5, address 0 (label 20): node 5
  // sent it across dimension 0, where node 0 keeps its own word at address 0.
  EXPECT_EQ(unmarked(first[4][0]), "5.0");
  EXPECT_EQ(unmarked(first[0][0]), "0.0");

  // Pipelined, there is no AAPC boundary to mark.
  const std::string piped = ok({"multi-aapc", "-s", "2", "-d", "2", "--trace"});
  EXPECT_FALSE(contains(piped, "after AAPC")) << piped;
  EXPECT_TRUE(contains(piped, "after the post-alignment")) << piped;
}

TEST_F(CliMultiAapc, TraceJson) {
  const Cube c{4, 2};
  const json j = ok_json({"multi-aapc", "-s", "2", "-d", "2", "--sequential", "--trace"});
  EXPECT_EQ(j["verified"], true);
  const json& t = j["trace"];
  ASSERT_EQ(t.size(), 7u);  // initial, pre, 4 cycles, post
  EXPECT_EQ(t[0]["step"], "initial");
  EXPECT_EQ(t[1]["step"], "pre-alignment");
  EXPECT_EQ(t[2]["step"], "routing cycle 0");
  EXPECT_EQ(t[6]["step"], "post-alignment");
  EXPECT_EQ(t[0]["state"], state_json(labels(c), c, false));
  const Words pre =
      align(labels(c), c, [](std::uint64_t node, std::uint64_t i) { return i ^ (node & 3) ^ (node >> 2); });
  EXPECT_EQ(t[1]["state"], state_json(pre, c, false));
  for (int cyc = 0; cyc < 4; ++cyc) {
    const json& step = t[2 + cyc];
    ASSERT_EQ(step["exchanges"].size(), 2u);
    for (const json& x : step["exchanges"]) EXPECT_TRUE(x.contains("map")) << x;
    if (cyc == 1 || cyc == 3)
      EXPECT_EQ(step["after_aapc"], cyc == 1 ? 1 : 2);
    else
      EXPECT_FALSE(step.contains("after_aapc"));
  }
  EXPECT_EQ(t[3]["state"][4][0], 20);  // Table 3: node 4, address 0 holds label 20 = node 5, address 0
  EXPECT_EQ(t[6]["state"], state_json(shuffle(labels(c), c, 2, {0, 1}), c, false));
}

// --- rejected input --------------------------------------------------------

TEST_F(CliMultiAapc, RejectsBadFlags) {
  expect_rejected({"--axes", "0", "--dims", "2"}, {"s = 0"});
  expect_rejected({"--axes", "2", "--dims", "0"}, {"d = 0"});
  expect_rejected({"--axes", "2", "--dims", "3", "--mem-dims", "2"}, {"d = 3", "m = 2"});
  expect_rejected({"--axes", "2", "--dims", "2", "--algorithm", "7"}, {"'7'", "1, 3, 4"});
  expect_rejected({"--axes", "2", "--dims", "2", "--algorithm", "five"}, {"'five'", "1, 3, 4"});
  expect_rejected({"--axes", "2", "--dims", "2", "--algorithm", "5", "--sequential"}, {"--sequential", "Algorithm 5"});
  expect_rejected({"--axes", "2", "--dims", "2", "--algorithm", "5", "--order", "1,0"}, {"--order", "Algorithm 5"});
  expect_rejected({"--axes", "3", "--dims", "2", "--algorithm", "5", "--layout", "zigzag"},
                  {"'zigzag'", "paper", "compact"});
  expect_rejected({"--axes", "3", "--dims", "2", "--algorithm", "5", "--rotated-rows", "3"}, {"rotated rows 3", "0..2"});
  expect_rejected({"--axes", "3", "--dims", "2", "--mem-dims", "3", "--algorithm", "5", "--rotated-rows", "1"},
                  {"spare memory axis", "m = 3", "2d = 4"});
  expect_rejected({"--axes", "2", "--dims", "2", "--algorithm", "5", "--layout", "paper", "--rotated-rows", "1"},
                  {"Figure 4", "s >= 3"});
  // Axes of different orders: non-increasing, Algorithm 1, and agreeing with --axes.
  expect_rejected({"--dims", "2,3"}, {"must not increase", "d_2 = 3", "d_1 = 2"});
  expect_rejected({"--dims", "3,2", "--algorithm", "5"}, {"unequal order", "3,2", "1, 3 or 4"});
  expect_rejected({"--dims", "3,2", "--algorithm", "1", "--order", "1,0"}, {"--order", "equal order"});
  expect_rejected({"--axes", "3", "--dims", "3,2", "--algorithm", "1"}, {"--axes 3", "lists 2 axes"});
  expect_rejected({"--dims", "3,0", "--algorithm", "1"}, {"d = 0"});
  expect_rejected({"--dims", "2"}, {"--axes is required"});
  expect_rejected({"--axes", "2", "--dims", "2", "--algorithm", "2"}, {"'2'", "1, 3, 4"});
  expect_rejected({"--axes", "2", "--dims", "2", "--order", "0,0"}, {"0,0", "axis 0 appears twice", "0..1"});
  expect_rejected({"--axes", "3", "--dims", "2", "--order", "0,1"}, {"0,1", "lists 2 axes", "s = 3"});
  expect_rejected({"--axes", "2", "--dims", "2", "--order", "0,2"}, {"axis 2 out of range", "0..1"});
  expect_rejected({"--axes", "2", "--dims", "2", "--order", "1,x"}, {"--order", "'x'"});
  expect_rejected({"--axes", "30", "--dims", "2"}, {"60 + 2", "56"});
  expect_rejected({"--axes", "2", "--dims", "2", "--mem-dims", "60"}, {"60", "56"});
  expect_rejected({"--axes", "1", "--dims", "2", "--mem-dims", "40"}, {"exchanges", "--mem-dims"});
  expect_rejected({"--axes", "2", "--dims", "2", "--lines", "zigzag"}, {"'zigzag'", "diagonal", "greedy"});
  expect_rejected({"--axes", "2", "--dims", "3", "--mem-dims", "7", "--trace"}, {"8192", "4096"});
  expect_rejected({"--axes", "2", "--dims", "2", "--type", "int8"}, {"'int8'"});
}

}  // namespace

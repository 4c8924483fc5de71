// Tests of hcube schedule | aapc | run as a user runs them: the real binary,
// its JSON, its tables and the files it reads and writes. Expected states are
// computed here from the permutations' formulas and the definition of an
// exchange, not with the emulator's reference code.
#include <sstream>

#include "cli_harness.hpp"

namespace {

using namespace hcube::test;

class CliAapc : public Cli {};

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// Table 6: Algorithm 1 takes d ceil(K / 2d) cycles, the others K / 2.
std::uint64_t paper_cycles(int algorithm, unsigned d, unsigned m) {
  const std::uint64_t half = std::uint64_t{1} << (m - 1);
  return algorithm == 1 ? d * ceil_div(half, d) : half;
}

std::uint64_t reverse(std::uint64_t x, unsigned bits) {
  std::uint64_t r = 0;
  for (unsigned b = 0; b < bits; ++b)
    if ((x >> b) & 1) r |= std::uint64_t{1} << (bits - 1 - b);
  return r;
}
std::uint64_t gray(std::uint64_t x) { return x ^ (x >> 1); }
std::uint64_t gray_inverse(std::uint64_t x) {
  for (std::uint64_t s = x >> 1; s != 0; s >>= 1) x ^= s;
  return x;
}

// The permutations of one AAPC on the low d node and memory bits, written
// from their formulas: word (j|i) goes to (node_of(i) | local_of(j)), the bits
// above d staying where they are.
struct Formula {
  const char* name;
  std::function<std::uint64_t(std::uint64_t, unsigned)> node_of_i, local_of_j;
};
const Formula kFormulas[] = {
    {"transpose", [](std::uint64_t x, unsigned) { return x; }, [](std::uint64_t x, unsigned) { return x; }},
    {"bit-reversal", [](std::uint64_t x, unsigned d) { return reverse(x, d); },
     [](std::uint64_t x, unsigned d) { return reverse(x, d); }},
    {"vector-reversal", [](std::uint64_t x, unsigned d) { return x ^ ((std::uint64_t{1} << d) - 1); },
     [](std::uint64_t x, unsigned d) { return x ^ ((std::uint64_t{1} << d) - 1); }},
    {"gray", [](std::uint64_t x, unsigned) { return gray(x); },
     [](std::uint64_t x, unsigned) { return gray_inverse(x); }},
};

Words permute(const Words& in, const Cube& c, unsigned d, const Formula& f) {
  const std::uint64_t lo = (std::uint64_t{1} << d) - 1;
  Words out(in.size());
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    for (std::uint64_t i = 0; i < c.K(); ++i) {
      const std::uint64_t node = (j & ~lo) | f.node_of_i(i & lo, d);
      const std::uint64_t local = (i & ~lo) | f.local_of_j(j & lo, d);
      out[c.g(node, local)] = in[c.g(j, i)];
    }
  return out;
}

Args concat(Args a, const Args& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}


// --- help ------------------------------------------------------------------

TEST_F(CliAapc, HelpNamesTheCommandsAndTheirFlags) {
  const std::string top = ok({"--help"});
  for (const char* cmd : {"schedule", "aapc", "run"}) EXPECT_TRUE(contains(top, cmd)) << cmd;
  const Args schedule = {"--algorithm",     "--dims",    "--nodes-dims", "--mem-dims",
                         "--channel-width", "--blocked", "--lines",    "--unaligned"};
  const std::vector<std::pair<std::string, Args>> flags = {
      {"schedule", concat(schedule, {"--format", "--output", "--all"})},
      {"aapc", concat(schedule, {"--type", "--permutation", "--backend", "--tile-dims", "--input", "--output",
                                 "--trace", "--json"})},
      {"run",
       {"--schedule", "--type", "--backend", "--tile-dims", "--dims", "--input", "--output", "--json", "--trace"}},
  };
  for (const auto& [cmd, list] : flags) {
    const std::string help = ok({cmd, "--help"});
    for (const std::string& flag : list) EXPECT_TRUE(contains(help, flag)) << cmd << " --help lacks " << flag;
  }
}

// --- schedule --------------------------------------------------------------

TEST_F(CliAapc, ScheduleJsonIsTheFileFormatAndRuns) {
  for (unsigned d : {3u, 4u, 5u}) {
    SCOPED_TRACE("d = " + std::to_string(d));
    const std::string out = ok({"schedule", "--dims", std::to_string(d), "--format", "json"});
    const json j = json::parse(out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << out;
    EXPECT_EQ(j["format"], "hcube-schedule/1");
    EXPECT_EQ(j["algorithm"], "4");
    EXPECT_EQ(j["d"], d);
    EXPECT_EQ(j["n"], d);
    EXPECT_EQ(j["m"], d);
    EXPECT_EQ(j["channel_width"], 1);
    EXPECT_EQ(j["pre"], "xor-align");
    EXPECT_EQ(j["post"], "xor-align");
    EXPECT_EQ(j["lines"], "diagonal");
    const std::uint64_t K = std::uint64_t{1} << d;
    ASSERT_EQ(j["cycles"].size(), K / 2);
    // Every cycle uses every dimension once, and each address crosses exactly
    // the dimensions of its bits.
    std::vector<std::uint64_t> crossed(K, 0);
    for (const json& cycle : j["cycles"]) {
      ASSERT_EQ(cycle.size(), d);
      std::uint64_t dims = 0;
      for (const json& x : cycle) {
        const unsigned k = x["dim"];
        const std::uint64_t a = x["addr"];
        dims |= std::uint64_t{1} << k;
        EXPECT_EQ(crossed[a] >> k & 1, 0u);
        crossed[a] |= std::uint64_t{1} << k;
      }
      EXPECT_EQ(dims, K - 1);
    }
    for (std::uint64_t a = 0; a < K; ++a) EXPECT_EQ(crossed[a], a);

    // --output writes the same object and prints a one-line summary.
    const fs::path file = path("s" + std::to_string(d) + ".json");
    const std::string summary =
        ok({"schedule", "-d", std::to_string(d), "--format", "json", "--output", file.string()});
    EXPECT_EQ(std::count(summary.begin(), summary.end(), '\n'), 1) << summary;
    EXPECT_EQ(json::parse(summary)["cycles"], K / 2);
    EXPECT_EQ(json::parse(read_text(file)), j);

    const json r = ok_json({"run", "--schedule", file.string()});
    EXPECT_EQ(r["verified"], true);
    EXPECT_EQ(r["permutation"], "transpose");
    EXPECT_EQ(r["cycles"], K / 2);
    EXPECT_EQ(r["launches"], K / 2 + 2);
    EXPECT_EQ(r["bound"], K / 2);
    EXPECT_EQ(r["schedule"], file.string());
    EXPECT_EQ(ok_json({"run", "--schedule", file.string(), "--dims", std::to_string(d)})["verified"], true);
  }
}

TEST_F(CliAapc, ScheduleTable) {
  const std::string t = ok({"schedule", "--dims", "3"});
  EXPECT_TRUE(contains(t, "cycle | dim 0 | dim 1 | dim 2")) << t;
  // Table 5's layout: 4 cycles of 3 addresses, in binary.
  for (const char* row : {"    0 |", "    1 |", "    2 |", "    3 |"}) EXPECT_TRUE(contains(t, row)) << row;
  EXPECT_FALSE(contains(t, "    4 |")) << t;
  for (const char* s : {"cycles", "4   paper: 4", "max span", "3   paper: 3", "channel use", "min 1.000, mean 1.000",
                        "block transfers", "max block size"})
    EXPECT_TRUE(contains(t, s)) << s << " not in\n" << t;
  // Wide channels: Table 9's labelling, beside sec. 7's count (Lemma 5's d ceil(K/2db) is 10).
  EXPECT_TRUE(contains(ok({"schedule", "-d", "5", "--channel-width", "cm2"}),
                       "8   paper: 8 (Lemma 5 with Table 9 (sec. 7): ceil(K / 2b))"));
  // Algorithm 2: 2d addresses in transit, or Table 5's pair order's 14 at d = 4.
  EXPECT_TRUE(contains(ok({"schedule", "-a", "2", "-d", "4"}), "in transit           8 .. 8   paper: 8 .. 8 (Table 6)"));
  EXPECT_TRUE(contains(ok({"schedule", "-a", "2", "-d", "4", "--pair-order", "table5"}),
                       "in transit          8 .. 14   paper: 8 .. 8 (Table 6)"));

  // 128 cycles: the first 32 and the last 8 unless --all.
  const std::string cut = ok({"schedule", "-d", "8"});
  EXPECT_TRUE(contains(cut, "... 88 cycles omitted")) << cut;
  EXPECT_TRUE(contains(cut, "\n   31 |"));
  EXPECT_FALSE(contains(cut, "\n   32 |"));
  EXPECT_TRUE(contains(cut, "\n  120 |"));
  const std::string all = ok({"schedule", "-d", "8", "--all"});
  EXPECT_FALSE(contains(all, "omitted"));
  EXPECT_TRUE(contains(all, "\n   64 |"));
}

// --- aapc ------------------------------------------------------------------

TEST_F(CliAapc, EveryAlgorithmMeetsThePaperCount) {
  for (int alg = 1; alg <= 4; ++alg)
    for (unsigned d : {1u, 2u, 3u, 5u})
      for (const char* type : {"uint32", "double", "complex64"}) {
        SCOPED_TRACE("algorithm " + std::to_string(alg) + ", d = " + std::to_string(d) + ", " + type);
        const json j =
            ok_json({"aapc", "--algorithm", std::to_string(alg), "--dims", std::to_string(d), "--type", type});
        const std::uint64_t cycles = paper_cycles(alg, d, d);
        EXPECT_EQ(j["command"], "aapc");
        EXPECT_EQ(j["verified"], true);
        EXPECT_EQ(j["algorithm"], std::to_string(alg));
        EXPECT_EQ(j["d"], d);
        EXPECT_EQ(j["n"], d);
        EXPECT_EQ(j["m"], d);
        EXPECT_EQ(j["K"], std::uint64_t{1} << d);
        EXPECT_EQ(j["type"], type);
        EXPECT_EQ(j["cycles"], cycles);
        EXPECT_EQ(j["bound"], cycles);
        EXPECT_EQ(j["launches"], cycles + 2);
        EXPECT_EQ(j["counters"]["kernel_launches"], cycles + 2);
        EXPECT_EQ(j["counters"]["routing_cycles"], cycles);
        EXPECT_EQ(j["counters"]["alignments"], 2);
        // K/2 pairs of words cross each of the d dimensions: d K/2 exchanges, a word per node each.
        EXPECT_EQ(j["element_hops"], (std::uint64_t{1} << d) * d * (std::uint64_t{1} << (d - 1)));
        if (alg == 4) {
          EXPECT_EQ(j["max_span"], d);
        }
        if (alg != 1) {
          EXPECT_EQ(j["min_channel_use"], 1.0);
        }
        EXPECT_EQ(j["permutation"], "transpose");
        EXPECT_EQ(j["channel_width"], 1);
        EXPECT_EQ(j["blocked"], false);
        EXPECT_TRUE(j["seconds"].is_number());
        EXPECT_TRUE(j["block_transfers"].is_number());
        EXPECT_TRUE(j["max_block_size"].is_number());
        EXPECT_TRUE(j["mean_channel_use"].is_number());
        EXPECT_TRUE(j["backend"].is_string());
        EXPECT_EQ(j["lines"], alg == 4 ? json("diagonal") : json(nullptr));
        EXPECT_FALSE(j.contains("trace"));
      }
}

TEST_F(CliAapc, LargerMachinesAndGreedyLines) {
  // n > d: independent AAPCs in subcubes; m > d: the AAPC repeated.
  for (int alg = 1; alg <= 4; ++alg) {
    SCOPED_TRACE(alg);
    const json j = ok_json({"aapc", "-a", std::to_string(alg), "-d", "3", "-n", "4", "-m", "5"});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["cycles"], paper_cycles(alg, 3, 5));
    EXPECT_EQ(j["bound"], paper_cycles(alg, 3, 5));
  }
  for (unsigned d : {3u, 4u, 5u, 6u}) {
    SCOPED_TRACE(d);
    const json j = ok_json({"aapc", "-d", std::to_string(d), "--lines", "greedy"});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["lines"], "greedy");
    EXPECT_EQ(j["cycles"], std::uint64_t{1} << (d - 1));
    EXPECT_EQ(j["max_span"], d);
  }
  for (unsigned d : {3u, 5u, 6u, 7u, 8u}) {
    SCOPED_TRACE(d);
    const json j = ok_json({"aapc", "-d", std::to_string(d), "--lines", "type1"});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["lines"], "type1");
    EXPECT_EQ(j["cycles"], std::uint64_t{1} << (d - 1));
    EXPECT_EQ(j["max_span"], d);
  }
  // Table 7, both halves, verbatim in the schedule table.
  const std::string type1 = ok({"schedule", "--algorithm", "4", "--dims", "5", "--lines", "type1", "--format", "table"});
  for (const char* row : {"10111         |  0  2  4  1  -", "01111         |  -  1  3  0  2",
                          "11110         |  3  -  2  4  1", "11101         |  2  4  -  3  0",
                          "11011         |  1  3  0  -  4", "(00000,11111) |  4  0  1  2  3"})
    EXPECT_TRUE(contains(type1, row)) << row << "\n" << type1;
  const std::string type2 = ok({"schedule", "--algorithm", "4", "--dims", "5", "--lines", "greedy", "--format", "table"});
  for (const char* row : {"01111         |  0  1  2  3  -", "11110         |  1  2  3  -  4",
                          "11101         |  2  3  -  4  0", "11011         |  3  -  4  0  1",
                          "10111         |  -  4  0  1  2", "(00000,11111) |  4  0  1  2  3"})
    EXPECT_TRUE(contains(type2, row)) << row << "\n" << type2;
}

TEST_F(CliAapc, PermutationsMatchTheirFormulas) {
  // The paper's example: (a7..a3|a2a1a0) -> (a7a6a0a1a2|a3a4a5) is d = 3 on n = 5, m = 3.
  const std::vector<std::pair<Cube, unsigned>> shapes = {{{5, 3}, 3}, {{3, 4}, 2}, {{4, 4}, 4}};
  for (const auto& [c, d] : shapes) {
    const Words in = random_words(c.total());
    write_u64(path("in.npy"), c.shape(), in);
    const std::uint64_t cycles = std::uint64_t{1} << (c.m - 1);
    for (const Formula& f : kFormulas) {
      SCOPED_TRACE(std::string(f.name) + " d = " + std::to_string(d) + " n = " + std::to_string(c.n) +
                   " m = " + std::to_string(c.m));
      const json j = ok_json({"aapc", "--dims", std::to_string(d), "--nodes-dims", std::to_string(c.n), "--mem-dims",
                              std::to_string(c.m), "--permutation", f.name, "--input", path("in.npy").string(),
                              "--output", path("out.npy").string()});
      EXPECT_EQ(j["verified"], true);
      EXPECT_EQ(j["permutation"], f.name);
      EXPECT_TRUE(j["formula"].is_string());
      EXPECT_EQ(j["type"], "uint64");
      // The code conversions ride in the alignments: no extra cycles or launches.
      EXPECT_EQ(j["cycles"], cycles);
      EXPECT_EQ(j["launches"], cycles + 2);
      EXPECT_EQ(read_u64(path("out.npy"), c), permute(in, c, d, f));
    }
  }
  // The storage names of the transpose.
  for (const char* alias : {"consecutive-to-cyclic", "cyclic-to-consecutive"})
    EXPECT_EQ(ok_json({"aapc", "-d", "2", "-p", alias})["permutation"], "transpose");
}

// Labels of more address bits than the type holds (float's 24 of 25 here; d = 17 uint32 on a
// GPU): the run is repeated per window of address bits, each checked on the backend, and the
// counts are one run's.
TEST_F(CliAapc, LabelsWiderThanTheTypeAreCheckedInWindows) {
  const json j = ok_json({"aapc", "-d", "12", "-n", "13", "-m", "12", "-t", "float", "--backend", "cpu"});
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["label_windows"], 2);
  EXPECT_EQ(j["cycles"], 2048);
  EXPECT_EQ(j["launches"], 2048 + 2);
  EXPECT_EQ(j["counters"]["routing_cycles"], 2048);
  const std::string prose = ok({"aapc", "-d", "12", "-n", "13", "-m", "12", "-t", "float", "--backend", "cpu"});
  EXPECT_NE(prose.find("the run repeated for each of 2 windows of address bits"), std::string::npos) << prose;
  // Labels that fit need no windows, and say none.
  EXPECT_FALSE(ok_json({"aapc", "-d", "3", "-t", "float"}).contains("label_windows"));
}

TEST_F(CliAapc, TransposeOutputFile) {
  const Cube c{3, 4};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  ok({"aapc", "-d", "3", "-n", "3", "-m", "4", "-i", path("in.npy").string(), "-o", path("out.npy").string()});
  // (j|i) -> (i|j) on the low 3 bits; memory bit 3 stays.
  Words want(in.size());
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    for (std::uint64_t i = 0; i < c.K(); ++i) want[c.g(i & 7, (i & 8) | j)] = in[c.g(j, i)];
  EXPECT_EQ(read_u64(path("out.npy"), c), want);
}

// --launch on the commands that run schedules: persistent gives the
// words per-cycle gives (the transpose's, from its formula), --json says which
// mode ran and counts the launches as they happened; labelled data is verified
// on the backend (phase "verify"), with no copy-out.
TEST_F(CliAapc, LaunchModesGiveTheSameWords) {
  const Cube c{4, 5};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  Words want(in.size());
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    for (std::uint64_t i = 0; i < c.K(); ++i) want[c.g(i & 15, (i & 16) | j)] = in[c.g(j, i)];
  for (const std::string launch : {"per-cycle", "persistent"}) {
    SCOPED_TRACE(launch);
    const fs::path out = path(launch + ".npy");
    const json j = ok_json({"aapc", "-d", "4", "-m", "5", "-i", path("in.npy").string(), "-o", out.string(),
                            "--launch", launch});
    EXPECT_EQ(j["launch"], launch);
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(read_u64(out, c), want);
    const std::uint64_t cycles = j["counters"]["routing_cycles"], launches = j["counters"]["kernel_launches"];
    EXPECT_EQ(cycles, 16u);  // Algorithm 4, d = 4: K/2 = 16 on m = 5 (Table 6)
    const bool one_a_batch = launch == "persistent" && j["backend"] == "cuda";
    EXPECT_EQ(launches, one_a_batch ? 1 + 2 : cycles + 2);

    const json l = ok_json({"aapc", "-d", "6", "--type", "complex64", "--launch", launch});
    EXPECT_EQ(l["verified"], true);
    EXPECT_TRUE(l["counters"]["phases"].contains("verify")) << l["counters"]["phases"];
    EXPECT_FALSE(l["counters"]["phases"].contains("copy-out")) << l["counters"]["phases"];
    ok({"schedule", "--dims", "3", "--algorithm", "2", "-o", path("s.json").string()});
    EXPECT_EQ(ok_json({"run", "--schedule", path("s.json").string(), "--launch", launch})["verified"], true);
    EXPECT_EQ(ok_json({"multi-aapc", "-s", "2", "-d", "2", "-m", "3", "--launch", launch})["verified"], true);
    EXPECT_EQ(ok_json({"permute", "--perm", "bit-reversal", "-n", "3", "-m", "3", "--launch", launch})["verified"],
              true);
  }
  expect_error({"aapc", "--dims", "3", "--launch", "graph"}, {"'graph' unknown", "per-cycle, persistent"});
  expect_error({"run", "--schedule", path("s.json").string(), "--launch", ""}, {"--launch", "per-cycle, persistent"});
}

// Edelman's schedule: K/2 steps, every
// link busy, run aligned (two alignments, direct addressing) and unaligned (no
// alignment, node k using w xor k), both the transpose written from its formula.
TEST_F(CliAapc, EdelmanAlignedAndUnaligned) {
  const Cube c{3, 5};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  Words want(in.size());
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    for (std::uint64_t i = 0; i < c.K(); ++i) want[c.g(i & 7, (i & ~std::uint64_t{7}) | j)] = in[c.g(j, i)];
  for (bool unaligned : {false, true}) {
    SCOPED_TRACE(unaligned ? "unaligned" : "aligned");
    Args args = {"aapc", "--algorithm", "edelman", "-d", "3", "-m", "5", "-i", path("in.npy").string(), "-o",
                 path("out.npy").string()};
    if (unaligned) args.push_back("--unaligned");
    const json j = ok_json(args);
    EXPECT_EQ(j["algorithm"], "edelman");
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["cycles"], 16);  // K/2
    EXPECT_EQ(j["bound"], 16);
    EXPECT_EQ(j["min_channel_use"], 1.0);
    EXPECT_EQ(j["pre"], unaligned ? "none" : "xor-align");
    EXPECT_EQ(j["launches"], unaligned ? 16 : 18);
    EXPECT_EQ(j["max_span"], 4);  // d = 3: 2^(d-1) steps, the span the whole table
    EXPECT_EQ(read_u64(path("out.npy"), c), want);
  }
  const std::string table = ok({"schedule", "--algorithm", "edelman", "--dims", "3"});
  EXPECT_TRUE(contains(table, "    0 |   011 |   110 |   100")) << table;  // Edelman's first step, d = 3
  EXPECT_TRUE(contains(table, "    3 |   101 |   011 |   111")) << table;
  EXPECT_EQ(ok_json({"aapc", "-a", "edelman", "-d", "4", "-p", "bit-reversal", "--unaligned"})["verified"], true);
}

// The notes' baselines: SEX in d one-port rounds of K/2-word blocks, DEX in
// 2^d - 1 rounds of e-cube hops, with the notes' cost terms.
TEST_F(CliAapc, StandardAndDirectExchange) {
  const json sex = ok_json({"aapc", "--algorithm", "sex", "--dims", "3"});
  EXPECT_EQ(sex["verified"], true);
  EXPECT_EQ(sex["cycles"], 3);
  EXPECT_EQ(sex["rounds"], 3);
  EXPECT_EQ(sex["port_model"], "one");
  EXPECT_EQ(sex["channel_width"], 4);  // one block of N/2 = 4 packets
  EXPECT_EQ(sex["model"], json({{"startups", 3}, {"element_units", 12}, {"hop_units", 0}}));  // 3(t_s + 4 mu t_m)
  const json dex = ok_json({"aapc", "--algorithm", "dex", "--dims", "3", "-m", "4"});
  EXPECT_EQ(dex["verified"], true);
  EXPECT_EQ(dex["rounds"], 7);
  EXPECT_EQ(dex["cycles"], 12);
  EXPECT_EQ(dex["model"], json({{"startups", 7}, {"element_units", 7}, {"hop_units", 12}}));
  // 12 is hcube's count from the notes' 7 rounds, not a number the notes print: never "paper".
  EXPECT_EQ(dex["bound_from_paper"], false);
  const std::string prose = ok({"aapc", "--algorithm", "dex", "--dims", "3"});
  EXPECT_TRUE(contains(prose, "12 routing cycles (bound: 12, notes: 2^d - 1 rounds")) << prose;
  EXPECT_FALSE(contains(prose, "paper")) << prose;
  EXPECT_TRUE(contains(ok({"schedule", "--algorithm", "dex", "-d", "3"}), "bound: 12 (notes:"));
  EXPECT_EQ(ok_json({"aapc", "--dims", "3"})["bound_from_paper"], true);
  expect_error({"aapc", "--algorithm", "sex", "--dims", "3", "--blocked"}, {"--blocked", "sex"});
}

TEST_F(CliAapc, BlockedAndWideChannels) {
  // Sec. 5: Algorithm 4's K/2 = 32 cycles in d = 4 block transfers of 8 words a link.
  const json b = ok_json({"aapc", "--dims", "4", "--mem-dims", "6", "--blocked"});
  EXPECT_EQ(b["verified"], true);
  EXPECT_EQ(b["blocked"], true);
  EXPECT_EQ(b["cycles"], 4);
  EXPECT_EQ(b["bound"], 4);
  EXPECT_EQ(b["launches"], 6);
  EXPECT_EQ(b["channel_width"], 8);
  EXPECT_EQ(b["max_block_size"], 8);

  // Sec. 6, the CM-2's b = 2: sec. 7's ceil(K/2b) cycles by Table 9's
  // labelling where floor(K/2d) >= b, else d; Lemma 5's d ceil(K/2db) is 3, 4, 10, 18.
  for (const auto& [d, cycles] : {std::pair{3u, 3u}, std::pair{4u, 4u}, std::pair{5u, 8u}, std::pair{6u, 16u}}) {
    SCOPED_TRACE(d);
    const json w = ok_json({"aapc", "--dims", std::to_string(d), "--channel-width", "cm2"});
    EXPECT_EQ(w["verified"], true);
    EXPECT_EQ(w["channel_width"], 2);
    EXPECT_EQ(w["bound"], cycles);
    EXPECT_EQ(w["cycles"], cycles);
  }
  const json b3 = ok_json({"aapc", "--dims", "6", "-b", "3"});
  EXPECT_EQ(b3["verified"], true);
  EXPECT_EQ(b3["cycles"], 11);  // ceil(32/3); Lemma 5: 12
  EXPECT_EQ(ok_json({"aapc", "-d", "4", "-m", "6", "-b", "4"})["verified"], true);
}

TEST_F(CliAapc, TraceShowsTable1) {
  const std::string out = ok({"aapc", "--dims", "3", "--trace"});
  for (int c = 0; c < 4; ++c)
    EXPECT_TRUE(contains(out, "after routing cycle " + std::to_string(c) + " of 4: dim ")) << c;
  EXPECT_TRUE(contains(out, "dim 0: addr ")) << out;
  const auto initial = table_after(out, "initial state");
  const auto pre = table_after(out, "after the pre-alignment");
  const auto post = table_after(out, "after the post-alignment");
  ASSERT_EQ(initial.size(), 8u);
  ASSERT_EQ(pre.size(), 8u);
  ASSERT_EQ(post.size(), 8u);
  // Table 1: after the pre-alignment node j holds at address i the word (j, i xor j).
  EXPECT_EQ(pre[1][0], "1.1*");
  EXPECT_EQ(pre[0][5], "0.5");  // node 0 does not move
  for (std::uint64_t j = 0; j < 8; ++j)
    for (std::uint64_t i = 0; i < 8; ++i) {
      EXPECT_EQ(initial[j][i], std::to_string(j) + "." + std::to_string(i));
      EXPECT_EQ(pre[j][i].substr(0, pre[j][i].find('*')), std::to_string(j) + "." + std::to_string(i ^ j));
      // The transpose: node j address i ends with the word from node i, address j.
      EXPECT_EQ(post[j][i].substr(0, post[j][i].find('*')), std::to_string(i) + "." + std::to_string(j));
    }
}

TEST_F(CliAapc, TraceJson) {
  const Cube c{2, 2};
  const json j = ok_json({"aapc", "-d", "2", "--trace"});
  EXPECT_EQ(j["verified"], true);
  ASSERT_EQ(j["trace"].size(), 5u);  // initial, pre, 2 cycles, post
  EXPECT_EQ(j["trace"][0]["step"], "initial");
  EXPECT_EQ(j["trace"][1]["step"], "pre-alignment");
  EXPECT_EQ(j["trace"][2]["step"], "routing cycle 0");
  EXPECT_EQ(j["trace"][3]["step"], "routing cycle 1");
  EXPECT_EQ(j["trace"][4]["step"], "post-alignment");
  EXPECT_EQ(j["trace"][2]["exchanges"].size(), 2u);
  EXPECT_EQ(j["trace"][0]["state"], state_json(labels(c), c, false));
  const Words pre = align(labels(c), c, [](std::uint64_t node, std::uint64_t i) { return i ^ node; });
  EXPECT_EQ(j["trace"][1]["state"], state_json(pre, c, false));
  // Each cycle, by the definition of its exchanges.
  Words w = pre;
  for (int cyc = 0; cyc < 2; ++cyc) {
    for (const json& x : j["trace"][2 + cyc]["exchanges"]) exchange(w, c, x["dim"], x["addr"], x["peer_addr"]);
    EXPECT_EQ(j["trace"][2 + cyc]["state"], state_json(w, c, false)) << cyc;
  }
  EXPECT_EQ(j["trace"][4]["state"], state_json(permute(labels(c), c, 2, kFormulas[0]), c, false));
}

// --- run -------------------------------------------------------------------

TEST_F(CliAapc, RunWithoutAlignmentsIsItsCycles) {
  const Cube c{2, 2};
  json s = json::parse(ok({"schedule", "-d", "2", "--format", "json"}));
  s["pre"] = "none";
  s["post"] = "none";
  std::ofstream(path("none.json")) << s.dump();
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  const json j = ok_json(
      {"run", "--schedule", path("none.json").string(), "-i", path("in.npy").string(), "-o", path("out.npy").string()});
  // Without alignments the file names no permutation: the run says it could not
  // check the result (the test checks it below, from the file's exchanges).
  EXPECT_EQ(j["verified"], false);
  EXPECT_EQ(j["permutation"], "as-scheduled");
  EXPECT_EQ(j["cycles"], 2);
  EXPECT_EQ(j["launches"], 2);
  EXPECT_EQ(j["bound"], nullptr);
  Words want = in;
  for (const json& cycle : s["cycles"])
    for (const json& x : cycle) exchange(want, c, x["dim"], x["addr"], x["addr"]);
  EXPECT_EQ(read_u64(path("out.npy"), c), want);
  // And step by step.
  const std::string traced = ok({"run", "--schedule", path("none.json").string(), "--trace"});
  EXPECT_TRUE(contains(traced, "after routing cycle 1 of 2")) << traced;
  EXPECT_FALSE(contains(traced, "pre-alignment")) << traced;
}

TEST_F(CliAapc, RunTakesGeometryFromTheFile) {
  const fs::path file = path("s.json");
  ok({"schedule", "-d", "2", "-n", "3", "-m", "4", "-a", "3", "--format", "json", "-o", file.string()});
  const json j = ok_json({"run", "-s", file.string(), "--type", "complex128"});
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["n"], 3);
  EXPECT_EQ(j["m"], 4);
  EXPECT_EQ(j["d"], 2);
  EXPECT_EQ(j["algorithm"], "3");
  EXPECT_EQ(j["cycles"], 8);
}

// --- rejected input --------------------------------------------------------

TEST_F(CliAapc, RejectsBadFlags) {
  for (const char* cmd : {"schedule", "aapc"}) {
    SCOPED_TRACE(cmd);
    const Args c = {cmd};
    expect_error(concat(c, {"--dims", "0"}), {"d = 0"});
    expect_error(concat(c, {"--dims", "5", "--nodes-dims", "4"}), {"d = 5", "n = 4"});
    expect_error(concat(c, {"--dims", "5", "--mem-dims", "4"}), {"d = 5", "m = 4"});
    expect_error(concat(c, {"--dims", "3", "--channel-width", "0"}), {"b = 0"});
    expect_error(concat(c, {"--dims", "3", "--channel-width", "wide"}), {"'wide'"});
    expect_error(concat(c, {"--dims", "3", "--algorithm", "5"}), {"'5'", "1, 2, 3, 4"});
    expect_error(concat(c, {"--dims", "3", "--lines", "zigzag"}), {"'zigzag'", "diagonal", "greedy"});
    expect_error(concat(c, {"--dims", "2", "--mem-dims", "60"}), {"60"});
  }
  expect_error({"aapc", "--dims", "3", "--permutation", "shuffle"}, {"'shuffle'", "bit-reversal"});
  expect_error({"aapc", "--dims", "3", "--algorithm", "4", "--unaligned"}, {"--unaligned", "edelman"});
  expect_error({"aapc", "--dims", "3", "--algorithm", "edelmann"}, {"'edelmann'", "edelman"});
  expect_error({"aapc", "--dims", "7", "--trace"}, {"16384", "4096", "hcube schedule"});
  expect_error({"schedule", "--dims", "3", "--format", "xml"}, {"'xml'", "table, json"});
}

TEST_F(CliAapc, RejectsBadScheduleFiles) {
  const fs::path good = path("good.json");
  ok({"schedule", "-d", "3", "--format", "json", "--output", good.string()});
  const json s = json::parse(read_text(good));
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
    return path(name).string();
  };
  const auto edited = [&](const std::string& name, const std::function<void(json&)>& edit) {
    json j = s;
    edit(j);
    return write(name, j.dump());
  };
  expect_error({"run", "--schedule", path("missing.json").string()}, {"missing.json"});
  expect_error({"run", "--schedule", write("bad.json", "{\"format\": ")}, {"bad.json", "JSON"});
  // A number too large for a double (found by tests/fuzz: it aborted the program).
  expect_error({"run", "--schedule", write("huge.json", "{\"format\": \"hcube-schedule/1\", \"d\": 1e999}")},
               {"huge.json", "not valid JSON: number overflow parsing '1e999'"});
  expect_error({"run", "--schedule", write("tail.json", s.dump() + "\ngarbage")}, {"tail.json", "not valid JSON at byte"});
  expect_error({"run", "--schedule", edited("format.json", [](json& j) { j["format"] = "hcube-schedule/9"; })},
               {"format.json", "hcube-schedule/9"});
  expect_error({"run", "--schedule", edited("entry.json", [](json& j) { j["cycles"][2][1].erase("addr"); })},
               {"entry.json", "cycle 2, entry 1", "addr"});
  // One address changed to clash with another of its cycle.
  expect_error({"run", "--schedule",
                edited("clash.json", [](json& j) { j["cycles"][1][2]["addr"] = j["cycles"][1][0]["addr"]; })},
               {"clash.json", "cycle 1", "exchange 2"});
  // An address sent across a dimension it must not cross.
  expect_error({"run", "--schedule", edited("cross.json", [](json& j) { j["cycles"][0][0]["addr"] = 2; })},
               {"cross.json", "cycle 0", "exchange 0"});
  expect_error({"run", "--schedule", good.string(), "--dims", "4"},
               {"schedule file " + good.string() + " is for d = 3, --dims asks for 4"});
  expect_error({"run", "--schedule", good.string(), "--type", "int8"}, {"'int8'"});
}

}  // namespace

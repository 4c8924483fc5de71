// Tests of the hcube program as a user runs it: the real binary, its exit
// code, stdout and stderr, and the .npy files it reads and writes. Expected
// states are computed here straight from the definitions of the primitives,
// not with the emulator's own reference code.
#include "cli_harness.hpp"

namespace {

using namespace hcube::test;

// --- help ------------------------------------------------------------------

TEST_F(Cli, HelpNamesEveryCommandAndItsKeyFlags) {
  const std::string top = ok({"--help"});
  for (const char* cmd : {"info", "demo", "cycle", "align", "route"}) EXPECT_TRUE(contains(top, cmd)) << cmd;

  const Args machine = {"--dims", "--mem-dims", "--type", "--backend", "--tile-dims"};
  const Args io = {"--input", "--output", "--json", "--trace"};
  const std::vector<std::pair<std::string, std::vector<Args>>> flags = {
      {"info", {{"--type", "--json"}}},
      {"demo", {machine, {"--json"}}},
      {"cycle", {machine, io, {"--cycle", "--port-model", "--channel-width"}}},
      {"align", {machine, io, {"--xor-proc", "--xor-mem", "--mem-perm", "--gray"}}},
      {"route", {machine, io, {"--message", "--max-message", "--contention"}}},
  };
  for (const auto& [cmd, groups] : flags) {
    const std::string help = ok({cmd, "--help"});
    for (const Args& group : groups)
      for (const std::string& flag : group) EXPECT_TRUE(contains(help, flag)) << cmd << " --help lacks " << flag;
  }
}

// Every choice flag lists its values in --help, while a bad value still gets
// the command's own one-line error (below and in each command's tests).
TEST_F(Cli, HelpListsTheValuesOfChoiceFlags) {
  const std::vector<std::pair<Args, std::vector<std::string>>> cases = {
      {{"cycle"},
       {"--backend TEXT:{auto,cpu,cuda}", "--type TEXT:{uint32,int32,uint64,float,double,complex64,complex128}",
        "--port-model TEXT:{all,one}"}},
      {{"route"}, {"--contention TEXT:{report,reject}"}},
      {{"info"}, {"--type TEXT:{uint32,int32,uint64,float,double,complex64,complex128}"}},
      {{"schedule"}, {"--algorithm TEXT:{1,2,3,4,edelman,sex,dex}", "--lines TEXT:{diagonal,type1,greedy}",
                      "--format TEXT:{table,json}"}},
      {{"aapc"}, {"--permutation TEXT:{transpose,consecutive-to-cyclic,cyclic-to-consecutive,bit-reversal,"
                  "vector-reversal,gray}"}},
      {{"multi-aapc"}, {"--algorithm TEXT:{1,3,4,5}", "--layout TEXT:{compact,paper,skewed}"}},
      {{"fft"}, {"--order TEXT:{natural,bit-reversed}", "--local TEXT:{library,radix-2}", "--algorithm TEXT:{1,2,3,4}",
                 "--type TEXT:{complex128,complex64}", "--backend TEXT:{auto,cpu,cuda}"}},
      {{"permute"}, {"--ports TEXT:{one,all}"}},
      {{"compare"}, {"--ports TEXT:{one,all}"}},
      {{"redistribute"}, {"--schedule TEXT:{circulant,caterpillar,bipartite-stepwise,bipartite-greedy}"}},
      {{"scatter"}, {"--algorithm TEXT:{pipeline,bidirectional,product,dex,bex,sex,qex,idex}", "--embed TEXT:{cube}"}},
  };
  for (const auto& [cmd, wanted] : cases) {
    Args args = cmd;
    args.push_back("--help");
    const std::string help = ok(args);
    for (const std::string& w : wanted)
      EXPECT_TRUE(contains(help, w)) << cmd[0] << " --help lacks " << w << ":\n" << help;
  }
  expect_error({"route", "-n", "2", "-m", "2", "--message", "0:0:1:0", "--contention", "maybe"}, {"'maybe'"});
  expect_error({"schedule", "-d", "2", "--format", "yaml"}, {"'yaml'", "table, json"});
}

// --- parse errors ----------------------------------------------------------

// A misspelt command or flag: one line naming it and the nearest spelling.
TEST_F(Cli, SuggestsTheNearestCommandOrFlag) {
  expect_error({"permut", "--perm", "transpose"}, {"unknown command 'permut': did you mean permute?"});
  expect_error({"redistribut"}, {"unknown command 'redistribut': did you mean redistribute?"});
  expect_error({"multi"}, {"did you mean multi-aapc?"});  // the one command it begins
  // Nothing near: the commands allowed instead.
  expect_error({"frobnicate"}, {"unknown command 'frobnicate'", "allowed info, demo,", "permute"});
  const Result none = run({});
  EXPECT_GT(none.code, 0);
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err.rfind("hcube: error: no command given: allowed info, demo,", 0), 0u) << none.err;
  EXPECT_EQ(std::count(none.err.begin(), none.err.end(), '\n'), 1) << none.err;
  expect_error({"permute", "--port", "all", "--perm", "transpose"},
               {"unknown flag '--port' for hcube permute: did you mean --ports?"});
  // Named even though CLI11 first misses the flag it replaced.
  expect_error({"permute", "--prem", "transpose"}, {"unknown flag '--prem'", "did you mean --perm?"});
  expect_error({"permute", "--perm", "transpose", "--subcube=3"}, {"'--subcube'", "did you mean --subcube-dims?"});
  expect_error({"cycle", "--cycle", "0:0", "--port", "one"}, {"'--port'", "did you mean --port-model?"});
  expect_error({"redistribute", "--p", "3", "--Q", "4", "--K", "2", "--x", "2"}, {"'--p'", "did you mean --P?"});
  expect_error({"permute", "--perm", "transpose", "--zzzzzz"},
               {"unknown flag '--zzzzzz' for hcube permute", "hcube permute --help"});
  expect_error({"animate", "aapc", "-d", "2", "--lnes", "greedy", "-o", path("page.html").string()},
               {"hcube animate aapc", "'--lnes'", "did you mean --lines?"});
  // A negative number is a value, not a flag.
  expect_error({"permute", "--perm", "transpose", "-n", "2", "-m", "2", "--tc", "-2"}, {"--tc -2"});
}

// CLI11's own parse errors are one line with the prefix and a non-zero status;
// --help and --version still print as they always have, with status 0.
TEST_F(Cli, ParseErrorsAreOneLineAndHelpStillPrints) {
  expect_error({"permute"}, {"--perm is required"});
  expect_error({"cycle", "-n", "abc", "--cycle", "0:0"}, {"abc"});
  expect_error({"permute", "--perm", "transpose", "--ports"}, {"--ports"});
  expect_error({"permute", "--perm", "transpose", "--ts", "1", "--ts", "2"}, {"--ts"});
  const Result version = run({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_EQ(version.err, "");
  EXPECT_EQ(version.out.rfind("hcube ", 0), 0u) << version.out;
  for (const Args& args : {Args{"--help"}, Args{"permute", "--help"}, Args{"permute", "-h"}}) {
    const Result help = run(args);
    EXPECT_EQ(help.code, 0) << ::testing::PrintToString(args);
    EXPECT_EQ(help.err, "");
    EXPECT_TRUE(contains(help.out, "Usage:")) << help.out;
  }
  EXPECT_TRUE(contains(ok({"permute", "--help"}), "--perm"));
}

// --- info ------------------------------------------------------------------

TEST_F(Cli, InfoJson) {
  const json j = ok_json({"info"});
  EXPECT_TRUE(j["version"].is_string());
  const json& built = j["backends_built"];
  ASSERT_TRUE(built.is_array());
  EXPECT_NE(std::find(built.begin(), built.end(), "cpu"), built.end());
  // The library this test links was built with the same HCUBE_HAVE_CUDA.
  EXPECT_EQ(std::find(built.begin(), built.end(), "cuda") != built.end(), bool(HCUBE_HAVE_CUDA));
  ASSERT_TRUE(j["gpu_present"].is_boolean());
  EXPECT_EQ(j["gpu_present"].get<bool>(), j["gpu_count"].get<int>() > 0);
  // Without a device node there can be no GPU.
  if (!fs::exists("/dev/nvidia0")) {
    EXPECT_FALSE(j["gpu_present"].get<bool>());
  }
  EXPECT_GT(j["largest_cube"]["cpu"]["largest_n_plus_m"]["uint32"].get<unsigned>(), 20u);
  // The MPI library, read without starting MPI (no mpirun here); null in a build without it.
  if (HCUBE_HAVE_MPI) {
    ASSERT_TRUE(j["mpi"].is_object()) << j["mpi"].dump();
    EXPECT_FALSE(j["mpi"]["library"].get<std::string>().empty());
    EXPECT_EQ(j["mpi"]["library"].get<std::string>().find('\n'), std::string::npos);
    EXPECT_TRUE(j["mpi"]["cuda_aware"].is_boolean());
  } else {
    EXPECT_TRUE(j["mpi"].is_null());
  }
}

// --- demo ------------------------------------------------------------------

TEST_F(Cli, DemoJsonEveryType) {
  const Cube c{4, 4};
  // The demo's two steps, from their definitions: node j swaps word k with
  // node j xor 2^k for every k, then moves its word i to i xor j.
  Words after_cycle = labels(c);
  for (unsigned k = 0; k < c.n; ++k) exchange(after_cycle, c, k, k, k);
  const Words after_align = align(after_cycle, c, [](std::uint64_t j, std::uint64_t i) { return i ^ j; });
  // Two words by hand: node 0 word 0 receives node 1's word 0 (label 16);
  // node 1 word 1 then holds node 1's word 0, which came from node 0 (label 0).
  ASSERT_EQ(after_cycle[c.g(0, 0)], 16u);
  ASSERT_EQ(after_align[c.g(1, 1)], 0u);

  for (const char* type : kTypes) {
    SCOPED_TRACE(type);
    const json j = ok_json({"demo", "--type", type});
    EXPECT_EQ(j["type"], type);
    EXPECT_EQ(j["verified"], true);
    const json& k = j["counters"];
    EXPECT_EQ(k["routing_cycles"], 1);
    EXPECT_EQ(k["alignments"], 1);
    EXPECT_EQ(k["kernel_launches"], 2);
    EXPECT_EQ(k["channel_use"]["links_used_per_cycle"], json::array({64}));
    ASSERT_EQ(j["trace"].size(), 3u);
    const bool complex = contains(type, "complex");
    EXPECT_EQ(j["trace"][0]["state"], state_json(labels(c), c, complex));
    EXPECT_EQ(j["trace"][1]["state"], state_json(after_cycle, c, complex));
    EXPECT_EQ(j["trace"][2]["state"], state_json(after_align, c, complex));
    // The two hand-computed words (node 0 keeps its order in the alignment).
    EXPECT_EQ(j["trace"][2]["state"][0][0], complex ? json::array({16.0, -16.0}) : json(16));
    EXPECT_EQ(j["trace"][2]["state"][1][1], complex ? json::array({0.0, -0.0}) : json(0));
  }
  // The default type is uint32.
  EXPECT_EQ(ok_json({"demo"})["type"], "uint32");
}

TEST_F(Cli, DemoProse) { EXPECT_TRUE(contains(ok({"demo"}), "verified")); }

// --- cycle -----------------------------------------------------------------

TEST_F(Cli, CycleMatchesExchangeDefinition) {
  const Cube c{3, 2};
  const Words in = random_words(c.total());
  Words want = in;
  exchange(want, c, 0, 1, 1);  // cycle 0: 0:1,1:2:3
  exchange(want, c, 1, 2, 3);
  exchange(want, c, 2, 0, 3);  // cycle 1: 2:0:3,0:2
  exchange(want, c, 0, 2, 2);

  // The grid shape (2^n, 2^m) and the flat shape (2^(n+m),) load alike.
  for (const std::vector<std::uint64_t>& shape : {c.shape(), std::vector<std::uint64_t>{c.total()}}) {
    SCOPED_TRACE(::testing::PrintToString(shape));
    write_u64(path("in.npy"), shape, in);
    const json j = ok_json({"cycle", "-n", "3", "-m", "2", "--backend", "cpu", "--cycle", "0:1,1:2:3", "--cycle",
                            "2:0:3,0:2", "--input", path("in.npy").string(), "--output", path("out.npy").string()});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["type"], "uint64");  // taken from the file
    EXPECT_EQ(j["counters"]["routing_cycles"], 2);
    EXPECT_EQ(read_u64(path("out.npy"), c), want);
  }
}

// -n and -m left out come from --input's shape: (2^n, 2^m), or flat with one of them given.
TEST_F(Cli, InputShapeGivesTheDimensions) {
  const Cube c{2, 3};
  const Words in = random_words(c.total());
  Words want = in;
  exchange(want, c, 1, 5, 2);
  write_u64(path("grid.npy"), c.shape(), in);
  write_u64(path("flat.npy"), {c.total()}, in);
  const std::vector<Args> runs = {{"-i", path("grid.npy").string()},
                                  {"-i", path("grid.npy").string(), "-m", "3"},
                                  {"-i", path("flat.npy").string(), "-n", "2"},
                                  {"-i", path("flat.npy").string(), "--mem-dims", "3"}};
  for (const Args& flags : runs) {
    SCOPED_TRACE(::testing::PrintToString(flags));
    Args args = {"cycle", "--cycle", "1:5:2", "-o", path("result.npy").string()};
    args.insert(args.end(), flags.begin(), flags.end());
    const json j = ok_json(args);
    EXPECT_EQ(j["n"], 2);
    EXPECT_EQ(j["m"], 3);
    EXPECT_EQ(read_u64(path("result.npy"), c), want);
  }
  expect_error({"cycle", "--cycle", "0:0", "-i", path("flat.npy").string()}, {"flat.npy", "(32,)", "-n"});
  write_u64(path("odd.npy"), {4, 3}, random_words(12));
  expect_error({"cycle", "--cycle", "0:0", "-i", path("odd.npy").string()}, {"odd.npy", "(4, 3)"});
  write_u64(path("cube.npy"), {2, 2, 2}, random_words(8));
  expect_error({"align", "-i", path("cube.npy").string()}, {"(2, 2, 2)"});
  expect_error({"route", "--message", "0:0:1:0", "-i", path("missing.npy").string()}, {"missing.npy"});
  // Without --input: 4 and 4, as --help says.
  const json plain = ok_json({"cycle", "--cycle", "0:0"});
  EXPECT_EQ(plain["n"], 4);
  EXPECT_EQ(plain["m"], 4);
  EXPECT_TRUE(contains(ok({"cycle", "--help"}), "--dims INT=4")) << ok({"cycle", "--help"});
}

// The header alone gives dtype and shape, with the same checks as a whole read.
TEST_F(Cli, NpyHeaderReader) {
  write_u64(path("a.npy"), {8, 4}, random_words(32));
  const hcube::NpyHeader h = hcube::read_npy_header(path("a.npy").string());
  EXPECT_EQ(h.type, hcube::ElementType::u64);
  EXPECT_EQ(h.shape, (std::vector<std::uint64_t>{8, 4}));
  const std::string bytes = read_text(path("a.npy"));
  std::ofstream(path("cut.npy"), std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  std::ofstream(path("long.npy"), std::ios::binary) << bytes << "x";
  std::ofstream(path("head.npy"), std::ios::binary) << bytes.substr(0, 20);
  std::ofstream(path("text.npy"), std::ios::binary) << "hello, world";
  const auto message = [](const fs::path& p) {
    try {
      hcube::read_npy_header(p.string());
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_TRUE(contains(message(path("cut.npy")), "truncated data")) << message(path("cut.npy"));
  EXPECT_TRUE(contains(message(path("long.npy")), "trailing data")) << message(path("long.npy"));
  EXPECT_TRUE(contains(message(path("head.npy")), "truncated .npy header")) << message(path("head.npy"));
  EXPECT_TRUE(contains(message(path("text.npy")), "not a .npy file")) << message(path("text.npy"));
  EXPECT_TRUE(contains(message(path("none.npy")), "cannot open")) << message(path("none.npy"));
  // The same messages as reading the whole file.
  for (const char* name : {"cut.npy", "long.npy", "head.npy", "text.npy"}) {
    std::string whole;
    try {
      hcube::read_npy(path(name).string());
    } catch (const std::exception& e) {
      whole = e.what();
    }
    EXPECT_EQ(message(path(name)), whole) << name;
  }
}

TEST_F(Cli, CycleChannelWidthTwoAllowsTwoExchangesPerDim) {
  const Cube c{2, 2};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  Words want = in;
  exchange(want, c, 0, 1, 1);
  exchange(want, c, 0, 2, 2);
  ok({"cycle", "-n", "2", "-m", "2", "--cycle", "0:1,0:2", "-b", "2", "-i", path("in.npy").string(), "-o",
      path("out.npy").string()});
  EXPECT_EQ(read_u64(path("out.npy"), c), want);
}

TEST_F(Cli, TraceProse) {
  const std::string out = ok({"cycle", "-n", "2", "-m", "2", "--cycle", "0:0", "--trace"});
  EXPECT_TRUE(contains(out, "initial state")) << out;
  EXPECT_TRUE(contains(out, "after routing cycle 0")) << out;
}

TEST_F(Cli, TraceJsonHasEveryState) {
  const json j = ok_json({"cycle", "-n", "2", "-m", "2", "--cycle", "0:0", "--cycle", "1:1", "--trace"});
  ASSERT_EQ(j["trace"].size(), 3u);
  EXPECT_EQ(j["trace"][0]["step"], "initial");
  EXPECT_EQ(j["trace"][2]["step"], "routing cycle 1");
}

// --- align -----------------------------------------------------------------

TEST_F(Cli, AlignMatchesDefinition) {
  const Cube c{2, 2};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  const auto swap_bits = [](std::uint64_t i) { return ((i & 1) << 1) | ((i >> 1) & 1); };
  struct Case {
    Args flags;
    std::function<std::uint64_t(std::uint64_t, std::uint64_t)> dest;
  };
  const std::vector<Case> cases = {
      {{"--xor-proc", "0,1", "--xor-mem", "0,1"}, [](std::uint64_t j, std::uint64_t i) { return i ^ j; }},
      // Node bit 0 onto memory bit 1 only.
      {{"--xor-proc", "0", "--xor-mem", "1"}, [](std::uint64_t j, std::uint64_t i) { return i ^ ((j & 1) << 1); }},
      // Then memory bit b moves to bit perm[b]: here the two bits swap.
      {{"--xor-proc", "0,1", "--xor-mem", "0,1", "--mem-perm", "1,0"},
       [&](std::uint64_t j, std::uint64_t i) { return swap_bits(i ^ j); }},
      // Gray code of the 2-bit field: i xor (i >> 1).
      {{"--gray", "0:2:encode"}, [](std::uint64_t, std::uint64_t i) { return i ^ (i >> 1); }},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(::testing::PrintToString(k.flags));
    Args args = {"align", "-n", "2", "-m", "2", "-i", path("in.npy").string(), "-o", path("out.npy").string()};
    args.insert(args.end(), k.flags.begin(), k.flags.end());
    const json j = ok_json(args);
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["counters"]["alignments"], 1);
    EXPECT_EQ(read_u64(path("out.npy"), c), align(in, c, k.dest));
  }
}

// --- route -----------------------------------------------------------------

TEST_F(Cli, RouteCopiesOneMessage) {
  const Cube c{2, 2};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  // Node 1 words 2..3 go to node 2 words 0..1; the source keeps its copy.
  Words want = in;
  want[c.g(2, 0)] = in[c.g(1, 2)];
  want[c.g(2, 1)] = in[c.g(1, 3)];
  const json j = ok_json({"route", "-n", "2", "-m", "2", "--message", "1:2:2:0:2", "-B", "2", "-i",
                          path("in.npy").string(), "-o", path("out.npy").string()});
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["contention"], 0);
  EXPECT_EQ(j["words"], 2);
  EXPECT_EQ(read_u64(path("out.npy"), c), want);
}

TEST_F(Cli, RouteReportsContention) {
  // Two senders hit node 3 (at different words): counted, not refused, by default.
  const json j = ok_json({"route", "-n", "2", "-m", "2", "--message", "0:0:3:0", "--message", "1:0:3:1"});
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["contention"], 1);
}

// --- rejected input --------------------------------------------------------

// The machine and cycle flags, checked before anything runs.
TEST_F(Cli, RejectsBadMachineAndCycleFlags) {
  const Args base = {"cycle", "-n", "4", "-m", "4"};
  const auto with = [&](const Args& more) {
    Args a = base;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  expect_error({"cycle", "--dims", "70", "--cycle", "0:0"}, {"n = 70"});
  // Beyond the address bits of the model, before any memory is asked for.
  expect_error({"cycle", "--dims", "30", "--mem-dims", "30", "--type", "complex128", "--cycle", "0:0"}, {"60"});
  // 2^52 words of 16 bytes: within the address bits, beyond any memory.
  expect_error({"cycle", "--dims", "26", "--mem-dims", "26", "--type", "complex128", "--cycle", "0:0"},
               {"available", "complex128"});
  expect_error(with({"--backend", "gpu", "--cycle", "0:0"}), {"'gpu'"});
  expect_error(with({"--type", "int8", "--cycle", "0:0"}), {"'int8'"});
  expect_error(with({"--cycle", "0:1,1:1"}), {"cycle 0, exchange 1", "word 1"});
  expect_error(with({"--cycle", "0:0", "--cycle", "0:1,1:1"}), {"cycle 1, exchange 1"});
  expect_error(with({"--port-model", "one", "--cycle", "0:1,1:2"}), {"one-port", "dim 1"});
  expect_error(with({"--port-model", "two", "--cycle", "0:0"}), {"'two'"});
  expect_error(with({"--cycle", "0:1,0:2"}), {"dim 0 carries 2", "channel width allows 1"});
  expect_error(with({"--cycle", "9:0"}), {"dim 9 out of range"});
  expect_error(with({"--cycle", "0:16"}), {"addr 16 out of range"});
  expect_error(with({"--cycle", "0:1:16"}), {"peer_addr 16 out of range"});
  expect_error(with({"--cycle", "0-1"}), {"'0-1'"});
  expect_error(with({"--tile-dims", "5", "--cycle", "0:0"}), {"t = 5"});
}

// A named value with a newline or a terminal escape in it is quoted escaped:
// the error stays one line (expect_error checks), as tests/fuzz found it did not.
TEST_F(Cli, BadNamesAreQuotedOnOneLine) {
  const Args base = {"cycle", "-n", "2", "-m", "2"};
  const auto with = [&](const Args& more) {
    Args a = base;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  expect_error(with({"--backend", "cpu\nx", "--cycle", "0:0"}), {"backend 'cpu\\nx' unknown"});
  expect_error(with({"--type", "uint32\n", "--cycle", "0:0"}), {"element type 'uint32\\n' unknown"});
  expect_error(with({"--port-model", "\x1b[2Jall", "--cycle", "0:0"}), {"port model '\\x1b[2Jall' unknown"});
  expect_error(with({"--cycle", "0:1\n"}), {"exchange '0:1\\n' malformed"});
  expect_error({"schedule", "--dims", "2", "--algorithm", "4\n"}, {"algorithm '4\\n' unknown"});
  expect_error({"route", "-n", "2", "-m", "2", "--message", "0:0:1:0\r"}, {"message '0:0:1:0\\r' malformed"});
  expect_error({"permute", "-n", "2", "-m", "2", "--perm", "transpose\n"}, {"--perm 'transpose\\n' unknown"});
}

TEST_F(Cli, RejectsCudaWithoutDevice) {
  const json j = ok_json({"info"});
  if (j["gpu_present"].get<bool>()) GTEST_SKIP() << "a GPU is present: --backend cuda is legal";
  expect_error({"cycle", "-n", "2", "-m", "2", "--backend", "cuda", "--cycle", "0:0"}, {"cuda"});
}

TEST_F(Cli, RejectsBadInputFiles) {
  const Cube c{4, 4};
  const Args base = {"cycle", "-n", "4", "-m", "4", "--cycle", "0:0", "--input"};
  const auto with_input = [&](const fs::path& p) {
    Args a = base;
    a.push_back(p.string());
    return a;
  };
  write_u64(path("good.npy"), c.shape(), random_words(c.total()));
  write_u64(path("shape.npy"), {8, 32}, random_words(c.total()));
  {
    // All but the last 5 bytes of a good file.
    const std::string bytes = read_text(path("good.npy"));
    std::ofstream(path("cut.npy"), std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  }
  expect_error(with_input(path("shape.npy")), {"(8, 32)", "(16, 16)"});
  expect_error(with_input(fixture("f8_big_endian.npy")), {"big-endian", "f8_big_endian.npy"});
  expect_error(with_input(path("cut.npy")), {"truncated", "cut.npy"});
  expect_error(with_input(path("missing.npy")), {"missing.npy"});
  Args mismatch = with_input(path("good.npy"));
  mismatch.insert(mismatch.end(), {"--type", "uint32"});
  expect_error(mismatch, {"uint64", "uint32"});
}

TEST_F(Cli, RejectsBadRouteAndAlignFlags) {
  const Args route = {"route", "-n", "2", "-m", "2"};
  const Args align_ = {"align", "-n", "2", "-m", "2"};
  const auto with = [](Args a, const Args& more) {
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  expect_error(with(route, {"--message", "0:0:3:0", "--message", "1:0:3:1", "--contention", "reject"}),
               {"contention", "node 3"});
  expect_error(with(route, {"--message", "0:0:1:0:3", "-B", "2"}), {"length 3", "1..2"});
  expect_error(with(route, {"--message", "0:0:1"}), {"'0:0:1'"});
  expect_error(with(align_, {"--mem-perm", "0,0"}), {"permutation", "bit 0"});
  expect_error(with(align_, {"--gray", "0:2:sideways"}), {"'0:2:sideways'"});
  expect_error(with(align_, {"--gray", "1:2:encode"}), {"'1:2:encode'"});
}

// The library names its own parameters (PermutePlan::Options::fused); hcube
// prints the flags that set them, word for word.
TEST_F(Cli, LibraryErrorsNameTheFlags) {
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"permute", "-n", "2", "-m", "2", "--perm", "transpose", "--fused", "--algorithm", "A1"},
       "--fused runs no routing algorithm: drop --algorithm"},
      {{"permute", "-n", "2", "-m", "2", "--perm", "transpose", "--algorithm", "A4"},
       "--algorithm A4 is an n-port algorithm: it needs --ports all"},
      {{"aapc", "--dims", "2", "--algorithm", "sex", "--blocked"},
       "--blocked and --channel-width do not apply to --algorithm sex: it sends whole blocks already"},
      {{"aapc", "--dims", "2", "--unaligned"}, "--unaligned applies to --algorithm edelman only"},
      {{"redistribute", "--P", "4", "--Q", "4", "--K", "1", "--x", "1", "--dims", "2"},
       "P + Q = 8 processors do not fit a 2-cube of 4 nodes: allowed --dims 3..40, or --overlap to share nodes"},
      {{"multi-aapc", "--dims", "2"},
       "--axes is required with a single --dims d (or list each axis' order: --dims 3,2,2)"},
      {{"multi-aapc", "--axes", "2", "--dims", "2", "--algorithm", "5", "--sequential"},
       "--sequential does not apply to Algorithm 5: its AAPCs run concurrently"},
      {{"scatter", "--topology", "torus:4x4", "--algorithm", "pipeline"},
       "--algorithm pipeline does not run on torus:4x4: the notes' ring pipelines run on rings (ring:z); allowed "
       "there: product, dex or idex (square, z a multiple of 4)"},
      {{"sweep", "--algorithms", "9"},
       "--algorithms entry '9' unknown: allowed 1, 2, 3, 4, edelman, edelman-unaligned"},
  };
  for (const auto& [args, line] : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 1) << args[0];
    EXPECT_EQ(r.err, "hcube: error: " + line + "\n");
  }
}

}  // namespace

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

}  // namespace

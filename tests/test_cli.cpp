// Tests of the hcube program as a user runs it: the real binary, its exit
// code, stdout and stderr, and the .npy files it reads and writes. Expected
// states are computed here straight from the definitions of the primitives,
// not with the emulator's own reference code.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "hcube/emulator/npy.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Args = std::vector<std::string>;
using Words = std::vector<std::uint64_t>;

struct Result {
  int code = -1;  // exit status, or -signal when killed
  std::string out, err;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string fixture(const std::string& name) { return std::string(HCUBE_TEST_DATA_DIR) + "/" + name; }

// The machine state of 2^n nodes x 2^m words, global address g = node * K + local.
struct Cube {
  unsigned n, m;
  std::uint64_t nodes() const { return std::uint64_t{1} << n; }
  std::uint64_t K() const { return std::uint64_t{1} << m; }
  std::uint64_t total() const { return nodes() * K(); }
  std::uint64_t g(std::uint64_t node, std::uint64_t local) const { return node * K() + local; }
  std::vector<std::uint64_t> shape() const { return {nodes(), K()}; }
};

Words random_words(std::uint64_t count) {
  std::mt19937_64 rng(0x5eed);
  Words w(count);
  for (auto& x : w) x = rng();
  return w;
}

Words labels(const Cube& c) {
  Words w(c.total());
  for (std::uint64_t g = 0; g < w.size(); ++g) w[g] = g;
  return w;
}

void write_u64(const fs::path& path, const std::vector<std::uint64_t>& shape, const Words& w) {
  hcube::write_npy(path.string(), hcube::ElementType::u64, shape, w.data(), w.size() * sizeof(std::uint64_t));
}

// Reads --output, which is always (2^n, 2^m) whatever the input's shape.
Words read_u64(const fs::path& path, const Cube& c) {
  const hcube::NpyArray a = hcube::read_npy(path.string());
  EXPECT_EQ(a.type, hcube::ElementType::u64);
  EXPECT_EQ(a.shape, c.shape());
  Words w(a.data.size() / sizeof(std::uint64_t));
  std::memcpy(w.data(), a.data.data(), w.size() * sizeof(std::uint64_t));
  return w;
}

// One exchange, by definition: every node j with bit `dim` clear swaps its
// word `addr` with word `peer` of node j xor 2^dim. The exchanges of a legal
// cycle touch disjoint words, so applying them one after another is the cycle.
void exchange(Words& w, const Cube& c, unsigned dim, std::uint64_t addr, std::uint64_t peer) {
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    if (((j >> dim) & 1) == 0) std::swap(w[c.g(j, addr)], w[c.g(j ^ (std::uint64_t{1} << dim), peer)]);
}

// A local alignment: node j moves its word i to address dest(j, i).
Words align(const Words& w, const Cube& c, const std::function<std::uint64_t(std::uint64_t, std::uint64_t)>& dest) {
  Words out(w.size());
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    for (std::uint64_t i = 0; i < c.K(); ++i) out[c.g(j, dest(j, i))] = w[c.g(j, i)];
  return out;
}

// A state as the JSON rows of a trace: numbers, or [re, im] for complex types,
// whose labels carry the address negated in the imaginary part.
json state_json(const Words& w, const Cube& c, bool complex) {
  json rows = json::array();
  for (std::uint64_t j = 0; j < c.nodes(); ++j) {
    json row = json::array();
    for (std::uint64_t i = 0; i < c.K(); ++i) {
      const std::uint64_t v = w[c.g(j, i)];
      row.push_back(complex ? json::array({static_cast<double>(v), -static_cast<double>(v)}) : json(v));
    }
    rows.push_back(row);
  }
  return rows;
}

const char* const kTypes[] = {"uint32", "int32", "uint64", "float", "double", "complex64", "complex128"};

// Every test gets its own temporary directory for inputs, outputs and the
// captured streams.
class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "hcube_cli_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path path(const std::string& name) const { return dir_ / name; }

  // Runs hcube with stdout and stderr sent to files, so that neither stream
  // can fill a pipe and stall the child, and the two stay separate.
  Result run(const Args& args) const {
    const fs::path out = path(".stdout"), err = path(".stderr");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> storage{HCUBE_BINARY};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    Result r;
    if (rc != 0) {
      ADD_FAILURE() << "cannot start " << HCUBE_BINARY << ": " << std::strerror(rc);
      return r;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
  }

  // Runs a command that must succeed, and returns its stdout.
  std::string ok(const Args& args) const {
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << "stderr: " << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
  }

  // Runs a command that must succeed with --json, and returns the object.
  json ok_json(Args args) const {
    args.push_back("--json");
    const std::string out = ok(args);
    json j = json::parse(out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON: " << out;
    return j;
  }

  // A rejected command: a normal non-zero exit, nothing on stdout, exactly one
  // line "hcube: error: ..." on stderr naming every string in `mentions`, and
  // (cycle, align and route take --output) no output file, not even a partial one.
  void expect_error(Args args, const std::vector<std::string>& mentions) const {
    SCOPED_TRACE("hcube " + ::testing::PrintToString(args));
    const bool has_output = args[0] == "cycle" || args[0] == "align" || args[0] == "route";
    if (has_output) {
      args.push_back("--output");
      args.push_back(path("out.npy").string());
    }
    const Result r = run(args);
    EXPECT_GT(r.code, 0);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("hcube: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.back(), '\n');
    for (const std::string& s : mentions) EXPECT_TRUE(contains(r.err, s)) << "no '" << s << "' in: " << r.err;
    for (const auto& entry : fs::directory_iterator(dir_))
      EXPECT_FALSE(contains(entry.path().filename().string(), "out.npy")) << "left behind: " << entry.path();
  }

  fs::path dir_;
};

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

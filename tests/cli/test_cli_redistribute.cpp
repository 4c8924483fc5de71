// hcube redistribute as a user runs it: the JSON contract of docs/cli.md, the
// paper's step counts, the output file against the layouts written here from
// their definitions (not with the emulator's code), input files, and bad input.
#include <algorithm>

#include "cli_harness.hpp"

namespace {

using namespace hcube::test;

class CliRedistribute : public Cli {
 protected:
  // Destination q's local memory, by definition: element g is in block i = g div x;
  // big block i div K sits on destination (i div K) mod Q at local block
  // ((i div K) div Q) K + i mod K. Holes are zero.
  static Words expected(const Words& data, std::uint64_t K, std::uint64_t Q, std::uint64_t x, std::uint64_t width) {
    Words rows(Q * width, 0);
    for (std::uint64_t g = 0; g < data.size(); ++g) {
      const std::uint64_t i = g / x, big = i / K;
      rows[(big % Q) * width + ((big / Q) * K + i % K) * x + g % x] = data[g];
    }
    return rows;
  }
  static Words read_rows(const fs::path& p, std::uint64_t Q, std::uint64_t width) {
    const hcube::NpyArray a = hcube::read_npy(p.string());
    EXPECT_EQ(a.shape, (std::vector<std::uint64_t>{Q, width}));
    Words w(Q * width);
    if (a.type == hcube::ElementType::u64) {
      std::memcpy(w.data(), a.data.data(), w.size() * 8);
    } else {
      for (std::uint64_t k = 0; k < w.size(); ++k) {
        std::uint32_t v = 0;
        std::memcpy(&v, &a.data[k * 4], 4);
        w[k] = v;
      }
    }
    return w;
  }
};

TEST_F(CliRedistribute, JsonContractAndThePapersStepCounts) {
  const json j = ok_json({"redistribute", "--P", "28", "--K", "14", "--Q", "36", "--x", "2"});
  for (const char* key : {"P", "Q", "K", "x", "N", "case", "steps", "message_sizes", "max_message", "contention",
                          "modelled_cost", "schedule_seconds", "verified", "seconds"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["steps"], 18);  // R_2(28, 14, 36): 18 steps against Caterpillar's 36
  EXPECT_EQ(j["case"], 1);
  EXPECT_EQ(j["contention"], 0);
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["message_sizes"].size(), 18u);
  const json c = ok_json({"redistribute", "--P", "28", "--K", "14", "--Q", "36", "--x", "2", "--schedule", "caterpillar"});
  EXPECT_EQ(c["steps"], 36);
  // R_4(28, 6, 36): 36 steps, 18 of 2 blocks and 18 of 1; modelled cost = 36 T_s + 54 blocks x 4 tau.
  const json u = ok_json({"redistribute", "--P", "28", "--K", "6", "--Q", "36", "--x", "4", "--ts", "10", "--tau", "0.5"});
  EXPECT_EQ(u["steps"], 36);
  EXPECT_EQ(u["max_message"], 8);
  EXPECT_DOUBLE_EQ(u["modelled_cost"].get<double>(), 36 * 10.0 + 54 * 4 * 0.5);
}

// --ts is the start-up time a message and --tc the time an element; --tau, the
// old spelling of --tc, still works and gives the same cost.
TEST_F(CliRedistribute, CostFlagsOldAndNewSpellings) {
  const Args base = {"redistribute", "--P", "28", "--K", "6", "--Q", "36", "--x", "4", "--ts", "10"};
  const auto with = [&](const Args& more) {
    Args a = base;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  const json tc = ok_json(with({"--tc", "0.5"}));
  const json tau = ok_json(with({"--tau", "0.5"}));
  // 36 steps of 10 and 54 blocks of 4 elements at 0.5.
  EXPECT_DOUBLE_EQ(tc["modelled_cost"].get<double>(), 36 * 10.0 + 54 * 4 * 0.5);
  EXPECT_DOUBLE_EQ(tau["modelled_cost"].get<double>(), tc["modelled_cost"].get<double>());
  for (const json* j : {&tc, &tau}) {
    EXPECT_DOUBLE_EQ((*j)["ts"].get<double>(), 10.0);
    EXPECT_DOUBLE_EQ((*j)["tc"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ((*j)["tau"].get<double>(), 0.5);  // the old field, still the time an element
  }
  const std::string help = ok({"redistribute", "--help"});
  EXPECT_TRUE(contains(help, "old spelling of --tc")) << help;
  expect_error(with({"--tc", "1", "--tau", "2"}), {"--tc 1", "--tau 2", "old spelling"});
}

TEST_F(CliRedistribute, OutputIsTheCyclicKxLayoutForEverySchedule) {
  // P > Q, a partial superblock, disjoint and shared nodes.
  for (const char* schedule : {"circulant", "caterpillar", "bipartite-stepwise", "bipartite-greedy"})
    for (const bool overlap : {false, true}) {
      SCOPED_TRACE(std::string(schedule) + (overlap ? " overlap" : ""));
      Args args = {"redistribute", "--P", "6", "--K", "2", "--Q", "4", "--x", "3", "--N", "150", "--schedule", schedule,
                   "-o", path("out.npy").string()};
      if (overlap) args.push_back("--overlap");
      const json j = ok_json(args);
      EXPECT_EQ(j["contention"], 0);
      const std::uint64_t width = j["output_shape"][1].get<std::uint64_t>();
      Words data(150);
      for (std::uint64_t g = 0; g < data.size(); ++g) data[g] = g;
      EXPECT_EQ(read_rows(path("out.npy"), 4, width), expected(data, 2, 4, 3, width));
    }
}

TEST_F(CliRedistribute, InputFileInGlobalOrder) {
  const Words data = random_words(6 * 4 * 9 * 2);  // R_2(6, 4, 9) has superblocks of lcm(6, 36) = 36 blocks
  write_u64(path("in.npy"), {data.size()}, data);
  const json j = ok_json({"redistribute", "--P", "6", "--K", "4", "--Q", "9", "--x", "2", "-i", path("in.npy").string(),
                          "-o", path("out.npy").string()});
  EXPECT_EQ(j["N"], data.size());
  EXPECT_EQ(j["steps"], 6);  // Fig. 9: L_s = 6, G = 6 > K
  EXPECT_EQ(j["output_shape"], json({9, data.size() / 9}));
  EXPECT_EQ(read_rows(path("out.npy"), 9, data.size() / 9), expected(data, 4, 9, 2, data.size() / 9));
  // --trace lists every step's messages.
  const json t = ok_json({"redistribute", "--P", "3", "--K", "2", "--Q", "6", "--x", "2", "--trace"});
  ASSERT_EQ(t["trace"].size(), 4u);
  EXPECT_EQ(t["trace"][0]["messages"][1], json({{"src", 1}, {"dst", 2}, {"blocks", {4}}}));
  EXPECT_TRUE(contains(ok({"redistribute", "--P", "3", "--K", "2", "--Q", "6", "--x", "2", "--trace"}),
                       "step 0: 0->0 [0] 1->2 [4] 2->1 [2]"));
}

// An input larger than the reader's cache of windows (2^20 elements): read
// strided from the file for the sources and again for the check, the output
// written in order; every element where the layout puts it.
TEST_F(CliRedistribute, LargeInputFileReadWhereTheMachineNeedsIt) {
  const Words data = random_words((std::uint64_t{3} << 20) + 35 * 24);
  write_u64(path("in.npy"), {data.size()}, data);
  for (const bool overlap : {false, true}) {
    SCOPED_TRACE(overlap ? "overlap" : "disjoint");
    Args args = {"redistribute", "--P", "5", "--K", "3", "--Q", "7", "--x", "1", "-i", path("in.npy").string(),
                 "-o", path("out.npy").string()};
    if (overlap) args.push_back("--overlap");
    const json j = ok_json(args);
    EXPECT_EQ(j["verified"], true);
    const std::uint64_t width = j["output_shape"][1].get<std::uint64_t>();
    EXPECT_EQ(read_rows(path("out.npy"), 7, width), expected(data, 3, 7, 1, width));
  }
}

// --reverse: cyclic(Kx) on Q back to cyclic(x) on P, the output (P, width)
// against cyclic(x)'s definition, in as many steps as the forward problem.
// --y: cyclic(x) on P to cyclic(y) on Q for any y, the output against cyclic(y)
// written here from its definition (y = K x above: element g in block i = g div y on
// destination i mod Q at local word (i div Q) y + g mod y); --y K x is --K's problem.
TEST_F(CliRedistribute, AnyDestinationBlockWithY) {
  for (const char* schedule : {"circulant", "bipartite-greedy"})
    for (const bool reverse : {false, true}) {
      SCOPED_TRACE(std::string(schedule) + (reverse ? " reverse" : ""));
      const Words data = random_words(180);
      write_u64(path("in.npy"), {data.size()}, data);
      Args args = {"redistribute", "--P", "3", "--Q", "5", "--x", "6", "--y", "4", "--schedule", schedule,
                   "-i", path("in.npy").string(), "-o", path("out.npy").string()};
      if (reverse) args.push_back("--reverse");
      const json j = ok_json(args);
      EXPECT_EQ(j["verified"], true);
      EXPECT_EQ(j["y"], 4);
      EXPECT_EQ(j["unit"], 2);
      EXPECT_EQ(j["K"], nullptr);
      EXPECT_EQ(j["case"], nullptr);
      EXPECT_EQ(j["contention"], 0);
      const std::uint64_t width = j["output_shape"][1].get<std::uint64_t>();
      // Back to cyclic(6) on 3 (reverse) or on to cyclic(4) on 5: the same formula, K = 1.
      EXPECT_EQ(read_rows(path("out.npy"), reverse ? 3 : 5, width),
                expected(data, 1, reverse ? 3 : 5, reverse ? 6 : 4, width));
    }
  const json k = ok_json({"redistribute", "--P", "6", "--K", "4", "--Q", "9", "--x", "2"});
  const json y = ok_json({"redistribute", "--P", "6", "--y", "8", "--Q", "9", "--x", "2"});
  for (const char* key : {"K", "steps", "message_sizes", "case", "N"}) EXPECT_EQ(k[key], y[key]) << key;
  fs::remove(path("out.npy"));  // bad input must leave nothing behind: start from an empty folder
  expect_error({"redistribute", "--P", "3", "--Q", "4", "--x", "2"}, {"--K", "--y", "missing"});
  expect_error({"redistribute", "--P", "3", "--K", "2", "--y", "4", "--Q", "4", "--x", "2"}, {"--K 2", "--y 4", "one"});
  expect_error({"redistribute", "--P", "3", "--y", "0", "--Q", "4", "--x", "2"}, {"--y 0 out of range"});
  expect_error({"redistribute", "--P", "3", "--y", "4", "--Q", "4", "--x", "6", "--N", "7"},
               {"N = 7", "gcd(x, y) = 2"});
}

TEST_F(CliRedistribute, ReverseGoesBackToCyclicX) {
  for (const bool overlap : {false, true}) {
    SCOPED_TRACE(overlap ? "overlap" : "disjoint");
    Args args = {"redistribute", "--P", "6", "--K", "2", "--Q", "4", "--x", "3", "--N", "150", "--reverse",
                 "-o", path("back.npy").string()};
    if (overlap) args.push_back("--overlap");
    const json j = ok_json(args);
    EXPECT_EQ(j["reverse"], true);
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["contention"], 0);
    const std::uint64_t width = j["output_shape"][1].get<std::uint64_t>();
    EXPECT_EQ(j["output_shape"][0], 6);
    Words data(150), rows(6 * width, 0);
    for (std::uint64_t g = 0; g < data.size(); ++g) {
      data[g] = g;
      const std::uint64_t i = g / 3;
      rows[(i % 6) * width + (i / 6) * 3 + g % 3] = g;
    }
    EXPECT_EQ(read_rows(path("back.npy"), 6, width), rows);
    // The same schedule's step count both ways.
    Args fwd(args.begin(), args.end());
    fwd.erase(std::find(fwd.begin(), fwd.end(), std::string("--reverse")));
    EXPECT_EQ(ok_json(fwd)["steps"], j["steps"]);
  }
  EXPECT_TRUE(contains(ok({"redistribute", "--P", "6", "--K", "2", "--Q", "4", "--x", "3", "--reverse"}),
                       "cyclic(6) on 4 sources -> cyclic(3) on 6 destinations"));
}

TEST_F(CliRedistribute, BadInput) {
  expect_error({"redistribute", "--P", "0", "--K", "2", "--Q", "4", "--x", "2"}, {"--P 0 out of range"});
  expect_error({"redistribute", "--P", "-3", "--K", "2", "--Q", "4", "--x", "2"}, {"--P -3 out of range"});
  expect_error({"redistribute", "--P", "3", "--K", "0", "--Q", "4", "--x", "2"}, {"--K 0 out of range"});
  expect_error({"redistribute", "--P", "3", "--K", "2", "--Q", "4", "--x", "0"}, {"--x 0 out of range"});
  expect_error({"redistribute", "--P", "3", "--K", "2", "--Q", "4", "--x", "2", "--N", "7"},
               {"N = 7 is not a multiple of the block size x = 2"});
  expect_error({"redistribute", "--P", "3", "--K", "2", "--Q", "6", "--x", "2", "--dims", "3"},
               {"P + Q = 9 processors do not fit", "--overlap"});
  expect_error({"redistribute", "--P", "3", "--K", "2", "--Q", "6", "--x", "2", "--schedule", "magic"},
               {"'magic' unknown", "circulant"});
  write_u64(path("in.npy"), {10}, random_words(10));
  expect_error({"redistribute", "--P", "3", "--K", "2", "--Q", "4", "--x", "2", "-i", path("in.npy").string(), "--N",
                "12"},
               {"holds 10 elements but --N is 12"});
  expect_error({"redistribute", "--P", "3", "--K", "2", "--Q", "4", "--x", "3", "-i", path("in.npy").string()},
               {"N = 10 is not a multiple of the block size x = 3"});
  write_u64(path("in2.npy"), {2, 5}, random_words(10));
  expect_error({"redistribute", "--P", "3", "--K", "2", "--Q", "4", "--x", "2", "-i", path("in2.npy").string()},
               {"one-dimensional"});
}

}  // namespace

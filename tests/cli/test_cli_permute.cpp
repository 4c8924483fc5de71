// Tests of hcube permute and hcube compare as a user runs them: the JSON
// contract, the output file against the permutation written here from its
// definition (source bit i to bit p_i), the planner's choice, and bad input.
#include <map>

#include "cli_harness.hpp"

namespace {

using namespace hcube::test;

class CliPermute : public Cli {};

// out[p(g)] = in[g], p moving source bit i to bit to[i].
Words permuted(const Words& in, const std::vector<unsigned>& to) {
  Words out(in.size());
  for (std::uint64_t g = 0; g < in.size(); ++g) {
    std::uint64_t d = 0;
    for (unsigned i = 0; i < to.size(); ++i)
      if ((g >> i) & 1) d |= std::uint64_t{1} << to[i];
    out[d] = in[g];
  }
  return out;
}

TEST_F(CliPermute, HelpNamesTheFlags) {
  const std::string help = ok({"permute", "--help"});
  for (const char* flag :
       {"--perm", "--ports", "--algorithm", "--tc", "--ts", "--tau", "--packet", "--input", "--output", "--json"})
    EXPECT_TRUE(contains(help, flag)) << flag;
  // The choice flags list their values.
  EXPECT_TRUE(contains(help, "--ports TEXT:{one,all}")) << help;
  EXPECT_TRUE(contains(help, "--algorithm TEXT:{auto,A1,A1',A2,A3,A4,A5,A6,Edelman,A3-A1,A6',A4',A3-pipelined}")) << help;
  EXPECT_TRUE(contains(ok({"--help"}), "compare"));
}

// --ts is the start-up time and --tc the time per word; --tau, the old spelling
// of --ts, still works and gives the same run.
TEST_F(CliPermute, CostFlagsOldAndNewSpellings) {
  const Args base = {"permute", "--perm", "1,0,2,3,5,6,4,7", "-n", "4", "-m", "4"};
  const auto with = [&](const Args& more) {
    Args a = base;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  // Start-ups of 40 make A1' (3 start-ups, 48 words) beat A1 (4 start-ups, 32 words): 3 * 40 + 48 = 168.
  const json ts = ok_json(with({"--ts", "40"}));
  const json tau = ok_json(with({"--tau", "40"}));
  EXPECT_EQ(ts["algorithm"], "A1'");
  EXPECT_DOUBLE_EQ(ts["modelled_time"].get<double>(), 168.0);
  EXPECT_EQ(tau["algorithm"], ts["algorithm"]);
  EXPECT_DOUBLE_EQ(tau["modelled_time"].get<double>(), ts["modelled_time"].get<double>());
  for (const json* j : {&ts, &tau}) {
    EXPECT_DOUBLE_EQ((*j)["ts"].get<double>(), 40.0);
    EXPECT_DOUBLE_EQ((*j)["tau"].get<double>(), 40.0);  // the old field, still the start-up time
    EXPECT_DOUBLE_EQ((*j)["tc"].get<double>(), 1.0);
  }
  // --tc 40 is the time per word: A1 moves fewer words, 4 + 32 * 40.
  const json tc = ok_json(with({"--tc", "40"}));
  EXPECT_EQ(tc["algorithm"], "A1");
  EXPECT_DOUBLE_EQ(tc["modelled_time"].get<double>(), 4 * 0.0 + 32 * 40.0);
  EXPECT_DOUBLE_EQ(tc["tc"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(tc["ts"].get<double>(), 0.0);
  // compare reports the same fields, and the same rows under both spellings.
  const json c_ts = ok_json({"compare", "--perm", "transpose", "-n", "3", "-m", "3", "--ts", "4", "--tc", "2"});
  const json c_tau = ok_json({"compare", "--perm", "transpose", "-n", "3", "-m", "3", "--tau", "4", "--tc", "2"});
  for (const json* j : {&c_ts, &c_tau}) {
    EXPECT_DOUBLE_EQ((*j)["ts"].get<double>(), 4.0);
    EXPECT_DOUBLE_EQ((*j)["tau"].get<double>(), 4.0);
    EXPECT_DOUBLE_EQ((*j)["tc"].get<double>(), 2.0);
  }
  ASSERT_EQ(c_ts["rows"].size(), c_tau["rows"].size());
  for (std::size_t r = 0; r < c_ts["rows"].size(); ++r)
    EXPECT_EQ(c_ts["rows"][r].value("modelled_time", -1.0), c_tau["rows"][r].value("modelled_time", -1.0)) << r;
  EXPECT_EQ(c_ts["rows"][0]["modelled_time"],
            4.0 * c_ts["rows"][0]["startups"].get<double>() + 2.0 * c_ts["rows"][0]["element_transfers"].get<double>());
  const std::string help = ok({"permute", "--help"});
  EXPECT_TRUE(contains(help, "old spelling of --ts")) << help;
  expect_error(with({"--ts", "1", "--tau", "2"}), {"--ts 1", "--tau 2", "old spelling"});
  expect_error(with({"--ts", "-1"}), {"--ts -1", "t_s >= 0"});
}

TEST_F(CliPermute, OutputIsThePermutationForEveryAlgorithm) {
  const Cube c{4, 4};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  // Real cycles on the processor bits 4..7 (orders 3 and 1: 4->5->6->4), a virtual swap of storage bits 0, 1.
  const std::vector<unsigned> to = {1, 0, 2, 3, 5, 6, 4, 7};
  const std::string perm = "1,0,2,3,5,6,4,7";
  struct Run {
    const char* ports;
    const char* algorithm;
  };
  for (const Run& r : {Run{"one", "A1"}, Run{"one", "A1'"}, Run{"one", "A2"}, Run{"one", "A3"}, Run{"all", "A1"},
                       Run{"all", "A2"}, Run{"all", "A3"}, Run{"all", "A4"}, Run{"all", "A5"}, Run{"all", "A6"},
                       Run{"all", "auto"}}) {
    SCOPED_TRACE(std::string(r.ports) + " " + r.algorithm);
    const json j = ok_json({"permute", "--perm", perm, "-n", "4", "-m", "4", "--ports", r.ports, "--algorithm",
                            r.algorithm, "-i", path("in.npy").string(), "-o", path("out.npy").string()});
    for (const char* key : {"perm", "n", "m", "algorithm", "cycles", "element_transfers", "startups",
                            "lower_bound_cycles", "verified", "seconds", "modelled_time", "reason"})
      EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["perm"], json(to));
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["lower_bound_cycles"], std::string(r.ports) == "one" ? 3 : 2);  // sigma_p, sigma_p - oJ
    if (std::string(r.algorithm) != "auto") {
      EXPECT_EQ(j["algorithm"], r.algorithm);
    }
    EXPECT_EQ(read_u64(path("out.npy"), c), permuted(in, to));
  }
  // The fused path: the same result in one launch, no routing.
  const json fused = ok_json({"permute", "--perm", perm, "-n", "4", "-m", "4", "--fused", "-i", path("in.npy").string(),
                              "-o", path("out.npy").string()});
  EXPECT_EQ(fused["algorithm"], "fused");
  EXPECT_EQ(fused["verified"], true);
  EXPECT_EQ(fused["cycles"], 0);
  EXPECT_EQ(fused["launches"], 1);
  EXPECT_EQ(read_u64(path("out.npy"), c), permuted(in, to));
  // One-port A1: sigma_p + beta' = 3 + 1 exchanges of K/2 = 8 words.
  const json one = ok_json({"permute", "--perm", perm, "-n", "4", "-m", "4"});
  EXPECT_EQ(one["cycles"], 4);
  EXPECT_EQ(one["element_transfers"], 32);
  // A1': sigma_p = 3 exchanges of K = 16 words on a machine of 2K words a node;
  // the planner takes it once start-ups cost more than (sigma_p / beta - 1) K/2 t_c = 16.
  const json prime = ok_json({"permute", "--perm", perm, "-n", "4", "-m", "4", "--tau", "40"});
  EXPECT_EQ(prime["algorithm"], "A1'");
  EXPECT_EQ(prime["cycles"], 3);
  EXPECT_EQ(prime["element_transfers"], 48);
  EXPECT_EQ(prime["memory_words"], 32);  // 2K words a node
  EXPECT_EQ(prime["verified"], true);
  expect_error({"permute", "--perm", perm, "-n", "4", "-m", "4", "--algorithm", "A1'", "--trace"}, {"--trace", "A1'"});
}

TEST_F(CliPermute, NamedPermutationsAndCompare) {
  const Cube c{3, 3};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  ok({"permute", "--perm", "bit-reversal", "-n", "3", "-m", "3", "-i", path("in.npy").string(), "-o",
      path("out.npy").string()});
  EXPECT_EQ(read_u64(path("out.npy"), c), permuted(in, {5, 4, 3, 2, 1, 0}));
  const json cmp = ok_json({"compare", "--perm", "0,1,2,3,5,6,4", "-n", "3", "-m", "4", "--ports", "all", "--tau", "4"});
  ASSERT_EQ(cmp["rows"].size(), 16u);  // A3-A1 one- and all-port, A3-pipelined, A4' and A6' (on A1') among them
  for (const json& row : cmp["rows"]) {
    if (row["algorithm"] == "Edelman") {
      EXPECT_EQ(row["applies"], false);
      EXPECT_TRUE(contains(row["reason"], "bit reversal only")) << row;
      continue;
    }
    EXPECT_EQ(row["applies"], true) << row;
    EXPECT_EQ(row["verified"], true);
    EXPECT_TRUE(row["modelled_time"].is_number());
    EXPECT_GE(row["modelled_time"].get<double>(), row["lower_bound_time"].get<double>() - 1e-9);
  }
  // Mixed cycles (sec. 4.4): every n-port algorithm runs them but A1' (its
  // n-port form needs a separable permutation) and A3 n-port.
  const json mixed = ok_json({"compare", "--perm", "transpose", "-n", "3", "-m", "3", "--ports", "all"});
  std::map<std::string, json> row_of;
  for (const json& row : mixed["rows"]) row_of[row["algorithm"].get<std::string>() + " " + row["ports"].get<std::string>()] = row;
  for (const char* name : {"A2 all", "A1 all", "A4 all", "A5 all", "A6 all", "A3 one", "A3-A1 one", "A3-A1 all"}) {
    EXPECT_EQ(row_of[name]["applies"], true) << name;
    EXPECT_EQ(row_of[name]["verified"], true) << name;
  }
  for (const char* name : {"A1' all", "A3 all", "A4' all", "A6' all", "A3-pipelined all"}) {
    EXPECT_EQ(row_of[name]["applies"], false) << name;
    EXPECT_TRUE(contains(row_of[name]["reason"], "separable")) << row_of[name];
  }
  const std::string table = ok({"compare", "--perm", "transpose", "-n", "3", "-m", "3"});
  EXPECT_TRUE(contains(table, "A1           one")) << table;
  // Edelman's table does the bit reversal of a 2^(2d) vector: 2^(d-1) cycles, one word a link.
  const json edelman = ok_json({"permute", "--perm", "bit-reversal", "-n", "3", "-m", "3", "--ports", "all",
                                "--algorithm", "Edelman", "-i", path("in.npy").string(), "-o", path("out.npy").string()});
  EXPECT_EQ(edelman["algorithm"], "Edelman");
  EXPECT_EQ(edelman["cycles"], 4);
  EXPECT_EQ(edelman["element_transfers"], 4);
  EXPECT_EQ(edelman["verified"], true);
  EXPECT_EQ(read_u64(path("out.npy"), c), permuted(in, {5, 4, 3, 2, 1, 0}));
}

// Without -n and -m, the input's shape (2^n, 2^m) gives them.
TEST_F(CliPermute, InputShapeGivesTheDimensions) {
  const Cube c{3, 3};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  const json implied = ok_json({"permute", "--perm", "transpose", "-i", path("in.npy").string(), "-o",
                                path("implied.npy").string()});
  EXPECT_EQ(implied["n"], 3);
  EXPECT_EQ(implied["m"], 3);
  EXPECT_EQ(implied["perm"], json({3, 4, 5, 0, 1, 2}));
  const json given = ok_json({"permute", "--perm", "transpose", "-n", "3", "-m", "3", "-i", path("in.npy").string(),
                              "-o", path("given.npy").string()});
  EXPECT_EQ(read_u64(path("implied.npy"), c), read_u64(path("given.npy"), c));
  EXPECT_EQ(read_u64(path("implied.npy"), c), permuted(in, {3, 4, 5, 0, 1, 2}));
  // Without --input the default stays n = m = 4.
  const json plain = ok_json({"permute", "--perm", "transpose"});
  EXPECT_EQ(plain["n"], 4);
  EXPECT_EQ(plain["m"], 4);
  // The extended cube: the input is the data's (2^k, 2^m), so it gives m; n stays 4 unless given.
  const json sub = ok_json({"permute", "--perm", "0,1,2,4,5,3", "--subcube-dims", "3", "-n", "5", "-i",
                            path("in.npy").string()});
  EXPECT_EQ(sub["machine_n"], 5);
  EXPECT_EQ(sub["m"], 3);
  // A flat input needs one of the two.
  write_u64(path("flat.npy"), {c.total()}, in);
  expect_error({"permute", "--perm", "transpose", "-i", path("flat.npy").string()}, {"(64,)", "-n"});
  const json flat = ok_json({"permute", "--perm", "transpose", "-n", "2", "-i", path("flat.npy").string()});
  EXPECT_EQ(flat["m"], 4);
  // Flags given must fit the file.
  expect_error({"permute", "--perm", "bit-reversal", "-n", "2", "-i", path("in.npy").string()},
               {"(8, 8)", "2^2 nodes"});
}

// The extended cube: data of 2^3 nodes x 2^3 words on a cube of n = 5; each
// algorithm spreads it over the unused dimensions and gathers it back.
TEST_F(CliPermute, ExtendedCube) {
  const Cube c{3, 3};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  const std::vector<unsigned> to = {0, 1, 2, 4, 5, 3};  // a real cycle 3 -> 4 -> 5 on the data's processor bits
  for (const char* ports : {"one", "all"}) {
    const json j = ok_json({"permute", "--perm", "0,1,2,4,5,3", "-n", "5", "-m", "3", "--subcube-dims", "3",
                            "--ports", ports, "-i", path("in.npy").string(), "-o", path("out.npy").string()});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["machine_n"], 5);
    EXPECT_EQ(j["n"], 3);
    EXPECT_EQ(read_u64(path("out.npy"), c), permuted(in, to));
  }
  // The summary names the cube the routing ran on, not only the data's subcube.
  const std::string prose = ok({"permute", "--perm", "0,1,2,4,5,3", "-n", "5", "-m", "3", "--subcube-dims", "3"});
  EXPECT_TRUE(contains(prose, "routed on the 5-cube: 32 nodes x 8 words (n = 5, m = 3), the data on its subcube of n = 3"))
      << prose;
  const json cmp = ok_json({"compare", "--perm", "0,1,2,4,5,3", "-n", "5", "-m", "3", "--subcube-dims", "3", "--ports",
                            "all"});
  int applied = 0;
  for (const json& row : cmp["rows"]) applied += row["applies"].get<bool>() ? 1 : 0;
  EXPECT_GE(applied, 3) << cmp["rows"];
  EXPECT_TRUE(contains(ok({"compare", "--perm", "0,1,2,4,5,3", "-n", "5", "-m", "3", "--subcube-dims", "3"}),
                       "extended cube"));
  expect_error({"permute", "--perm", "0,1,2,4,5,3", "-n", "3", "-m", "3", "--subcube-dims", "3"},
               {"--subcube-dims 3 out of range", "0 <= k < n = 3"});
  expect_error({"permute", "--perm", "0,1,2,4,5,3", "-n", "5", "-m", "3", "--subcube-dims", "2"}, {"lists 6 bits"});
}

// A5's piece order (sec. 4.3): --gamma picks any of 1..sigma_max, a cycle whose
// order it does not divide getting a short piece (the paper's dummies, built by
// hcube's own rows); each gamma gives the permutation with (gamma + 1) mu
// start-ups, mu = sum ceil(sigma_i / gamma) pivots. By default the gamma with
// the lowest modelled time. --json names the paper's count beside hcube's.
TEST_F(CliPermute, A5Gamma) {
  const Cube c{6, 6};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  // Real cycles 6 -> 7 -> 8 -> 9 -> 6 (order 4) and 10 <-> 11 (order 2): sigma_p = 6.
  const std::vector<unsigned> to = {0, 1, 2, 3, 4, 5, 7, 8, 9, 6, 11, 10};
  const std::string perm = "0,1,2,3,4,5,7,8,9,6,11,10";
  std::map<unsigned, std::uint64_t> transfers;
  for (const char* gamma : {"1", "2", "3", "4", "0"}) {
    SCOPED_TRACE(gamma);
    const json j = ok_json({"permute", "--perm", perm, "-n", "6", "-m", "6", "--ports", "all", "--algorithm", "A5",
                            "--gamma", gamma, "-i", path("in.npy").string(), "-o", path("out.npy").string()});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(read_u64(path("out.npy"), c), permuted(in, to));
    const unsigned g = j["gamma"].get<unsigned>();
    if (std::string(gamma) != "0") {
      EXPECT_EQ(g, static_cast<unsigned>(std::stoul(gamma)));
    }
    const unsigned mu = (4 + g - 1) / g + (2 + g - 1) / g;
    EXPECT_EQ(j["startups"], (g + 1) * mu) << j;
    EXPECT_EQ(j["paper_startups"], (g + 1) * mu);
    EXPECT_DOUBLE_EQ(j["paper_element_transfers"].get<double>(), (g + 1.0) / (2.0 * g) * 64);
    EXPECT_LE(j["element_transfers_bound"].get<std::uint64_t>(), j["element_transfers"].get<std::uint64_t>());
    if (std::string(gamma) == "0") {
      for (const auto& [other, t] : transfers) EXPECT_LE(j["element_transfers"].get<std::uint64_t>(), t) << other;
    } else {
      transfers[g] = j["element_transfers"].get<std::uint64_t>();
    }
  }
  // With costly start-ups the default takes gamma = 2: 3 * 3 = 9 start-ups, the fewest.
  const json few = ok_json({"permute", "--perm", perm, "-n", "6", "-m", "6", "--ports", "all", "--algorithm", "A5",
                            "--ts", "100"});
  EXPECT_EQ(few["gamma"], 2);
  EXPECT_EQ(few["startups"], 9);
  // gamma = 3 cuts the 4-cycle into pieces of 3 and 1 and pads the 2-cycle: the
  // paper's 2/3 K = 42.7 is below what these exchanges allow: the 2-cycle's 2
  // dimensions carry 3 exchanges of each unit (sigma + mu = 2 + 1), 3/4 K = 48 at least.
  const json three = ok_json({"permute", "--perm", perm, "-n", "6", "-m", "6", "--ports", "all", "--algorithm", "A5",
                              "--gamma", "3"});
  EXPECT_EQ(three["element_transfers_bound"], 48);
  EXPECT_TRUE(contains(three["paper_note"], "cannot be met")) << three;
  expect_error({"permute", "--perm", perm, "-n", "6", "-m", "6", "--ports", "all", "--algorithm", "A5", "--gamma", "5"},
               {"gamma = 5 out of range", "1..sigma_max = 4"});
  expect_error({"permute", "--perm", perm, "-n", "6", "-m", "6", "--gamma", "65"}, {"--gamma 65 out of range"});
  expect_error({"permute", "--perm", perm, "-n", "6", "-m", "6", "--gamma", "-1"}, {"-1"});
}

// Sec. 4.4: A4, A5 and A6 run mixed cycles, each run of processor bits after a
// storage bit being A1's chain with that bit as pivot. The transpose of n = m = 4
// (four mixed 2-cycles) in 4 cycles and K/2 = 8 words a link, Theorem 1's n-port bound.
TEST_F(CliPermute, MixedCyclesNPort) {
  const Cube c{4, 4};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  const std::vector<unsigned> to = {4, 5, 6, 7, 0, 1, 2, 3};
  for (const char* algorithm : {"A4", "A5", "A6"}) {
    SCOPED_TRACE(algorithm);
    const json j = ok_json({"permute", "--algorithm", algorithm, "--perm", "transpose", "-n", "4", "-m", "4", "--ports",
                            "all", "-i", path("in.npy").string(), "-o", path("out.npy").string()});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["algorithm"], algorithm);
    EXPECT_EQ(j["cycles"], 4);
    EXPECT_EQ(j["element_transfers"], 8);
    EXPECT_EQ(read_u64(path("out.npy"), c), permuted(in, to));
  }
  // A shuffle of all 8 bits: one mixed cycle of 4 blocks of one exchange each.
  const std::vector<unsigned> shuffled = {1, 2, 3, 4, 5, 6, 7, 0};
  for (const char* algorithm : {"A4", "A5", "A6"}) {
    const json j = ok_json({"permute", "--algorithm", algorithm, "--perm", "shuffle:1", "-n", "4", "-m", "4", "--ports",
                            "all", "-i", path("in.npy").string(), "-o", path("out.npy").string()});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(read_u64(path("out.npy"), c), permuted(in, shuffled)) << algorithm;
  }
}

// A3, recursive transposition (sec. 4.3.2): one-port and n-port, on 2K words a
// node; a real 3-cycle is 2 transpositions, each 2 cycles of K words one-port.
TEST_F(CliPermute, A3) {
  const Cube c{4, 4};
  const Words in = random_words(c.total());
  write_u64(path("in.npy"), c.shape(), in);
  const std::vector<unsigned> to = {1, 0, 2, 3, 5, 6, 4, 7};
  for (const char* ports : {"one", "all"}) {
    const json j = ok_json({"permute", "--algorithm", "A3", "--perm", "1,0,2,3,5,6,4,7", "-n", "4", "-m", "4",
                            "--ports", ports, "-i", path("in.npy").string(), "-o", path("out.npy").string()});
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["algorithm"], "A3");
    EXPECT_EQ(j["schedule_ports"], ports);
    EXPECT_EQ(j["cycles"], 4);
    EXPECT_EQ(j["memory_words"], 32);  // 2K words a node
    EXPECT_EQ(read_u64(path("out.npy"), c), permuted(in, to)) << ports;
    if (std::string(ports) == "one") {
      EXPECT_EQ(j["element_transfers"], 4 * 16);
      // Table 3: ceil(log2 sigma_max) (sigma_p K t_c + sigma_p tau) = 2 (3 * 16) words, 6 start-ups.
      EXPECT_DOUBLE_EQ(j["paper_element_transfers"].get<double>(), 96.0);
      EXPECT_EQ(j["paper_startups"], 6);
      EXPECT_EQ(j["paper_note"], "");
    }
  }
  expect_error({"permute", "--algorithm", "A3", "--perm", "transpose", "-n", "4", "-m", "4", "--trace"},
               {"--trace", "A3"});
}

TEST_F(CliPermute, BadInput) {
  expect_error({"permute", "--perm", "0,1,2", "-n", "2", "-m", "2"}, {"lists 3 bits", "q = n + m = 4"});
  expect_error({"permute", "--perm", "0,1,1,3", "-n", "2", "-m", "2"}, {"not a permutation", "appears twice"});
  expect_error({"permute", "--perm", "0,1,2,9", "-n", "2", "-m", "2"}, {"= 9 out of range", "0..3"});
  expect_error({"permute", "--perm", "zigzag", "-n", "2", "-m", "2"}, {"'zigzag' unknown"});
  expect_error({"permute", "--perm", "transpose", "-n", "2", "-m", "2", "--tau", "-1"}, {"--tau -1", "tau >= 0"});
  expect_error({"permute", "--perm", "transpose", "-n", "2", "-m", "2", "--tc", "-2"}, {"--tc -2"});
  expect_error({"permute", "--perm", "transpose", "-n", "2", "-m", "2", "--ports", "two"}, {"'two'", "one, all"});
  expect_error({"permute", "--perm", "transpose", "-n", "2", "-m", "2", "--algorithm", "A9"}, {"'A9'", "A1, A1', A2, A3, A4, A5, A6, Edelman"});
  expect_error({"permute", "--perm", "transpose", "-n", "2", "-m", "2", "--algorithm", "A4"}, {"--ports all"});
  expect_error({"permute", "--perm", "transpose", "-n", "2", "-m", "2", "--algorithm", "A1", "--fused"}, {"--fused"});
  expect_error({"permute", "--perm", "bit-reversal", "-n", "2", "-m", "3", "--ports", "all", "--algorithm", "Edelman"},
               {"n = m", "n = 2, m = 3"});
  // A6 groups at most 10 cycles and blocks: the transpose of n = m = 11 has 11 blocks.
  expect_error({"permute", "--perm", "transpose", "-n", "11", "-m", "11", "--ports", "all", "--algorithm", "A6"},
               {"at most 10 cycles and blocks", "has 11"});
  // A4 with K too small for its stated complexity: the condition named.
  expect_error({"permute", "--perm", "0,3,4,1,2", "-n", "4", "-m", "1", "--ports", "all", "--algorithm", "A4"},
               {"K >= 2P"});
}

}  // namespace

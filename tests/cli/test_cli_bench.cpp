// hcube bench as a user runs it: the JSON contract of docs/cli.md (op, words,
// bytes_moved, seconds, memcpy_seconds, ratio_to_memcpy, backend), the bytes
// each operation must move, and bad input. No time is asserted: only that the
// figures are consistent with one another.
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <thread>

#include "cli_harness.hpp"
#include "require.hpp"
#include "hcube/emulator/backend.hpp"

namespace {

using namespace hcube::test;

class CliBench : public Cli {};

TEST_F(CliBench, EveryOperationReportsItsBytesAndTheRoofline) {
  const std::uint64_t words = 1u << 12;
  for (const char* op : {"memcpy", "cycle", "alignment", "aapc", "fused-transpose", "fused-bit-reversal",
                         "gather-bit-reversal", "redistribute", "fused-permute"}) {
    SCOPED_TRACE(op);
    // --backend cpu: with a GPU present auto would pick it (CudaRooflineIsACopyKernel covers that).
    const json j = ok_json({"bench", "--op", op, "--log2-words", "12", "--repeat", "3", "--backend", "cpu"});
    for (const char* key : {"op", "words", "bytes_moved", "seconds", "memcpy_seconds", "ratio_to_memcpy", "backend"})
      EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["op"], op);
    EXPECT_EQ(j["words"], words);
    // On the host the roofline is memcpy (the CPU backend's, for every op), and a CPU has no stated bandwidth.
    EXPECT_EQ(j["roofline"], "memcpy");
    EXPECT_EQ(j["backend"], "cpu");
    EXPECT_TRUE(contains(j["device"].get<std::string>(), "host CPU")) << j["device"];
    EXPECT_TRUE(j["spec_bytes_per_second"].is_null());
    EXPECT_TRUE(j["ratio_to_spec"].is_null());
    EXPECT_GT(j["seconds"].get<double>(), 0.0);
    EXPECT_GT(j["memcpy_seconds"].get<double>(), 0.0);
    // The ratio is the two throughputs' quotient, as printed.
    const double ratio = (j["bytes_moved"].get<double>() / j["seconds"].get<double>()) /
                         (2.0 * 4 * words / j["memcpy_seconds"].get<double>());
    EXPECT_NEAR(j["ratio_to_memcpy"].get<double>(), ratio, 1e-9 * ratio);
    // One ratio a timed run, each against the copy taken right after it.
    ASSERT_EQ(j["ratio_to_memcpy_runs"].size(), 3u);
    for (const json& r : j["ratio_to_memcpy_runs"]) EXPECT_GT(r.get<double>(), 0.0);
    const std::string name = op;
    const std::uint64_t all = 2 * 4 * words;  // every word read and written once
    if (name == "redistribute") {
      // R_4(28, 6, 36) by default; every element read and written once, straight to its place.
      EXPECT_EQ(j["P"], 28);
      EXPECT_EQ(j["Q"], 36);
      EXPECT_EQ(j["K"], 6);
      EXPECT_EQ(j["x"], 4);
      EXPECT_TRUE(contains(j["what"].get<std::string>(), "R_4(28, 6, 36)")) << j["what"];
    }
    if (name == "memcpy" || name.rfind("fused", 0) == 0 || name == "redistribute") {
      EXPECT_EQ(j["bytes_moved"], all);
    }
    if (name == "cycle") {
      EXPECT_EQ(j["bytes_moved"], all / 2);  // half of every node's words cross a link
    }
    if (name == "cycle" || name == "aapc") {
      EXPECT_GT(j["check_seconds"].get<double>(), 0.0);  // checked once, apart from the timed runs
    }
    if (name == "aapc") {
      EXPECT_GT(j["bytes_moved"].get<std::uint64_t>(), all);  // alignments and cycles
    }
  }
  const std::string text = ok({"bench", "--op", "fused-bit-reversal", "-w", "10", "--backend", "cpu"});
  EXPECT_TRUE(contains(text, "ratio to memcpy")) << text;
  EXPECT_TRUE(contains(text, "alternated with those runs")) << text;
  EXPECT_TRUE(contains(text, "run by run")) << text;
}

// --op aapc --algorithm edelman-unaligned is timed beside the same table with
// direct addresses; --op fused-permute draws its permutation from --seed.
TEST_F(CliBench, AapcAlgorithmsAndRandomPermutations) {
  const json u = ok_json({"bench", "--op", "aapc", "--algorithm", "edelman-unaligned", "-w", "12", "--repeat", "2",
                          "--backend", "cpu"});
  EXPECT_EQ(u["algorithm"], "edelman-unaligned");
  // Unaligned: the cycles alone, each word read and written once a hop; aligned adds two alignments.
  EXPECT_GT(u["direct_bytes_moved"].get<std::uint64_t>(), u["bytes_moved"].get<std::uint64_t>());
  const double ratio = (u["bytes_moved"].get<double>() / u["seconds"].get<double>()) /
                       (u["direct_bytes_moved"].get<double>() / u["direct_seconds"].get<double>());
  EXPECT_NEAR(u["ratio_to_direct"].get<double>(), ratio, 1e-9 * ratio);
  const json a = ok_json({"bench", "--op", "aapc", "--algorithm", "1", "-w", "8", "--repeat", "1", "--backend", "cpu"});
  EXPECT_EQ(a["algorithm"], "1");
  EXPECT_FALSE(a.contains("ratio_to_direct"));
  EXPECT_TRUE(contains(a["what"].get<std::string>(), "Algorithm 1")) << a["what"];

  const auto to_of = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"bench", "--op", "fused-permute", "-w", "10", "--repeat", "1", "--backend", "cpu"};
    args.insert(args.end(), extra.begin(), extra.end());
    return ok_json(args)["to"].get<std::vector<unsigned>>();
  };
  const std::vector<unsigned> s7 = to_of({"--seed", "7"}), s8 = to_of({"--seed", "8"});
  EXPECT_EQ(s7, to_of({"--seed", "7"}));
  EXPECT_EQ(s7, to_of({"--perm", "random:7"}));
  EXPECT_NE(s7, s8);
  std::vector<unsigned> sorted = s7;
  std::sort(sorted.begin(), sorted.end());
  for (unsigned i = 0; i < 10; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_EQ(to_of({"--perm", "transpose"}), (std::vector<unsigned>{5, 6, 7, 8, 9, 0, 1, 2, 3, 4}));
}

// --op small-cycles: the cost of a cycle where launching is all it costs (the
// GPU target of a replayed graph); --launch is reported as it ran.
TEST_F(CliBench, SmallCyclesAndLaunchModes) {
  for (const std::string launch : {"per-cycle", "persistent"}) {
    const json j = ok_json({"bench", "--op", "small-cycles", "-w", "8", "--repeat", "2", "--backend", "cpu",
                            "--launch", launch});
    EXPECT_EQ(j["launch"], launch);
    EXPECT_EQ(j["cycles"], 1024);
    EXPECT_NEAR(j["seconds_per_cycle"].get<double>(), j["seconds"].get<double>() / 1024, 1e-15);
    // Every cycle one exchange: 2^n words of a node each cross a link, n = 4.
    EXPECT_EQ(j["bytes_moved"], 1024u * 2 * 4 * 16);
    for (const char* key : {"graphs_instantiated", "graphs_updated", "graphs_replayed", "persistent_launches"})
      EXPECT_EQ(j["launch_stats"][key], 0) << key;  // the CPU launches no graphs
    const json a = ok_json({"bench", "--op", "aapc", "-w", "8", "--repeat", "1", "--backend", "cpu", "--launch", launch});
    EXPECT_EQ(a["launch"], launch);
    EXPECT_EQ(a["cycles"], 8);
  }
  EXPECT_TRUE(contains(ok({"bench", "--op", "small-cycles", "-w", "6", "--repeat", "1", "--backend", "cpu"}),
                       "1024 routing cycle(s) a run, launched per-cycle")) ;
  expect_error({"bench", "--op", "aapc", "--launch", "graph"}, {"'graph' unknown", "per-cycle, persistent"});
  expect_error({"sweep", "--launch", "graph"}, {"'graph' unknown", "per-cycle, persistent"});
}

// --op fft: the distributed FFT checked against FFTW's transform and timed against it on the same
// threads, FFTW's plan made outside the timing; the ratio is FFTW's time over hcube's.
TEST_F(CliBench, FftAgainstFftw) {
  for (const char* plan : {"estimate", "measure"}) {
    SCOPED_TRACE(plan);
    const json j = ok_json({"bench", "--op", "fft", "--points-log2", "10", "--nodes-log2", "3", "--fftw-plan", plan,
                            "--repeat", "2", "--backend", "cpu"});
    EXPECT_EQ(j["op"], "fft");
    EXPECT_EQ(j["type"], "complex128");  // the points' type without --type
    EXPECT_EQ(j["points_log2"], 10);
    EXPECT_EQ(j["nodes_log2"], 3);
    EXPECT_EQ(j["n"], 3);
    EXPECT_EQ(j["m"], 7);
    EXPECT_EQ(j["fftw_plan"], plan);
    EXPECT_GE(j["fftw_threads"].get<int>(), 1);
    const double fftw = j["fftw_seconds"], ratio = j["ratio_to_fftw"], error = j["max_relative_error"];
    EXPECT_GT(fftw, 0);
    EXPECT_GT(ratio, 0);
    EXPECT_TRUE(std::isfinite(ratio));
    EXPECT_LT(error, 1e-12);  // checked against FFTW before the timing: a NaN or a wrong point fails the run
    EXPECT_GT(j["bytes_moved"].get<std::uint64_t>(), 0u);
  }
  // The default node count is W / 2.
  EXPECT_EQ(ok_json({"bench", "--op", "fft", "-w", "9", "-r", "1", "--backend", "cpu"})["nodes_log2"], 4);
  expect_error({"bench", "--op", "fft", "-w", "10", "--type", "uint32"}, {"--op fft times complex128", "uint32"});
  expect_error({"bench", "--op", "fft", "-w", "10", "--fftw-plan", "exhaustive"},
               {"--fftw-plan 'exhaustive' unknown", "estimate, measure"});
  expect_error({"bench", "--op", "fft", "-w", "10", "--nodes-log2", "10"}, {"--nodes-log2 10", "allowed 0.."});
}

// hcube tune measures the fused passes' tiles and writes wisdom; plans read it (bench reports the
// tile used, permute still verifies), ignore another CPU's or a broken file saying why, and refuse
// no run for it.
TEST_F(CliBench, TuneWritesWisdomThatPlansRead) {
  const std::string wisdom = path("wisdom.json");
  const json t = ok_json({"tune", "--quick", "--log2-bytes", "20", "--output", wisdom});
  EXPECT_EQ(t["wisdom_path"], wisdom);
  EXPECT_EQ(t["log2_bytes"], 20);
  ASSERT_TRUE(fs::exists(wisdom));
  const json file = json::parse(std::ifstream(wisdom));
  EXPECT_EQ(file["format"], "hcube-wisdom/1");
  EXPECT_EQ(file["cpu"]["model"], t["cpu"]["model"]);
  for (const char* wb : {"4", "8", "16"}) {
    const std::string key = std::string("fused.tile_bytes.") + wb;
    ASSERT_TRUE(file["values"].contains(key)) << key;
    const std::uint64_t v = file["values"][key];
    // The value chosen is one of the candidates timed: the best of them, or the default
    // (128 KiB, 64 KiB for 16-byte words) where none beat it by 5%.
    const std::uint64_t standard = std::string(wb) == "16" ? 65536 : 131072;
    bool tried = false;
    double best = 0, chosen = 0, standard_score = 0;
    for (const json& trial : t["trials"]) {
      if (trial["key"] != key) continue;
      best = std::max(best, trial["score"].get<double>());
      if (trial["value"] == v) tried = true, chosen = trial["score"];
      if (trial["value"] == standard) standard_score = trial["score"];
    }
    EXPECT_TRUE(tried) << key;
    if (v == standard)
      EXPECT_LT(best, 1.05 * standard_score) << key;
    else
      EXPECT_EQ(chosen, best) << key;
  }
  // The alignment's regions are tuned at any size, among their candidates; prefetching and
  // streaming only beyond the caches, which 2^20 bytes is not: those keep their defaults.
  ASSERT_TRUE(file["values"].contains("align.region_bytes"));
  bool region_tried = false;
  for (const json& trial : t["trials"])
    if (trial["key"] == "align.region_bytes") {
      EXPECT_TRUE(trial.contains("alignment_ratio_to_memcpy")) << trial;
      region_tried = region_tried || trial["value"] == file["values"]["align.region_bytes"];
    }
  EXPECT_TRUE(region_tried);
  for (const char* key : {"stream.min_bytes", "fused.prefetch_runs", "cycle.prefetch_rows"})
    EXPECT_FALSE(file["values"].contains(key)) << key;
  struct Env {  // HCUBE_WISDOM for the programs this test starts
    explicit Env(const std::string& v) { ::setenv("HCUBE_WISDOM", v.c_str(), 1); }
    ~Env() { ::unsetenv("HCUBE_WISDOM"); }
  };
  const auto write = [&](const json& j) { std::ofstream(wisdom) << j.dump(); };
  json mine = file;
  mine["values"]["fused.tile_bytes.4"] = 32768;
  write(mine);
  {
    Env env(wisdom);
    const json b = ok_json({"bench", "--op", "fused-transpose", "-w", "12", "-r", "1", "--backend", "cpu"});
    EXPECT_EQ(b["tile_bytes"], 32768);
    EXPECT_EQ(b["wisdom"]["in_use"], true);
    EXPECT_EQ(ok_json({"info"})["wisdom"]["values"]["fused.tile_bytes.4"], 32768);
    // The tuned tiles move the words where the untuned ones do.
    EXPECT_EQ(ok_json({"permute", "--perm", "transpose", "-n", "6", "-m", "6", "--fused", "--backend", "cpu"})["verified"],
              true);
    json other = mine;
    other["cpu"]["model"] = "Another CPU 9000";
    write(other);
    const json o = ok_json({"info"})["wisdom"];
    EXPECT_EQ(o["in_use"], false);
    EXPECT_TRUE(contains(o["why_not"], "made on another CPU (Another CPU 9000")) << o;
    EXPECT_EQ(ok_json({"bench", "--op", "fused-transpose", "-w", "12", "-r", "1", "--backend", "cpu"})["tile_bytes"],
              131072);  // the default
    // The launchers' other settings at their extremes: read, and the words still land right.
    json knobs = mine;
    knobs["values"]["stream.min_bytes"] = 65536;
    knobs["values"]["fused.prefetch_runs"] = 1;
    knobs["values"]["cycle.prefetch_rows"] = 64;
    knobs["values"]["align.region_bytes"] = 4096;
    write(knobs);
    EXPECT_EQ(ok_json({"info"})["wisdom"]["values"], knobs["values"]);
    EXPECT_EQ(ok_json({"aapc", "--dims", "9", "-m", "11", "--backend", "cpu"})["verified"], true);
    EXPECT_EQ(ok_json({"permute", "--perm", "bit-reversal", "-n", "9", "-m", "9", "--fused", "--backend", "cpu"})["verified"],
              true);
    json bad = mine;
    bad["values"]["fused.tile_bytes.4"] = 1000;
    write(bad);
    EXPECT_TRUE(contains(ok_json({"info"})["wisdom"]["why_not"], "allowed a power of two from 4096")) << bad;
    bad = mine;
    bad["values"]["cycle.prefetch_rows"] = 65;
    write(bad);
    EXPECT_TRUE(contains(ok_json({"info"})["wisdom"]["why_not"], "cycle.prefetch_rows = 65: allowed an integer from 1 to 64"))
        << ok_json({"info"})["wisdom"];
    bad = mine;
    bad["values"]["stream.min_bytes"] = 3 << 20;
    write(bad);
    EXPECT_TRUE(contains(ok_json({"info"})["wisdom"]["why_not"], "allowed a power of two from 65536")) << bad;
    std::ofstream(wisdom) << "not json";
    EXPECT_TRUE(contains(ok_json({"info"})["wisdom"]["why_not"], "not a JSON object"));
  }
  expect_error({"tune", "--log2-bytes", "40", "--output", wisdom}, {"log2_bytes = 40 out of range", "16..34"});
  expect_error({"tune", "--output", path("no/such/dir/w.json")}, {"--output", "does not exist"});
}

TEST_F(CliBench, BadInput) {
  expect_error({"bench", "--op", "teleport"}, {"'teleport' unknown", "memcpy, cycle"});
  expect_error({"bench", "--op", "cycle", "--log2-words", "40"}, {"--log2-words 40 out of range", "2..34"});
  expect_error({"bench", "--op", "cycle", "--repeat", "0"}, {"--repeat 0 out of range"});
  expect_error({"bench", "--op", "aapc", "--log2-words", "11"}, {"must be even"});
  expect_error({"bench", "--op", "gather-bit-reversal", "--backend", "cuda"}, {"CPU baseline"});
  expect_error({"bench", "--op", "redistribute", "--P", "0"}, {"P = 0 out of range", "allowed 1.."});
  expect_error({"bench", "--op", "redistribute", "-w", "12", "--x", "3"}, {"N = 4096 is not a multiple", "x = 3"});
  expect_error({"bench", "--op", "redistribute", "-w", "31"}, {"--log2-words 31 out of range", "2..30"});
  expect_error({"bench", "--op", "aapc", "--log2-words", "8", "--compare-single"}, {"--compare-single", "mpirun"});
  expect_error({"bench", "--op", "aapc", "-w", "8", "--algorithm", "5"},
               {"--algorithm '5' unknown", "1, 2, 3, 4, edelman, edelman-unaligned"});
  expect_error({"bench", "--op", "fused-permute", "-w", "8", "--perm", "0,1"}, {"--perm lists 2 bits", "q = n + m = 8"});
  expect_error({"bench", "--op", "fused-permute", "-w", "8", "--perm", "random:x"}, {"random seed"});
}

// --busy-neighbour: the idle run, then the same beside a spinning process
// that hcube started, and ended (reaped: no such process afterwards).
TEST_F(CliBench, BusyNeighbourIsStartedAndEnded) {
  const json j = ok_json({"bench", "--op", "cycle", "--log2-words", "14", "--repeat", "2", "--backend", "cpu",
                          "--busy-neighbour"});
  EXPECT_EQ(j["busy_neighbour"], true);
  EXPECT_GT(j["idle_seconds"].get<double>(), 0.0);
  EXPECT_GT(j["idle_memcpy_seconds"].get<double>(), 0.0);
  EXPECT_NEAR(j["busy_over_idle"].get<double>(), j["seconds"].get<double>() / j["idle_seconds"].get<double>(),
              1e-9 * j["busy_over_idle"].get<double>());
  const int pid = j["neighbour_pid"].get<int>();
  ASSERT_GT(pid, 0);
  errno = 0;
  EXPECT_EQ(::kill(pid, 0), -1) << "the busy neighbour " << pid << " outlived the command";
  EXPECT_EQ(errno, ESRCH);
}

// On a GPU the roofline is a device copy kernel timed with CUDA events, and
// the card's stated bandwidth is reported; without one, a clear error, and
// the test skips (fails under HCUBE_REQUIRE_CUDA=1).
TEST_F(CliBench, CudaRooflineIsACopyKernel) {
  // Whether a device is here is asked of the runtime, apart from the command:
  // with one, the run must succeed; without, it must fail saying so, not otherwise.
  std::string why;
  const bool device = hcube::cuda_device_count(&why) > 0;
  for (const char* op : {"memcpy", "cycle"}) {
    SCOPED_TRACE(op);
    const Result r = run({"bench", "--op", op, "-w", "16", "--backend", "cuda", "--json"});
    if (!device) {
      EXPECT_NE(r.code, 0);
      EXPECT_TRUE(contains(r.err, "hcube: error: backend cuda requested but unavailable")) << r.err;
      continue;
    }
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["backend"], "cuda");
    EXPECT_EQ(j["roofline"], "copy kernel");
    EXPECT_GT(j["memcpy_seconds"].get<double>(), 0.0);
    EXPECT_GT(j["seconds"].get<double>(), 0.0);
  }
  if (!device) HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_CUDA", "no CUDA roofline here: " << why);
}


namespace {

using namespace hcube::test;

class CliSweep : public Cli {};

// hcube sweep: every (d, algorithm) runs, is verified against the transpose and
// reports Algorithm 4's 2^(d-1) cycles; the CSV holds the same rows.
TEST_F(CliSweep, RowsCsvAndJsonAgree) {
  const json j = ok_json({"sweep", "--dims-from", "2", "--dims-to", "4", "--algorithms", "1,4,edelman-unaligned",
                          "--csv", path("s.csv").string()});
  ASSERT_EQ(j["rows"].size(), 9u);
  EXPECT_EQ(j["launch"], "per-cycle");
  for (const json& row : j["rows"]) {
    EXPECT_EQ(row["verified"], true) << row;
    EXPECT_GT(row["seconds"].get<double>(), 0.0);
    EXPECT_EQ(row["words"], 1u << (2 * row["d"].get<unsigned>()));
    if (row["algorithm"] == "4") {
      EXPECT_EQ(row["cycles"], 1u << (row["d"].get<unsigned>() - 1));
    }
    const double seconds = row["seconds"].get<double>(), cycles = row["cycles"].get<double>();
    EXPECT_GT(row["element_hops"].get<double>(), 0.0) << row;
    EXPECT_DOUBLE_EQ(row["seconds_per_cycle"].get<double>(), seconds / cycles) << row;
    EXPECT_DOUBLE_EQ(row["cycles_per_second"].get<double>(), cycles / seconds) << row;
    EXPECT_DOUBLE_EQ(row["element_hops_per_second"].get<double>(), row["element_hops"].get<double>() / seconds) << row;
    EXPECT_EQ(row["memcpy_bytes"], 4 * row["words"].get<std::uint64_t>()) << row;  // u32, far below the cap
  }
  std::ifstream csv(path("s.csv"));
  std::string header;
  std::getline(csv, header);
  // The first fifteen columns are a contract; the new ones follow them.
  EXPECT_EQ(header,
            "d,algorithm,words,cycles,seconds,bytes_moved,throughput_gb_per_s,memcpy_seconds,ratio_to_memcpy,verified,"
            "backend,device,version,type,repeat,element_hops,seconds_per_cycle,cycles_per_second,"
            "element_hops_per_second,memcpy_bytes,launch");
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  EXPECT_EQ(lines, 9);
  const std::string table = ok({"sweep", "--dims-from", "3", "--dims-to", "3"});
  EXPECT_TRUE(contains(table, "edelman")) << table;
}

TEST_F(CliSweep, PlotWithGnuplot) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "gnuplot is not installed (apt-get install gnuplot-nox): the plot is not drawn here";
  for (const char* name : {"s.svg", "s.png"}) {
    ok({"sweep", "--dims-from", "2", "--dims-to", "4", "--plot", path(name).string()});
    ASSERT_TRUE(std::filesystem::exists(path(name))) << name;
    EXPECT_GT(std::filesystem::file_size(path(name)), 1000u) << name;
  }
  std::ifstream svg(path("s.svg"));
  const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(text, "<svg")) << text.substr(0, 200);
  EXPECT_TRUE(contains(text, "Algorithm 4"));
}

// --dims-to max: the largest d whose machine and copies fit (HCUBE_MEMORY_LIMIT
// stands in for a device's memory: 1 MiB holds d = 8 u32 with its two copies).
TEST_F(CliSweep, DimsToMaxAndRangesThatDoNotFit) {
  ::setenv("HCUBE_MEMORY_LIMIT", "1M", 1);
  const json j = ok_json({"sweep", "--dims-from", "7", "--dims-to", "max", "--algorithms", "4", "--repeat", "1",
                          "--backend", "cpu"});
  expect_error({"sweep", "--dims-from", "2", "--dims-to", "12", "--algorithms", "4", "--backend", "cpu"},
               {"d = 9 needs 3.0 MiB", "1.0 MiB available", "the largest d that fits is 8"});
  expect_error({"sweep", "--dims-from", "9", "--dims-to", "max", "--backend", "cpu"},
               {"--dims-from 9 is above the largest d that fits, 8"});
  ::unsetenv("HCUBE_MEMORY_LIMIT");
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][1]["d"], 8);
}

// --from: earlier --json outputs (one per launch mode) re-reported and
// re-plotted without running, one series per file.
TEST_F(CliSweep, FromSavedJson) {
  for (const char* launch : {"per-cycle", "persistent"}) {
    const std::string out = ok({"sweep", "--dims-from", "2", "--dims-to", "3", "--algorithms", "1,4", "--repeat", "1",
                                "--backend", "cpu", "--launch", launch, "--json"});
    std::ofstream(path(std::string(launch) + ".json")) << out;
  }
  const json one = ok_json({"sweep", "--from", path("persistent.json").string()});
  EXPECT_EQ(one["launch"], "persistent");
  EXPECT_EQ(one["rows"].size(), 4u);
  const json saved = json::parse(std::ifstream(path("persistent.json")));
  EXPECT_EQ(one["rows"], saved["rows"]);
  ok({"sweep", "--from", path("per-cycle.json").string(), "--from", path("persistent.json").string(), "--csv",
      path("both.csv").string()});
  std::ifstream csv(path("both.csv"));
  int lines = 0, persistent = 0;
  for (std::string line; std::getline(csv, line); ++lines) persistent += contains(line, ",persistent") ? 1 : 0;
  EXPECT_EQ(lines, 9);
  EXPECT_EQ(persistent, 4);
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) {
    ok({"sweep", "--from", path("per-cycle.json").string(), "--from", path("persistent.json").string(), "--plot",
        path("both.svg").string()});
    std::ifstream svg(path("both.svg"));
    const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
    EXPECT_TRUE(contains(text, "Algorithm 4, persistent")) << text.substr(0, 200);
    EXPECT_TRUE(contains(text, "Algorithm 1, per-cycle"));
  }
  std::ofstream(path("not.json")) << "{ nope";
  std::ofstream(path("bench.json")) << R"({"command": "bench"})";
  std::ofstream(path("norows.json")) << R"({"command": "sweep", "backend": "cpu", "device": "x", "type": "uint32",
    "repeat": 1, "rows": []})";
  std::ofstream(path("badrow.json")) << R"({"command": "sweep", "backend": "cpu", "device": "x", "type": "uint32",
    "repeat": 1, "rows": [{"d": 2, "algorithm": "4"}]})";
  expect_error({"sweep", "--from", path("missing.json").string()}, {"missing.json", "cannot be read"});
  expect_error({"sweep", "--from", path("not.json").string()}, {"not.json", "not JSON"});
  expect_error({"sweep", "--from", path("bench.json").string()}, {"bench.json", "not the JSON of hcube sweep"});
  expect_error({"sweep", "--from", path("norows.json").string()}, {"norows.json", "\"rows\""});
  expect_error({"sweep", "--from", path("badrow.json").string()}, {"badrow.json", "row 0", "words"});
  // --from runs nothing: a flag that shapes a run is refused beside it, not ignored.
  expect_error({"sweep", "--from", path("missing.json").string(), "--dims-to", "5"}, {"--from", "--dims-to"});
  expect_error({"sweep", "--from", path("missing.json").string(), "--backend", "cpu"}, {"--from", "--backend"});
}

TEST_F(CliSweep, BadInput) {
  expect_error({"sweep", "--dims-from", "5", "--dims-to", "3"}, {"--dims-from 5 --dims-to 3 out of range"});
  expect_error({"sweep", "--dims-from", "5", "--dims-to", "21"}, {"allowed 1 <= from <= to <= 20"});
  expect_error({"sweep", "--dims-to", "big"}, {"--dims-to 'big'", "or max"});
  expect_error({"sweep", "--dims-from", "2", "--dims-to", "3", "--algorithms", "1,7"}, {"'7' unknown"});
  expect_error({"sweep", "--dims-from", "2", "--dims-to", "3", "--plot", path("x.pdf").string()},
               {"must end in .svg or .png"});
}

}  // namespace

// The memory targets (docs/performance.md): an AAPC runs in place (peak at most 1.1x the
// data), a fused permutation needs one scratch copy (at most 2.1x). Measured
// as the growth of the child's peak resident memory over a run on a tiny
// cube, so the program's own code and libraries do not count as data.
class CliMemory : public Cli {
 protected:
  // Peak KiB of a successful run.
  long peak(const Args& args) const {
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.peak_kib;
  }
};

TEST_F(CliMemory, AapcRunsInPlaceAndTheFusedPassNeedsOneScratchCopy) {
  if (instrumented()) GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make resident sizes meaningless";
  const double data_kib = static_cast<double>((std::uint64_t{1} << 24) * 4 / 1024);  // 2^24 u32 words
  // On the host: with a GPU the data would live in device memory, outside the resident size.
  const long base = peak({"aapc", "--dims", "4", "--backend", "cpu"});
  const long aapc = peak({"aapc", "--dims", "12", "--backend", "cpu"});
  EXPECT_LE(static_cast<double>(aapc - base), 1.1 * data_kib) << "aapc peak " << aapc << " KiB, baseline " << base;
  const long fused_base = peak({"permute", "--perm", "bit-reversal", "-n", "2", "-m", "2", "--fused", "--backend", "cpu"});
  const long fused = peak({"permute", "--perm", "bit-reversal", "-n", "12", "-m", "12", "--fused", "--backend", "cpu"});
  EXPECT_LE(static_cast<double>(fused - fused_base), 2.1 * data_kib)
      << "fused peak " << fused << " KiB, baseline " << fused_base;
  // And the data is really there: the runs are not measured on an empty machine.
  EXPECT_GE(static_cast<double>(aapc - base), 0.9 * data_kib);
  EXPECT_GE(static_cast<double>(fused - fused_base), 1.9 * data_kib);
}

// --input and --output stream through the machine in pieces, and the input
// file stays the reference: aapc, permute and cycle stay within 1.2x the data.
// A pipe too (aapc): it is loaded a chunk at a time as it arrives (it peaked
// at 3.1x, read whole) and checked by its fingerprint, writing the same output.
TEST_F(CliMemory, InputAndOutputStreamThroughTheMachine) {
  if (instrumented()) GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make resident sizes meaningless";
  const double data_kib = static_cast<double>((std::uint64_t{1} << 24) * 4 / 1024);  // 2^24 u32 words
  const std::string in = path("in.npy").string(), out = path("out.npy").string();
  ok({"aapc", "--dims", "12", "--backend", "cpu", "-o", in});
  const long base = peak({"aapc", "--dims", "4", "--backend", "cpu"});
  for (const Args& args : {Args{"aapc", "--dims", "12"}, Args{"permute", "--perm", "bit-reversal"},
                           Args{"cycle", "-n", "12", "-m", "12", "--cycle", "0:1,1:2"}}) {
    Args full = args;
    for (const char* a : {"--backend", "cpu", "-i", in.c_str(), "-o", out.c_str()}) full.push_back(a);
    const long p = peak(full);
    SCOPED_TRACE(::testing::PrintToString(full));
    EXPECT_LE(static_cast<double>(p - base), 1.2 * data_kib) << "peak " << p << " KiB, baseline " << base;
    EXPECT_GE(static_cast<double>(p - base), 0.9 * data_kib) << "the machine holds the data";
    EXPECT_EQ(fs::file_size(out), fs::file_size(in));
    if (args[0] != "aapc") continue;  // one stream is enough for the memory; DimsComeFromAPipesShape checks the others
    fs::copy_file(out, path("from_file.npy"), fs::copy_options::overwrite_existing);
    Args piped = args;
    for (const char* a : {"--backend", "cpu", "-i", "/dev/stdin", "-o", out.c_str(), "--json"}) piped.push_back(a);
    const Result r = run_piped(piped, "", in);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "\"verified_by\": \"fingerprint\"")) << r.out;
    EXPECT_LE(static_cast<double>(r.peak_kib - base), 1.2 * data_kib) << "piped: peak " << r.peak_kib << " KiB";
    EXPECT_TRUE(same_files(out, path("from_file.npy"))) << "the pipe's run wrote another result than the file's";
  }
}

// hcube fft holds the machine and its scratch while it runs, then the machine
// and FFTW's reference, made in place over the points read again: 2x the data.
// Each thread adds a few MiB of its own (FFTW's threaded plans, the chunks'
// buffers: 2.5-4 MiB measured at 1..16 threads), none of it the data's: the
// children run 2 threads, so that the bound is the data's on any host.
TEST_F(CliMemory, FftHoldsTwoCopiesOfItsPoints) {
  if (instrumented()) GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make resident sizes meaningless";
  struct TwoThreads {
    std::string before = std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "";
    bool had = std::getenv("OMP_NUM_THREADS") != nullptr;
    TwoThreads() { setenv("OMP_NUM_THREADS", "2", 1); }
    ~TwoThreads() { had ? setenv("OMP_NUM_THREADS", before.c_str(), 1) : unsetenv("OMP_NUM_THREADS"); }
  } two_threads;
  const double data_kib = static_cast<double>((std::uint64_t{1} << 22) * 16 / 1024);  // 2^22 complex128 points
  const std::string out = path("x.npy").string();
  const long base = peak({"fft", "-P", "4", "-n", "2", "--backend", "cpu"});
  for (const Args& args : {Args{"fft", "-P", "22", "-n", "11", "--backend", "cpu", "-o", out},
                           Args{"fft", "-P", "22", "-n", "11", "--backend", "cpu", "-i", out, "--inverse"}}) {
    const long p = peak(args);
    SCOPED_TRACE(::testing::PrintToString(args));
    // 2x, FFTW's plans and 4 MiB a thread; the scratch and the points never meet.
    EXPECT_LE(static_cast<double>(p - base), 2.1 * data_kib + 2 * 4096) << "peak " << p << " KiB, baseline " << base;
    EXPECT_GE(static_cast<double>(p - base), 1.9 * data_kib);
  }
}

// hcube redistribute holds its source and destination regions (different
// memories: the array twice), a plan of one superblock and the I/O's fixed
// buffers (the input file's 4 MiB window cache, 1-5 MiB of chunks): within 2x
// the data and those. It held 9x the array with a table entry a block, then
// 4.4x with the machine's padding to 2^n x 2^m resident (R_4(3, 2, 5), where
// the padding is untouched now).
TEST_F(CliMemory, RedistributeHoldsTheMachineAndOneRegion) {
  if (instrumented()) GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make resident sizes meaningless";
  const std::uint64_t N = std::uint64_t{1} << 23;
  const double data_kib = static_cast<double>(N * 4 / 1024);  // N u32 elements
  const double fixed_kib = 6 * 1024;
  const std::string out = path("rows.npy").string(), in = path("array.npy").string();
  {  // written a piece at a time: a spawned child's peak starts from this process's (Result::peak_kib)
    hcube::NpyWriter file(in, hcube::ElementType::u32, {N});
    std::vector<std::uint32_t> piece(1 << 16);
    for (std::uint64_t g0 = 0; g0 < N; g0 += piece.size()) {
      for (std::size_t k = 0; k < piece.size(); ++k) piece[k] = static_cast<std::uint32_t>((g0 + k) * 2654435761u);
      file.write(piece.data(), piece.size() * 4);
    }
    file.commit();
  }
  const long base = peak({"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "--N", "16", "--backend",
                          "cpu"});
  const std::string n_text = std::to_string(N);
  for (const Args& args :
       {Args{"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "--N", n_text, "--backend", "cpu"},
        Args{"redistribute", "--P", "3", "--Q", "5", "--K", "2", "--x", "4", "--N", std::to_string(N / 120 * 120),
             "--backend", "cpu"},
        Args{"redistribute", "--P", "4", "--Q", "4", "--K", "2", "--x", "8", "--N", n_text, "--overlap",
             "--backend", "cpu", "-o", out},
        Args{"redistribute", "--P", "4", "--Q", "4", "--K", "2", "--x", "8", "--backend", "cpu", "-i", in,
             "--reverse", "--overlap", "-o", out}}) {
    const long p = peak(args);
    SCOPED_TRACE(::testing::PrintToString(args));
    EXPECT_LE(static_cast<double>(p - base), 2 * data_kib + fixed_kib) << "peak " << p << " KiB, baseline " << base;
    // The child's own peak holds the array twice (the baseline can start from this process's peak).
    EXPECT_GE(static_cast<double>(p), 1.9 * data_kib) << "the regions hold the array twice";
  }
  // From a pipe: loaded as it arrives, nothing but the machine holding it, and the same rows written.
  fs::copy_file(out, path("from_file.npy"), fs::copy_options::overwrite_existing);
  const Result r = run_piped({"redistribute", "--P", "4", "--Q", "4", "--K", "2", "--x", "8", "--backend", "cpu", "-i",
                              "/dev/stdin", "--reverse", "--overlap", "-o", out, "--json"},
                             "", in);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"verified_by\": \"fingerprint\"")) << r.out;
  EXPECT_LE(static_cast<double>(r.peak_kib - base), 2 * data_kib + fixed_kib) << "piped: peak " << r.peak_kib;
  EXPECT_TRUE(same_files(out, path("from_file.npy")));
}

// A FIFO output takes the words in order, yet is streamed too: a tile at a
// time, not a host copy of the data (which held -o FIFO at 2x).
TEST_F(CliMemory, FifoOutputStreamsInOrder) {
  if (instrumented()) GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make resident sizes meaningless";
  const double data_kib = static_cast<double>((std::uint64_t{1} << 24) * 4 / 1024);  // 2^24 u32 words
  const std::string in = path("in.npy").string(), out = path("out.npy").string(), fifo = path("out.fifo").string();
  ok({"aapc", "--dims", "12", "--backend", "cpu", "-o", in});
  const Args run_args{"cycle", "-n", "12", "-m", "12", "--cycle", "0:1,1:2", "--backend", "cpu", "-i", in};
  Args to_file = run_args, to_fifo = run_args;
  to_file.insert(to_file.end(), {"-o", out});
  to_fifo.insert(to_fifo.end(), {"-o", fifo});
  ok(to_file);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  // Opened for reading and writing, the FIFO has a reader before hcube opens it and never reads as ended:
  // the reader takes exactly the file's length, comparing as it goes. Nothing large is held here:
  // a spawned child's peak starts from this process's.
  const int fd = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  const std::uint64_t expected = fs::file_size(out);
  std::uint64_t used = 0;
  bool same = true;
  std::thread reader([&] {
    std::ifstream want(out, std::ios::binary);
    std::vector<char> got(1 << 16), ref(1 << 16);
    while (used < expected) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 60000) <= 0) return;  // hcube failed or stalled: the checks below say so
      const auto ask = static_cast<std::size_t>(std::min<std::uint64_t>(got.size(), expected - used));
      const ssize_t n = ::read(fd, got.data(), ask);
      if (n <= 0) return;
      want.read(ref.data(), n);
      same = same && std::equal(got.begin(), got.begin() + n, ref.begin());
      used += static_cast<std::uint64_t>(n);
    }
  });
  const long base = peak({"aapc", "--dims", "4", "--backend", "cpu"});
  const long p = peak(to_fifo);
  reader.join();
  ::close(fd);
  EXPECT_EQ(used, expected);
  EXPECT_TRUE(same) << "the FIFO received other bytes than the file";
  EXPECT_LE(static_cast<double>(p - base), 1.2 * data_kib) << "peak " << p << " KiB, baseline " << base;
  EXPECT_GE(static_cast<double>(p - base), 0.9 * data_kib) << "the machine holds the data";
  EXPECT_TRUE(fs::is_fifo(fifo));
}

// hcube run of a saved schedule costs what the command that made it costs:
// within 1.5x of its memory and of its wall time, the fastest of three runs of
// each taken alternately (a noisy machine slows single runs, not all three).
TEST_F(CliMemory, RunOfASavedScheduleCostsWhatItsMakerCosts) {
  if (instrumented()) GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make resident sizes meaningless";
  const std::string saved = path("s.json").string();
  const Args maker{"multi-aapc", "-s", "2", "-d", "5", "-m", "10", "-a", "5", "--backend", "cpu"};
  Args save = maker;
  save.push_back("--save-schedule");
  save.push_back(saved);
  ok(save);
  const auto timed = [&](const Args& args, long& kib) {
    const auto start = std::chrono::steady_clock::now();
    kib = peak(args);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const long base = peak({"aapc", "--dims", "2", "--backend", "cpu"});
  long made = 0, ran = 0;
  double made_s = 1e9, ran_s = 1e9;
  for (int i = 0; i < 3; ++i) {  // the fastest of three of each, taken alternately
    made_s = std::min(made_s, timed(maker, made));
    ran_s = std::min(ran_s, timed({"run", "--schedule", saved, "--backend", "cpu"}, ran));
  }
  // Plus 2 MiB: the parsed file (150 KB of JSON as a DOM), which the maker
  // never holds; since the labels are made and checked on the backend
  // neither command holds a 2 MiB host chunk of them any more to hide it.
  EXPECT_LE(static_cast<double>(ran - base), 1.5 * static_cast<double>(made - base) + 2048)
      << "run " << ran << " KiB, maker " << made << " KiB, baseline " << base;
  EXPECT_LE(ran_s, 1.5 * made_s) << "run " << ran_s << " s, maker " << made_s << " s";
}

}  // namespace

// The CPU roofline copies memory that is really there: a never-written source
// reads as the kernel's shared zero page, which stays in cache and made memcpy
// measure 1.6 times faster than a copy of data. Both buffers must be resident.
TEST_F(CliMemory, TheMemcpyRooflineCopiesResidentMemory) {
  if (instrumented()) GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make resident sizes meaningless";
  const double data_kib = static_cast<double>((std::uint64_t{1} << 24) * 4 / 1024);  // 2^24 u32 words
  const long base = peak({"bench", "--op", "memcpy", "-w", "10", "--repeat", "1", "--backend", "cpu"});
  const long copy = peak({"bench", "--op", "memcpy", "-w", "24", "--repeat", "1", "--backend", "cpu"});
  EXPECT_GE(static_cast<double>(copy - base), 1.9 * data_kib) << "memcpy peak " << copy << " KiB, baseline " << base;
  EXPECT_LE(static_cast<double>(copy - base), 2.1 * data_kib) << "memcpy peak " << copy << " KiB, baseline " << base;
}

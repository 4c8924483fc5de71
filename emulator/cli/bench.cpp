// hcube bench: one data-motion operation timed against the memory roofline
// measured in the same process (memcpy of the same data), as a ratio of
// throughputs: --repeat runs of each, alternated, after one warm-up run of
// each; the medians.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <unistd.h>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/app/distributed.hpp"
#include "hcube/app/plot.hpp"
#include "hcube/app/ranks.hpp"
#include "hcube/app/sweep_file.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/measure.hpp"
#include "hcube/emulator/wisdom.hpp"
#include "hcube/version.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/emulator/units.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/edelman.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/core/error.hpp"

namespace hcube::cli {
namespace {

struct BenchFlags {
  std::string op;
  long long log2_words = 24;
  long long repeat = 5;
  MachineFlags machine;
  bool json = false;
  bool compare_single = false;
  bool busy_neighbour = false;
  long long P = 28, Q = 36, K = 6, x = 4;  // --op redistribute
  std::string algorithm = "4";              // --op aapc
  std::string perm = "random";              // --op fused-permute
  unsigned long long seed = 1;
  long long nodes_log2 = -1;                // --op fft
  std::string fftw_plan = "estimate";
};

// --type, else the operation's own (complex128 points for --op fft, else uint32).
ElementType bench_type(const MachineFlags& f, ElementType otherwise = ElementType::u32) {
  return f.type.empty() ? otherwise : parse_element_type(f.type);
}

}  // namespace

namespace {

BenchRequest bench_request(const BenchFlags& f) {
  return BenchRequest{parse_bench_op(f.op),
                      f.log2_words,
                      f.repeat,
                      bench_type(f.machine, f.op == "fft" ? ElementType::c128 : ElementType::u32),
                      parse_backend_choice(f.machine.backend),
                      tile_dims(f.machine.tile_dims),
                      parse_launch_mode(f.machine.launch),
                      f.P,
                      f.Q,
                      f.K,
                      f.x,
                      f.algorithm,
                      f.perm,
                      f.seed,
                      f.nodes_log2,
                      f.fftw_plan};
}

void print_bench(const BenchFlags& f) {
  if (distributed()) {
    if (f.busy_neighbour)
      throw Error("--busy-neighbour measures one process beside a busy one: run it without mpirun");
    run_bench_across_ranks(bench_request(f), f.compare_single, f.json);
    return;
  }
  if (f.compare_single)
    throw Error("--compare-single compares a run across MPI ranks with one process: run under mpirun -np 2^r");
  // With --busy-neighbour: the idle run first, then the same beside a spinning process.
  std::optional<BenchResult> idle;
  std::unique_ptr<BusyNeighbour> neighbour;
  if (f.busy_neighbour) {
    idle = run_bench(bench_request(f));
    neighbour = std::make_unique<BusyNeighbour>();
  }
  const BenchResult r = run_bench(bench_request(f));
  const int neighbour_pid = neighbour ? neighbour->pid() : 0;
  neighbour.reset();
  if (f.json) {
    nlohmann::json j = bench_json(r);
    if (idle) {
      j["busy_neighbour"] = true;
      j["neighbour_pid"] = neighbour_pid;
      j["idle_seconds"] = idle->time.seconds;
      j["idle_memcpy_seconds"] = idle->time.roofline_seconds;
      j["idle_ratio_to_memcpy"] = idle->ratio();
      j["busy_over_idle"] = r.time.seconds / idle->time.seconds;
    }
    std::cout << j.dump(2) << "\n";
    return;
  }
  fmt::print("{}", bench_text(r, idle ? &*idle : nullptr));
}

struct SweepFlags {
  long long from = 4;
  std::string to = "10";
  std::string algorithms = "1,2,3,4,edelman";
  std::string csv, plot;
  std::vector<std::string> from_files;
  long long repeat = 3;
  MachineFlags machine;
  bool json = false;
};

std::vector<std::string> sweep_algorithms(const SweepFlags& f) {
  std::vector<std::string> algorithms;
  for (std::size_t start = 0; start <= f.algorithms.size();) {
    const std::size_t comma = std::min(f.algorithms.find(',', start), f.algorithms.size());
    algorithms.push_back(f.algorithms.substr(start, comma - start));
    start = comma + 1;
  }
  return algorithms;
}

// The sweeps to report: run now, or (--from) read from earlier --json files, which runs nothing.
std::vector<SweepResult> sweeps_of(const SweepFlags& f) {
  std::vector<SweepResult> sweeps;
  for (const std::string& file : f.from_files) sweeps.push_back(load_sweep_json(file));
  if (!sweeps.empty()) return sweeps;
  const SweepRequest request{f.from, parse_sweep_to(f.to), sweep_algorithms(f), f.repeat, bench_type(f.machine),
                             parse_backend_choice(f.machine.backend), tile_dims(f.machine.tile_dims),
                             parse_launch_mode(f.machine.launch)};
  check_sweep(request);
  if (!f.plot.empty()) check_plot_target(f.plot);  // before anything runs
  ProgressBar bar(!f.json && f.csv != "-" && ::isatty(2) == 1, "sweep", "runs");
  sweeps.push_back(run_sweep(request, [&](std::size_t done, std::size_t total, const std::string& note) {
    bar.draw(done, total, note);
  }));
  return sweeps;
}

void add_sweep_command(CLI::App& app) {
  auto f = std::make_shared<SweepFlags>();
  auto* cmd = app.add_subcommand(
      "sweep", "AAPC throughput and cycles over a range of cube dimensions (n = m = d), with memcpy as the roofline; CSV, "
               "JSON and a plot");
  cmd->add_option("--dims-from", f->from, "the smallest d")->capture_default_str();
  cmd->add_option("--dims-to", f->to, "the largest d (2^(2d) words), or max: the largest that fits the backend")
      ->capture_default_str();
  cmd->add_option("--algorithms", f->algorithms, "comma-separated: 1, 2, 3, 4, edelman, edelman-unaligned")
      ->capture_default_str();
  cmd->add_option("-r,--repeat", f->repeat, "timed runs per point, each followed by a roofline copy; the medians")
      ->capture_default_str();
  output_flag(cmd->add_option("--csv", f->csv, "write the rows as CSV to this file (- for standard output)"), true);
  output_flag(cmd->add_option("--plot", f->plot,
                              "draw the ratio to memcpy, the cycles and the time per cycle vs d into this .svg or .png "
                              "(needs gnuplot)"));
  auto* from = cmd->add_option("--from", f->from_files,
                               "run nothing: report the rows of this earlier --json output (repeatable: one series per "
                               "file)");
  add_backend_flags(*cmd, f->machine);
  add_launch_flag(*cmd, f->machine.launch);
  // A flag that shapes a run is refused beside --from, which runs nothing, rather than ignored.
  for (const char* run_flag : {"--dims-from", "--dims-to", "--algorithms", "--repeat", "--type", "--backend",
                               "--tile-dims", "--launch"})
    from->excludes(cmd->get_option(run_flag));
  cmd->add_flag("--json", f->json, "print one JSON object instead of the table");
  cmd->callback([f] {
    if (!f->from_files.empty() && !f->plot.empty()) check_plot_target(f->plot);
    const std::vector<SweepResult> sweeps = sweeps_of(*f);
    const std::string csv = sweep_csv(sweeps);
    if (f->csv == "-") {
      std::cout << csv;
    } else if (!f->csv.empty()) {
      write_text_atomically(f->csv, csv, f->csv);
    }
    if (!f->plot.empty()) plot_sweep(f->plot, sweeps);
    if (f->json) {
      // One file in, or a run: its object; several files: a list of them.
      nlohmann::json j = sweeps.size() == 1 ? sweep_json(sweeps[0]) : nlohmann::json::array();
      for (std::size_t k = 0; sweeps.size() > 1 && k < sweeps.size(); ++k) j.push_back(sweep_json(sweeps[k]));
      if (!f->csv.empty() && f->csv != "-" && j.is_object()) j["csv"] = f->csv;
      if (!f->plot.empty() && j.is_object()) j["plot"] = f->plot;
      std::cout << j.dump(2) << "\n";
      return;
    }
    if (f->csv == "-") return;
    fmt::print("{:>3} {:<18} {:<10} {:>14} {:>8} {:>12} {:>12} {:>10} {:>8}  {}\n", "d", "algorithm", "launch", "words",
               "cycles", "seconds", "s/cycle", "GB/s", "memcpy", "verified");
    for (const SweepResult& s : sweeps)
      for (const SweepRow& r : s.rows)
        fmt::print("{:>3} {:<18} {:<10} {:>14} {:>8} {:>12.6f} {:>12.3e} {:>10.3f} {:>7.0f}%  {}\n", r.d, r.algorithm,
                   to_string(s.request.launch), r.words, r.cycles, r.seconds, r.seconds_per_cycle(),
                   r.throughput() / 1e9, 100 * r.ratio(), r.verified ? "yes" : "no");
    if (!f->csv.empty()) fmt::print("CSV: {}\n", f->csv);
    if (!f->plot.empty()) fmt::print("plot: {}\n", f->plot);
  });
}

}  // namespace

void add_sweep(CLI::App& app) { add_sweep_command(app); }

void add_bench(CLI::App& app) {
  auto f = std::make_shared<BenchFlags>();
  auto* cmd = app.add_subcommand(
      "bench", "time one data-motion operation against memcpy of the same data in the same process (docs/performance.md)");
  cmd->add_option("--op", f->op, fmt::format("the operation: {}", fmt::join(bench_op_names(), ", ")))->required();
  cmd->add_option("-w,--log2-words,--points-log2", f->log2_words,
                  "2^W words of data (n = W/2 processor dimensions); --op fft: 2^W points")
      ->capture_default_str();
  cmd->add_option("-r,--repeat", f->repeat,
                  "timed runs after one warm-up, each followed by a copy of the roofline; the medians are reported")
      ->capture_default_str();
  add_backend_flags(*cmd, f->machine);
  add_launch_flag(*cmd, f->machine.launch);
  cmd->add_flag("--json", f->json, "print one JSON object instead of prose");
  cmd->add_flag("--compare-single", f->compare_single,
                "under mpirun: also time the same operation on one process holding the whole cube (rank 0, all "
                "cores, the other ranks idle)");
  cmd->add_option("--P", f->P, "--op redistribute: source processors")->capture_default_str();
  cmd->add_option("--Q", f->Q, "--op redistribute: destination processors")->capture_default_str();
  cmd->add_option("--K", f->K, "--op redistribute: the destination block is K times the source block")
      ->capture_default_str();
  cmd->add_option("--x", f->x, "--op redistribute: the source block, elements (N = 2^W elements)")->capture_default_str();
  cmd->add_option("--algorithm", f->algorithm,
                  "--op aapc: 1, 2, 3, 4, edelman or edelman-unaligned (timed also against the aligned table)")
      ->capture_default_str();
  cmd->add_option("--perm", f->perm, "--op fused-permute: as hcube permute --perm, or random (drawn from --seed)")
      ->capture_default_str();
  cmd->add_option("--seed", f->seed, "--op fused-permute --perm random: the seed")->capture_default_str();
  cmd->add_option("--nodes-log2", f->nodes_log2, "--op fft: 2^n nodes (default W/2)");
  cmd->add_option("--fftw-plan", f->fftw_plan, "--op fft: FFTW's planner for the baseline, estimate or measure")
      ->capture_default_str();
  cmd->add_flag("--busy-neighbour", f->busy_neighbour,
                "time the operation idle, then again beside a CPU-bound process that hcube starts and ends itself "
                "(a shared machine's load, reproduced)");
  cmd->callback([f] { print_bench(*f); });
}

}  // namespace hcube::cli

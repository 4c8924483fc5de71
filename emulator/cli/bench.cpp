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
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/emulator/units.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/edelman.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/host/bits.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/error.hpp"

namespace hcube::cli {
namespace {

struct BenchFlags {
  std::string op;
  long long log2_words = 24;
  long long repeat = 5;
  MachineFlags machine;
  bool json = false;
};

const std::vector<std::string>& ops() {
  static const std::vector<std::string> names = {"memcpy",          "cycle",
                                                 "alignment",       "aapc",
                                                 "fused-transpose", "fused-bit-reversal",
                                                 "gather-bit-reversal"};
  return names;
}

using Clock = std::chrono::steady_clock;

double seconds_of(const std::function<void()>& f) {
  const auto start = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The roofline is Backend::copy_timer of the backend the data lives on: memcpy
// of buffers allocated like the data (huge pages on the CPU), or a device copy
// kernel timed with CUDA events on the GPU (not memcpy across the bus).
bool on_gpu(const Backend& backend) { return backend.kind() == BackendKind::cuda; }

// The two medians of `repeat` runs of an operation alternated with `repeat`
// roofline copies: on a shared machine the memory's speed drifts by tens of
// percent within seconds, and alternation lets both medians see the same drift.
struct Alternated {
  double seconds = 0, roofline_seconds = 0;
  std::vector<std::pair<double, double>> runs;  // (operation, roofline) seconds, in the order taken
};

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// One untimed warm-up of each first (first touch of every page, caches and
// tables filled) unless the caller has run the operation already.
Alternated alternate(long long repeat, const std::function<double()>& op, const std::function<double()>& roofline,
                     bool warm_up_op = true) {
  if (warm_up_op) op();
  roofline();
  Alternated a;
  std::vector<double> ops, copies;
  for (long long r = 0; r < repeat; ++r) {
    a.runs.emplace_back(op(), roofline());
    ops.push_back(a.runs.back().first);
    copies.push_back(a.runs.back().second);
  }
  a.seconds = median(ops);
  a.roofline_seconds = median(copies);
  return a;
}

// The operation's throughput (bytes it read and wrote over its time) over
// memcpy's (the data read and written once over memcpy's time).
double ratio_to_memcpy(std::uint64_t bytes_moved, double seconds, std::uint64_t data_bytes, double memcpy_time) {
  return (static_cast<double>(bytes_moved) / seconds) / (2.0 * static_cast<double>(data_bytes) / memcpy_time);
}

struct Measurement {
  std::uint64_t bytes_moved = 0;  // read + written by one run
  Alternated time;
  double check_seconds = 0;       // the host's checks of a cycle or schedule, made once before the timed runs
  std::string what;
};

Measurement measure(const BenchFlags& f, Machine& mach, const std::function<double()>& roofline) {
  const Geometry& geo = mach.geometry();
  Measurement r;
  const auto per_run = [&](const std::function<void()>& run) {
    mach.reset_counters();
    run();  // one counted run: the bytes it moves
    r.bytes_moved = mach.counters().bytes_read + mach.counters().bytes_written;
    r.time = alternate(f.repeat, [&] { return mach.backend().timed(run); }, roofline);
  };
  // A cycle or schedule is checked once, timed apart: on a GPU the host's check
  // of K/2 exchanges costs several times the launch it guards.
  const auto checked = [&](const std::function<void()>& check) {
    const auto start = std::chrono::steady_clock::now();
    check();
    r.check_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (f.op == "cycle") {
    PortRules rules;
    const Cycle c = half_memory_cycle(geo, rules);
    r.what = fmt::format("one all-port routing cycle, {} exchanges a node pair (K/2 words a node)", c.size());
    checked([&] { check_cycle(geo, c, rules, 0); });
    per_run([&] { mach.run_checked_cycle(c); });
  } else if (f.op == "alignment") {
    const unsigned d = std::min(geo.n, geo.m);
    const AffineMap map = AffineMap::xor_fold(geo, d, 1);
    r.what = fmt::format("the AAPC alignment (j|i) -> (j|i xor j) on {} bits, in place", d);
    per_run([&] { mach.align(map); });
  } else if (f.op == "aapc") {
    AapcOptions o;
    o.d = geo.n;
    const Schedule s = make_aapc_schedule(o);
    const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, geo, geo.n);
    r.what = fmt::format("a full AAPC (the transpose), Algorithm 4, {} cycles and 2 alignments", s.cycles());
    std::optional<CheckedSchedule> run;
    checked([&] { run.emplace(check_schedule_run(mach, s, plan.f, plan.g)); });
    per_run([&] { run_checked_schedule(mach, *run); });
  } else {
    const bool transpose = f.op == "fused-transpose";
    const DimensionPermutation p =
        parse_dimension_permutation(transpose ? "transpose" : "bit-reversal", geo.n, geo.m);
    r.what = transpose ? "the transpose in one tiled pass" : "the bit reversal in one tiled pass";
    per_run([&] { mach.permute_address_bits(p.to); });
  }
  return r;
}

// The baseline a user writes by hand: dst[i] = src[index[i]] with the index
// precomputed (here the bit reversal), OpenMP over i, on host memory.
Measurement gather(const BenchFlags& f, unsigned q, std::size_t wb, const std::function<double()>& roofline) {
  const std::uint64_t words = bit(q);
  std::vector<std::uint64_t> index(words);
  for (std::uint64_t i = 0; i < words; ++i) index[i] = reverse_bits(i, q);
  std::vector<unsigned char> src(words * wb, 1), dst(words * wb, 0);
  const auto n = static_cast<std::int64_t>(words);
  Measurement r;
  r.what = "the bit reversal gathered through a precomputed index (dst[i] = src[index[i]])";
  r.bytes_moved = 2 * words * wb + words * sizeof(std::uint64_t);
  const auto run = [&] {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i)
      std::memcpy(&dst[static_cast<std::uint64_t>(i) * wb], &src[index[static_cast<std::uint64_t>(i)] * wb], wb);
  };
  r.time = alternate(f.repeat, [&] { return seconds_of(run); }, roofline);
  return r;
}

void run_bench(const BenchFlags& f) {
  if (std::find(ops().begin(), ops().end(), f.op) == ops().end())
    throw Error(fmt::format("--op '{}' unknown: allowed {}", f.op, fmt::join(ops(), ", ")));
  if (f.log2_words < 2 || f.log2_words > 34)
    throw Error(fmt::format("--log2-words {} out of range: allowed 2..34", f.log2_words));
  if (f.repeat < 1 || f.repeat > 1000) throw Error(fmt::format("--repeat {} out of range: allowed 1..1000", f.repeat));
  const auto q = static_cast<unsigned>(f.log2_words);
  const ElementType type = f.machine.type.empty() ? ElementType::u32 : parse_element_type(f.machine.type);
  const std::size_t wb = info(type).bytes;
  const std::uint64_t bytes = bit(q) * wb;
  if (f.op == "aapc" && q % 2 != 0)
    throw Error(fmt::format("--op aapc runs the transpose on n = m = d: --log2-words {} must be even", q));
  // n = floor(q / 2) processor dimensions, the rest local.
  const unsigned n = q / 2, m = q - n;

  Measurement r;
  std::unique_ptr<Machine> mach;
  std::unique_ptr<Backend> copier;  // --op memcpy and the gather baseline: the backend whose copy is the roofline
  Backend* where = nullptr;
  if (f.op == "gather-bit-reversal" && f.machine.backend == "cuda")
    throw Error("--op gather-bit-reversal is the CPU baseline: it runs on host memory (drop --backend cuda)");
  if (f.op == "memcpy" || f.op == "gather-bit-reversal") {
    copier = make_backend(f.op == "memcpy" ? parse_backend_choice(f.machine.backend) : BackendChoice::cpu);
    where = copier.get();
  } else {
    mach = std::make_unique<Machine>(
        MachineOptions{n, m, type, parse_backend_choice(f.machine.backend), f.machine.tile_dims});
    std::vector<unsigned char> zeros(mach->bytes(), 0);
    mach->load(zeros.data(), zeros.size());
    zeros = {};
    where = &mach->backend();
  }
  const std::string backend = to_string(where->kind()), device = where->device_name();
  // The roofline in the same process: a copy of the same bytes, read + written.
  const std::function<double()> copy = where->copy_timer(bytes);
  if (f.op == "memcpy") {
    // The copy alternated with itself: a ratio near 1, whose spread is the run's noise.
    r.what = on_gpu(*where) ? "a device copy kernel over the data (the roofline)" : "memcpy of the data (the roofline)";
    r.bytes_moved = 2 * bytes;
    r.time = alternate(f.repeat, copy, copy);
  } else if (f.op == "gather-bit-reversal") {
    r = gather(f, q, wb, copy);
  } else {
    r = measure(f, *mach, copy);
  }
  const double spec = where->spec_bytes_per_second();
  const double seconds = r.time.seconds, roofline_seconds = r.time.roofline_seconds;
  const double throughput = static_cast<double>(r.bytes_moved) / seconds;
  const double roofline = 2.0 * static_cast<double>(bytes) / roofline_seconds;
  const double ratio = ratio_to_memcpy(r.bytes_moved, seconds, bytes, roofline_seconds);
  // Each run's ratio to the copy taken right after it: the spread the medians hide.
  std::vector<double> run_ratios;
  for (const auto& [op_s, copy_s] : r.time.runs) run_ratios.push_back(ratio_to_memcpy(r.bytes_moved, op_s, bytes, copy_s));
  const auto [low, high] = std::minmax_element(run_ratios.begin(), run_ratios.end());
  if (f.json) {
    const nlohmann::json j = {{"command", "bench"},
                              {"op", f.op},
                              {"words", bit(q)},
                              {"type", info(type).name},
                              {"n", n},
                              {"m", m},
                              {"bytes_moved", r.bytes_moved},
                              {"seconds", seconds},
                              {"memcpy_seconds", roofline_seconds},
                              {"throughput_bytes_per_second", throughput},
                              {"memcpy_bytes_per_second", roofline},
                              {"ratio_to_memcpy", ratio},
                              {"ratio_to_memcpy_runs", run_ratios},
                              {"repeat", f.repeat},
                              {"backend", backend},
                              {"device", device},
                              {"roofline", on_gpu(*where) ? "copy kernel" : "memcpy"},
                              {"spec_bytes_per_second", spec > 0 ? nlohmann::json(spec) : nlohmann::json(nullptr)},
                              {"ratio_to_spec", spec > 0 ? nlohmann::json(throughput / spec) : nlohmann::json(nullptr)},
                              {"check_seconds", r.check_seconds},
                              {"what", r.what}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  fmt::print(
      "bench {}: {}\n2^{} {} words ({}), n = {}, m = {}, {} backend ({})\n"
      "median of {}: {:.6f} s, {} bytes read + written: {:.2f} GB/s\n"
      "{} of the same {} in this process, alternated with those runs: {:.6f} s, {:.2f} GB/s read + written\n"
      "ratio to {}: {:.1f}%{}, run by run {:.1f}% .. {:.1f}%\n",
      f.op, r.what, q, info(type).name, format_bytes(bytes), n, m, backend, device,
      f.repeat, seconds, r.bytes_moved, throughput / 1e9, on_gpu(*where) ? "a device copy kernel" : "memcpy",
      format_bytes(bytes), roofline_seconds, roofline / 1e9, on_gpu(*where) ? "the copy kernel" : "memcpy", 100 * ratio,
      spec > 0 ? fmt::format(" ({:.1f}% of the stated {:.0f} GB/s)", 100 * throughput / spec, spec / 1e9) : "",
      100 * *low, 100 * *high);
  if (r.check_seconds > 0) fmt::print("host checks, made once before the timed runs: {:.6f} s\n", r.check_seconds);
}

struct SweepFlags {
  long long from = 4, to = 10;
  std::string algorithms = "1,2,3,4,edelman";
  std::string csv, plot;
  long long repeat = 1;
  MachineFlags machine;
  bool json = false;
};

// Words verified against the transpose at most: the reference is a host loop.
constexpr unsigned kSweepVerifyBits = 22;

// One (d, algorithm) point; a point that fails its check ends the sweep with an error.
struct SweepRow {
  unsigned d = 0;
  std::string algorithm;
  std::uint64_t words = 0, data_bytes = 0, cycles = 0, bytes_moved = 0;
  double seconds = 0, memcpy_seconds = 0;
  bool verified() const { return 2 * d <= kSweepVerifyBits; }
  double throughput() const { return static_cast<double>(bytes_moved) / seconds; }
  double ratio() const { return ratio_to_memcpy(bytes_moved, seconds, data_bytes, memcpy_seconds); }
};

bool have_gnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

// The plot's terminal from the file's extension; refuses before anything runs.
std::string plot_terminal(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg") return "svg size 960,720 dynamic background rgb 'white'";
  if (ext == ".png") return "png size 960,720";
  throw Error(fmt::format("--plot {}: the file must end in .svg or .png", path));
}

void check_plot_target(const std::string& path) {
  plot_terminal(path);
  if (!have_gnuplot())
    throw Error("--plot draws with gnuplot, which is not installed: apt-get install gnuplot-nox (or drop --plot and "
                "plot the --csv file yourself)");
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw Error(fmt::format("cannot write {}", path));
}

// Throughput (GB/s read + written, and memcpy's) and cycles against d, one
// line per algorithm: one gnuplot data block ("d cycles GB/s memcpy-GB/s") each.
void plot_sweep(const std::string& path, const std::vector<SweepRow>& rows, const std::vector<std::string>& algorithms) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    fmt::format("hcube-sweep-{}", static_cast<long long>(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string data = (dir / "sweep.dat").string(), script = (dir / "sweep.gp").string();
  std::string blocks, throughput, cycles;
  for (std::size_t i = 0; i < algorithms.size(); ++i) {
    const std::string& a = algorithms[i];
    for (const SweepRow& r : rows)
      if (r.algorithm == a)
        blocks += fmt::format("{} {} {:.6f} {:.6f}\n", r.d, r.cycles, r.throughput() / 1e9,
                              r.throughput() / r.ratio() / 1e9);
    blocks += "\n\n";
    const std::string title = a.rfind("edelman", 0) == 0 ? "Edelman" + a.substr(7) : "Algorithm " + a;
    throughput += fmt::format("'{}' index {} using 1:3 with linespoints title '{}', ", data, i, title);
    cycles += fmt::format("{}'{}' index {} using 1:2 with linespoints title '{}'", i == 0 ? "" : ", ", data, i, title);
  }
  throughput += fmt::format("'{}' index 0 using 1:4 with linespoints dashtype 2 title 'memcpy'", data);
  write_text_file(data, blocks);
  write_text_file(script, fmt::format(R"(set terminal {}
set output '{}'
set multiplot layout 2,1 title 'hcube sweep: AAPC of 2^{{2d}} words, n = m = d'
set xlabel 'd'
set grid
set key left top
set ylabel 'GB/s read + written'
plot {}
set ylabel 'routing cycles'
set logscale y 2
plot {}
unset multiplot
)",
                                      plot_terminal(path), path, throughput, cycles));
  const std::string errors = (dir / "gnuplot.err").string();
  const int rc = std::system(fmt::format("gnuplot '{}' 2>'{}'", script, errors).c_str());
  std::ifstream err(errors);
  const std::string message((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  std::filesystem::remove_all(dir);
  if (rc != 0 || !std::filesystem::exists(path) || std::filesystem::file_size(path) == 0)
    throw Error(fmt::format("gnuplot could not draw {}: {}", path, message));
}

Schedule sweep_schedule(const std::string& algorithm, unsigned d) {
  if (algorithm == "edelman") return make_edelman_schedule(d, d, d, true);
  if (algorithm == "edelman-unaligned") return make_edelman_schedule(d, d, d, false);
  AapcOptions o;
  o.algorithm = parse_aapc_algorithm(algorithm);
  o.d = d;
  return make_aapc_schedule(o);
}

std::vector<std::string> sweep_algorithms(const SweepFlags& f) {
  std::vector<std::string> algorithms;
  for (std::size_t start = 0; start <= f.algorithms.size();) {
    const std::size_t comma = std::min(f.algorithms.find(',', start), f.algorithms.size());
    algorithms.push_back(f.algorithms.substr(start, comma - start));
    start = comma + 1;
  }
  for (const std::string& a : algorithms)
    if (a != "1" && a != "2" && a != "3" && a != "4" && a != "edelman" && a != "edelman-unaligned")
      throw Error(fmt::format("--algorithms entry '{}' unknown: allowed 1, 2, 3, 4, edelman, edelman-unaligned", a));
  return algorithms;
}

std::vector<SweepRow> run_sweep(const SweepFlags& f, const std::vector<std::string>& algorithms) {
  if (f.from < 1 || f.to > 16 || f.from > f.to)
    throw Error(fmt::format("--dims-from {} --dims-to {} out of range: allowed 1 <= from <= to <= 16", f.from, f.to));
  if (f.repeat < 1 || f.repeat > 100) throw Error(fmt::format("--repeat {} out of range: allowed 1..100", f.repeat));
  if (!f.plot.empty()) check_plot_target(f.plot);
  const ElementType type = f.machine.type.empty() ? ElementType::u32 : parse_element_type(f.machine.type);
  const std::size_t wb = info(type).bytes;
  std::vector<SweepRow> rows;
  const std::size_t total = static_cast<std::size_t>(f.to - f.from + 1) * algorithms.size();
  ProgressBar bar(!f.json && f.csv != "-" && ::isatty(2) == 1, "sweep", "runs");
  for (auto d = static_cast<unsigned>(f.from); d <= static_cast<unsigned>(f.to); ++d) {
    Machine mach(MachineOptions{d, d, type, parse_backend_choice(f.machine.backend), f.machine.tile_dims});
    const std::function<double()> copy = mach.backend().copy_timer(mach.bytes());
    const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, mach.geometry(), d);
    for (const std::string& alg : algorithms) {
      bar.draw(rows.size(), total, fmt::format("d = {}, {}", d, alg));
      const Schedule s = sweep_schedule(alg, d);
      SweepRow r;
      r.d = d;
      r.algorithm = alg;
      r.words = mach.geometry().total_words();
      r.cycles = s.cycles();
      r.data_bytes = mach.bytes();
      // The first run is counted, verified (up to 2^22 words) and warms up; the median of --repeat more is timed.
      std::vector<unsigned char> expected;
      if (r.verified()) {
        mach.load_labels();
        expected = reference_permute(mach.read(), wb, r.words, plan.destination);
      }
      mach.reset_counters();
      run_schedule(mach, s, plan.f, plan.g);
      r.bytes_moved = mach.counters().bytes_read + mach.counters().bytes_written;
      if (r.verified() && mach.read() != expected)
        throw Error(fmt::format("sweep: the AAPC of {} at d = {} does not match the transpose", alg, d));
      const Alternated t = alternate(
          f.repeat, [&] { return mach.backend().timed([&] { run_schedule(mach, s, plan.f, plan.g); }); }, copy, false);
      r.seconds = t.seconds;
      r.memcpy_seconds = t.roofline_seconds;
      rows.push_back(r);
    }
  }
  bar.draw(total, total);
  return rows;
}

std::string sweep_csv(const std::vector<SweepRow>& rows) {
  std::string out = "d,algorithm,words,cycles,seconds,bytes_moved,throughput_gb_per_s,memcpy_seconds,ratio_to_memcpy,verified\n";
  for (const SweepRow& r : rows)
    out += fmt::format("{},{},{},{},{:.9f},{},{:.6f},{:.9f},{:.6f},{}\n", r.d, r.algorithm, r.words, r.cycles,
                       r.seconds, r.bytes_moved, r.throughput() / 1e9, r.memcpy_seconds, r.ratio(),
                       r.verified() ? "yes" : "not checked");
  return out;
}

void add_sweep_command(CLI::App& app) {
  auto f = std::make_shared<SweepFlags>();
  auto* cmd = app.add_subcommand(
      "sweep", "AAPC throughput and cycles over a range of cube dimensions (n = m = d), with memcpy as the roofline; CSV, "
               "JSON and a plot");
  cmd->add_option("--dims-from", f->from, "the smallest d")->capture_default_str();
  cmd->add_option("--dims-to", f->to, "the largest d (2^(2d) words)")->capture_default_str();
  cmd->add_option("--algorithms", f->algorithms, "comma-separated: 1, 2, 3, 4, edelman, edelman-unaligned")
      ->capture_default_str();
  cmd->add_option("-r,--repeat", f->repeat, "timed runs per point, each followed by a roofline copy; the medians")
      ->capture_default_str();
  cmd->add_option("--csv", f->csv, "write the rows as CSV to this file (- for standard output)");
  cmd->add_option("--plot", f->plot, "draw throughput and cycles vs d into this .svg or .png (needs gnuplot)");
  add_backend_flags(*cmd, f->machine);
  cmd->add_flag("--json", f->json, "print one JSON object instead of the table");
  cmd->callback([f] {
    const std::vector<std::string> algorithms = sweep_algorithms(*f);
    const std::vector<SweepRow> rows = run_sweep(*f, algorithms);
    const std::string csv = sweep_csv(rows);
    if (f->csv == "-") {
      std::cout << csv;
    } else if (!f->csv.empty()) {
      write_text_file(f->csv, csv);
    }
    if (!f->plot.empty()) plot_sweep(f->plot, rows, algorithms);
    if (f->json) {
      nlohmann::json j = {{"command", "sweep"}, {"rows", nlohmann::json::array()}};
      for (const SweepRow& r : rows)
        j["rows"].push_back({{"d", r.d},
                             {"algorithm", r.algorithm},
                             {"words", r.words},
                             {"cycles", r.cycles},
                             {"seconds", r.seconds},
                             {"bytes_moved", r.bytes_moved},
                             {"throughput_bytes_per_second", r.throughput()},
                             {"memcpy_seconds", r.memcpy_seconds},
                             {"ratio_to_memcpy", r.ratio()},
                             {"verified", r.verified() ? nlohmann::json(true) : nlohmann::json()}});
      if (!f->csv.empty() && f->csv != "-") j["csv"] = f->csv;
      if (!f->plot.empty()) j["plot"] = f->plot;
      std::cout << j.dump(2) << "\n";
      return;
    }
    if (f->csv == "-") return;
    fmt::print("{:>3} {:<18} {:>14} {:>8} {:>12} {:>10} {:>8}  {}\n", "d", "algorithm", "words", "cycles", "seconds",
               "GB/s", "memcpy", "verified");
    for (const SweepRow& r : rows)
      fmt::print("{:>3} {:<18} {:>14} {:>8} {:>12.6f} {:>10.3f} {:>7.0f}%  {}\n", r.d, r.algorithm, r.words, r.cycles,
                 r.seconds, r.throughput() / 1e9, 100 * r.ratio(),
                 r.verified() ? "yes" : "not checked (d > 11)");
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
  cmd->add_option("--op", f->op, fmt::format("the operation: {}", fmt::join(ops(), ", ")))->required();
  cmd->add_option("-w,--log2-words", f->log2_words, "2^W words of data (n = W/2 processor dimensions)")
      ->capture_default_str();
  cmd->add_option("-r,--repeat", f->repeat,
                  "timed runs after one warm-up, each followed by a copy of the roofline; the medians are reported")
      ->capture_default_str();
  add_backend_flags(*cmd, f->machine);
  cmd->add_flag("--json", f->json, "print one JSON object instead of prose");
  cmd->callback([f] { run_bench(*f); });
}

}  // namespace hcube::cli

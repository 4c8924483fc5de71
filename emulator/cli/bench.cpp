// hcube bench: one data-motion operation timed against the memory roofline
// measured in the same process (memcpy of the same data), as a ratio of
// throughputs; the median of --repeat runs after one warm-up run.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <numeric>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/emulator/units.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_permutation.hpp"
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

// The median of `repeat` timed runs after one untimed warm-up (first touch of
// every page, caches and tables filled).
double median_seconds(long long repeat, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  for (long long r = 0; r < repeat; ++r) t.push_back(seconds_of(f));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Measurement {
  std::uint64_t bytes_moved = 0;  // read + written by one run
  double seconds = 0;
  std::string what;
};

// One all-port routing cycle that moves half of every node's words: dimension
// k exchanges the addresses a with a mod n = k (channel width K / 2n), the
// widest cycle a direct-addressed schedule has (a block transfer of sec. 5).
Cycle wide_cycle(const Geometry& geo, PortRules& rules) {
  Cycle c;
  const std::uint64_t K = geo.words_per_node();
  std::uint64_t width = 0;
  for (unsigned k = 0; k < geo.n; ++k) {
    std::uint64_t on_k = 0;
    for (std::uint64_t a = k; a < K / 2; a += geo.n, ++on_k) c.push_back(direct_exchange(k, a));
    width = std::max(width, on_k);
  }
  rules.model = PortModel::all_port;
  rules.channel_width = static_cast<unsigned>(std::max<std::uint64_t>(width, 1));
  return c;
}

Measurement measure(const BenchFlags& f, Machine& mach) {
  const Geometry& geo = mach.geometry();
  Measurement r;
  const auto per_run = [&](const std::function<void()>& run) {
    mach.reset_counters();
    run();  // one counted run: the bytes it moves
    r.bytes_moved = mach.counters().bytes_read + mach.counters().bytes_written;
    r.seconds = median_seconds(f.repeat, run);
  };
  if (f.op == "cycle") {
    PortRules rules;
    const Cycle c = wide_cycle(geo, rules);
    r.what = fmt::format("one all-port routing cycle, {} exchanges a node pair (K/2 words a node)", c.size());
    per_run([&] { mach.run_cycle(c, rules); });
  } else if (f.op == "alignment") {
    std::vector<unsigned> dims(std::min(geo.n, geo.m));
    std::iota(dims.begin(), dims.end(), 0u);
    const AffineMap map = AffineMap::xor_align(geo, dims, dims);
    r.what = fmt::format("the AAPC alignment (j|i) -> (j|i xor j) on {} bits, in place", dims.size());
    per_run([&] { mach.align(map); });
  } else if (f.op == "aapc") {
    AapcOptions o;
    o.d = geo.n;
    const Schedule s = make_aapc_schedule(o);
    const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, geo, geo.n);
    r.what = fmt::format("a full AAPC (the transpose), Algorithm 4, {} cycles and 2 alignments", s.cycles());
    per_run([&] { run_schedule(mach, s, plan.f, plan.g); });
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
Measurement gather(const BenchFlags& f, unsigned q, std::size_t wb) {
  const std::uint64_t words = bit(q);
  std::vector<std::uint64_t> index(words);
  for (std::uint64_t i = 0; i < words; ++i) index[i] = reverse_bits(i, q);
  std::vector<unsigned char> src(words * wb, 1), dst(words * wb, 0);
  const auto n = static_cast<std::int64_t>(words);
  Measurement r;
  r.what = "the bit reversal gathered through a precomputed index (dst[i] = src[index[i]])";
  r.bytes_moved = 2 * words * wb + words * sizeof(std::uint64_t);
  r.seconds = median_seconds(f.repeat, [&] {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i)
      std::memcpy(&dst[static_cast<std::uint64_t>(i) * wb], &src[index[static_cast<std::uint64_t>(i)] * wb], wb);
  });
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
  std::string backend = "cpu", device;
  if (f.op == "memcpy") {
    r.what = "memcpy of the data (the roofline)";
  } else if (f.op == "gather-bit-reversal") {
    if (f.machine.backend == "cuda")
      throw Error("--op gather-bit-reversal is the CPU baseline: it runs on host memory (drop --backend cuda)");
    r = gather(f, q, wb);
  } else {
    Machine mach(MachineOptions{n, m, type, parse_backend_choice(f.machine.backend), f.machine.tile_dims});
    std::vector<unsigned char> zeros(mach.bytes(), 0);
    mach.load(zeros.data(), zeros.size());
    zeros = {};
    backend = to_string(mach.backend().kind());
    device = mach.backend().device_name();
    r = measure(f, mach);
  }
  // The roofline in the same process: memcpy of the same bytes, read + written.
  std::vector<unsigned char> a(bytes, 1), b(bytes, 0);
  const double memcpy_seconds = median_seconds(f.repeat, [&] { std::memcpy(b.data(), a.data(), bytes); });
  if (f.op == "memcpy") {
    r.bytes_moved = 2 * bytes;
    r.seconds = memcpy_seconds;
  }
  const double throughput = static_cast<double>(r.bytes_moved) / r.seconds;
  const double roofline = 2.0 * static_cast<double>(bytes) / memcpy_seconds;
  const double ratio = throughput / roofline;
  if (f.json) {
    const nlohmann::json j = {{"command", "bench"},
                              {"op", f.op},
                              {"words", bit(q)},
                              {"type", info(type).name},
                              {"n", n},
                              {"m", m},
                              {"bytes_moved", r.bytes_moved},
                              {"seconds", r.seconds},
                              {"memcpy_seconds", memcpy_seconds},
                              {"throughput_bytes_per_second", throughput},
                              {"memcpy_bytes_per_second", roofline},
                              {"ratio_to_memcpy", ratio},
                              {"repeat", f.repeat},
                              {"backend", backend},
                              {"device", device},
                              {"what", r.what}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  fmt::print(
      "bench {}: {}\n2^{} {} words ({}), n = {}, m = {}, {} backend{}\n"
      "median of {}: {:.6f} s, {} bytes read + written: {:.2f} GB/s\n"
      "memcpy of the same {} in this process: {:.6f} s, {:.2f} GB/s read + written\n"
      "ratio to memcpy: {:.1f}%\n",
      f.op, r.what, q, info(type).name, format_bytes(bytes), n, m, backend, device.empty() ? "" : " (" + device + ")",
      f.repeat, r.seconds, r.bytes_moved, throughput / 1e9, format_bytes(bytes), memcpy_seconds, roofline / 1e9,
      100 * ratio);
}

}  // namespace

void add_bench(CLI::App& app) {
  auto f = std::make_shared<BenchFlags>();
  auto* cmd = app.add_subcommand(
      "bench", "time one data-motion operation against memcpy of the same data in the same process (docs/performance.md)");
  cmd->add_option("--op", f->op, fmt::format("the operation: {}", fmt::join(ops(), ", ")))->required();
  cmd->add_option("-w,--log2-words", f->log2_words, "2^W words of data (n = W/2 processor dimensions)")
      ->capture_default_str();
  cmd->add_option("-r,--repeat", f->repeat, "timed runs after one warm-up; the median is reported")
      ->capture_default_str();
  add_backend_flags(*cmd, f->machine);
  cmd->add_flag("--json", f->json, "print one JSON object instead of prose");
  cmd->callback([f] { run_bench(*f); });
}

}  // namespace hcube::cli

#include "hcube/emulator/tune.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <ctime>

#include "hcube/core/error.hpp"
#include "hcube/emulator/json.hpp"
#include "hcube/emulator/measure.hpp"
#include "hcube/backends/cpu/tuning.hpp"

namespace hcube {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char s[32];
  std::strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return s;
}

// How much better than the default a candidate must score to replace it.
constexpr double kTuneMargin = 1.05;

// The word types whose fused passes are tuned, one per word size.
constexpr ElementType kTypes[] = {ElementType::u32, ElementType::u64, ElementType::c128};

}  // namespace

double TuneTrial::score() const { return std::sqrt(transpose_ratio * reversal_ratio); }

nlohmann::json to_json(const TuneResult& r) {
  nlohmann::json trials = nlohmann::json::array();
  for (const TuneTrial& t : r.trials)
    trials.push_back({{"key", t.key},
                      {"value", t.value},
                      {"fused_transpose_ratio_to_memcpy", t.transpose_ratio},
                      {"fused_bit_reversal_ratio_to_memcpy", t.reversal_ratio},
                      {"score", t.score()}});
  return {{"cpu", {{"model", r.wisdom.cpu.model}, {"l2_bytes", r.wisdom.cpu.l2_bytes}, {"l3_bytes", r.wisdom.cpu.l3_bytes}}},
          {"log2_bytes", r.log2_bytes},
          {"values", r.wisdom.values},
          {"trials", trials},
          {"seconds", r.seconds},
          {"out_of_time", r.out_of_time}};
}

TuneResult run_tune(const TuneRequest& req, const TuneProgress& progress) {
  if (req.log2_bytes != -1 && (req.log2_bytes < 16 || req.log2_bytes > 34))
    throw Error(fmt::format("log2_bytes = {} out of range: allowed 16..34, or -1 for 4 x the L3", req.log2_bytes));
  if (!(req.budget_seconds > 0)) throw Error(fmt::format("budget_seconds = {}: allowed > 0", req.budget_seconds));
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  TuneResult out;
  out.wisdom.cpu = host_cpu();
  out.wisdom.created = utc_now();
  // Beyond the L3 (at least 4 times it, 2^26 bytes where it is unknown), where the
  // defaults were chosen on hosts that kept much of the data in theirs.
  const std::uint64_t l3 = out.wisdom.cpu.l3_bytes > 0 ? out.wisdom.cpu.l3_bytes : std::uint64_t{16} << 20;
  out.log2_bytes = req.log2_bytes > 0 ? static_cast<unsigned>(req.log2_bytes)
                                      : std::min(34u, ceil_log2(4 * l3));
  if (req.quick && req.log2_bytes < 0) out.log2_bytes = std::min<std::uint64_t>(out.log2_bytes, 26);
  // Candidates: powers of two from 16 KiB up to the L2 (a tile must stay in it), the default among them.
  const std::uint64_t l2 = out.wisdom.cpu.l2_bytes > 0 ? out.wisdom.cpu.l2_bytes : std::uint64_t{512} << 10;
  std::vector<std::uint64_t> candidates;
  for (std::uint64_t c = req.quick ? 32 << 10 : 16 << 10; c <= l2 && c <= (req.quick ? 256u << 10 : 1u << 20); c *= 2)
    candidates.push_back(c);
  const std::size_t total = candidates.size() * std::size(kTypes);
  for (const ElementType type : kTypes) {
    const std::size_t wb = info(type).bytes;
    const std::string key = fused_tile_key(wb);
    std::vector<TuneTrial> tried;
    for (const std::uint64_t tile : candidates) {
      if (elapsed() > req.budget_seconds) {
        out.out_of_time = true;
        break;
      }
      if (progress) progress(out.trials.size(), total, fmt::format("{} {} KiB", info(type).name, tile >> 10));
      override_wisdom_value(key, tile);
      TuneTrial t;
      t.key = key;
      t.value = tile;
      for (const BenchOp op : {BenchOp::fused_transpose, BenchOp::fused_bit_reversal}) {
        BenchRequest b;
        b.op = op;
        b.type = type;
        b.backend = BackendChoice::cpu;
        // The transpose swaps two halves of the address: an even number of bits.
        const std::uint64_t q = out.log2_bytes - ceil_log2(wb);
        b.log2_words = static_cast<long long>(q - q % 2);
        b.repeat = req.quick ? 1 : 3;
        const double ratio = run_bench(b).ratio();
        (op == BenchOp::fused_transpose ? t.transpose_ratio : t.reversal_ratio) = ratio;
      }
      override_wisdom_value(key, std::nullopt);
      tried.push_back(t);
      out.trials.push_back(t);
    }
    if (tried.empty()) continue;
    const TuneTrial* best = &tried.front();
    const TuneTrial* standard = nullptr;  // the default's trial, where it was a candidate
    for (const TuneTrial& t : tried) {
      if (t.score() > best->score()) best = &t;
      if (t.value == kernels::cpu::tuning::block_tile_bytes(wb)) standard = &t;
    }
    // A shared host's runs differ by several percent: the default stays unless beaten by more.
    if (standard != nullptr && best->score() < kTuneMargin * standard->score()) best = standard;
    out.wisdom.values[key] = best->value;
  }
  if (progress) progress(total, total, "");
  out.seconds = elapsed();
  return out;
}

}  // namespace hcube

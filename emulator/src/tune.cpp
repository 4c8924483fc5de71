#include "hcube/emulator/tune.hpp"

#include <fmt/format.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <ctime>

#include "hcube/core/error.hpp"
#include "hcube/emulator/json.hpp"
#include "hcube/emulator/measure.hpp"
#include "hcube/emulator/units.hpp"
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
// "Never stream": a size no buffer reaches.
constexpr std::uint64_t kNever = std::uint64_t{1} << 62;

// The word types whose fused passes are tuned, one per word size.
constexpr ElementType kTypes[] = {ElementType::u32, ElementType::u64, ElementType::c128};

// One key's trials: its candidates (the default among them) timed by `ops` on words of `type`.
struct KeyPlan {
  std::string key;
  std::uint64_t standard = 0;
  std::vector<std::uint64_t> candidates;
  ElementType type = ElementType::u32;
  std::vector<BenchOp> ops;
};

// The words a bench of 2^log2_bytes bytes takes; a transpose swaps two halves of the address.
long long bench_words(std::uint64_t log2_bytes, ElementType type) {
  const std::uint64_t q = log2_bytes - ceil_log2(info(type).bytes);
  return static_cast<long long>(q - q % 2);
}

}  // namespace

double TuneTrial::score() const {
  double log_sum = 0;
  for (const auto& [op, ratio] : ratios) log_sum += std::log(ratio);
  return ratios.empty() ? 0 : std::exp(log_sum / static_cast<double>(ratios.size()));
}

std::uint64_t choose_streaming_bytes(const std::vector<std::uint64_t>& log2_bytes, const std::vector<double>& streamed,
                                     const std::vector<double>& plain, std::uint64_t standard, double margin) {
  if (log2_bytes.size() != streamed.size() || log2_bytes.size() != plain.size())
    throw Error(fmt::format("choose_streaming_bytes: {} sizes, {} and {} scores", log2_bytes.size(), streamed.size(),
                            plain.size()));
  const std::size_t count = log2_bytes.size();
  std::vector<std::size_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return log2_bytes[a] < log2_bytes[b]; });
  const auto stream_wins = [&](std::size_t i) { return streamed[i] > margin * plain[i]; };
  const auto plain_wins = [&](std::size_t i) { return plain[i] > margin * streamed[i]; };
  // A threshold fits where no size at or above it wants plain stores and none below it wants streaming.
  const auto fits = [&](std::uint64_t threshold) {
    for (const std::size_t i : order) {
      const bool streams = (std::uint64_t{1} << log2_bytes[i]) >= threshold;
      if (streams ? plain_wins(i) : stream_wins(i)) return false;
    }
    return true;
  };
  if (count == 0 || fits(standard)) return standard;
  // The smallest measured size from which streaming never loses clearly, where it wins somewhere.
  for (std::size_t k = 0; k < count; ++k) {
    bool loses = false, wins = false;
    for (std::size_t j = k; j < count; ++j) loses = loses || plain_wins(order[j]), wins = wins || stream_wins(order[j]);
    if (!loses && wins) return std::uint64_t{1} << log2_bytes[order[k]];
  }
  return kNever;
}

nlohmann::json to_json(const TuneResult& r) {
  nlohmann::json trials = nlohmann::json::array();
  for (const TuneTrial& t : r.trials) {
    nlohmann::json j = {{"key", t.key}, {"value", t.value}, {"log2_bytes", t.log2_bytes}, {"score", t.score()}};
    for (const auto& [op, ratio] : t.ratios) {
      std::string field = op;
      std::replace(field.begin(), field.end(), '-', '_');
      j[field + "_ratio_to_memcpy"] = ratio;
    }
    trials.push_back(j);
  }
  return {{"cpu", {{"model", r.wisdom.cpu.model}, {"l2_bytes", r.wisdom.cpu.l2_bytes}, {"l3_bytes", r.wisdom.cpu.l3_bytes}}},
          {"log2_bytes", r.log2_bytes},
          {"values", r.wisdom.values},
          {"trials", trials},
          {"seconds", r.seconds},
          {"out_of_time", r.out_of_time}};
}

std::string describe(const TuneResult& r) {
  std::string out = fmt::format("tuned on {} (L2 {}, L3 {}), 2^{} bytes a run, {:.1f} s{}\n", r.wisdom.cpu.model,
                                format_bytes(r.wisdom.cpu.l2_bytes), format_bytes(r.wisdom.cpu.l3_bytes), r.log2_bytes,
                                r.seconds, r.out_of_time ? " (out of time: the rest keep their defaults)" : "");
  for (const TuneTrial& t : r.trials) {
    std::string ratios;
    for (const auto& [op, ratio] : t.ratios) ratios += fmt::format("{}{} {:.2f}", ratios.empty() ? "" : ", ", op, ratio);
    const auto chosen = r.wisdom.values.find(t.key);
    out += fmt::format("  {} = {:>7} at 2^{} bytes: {} of memcpy{}\n", t.key, t.value, t.log2_bytes, ratios,
                       chosen != r.wisdom.values.end() && chosen->second == t.value ? "  <- chosen" : "");
  }
  for (const auto& [key, value] : r.wisdom.values) out += fmt::format("{} = {}\n", key, value);
  return out;
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
  const std::uint64_t l2 = out.wisdom.cpu.l2_bytes > 0 ? out.wisdom.cpu.l2_bytes : std::uint64_t{512} << 10;
  const kernels::cpu::tuning::Knobs defaults;

  // Powers of two from `low` to `high`, or the listed ones (--quick).
  const auto powers = [](std::uint64_t low, std::uint64_t high) {
    std::vector<std::uint64_t> v;
    for (std::uint64_t c = low; c <= high; c *= 2) v.push_back(c);
    return v;
  };
  std::vector<KeyPlan> plans;
  // Tiles: powers of two from 16 KiB up to the L2 (a tile must stay in it), the default among them.
  const std::vector<std::uint64_t> tiles =
      req.quick ? powers(32 << 10, std::min<std::uint64_t>(l2, 256 << 10)) : powers(16 << 10, std::min<std::uint64_t>(l2, 1 << 20));
  for (const ElementType type : kTypes) {
    const std::size_t wb = info(type).bytes;
    plans.push_back({fused_tile_key(wb), kernels::cpu::tuning::block_tile_bytes(wb), tiles, type,
                     {BenchOp::fused_transpose, BenchOp::fused_bit_reversal}});
  }
  // Prefetch distances matter only where the data streams: beyond the caches.
  if ((std::uint64_t{1} << out.log2_bytes) >= defaults.streaming_bytes) {
    plans.push_back({wisdom_key::prefetch_runs, defaults.prefetch_runs, req.quick ? powers(4, 16) : powers(2, 32),
                     ElementType::u32, {BenchOp::fused_transpose, BenchOp::fused_bit_reversal}});
    plans.push_back({wisdom_key::prefetch_rows, defaults.prefetch_rows, req.quick ? powers(1, 4) : powers(1, 8),
                     ElementType::u32, {BenchOp::cycle}});
  }
  // The alignment's regions: a unit's two regions in the L2, from 64 KiB to twice a core's L2.
  plans.push_back({wisdom_key::align_region_bytes, defaults.align_region_bytes,
                   req.quick ? powers(128 << 10, 512 << 10)
                             : powers(64 << 10, std::max<std::uint64_t>(std::min<std::uint64_t>(2 * l2, 4 << 20), 256 << 10)),
                   ElementType::u32, {BenchOp::alignment}});
  // Streaming stores: the fused passes streamed and not at half the L3, the L3 and
  // twice it, up to the tuning size (only where that reaches the L3: below it nothing streams).
  std::vector<std::uint64_t> stream_sizes;
  if ((std::uint64_t{1} << out.log2_bytes) >= l3)
    for (std::uint64_t b = std::max<std::uint64_t>(20, ceil_log2(l3) - 1); b <= std::min<std::uint64_t>(out.log2_bytes, ceil_log2(l3) + 1); ++b)
      stream_sizes.push_back(b);

  const unsigned rounds = req.quick ? 1 : 3;
  std::size_t total = stream_sizes.size() * 2;
  for (const KeyPlan& k : plans) total += k.candidates.size();
  total *= rounds;
  std::size_t started = 0;
  // Times the trials (each a key's value at a size) in rounds, every trial once a round in
  // turn, so that a shared host's drift falls on all alike; each ratio is the median of its
  // rounds. Returns the trials that ran a round before the budget ran out.
  const auto time_trials = [&](std::vector<TuneTrial> trials, ElementType type, const std::vector<BenchOp>& ops) {
    std::vector<std::map<std::string, std::vector<double>>> samples(trials.size());
    unsigned done = 0;
    for (; done < rounds; ++done) {
      if (elapsed() > req.budget_seconds) {
        out.out_of_time = true;
        break;
      }
      for (std::size_t i = 0; i < trials.size(); ++i) {
        const TuneTrial& t = trials[i];
        if (progress)
          progress(started++, total, fmt::format("{} = {} at 2^{} bytes ({})", t.key, t.value, t.log2_bytes, info(type).name));
        override_wisdom_value(t.key, t.value);
        for (const BenchOp op : ops) {
          BenchRequest b;
          b.op = op;
          b.type = type;
          b.backend = BackendChoice::cpu;
          b.log2_words = bench_words(t.log2_bytes, type);
          b.repeat = req.quick ? 1 : 2;
          samples[i][to_string(op)].push_back(run_bench(b).ratio());
        }
        override_wisdom_value(t.key, std::nullopt);
      }
    }
    if (done == 0) return std::vector<TuneTrial>{};
    for (std::size_t i = 0; i < trials.size(); ++i)
      for (const auto& [op, v] : samples[i]) trials[i].ratios[op] = median(v);
    out.trials.insert(out.trials.end(), trials.begin(), trials.end());
    return trials;
  };
  // The values chosen so far steer the trials of the later keys; all are withdrawn at the end.
  struct Withdraw {
    std::vector<std::string> keys;
    ~Withdraw() {
      for (const std::string& key : keys) override_wisdom_value(key, std::nullopt);
    }
  } chosen;
  for (const KeyPlan& k : plans) {
    std::vector<TuneTrial> trials;
    for (const std::uint64_t value : k.candidates) trials.push_back(TuneTrial{k.key, value, out.log2_bytes, {}});
    const std::vector<TuneTrial> tried = time_trials(trials, k.type, k.ops);
    if (tried.empty()) continue;
    const TuneTrial* best = &tried.front();
    const TuneTrial* standard = nullptr;  // the default's trial, where it was a candidate
    for (const TuneTrial& t : tried) {
      if (t.score() > best->score()) best = &t;
      if (t.value == k.standard) standard = &t;
    }
    // A shared host's runs differ by several percent: the default stays unless beaten by more.
    if (standard != nullptr && best->score() < kTuneMargin * standard->score()) best = standard;
    out.wisdom.values[k.key] = best->value;
    override_wisdom_value(k.key, best->value);
    chosen.keys.push_back(k.key);
  }
  std::vector<TuneTrial> trials;
  for (const std::uint64_t b : stream_sizes)
    for (const std::uint64_t value : {std::uint64_t{1} << 16, kNever}) trials.push_back(TuneTrial{wisdom_key::streaming_bytes, value, b, {}});
  const std::vector<TuneTrial> tried = time_trials(trials, ElementType::u32, {BenchOp::fused_transpose, BenchOp::fused_bit_reversal});
  if (!tried.empty()) {
    std::vector<std::uint64_t> sizes;
    std::vector<double> streamed, plain;
    for (std::size_t i = 0; i + 1 < tried.size(); i += 2) {
      sizes.push_back(tried[i].log2_bytes);
      streamed.push_back(tried[i].score());
      plain.push_back(tried[i + 1].score());
    }
    out.wisdom.values[wisdom_key::streaming_bytes] =
        choose_streaming_bytes(sizes, streamed, plain, defaults.streaming_bytes, kTuneMargin);
  }
  if (progress) progress(total, total, "");
  out.seconds = elapsed();
  return out;
}

}  // namespace hcube

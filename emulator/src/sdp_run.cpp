#include "hcube/emulator/sdp_run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <algorithm>
#include <cstring>
#include <vector>

#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/sdp_planner.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

SdpRunResult run_on(Machine& mach, const SdpPlan& plan, const Machine::Progress& progress) {
  const Geometry& geo = mach.geometry();
  mach.reset_counters();
  const AffineMap id(geo);
  SdpRunResult r;
  if (plan.align_within.empty()) {
    r.seconds = run_schedule(mach, plan.schedule, id, id, progress).seconds;
  } else {
    // The cycles in segments, the local moves between them where the plan puts them.
    const Schedule& s = plan.schedule;
    std::size_t next = 0, first = 0;
    while (first <= s.cycles()) {
      std::size_t last = s.cycles();
      if (next < plan.align_within.size()) last = std::min(last, plan.align_within[next].first);
      if (last > first) r.seconds += run_schedule(mach, s.cycles_between(first, last), id, id, progress).seconds;
      first = last;
      const auto start = std::chrono::steady_clock::now();
      for (; next < plan.align_within.size() && plan.align_within[next].first == first; ++next)
        mach.align(plan.align_within[next].second);
      r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (first == s.cycles()) break;
    }
    if (next != plan.align_within.size())
      throw Error(fmt::format("{} plan: an alignment before cycle {} of {}", plan.algorithm,
                              plan.align_within[next].first, s.cycles()));
  }
  const auto start = std::chrono::steady_clock::now();
  for (const AlignmentStep& step : plan.align_after) mach.align(step);
  const AffineMap after = AffineMap::permute_bits(geo, plan.local_after);
  if (!after.is_identity()) mach.align(after);
  r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.counters = mach.counters();
  return r;
}

}  // namespace

std::uint64_t embedded_address(const std::vector<unsigned>& embed, std::uint64_t g) {
  if (embed.empty()) return g;
  std::uint64_t a = 0;
  for (unsigned i = 0; i < embed.size(); ++i)
    if (test_bit(g, i)) a |= bit(embed[i]);
  return a;
}

std::uint64_t sdp_scratch_bytes(const SdpPlan& plan, std::uint64_t data_bytes, std::size_t word_bytes) {
  const Geometry plan_geo{plan.schedule.n, plan.schedule.m};
  const std::uint64_t plan_bytes = plan_geo.total_words() * word_bytes;
  const bool local_copy = memory_words(plan) > bit(plan_geo.m);
  return runs_as_schedule(plan) ? (local_copy ? data_bytes : 0) : plan_bytes * (local_copy ? 2 : 1);
}

SdpRunResult run_sdp_plan(Machine& data, const SdpPlan& plan, const Machine::Progress& progress) {
  if (plan.embed.empty()) return run_on(data, plan, progress);
  const Geometry& dg = data.geometry();
  if (plan.embed.size() != dg.address_bits())
    throw Error(fmt::format("{} plan embeds {} data address bits: the machine has n + m = {}", plan.algorithm,
                            plan.embed.size(), dg.address_bits()));
  const Geometry big_geo{plan.schedule.n, plan.schedule.m};
  const BackendChoice backend = data.backend().kind() == BackendKind::cuda ? BackendChoice::cuda : BackendChoice::cpu;
  Machine big(MachineOptions{big_geo.n, big_geo.m, data.type(), backend,
                             std::min<long long>(data.layout().t, big_geo.n), data.launch_mode()});
  const std::size_t wb = data.word_bytes();
  const std::vector<unsigned char> in = data.read();
  std::vector<unsigned char> words(big.bytes(), 0);
  for (std::uint64_t g = 0; g < dg.total_words(); ++g)
    std::memcpy(&words[embedded_address(plan.embed, g) * wb], &in[g * wb], wb);
  big.load(words.data(), words.size());
  const SdpRunResult r = run_on(big, plan, progress);
  data.add_counters(r.counters);
  big.read(words.data(), words.size());
  std::vector<unsigned char> out(in.size());
  for (std::uint64_t g = 0; g < dg.total_words(); ++g)
    std::memcpy(&out[g * wb], &words[embedded_address(plan.embed, g) * wb], wb);
  data.load(out.data(), out.size());
  return r;
}

}  // namespace hcube

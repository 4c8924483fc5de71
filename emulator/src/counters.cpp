#include "hcube/emulator/counters.hpp"
#include "hcube/emulator/json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace hcube {

void Counters::add_phase(const std::string& name, double seconds) {
  auto it = std::find_if(phases.begin(), phases.end(), [&](const PhaseTime& p) { return p.name == name; });
  if (it == phases.end()) it = phases.insert(phases.end(), PhaseTime{name, 0, 0});
  it->seconds += seconds;
  ++it->calls;
}

void Counters::add(const Counters& o) {
  routing_cycles += o.routing_cycles;
  alignments += o.alignments;
  router_steps += o.router_steps;
  kernel_launches += o.kernel_launches;
  element_hops += o.element_hops;
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  router_contention += o.router_contention;
  links_total = std::max(links_total, o.links_total);
  links_used_per_cycle.insert(links_used_per_cycle.end(), o.links_used_per_cycle.begin(), o.links_used_per_cycle.end());
  for (const PhaseTime& p : o.phases) {
    auto it = std::find_if(phases.begin(), phases.end(), [&](const PhaseTime& q) { return q.name == p.name; });
    if (it == phases.end()) it = phases.insert(phases.end(), PhaseTime{p.name, 0, 0});
    it->seconds += p.seconds;
    it->calls += p.calls;
  }
}

double Counters::phase_seconds(const std::string& name) const {
  for (const PhaseTime& p : phases)
    if (p.name == name) return p.seconds;
  return 0;
}

double Counters::mean_channel_use() const {
  if (links_used_per_cycle.empty() || links_total == 0) return 0;
  const double sum = std::accumulate(links_used_per_cycle.begin(), links_used_per_cycle.end(), 0.0);
  return sum / (static_cast<double>(links_total) * static_cast<double>(links_used_per_cycle.size()));
}

nlohmann::json to_json(const Counters& c) {
  nlohmann::json phase_json = nlohmann::json::object();
  for (const PhaseTime& p : c.phases) phase_json[p.name] = {{"seconds", p.seconds}, {"calls", p.calls}};
  return {
      {"routing_cycles", c.routing_cycles},
      {"alignments", c.alignments},
      {"router_steps", c.router_steps},
      {"kernel_launches", c.kernel_launches},
      {"element_hops", c.element_hops},
      {"bytes_read", c.bytes_read},
      {"bytes_written", c.bytes_written},
      {"router_contention", c.router_contention},
      {"channel_use",
       {{"links_total", c.links_total},
        {"links_used_per_cycle", c.links_used_per_cycle},
        {"mean_fraction", c.mean_channel_use()}}},
      {"phases", phase_json},
  };
}

std::string Counters::to_text() const {
  std::string s = fmt::format(
      "routing cycles {}, alignments {}, router steps {}, kernel launches {}\n"
      "element-hops {}, bytes read {}, bytes written {}\n",
      routing_cycles, alignments, router_steps, kernel_launches, element_hops, bytes_read, bytes_written);
  if (!links_used_per_cycle.empty()) {
    s += fmt::format("channel use per cycle (of {} directed links):", links_total);
    // Long runs print the first cycles only; --json has every one.
    constexpr std::size_t kShown = 32;
    for (std::size_t c = 0; c < std::min(kShown, links_used_per_cycle.size()); ++c)
      s += fmt::format(" {}", links_used_per_cycle[c]);
    if (links_used_per_cycle.size() > kShown) s += fmt::format(" ... ({} cycles)", links_used_per_cycle.size());
    s += fmt::format(" (mean {:.1f}%)\n", 100 * mean_channel_use());
  }
  if (router_steps > 0) s += fmt::format("router contention {}\n", router_contention);
  for (const PhaseTime& p : phases) s += fmt::format("  {:<10} {:>10.6f} s  ({} calls)\n", p.name, p.seconds, p.calls);
  return s;
}

}  // namespace hcube

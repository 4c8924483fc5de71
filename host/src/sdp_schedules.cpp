#include "hcube/host/sdp_schedules.hpp"

#include <fmt/format.h>

#include <numeric>

#include "hcube/host/bits.hpp"
#include "hcube/host/error.hpp"

namespace hcube {
namespace {

// E(v, r) as one routing cycle: v a memory bit, r a processor bit of the address (r >= m).
void add_e(Schedule& s, unsigned v, unsigned r) {
  const std::uint64_t K = bit(s.m);
  for (std::uint64_t a = 0; a < K; ++a)
    if (test_bit(a, v)) s.add(Exchange{r - s.m, a, a ^ bit(v)});
  s.end_cycle();
}

}  // namespace

SdpPlan plan_a1_one_port(const DimensionPermutation& p) {
  const DimensionPermutationAnalysis a = analyze(p);
  SdpPlan plan;
  plan.algorithm = "A1";
  Schedule& s = plan.schedule;
  s.algorithm = "A1";
  s.n = p.n;
  s.m = p.m;
  s.d = std::max(1u, std::min(p.n, p.m));  // informational: the schedule is no AAPC
  s.pre = s.post = AlignmentKind::none;
  s.rules.model = PortModel::one_port;
  s.rules.channel_width = p.m == 0 ? 1 : static_cast<unsigned>(std::min<std::uint64_t>(bit(p.m - 1), 0xffffffffu));
  // where[x]: the position whose content ends up at storage position x after the exchanges.
  std::vector<unsigned> source(p.m);
  std::iota(source.begin(), source.end(), 0u);
  for (const ShuffleCycle& c : a.cycles) {
    const std::vector<unsigned>& b = c.bits;
    const std::size_t order = b.size();
    if (c.kind == ShuffleCycle::Kind::real) {
      if (p.m == 0) throw Error("A1 needs a storage dimension as pivot for a real cycle: m = 0 (K = 1)");
      const unsigned v = 0;  // any storage bit: the chain restores its content
      for (std::size_t k = 0; k <= order; ++k) add_e(s, v, b[k % order]);
      continue;
    }
    // Mixed or virtual: start at a storage bit; each storage bit u followed by
    // processor bits r_1..r_t pivots their chain, ending with r_t's content at u.
    std::size_t first = 0;
    while (p.is_processor_bit(b[first])) ++first;
    std::size_t k = first;
    do {
      const unsigned u = b[k];
      std::size_t next = (k + 1) % order;
      while (p.is_processor_bit(b[next])) {
        add_e(s, u, b[next]);
        next = (next + 1) % order;
      }
      // The storage bit after the run receives what u now holds: u's own
      // content when the run is empty, the run's last processor content otherwise.
      source[b[next]] = u;
      k = next;
    } while (k != first);
  }
  // Content at position source[x] goes to x: memory bit source[x] moves to bit x.
  plan.local_after.assign(p.m, 0);
  for (unsigned x = 0; x < p.m; ++x) plan.local_after[source[x]] = x;
  plan.startups = s.cycles();
  return plan;
}

}  // namespace hcube

#include "hcube/host/exchange_baselines.hpp"

#include <fmt/format.h>

#include "hcube/host/aapc.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

ExchangeBaseline parse_exchange_baseline(const std::string& s) {
  if (s == "sex") return ExchangeBaseline::standard;
  if (s == "dex") return ExchangeBaseline::direct;
  throw Error(fmt::format("exchange baseline '{}' unknown: allowed sex, dex", printable_input(s)));
}

std::string to_string(ExchangeBaseline b) { return b == ExchangeBaseline::standard ? "sex" : "dex"; }

Schedule make_exchange_baseline(ExchangeBaseline b, unsigned d, unsigned n, unsigned m) {
  check_aapc_dimensions(d, n, m);
  if (b == ExchangeBaseline::standard && m > 33)
    throw Error(fmt::format("standard exchange with m = {}: a block of K/2 = 2^{} words exceeds a channel's width; "
                            "allowed m <= 33",
                            m, m - 1));
  Schedule s;
  s.algorithm = to_string(b);
  s.d = d;
  s.n = n;
  s.m = m;
  s.rules.model = PortModel::one_port;
  const std::uint64_t K = bit(m), rel = low_mask(d);
  if (b == ExchangeBaseline::standard) {
    // One block of K/2 words per round: the channel carries all of them.
    s.rules.channel_width = static_cast<unsigned>(K / 2);
    s.reserve(d, d * K / 2);
    for (unsigned k = 0; k < d; ++k) {
      for (std::uint64_t a = 0; a < K; ++a)
        if (test_bit(a & rel, k)) s.add(direct_exchange(k, a));
      s.end_cycle();
    }
  } else {
    // Round i: the packet of 2^(m-d) words with relative address i, hop by hop.
    s.rules.channel_width = static_cast<unsigned>(bit(m - d));
    for (std::uint64_t i = 1; i <= rel; ++i)
      for (unsigned k = 0; k < d; ++k) {
        if (!test_bit(i, k)) continue;
        for (std::uint64_t h = 0; h < bit(m - d); ++h) s.add(direct_exchange(k, (h << d) | i));
        s.end_cycle();
      }
  }
  return s;
}

BaselineCost baseline_cost(ExchangeBaseline b, unsigned d) {
  BaselineCost c;
  const std::uint64_t half = bit(d - 1);
  if (b == ExchangeBaseline::standard) {
    c.rounds = c.startups = c.cycles = d;
    c.element_units = d * half;
  } else {
    c.rounds = c.startups = c.element_units = bit(d) - 1;
    c.hop_units = c.cycles = d * half;
  }
  return c;
}

}  // namespace hcube

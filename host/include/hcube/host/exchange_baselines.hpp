// The all-to-all scatter baselines of the lecture notes (sec. 1 and 10 of
// the digest), as schedules on the emulated cube in aligned coordinates (a
// word at local address w must cross the bits of w mod 2^d):
//   standard exchange (SEX): one-port with combining, d rounds; in round b
//     every word whose relative address has bit b set crosses dimension b,
//     N/2 packets of 2^(m-d) words in one block;
//   direct exchange (DEX): 2^d - 1 rounds, round i sending node p's packet for
//     p xor i along the e-cube path (bits of i in increasing order), one
//     store-and-forward hop per cycle.
#pragma once

#include <cstdint>
#include <string>

#include "hcube/host/schedule.hpp"

namespace hcube {

enum class ExchangeBaseline { standard, direct };
ExchangeBaseline parse_exchange_baseline(const std::string& s);  // "sex" | "dex"
std::string to_string(ExchangeBaseline b);                        // "sex" | "dex"

// Throws hcube::Error for d, n, m out of range (as make_aapc_schedule).
Schedule make_exchange_baseline(ExchangeBaseline b, unsigned d, unsigned n, unsigned m);

// The notes' cost, t = startups t_s + element_units mu t_m + hop_units t_d,
// with mu the packet size (2^(m-d) words per destination):
//   SEX: d (t_s + 2^(d-1) mu t_m)               (t_d = 0: store and forward)
//   DEX: (2^d - 1)(t_s + mu t_m) + d 2^(d-1) t_d (wormhole; the notes print n t_d / 2 per round)
struct BaselineCost {
  std::uint64_t rounds = 0;
  std::uint64_t startups = 0;
  std::uint64_t element_units = 0;
  std::uint64_t hop_units = 0;
  std::uint64_t cycles = 0;  // routing cycles of the emulated schedule
};
BaselineCost baseline_cost(ExchangeBaseline b, unsigned d);

}  // namespace hcube

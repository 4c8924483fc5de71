#include "hcube/host/exchange_rounds.hpp"

#include <algorithm>
#include <unordered_map>

namespace hcube {
namespace {

// `Ready` maps an address to the first round whose exchanges may touch it (0 where unset).
template <class Ready>
ExchangeRounds rounds_with(const Schedule& s, unsigned first_crossing, Ready& ready) {
  ExchangeRounds out;
  out.round.reserve(s.exchanges());
  // `floor` is the same for every address, raised by an exchange with an
  // offset map; `latest`, the latest round any exchange left an address ready in.
  std::uint32_t floor = 0, latest = 0;
  for (std::size_t c = 0; c < s.cycles(); ++c) {
    const Exchange* x = s.cycle_begin(c);
    for (std::size_t e = 0; e < s.cycle_size(c); ++e) {
      std::uint32_t round = floor;
      if (x[e].offset_map != 0)
        round = latest;
      else
        round = std::max({floor, ready.get(x[e].addr), ready.get(x[e].peer_addr)});
      // A crossing exchange's words land at the end of its round: the next may use them.
      const std::uint32_t after = round + (x[e].dim >= first_crossing ? 1 : 0);
      if (x[e].offset_map != 0) {
        floor = after;  // every address's entry is below it now
      } else {
        ready.set(x[e].addr, after);
        ready.set(x[e].peer_addr, after);
      }
      latest = std::max(latest, after);
      out.round.push_back(round);
      out.rounds = std::max(out.rounds, round + 1);
    }
  }
  return out;
}

struct DenseReady {
  std::vector<std::uint32_t> round;
  std::uint32_t get(std::uint64_t a) const { return round[a]; }
  void set(std::uint64_t a, std::uint32_t r) { round[a] = r; }
};

struct SparseReady {
  std::unordered_map<std::uint64_t, std::uint32_t> round;
  std::uint32_t get(std::uint64_t a) const {
    const auto it = round.find(a);
    return it == round.end() ? 0 : it->second;
  }
  void set(std::uint64_t a, std::uint32_t r) { round[a] = r; }
};

}  // namespace

ExchangeRounds exchange_rounds(const Schedule& s, unsigned first_crossing) {
  // A table of every address where it is not much larger than the schedule.
  const std::uint64_t K = s.geometry().words_per_node();
  if (K <= 4 * std::uint64_t{s.exchanges()} + 4096) {
    DenseReady ready{std::vector<std::uint32_t>(K, 0)};
    return rounds_with(s, first_crossing, ready);
  }
  SparseReady ready;
  return rounds_with(s, first_crossing, ready);
}

}  // namespace hcube

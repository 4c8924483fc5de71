// The order in which a machine whose top node dimensions are split over
// processes may run a schedule's exchanges, with one message per partner a
// round instead of a cycle (docs/distributed.md, "Rounds"). The routing cycles
// stay the program: every exchange runs once, on the words it would have in
// cycle order, so the result is the same bit for bit; only exchanges that
// touch no common word are moved past each other.
#pragma once

#include <cstdint>
#include <vector>

#include "hcube/host/schedule.hpp"

namespace hcube {

struct ExchangeRounds {
  // Per exchange of the schedule (in its order): the round it runs in.
  std::vector<std::uint32_t> round;
  std::uint32_t rounds = 0;  // 1 + the largest round; 0 for no exchange
};

// Rounds for a schedule whose exchanges along dimensions >= `first_crossing`
// cross between processes. Round k runs, cycle by cycle, its exchanges along
// the lower dimensions; then the words of its crossing exchanges, read after
// those, cross together and land. An exchange's round is the first in which
// every earlier exchange that touches one of its local addresses (`addr` or
// `peer_addr`) has run and, if crossing, landed: so the words it reads are
// those cycle order gives it, and no later exchange reads a word it has not
// written yet. An exchange with a node-dependent address (an offset map) may
// touch any address: it waits for all before it, and all after it wait for it.
// The schedule must have passed check_schedule (its addresses within a node).
ExchangeRounds exchange_rounds(const Schedule& schedule, unsigned first_crossing);

}  // namespace hcube

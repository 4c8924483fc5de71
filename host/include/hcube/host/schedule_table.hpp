// A schedule as the papers print it (Johnsson & Ho 1992, Tables 5-7): what
// `hcube schedule` prints, for any client.
#pragma once

#include <cstddef>
#include <string>

#include "hcube/host/schedule.hpp"

namespace hcube {

// Longer schedules show their head and tail unless `all`.
inline constexpr std::size_t kTableAll = 64, kTableHead = 32, kTableTail = 8;

// The paper's Table 5 layout, a row per cycle, then Algorithm 4's mixed block
// (Table 7) and the counts beside the paper's (Table 6, Lemma 4, Theorem 1).
std::string schedule_table(const Schedule& s, const ScheduleStats& st, bool all);

}  // namespace hcube

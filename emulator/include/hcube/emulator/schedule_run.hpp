// Runs a schedule on a machine: pre-alignment, one launch per routing cycle,
// post-alignment (Johnsson & Ho 1992, sec. 2.2.1, phases 1-3).
#pragma once

#include <vector>

#include "hcube/emulator/machine.hpp"
#include "hcube/host/affine_map.hpp"
#include "hcube/host/schedule.hpp"

namespace hcube {

struct ScheduleRun {
  ScheduleStats stats;
  double seconds = 0;  // wall time of the three phases
};

// The alignments run_schedule runs before and after the cycles, one launch
// each: the schedule's xor alignment (all its axes, Lemma 1) with f before /
// g after it folded in, Algorithm 5's pair (host/concurrent_aapc.hpp), f or g
// alone when the schedule has none, or nothing.
std::vector<AlignmentStep> schedule_pre_alignment(const Schedule& schedule, const AffineMap& f);
std::vector<AlignmentStep> schedule_post_alignment(const Schedule& schedule, const AffineMap& g);
// Whether running the schedule with f and g needs the machine's scratch copy:
// an alignment that is no involution copies through it (others swap in place).
bool schedule_needs_scratch(const Schedule& schedule, const AffineMap& f, const AffineMap& g);
// The same for alignments made already: whether one of them is no involution.
bool alignments_need_scratch(const std::vector<AlignmentStep>& steps);

// f and g are the permutation's code conversions, folded into the alignments
// (identity maps for the plain axis exchange). With alignment `none` a
// non-identity f or g runs as an alignment of its own.
ScheduleRun run_schedule(Machine& machine, const Schedule& schedule, const AffineMap& f, const AffineMap& g,
                         const Machine::Progress& progress = {});

// run_schedule in its two halves: every check before anything moves, then the
// motion alone (what a benchmark times, the checks made once).
struct CheckedSchedule {
  const Schedule& schedule;
  ScheduleStats stats;
  std::vector<AlignmentStep> pre, post;
};
CheckedSchedule check_schedule_run(const Machine& machine, const Schedule& schedule, const AffineMap& f,
                                   const AffineMap& g);
// The result refers to the schedule, which must outlive it: not a temporary.
CheckedSchedule check_schedule_run(const Machine&, Schedule&&, const AffineMap&, const AffineMap&) = delete;
// Returns the wall time of the three phases.
double run_checked_schedule(Machine& machine, const CheckedSchedule& checked, const Machine::Progress& progress = {});

}  // namespace hcube

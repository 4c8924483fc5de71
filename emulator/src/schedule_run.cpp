#include "hcube/emulator/schedule_run.hpp"

#include <chrono>
#include <utility>

#include "hcube/host/concurrent_aapc.hpp"

namespace hcube {

std::vector<AlignmentStep> schedule_pre_alignment(const Schedule& s, const AffineMap& f) {
  const Geometry geo = s.geometry();
  if (s.pre == AlignmentKind::xor_align) return {AlignmentStep(f.then(AffineMap::xor_fold(geo, s.axis_widths())))};
  if (s.pre == AlignmentKind::concurrent) return concurrent_pre_alignment(geo, s.d, s.axes, s.rotated_rows, s.rotated_by_bit, f);
  if (!f.is_identity()) return {AlignmentStep(f)};
  return {};
}

std::vector<AlignmentStep> schedule_post_alignment(const Schedule& s, const AffineMap& g) {
  const Geometry geo = s.geometry();
  if (s.post == AlignmentKind::xor_align) return {AlignmentStep(AffineMap::xor_fold(geo, s.axis_widths()).then(g))};
  if (s.post == AlignmentKind::concurrent) return concurrent_post_alignment(geo, s.d, s.axes, s.rotated_rows, s.rotated_by_bit, g);
  if (!g.is_identity()) return {AlignmentStep(g)};
  return {};
}

bool alignments_need_scratch(const std::vector<AlignmentStep>& steps) {
  for (const AlignmentStep& a : steps)
    if (!a.map.is_involution()) return true;
  return false;
}

bool schedule_needs_scratch(const Schedule& s, const AffineMap& f, const AffineMap& g) {
  return alignments_need_scratch(schedule_pre_alignment(s, f)) || alignments_need_scratch(schedule_post_alignment(s, g));
}

CheckedSchedule check_schedule_run(const Machine& machine, const Schedule& s, const AffineMap& f, const AffineMap& g) {
  machine.check_geometry(s);
  ScheduleStats stats = check_schedule(s);
  return CheckedSchedule{s, std::move(stats), schedule_pre_alignment(s, f), schedule_post_alignment(s, g)};
}

double run_checked_schedule(Machine& machine, const CheckedSchedule& checked, const Machine::Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  for (const AlignmentStep& a : checked.pre) machine.align(a);
  machine.run_checked_cycles(checked.schedule, progress);
  for (const AlignmentStep& a : checked.post) machine.align(a);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ScheduleRun run_schedule(Machine& machine, const Schedule& s, const AffineMap& f, const AffineMap& g,
                         const Machine::Progress& progress) {
  // Check everything before the first word moves.
  const CheckedSchedule checked = check_schedule_run(machine, s, f, g);
  ScheduleRun run;
  run.seconds = run_checked_schedule(machine, checked, progress);
  run.stats = checked.stats;
  return run;
}

}  // namespace hcube

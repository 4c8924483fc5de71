#include "hcube/emulator/schedule_run.hpp"

#include <chrono>

#include "hcube/host/aapc_permutation.hpp"

namespace hcube {

std::optional<AffineMap> schedule_pre_alignment(const Schedule& s, const AffineMap& f) {
  if (s.pre == AlignmentKind::xor_align) return pre_alignment(s.geometry(), s.d, f, s.axes);
  if (!f.is_identity()) return f;
  return std::nullopt;
}

std::optional<AffineMap> schedule_post_alignment(const Schedule& s, const AffineMap& g) {
  if (s.post == AlignmentKind::xor_align) return post_alignment(s.geometry(), s.d, g, s.axes);
  if (!g.is_identity()) return g;
  return std::nullopt;
}

ScheduleRun run_schedule(Machine& machine, const Schedule& s, const AffineMap& f, const AffineMap& g,
                         const Machine::Progress& progress) {
  // Check everything before the first word moves.
  ScheduleRun run;
  machine.check_geometry(s);
  run.stats = check_schedule(s);
  const std::optional<AffineMap> pre = schedule_pre_alignment(s, f), post = schedule_post_alignment(s, g);
  const auto start = std::chrono::steady_clock::now();
  if (pre) machine.align(*pre);
  machine.run_checked_cycles(s, progress);
  if (post) machine.align(*post);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace hcube

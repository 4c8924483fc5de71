#include "hcube/emulator/schedule_run.hpp"

#include <fmt/format.h>

#include <chrono>

#include "hcube/host/error.hpp"

#include "hcube/host/aapc_permutation.hpp"

namespace hcube {

ScheduleRun run_schedule(Machine& machine, const Schedule& s, const AffineMap& f, const AffineMap& g,
                         const Machine::Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const Geometry geo = machine.geometry();
  // Check everything before the first word moves.
  ScheduleRun run;
  if (s.n != geo.n || s.m != geo.m)
    throw Error(fmt::format("schedule is for n = {}, m = {}: the machine has n = {}, m = {}", s.n, s.m, geo.n, geo.m));
  run.stats = check_schedule(s);
  if (s.pre == AlignmentKind::xor_align)
    machine.align(pre_alignment(geo, s.d, f));
  else if (!f.is_identity())
    machine.align(f);
  machine.run_checked_cycles(s, progress);
  if (s.post == AlignmentKind::xor_align)
    machine.align(post_alignment(geo, s.d, g));
  else if (!g.is_identity())
    machine.align(g);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace hcube

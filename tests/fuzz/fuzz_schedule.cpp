// The schedule reader: the whole input is a schedule file's text, parsed as
// load_schedule parses it (parse_schedule), then checked (check_schedule). A
// schedule accepted by both must survive to_json and parse_schedule unchanged,
// and on a small machine it runs as `hcube run --schedule` runs it: a plain
// AAPC verified against the transpose, anything else step by step, each step
// against its own definition.
#include "fuzz_run.hpp"
#include "hcube/plans.hpp"
#include "hcube/host/aapc_build.hpp"
#include "hcube/host/affine_map.hpp"
#include "hcube/host/schedule.hpp"
#include "hcube/host/schedule_json.hpp"

namespace {

using namespace hcube;
using namespace hcube::fuzz;

// check_schedule keeps a few words per local address (2^m of them), as a
// machine of that size keeps the data: beyond this the target checks only
// what check_schedule rejects before allocating (n + m out of range).
constexpr unsigned kMaxCheckedMemDims = 16;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Schedule s;
  if (!accepted([&] { s = parse_schedule(text(data, size), "input"); })) return 0;
  if (s.m > kMaxCheckedMemDims && s.n + s.m <= kMaxAddressBits) return 0;
  ScheduleStats st;
  if (!accepted([&] { st = check_schedule(s); })) return 0;
  HCUBE_FUZZ_EXPECT(st.cycles == s.cycles() && st.exchanges == s.exchanges(), "check_schedule miscounts");

  const std::string saved = to_json(s).dump();
  Schedule again;
  if (!accepted([&] { again = parse_schedule(saved, "saved"); }))
    finding("to_json wrote a schedule parse_schedule rejects: " + saved);
  HCUBE_FUZZ_EXPECT(to_json(again).dump() == saved, "to_json then parse_schedule changes the schedule: " + saved);
  if (!accepted([&] { check_schedule(again); })) finding("the saved schedule no longer checks: " + saved);

  if (s.n + s.m > kMaxRunBits) return 0;
  run_verified_or_rejected([&] {
    const AffineMap id(s.geometry());
    // Only a plain AAPC is proven by check_schedule to realise what its header
    // names; any other file that breaks its header is a bad file, not a finding.
    const std::optional<NamedPermutation> named = plain_aapc(s) ? named_permutation(s) : std::nullopt;
    Job job;
    job.schedule = s;
    job.f = id;
    job.g = id;
    if (named) job.destination = named->destination;
    job.permutation = "as-scheduled";
    const MachineOptions machine = small_machine(s.geometry(), size);
    SchedulePlan plan(std::move(job), PlanTarget{machine.type, machine.backend});
    Session session = open_session(machine);
    RunOptions options;
    // Step by step, each step verified, or the whole run at once against what the header names.
    options.trace = !named || size % 2 == 1;
    execute_verified(session, plan, options);
  });
  return 0;
}

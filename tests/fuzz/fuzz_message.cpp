// --message (parse_message) and the router step check (check_router_step); a
// step that passes runs as `hcube route` runs it (fuzz_run.hpp).
// Input: byte 0 and byte 1 give n and m (each byte % 32: 'A' is 1, 'D' is 4),
// byte 2 the limits (--max-message byte % 32; --contention reject when it is
// a lowercase letter, i.e. bit 0x20 set, else report), then the --message
// values separated by spaces (one per --message flag).
#include <vector>

#include "fuzz_run.hpp"
#include "hcube/host/geometry.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/host/router_step.hpp"

using namespace hcube;
using namespace hcube::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  Geometry geo;
  if (!accepted([&] { geo = make_geometry(small_dims(data[0]), small_dims(data[1])); })) return 0;
  const RouterLimits limits{data[2] % 32u, (data[2] & 0x20) ? ContentionPolicy::reject : ContentionPolicy::report};
  const std::string all = text(data + 3, size - 3);
  RouterStep step;
  for (std::size_t start = 0;;) {
    const std::size_t end = all.find(' ', start);
    const std::string one = all.substr(start, end == std::string::npos ? std::string::npos : end - start);
    Message msg;
    if (!accepted([&] { msg = parse_message(one); })) return 0;
    step.push_back(msg);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  RouterStepReport rep;
  if (!accepted([&] { rep = check_router_step(geo, step, limits); })) return 0;
  std::uint64_t words = 0;
  for (const Message& msg : step) words += msg.length;
  HCUBE_FUZZ_EXPECT(rep.words == words && rep.max_message <= limits.max_message && rep.contention < step.size() + 1,
                    "check_router_step's counts do not add up");

  if (geo.n + geo.m > kMaxRunBits) return 0;
  run_verified_or_rejected([&] {
    Session s = open_session(small_machine(geo, size));
    const std::size_t wb = s.machine->word_bytes();
    RouterStepReport got;
    run_step(
        s, "router step", [&](const std::vector<unsigned char>& in) { return reference_route(in, wb, geo, step); },
        [&](Machine& mach) { got = mach.route(step, limits); });
    HCUBE_FUZZ_EXPECT(got.words == rep.words && got.contention == rep.contention && got.max_message == rep.max_message,
                      "the machine's router step counts differ from check_router_step's");
  });
  return 0;
}

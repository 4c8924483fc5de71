// --cycle (parse_cycle) and the check every parsed cycle gets (check_cycle);
// a cycle that passes runs as `hcube cycle` runs it (fuzz_run.hpp).
// Input: byte 0 and byte 1 give n and m (each byte % 32: 'A' is 1, 'D' is 4),
// byte 2 the port rules (channel width byte % 32; one-port when it is a
// lowercase letter, i.e. bit 0x20 set), then the --cycle text.
#include <sstream>

#include "fuzz_run.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/host/geometry.hpp"
#include "hcube/host/reference.hpp"

using namespace hcube;
using namespace hcube::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  Geometry geo;
  if (!accepted([&] { geo = make_geometry(small_dims(data[0]), small_dims(data[1])); })) return 0;
  const PortRules rules{(data[2] & 0x20) ? PortModel::one_port : PortModel::all_port, data[2] % 32u};
  Cycle c;
  if (!accepted([&] { c = parse_cycle(text(data + 3, size - 3)); })) return 0;
  HCUBE_FUZZ_EXPECT(!c.empty(), "parse_cycle accepted an empty cycle");

  // The cycle written back as dim:addr:peer_addr parses to itself.
  std::ostringstream back;
  for (std::size_t e = 0; e < c.size(); ++e) {
    HCUBE_FUZZ_EXPECT(c[e].dim <= 63 && c[e].offset_map == 0, "parse_cycle accepted a bad exchange " + to_string(c[e]));
    back << (e ? "," : "") << c[e].dim << ':' << c[e].addr << ':' << c[e].peer_addr;
  }
  const Cycle again = parse_cycle(back.str());
  for (std::size_t e = 0; e < c.size(); ++e)
    HCUBE_FUZZ_EXPECT(again.size() == c.size() && again[e].dim == c[e].dim && again[e].addr == c[e].addr &&
                          again[e].peer_addr == c[e].peer_addr,
                      "parse_cycle does not read back " + back.str());

  if (!accepted([&] { check_cycle(geo, c, rules, 0); })) return 0;
  const CycleUse u = cycle_use(geo, c);
  HCUBE_FUZZ_EXPECT(u.dims_used >= 1 && u.dims_used <= geo.n, "cycle_use counts dimensions outside the cube");

  if (geo.n + geo.m > kMaxRunBits) return 0;
  run_verified_or_rejected([&] {
    Session s = open_session(small_machine(geo, size));
    run_step(s, "routing cycle 0", cycle_destination(geo, c), [&](Machine& mach) { mach.run_cycle(c, rules); });
  });
  return 0;
}

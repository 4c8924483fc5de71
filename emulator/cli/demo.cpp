// hcube demo: the data motion of a d-cube shown step by step. Every word is
// labelled with its starting global address g = node * K + local, so each
// table shows where every word went.
#include <fmt/format.h>

#include <iostream>
#include <numeric>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/core/error.hpp"

namespace hcube::cli {

void add_demo(CLI::App& app) {
  struct Flags {
    MachineFlags machine;
    IoFlags io;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("demo", "show an all-port exchange cycle and the xor alignment on a d-cube (d = 4)");
  add_machine_flags(*cmd, f->machine, "cube dimension d (2^d nodes; K = 2^d words unless --mem-dims)");
  cmd->add_flag("--json", f->io.json, "print one JSON object with every state");
  cmd->callback([f] {
    MachineFlags mf = f->machine;
    if (mf.m == kUnsetDims) mf.m = mf.n;  // K = 2^d words unless --mem-dims
    resolve_machine(mf, nullptr);
    IoFlags io = f->io;
    io.trace = true;
    const Geometry geo = make_geometry(mf.n, mf.m);
    if (geo.n < 1 || geo.n > 6 || geo.m < geo.n || geo.m > 8)
      throw Error(fmt::format("demo prints every word: allowed 1 <= d <= 6 and d <= m <= 8, got d = {}, m = {}", geo.n,
                              geo.m));
    RunSession s = open_run_session(mf, io);
    if (!io.json)
      fmt::print(
          "A {}-cube of {} nodes, {} words each. Word (node j, address i) starts with the label j*{} + i.\n"
          "Rows are nodes (in binary), columns local addresses.\n\n",
          geo.n, geo.nodes(), geo.words_per_node(), geo.words_per_node());
    begin_trace(s, io);

    // One all-port cycle: every dimension k carries one exchange, at address k,
    // so all n * 2^n directed links are busy at once.
    Cycle cycle;
    for (unsigned k = 0; k < geo.n; ++k) cycle.push_back(direct_exchange(k, k));
    if (!io.json)
      fmt::print("Routing cycle (one kernel launch): node j swaps word k with node j xor 2^k, for k = 0..{}.\n",
                 geo.n - 1);
    run_traced_step(s, io, "routing cycle", cycle_destination(geo, cycle),
             [&](Machine& mach) { mach.run_cycle(cycle); });

    // The pre-alignment of the AAPC (Johnsson-Ho sec. 2): (j|i) -> (j|i xor j),
    // after which every node sends the same local address in each cycle.
    std::vector<unsigned> dims(geo.n);
    std::iota(dims.begin(), dims.end(), 0u);
    const AffineMap align = AffineMap::xor_align(geo, dims, dims);
    if (!io.json)
      fmt::print("Alignment (one kernel launch): node j moves its word i to address i xor j.\n");
    run_traced_step(s, io, "alignment", alignment_destination(align),
             [&](Machine& mach) { mach.align(align); });

    const Machine& mach = *s.machine;
    nlohmann::json j = {{"command", "demo"}, {"cycle", nlohmann::json::array()}, {"verified", true}, {"trace", s.trace}};
    for (const Exchange& e : cycle) j["cycle"].push_back({{"dim", e.dim}, {"addr", e.addr}, {"peer_addr", e.peer_addr}});
    j.update(machine_json(s));
    emit(io, j, [&] {
      fmt::print("Both steps verified bit for bit against the reference permutation.\n");
      fmt::print("backend: {} ({})\n{}", to_string(mach.backend().kind()), mach.backend().device_name(),
                 mach.counters().to_text());
    });
  });
}

}  // namespace hcube::cli

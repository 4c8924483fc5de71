// hcube synthesize: the fewest routing cycles of an AAPC, a sequence of AAPCs or a permutation
// of the address bits on this machine, found by a SAT solver (synthesize/, docs/synthesize.md), written as a schedule file
// that `hcube run --schedule` verifies. Parses the flags, calls the library, prints.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/synthesize.hpp"

namespace hcube::cli {

void add_synthesize(CLI::App& app) {
  struct Flags {
    SynthesisRequest request;
    std::string output;
    bool json = false;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "synthesize",
      "find the fewest routing cycles of an AAPC, a sequence of AAPCs or a permutation of the address bits on this "
      "machine with a SAT solver "
      "(CaDiCaL), prove one fewer impossible where it can, and write the schedule file (docs/synthesize.md)");
  cmd->add_option("pattern", f->request.pattern, "the communication: aapc, multi-aapc, permute or scatter")->required();
  cmd->add_option("--topology", f->request.topology, "scatter: ring:z, torus:z1xz2, mesh:z1xz2 or cube:d (<= 64 nodes)");
  // -n as hcube permute spells the processor dimensions.
  cmd->add_option("-d,-n,--dims", f->request.dims,
                  "aapc: its dimensions d; multi-aapc: d of each axis (with --axes) or the axes' orders d_1,d_2,...; "
                  "permute: the processor dimensions n");
  cmd->add_option("-p,--perm", f->request.perm,
                  "permute: p0,...,p(n+m-1) (source bit i to bit p_i, bit 0 the lowest local address bit), or "
                  "transpose, bit-reversal, shuffle:k, unshuffle:k, swap-axes:a:b:w, random:seed (as hcube permute)");
  cmd->add_option("-s,--axes", f->request.axes, "multi-aapc: the number of AAPCs s");
  cmd->add_option("-m,--mem-dims", f->request.m,
                  "memory dimensions m >= d (default d; permute: n): K = 2^m words per node");
  cmd->add_option("--max-cycles", f->request.max_cycles, "the most routing cycles tried (default: until found)");
  cmd->add_option("--time-limit", f->request.time_limit, "seconds for the whole search (default 0: none)");
  cmd->add_option("--port-model", f->request.port_model, "all (every dimension each cycle) or one (default all; scatter: one)");
  output_flag(cmd->add_option("-o,--output", f->output, "the file written (hcube-schedule/1; scatter: hcube-scatter/1)"))->required();
  cmd->add_flag("--json", f->json, "print one JSON object instead of prose");
  cmd->callback([f] {
    const SynthesisResult r = synthesize(f->request);
    const bool scatter = r.pattern == "scatter";
    save_synthesis(f->output, r);
    if (f->json) {
      nlohmann::json j = to_json(r);
      j["command"] = "synthesize";
      j["output"] = f->output;
      std::cout << j.dump() << "\n";
      return;
    }
    for (const SynthesisRun& x : r.runs)
      fmt::print("T = {} ({} model): {} in {:.2f} s\n", x.cycles, x.model, x.status, x.seconds);
    fmt::print("{}\n", synthesis_summary(r));
    fmt::print("{} variables, {} clauses, {:.2f} s ({})\n", r.variables, r.clauses, r.seconds, synthesis_solver());
    fmt::print("schedule: {} (hcube {} --schedule {} verifies it)\n", f->output, scatter ? "scatter" : "run", f->output);
  });
}

}  // namespace hcube::cli

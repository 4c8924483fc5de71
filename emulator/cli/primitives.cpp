// hcube cycle | align | route: run the machine's primitives directly, each
// verified against the reference permutation of its definition.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "hcube/emulator/measure.hpp"
#include "common.hpp"
#include "hcube/app/distributed.hpp"
#include "hcube/app/ranks.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube::cli {

void add_cycle(CLI::App& app) {
  struct Flags {
    MachineFlags machine;
    IoFlags io;
    std::vector<std::string> cycles;
    std::string port = "all";
    unsigned width = 1;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("cycle", "run routing cycles: direct-addressed dimension exchanges, one launch each");
  add_machine_flags(*cmd, f->machine);
  add_launch_flag(*cmd, f->machine.launch);
  add_io_flags(*cmd, f->io, true);
  cmd->add_option("-c,--cycle", f->cycles,
                  "one routing cycle: comma-separated exchanges dim:addr[:peer_addr]; node j (bit dim clear) swaps "
                  "word addr with word peer_addr of node j xor 2^dim. Repeat for more cycles")
      ->required();
  choices(cmd->add_option("--port-model", f->port, "all (all-port) or one (one dimension per cycle)"), {"all", "one"})
      ->capture_default_str();
  cmd->add_option("-b,--channel-width", f->width, "exchanges one dimension may carry per cycle")->capture_default_str();
  cmd->callback([f] {
    const PortRules rules{parse_port_model(f->port), f->width};
    std::vector<Cycle> cycles;
    const std::shared_ptr<NpyInput> input = open_input(f->io.input);
    resolve_machine(f->machine, input.get());
    const Geometry geo = make_geometry(f->machine.n, f->machine.m);
    for (std::size_t c = 0; c < f->cycles.size(); ++c) {
      cycles.push_back(parse_cycle(f->cycles[c]));
      check_cycle(geo, cycles.back(), rules, c);  // every cycle is checked before anything runs
    }
    nlohmann::json list = nlohmann::json::array();
    for (const Cycle& c : cycles) list.push_back(exchanges_json(c));
    const nlohmann::json fields = {{"command", "cycle"},
                                   {"port_model", to_string(rules.model)},
                                   {"channel_width", rules.channel_width},
                                   {"cycles", list}};
    const std::string summary = fmt::format("{} routing cycle(s)", cycles.size());
    if (distributed()) {
      run_cycles_across_ranks(f->machine, f->io, cycles, fields, summary);
      return;
    }
    check_fits("hcube cycle", f->machine, input.get(), {}, f->io.trace);  // the cycles swap in place
    RunSession s = open_run_session(f->machine, f->io, input, f->io.trace);
    begin_trace(s, f->io);
    for (std::size_t c = 0; c < cycles.size(); ++c)
      run_traced_step(s, f->io, fmt::format("routing cycle {}", c), cycle_destination(geo, cycles[c]),
               [&](Machine& mach) { mach.run_cycle(cycles[c], rules); });
    finish_run(s, f->io, fields, summary);
  });
}

void add_align(CLI::App& app) {
  struct Flags {
    MachineFlags machine;
    IoFlags io;
    std::string xor_proc, xor_mem, perm, gray;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "align", "run one local alignment: i -> gray(perm(i xor j_P)), every node at once, one launch");
  add_machine_flags(*cmd, f->machine);
  add_io_flags(*cmd, f->io, true);
  cmd->add_option("--xor-proc", f->xor_proc, "processor dimensions p0,p1,... whose node bits are xored ...");
  cmd->add_option("--xor-mem", f->xor_mem, "... onto these memory dimensions (pre/post-alignment (j|i) -> (j|i xor j))");
  cmd->add_option("--mem-perm", f->perm, "then memory address bit b moves to bit perm[b]: a permutation of 0..m-1");
  cmd->add_option("--gray", f->gray, "then Gray code conversion of a bit field: lo:width:encode or lo:width:decode");
  cmd->callback([f] {
    const std::shared_ptr<NpyInput> input = open_input(f->io.input);
    resolve_machine(f->machine, input.get());
    const Geometry geo = make_geometry(f->machine.n, f->machine.m);
    const AffineMap map = alignment_map(geo, f->xor_proc, f->xor_mem, f->perm, f->gray);
    const nlohmann::json fields = {{"command", "align"}, {"map", map.describe()}, {"in_place", map.is_pure_xor()}};
    if (distributed()) {
      run_step_across_ranks(
          f->machine, f->io, "alignment", alignment_destination(map), alignment_step(map),
          [&](const Counters&, double seconds) {
            nlohmann::json j = fields;
            j["seconds"] = seconds;
            return j;
          },
          [&](const Counters&, double) { return "1 alignment (" + map.describe() + ")"; });
      return;
    }
    check_fits("hcube align", f->machine, input.get(),
               scratch_copy(!map.is_involution(), f->machine, input.get(), "its scratch copy (the alignment copies)"),
               f->io.trace);
    RunSession s = open_run_session(f->machine, f->io, input, f->io.trace);
    begin_trace(s, f->io);
    // "seconds" as under mpirun: the step and its check.
    nlohmann::json j = fields;
    j["seconds"] = seconds_of([&] {
      run_traced_step(s, f->io, "alignment", alignment_destination(map), [&](Machine& mach) { mach.align(map); });
    });
    finish_run(s, f->io, j, "1 alignment (" + map.describe() + ")");
  });
}

void add_route(CLI::App& app) {
  struct Flags {
    MachineFlags machine;
    IoFlags io;
    std::vector<std::string> messages;
    std::uint64_t max_message = 1;
    std::string contention = "report";
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("route", "run one router step: each node sends at most one message to any node");
  add_machine_flags(*cmd, f->machine);
  add_io_flags(*cmd, f->io, true);
  cmd->add_option("--message", f->messages,
                  "src_node:src_addr:dst_node:dst_addr[:length]: copy length words; repeat for more messages")
      ->required();
  cmd->add_option("-B,--max-message", f->max_message, "largest message in words")->capture_default_str();
  choices(cmd->add_option("--contention", f->contention, "report or reject a receiver hit twice"),
          {"report", "reject"})
      ->capture_default_str();
  cmd->callback([f] {
    RouterStep step;
    for (const std::string& m : f->messages) step.push_back(parse_message(m));
    const RouterLimits limits{f->max_message, parse_contention_policy(f->contention)};
    const std::shared_ptr<NpyInput> input = open_input(f->io.input);
    resolve_machine(f->machine, input.get());
    const Geometry geo = make_geometry(f->machine.n, f->machine.m);
    check_router_step(geo, step, limits);  // before anything is allocated
    const auto fields = [&](const RouterStepReport& rep) -> nlohmann::json {
      return {{"command", "route"},  {"messages", step.size()},         {"contention", rep.contention},
              {"words", rep.words}, {"max_message", rep.max_message}};
    };
    const auto summary = [&](const RouterStepReport& rep) {
      return fmt::format("1 router step, {} message(s), contention {}", step.size(), rep.contention);
    };
    if (distributed()) {
      run_route_across_ranks(f->machine, f->io, step, limits, fields, summary);
      return;
    }
    // The router step's reference is computed from the words: a stream is read whole.
    std::vector<MemoryNeed> words = scratch_copy(true, f->machine, input.get(), "the reference state and the next one");
    words[0].bytes *= 2;
    words[0].on_backend = false;
    check_fits("hcube route", f->machine, input.get(), words, true);
    RunSession s = open_run_session(f->machine, f->io, input, true);
    begin_trace(s, f->io);
    RouterStepReport rep;
    const std::size_t wb = s.machine->word_bytes();
    const double seconds = seconds_of([&] {
      run_traced_step(
          s, f->io, "router step",
          [&](const std::vector<unsigned char>& in) { return reference_route(in, wb, geo, step); },
          [&](Machine& mach) { rep = mach.route(step, limits); });
    });
    nlohmann::json j = fields(rep);
    j["seconds"] = seconds;  // as under mpirun: the step and its check
    finish_run(s, f->io, j, summary(rep));
  });
}

}  // namespace hcube::cli

// hcube permute and hcube compare: stable dimension permutations (Ho &
// Johnsson 1988) of the global address bits, planned by the paper's cost model
// (sec. 4.6), run one launch per routing cycle and verified against the
// permutation applied word by word (docs/sdp.md).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/app/distributed.hpp"
#include "hcube/app/ranks.hpp"
#include "hcube/emulator/sdp_run.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/sdp_planner.hpp"
#include "hcube/host/sdp_schedules.hpp"

namespace hcube::cli {
namespace {

struct CostFlags {
  std::string ports = "one";
  double tc = 1.0;  // per word
  double ts = 0.0;  // per start-up
  double tau = 0.0;  // --tau, the old spelling of --ts
  CLI::Option* ts_option = nullptr;
  CLI::Option* tau_option = nullptr;  // given: --tau sets t_s
  long long packet = kUnsetDims;   // unset: K (whole blocks)
  long long subcube = kUnsetDims;  // unset: the data fills the machine's n processor dimensions
  long long gamma = 0;     // A5's piece order; 0: chosen
  std::string effort = "estimate";
};

struct Flags {
  MachineFlags machine;
  IoFlags io;
  CostFlags cost;
  std::string perm;
  std::string algorithm = "auto";
  bool fused = false;
};

void add_cost_flags(CLI::App& cmd, CostFlags& c) {
  choices(cmd.add_option("--ports", c.ports, "one (one port at a time) or all (n-port: every dimension at once)"),
          {"one", "all"})
      ->capture_default_str();
  cmd.add_option("--tc", c.tc, "modelled time per word sent, t_c >= 0")->capture_default_str();
  c.ts_option = cmd.add_option("--ts", c.ts, "modelled start-up time per packet, t_s >= 0")->capture_default_str();
  // --tau meant t_s here but t_c in hcube redistribute; --ts is the one spelling now.
  c.tau_option = cmd.add_option("--tau", c.tau, "the old spelling of --ts (start-up time per packet)");
  cmd.add_option("--packet", c.packet, "packet size B in words (default K: no packet limit)");
  cmd.add_option("--gamma", c.gamma,
                 "A5's piece order gamma (sec. 4.3), 1..sigma_max; a cycle whose order it does not divide gets a "
                 "short piece (the paper's dummies) (default: the gamma with the lowest modelled time)");
  choices(cmd.add_option("--effort", c.effort,
                          "the n-port algorithms' dealing of data to rows: estimate (greedy, milliseconds) or patient "
                          "(annealing: Table 3's counts, up to seconds a plan at K >= 1024)"),
          {"estimate", "patient"})
      ->capture_default_str();
  cmd.add_option("--subcube-dims", c.subcube,
                 "the extended cube (sec. 4): the data occupies the subcube of the machine's first k < n processor "
                 "dimensions (input shape 2^k x 2^m) and --perm lists k + m bits; every algorithm then spreads it "
                 "over the unused dimensions, runs on the full cube and gathers it back");
}

// The start-up time, from --ts or its old spelling --tau.
double startup(const CostFlags& c) { return c.tau_option->count() > 0 ? c.tau : c.ts; }

// The flags as the library's cost model (checked by analyse_sdp). The start-up
// time is checked here, so that the message names the spelling given.
SdpCost cost_of(const CostFlags& c) {
  if (c.ts_option->count() > 0 && c.tau_option->count() > 0)
    throw Error(fmt::format("--ts {} and --tau {} both set the start-up time: --tau is its old spelling, drop it", c.ts,
                            c.tau));
  const double ts = startup(c);
  if (!(std::isfinite(ts) && ts >= 0)) {
    if (c.tau_option->count() > 0)
      throw Error(fmt::format("--tau {} out of range: allowed a finite tau >= 0 (the start-up time t_s)", ts));
    throw Error(fmt::format("--ts {} out of range: allowed a finite t_s >= 0", ts));
  }
  return SdpCost{parse_ports(c.ports), c.tc, ts, given(c.packet), c.gamma, parse_sdp_effort(c.effort)};
}

// The cost model's flags in JSON: "ts" and "tc" (canonical) and "tau", the old name of "ts".
void add_cost_json(nlohmann::json& j, const CostFlags& c) {
  j["tc"] = c.tc;
  j["ts"] = startup(c);
  j["tau"] = startup(c);
  j["effort"] = c.effort;
}

// Every flag is checked before anything runs.
SdpProblem analyse(const std::string& text, const MachineFlags& mf, const CostFlags& c) {
  return analyse_sdp(text, mf.n, mf.m, cost_of(c), given(c.subcube));
}

// The data's machine: the permutation's n processor dimensions.
MachineFlags data_flags(const SdpProblem& r, const MachineFlags& mf) {
  MachineFlags data = mf;
  data.n = r.perm.n;
  return data;
}

}  // namespace

void add_permute(CLI::App& app, const ResultSink& sink) {
  auto f = std::make_shared<Flags>();
  f->io.sink = sink;
  auto* cmd = app.add_subcommand(
      "permute",
      "permute the address bits of every word (a stable dimension permutation, Ho & Johnsson 1988): the algorithm "
      "with the lowest modelled time, run and verified");
  cmd->add_option("-p,--perm", f->perm,
                  "p0,...,p(q-1) (source bit i to bit p_i, bit 0 the lowest local address bit), or transpose, "
                  "bit-reversal, shuffle:k, unshuffle:k, swap-axes:a:b:w")
      ->required();
  choices(cmd->add_option("-a,--algorithm", f->algorithm,
                          "auto (lowest modelled time), A1, A1' (2K words a node), A2, A3 (2K words a node), A4, A5, "
                          "A6, A6' and A4' (on A1'), A3-A1, A3-pipelined (n-port, 2K words a node) or Edelman (bit "
                          "reversal, n = m)"),
          split_names(sdp_algorithm_names()))
      ->capture_default_str();
  cmd->add_flag("--fused", f->fused,
                "the result in one pass (every word straight to its destination), not an emulation of the routing");
  add_cost_flags(*cmd, f->cost);
  add_machine_flags(*cmd, f->machine);
  add_launch_flag(*cmd, f->machine.launch);
  add_io_flags(*cmd, f->io, true);
  cmd->callback([f] {
    const IoFlags& io = f->io;
    const std::shared_ptr<NpyInput> input = open_input(io.input);
    resolve_machine(f->machine, input.get(), given(f->cost.subcube).value_or(-1));
    const SdpProblem r = analyse(f->perm, f->machine, f->cost);  // every flag is checked before anything runs
    const SdpAlgorithm algorithm = parse_sdp_algorithm(f->algorithm);
    check_trace_size(io, r.perm.n, r.perm.m);
    check_machine_size(data_flags(r, f->machine));  // before planning, whose work grows with the machine
    PermutePlan::Options options;
    options.algorithm = algorithm;
    options.fused = f->fused;
    options.cost = r.cost;
    options.target = {run_type(data_flags(r, f->machine), input.get()), parse_backend_choice(f->machine.backend)};
    PermutePlan plan(options, r);  // plans every algorithm and chooses, or the fused pass
    const SdpCandidate* chosen = plan.chosen();
    std::string why = algorithm == SdpAlgorithm::automatic ? "lowest modelled time" : "asked for";
    for (const SdpCandidate& k : plan.candidates())
      if (k.plan && &k != chosen)
        why += fmt::format("; {} ({}-port) {:.6g}", to_string(k.algorithm), to_string(k.ports), k.model.time);
    // The run's fields and summary from its counters, on one process or across ranks.
    const PlanFields fields = [&](const Job& job, const Counters& counters, double seconds) {
      if (chosen == nullptr) {
        nlohmann::json j = {{"command", "permute"},
                            {"perm", r.perm.to},
                            {"algorithm", "fused"},
                            {"ports", f->cost.ports},
                            {"cycles", 0},
                            {"element_transfers", 0},
                            {"startups", 0},
                            {"lower_bound_cycles", lower_bound_cycles(r)},
                            {"launches", counters.kernel_launches},
                            {"seconds", seconds},
                            {"analysis", analysis_json(r)}};
        add_cost_json(j, f->cost);
        return j;
      }
      nlohmann::json j = job_json("permute", job, counters, seconds);
      j["memory_words"] = memory_words(*chosen->plan);
      j["perm"] = r.perm.to;
      j["algorithm"] = to_string(chosen->algorithm);
      j["ports"] = f->cost.ports;
      j["schedule_ports"] = to_string(chosen->ports);
      j["element_transfers"] = chosen->model.element_transfers;
      j["startups"] = chosen->model.startups;
      j["lower_bound_cycles"] = lower_bound_cycles(r);
      j["modelled_time"] = chosen->model.time;
      j["lower_bound_time"] = r.bound.time();
      j["reason"] = why;
      j["analysis"] = analysis_json(r);
      j["machine_n"] = r.machine_n;  // n of the cube; > n in the extended cube (--subcube-dims)
      if (chosen->algorithm == SdpAlgorithm::a5) j["gamma"] = chosen->plan->gamma;
      add_paper_json(j, *chosen);
      add_cost_json(j, f->cost);
      return j;
    };
    const PlanSummary summary = [&](const Job& job, const Counters& counters, double seconds) {
      if (chosen == nullptr)
        return fmt::format("permute: {} on n = {}, m = {} (K = {}), fused: every word straight to its destination "
                           "in {}, {:.6f} s",
                           perm_text(r.perm), r.perm.n, r.perm.m, bit(r.perm.m),
                           counters.kernel_launches == 1 ? std::string("one launch")
                                                         : fmt::format("{} launches", counters.kernel_launches),
                           seconds);
      return fmt::format(
          "permute: {} on n = {}, m = {} (K = {}){}, {}-port\ncycles: {}\n{} ({}-port, {}): {} routing cycles, {} element "
          "transfers, {} start-ups; modelled {:.6g} (lower bound {:.6g}, {}), measured {:.6f} s{}",
          perm_text(r.perm), r.perm.n, r.perm.m, bit(r.perm.m), subcube_text(r), f->cost.ports, cycles_text(r.analysis),
          to_string(chosen->algorithm), to_string(chosen->ports), why, job.stats.cycles, chosen->model.element_transfers,
          chosen->model.startups, chosen->model.time, r.bound.time(), r.machine_n > r.perm.n ? "Corollary 4" : "Theorem 1",
          seconds,
          chosen->paper && !chosen->paper->note.empty() ? "\n" + to_string(chosen->algorithm) + ": " + chosen->paper->note
                                                        : std::string());
    };
    const MachineFlags data = data_flags(r, f->machine);
    const Job& job = *plan.job();
    if (distributed()) {
      const auto fields_of = [&](const Counters& k, double seconds) { return fields(job, k, seconds); };
      const auto summary_of = [&](const Counters& k, double seconds) { return summary(job, k, seconds); };
      if (io.trace && !job.untraceable.empty()) throw Error(job.untraceable);
      // A plan that is one schedule runs as aapc's do; the fused pass as one
      // step; A1' and the extended cube on a machine of their own geometry, spread over the ranks too.
      if (chosen == nullptr)
        run_step_across_ranks(data, io, job.one_step, job.destination, fused_permutation_step(r.perm.to), fields_of,
                              summary_of);
      else if (runs_as_schedule(*chosen->plan))
        run_plan_across_ranks(data, io, plan, fields_of, summary_of);
      else
        run_sdp_plan_across_ranks(data, io, *chosen->plan, r.perm, fields_of, summary_of);
      return;
    }
    const std::string what =
        chosen == nullptr ? "hcube permute --fused" : "hcube permute --algorithm " + to_string(chosen->algorithm);
    run_plan(what, data, io, input, plan, fields, summary,
             r.machine_n > r.perm.n && chosen != nullptr ? std::optional(chosen->plan->schedule.geometry())
                                                         : std::nullopt,
             chosen == nullptr ? "its scratch copy (the fused pass)" : "what the plan needs beside the data");
  });
}

void add_compare(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "compare", "every dimension permutation algorithm for one permutation: counts, modelled and measured time");
  cmd->add_option("-p,--perm", f->perm, "as for permute")->required();
  add_cost_flags(*cmd, f->cost);
  add_machine_flags(*cmd, f->machine);
  add_launch_flag(*cmd, f->machine.launch);
  cmd->add_flag("--json", f->io.json, "print one JSON object instead of the table");
  cmd->callback([f] {
    resolve_machine(f->machine, nullptr);
    const SdpProblem r = analyse(f->perm, f->machine, f->cost);
    check_machine_size(data_flags(r, f->machine));
    std::vector<SdpCandidate> all = sdp_candidates(r);
    nlohmann::json rows = nlohmann::json::array();
    std::string table = fmt::format("{:<12} {:<5} {:>7} {:>10} {:>9} {:>5} {:>7} {:>12} {:>12} {:>10}  {}\n", "alg",
                                    "ports", "cycles", "transfers", "start-ups", "span", "memory", "modelled",
                                    "lower bound", "measured", "verified");
    for (SdpCandidate& k : all) {
      const std::string name = to_string(k.algorithm), ports = to_string(k.ports);
      if (!k.plan) {
        rows.push_back({{"algorithm", name}, {"ports", ports}, {"applies", false}, {"reason", k.why_not}});
        table += fmt::format("{:<12} {:<5} does not apply: {}\n", name, ports, k.why_not);
        continue;
      }
      // This candidate's plan: its algorithm in the port model it was planned for.
      PermutePlan::Options options;
      options.algorithm = k.algorithm;
      options.cost = r.cost;
      options.cost.ports = k.ports;
      options.target = {run_type(data_flags(r, f->machine), nullptr), parse_backend_choice(f->machine.backend)};
      PermutePlan plan(options, r, all);
      const Job& job = *plan.job();
      IoFlags quiet;
      quiet.json = true;  // no progress bar, no prose
      RunSession s = open_run_session(data_flags(r, f->machine), quiet);
      const double seconds = execute_plan(s, quiet, plan);
      nlohmann::json row = {{"algorithm", name},
                      {"ports", ports},
                      {"applies", true},
                      {"cycles", job.stats.cycles},
                      {"element_transfers", k.model.element_transfers},
                      {"startups", k.model.startups},
                      {"max_span", job.stats.max_span},
                      {"memory_words", memory_words(*k.plan)},
                      {"modelled_time", k.model.time},
                      {"lower_bound_time", r.bound.time()},
                      {"seconds", seconds},
                      {"verified", true}};
      if (k.algorithm == SdpAlgorithm::a5) row["gamma"] = k.plan->gamma;
      add_paper_json(row, k);
      rows.push_back(std::move(row));
      table += fmt::format("{:<12} {:<5} {:>7} {:>10} {:>9} {:>5} {:>7} {:>12.6g} {:>12.6g} {:>10.6f}  yes\n", name,
                           ports, job.stats.cycles, k.model.element_transfers, k.model.startups,
                           job.stats.max_span, memory_text(r, *k.plan), k.model.time,
                           r.bound.time(), seconds);
      if (k.paper && !k.paper->note.empty()) table += fmt::format("        note: {}\n", k.paper->note);
    }
    if (f->io.json) {
      nlohmann::json j = {{"command", "compare"}, {"perm", r.perm.to},       {"n", r.perm.n},
                          {"m", r.perm.m},        {"ports", f->cost.ports}, {"packet", packet_words(r.cost, r.perm.m)},
                          {"lower_bound_cycles", lower_bound_cycles(r)},
                          {"analysis", analysis_json(r)}, {"rows", rows}};
      add_cost_json(j, f->cost);
      std::cout << j.dump(2) << "\n";
      return;
    }
    fmt::print("compare: {} on n = {}, m = {} (K = {}){}, {}-port, t_s = {}, t_c = {}, B = {}\ncycles: {}\n{}",
               perm_text(r.perm), r.perm.n, r.perm.m, bit(r.perm.m), subcube_text(r), f->cost.ports, r.cost.tau,
               f->cost.tc,
               packet_words(r.cost, r.perm.m), cycles_text(r.analysis), table);
  });
}

}  // namespace hcube::cli

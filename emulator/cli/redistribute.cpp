// hcube redistribute: cyclic(x) on P source processors to cyclic(Kx) on Q
// destination processors (Park, Prasanna and Raghavendra 1998), or to
// cyclic(y) for any y, on the
// machine's router, by the circulant schedule or a baseline, verified against
// the layouts' formulas (docs/redistribution.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/app/distributed.hpp"
#include "hcube/app/ranks.hpp"
#include "hcube/emulator/npy.hpp"
#include "hcube/emulator/redistribute.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/block_cyclic.hpp"
#include "hcube/plans.hpp"

namespace hcube::cli {
namespace {

struct RedistributeFlags {
  long long P = 0, Q = 0, K = 0, x = 0, y = 0, N = 0, dims = kUnsetDims;
  CLI::Option* K_option = nullptr;
  CLI::Option* y_option = nullptr;
  std::string schedule = "circulant";
  bool overlap = false;
  bool reverse = false;
  double ts = 1.0;  // start-up time a message
  double tc = 1.0;  // time an element
  double tau = 1.0;  // --tau, the old spelling of --tc
  CLI::Option* tc_option = nullptr;
  CLI::Option* tau_option = nullptr;  // given: --tau sets t_c
  MachineFlags machine;
  IoFlags io;
};

std::uint64_t positive(long long v, const char* name) {
  if (v < 1) throw Error(fmt::format("--{} {} out of range: allowed 1 or more", name, v));
  return static_cast<std::uint64_t>(v);
}

// The time an element, from --tc or its old spelling --tau.
double element_time(const RedistributeFlags& f) { return f.tau_option->count() > 0 ? f.tau : f.tc; }

void run_redistribute(const RedistributeFlags& f) {
  if (f.tc_option->count() > 0 && f.tau_option->count() > 0)
    throw Error(fmt::format("--tc {} and --tau {} both set the time an element: --tau is its old spelling, drop it",
                            f.tc, f.tau));
  const double tc = element_time(f);
  // Every flag is checked before anything is allocated or written.
  const bool has_K = f.K_option->count() > 0, has_y = f.y_option->count() > 0;
  if (has_K == has_y)
    throw Error(has_K ? fmt::format("--K {} and --y {} both give the destination block: give one (--y for any size, "
                                    "--K for K x)",
                                    f.K, f.y)
                      : "the destination block is missing: give --K (cyclic(Kx)) or --y (cyclic(y))");
  Redistribution r{positive(f.P, "P"), has_K ? positive(f.K, "K") : 0, positive(f.Q, "Q"), positive(f.x, "x"), 0,
                   f.reverse, has_y ? positive(f.y, "y") : 0};
  // A regular input file is read where the machine needs it (ElementReader);
  // a pipe or FIFO is read into the machine as it arrives, once every size is
  // checked, and known afterwards by its fingerprint.
  const std::shared_ptr<NpyInput> opened = open_input(f.io.input);
  const std::shared_ptr<const NpyFile> file = opened ? opened->file() : nullptr;
  if (opened && !file && distributed())
    throw Error(fmt::format("--input {}: under mpirun every rank reads its own elements, so it must be a regular file "
                            "(not a pipe or FIFO)",
                            f.io.input));
  const std::vector<std::uint64_t>* in_shape = opened ? &opened->shape() : nullptr;
  std::uint64_t in_elements = 0;
  if (in_shape != nullptr) {
    if (in_shape->size() != 1)
      throw Error(fmt::format("{} has shape ({}): the array must be one-dimensional, N elements in global order",
                              f.io.input, fmt::join(*in_shape, ", ")));
    in_elements = in_shape->front();
    if (f.N != 0 && in_elements != static_cast<std::uint64_t>(f.N))
      throw Error(fmt::format("{} holds {} elements but --N is {}: drop --N or give the file N elements", f.io.input,
                              in_elements, f.N));
  }
  if (f.N < 0) throw Error(fmt::format("--N {} out of range: allowed a positive multiple of {}", f.N, r.unit() == r.x ? fmt::format("x = {}", r.x) : fmt::format("gcd(x, y) = {}", r.unit())));
  r.N = in_shape != nullptr ? in_elements : static_cast<std::uint64_t>(f.N);  // 0: one superblock
  const ElementType type =
      element_type(f.machine, opened ? std::optional<ElementType>(opened->type()) : std::nullopt, f.io.input);
  const auto t0 = std::chrono::steady_clock::now();
  RedistributePlan plan(RedistributePlan::Options{r, f.schedule, f.overlap, given(f.dims),
                                                  PlanTarget{type, parse_backend_choice(f.machine.backend)}});
  const double schedule_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const RedistributionPlacement& pl = plan.placement();
  const RedistSchedule& sch = plan.schedule();
  r = pl.r;
  if (in_shape == nullptr && r.N > 1 && 64 - static_cast<unsigned>(__builtin_clzll(r.N - 1)) > info(type).label_bits) {
    throw Error(fmt::format("the generated array labels element g with g < N = {}, which {} cannot hold: use "
                            "--type uint64 (or --input)",
                            r.N, info(type).name));
  }
  const RedistributionParams p = redistribution_params(r);
  const RedistributionReportContext context{plan, type, f.overlap, f.ts, tc, schedule_seconds};
  const auto trace = [&] { return redistribution_trace(sch); };
  const auto fields = [&](const RedistributionReport& rep, const Backend& backend) {
    return redistribution_json(context, rep, backend);
  };
  const auto step_lines = [&] { return redistribution_steps_text(sch); };
  if (distributed()) {
    // The trace is the schedule's messages; the states of the staged run that
    // one process records for hcube animate are not gathered across ranks.
    const std::string summary = fmt::format("redistribute {}{}: N = {} elements, the {} schedule, {} router steps",
                                            describe(r), r.reverse ? " reversed" : "", r.N, sch.name,
                                            plan.schedule().steps.size());
    if (f.io.trace && !f.io.json && prints_results()) fmt::print("{}", step_lines());
    run_redistribute_across_ranks(
        f.machine, f.io, plan, type, file,
        [&](const RedistributionReport& rep, const Backend& backend) {
          nlohmann::json j = fields(rep, backend);
          if (f.io.trace) j["trace"] = trace();
          return j;
        },
        summary);
    return;
  }
  const bool record = f.io.trace && (f.io.json || f.io.sink);
  const RedistributionRun run = run_redistribution(plan, type, parse_backend_choice(f.machine.backend),
                                                   tile_dims(f.machine.tile_dims, pl.n), opened.get(), file, record,
                                                   f.io.output);
  const Machine& mach = *run.machine;
  const RedistributionReport& rep = run.report;
  const bool streamed = run.streamed;
  const nlohmann::json& states = run.states;
  const std::uint64_t D = pl.dest_words;
  const RedistStats& st = rep.stats;
  nlohmann::json j = fields(rep, mach.backend());
  j["verified_by"] = streamed ? "fingerprint" : "words";
  // The machine's fields, as under mpirun; the command's own n, m and type stay.
  const nlohmann::json machine = machine_json(backend_note(parse_backend_choice(f.machine.backend), mach.backend()),
                                              mach.geometry(), type, mach.backend(), mach.layout().t, mach.counters());
  for (const auto& [key, value] : machine.items())
    if (!j.contains(key)) j[key] = value;
  j["launch"] = to_string(mach.launch_mode());
  if (f.io.json || f.io.sink) {
    nlohmann::json out = j;
    if (f.io.trace) out["trace"] = trace();
    if (run.recorded) out["states"] = states;
    emit(f.io, out, {});
    return;
  }
  const char* cases[] = {"", "G > K: not all-to-all", "K a multiple of G: all-to-all, equal messages",
                         "G < K, G not dividing K: all-to-all, two message sizes"};
  const std::string small = fmt::format("cyclic({}) on {}", r.x, r.P), big = fmt::format("cyclic({}) on {}", r.dest_block(), r.Q);
  fmt::print("redistribute {}{}: N = {} elements, {} sources -> {} destinations ({})\n", describe(r),
             r.reverse ? " reversed" : "", r.N, r.reverse ? big : small, r.reverse ? small : big,
             f.overlap ? "the same nodes" : "disjoint nodes");
  if (p.lemma_case != 0)
    fmt::print("case {} ({}), superblock of {} blocks\n", p.lemma_case, cases[p.lemma_case], p.L);
  else
    fmt::print("y not a multiple of x: units of gcd(x, y) = {} elements, superblock of {} units\n", r.unit(), p.L);
  fmt::print("{} schedule: {} steps (every schedule needs at least {}), largest message {} elements, contention {}\n",
             sch.name, st.steps, st.partners, st.max_message, st.contention);
  fmt::print("modelled cost (t_s = {}, t_c = {}): {}\n", f.ts, tc, st.modelled_cost(f.ts, tc));
  if (f.io.trace) fmt::print("{}", step_lines());
  fmt::print("schedule computed in {:.6f} s; ran in {:.6f} s on the {} backend ({} launches: pack, {} router steps, "
             "unpack), n = {}, m = {}\n",
             schedule_seconds, rep.seconds, to_string(mach.backend().kind()), rep.launches, st.steps, pl.n, pl.m);
  fmt::print("verified against the {} layout: yes{}\n", r.reverse ? small : big,
             streamed ? " (the input, a stream read once, by the fingerprint of its elements)" : "");
  if (!f.io.output.empty()) fmt::print("wrote {} (shape {} x {})\n", printable_text(f.io.output), receivers(r), D);
}

}  // namespace

void add_redistribute(CLI::App& app, const ResultSink& sink) {
  auto f = std::make_shared<RedistributeFlags>();
  f->io.sink = sink;
  auto* cmd = app.add_subcommand(
      "redistribute",
      "block-cyclic redistribution, cyclic(x) on P processors to cyclic(Kx) (or any cyclic(y)) on Q, one router step a "
      "step, verified");
  cmd->add_option("--P", f->P, "source processors")->required();
  cmd->add_option("--Q", f->Q, "destination processors")->required();
  f->K_option = cmd->add_option("--K", f->K, "the destination block is K times the source block (or give --y)");
  f->y_option = cmd->add_option("--y", f->y,
                                "the destination block size, elements, any y (cyclic(x) on P -> cyclic(y) on Q; "
                                "instead of --K)");
  cmd->add_option("--x", f->x, "the source block size, elements")->required();
  cmd->add_option("--N", f->N,
                  "elements (a multiple of x, of gcd(x, y) with --y; default one superblock, lcm(P, KQ) x, or "
                  "--input's length)");
  choices(cmd->add_option("--schedule", f->schedule, "the communication schedule (docs/redistribution.md)"),
          redistribution_schedule_names())
      ->capture_default_str();
  cmd->add_flag("--overlap", f->overlap, "sources and destinations on the same nodes (default: disjoint nodes)");
  cmd->add_flag("--reverse", f->reverse,
                "the other way: cyclic(Kx) (or cyclic(y)) on Q processors to cyclic(x) on P, by the same schedules "
                "turned around");
  cmd->add_option("--dims", f->dims, "the cube's processor dimensions (default: the fewest that hold the processors)");
  cmd->add_option("--ts", f->ts, "start-up time a message, for modelled_cost")->capture_default_str();
  f->tc_option = cmd->add_option("--tc", f->tc, "time an element (word), for modelled_cost")->capture_default_str();
  // --tau meant t_c here but t_s in hcube permute; --tc is the one spelling now.
  f->tau_option = cmd->add_option("--tau", f->tau, "the old spelling of --tc (time an element)");
  add_backend_flags(*cmd, f->machine);
  cmd->get_option("--tile-dims")->description("nodes per storage tile = 2^t, 0..n (default 0: a node's words in a row, "
                                               "so a message's blocks are runs)");
  input_flag(cmd->add_option("-i,--input", f->io.input, "the array, a one-dimensional .npy of N elements in global order"));
  output_flag(cmd->add_option("-o,--output", f->io.output, "write the destinations' memories as .npy of shape (Q, N/Q), (P, N/P) with --reverse"));
  cmd->add_flag("--json", f->io.json, "print one JSON object instead of prose");
  cmd->add_flag("--trace", f->io.trace, "print every step's messages and the blocks they carry");
  cmd->callback([f] { run_redistribute(*f); });
}

}  // namespace hcube::cli

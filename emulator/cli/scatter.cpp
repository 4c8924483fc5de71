// hcube scatter: the lecture notes' all-to-all scatter on a ring, torus or
// mesh (the NEWS grid, host/grid_scatter.hpp), or on the cube with the notes'
// SEX and DEX (host/exchange_baselines.hpp): run, verified bit for bit against
// the scatter's definition, its rounds and cost terms beside the notes'.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/app/scatter.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/emulator/grid_machine.hpp"
#include "hcube/emulator/scatter_run.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_build.hpp"
#include "hcube/host/grid_scatter.hpp"

namespace hcube::cli {
namespace {

struct ScatterFlags {
  std::string topology;
  std::string schedule;   // a hcube-scatter/1 file (hcube synthesize scatter) instead of an algorithm
  std::string algorithm;  // empty: the first the topology runs
  long long packet_words = 1;
  std::string embed;
  MachineFlags machine;
  IoFlags io;
};

const char* kDefinition = "node j holds at packet i what node i held at packet j";

// --- on the cube: SEX and DEX as schedules of routing cycles ---------------------

void scatter_on_cube(const ScatterFlags& f, const ScatterTopology& t, ScatterAlgorithm a) {
  const IoFlags& io = f.io;
  const std::uint64_t mu = static_cast<std::uint64_t>(f.packet_words);
  if ((mu & (mu - 1)) == 0) {
    // The cube of d processor dimensions and K = 2^d mu words must fit before its schedule is built
    // (a packet size that is no power of two is refused by make_cube_scatter).
    const unsigned m = t.d + static_cast<unsigned>(__builtin_ctzll(mu));
    check_aapc_dimensions(t.d, t.d, m);
    MachineFlags sized = f.machine;
    sized.n = t.d;
    sized.m = m;
    check_fits_before_planning("hcube scatter --topology " + to_string(t), sized,
                               {schedule_tables(aapc_schedule_exchanges(t.d, m), m)});
  }
  CubeScatterPlan plan = make_cube_scatter(a, t.d, mu);
  const Geometry geo = plan.schedule.geometry();
  check_trace_size(io, geo.n, geo.m);
  const BaselineCost c = plan.cost;
  Job scatter;
  scatter.schedule = std::move(plan.schedule);
  scatter.f = std::move(plan.f);
  scatter.g = std::move(plan.g);
  scatter.destination = std::move(plan.destination);
  scatter.permutation = "all-to-all scatter";
  scatter.formula = kDefinition;
  MachineFlags mf = f.machine;
  mf.n = geo.n;
  mf.m = geo.m;
  std::shared_ptr<NpyInput> input;
  SchedulePlan run(std::move(scatter), PlanTarget{plan_type(mf, io, input), parse_backend_choice(mf.backend)});
  const Job& job = *run.job();
  RunSession s = open_run_session(mf, io, input);
  const double seconds = execute_plan(s, io, run);
  const Counters& k = s.machine->counters();
  const bool sex = a == ScatterAlgorithm::sex;
  nlohmann::json j = job_json("scatter", job, k, seconds);
  j["topology"] = to_string(t);
  j["packet_words"] = mu;
  j["embed"] = nullptr;
  j["rounds"] = c.rounds;
  j["model"] = model_json(c.startups, c.element_units, c.hop_units);
  // The notes print DEX's t_d term as n t_d / 2 a round; the exact hop count is hcube's.
  j["notes"] = {{"rounds", c.rounds},
                {"model", j["model"]},
                {"formula", sex ? "d (t_s + 2^(d-1) mu t_m)"
                                : "(2^d - 1)(t_s + mu t_m) + d 2^(d-1) t_d (the notes print n t_d/2 a round)"},
                {"from_notes", sex}};
  // The notes set DEX beside the wormhole cube's bound: "only twice as large".
  if (!sex)
    j["wormhole_bound"] = {{"element_units", wormhole_cube_bound(t.d)}, {"formula", "(2^d - 1)/2 mu t_m (notes)"}};
  const std::string bound =
      sex ? std::string()
          : fmt::format("wormhole hypercube lower bound: (2^d - 1)/2 mu t_m = {} mu t_m (notes); DEX's {} is twice it\n",
                        wormhole_cube_bound(t.d), c.element_units);
  const std::string summary = fmt::format(
      "all-to-all scatter, {} on {} ({}, packets of {} word{})\n{}{} rounds in {} routing cycles: {}", to_string(a),
      to_string(t), sex ? "one-port, combining" : "e-cube, the wormhole model", mu, mu == 1 ? "" : "s", bound,
      c.rounds, job.stats.cycles, cost_text(c.startups, c.element_units, c.hop_units));
  finish_run(s, io, std::move(j), summary);
}

// --- on the grid -----------------------------------------------------------------

// `a`: the planner's algorithm; none for a schedule file's rounds (s built from them).
void scatter_on_grid(const ScatterFlags& f, const ScatterTopology& t, std::optional<ScatterAlgorithm> a,
                     const GridSchedule* from_file = nullptr) {
  const IoFlags& io = f.io;
  const MachineFlags& mf = f.machine;
  if (given(mf.tile_dims))
    throw Error(fmt::format("--tile-dims applies to the cube's storage (cube:d), not to {}", to_string(t)));
  const bool embed = f.embed == "cube";
  if (embed) grid_cube_dims(t.grid);  // sides powers of two, before anything is built
  const GridSchedule s = a ? make_grid_scatter(t.grid, *a, static_cast<std::uint64_t>(f.packet_words)) : *from_file;
  const std::uint64_t N = s.topology.nodes(), W = s.words_per_node();
  if (io.trace && N * W > kMaxTraceWords)
    throw Error(fmt::format("--trace prints every word: {} nodes x {} words = {}, allowed at most {}", N, W, N * W,
                            kMaxTraceWords));
  const GridScatterRun grid_run = run_grid_scatter(s, io, mf, embed);
  const ScatterRun& run = grid_run.run;
  const ElementType type = grid_run.type;
  const bool identical = grid_run.identical;
  const ScatterCost cost = scatter_cost(s);

  const std::optional<ScatterFormula> notes = a ? scatter_formula(s.topology, *a) : std::nullopt;
  const Counters& k = run.counters;
  nlohmann::json j = {
      {"command", "scatter"},
      {"topology", to_string(t)},
      {"grid",
       {{"kind", to_string(t.grid).substr(0, to_string(t.grid).find(':'))},
        {"z1", t.grid.z1},
        {"z2", t.grid.z2},
        {"directed_links", t.grid.directed_links()}}},
      {"algorithm", s.algorithm},
      {"nodes", N},
      {"packet_words", s.packet_words},
      {"words_per_node", W},
      {"output_first_word", s.output_block * s.packet_words},
      {"switching", to_string(s.switching)},
      {"ports", to_string(s.one_port_rounds ? PortModel::one_port : s.rules.ports)},
      {"duplex", to_string(s.rules.duplex)},
      {"embed", embed ? nlohmann::json("cube") : nlohmann::json(nullptr)},
      {"verified", true},
      {"permutation", "all-to-all scatter"},
      {"formula", kDefinition},
      {"rounds", cost.rounds},
      {"cycles", cost.cycles},
      {"model", model_json(cost.startups, cost.element_units, cost.hop_units)},
      {"notes", notes ? nlohmann::json{{"rounds", notes->rounds},
                                       {"model", model_json(notes->startups, notes->element_units, notes->hop_units)},
                                       {"formula", notes->text},
                                       {"from_notes", notes->from_notes}}
                      : nlohmann::json(nullptr)},
      {"bisection_bound", bisection_bound(s.topology)},
      {"element_hops", k.element_hops},
      {"seconds", run.seconds},
      {"type", info(type).name},
      {"backend_note", run.backend_note},
      {"counters", to_json(k)},
  };
  if (a == ScatterAlgorithm::dex || a == ScatterAlgorithm::qex || a == ScatterAlgorithm::idex || !a) {
    j["max_congestion"] = max_congestion(s);
    j["congestion"] = s.congestion;
  }
  if (s.one_port_rounds || !a) j["contention_free"] = max_congestion(s) <= 1;
  const bool interleaved = a && interleaved_dex(s.topology, *a);
  if (interleaved) j["one_port_bound"] = N - 1;
  if (!a) j["schedule"] = f.schedule;
  if (embed)
    j["cube"] = {{"n", run.cube_dims}, {"m", run.cube_mem_dims}, {"router_steps", k.router_steps},
                 {"launches", k.kernel_launches}, {"dilation", 1}, {"identical_to_grid", identical}};
  if (io.trace) j["trace"] = grid_run.trace;
  emit(io, j, [&] {
    fmt::print("all-to-all scatter, {} on {} ({}, {}-port, {} duplex), packets of {} word{}\n",
               a ? s.algorithm : "schedule " + printable_text(f.schedule),
               to_string(t), to_string(s.switching), to_string(s.one_port_rounds ? PortModel::one_port : s.rules.ports),
               to_string(s.rules.duplex),
               s.packet_words, s.packet_words == 1 ? "" : "s");
    fmt::print("{} rounds in {} routing cycles: {}", cost.rounds, cost.cycles,
               cost_text(cost.startups, cost.element_units, cost.hop_units));
    if (notes)
      fmt::print(" ({}: {}, {})", notes->from_notes ? "notes" : "hcube's formula",
                 cost_text(notes->startups, notes->element_units, notes->hop_units), notes->text);
    fmt::print("\n");
    if (s.one_port_rounds)
      fmt::print("worst link congestion of a round: {} (contention-free), one message sent and one received a node a "
                 "round\n",
                 max_congestion(s));
    else if (a == ScatterAlgorithm::dex)
      fmt::print("worst link congestion of a permutation under XY routing: {} (notes: max(z1, z2)/2 = {})\n",
                 max_congestion(s), std::max(s.topology.z1, s.topology.z2) / 2);
    fmt::print("bisection lower bound: {} mu t_m\n", bisection_bound(s.topology));
    if (interleaved) fmt::print("one-port lower bound: {} rounds (each node receives N - 1 packets, one a round)\n", N - 1);
    if (embed)
      fmt::print("run on the {}-cube, grid node (x, y) at Gray-code node G(x) + 2^{} G(y): {} router steps between "
                 "neighbours (dilation 1), every word where the grid machine leaves it\n",
                 run.cube_dims, __builtin_ctzll(s.topology.z1), k.router_steps);
    if (!run.backend_note.empty()) fmt::print("backend {}\n", run.backend_note);
    fmt::print("verified against the definition ({}): yes\n{}", kDefinition, k.to_text());
    if (!io.output.empty()) fmt::print("wrote {}\n", printable_text(io.output));
  });
}

}  // namespace

void add_scatter(CLI::App& app, const ResultSink& sink) {
  auto f = std::make_shared<ScatterFlags>();
  f->io.sink = sink;
  auto* cmd = app.add_subcommand(
      "scatter",
      "the all-to-all scatter (lecture notes) on a ring, torus or mesh of any sides, or on the cube: every node's "
      "packet for every node delivered, verified, its rounds and costs beside the notes' (docs/scatter.md)");
  cmd->add_option("--topology", f->topology, "ring:z, torus:z1xz2, mesh:z1xz2 (z >= 2) or cube:d (or --schedule)");
  cmd->add_option("--schedule", f->schedule, "a hcube-scatter/1 file (hcube synthesize scatter), checked, run, verified");
  choices(cmd->add_option("-a,--algorithm", f->algorithm,
                          "pipeline, bidirectional or dex (ring; dex: z a multiple of 4), product (torus, mesh), dex or bex "
                          "(mesh, sides powers of two), qex (square mesh, sides powers of two), idex (square torus or "
                          "mesh, z a multiple of 4; dex on a torus), sex or dex (cube); "
                          "default: the first its topology runs"),
          split_names(scatter_algorithm_names()));
  cmd->add_option("--packet-words", f->packet_words, "mu: words a packet (default 1)")->capture_default_str();
  choices(cmd->add_option("--embed", f->embed,
                          "cube: run the grid's plan on the cube, each grid node at its Gray code (sides powers of "
                          "two), and check it leaves every word where the grid does"),
          {"cube"});
  add_backend_flags(*cmd, f->machine);
  add_io_flags(*cmd, f->io);
  cmd->callback([f] {
    if (!f->schedule.empty()) {  // its rounds are the algorithm, of one-word packets
      if (!f->algorithm.empty() || f->packet_words != 1)
        throw Error(fmt::format("--schedule {}: allowed without --algorithm and --packet-words", f->schedule));
      if (const std::optional<GridSchedule> s = scatter_schedule_file(f->schedule, f->topology, f->io, f->machine))
        scatter_on_grid(*f, ScatterTopology{false, 0, s->topology}, std::nullopt, &*s);
      return;
    }
    const ScatterTopology t = parse_scatter_topology(f->topology);
    const ScatterAlgorithm a =
        parse_scatter_algorithm(f->algorithm.empty() ? split_names(scatter_algorithms_for(t)).front() : f->algorithm);
    check_scatter_algorithm(t, a);
    if (f->packet_words < 1 || f->packet_words > static_cast<long long>(kMaxPacketWords))
      throw Error(fmt::format("--packet-words {} out of range: allowed 1..{}", f->packet_words, kMaxPacketWords));
    if (!f->embed.empty() && f->embed != "cube")
      throw Error(fmt::format("--embed '{}' unknown: allowed cube", f->embed));
    if (t.cube && !f->embed.empty()) throw Error(fmt::format("--embed cube: {} is the cube already", to_string(t)));
    if (t.cube)
      scatter_on_cube(*f, t, a);
    else
      scatter_on_grid(*f, t, a);
  });
}

}  // namespace hcube::cli

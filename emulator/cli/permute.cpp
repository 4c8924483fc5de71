// hcube permute and hcube compare: stable dimension permutations (Ho &
// Johnsson 1988) of the global address bits, planned by the paper's cost model
// (sec. 4.6), run one launch per routing cycle and verified against the
// permutation applied word by word (docs/sdp.md).
#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/emulator/sdp_run.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/error.hpp"
#include "hcube/host/sdp_schedules.hpp"

namespace hcube::cli {
namespace {

struct CostFlags {
  std::string ports = "one";
  double tc = 1.0;
  double tau = 0.0;
  long long packet = -1;  // unset: K (whole blocks)
  long long subcube = -1;  // unset: the data fills the machine's n processor dimensions
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
  cmd.add_option("--ports", c.ports, "one (one port at a time) or all (n-port: every dimension at once)")
      ->capture_default_str();
  cmd.add_option("--tc", c.tc, "modelled time per word sent, t_c >= 0")->capture_default_str();
  cmd.add_option("--tau", c.tau, "modelled start-up time per packet, tau >= 0")->capture_default_str();
  cmd.add_option("--packet", c.packet, "packet size B in words (default K: no packet limit)");
  cmd.add_option("--subcube-dims", c.subcube,
                 "the extended cube (sec. 4): the data occupies the subcube of the machine's first k < n processor "
                 "dimensions (input shape 2^k x 2^m) and --perm lists k + m bits; every algorithm then spreads it "
                 "over the unused dimensions, runs on the full cube and gathers it back");
}

struct Candidate {
  std::string algorithm;      // "A1", "A4"
  std::string ports;          // the port model its schedule needs
  std::optional<SdpPlan> plan;
  std::string why_not;        // when plan is empty: the condition that fails
  SdpModel model;
};

bool all_ports(const CostFlags& c) {
  if (c.ports != "one" && c.ports != "all")
    throw Error(fmt::format("--ports '{}' unknown: allowed one, all", c.ports));
  return c.ports == "all";
}

void check_cost(const CostFlags& c) {
  all_ports(c);
  if (c.tc < 0) throw Error(fmt::format("--tc {} out of range: allowed t_c >= 0", c.tc));
  if (c.tau < 0) throw Error(fmt::format("--tau {} out of range: allowed tau >= 0", c.tau));
  if (c.packet != -1 && c.packet < 1) throw Error(fmt::format("--packet {} out of range: allowed B >= 1", c.packet));
}

std::uint64_t packet_of(const CostFlags& c, unsigned m) {
  return c.packet == -1 ? bit(m) : static_cast<std::uint64_t>(c.packet);
}

// Every algorithm the ports allow, built or with the reason it does not apply;
// on a machine of n > p.n processor dimensions, each inside the extended cube's
// scatter and gather.
std::vector<Candidate> candidates(const DimensionPermutation& p, const CostFlags& c, unsigned n) {
  const bool all = all_ports(c);
  std::vector<Candidate> out;
  const auto attempt = [&](const char* name, const char* ports, const std::function<SdpPlan(const DimensionPermutation&)>& make) {
    Candidate k{name, ports, std::nullopt, {}, {}};
    try {
      k.plan = n > p.n ? plan_extended_cube(p, n, make) : make(p);
      k.model = model_plan(*k.plan, c.tc, c.tau, packet_of(c, p.m));
    } catch (const Error& e) {
      k.why_not = e.what();
    }
    out.push_back(std::move(k));
  };
  attempt("A1", "one", plan_a1_one_port);
  attempt("A1'", "one", [](const DimensionPermutation& q) { return plan_a1_prime(q, false); });
  if (!all) attempt("A2", "one", [](const DimensionPermutation& q) { return plan_a2(q, false); });
  if (all) {
    attempt("A2", "all", [](const DimensionPermutation& q) { return plan_a2(q, true); });
    attempt("A1", "all", plan_a1_all_port);
    attempt("A1'", "all", [](const DimensionPermutation& q) { return plan_a1_prime(q, true); });
    attempt("A4", "all", plan_a4);
    attempt("A5", "all", [](const DimensionPermutation& q) { return plan_a5(q); });
    attempt("A6", "all", plan_a6);
    attempt("Edelman", "all", plan_edelman_bit_reversal);
  }
  return out;
}

std::string perm_text(const DimensionPermutation& p) { return join_uints(p.to, ","); }

// The chosen candidate: the lowest modelled time among those that apply, or the
// named algorithm (its form for the ports asked when it has one).
const Candidate& choose(const std::vector<Candidate>& all, const std::string& algorithm, const CostFlags& c) {
  static const std::set<std::string> known = {"auto", "A1", "A1'", "A2", "A4", "A5", "A6", "Edelman"};
  if (known.count(algorithm) == 0)
    throw Error(fmt::format("--algorithm '{}' unknown: allowed auto, A1, A1', A2, A4, A5, A6, Edelman", algorithm));
  const Candidate* best = nullptr;
  std::string reasons;
  for (const Candidate& k : all) {
    if (algorithm != "auto" && k.algorithm != algorithm) continue;
    if (!k.plan) {
      reasons += fmt::format("; {} ({}-port): {}", k.algorithm, k.ports, k.why_not);
      continue;
    }
    const bool better = best == nullptr || (algorithm == "auto" ? k.model.time < best->model.time
                                                                : k.ports == c.ports && best->ports != c.ports);
    if (better) best = &k;
  }
  if (best != nullptr) return *best;
  if (reasons.empty()) throw Error(fmt::format("--algorithm {} is an n-port algorithm: it needs --ports all", algorithm));
  throw Error("no algorithm applies" + reasons);
}

struct Analysis {
  DimensionPermutation perm;
  DimensionPermutationAnalysis a;
  DimensionPermutationBound bound;
  unsigned machine_n = 0;  // > perm.n in the extended cube
  MachineFlags data;       // the data's machine: perm.n processor dimensions
};

Analysis analyse(const std::string& text, const MachineFlags& mf, const CostFlags& c) {
  if (mf.n < 0 || mf.m < 0 || mf.n + mf.m < 1 || mf.n + mf.m > static_cast<long long>(kMaxAddressBits))
    throw Error(fmt::format("n = {}, m = {} out of range: allowed n, m >= 0 and 1 <= n + m <= {}", mf.n, mf.m,
                            kMaxAddressBits));
  const unsigned machine_n = static_cast<unsigned>(mf.n), m = static_cast<unsigned>(mf.m);
  check_cost(c);
  if (c.subcube != -1 && (c.subcube < 0 || c.subcube >= mf.n))
    throw Error(fmt::format("--subcube-dims {} out of range: allowed 0 <= k < n = {}", c.subcube, mf.n));
  const unsigned n = c.subcube == -1 ? machine_n : static_cast<unsigned>(c.subcube);
  Analysis r{parse_dimension_permutation(text, n, m), {}, {}, machine_n, mf};
  r.data.n = n;
  r.a = analyze(r.perm);
  r.bound = n < machine_n ? extended_cube_lower_bound(r.a, bit(m), machine_n, n, all_ports(c), c.tc, c.tau)
                          : lower_bound(r.a, bit(m), all_ports(c), c.tc, c.tau);
  // Every cycle of every candidate moves at most K/2 words a node.
  const std::uint64_t cycles = r.a.sigma_p + r.a.beta + r.a.beta * (r.a.sigma_max + 1);
  if ((bit(m) / 2 + 1) * cycles > kMaxScheduleExchanges)
    throw Error(fmt::format("the schedules for n = {}, m = {} would hold more than {} exchanges: lower --mem-dims",
                            n, m, kMaxScheduleExchanges));
  return r;
}

std::string subcube_text(const Analysis& r) {
  return r.machine_n > r.perm.n ? fmt::format(" on a subcube of a cube of n = {} (the extended cube)", r.machine_n)
                                : std::string();
}

std::string cycles_text(const DimensionPermutationAnalysis& a) {
  std::string text;
  for (const ShuffleCycle& c : a.cycles)
    text += fmt::format("{}({}: {})", text.empty() ? "" : " ", to_string(c.kind), join_uints(c.bits, "->"));
  return text.empty() ? "(the identity)" : text;
}

nlohmann::json analysis_json(const Analysis& r) {
  nlohmann::json cycles = nlohmann::json::array();
  for (const ShuffleCycle& c : r.a.cycles) cycles.push_back({{"bits", c.bits}, {"kind", to_string(c.kind)}});
  return {{"cycles", cycles},          {"sigma", r.a.sigma},         {"sigma_p", r.a.sigma_p},
          {"sigma_s", r.a.sigma_s},    {"beta", r.a.beta},           {"real_cycles", r.a.real_cycles},
          {"odd_real_cycles", r.a.odd_real_cycles}, {"separable", r.a.separable}};
}

// Theorem 1's start-ups in sequence (one-port: sigma_p exchanges of K/2 words at least).
std::uint64_t lower_bound_cycles(const Analysis& r, bool all) {
  if (r.a.sigma_p == 0) return 0;
  return all ? r.a.sigma_p - r.a.odd_real_cycles : r.a.sigma_p;
}

// Words a node needs: the plan's machine's K (2K for A1'), twice that when the
// final local reordering is no involution (it then runs through scratch).
std::uint64_t memory_words(const SdpPlan& plan) {
  const Geometry geo{plan.schedule.n, plan.schedule.m};
  return AffineMap::permute_bits(geo, plan.local_after).is_involution() ? bit(geo.m) : 2 * bit(geo.m);
}

std::string memory_text(const Analysis& r, const SdpPlan& plan) {
  const std::uint64_t times = memory_words(plan) / bit(r.perm.m);
  return times == 1 ? "K" : fmt::format("{}K", times);
}

// A plan whose machine the data fills runs as a job (traceable); the others
// (embedded, or with alignments after the cycles) through run_sdp_plan.
bool runs_as_job(const SdpPlan& plan) { return plan.embed.empty() && plan.align_after.empty(); }

Job job_for(const Analysis& r, const SdpPlan& plan) {
  const Geometry geo{r.perm.n, r.perm.m};
  ScheduleStats stats = check_schedule(plan.schedule);
  const DimensionPermutation perm = r.perm;
  const AffineMap id(geo);
  return Job{plan.schedule, std::move(stats), id,
             runs_as_job(plan) ? AffineMap::permute_bits(geo, plan.local_after) : id,
             [perm](std::uint64_t g) { return perm.apply(g); }, "dimension-permutation",
             fmt::format("source address bit i to bit p_i: {}", perm_text(perm)), {}, {}, 0, {}};
}

// Runs and verifies the plan; the seconds.
double run_plan(Session& s, const IoFlags& io, const Job& job, const SdpPlan& plan) {
  if (runs_as_job(plan)) return run_job(s, io, job);
  if (io.trace)
    throw Error(fmt::format("--trace is not available for {}: it runs on a machine of its own geometry (n = {}, m = "
                            "{}); save the schedule instead",
                            plan.algorithm, plan.schedule.n, plan.schedule.m));
  return run_verified(s, io, job, [&](const Machine::Progress& progress) {
    return run_sdp_plan(*s.machine, plan, progress).seconds;
  });
}

}  // namespace

void add_permute(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "permute",
      "permute the address bits of every word (a stable dimension permutation, Ho & Johnsson 1988): the algorithm "
      "with the lowest modelled time, run and verified");
  cmd->add_option("-p,--perm", f->perm,
                  "p0,...,p(q-1) (source bit i to bit p_i, bit 0 the lowest local address bit), or transpose, "
                  "bit-reversal, shuffle:k, unshuffle:k, swap-axes:a:b:w")
      ->required();
  cmd->add_option("-a,--algorithm", f->algorithm, "auto (lowest modelled time), A1, A1' (2K words a node), A2, A4, A5, A6 or Edelman (bit reversal, n = m)")->capture_default_str();
  cmd->add_flag("--fused", f->fused,
                "the result in one pass (every word straight to its destination), not an emulation of the routing");
  add_cost_flags(*cmd, f->cost);
  add_machine_flags(*cmd, f->machine);
  add_io_flags(*cmd, f->io);
  cmd->callback([f] {
    const IoFlags& io = f->io;
    const Analysis r = analyse(f->perm, f->machine, f->cost);  // every flag is checked before anything runs
    check_trace_size(io, r.perm.n, r.perm.m);
    if (f->fused) {
      if (f->algorithm != "auto") throw Error("--fused runs no routing algorithm: drop --algorithm");
      Session s = open_session(r.data, io);
      begin_trace(s, io);
      const DimensionPermutation perm = r.perm;
      const auto start = std::chrono::steady_clock::now();
      run_step(s, io, "fused permutation",
               AddressMap([perm](std::uint64_t g) { return perm.apply(g); }),
               [&](Machine& m) { m.permute_address_bits(perm.to); });
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      nlohmann::json j = {{"command", "permute"},
                          {"perm", r.perm.to},
                          {"algorithm", "fused"},
                          {"ports", f->cost.ports},
                          {"cycles", 0},
                          {"element_transfers", 0},
                          {"startups", 0},
                          {"lower_bound_cycles", lower_bound_cycles(r, all_ports(f->cost))},
                          {"launches", s.machine->counters().kernel_launches},
                          {"seconds", seconds},
                          {"analysis", analysis_json(r)}};
      finish_run(s, io, std::move(j),
                 fmt::format("permute: {} on n = {}, m = {} (K = {}), fused: every word straight to its destination "
                             "in one launch, {:.6f} s",
                             perm_text(r.perm), r.perm.n, r.perm.m, bit(r.perm.m), seconds));
      return;
    }
    const std::vector<Candidate> all = candidates(r.perm, f->cost, r.machine_n);
    const Candidate& chosen = choose(all, f->algorithm, f->cost);
    std::string why = f->algorithm == "auto" ? "lowest modelled time" : "asked for";
    for (const Candidate& k : all)
      if (k.plan && &k != &chosen)
        why += fmt::format("; {} ({}-port) {:.6g}", k.algorithm, k.ports, k.model.time);
    const Job job = job_for(r, *chosen.plan);
    Session s = open_session(r.data, io);
    const double seconds = run_plan(s, io, job, *chosen.plan);
    const bool ports_all = all_ports(f->cost);
    nlohmann::json j = job_json("permute", job, *s.machine, seconds);
    j["memory_words"] = memory_words(*chosen.plan);
    j["perm"] = r.perm.to;
    j["algorithm"] = chosen.algorithm;
    j["ports"] = f->cost.ports;
    j["schedule_ports"] = chosen.ports;
    j["element_transfers"] = chosen.model.element_transfers;
    j["startups"] = chosen.model.startups;
    j["lower_bound_cycles"] = lower_bound_cycles(r, ports_all);
    j["modelled_time"] = chosen.model.time;
    j["lower_bound_time"] = r.bound.time();
    j["reason"] = why;
    j["analysis"] = analysis_json(r);
    j["machine_n"] = r.machine_n;  // n of the cube; > n in the extended cube (--subcube-dims)
    const std::string summary = fmt::format(
        "permute: {} on n = {}, m = {} (K = {}){}, {}-port\ncycles: {}\n{} ({}-port, {}): {} routing cycles, {} element "
        "transfers, {} start-ups; modelled {:.6g} (lower bound {:.6g}, {}), measured {:.6f} s",
        perm_text(r.perm), r.perm.n, r.perm.m, bit(r.perm.m), subcube_text(r), f->cost.ports, cycles_text(r.a),
        chosen.algorithm, chosen.ports, why, job.stats.cycles, chosen.model.element_transfers, chosen.model.startups,
        chosen.model.time, r.bound.time(), r.machine_n > r.perm.n ? "Corollary 4" : "Theorem 1", seconds);
    finish_run(s, io, std::move(j), summary);
  });
}

void add_compare(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "compare", "every dimension permutation algorithm for one permutation: counts, modelled and measured time");
  cmd->add_option("-p,--perm", f->perm, "as for permute")->required();
  add_cost_flags(*cmd, f->cost);
  add_machine_flags(*cmd, f->machine);
  cmd->add_flag("--json", f->io.json, "print one JSON object instead of the table");
  cmd->callback([f] {
    const Analysis r = analyse(f->perm, f->machine, f->cost);
    const bool ports_all = all_ports(f->cost);
    std::vector<Candidate> all = candidates(r.perm, f->cost, r.machine_n);
    nlohmann::json rows = nlohmann::json::array();
    std::string table = fmt::format("{:<7} {:<5} {:>7} {:>10} {:>9} {:>5} {:>7} {:>12} {:>12} {:>10}  {}\n", "alg",
                                    "ports", "cycles", "transfers", "start-ups", "span", "memory", "modelled",
                                    "lower bound", "measured", "verified");
    for (Candidate& k : all) {
      if (!k.plan) {
        rows.push_back({{"algorithm", k.algorithm}, {"ports", k.ports}, {"applies", false}, {"reason", k.why_not}});
        table += fmt::format("{:<7} {:<5} does not apply: {}\n", k.algorithm, k.ports, k.why_not);
        continue;
      }
      const Job job = job_for(r, *k.plan);
      IoFlags quiet;
      quiet.json = true;  // no progress bar, no prose
      Session s = open_session(r.data, quiet);
      const double seconds = run_plan(s, quiet, job, *k.plan);
      rows.push_back({{"algorithm", k.algorithm},
                      {"ports", k.ports},
                      {"applies", true},
                      {"cycles", job.stats.cycles},
                      {"element_transfers", k.model.element_transfers},
                      {"startups", k.model.startups},
                      {"max_span", job.stats.max_span},
                      {"memory_words", memory_words(*k.plan)},
                      {"modelled_time", k.model.time},
                      {"lower_bound_time", r.bound.time()},
                      {"seconds", seconds},
                      {"verified", true}});
      table += fmt::format("{:<7} {:<5} {:>7} {:>10} {:>9} {:>5} {:>7} {:>12.6g} {:>12.6g} {:>10.6f}  yes\n", k.algorithm,
                           k.ports, job.stats.cycles, k.model.element_transfers, k.model.startups,
                           job.stats.max_span, memory_text(r, *k.plan), k.model.time,
                           r.bound.time(), seconds);
    }
    if (f->io.json) {
      nlohmann::json j = {{"command", "compare"}, {"perm", r.perm.to},          {"n", r.perm.n},
                          {"m", r.perm.m},        {"ports", f->cost.ports},    {"tc", f->cost.tc},
                          {"tau", f->cost.tau},   {"packet", packet_of(f->cost, r.perm.m)},
                          {"lower_bound_cycles", lower_bound_cycles(r, ports_all)},
                          {"analysis", analysis_json(r)}, {"rows", rows}};
      std::cout << j.dump(2) << "\n";
      return;
    }
    fmt::print("compare: {} on n = {}, m = {} (K = {}){}, {}-port, t_c = {}, tau = {}, B = {}\ncycles: {}\n{}",
               perm_text(r.perm), r.perm.n, r.perm.m, bit(r.perm.m), subcube_text(r), f->cost.ports, f->cost.tc, f->cost.tau,
               packet_of(f->cost, r.perm.m), cycles_text(r.a), table);
  });
}

}  // namespace hcube::cli

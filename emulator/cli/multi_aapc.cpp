// hcube multi-aapc: a sequence of s AAPCs (Johnsson & Ho 1992, sec. 2.3 and
// 4.1), the generalized shuffle (a_s, ..., a_1 | a_0) -> (a_(s-1), ..., a_0 | a_s),
// run as one schedule between Lemma 1's single pre- and post-alignment,
// pipelined (Corollary 2) or AAPC after AAPC, and verified bit for bit
// against the shuffle written from its formula.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_sequence.hpp"
#include "hcube/host/concurrent_aapc.hpp"
#include "hcube/host/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube::cli {
namespace {

constexpr long long kUnset = std::numeric_limits<long long>::min();

struct Flags {
  MachineFlags machine;
  IoFlags io;
  long long axes = kUnset;
  std::string dims;     // "d" or "d_1,d_2,..." (non-increasing)
  long long m = kUnset;  // unset: d (2d for Algorithm 5)
  std::string algorithm = "4";
  bool sequential = false;
  std::string order;  // empty: 0, 1, ..., s-1
  std::string lines = "diagonal";
  std::string layout = "compact";
  std::string save;  // --save-schedule
  long long rotated_rows = -1;
  bool figure = false;
};

// Algorithms 1, 3, 4 (pipelined or sequential) and 5 (concurrent, sec. 4.2).
std::string parse_algorithm(const std::string& text) {
  if (text == "2")
    throw Error(
        "algorithm '2' not offered by multi-aapc: its span is K/2, so pipelining gains nothing; allowed 1, 3, 4, 5");
  if (text != "1" && text != "3" && text != "4" && text != "5")
    throw Error(fmt::format("algorithm '{}' unknown: allowed 1, 3, 4, 5", text));
  return text;
}

// --order: a permutation of the axes 0..s-1 (default 0, 1, ..., s-1).
std::vector<unsigned> parse_order(const std::string& text, unsigned s) {
  std::vector<unsigned> order;
  if (text.empty()) {
    for (unsigned t = 0; t < s; ++t) order.push_back(t);
    return order;
  }
  order = parse_uint_list(text, "--order");
  const std::string want = fmt::format("a permutation of the axes 0..{}", s - 1);
  if (order.size() != s)
    throw Error(fmt::format("--order {} lists {} axes: expected {}, s = {}", text, order.size(), want, s));
  std::vector<bool> seen(s, false);
  for (unsigned u : order) {
    if (u >= s) throw Error(fmt::format("--order {}: axis {} out of range, expected {}", text, u, want));
    if (seen[u]) throw Error(fmt::format("--order {}: axis {} appears twice, expected {}", text, u, want));
    seen[u] = true;
  }
  return order;
}

enum class Kind { sequence, unequal, concurrent };

struct Plan {
  Kind kind = Kind::sequence;
  std::string algorithm;
  AapcSequenceOptions options;  // Kind::sequence and Kind::unequal (options.dims set)
  ConcurrentOptions concurrent;
  ConcurrentDesign design;
  std::vector<unsigned> dims;  // each axis' order
  unsigned n = 0, m = 0;
  std::uint64_t bound = 0;
  std::string bound_source;
  std::string note;  // why Algorithm 5 pipelines instead, when it does
};

// Algorithm 4 pipelined: Corollary 2's K/2 + (s-1)d when d divides K/2, Alg. 3's pairs otherwise.
std::uint64_t pipelined_alg4_cycles(unsigned d, unsigned m, unsigned s) {
  const bool divides = bit(m - 1) % d == 0;
  return corollary2_cycles(divides ? AapcAlgorithm::alg4 : AapcAlgorithm::alg3, d, m, s);
}

// Checks every flag before anything is built.
Plan plan(const Flags& f) {
  Plan p;
  p.algorithm = parse_algorithm(f.algorithm);
  const std::vector<unsigned> list = parse_uint_list(f.dims, "--dims");
  const long long max_bits = kMaxAddressBits;
  if (list.empty()) throw Error("--dims is empty: give d, or the axes' orders d_1,d_2,... (non-increasing)");
  for (unsigned w : list)
    if (w < 1) throw Error(fmt::format("--dims {}: axis dimension d = 0 out of range: allowed d >= 1", f.dims));
  long long s = f.axes;
  if (list.size() == 1) {
    if (s == kUnset) throw Error("--axes is required with a single --dims d (or list each axis' order: --dims 3,2,2)");
    if (s < 1) throw Error(fmt::format("number of axes s = {} out of range: allowed s >= 1", s));
    if (s > max_bits) throw Error(fmt::format("number of axes s = {} out of range: allowed at most {}", s, max_bits));
    p.dims.assign(static_cast<std::size_t>(s), list[0]);
  } else {
    if (s != kUnset && s != static_cast<long long>(list.size()))
      throw Error(fmt::format("--axes {} but --dims {} lists {} axes: they must agree", s, f.dims, list.size()));
    p.dims = list;
    s = static_cast<long long>(list.size());
  }
  const long long d = p.dims[0];
  const bool equal = std::all_of(p.dims.begin(), p.dims.end(), [&](unsigned w) { return w == p.dims[0]; });
  const bool alg5 = p.algorithm == "5";
  const long long m = f.m != kUnset ? f.m : (alg5 ? 2 * d : d);
  long long n = 0;
  for (unsigned w : p.dims) n += w;
  if (m < d) throw Error(fmt::format("d = {} exceeds the memory dimensions m = {}: allowed d <= m", d, m));
  if (d > max_bits || m > max_bits || n + m > max_bits)
    throw Error(fmt::format("n + m = {} + {} too large: allowed at most {}", n, m, max_bits));
  // K/2 cycles of d exchanges per AAPC, one AAPC more for Alg. 5's rotated sets.
  const std::uint64_t exchanges = bit(static_cast<unsigned>(m - 1)) * static_cast<std::uint64_t>(n + d);
  if (exchanges > kMaxScheduleExchanges)
    throw Error(fmt::format("the schedule for dims {}, m = {} holds about {} exchanges: allowed at most {}; lower "
                            "--mem-dims or --axes",
                            join_uints(p.dims, ","), m, exchanges, kMaxScheduleExchanges));
  p.n = static_cast<unsigned>(n);
  p.m = static_cast<unsigned>(m);
  const unsigned su = static_cast<unsigned>(s), du = static_cast<unsigned>(d);
  AapcSequenceOptions& o = p.options;
  o.lines = parse_line_drawing(f.lines);
  o.pipelined = !f.sequential;
  o.axes = su;
  o.d = du;
  o.m = p.m;
  if (!equal) {
    p.bound = unequal_orders_cycles(p.dims, p.m, o.pipelined);  // checks the orders do not increase
    if (p.algorithm != "1")
      throw Error(fmt::format("axes of unequal order ({}) need --algorithm 1 (sec. 4.1): the others regroup their "
                              "addresses when the order changes",
                              join_uints(p.dims, ",")));
    if (!f.order.empty()) throw Error("--order applies to axes of equal order only");
    o.algorithm = AapcAlgorithm::alg1;
    o.dims = p.dims;
    p.kind = Kind::unequal;
    p.bound_source = o.pipelined ? "sec. 4.1: lags d_(i-1) + d_i - gcd(d_(i-1), d_i)" : "sequential";
    return p;
  }
  if (!alg5) {
    o.algorithm = parse_aapc_algorithm(p.algorithm);
    o.order = parse_order(f.order, su);
    p.bound = o.pipelined ? corollary2_cycles(o.algorithm, du, p.m, su) : su * paper_bounds(o.algorithm, du, p.m).cycles;
    p.bound_source = o.pipelined ? "Corollary 2" : "s x Table 6";
    return p;
  }
  if (f.sequential) throw Error("--sequential does not apply to Algorithm 5: its AAPCs run concurrently");
  if (!f.order.empty()) throw Error("--order does not apply to Algorithm 5: it exchanges the axes in the order 0..s-1");
  const Theorem2Bound t2 = theorem2_bound(du, p.m, su);
  p.bound = t2.cycles;
  p.bound_source = t2.source;
  ConcurrentOptions& c = p.concurrent;
  c.d = du;
  c.axes = su;
  c.m = p.m;
  c.layout = parse_rotation_layout(f.layout);
  c.rotated_rows = f.rotated_rows;
  const std::uint64_t pipelined = pipelined_alg4_cycles(du, p.m, su);
  o.algorithm = AapcAlgorithm::alg4;
  o.order = parse_order("", su);
  if (p.m < 2 * du) {
    if (f.rotated_rows >= 0)
      throw Error(fmt::format("--rotated-rows needs a spare memory axis: m = {} below 2d = {}", p.m, 2 * du));
    p.note = fmt::format("m = {} < 2d = {}: no spare memory axis for concurrent AAPCs, so Algorithm 5 pipelines "
                         "with Algorithm 4 (Theorem 2's first case)",
                         p.m, 2 * du);
    return p;
  }
  p.design = design_concurrent(c);
  if (f.rotated_rows < 0 && p.design.cycles > pipelined) {
    p.note = fmt::format("the best concurrent plan takes {} cycles, pipelining {}: Algorithm 5 pipelines with "
                         "Algorithm 4 (docs/multi-aapc.md)",
                         p.design.cycles, pipelined);
    return p;
  }
  p.kind = Kind::concurrent;
  return p;
}

// The machine's axes as the paper names them after the AAPCs of `order` up to
// `steps`: node axis u starts as a_(u+1), the memory axis as a_0.
std::string shuffle_state(const std::vector<unsigned>& order, std::size_t steps) {
  const unsigned s = static_cast<unsigned>(order.size());
  std::vector<unsigned> node(s);
  for (unsigned u = 0; u < s; ++u) node[u] = u + 1;
  unsigned mem = 0;
  for (std::size_t t = 0; t < steps; ++t) std::swap(node[order[t]], mem);
  std::string text = "(";
  for (unsigned u = s; u-- > 0;) text += fmt::format("a_{}{}", node[u], u == 0 ? "" : ",");
  return text + fmt::format("|a_{})", mem);
}

}  // namespace

void add_multi_aapc(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "multi-aapc",
      "run s AAPCs in sequence (Johnsson & Ho, sec. 2.3, 4): the generalized shuffle (a_s,...,a_1|a_0) -> "
      "(a_(s-1),...,a_0|a_s) between one pre- and one post-alignment (Lemma 1), pipelined (Corollary 2), one after "
      "another, on axes of different orders (sec. 4.1), or concurrently (Algorithm 5, Theorem 2), verified");
  cmd->add_option("-s,--axes", f->axes, "number of AAPCs s: processor axes a_1..a_s of d bits each, n = s d");
  cmd->add_option("-d,--dims", f->dims,
                  "dimensions d of each axis (and of the memory axis a_0); or each axis' order, non-increasing, "
                  "e.g. 3,2,2 (Algorithm 1, sec. 4.1)")
      ->required();
  cmd->add_option("-m,--mem-dims", f->m,
                  "machine memory dimensions m >= d (default d; 2d for Algorithm 5): K = 2^m words per node");
  cmd->add_option("-a,--algorithm", f->algorithm,
                  "the single-AAPC algorithm pipelined, 1, 3 or 4, or 5: multiple concurrent AAPCs (sec. 4.2), which "
                  "needs m >= 2d")
      ->capture_default_str();
  cmd->add_flag("--sequential", f->sequential, "run the AAPCs one after another instead of pipelined");
  cmd->add_option("--order", f->order,
                  "the axes in the order they exchange with the memory axis, a permutation of 0..s-1 "
                  "(axis u = node bits u d .. u d + d - 1, a_(u+1)); default 0,1,...,s-1");
  cmd->add_option("--lines", f->lines, "Algorithm 4's line drawing: diagonal or greedy")->capture_default_str();
  cmd->add_option("--layout", f->layout,
                  "Algorithm 5: where data sets start on later axes: compact (one per axis, R+1 columns) or paper "
                  "(Figure 4: pairs of sets on axes s-2, s-4, ...)")
      ->capture_default_str();
  cmd->add_option("--rotated-rows", f->rotated_rows,
                  "Algorithm 5: rows of 2^d complement pairs that start on later axes (default: the count with the "
                  "fewest cycles)");
  cmd->add_flag("--figure", f->figure, "Algorithm 5: print the plan as Figure 4's table (a column = d cycles)");
  cmd->add_option("--save-schedule", f->save,
                  "also write the schedule file (hcube-schedule/1 with its offset maps, axis orders and alignments), "
                  "which `hcube run --schedule` runs again");
  add_backend_flags(*cmd, f->machine);
  add_io_flags(*cmd, f->io);
  cmd->callback([f] {
    const IoFlags& io = f->io;
    const Plan p = plan(*f);  // every flag is checked before anything is built
    const AapcSequenceOptions& o = p.options;
    const unsigned s_axes = o.axes, d = o.d;
    check_trace_size(io, p.n, p.m);
    Schedule sch = p.kind == Kind::concurrent ? make_concurrent_schedule(p.concurrent, p.design) : make_aapc_sequence(o);
    ScheduleStats stats = check_schedule(sch);
    if (!f->save.empty()) save_schedule(f->save, sch);
    const Geometry geo = sch.geometry();

    const AffineMap id(geo);
    std::string sum = "a_1";
    for (unsigned u = 2; u <= s_axes; ++u) sum += fmt::format(" xor a_{}", u);
    const std::vector<unsigned> order = p.kind == Kind::sequence ? o.order : parse_order("", s_axes);
    const std::string start = shuffle_state(order, 0), axes = start.substr(0, start.find('|') + 1);
    const AddressMap dest =
        p.kind == Kind::unequal ? shuffle_destination(geo, p.dims) : shuffle_destination(geo, d, s_axes, order);
    Job job{std::move(sch), std::move(stats), id, id, dest, "generalized-shuffle",
            shuffle_state(order, 0) + " -> " + shuffle_state(order, s_axes),
            // Lemma 1: x = a_0 xor a_1 xor ... xor a_s, the paper's "mod 2 add".
            fmt::format("{}a_0) -> {}a_0 xor {}): the mod 2 add, one for all {} AAPC{} (Lemma 1)", axes, axes, sum,
                        s_axes, s_axes == 1 ? "" : "s"),
            "(..|x) -> (..|x xor the node's axes): the mod 2 add again (Lemma 1)", 0, {}};
    if (p.kind == Kind::unequal) {
      job.formula += fmt::format(", axis orders {} (axis u swaps with the low d_u memory bits)", join_uints(p.dims, ","));
      job.pre_text = "memory bit b ^= bit b of every axis of order > b: the mod 2 add for axes of unequal order";
      job.post_text = "the same mod 2 add";
    } else if (p.kind == Kind::concurrent) {
      job.pre_text = fmt::format(
          "(..|v,i) -> (..|q,p), q = v xor {} (stored so that q and ~q share a row), p = i xor {}: Lemma 1 on both "
          "memory axes",
          sum, sum);
      job.post_text = "(..|q,p) -> (..|v,i): i = p xor the node's axes, v = q xor p xor a_1";
    }
    if (f->sequential && p.kind == Kind::sequence) {
      job.aapc_cycles = job.schedule.cycles() / s_axes;
      for (unsigned t = 0; t < s_axes; ++t)
        job.aapc_notes.push_back(fmt::format("axis {} exchanged with the memory axis, {} (addresses still aligned)",
                                             order[t], shuffle_state(order, t + 1)));
    }

    MachineFlags mf = f->machine;
    mf.n = p.n;
    mf.m = p.m;
    Session s = open_session(mf, io);
    const double seconds = run_job(s, io, job);
    const Machine& mach = *s.machine;
    const std::uint64_t cycles = job.stats.cycles, half = bit(p.m - 1);

    std::string note = p.note;
    // Alg. 4 pipelines with Alg. 3's pair schedule when d does not divide K/2.
    if (note.empty() && p.kind == Kind::sequence && o.pipelined && o.algorithm == AapcAlgorithm::alg4 && cycles > p.bound)
      note = fmt::format(
          "pipelined Algorithm 4 takes {} cycles, {} more than {}'s {}: d = {} does not divide K/2 = {}, so it "
          "pipelines with Algorithm 3's pair schedule (docs/multi-aapc.md)",
          cycles, cycles - p.bound, p.bound_source, p.bound, d, half);
    if (note.empty() && p.kind == Kind::concurrent && cycles > p.bound)
      note = fmt::format("{} cycles, {} more than {}'s {}: {} (docs/multi-aapc.md)", cycles, cycles - p.bound,
                         p.bound_source, p.bound,
                         half % d != 0 ? fmt::format("d = {} does not divide K/2 = {}, so Algorithm 1's groups of d "
                                                     "pairs leave channels idle",
                                                     d, half)
                                       : fmt::format("rotated data sets come in rows of 2^d = {} pairs", bit(d)));
    const std::string schedule_kind = p.kind == Kind::concurrent ? "concurrent" : o.pipelined ? "pipelined" : "sequential";

    nlohmann::json j = job_json("multi-aapc", job, mach, seconds);
    j["algorithm"] = p.algorithm;
    j["axes"] = s_axes;
    j["axis_dims"] = p.dims;
    j["schedule"] = schedule_kind;
    j["pipelined"] = o.pipelined && p.kind != Kind::concurrent;
    j["order"] = order;
    j["alignments"] = mach.counters().alignments;
    j["bound"] = p.bound;
    j["bound_source"] = p.bound_source;
    j["note"] = note.empty() ? nlohmann::json(nullptr) : nlohmann::json(note);
    if (p.kind == Kind::concurrent) {
      std::uint64_t rotated = 0;
      for (const PlanRow& r : p.design.plan.rows) rotated += r.rotated ? 1 : 0;
      j["layout"] = to_string(p.concurrent.layout);
      j["rotated_rows"] = p.design.rotated_rows;
      j["rotated_data_sets"] = rotated;
      j["data_sets"] = p.design.plan.rows.size();
      j["columns"] = p.design.plan.columns;
      if (f->figure) j["figure"] = plan_chart(p.design.plan);
    }

    const std::uint64_t aligns = mach.counters().alignments;
    std::string summary = fmt::format(
        "multi-aapc: s = {} AAPC{} of d = {}, Algorithm {}{}, {}, axis order {}, on n = {}, m = {} (K = {})\n{}: {}\n",
        s_axes, s_axes == 1 ? "" : "s", p.kind == Kind::unequal ? join_uints(p.dims, ",") : std::to_string(d),
        p.algorithm, job.schedule.lines.empty() ? "" : " (" + job.schedule.lines + " lines)", schedule_kind,
        join_uints(order, ","), p.n, p.m, bit(p.m), job.permutation, job.formula);
    if (p.kind == Kind::concurrent) {
      summary += fmt::format("{} data sets of up to d pairs ({} start on later axes, {} layout, {} rotated row{}), {} "
                             "columns of d cycles\n",
                             p.design.plan.rows.size(), j["rotated_data_sets"].get<std::uint64_t>(),
                             to_string(p.concurrent.layout), p.design.rotated_rows,
                             p.design.rotated_rows == 1 ? "" : "s", p.design.plan.columns);
      if (f->figure) summary += plan_chart(p.design.plan);
    } else if (f->figure) {
      summary += "(--figure shows Algorithm 5's concurrent plan: this run pipelines)\n";
    }
    if (!note.empty()) summary += "note: " + note + "\n";
    // Pipelined AAPCs overlap: a cycle can use more than one axis' d dimensions.
    const auto& per_cycle = job.stats.exchanges_per_cycle;
    const std::uint64_t busy_min = per_cycle.empty() ? 0 : *std::min_element(per_cycle.begin(), per_cycle.end());
    const double busy_mean = cycles == 0 ? 0.0 : static_cast<double>(job.stats.exchanges) / static_cast<double>(cycles);
    summary += fmt::format(
        "{} routing cycles (paper: {}, {}), max span {}, dimensions busy per cycle min {} mean {:.2f} of n = {}, + {} "
        "alignment{} in {:.6f} s",
        cycles, p.bound, p.bound_source, job.stats.max_span, busy_min, busy_mean, p.n, aligns, aligns == 1 ? "" : "s",
        seconds);
    finish_run(s, io, std::move(j), summary);
  });
}

}  // namespace hcube::cli

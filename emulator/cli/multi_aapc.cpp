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
#include "hcube/host/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube::cli {
namespace {

constexpr long long kUnset = std::numeric_limits<long long>::min();

struct Flags {
  MachineFlags machine;
  IoFlags io;
  long long axes = kUnset;
  long long d = kUnset;
  long long m = kUnset;  // unset: d
  std::string algorithm = "4";
  bool sequential = false;
  std::string order;  // empty: 0, 1, ..., s-1
  std::string lines = "diagonal";
};

// Algorithms 1, 3 and 4; Algorithm 5 is refused by name.
AapcAlgorithm parse_algorithm(const std::string& text) {
  if (text == "5")
    throw Error("--algorithm 5 (Algorithm 5, multiple concurrent AAPCs) is not implemented yet: allowed 1, 3, 4");
  if (text == "2")
    throw Error(
        "algorithm '2' not offered by multi-aapc: its span is K/2, so pipelining gains nothing; allowed 1, 3, 4");
  if (text != "1" && text != "3" && text != "4")
    throw Error(fmt::format("algorithm '{}' unknown: allowed 1, 3, 4 (5 is not implemented yet)", text));
  return parse_aapc_algorithm(text);
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

struct Plan {
  AapcSequenceOptions options;
  unsigned n = 0;
};

// Checks every flag before anything is built.
Plan plan(const Flags& f) {
  Plan p;
  AapcSequenceOptions& o = p.options;
  o.algorithm = parse_algorithm(f.algorithm);
  o.lines = parse_line_drawing(f.lines);
  o.pipelined = !f.sequential;
  const long long s = f.axes, d = f.d, m = f.m == kUnset ? d : f.m;
  const long long max_bits = kMaxAddressBits;
  if (s < 1) throw Error(fmt::format("number of axes s = {} out of range: allowed s >= 1", s));
  if (d < 1) throw Error(fmt::format("axis dimension d = {} out of range: allowed d >= 1", d));
  if (m < d) throw Error(fmt::format("d = {} exceeds the memory dimensions m = {}: allowed d <= m", d, m));
  if (s > max_bits || d > max_bits || m > max_bits || s * d + m > max_bits)
    throw Error(fmt::format("n + m = s d + m = {} * {} + {} too large: allowed at most {}", s, d, m, max_bits));
  // K/2 cycles of d exchanges per AAPC (Alg. 1 pads its last group with idle channels only).
  const std::uint64_t exchanges = bit(static_cast<unsigned>(m - 1)) * static_cast<std::uint64_t>(s * d);
  if (exchanges > kMaxScheduleExchanges)
    throw Error(fmt::format("the schedule for s = {}, d = {}, m = {} holds {} exchanges: allowed at most {}; lower "
                            "--mem-dims or --axes",
                            s, d, m, exchanges, kMaxScheduleExchanges));
  o.axes = static_cast<unsigned>(s);
  o.d = static_cast<unsigned>(d);
  o.m = static_cast<unsigned>(m);
  o.order = parse_order(f.order, o.axes);
  p.n = o.axes * o.d;
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
      "run s AAPCs in sequence (Johnsson & Ho, sec. 2.3, 4.1): the generalized shuffle (a_s,...,a_1|a_0) -> "
      "(a_(s-1),...,a_0|a_s) between one pre- and one post-alignment (Lemma 1), pipelined (Corollary 2) or one "
      "after another, verified");
  cmd->add_option("-s,--axes", f->axes, "number of AAPCs s: processor axes a_1..a_s of d bits each, n = s d")
      ->required();
  cmd->add_option("-d,--dims", f->d, "dimensions d of each axis (and of the memory axis a_0)")->required();
  cmd->add_option("-m,--mem-dims", f->m, "machine memory dimensions m >= d (default d): K = 2^m words per node");
  cmd->add_option("-a,--algorithm", f->algorithm,
                  "the single-AAPC algorithm: 1, 3 or 4 (5, multiple concurrent AAPCs, is not implemented yet)")
      ->capture_default_str();
  cmd->add_flag("--sequential", f->sequential, "run the AAPCs one after another instead of pipelined");
  cmd->add_option("--order", f->order,
                  "the axes in the order they exchange with the memory axis, a permutation of 0..s-1 "
                  "(axis u = node bits u d .. u d + d - 1, a_(u+1)); default 0,1,...,s-1");
  cmd->add_option("--lines", f->lines, "Algorithm 4's line drawing: diagonal or greedy")->capture_default_str();
  add_backend_flags(*cmd, f->machine);
  add_io_flags(*cmd, f->io);
  cmd->callback([f] {
    const IoFlags& io = f->io;
    const Plan p = plan(*f);  // every flag is checked before anything is built
    const AapcSequenceOptions& o = p.options;
    check_trace_size(io, p.n, o.m);
    Schedule sch = make_aapc_sequence(o);
    ScheduleStats stats = check_schedule(sch);
    const Geometry geo = sch.geometry();
    const std::uint64_t bound = o.pipelined
                                    ? corollary2_cycles(o.algorithm, o.d, o.m, o.axes)
                                    : o.axes * paper_bounds(o.algorithm, o.d, o.m).cycles;
    const std::string bound_source = o.pipelined ? "Corollary 2" : "s x Table 6";

    const AffineMap id(geo);
    std::string sum = "a_1";
    for (unsigned u = 2; u <= o.axes; ++u) sum += fmt::format(" xor a_{}", u);
    const std::string start = shuffle_state(o.order, 0), axes = start.substr(0, start.find('|') + 1);
    Job job{std::move(sch), std::move(stats), id, id, shuffle_destination(geo, o.d, o.axes, o.order),
            "generalized-shuffle", shuffle_state(o.order, 0) + " -> " + shuffle_state(o.order, o.axes),
            // Lemma 1: x = a_0 xor a_1 xor ... xor a_s, the paper's "mod 2 add".
            fmt::format("{}a_0) -> {}a_0 xor {}): the mod 2 add, one for all {} AAPC{} (Lemma 1)", axes, axes, sum,
                        o.axes, o.axes == 1 ? "" : "s"),
            "(..|x) -> (..|x xor the node's axes): the mod 2 add again (Lemma 1)", 0, {}};
    if (f->sequential) {
      job.aapc_cycles = job.schedule.cycles() / o.axes;
      for (unsigned t = 0; t < o.axes; ++t)
        job.aapc_notes.push_back(fmt::format("axis {} exchanged with the memory axis, {} (addresses still aligned)",
                                             o.order[t], shuffle_state(o.order, t + 1)));
    }

    MachineFlags mf = f->machine;
    mf.n = p.n;
    mf.m = o.m;
    Session s = open_session(mf, io);
    const double seconds = run_job(s, io, job);
    const Machine& mach = *s.machine;
    const std::uint64_t cycles = job.stats.cycles, half = bit(o.m - 1);

    // Alg. 4 pipelines with Alg. 3's pair schedule when d does not divide K/2.
    std::optional<std::string> note;
    if (o.pipelined && o.algorithm == AapcAlgorithm::alg4 && cycles > bound)
      note = fmt::format(
          "pipelined Algorithm 4 takes {} cycles, {} more than Corollary 2's {}: d = {} does not divide K/2 = "
          "{}, so it pipelines with Algorithm 3's pair schedule (docs/multi-aapc.md)",
          cycles, cycles - bound, bound, o.d, half);

    nlohmann::json j = job_json("multi-aapc", job, mach, seconds);
    j["axes"] = o.axes;
    j["pipelined"] = o.pipelined;
    j["order"] = o.order;
    j["alignments"] = mach.counters().alignments;
    j["bound"] = bound;
    j["bound_source"] = bound_source;
    j["note"] = note ? nlohmann::json(*note) : nlohmann::json(nullptr);

    const std::uint64_t aligns = mach.counters().alignments;
    std::string summary = fmt::format(
        "multi-aapc: s = {} AAPC{} of d = {}, Algorithm {}{}, {}, axis order {}, on n = {}, m = {} (K = {})\n{}: {}\n",
        o.axes, o.axes == 1 ? "" : "s", o.d, job.schedule.algorithm,
        job.schedule.lines.empty() ? "" : " (" + job.schedule.lines + " lines)",
        o.pipelined ? "pipelined" : "sequential", join_uints(o.order, ","), p.n, o.m, bit(o.m), job.permutation, job.formula);
    if (note) summary += "note: " + *note + "\n";
    // Pipelined AAPCs overlap: a cycle can use more than one axis' d dimensions.
    const auto& per_cycle = job.stats.exchanges_per_cycle;
    const std::uint64_t busy_min = per_cycle.empty() ? 0 : *std::min_element(per_cycle.begin(), per_cycle.end());
    const double busy_mean = cycles == 0 ? 0.0 : static_cast<double>(job.stats.exchanges) / static_cast<double>(cycles);
    summary += fmt::format(
        "{} routing cycles (paper: {}, {}), max span {}, dimensions busy per cycle min {} mean {:.2f} of n = {}, + {} "
        "alignment{} (Lemma 1) in {:.6f} s",
        cycles, bound, bound_source, job.stats.max_span, busy_min, busy_mean, p.n, aligns, aligns == 1 ? "" : "s",
        seconds);
    finish_run(s, io, std::move(j), summary);
  });
}

}  // namespace hcube::cli

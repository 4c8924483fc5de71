#include "hcube/host/multi_aapc_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hcube/host/aapc_build.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/geometry.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {
namespace {

std::string join(const std::vector<unsigned>& v) {
  std::string text;
  for (unsigned x : v) text += (text.empty() ? "" : ",") + std::to_string(x);
  return text;
}

// Algorithms 1, 3, 4 (pipelined or sequential) and 5 (concurrent, sec. 4.2).
std::string check_algorithm(const std::string& text) {
  if (text == "2")
    throw Error(
        "algorithm '2' not offered by multi-aapc: its pairs span K/2 cycles, so pipelining them gains nothing; allowed 1, 3, 4, 5");
  if (text != "1" && text != "3" && text != "4" && text != "5")
    throw Error(fmt::format("algorithm '{}' unknown: allowed 1, 3, 4, 5", printable_input(text)));
  return text;
}

// MultiAapcRequest::order: a permutation of the axes 0..s-1 (default 0, 1, ..., s-1).
std::vector<unsigned> parse_order(const std::string& text, unsigned s) {
  std::vector<unsigned> order;
  if (text.empty()) {
    for (unsigned t = 0; t < s; ++t) order.push_back(t);
    return order;
  }
  order = parse_uint_list(text, "MultiAapcRequest::order");
  const std::string want = fmt::format("a permutation of the axes 0..{}", s - 1);
  if (order.size() != s)
    throw Error(
        fmt::format("MultiAapcRequest::order {} lists {} axes: expected {}, s = {}", text, order.size(), want, s));
  std::vector<bool> seen(s, false);
  for (unsigned u : order) {
    if (u >= s)
      throw Error(fmt::format("MultiAapcRequest::order {}: axis {} out of range, expected {}", text, u, want));
    if (seen[u])
      throw Error(fmt::format("MultiAapcRequest::order {}: axis {} appears twice, expected {}", text, u, want));
    seen[u] = true;
  }
  return order;
}

}  // namespace

MultiAapcDesign multi_aapc_sizes(const MultiAapcRequest& f) {
  MultiAapcDesign p;
  p.algorithm = check_algorithm(f.algorithm);
  const std::vector<unsigned> list = parse_uint_list(f.dims, "MultiAapcRequest::dims");
  const long long max_bits = kMaxAddressBits;
  if (list.empty())
    throw Error("MultiAapcRequest::dims is empty: give d, or the axes' orders d_1,d_2,... (non-increasing)");
  for (unsigned w : list)
    if (w < 1)
      throw Error(fmt::format("MultiAapcRequest::dims {}: axis dimension d = 0 out of range: allowed d >= 1", f.dims));
  long long s = f.axes;
  if (list.size() == 1) {
    if (s == kUnsetSize)
      throw Error(
          "MultiAapcRequest::axes is required with a single MultiAapcRequest::dims d (or list each axis' order: "
          "MultiAapcRequest::dims 3,2,2)");
    if (s < 1) throw Error(fmt::format("number of axes s = {} out of range: allowed s >= 1", s));
    if (s > max_bits) throw Error(fmt::format("number of axes s = {} out of range: allowed at most {}", s, max_bits));
    p.dims.assign(static_cast<std::size_t>(s), list[0]);
  } else {
    if (s != kUnsetSize && s != static_cast<long long>(list.size()))
      throw Error(fmt::format("MultiAapcRequest::axes {} but MultiAapcRequest::dims {} lists {} axes: they must agree",
                              s, f.dims, list.size()));
    p.dims = list;
    s = static_cast<long long>(list.size());
  }
  const long long d = p.dims[0];
  const bool alg5 = p.algorithm == "5";
  const long long m = f.m != kUnsetSize ? f.m : (alg5 ? 2 * d : d);
  long long n = 0;
  for (unsigned w : p.dims) n += w;
  if (m < d) throw Error(fmt::format("d = {} exceeds the memory dimensions m = {}: allowed d <= m", d, m));
  if (d > max_bits || m > max_bits || n + m > max_bits)
    throw Error(fmt::format("n + m = {} + {} too large: allowed at most {}", n, m, max_bits));
  const std::uint64_t exchanges =
      multi_aapc_schedule_exchanges(static_cast<unsigned>(n), static_cast<unsigned>(d), static_cast<unsigned>(m));
  if (exchanges > kMaxScheduleExchanges)
    throw Error(
        fmt::format("the schedule for dims {}, m = {} holds about {} exchanges: allowed at most {}; lower "
                    "MultiAapcRequest::m or MultiAapcRequest::axes",
                    join(p.dims), m, exchanges, kMaxScheduleExchanges));
  p.n = static_cast<unsigned>(n);
  p.m = static_cast<unsigned>(m);
  return p;
}

MultiAapcDesign plan_multi_aapc(const MultiAapcRequest& f) {
  MultiAapcDesign p = multi_aapc_sizes(f);
  const std::size_t s = p.dims.size();
  const unsigned d = p.dims[0];
  const bool equal = std::all_of(p.dims.begin(), p.dims.end(), [&](unsigned w) { return w == d; });
  const bool alg5 = p.algorithm == "5";
  const unsigned su = static_cast<unsigned>(s), du = d;
  AapcSequenceOptions& o = p.options;
  o.lines = f.lines;
  o.pipelined = !f.sequential;
  o.axes = su;
  o.d = du;
  o.m = p.m;
  p.order = parse_order("", su);
  if (!equal) {
    if (alg5)
      throw Error(fmt::format("axes of unequal order ({}) run with MultiAapcRequest::algorithm 1, 3 or 4 (sec. 4.1)",
                              join(p.dims)));
    if (!f.order.empty()) throw Error("MultiAapcRequest::order applies to axes of equal order only");
    o.algorithm = parse_aapc_algorithm(p.algorithm);
    o.dims = p.dims;
    p.kind = MultiAapcKind::unequal;
    p.bound_from_paper = false;
    if (o.algorithm == AapcAlgorithm::alg1) {
      p.bound = unequal_orders_cycles(p.dims, p.m, o.pipelined);  // checks the orders do not increase
      p.bound_source = o.pipelined ? "sec. 4.1: lags d_(i-1) + d_i - gcd(d_(i-1), d_i)" : "sequential";
    } else {
      p.bound = unequal_orders_target(p.dims, p.m, o.pipelined);
      p.bound_source = o.pipelined ? "Corollary 2's form, K/2 + d_1 + ... + d_(s-1)" : "s x K/2";
    }
    return p;
  }
  if (!alg5) {
    o.algorithm = parse_aapc_algorithm(p.algorithm);
    o.order = parse_order(f.order, su);
    p.order = o.order;
    p.bound = o.pipelined ? corollary2_cycles(o.algorithm, du, p.m, su) : su * paper_bounds(o.algorithm, du, p.m).cycles;
    p.bound_source = o.pipelined ? "Corollary 2" : "s x Table 6";
    return p;
  }
  if (f.sequential)
    throw Error("MultiAapcRequest::sequential does not apply to Algorithm 5: its AAPCs run concurrently");
  if (!f.order.empty())
    throw Error("MultiAapcRequest::order does not apply to Algorithm 5: it exchanges the axes in the order 0..s-1");
  const Theorem2Bound t2 = theorem2_bound(du, p.m, su);
  p.bound = t2.cycles;
  p.bound_source = t2.source;
  ConcurrentOptions& c = p.concurrent;
  c.d = du;
  c.axes = su;
  c.m = p.m;
  c.layout = f.layout;
  if (f.rotated_rows && *f.rotated_rows < 0)
    throw Error(fmt::format(
        "MultiAapcRequest::rotated_rows {} out of range: allowed 0 or more, or left out for the fewest cycles",
        *f.rotated_rows));
  c.rotated_rows = f.rotated_rows.value_or(-1);
  const std::uint64_t pipelined = pipelined_alg4_cycles(p.dims, p.m);
  o.algorithm = AapcAlgorithm::alg4;
  o.order = p.order;
  if (p.m < 2 * du) {
    if (f.rotated_rows)
      throw Error(
          fmt::format("MultiAapcRequest::rotated_rows needs a spare memory axis: m = {} below 2d = {}", p.m, 2 * du));
    p.note = fmt::format("m = {} < 2d = {}: no spare memory axis for concurrent AAPCs, so Algorithm 5 pipelines "
                         "with Algorithm 4 (Theorem 2's first case)",
                         p.m, 2 * du);
    return p;
  }
  p.design = design_concurrent(c);
  // A layout asked for by name (Figure 4's) is run as asked; the default, compact, gives way to
  // pipelining when that is fewer cycles.
  if (!f.rotated_rows && f.layout == RotationLayout::compact && p.design.cycles > pipelined) {
    p.note = fmt::format("the best concurrent plan takes {} cycles, pipelining {}: Algorithm 5 pipelines with "
                         "Algorithm 4 (docs/multi-aapc.md)",
                         p.design.cycles, pipelined);
    return p;
  }
  p.kind = MultiAapcKind::concurrent;
  return p;
}

Schedule make_multi_aapc_schedule(const MultiAapcDesign& p) {
  return p.kind == MultiAapcKind::concurrent ? make_concurrent_schedule(p.concurrent, p.design)
                                             : make_aapc_sequence(p.options);
}

AddressMap multi_aapc_destination(const MultiAapcDesign& p) {
  const Geometry geo{p.n, p.m};
  return p.kind == MultiAapcKind::unequal ? shuffle_destination(geo, p.dims)
                                          : shuffle_destination(geo, p.options.d, p.options.axes, p.order);
}

std::string multi_aapc_note(const MultiAapcDesign& p, std::uint64_t cycles) {
  if (!p.note.empty()) return p.note;
  const unsigned d = p.options.d;
  const std::uint64_t half = bit(p.m - 1);
  const SequenceConstruction how =
      p.kind == MultiAapcKind::concurrent ? SequenceConstruction::pairs : sequence_construction(p.options);
  // The SAT solver's schedules (d = 3 on K = 8, a few unequal orders).
  if (how == SequenceConstruction::found && cycles < p.bound) {
    const FoundCover cover = found_cover(p.options);
    const std::string blocks =
        p.kind == MultiAapcKind::unequal ? "the AAPCs together by the schedule"
        : cover.three_first && cover.pairs == 0 && !cover.last_alone ? "the three AAPCs together by the schedule"
        : cover.three_first ? fmt::format("three AAPCs together, then two at a time, by the schedules{}",
                                          cover.last_alone ? ", the last alone by Algorithm 4" : "")
                            : fmt::format("two AAPCs at a time by the schedule{}",
                                          cover.last_alone ? ", the last alone by Algorithm 4" : "");
    return fmt::format(
        "{} cycles, {} fewer than {}: {} a SAT solver found on this machine; no schedule takes "
        "fewer, a word being that many dimensions from its destination or the solver finding none "
        "(scripts/corollary2_sat.py, docs/multi-aapc.md)",
        cycles, p.bound - cycles,
        p.kind == MultiAapcKind::unequal ? fmt::format("the derived {} ({})", p.bound, p.bound_source)
                                         : fmt::format("{}'s {}", p.bound_source, p.bound),
        blocks);
  }
  const std::string versus =
      cycles == p.bound ? fmt::format("as many as {}", p.bound_source)
                        : fmt::format("{} {} than {}'s {}", cycles < p.bound ? p.bound - cycles : cycles - p.bound,
                                      cycles < p.bound ? "fewer" : "more", p.bound_source, p.bound);
  if (p.kind == MultiAapcKind::concurrent && p.design.layout == RotationLayout::skewed)
    return fmt::format(
        "{} cycles, {}: complement pairs skewed bit by bit, and in each bit {} pairs start on later axes through the "
        "spare memory axis, filling the pipeline's idle corners (docs/multi-aapc.md, \"Rows rotated bit by bit\")",
        cycles, versus, p.design.rotated_pairs / d);
  if (how == SequenceConstruction::skewed) {
    return fmt::format(
        "{} cycles, {}: every complement pair crosses bit b of the axes one after another, one axis a cycle, and "
        "the pairs are skewed so that each dimension is busy from its first use; no pipeline of pairs takes fewer "
        "than {} (docs/multi-aapc.md, \"Pairs skewed bit by bit\")",
        cycles, versus, pair_pipeline_lower_bound(p.dims, p.m));
  }
  if (p.kind == MultiAapcKind::unequal && p.options.pipelined && cycles != p.bound) {
    if (cycles < p.bound)
      return fmt::format("{} cycles, {} fewer than the derived {}: K/2 = {} is below lcm(d_(i-1), d_i) for some "
                         "orders, and a short last group lets the next AAPC start sooner",
                         cycles, p.bound - cycles, p.bound, half);
    return fmt::format("{} cycles, {} more than the derived {} ({}): where an order does not divide K/2 = {}, "
                       "Algorithm 1's short last group leaves channels idle and Algorithm 3's span d_i + (K/2 mod "
                       "d_i) delays the next AAPC (docs/multi-aapc.md)",
                       cycles, cycles - p.bound, p.bound, p.bound_source, half);
  }
  if (p.kind == MultiAapcKind::concurrent && cycles > p.bound)
    return fmt::format("{} cycles, {} more than {}'s {}: {} (docs/multi-aapc.md)", cycles, cycles - p.bound,
                       p.bound_source, p.bound,
                       half % d != 0 ? fmt::format("d = {} does not divide K/2 = {}, so Algorithm 1's groups of d "
                                                   "pairs leave channels idle",
                                                   d, half)
                                     : fmt::format("rotated data sets come in rows of 2^d = {} pairs", bit(d)));
  return "";
}

std::string concurrent_plan_text(const MultiAapcDesign& p, bool figure) {
  const ConcurrentDesign& c = p.design;
  if (p.kind != MultiAapcKind::concurrent) return "";
  if (c.layout == RotationLayout::skewed) {
    const std::uint64_t per_bit = c.rotated_rows / p.options.d;
    return fmt::format("skewed layout: {} rotated rows, {} in each bit ({} pairs a bit start on later axes)\n",
                       c.rotated_rows, per_bit, per_bit << p.options.d);
  }
  return fmt::format("{} data sets of up to d pairs ({} start on later axes, {} layout, {} rotated row{}), {} columns "
                     "of d cycles\n{}",
                     c.plan.rows.size(), rotated_data_sets(c.plan), to_string(c.layout), c.rotated_rows,
                     c.rotated_rows == 1 ? "" : "s", c.plan.columns, figure ? plan_chart(c.plan) : "");
}

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

}  // namespace hcube

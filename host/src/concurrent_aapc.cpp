#include "hcube/host/concurrent_aapc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {
namespace {

struct Start {
  unsigned axis = 0;
  std::uint64_t column = 0;
};

// Where the layout starts its rotated data sets (axes counted from 0).
std::vector<Start> rotated_starts(unsigned s, std::uint64_t count, RotationLayout layout) {
  std::vector<Start> starts;
  if (count == 0) return starts;
  if (layout == RotationLayout::paper) {
    // Sec. 4.2: pairs of sets share a start axis, s-2, s-4, ... (s-2 sets for s even, s-1 for s odd).
    const unsigned pairs = (s - 1) / 2;
    if (pairs == 0) throw Error(fmt::format("Figure 4's layout needs s >= 3 axes: s = {}", s));
    for (std::uint64_t i = 0; i < count; ++i)
      starts.push_back({s - 2 - 2 * static_cast<unsigned>((i / 2) % pairs), i % 2});
    return starts;
  }
  if (s < 2) throw Error("rotated data sets need s >= 2 axes");
  // Up to s-2 sets on axes s-2, ..., 1 finish within the pipeline's own
  // R + s - 1 columns; s-1 sets go on axes s-1, ..., 1 (one column more), and
  // any more start on axis 0 with the pipeline: their one extra exchange, on
  // axis 0, comes after everything else (docs/multi-aapc.md).
  for (std::uint64_t i = 0; i < count; ++i)
    starts.push_back({count + 2 <= s ? s - 2 - static_cast<unsigned>(i) : i + 1 < s ? s - 1 - static_cast<unsigned>(i) : 0,
                      0});
  return starts;
}

class Grid {
 public:
  explicit Grid(unsigned axes) : busy_(axes) {}
  // The first free column >= from on the axis, taken.
  std::uint64_t take(unsigned axis, std::uint64_t from) {
    std::vector<bool>& b = busy_[axis];
    std::uint64_t c = from;
    while (c < b.size() && b[c]) ++c;
    if (c >= b.size()) b.resize(c + 1, false);
    b[c] = true;
    columns_ = std::max(columns_, c + 1);
    return c;
  }
  std::uint64_t columns() const { return columns_; }

 private:
  std::vector<std::vector<bool>> busy_;
  std::uint64_t columns_ = 0;
};

// The aligned v-axis value q of a local address, and where q is stored (see
// ConcurrentDesign): complementing q flips bit d only, so q and ~q share a row.
std::uint64_t logical_q(std::uint64_t addr, unsigned d) {
  const std::uint64_t t = (addr >> d) & 1, cls = (addr >> (d + 1)) & low_mask(d - 1);
  return (t << (d - 1)) | (cls ^ (t != 0 ? low_mask(d - 1) : 0));
}

std::uint64_t stored_q(std::uint64_t q, unsigned d) {
  const std::uint64_t t = (q >> (d - 1)) & 1, cls = (q & low_mask(d - 1)) ^ (t != 0 ? low_mask(d - 1) : 0);
  return (t << d) | (cls << (d + 1));
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// Both aligned axes read from a stored address: p = bits 0..d-1, q from the rest.
// P ^= q xor (axes [from, to) of the node folded onto the d low bits), on the rotated rows,
// in the bits of p that `bits` names (the skewed layout rotates a block of rows in one bit).
AffineMap rows_map(const Geometry& geo, unsigned d, unsigned from, unsigned to, std::uint64_t bits) {
  std::vector<std::uint64_t> mem(geo.m), node(geo.n, 0);
  for (unsigned b = 0; b < geo.m; ++b) mem[b] = bit(b) | (b >= d && b < 2 * d ? logical_q(bit(b), d) & bits : 0);
  for (unsigned k = from * d; k < to * d; ++k) node[k] = bit(k % d) & bits;
  return AffineMap::from_columns(geo, std::move(mem), std::move(node));
}

// The rotated rows' steps: one on all of them, or (by bit) one a block, block b in bit b.
std::vector<AlignmentStep> rotated_rows_steps(const Geometry& geo, unsigned d, unsigned from, unsigned to,
                                              std::uint64_t rows, bool by_bit) {
  std::vector<AlignmentStep> steps;
  if (rows == 0) return steps;
  if (!by_bit) {
    steps.emplace_back(rows_map(geo, d, from, to, low_mask(d)), 0, rows << (d + 1));
    return steps;
  }
  const std::uint64_t block = rows / d;
  for (unsigned b = 0; b < d; ++b)
    steps.emplace_back(rows_map(geo, d, from, to, bit(b)), (b * block) << (d + 1), ((b + 1) * block) << (d + 1));
  return steps;
}

void check_options(const ConcurrentOptions& o) {
  if (o.axes < 1) throw Error("number of axes s = 0 out of range: allowed at least 1");
  if (o.d < 1) throw Error("axis dimension d = 0 out of range: allowed d >= 1");
  if (static_cast<std::uint64_t>(o.d) * o.axes + o.m > kMaxAddressBits)
    throw Error(fmt::format("s d + m = {} * {} + {} out of range: allowed at most {}", o.axes, o.d, o.m, kMaxAddressBits));
  if (o.m < 2 * o.d)
    throw Error(fmt::format("Algorithm 5 needs a spare memory axis of d bits: m = {} below 2d = {} (sec. 4.2)", o.m,
                            2 * o.d));
}

}  // namespace

RotationLayout parse_rotation_layout(const std::string& s) {
  if (s == "paper") return RotationLayout::paper;
  if (s == "compact") return RotationLayout::compact;
  if (s == "skewed") return RotationLayout::skewed;
  throw Error(fmt::format("rotation layout '{}' unknown: allowed paper, compact, skewed", printable_input(s)));
}

std::string to_string(RotationLayout l) {
  return l == RotationLayout::paper ? "paper" : l == RotationLayout::skewed ? "skewed" : "compact";
}

ConcurrentPlan place_data_sets(unsigned axes, std::uint64_t standard, std::uint64_t rotated, RotationLayout layout) {
  if (axes < 1) throw Error("number of axes s = 0 out of range: allowed at least 1");
  const std::vector<Start> starts = rotated_starts(axes, rotated, layout);
  ConcurrentPlan plan;
  plan.axes = axes;
  Grid grid(axes);
  std::vector<PlanRow> standard_rows;
  for (std::uint64_t j = 0; j < standard; ++j) {
    PlanRow row;
    std::uint64_t next = 0;
    for (unsigned t = 0; t < axes; ++t) {
      const std::uint64_t c = grid.take(t, next);
      row.steps.push_back({t, c, false});
      next = c + 1;
    }
    standard_rows.push_back(std::move(row));
  }
  // A rotated set: through v along axes k..s-1, the local swap of i and v, then axes 0..k.
  std::vector<PlanRow> rotated_rows(rotated);
  const auto place = [&](std::uint64_t i, unsigned from, unsigned to, bool through_v) {
    PlanRow& row = rotated_rows[i];
    std::uint64_t next = row.steps.empty() ? starts[i].column : row.steps.back().column + 1;
    for (unsigned t = from; t <= to; ++t) {
      const std::uint64_t c = grid.take(t, next);
      row.steps.push_back({t, c, through_v});
      next = c + 1;
    }
  };
  for (std::uint64_t i = 0; i < rotated; ++i) {
    rotated_rows[i].rotated = true;
    rotated_rows[i].start = starts[i].axis;
    rotated_rows[i].label = layout == RotationLayout::paper ? fmt::format("d_{}^{}", i / 2, i % 2) : fmt::format("d_{}", i);
  }
  // Sets starting on axis 0 run with the pipeline; their last exchange waits for the others.
  for (std::uint64_t i = 0; i < rotated; ++i)
    if (starts[i].axis == 0) place(i, 0, axes - 1, true);
  for (std::uint64_t i = 0; i < rotated; ++i)
    if (starts[i].axis > 0) {
      place(i, starts[i].axis, axes - 1, true);
      place(i, 0, starts[i].axis, false);
    }
  for (std::uint64_t i = 0; i < rotated; ++i)
    if (starts[i].axis == 0) place(i, 0, 0, false);
  for (PlanRow& row : rotated_rows) plan.rows.push_back(std::move(row));
  const std::uint64_t first = layout == RotationLayout::paper ? (rotated + 1) / 2 : rotated;
  for (std::uint64_t j = 0; j < standard; ++j) {
    standard_rows[j].label = fmt::format("d_{}", first + j);
    plan.rows.push_back(std::move(standard_rows[j]));
  }
  plan.columns = grid.columns();
  return plan;
}

std::uint64_t rotated_data_sets(const ConcurrentPlan& plan) {
  return static_cast<std::uint64_t>(
      std::count_if(plan.rows.begin(), plan.rows.end(), [](const PlanRow& r) { return r.rotated; }));
}

std::string plan_chart(const ConcurrentPlan& plan) {
  std::size_t label_w = 9;
  for (const PlanRow& r : plan.rows) label_w = std::max(label_w, r.label.size());
  constexpr std::size_t kCell = 5;
  std::string out = fmt::format("{:<{}}", "time step", label_w);
  for (std::uint64_t c = 0; c < plan.columns; ++c) out += fmt::format("{:>{}}", c, kCell);
  out += "\n";
  for (const PlanRow& r : plan.rows) {
    std::vector<std::string> cells(plan.columns);
    for (const PlanStep& st : r.steps) cells[st.column] = fmt::format("{},{}", st.through_v ? 'v' : 'i', st.axis + 1);
    // The local swap of i and v right after the last exchange through v.
    for (std::size_t k = 0; k + 1 < r.steps.size(); ++k)
      if (r.steps[k].through_v && !r.steps[k + 1].through_v) {
        const std::uint64_t c = r.steps[k].column + 1;
        if (cells[c].empty())
          cells[c] = "*";
        else
          cells[r.steps[k].column] += "*";
      }
    std::string line = fmt::format("{:<{}}", r.label, label_w);
    for (const std::string& cell : cells) line += fmt::format("{:>{}}", cell, kCell);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::optional<std::uint64_t> skewed_concurrent_cycles(unsigned d, unsigned axes, unsigned m, std::uint64_t rows_per_bit) {
  if (d < 1 || axes < 1 || m < 2 * d || m - d - 1 >= 64 || rows_per_bit >= axes) return std::nullopt;
  const std::uint64_t pairs = bit(m - 1), rotated = rows_per_bit << d;
  if (pairs < static_cast<std::uint64_t>(axes) * d || rotated > axes - 1 || rows_per_bit * d > bit(m - d - 1))
    return std::nullopt;
  return rotated == 0 ? pairs + axes - 1 : pairs - rotated + std::max<std::uint64_t>(axes - 1, rotated + 1);
}

namespace {

ConcurrentDesign skewed_design(const ConcurrentOptions& o, std::uint64_t rows_per_bit, std::uint64_t cycles) {
  ConcurrentDesign design;
  design.layout = RotationLayout::skewed;
  design.rotated_rows = rows_per_bit * o.d;
  design.rotated_pairs = design.rotated_rows << o.d;
  design.standard_pairs = bit(o.m - 1) - design.rotated_pairs;
  design.plan.axes = o.axes;
  design.cycles = cycles;
  return design;
}

// The skewed layout asked for by name: the rows asked for, or the most that fit (the fewest cycles).
ConcurrentDesign design_skewed(const ConcurrentOptions& o) {
  const unsigned d = o.d, s = o.axes;
  if (bit(o.m - 1) < static_cast<std::uint64_t>(s) * d)
    throw Error(fmt::format("the skewed layout needs K/2 >= s d complement pairs: K/2 = {} below s d = {}",
                            bit(o.m - 1), s * d));
  const std::uint64_t most = (s - 1) >> d;  // K/2 >= s d leaves room for d blocks of these rows
  if (o.rotated_rows < 0) return skewed_design(o, most, *skewed_concurrent_cycles(d, s, o.m, most));
  const auto rows = static_cast<std::uint64_t>(o.rotated_rows);
  if (rows % d != 0 || rows / d > most)
    throw Error(fmt::format("rotated rows {} out of range for the skewed layout: allowed multiples of d = {} up to "
                            "{} (at most s - 1 = {} rotated pairs a bit, rows of 2^d = {})",
                            rows, d, most * d, s - 1, bit(d)));
  return skewed_design(o, rows / d, *skewed_concurrent_cycles(d, s, o.m, rows / d));
}

}  // namespace

ConcurrentDesign design_concurrent(const ConcurrentOptions& o) {
  check_options(o);
  if (o.layout == RotationLayout::skewed) return design_skewed(o);
  const unsigned d = o.d, s = o.axes;
  const std::uint64_t pairs = bit(o.m - 1), per_row = bit(d), rows = bit(o.m - d - 1);
  std::uint64_t lo = 0, hi = rows;
  if (o.rotated_rows >= 0) {
    if (static_cast<std::uint64_t>(o.rotated_rows) > rows)
      throw Error(fmt::format("rotated rows {} out of range: allowed 0..{} (rows of 2^d = {} complement pairs)",
                              o.rotated_rows, rows, per_row));
    lo = hi = static_cast<std::uint64_t>(o.rotated_rows);
  }
  ConcurrentDesign best;
  best.cycles = std::numeric_limits<std::uint64_t>::max();
  for (std::uint64_t r = lo; r <= hi; ++r) {
    const std::uint64_t rotated = ceil_div(r * per_row, d);
    // More rotated sets than 2s only add columns (each does one AAPC more).
    if (o.rotated_rows < 0 && r > 0 && (rotated > 3 * s || s < (o.layout == RotationLayout::paper ? 3u : 2u))) break;
    ConcurrentDesign cand;
    cand.rotated_rows = r;
    cand.rotated_pairs = r * per_row;
    cand.standard_pairs = pairs - cand.rotated_pairs;
    cand.plan = place_data_sets(s, ceil_div(cand.standard_pairs, d), rotated, o.layout);
    cand.cycles = cand.plan.columns * d;
    if (cand.cycles < best.cycles) best = std::move(cand);
  }
  // Left to itself, compact gives way to the skewed layout where that is fewer cycles (with no row
  // rotated it is the skewed pipeline, which plan_multi_aapc runs with plain alignments).
  if (o.layout == RotationLayout::compact && o.rotated_rows < 0 && pairs >= static_cast<std::uint64_t>(s) * d &&
      ((s - 1) >> d) > 0) {
    const ConcurrentDesign skewed = design_skewed(o);
    if (skewed.cycles < best.cycles) best = skewed;
  }
  best.layout = best.layout == RotationLayout::skewed ? RotationLayout::skewed : o.layout;
  return best;
}

namespace {

// The header and offset maps every Algorithm 5 schedule shares.
Schedule concurrent_header(const ConcurrentOptions& o, const ConcurrentDesign& design) {
  const unsigned d = o.d, s = o.axes;
  const std::uint64_t flip = low_mask(d + 1);  // a complement pair: p and q complemented
  Schedule sch;
  sch.algorithm = "5";
  sch.d = d;
  sch.n = s * d;
  sch.m = o.m;
  sch.pre = sch.post = AlignmentKind::concurrent;
  sch.axes = s;
  sch.rotated_rows = design.rotated_rows;
  sch.rotated_by_bit = design.layout == RotationLayout::skewed;
  // Axis t, dimension r: which member of a pair moves flips with bit r of the
  // node's other axes (docs/multi-aapc.md), for p and q alike.
  for (unsigned t = 0; t < s; ++t)
    for (unsigned r = 0; r < d; ++r) {
      NodeOffsetMap map(sch.n, 0);
      for (unsigned u = 0; u < s; ++u)
        if (u != t) map[u * d + r] = flip;
      sch.offset_maps.push_back(std::move(map));
    }
  return sch;
}

// The low member of pair i: rows of 2^d pairs, rotated rows first.
std::uint64_t low_of(std::uint64_t i, unsigned d) { return ((i >> d) << (d + 1)) | (i & low_mask(d)); }

// Pair `low` crosses bit r of `axis`: the member named by the aligned axis it swaps with.
Exchange crossing(std::uint64_t low, unsigned d, unsigned axis, unsigned r, bool through_v) {
  const std::uint64_t rel = through_v ? logical_q(low, d) : low & low_mask(d);
  const std::uint64_t addr = test_bit(rel, r) ? low : low ^ low_mask(d + 1);
  const unsigned dim = axis * d + r;
  return Exchange{dim, addr, addr, 1 + dim};
}

// The skewed layout (docs/multi-aapc.md, "Rows rotated bit by bit"). In bit b pair j sits at
// x = (j + s b) mod K/2, as the skewed pipeline's pairs do; x < Q = K/2 - R runs the pipeline's
// chain (axis t in cycle x + t), and the last R places are rotated in that bit: i = x - Q starts on
// axis k = R - i in cycle 0 (axes k..s-1 through v, the pipeline's lower idle corner) and runs axes
// 0..k from cycle Q + i (its upper corner). A pair's places in its bits are s apart around the
// circle of K/2 >= s d, so it crosses at most one dimension a cycle.
Schedule make_skewed_schedule(const ConcurrentOptions& o, const ConcurrentDesign& design) {
  const unsigned d = o.d, s = o.axes;
  const std::uint64_t pairs = bit(o.m - 1), rotated = design.rotated_pairs / d, standard = pairs - rotated;
  Schedule sch = concurrent_header(o, design);
  std::vector<std::vector<Exchange>> cycles(design.cycles);
  // Pair j's place: bit b's rotated block is rows [b, b + 1) x rotated / 2^d; the others follow.
  std::vector<std::uint64_t> index(pairs, 0);
  std::vector<bool> placed(pairs, false);
  for (unsigned b = 0; b < d; ++b)
    for (std::uint64_t i = 0; i < rotated; ++i) {
      const std::uint64_t j = (standard + i + pairs - (static_cast<std::uint64_t>(s) * b) % pairs) % pairs;
      index[j] = b * rotated + i;
      placed[j] = true;
    }
  std::uint64_t next = d * rotated;
  for (std::uint64_t j = 0; j < pairs; ++j)
    if (!placed[j]) index[j] = next++;
  for (std::uint64_t j = 0; j < pairs; ++j) {
    const std::uint64_t low = low_of(index[j], d);
    for (unsigned b = 0; b < d; ++b) {
      const std::uint64_t x = (j + static_cast<std::uint64_t>(s) * b) % pairs;
      if (x < standard) {
        for (unsigned t = 0; t < s; ++t) cycles[x + t].push_back(crossing(low, d, t, b, false));
        continue;
      }
      const std::uint64_t i = x - standard;
      const auto k = static_cast<unsigned>(rotated - i);
      for (unsigned t = k; t < s; ++t) cycles[t - k].push_back(crossing(low, d, t, b, true));
      for (unsigned t = 0; t <= k; ++t) cycles[standard + i + t].push_back(crossing(low, d, t, b, false));
    }
  }
  std::size_t total = 0;
  for (const auto& c : cycles) total += c.size();
  sch.reserve(cycles.size(), total);
  for (const auto& c : cycles) {
    for (const Exchange& e : c) sch.add(e);
    sch.end_cycle();
  }
  return sch;
}

}  // namespace

Schedule make_concurrent_schedule(const ConcurrentOptions& o, const ConcurrentDesign& design) {
  check_options(o);
  if (design.layout == RotationLayout::skewed) return make_skewed_schedule(o, design);
  const unsigned d = o.d;
  Schedule sch = concurrent_header(o, design);
  // The low member of every pair: rotated rows first, then the others; d pairs a data set.
  std::vector<std::uint64_t> lows(bit(o.m - 1));
  for (std::uint64_t i = 0; i < lows.size(); ++i) lows[i] = low_of(i, d);
  const ConcurrentPlan& plan = design.plan;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> range(plan.rows.size());  // [first, last) of lows
  std::uint64_t next_rot = 0, next_std = design.rotated_pairs;
  for (std::size_t k = 0; k < plan.rows.size(); ++k) {
    std::uint64_t& next = plan.rows[k].rotated ? next_rot : next_std;
    const std::uint64_t end = std::min(next + d, plan.rows[k].rotated ? design.rotated_pairs : lows.size());
    range[k] = {next, end};
    next = end;
  }
  if (next_rot != design.rotated_pairs || next_std != lows.size())
    throw Error("concurrent plan does not cover every pair of local addresses");
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> by_column(plan.columns);
  for (std::size_t k = 0; k < plan.rows.size(); ++k)
    for (std::size_t st = 0; st < plan.rows[k].steps.size(); ++st) by_column[plan.rows[k].steps[st].column].push_back({k, st});
  sch.reserve(plan.columns * d, by_column.size() * d * d);
  for (const auto& entries : by_column)
    for (unsigned c = 0; c < d; ++c) {
      for (const auto& [k, st] : entries) {
        const PlanStep& step = plan.rows[k].steps[st];
        for (std::uint64_t j = range[k].first; j < range[k].second; ++j) {
          const unsigned r = static_cast<unsigned>((j - range[k].first + c) % d);
          sch.add(crossing(lows[j], d, step.axis, r, step.through_v));
        }
      }
      sch.end_cycle();
    }
  return sch;
}

std::vector<AlignmentStep> concurrent_pre_alignment(const Geometry& geo, unsigned d, unsigned axes,
                                                    std::uint64_t rotated_rows, bool by_bit, const AffineMap& f) {
  // p = x xor (all axes), q = v xor (all axes), stored as stored_q.
  std::vector<std::uint64_t> mem(geo.m), node(geo.n, 0);
  for (unsigned b = 0; b < geo.m; ++b) mem[b] = b >= d && b < 2 * d ? stored_q(bit(b - d), d) : bit(b);
  for (unsigned k = 0; k < axes * d; ++k) node[k] = bit(k % d) | stored_q(bit(k % d), d);
  std::vector<AlignmentStep> steps;
  steps.emplace_back(f.then(AffineMap::from_columns(geo, std::move(mem), std::move(node))));
  // Rotated rows: p = x xor v xor axes 0..s-2, i.e. p ^= q xor axes 0..s-2.
  for (AlignmentStep& step : rotated_rows_steps(geo, d, 0, axes - 1, rotated_rows, by_bit)) steps.push_back(std::move(step));
  return steps;
}

std::vector<AlignmentStep> concurrent_post_alignment(const Geometry& geo, unsigned d, unsigned axes,
                                                     std::uint64_t rotated_rows, bool by_bit, const AffineMap& g) {
  // Rotated rows end with p xor q = x xor (the final axes 1..s-1): back to the others' form.
  std::vector<AlignmentStep> steps = rotated_rows_steps(geo, d, 1, axes, rotated_rows, by_bit);
  // i = p xor (all axes), v = q xor p xor axis 0.
  std::vector<std::uint64_t> mem(geo.m), node(geo.n, 0);
  for (unsigned b = 0; b < geo.m; ++b) {
    if (b < d)
      mem[b] = bit(b) | bit(d + b);
    else if (b < 2 * d)
      mem[b] = logical_q(bit(b), d) << d;
    else
      mem[b] = bit(b);
  }
  for (unsigned k = 0; k < axes * d; ++k) node[k] = bit(k % d) | (k < d ? bit(d + k) : 0);
  steps.emplace_back(AffineMap::from_columns(geo, std::move(mem), std::move(node)).then(g));
  return steps;
}

Theorem2Bound theorem2_bound(unsigned d, unsigned m, unsigned axes) {
  const std::uint64_t K = bit(m), half = K / 2, s = axes, dd = d;
  Theorem2Bound b;
  b.cycles = std::numeric_limits<std::uint64_t>::max();
  const auto consider = [&](std::uint64_t cycles, const char* source) {
    if (cycles < b.cycles) {
      b.cycles = cycles;
      b.source = source;
    }
  };
  if (s <= 3 || K <= 8 * dd) consider(half + (s - 1) * dd, "Theorem 2, s <= 3 or K <= 8d");
  if (8 * dd <= K && K <= 2 * (s + 1) * dd) consider((s + 3) * dd, "Theorem 2, 8d <= K <= 2(s+1)d");
  if (K >= 2 * (s + 1) * dd) consider(half + 2 * dd, "Theorem 2, K >= 2(s+1)d");
  return b;
}

}  // namespace hcube

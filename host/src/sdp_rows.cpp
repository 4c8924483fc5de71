// The n-port SDP algorithms' common part (Ho & Johnsson 1988, sec. 4.3-4.4):
// rows of exchanges, the units of data dealt to them, and the schedule.
#include "sdp_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <tuple>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"

namespace hcube::sdp {

Schedule plan_header(const DimensionPermutation& p, const char* algorithm, PortModel model) {
  Schedule s;
  s.algorithm = algorithm;
  s.n = p.n;
  s.m = p.m;
  s.d = std::max(1u, std::min(p.n, p.m));  // informational: the schedule is no AAPC
  s.pre = s.post = AlignmentKind::none;
  s.rules.model = model;
  return s;
}

std::vector<Block> mixed_blocks(const DimensionPermutation& p, const DimensionPermutationAnalysis& a) {
  std::vector<Block> blocks;
  for (const ShuffleCycle& c : a.cycles) {
    if (c.kind != ShuffleCycle::Kind::mixed) continue;
    const std::vector<unsigned>& b = c.bits;
    const std::size_t order = b.size();
    std::size_t first = 0;
    while (p.is_processor_bit(b[first])) ++first;
    std::size_t k = first;
    do {
      Block block{b[k], {}};
      std::size_t next = (k + 1) % order;
      for (; p.is_processor_bit(b[next]); next = (next + 1) % order) block.bits.push_back(b[next]);
      if (!block.bits.empty()) blocks.push_back(std::move(block));
      k = next;
    } while (k != first);
  }
  return blocks;
}

Units units_of(const DimensionPermutation& p, const DimensionPermutationAnalysis& a, const char* algorithm) {
  Units u;
  u.blocks = mixed_blocks(p, a);
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::real) u.real.push_back(c.bits);
  std::vector<bool> block_pivot(p.m, false);
  for (const Block& b : u.blocks) block_pivot[b.pivot] = true;
  for (unsigned x = 0; x < p.m; ++x)
    if (!block_pivot[x]) u.spare.push_back(x);
  if (u.real.empty()) return u;
  if (p.m == 0) throw Error(fmt::format("{} needs a storage dimension as pivot for a real cycle: m = 0 (K = 1)", algorithm));
  // A longer block's pivot is flipped anyway; otherwise a spare bit; a
  // one-exchange block's pivot last (its units then need closure under it).
  for (const Block& b : u.blocks)
    if (b.bits.size() > 1) {
      u.pivot = b.pivot;
      return u;
    }
  if (!u.spare.empty()) {
    u.pivot = u.spare.front();
    return u;
  }
  u.pivot = u.blocks.front().pivot;
  return u;
}

std::vector<unsigned> rotated_chain(const std::vector<unsigned>& bits, std::size_t k) {
  std::vector<unsigned> seq;
  for (std::size_t i = 0; i <= bits.size(); ++i) seq.push_back(bits[(k + i) % bits.size()]);
  return seq;
}

std::vector<std::vector<Step>> block_chains(const Units& u) {
  std::vector<std::vector<Step>> chains;
  for (const Block& b : u.blocks) chains.push_back(with_pivot(b.pivot, b.bits));
  return chains;
}

std::vector<std::vector<Step>> a1_chains(const Units& u) {
  std::vector<std::vector<Step>> chains;
  for (const auto& c : u.real) chains.push_back(with_pivot(u.pivot, rotated_chain(c, 0)));
  for (auto& c : block_chains(u)) chains.push_back(std::move(c));
  return chains;
}

std::vector<Step> with_pivot(unsigned pivot, const std::vector<unsigned>& bits) {
  std::vector<Step> steps;
  for (unsigned b : bits) steps.push_back(b == kIdle ? Step{} : Step{pivot, b});
  return steps;
}

std::vector<Choice> couple(const std::vector<std::vector<double>>& lists) {
  std::vector<double> cuts{0.0, 1.0};
  for (const auto& list : lists) {
    double sum = 0;
    for (double w : list) cuts.push_back(sum += w);
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<double> unique;
  for (double c : cuts)
    if (c <= 1.0 + 1e-12 && (unique.empty() || c - unique.back() > 1e-12)) unique.push_back(c);
  std::vector<Choice> out;
  for (std::size_t s = 0; s + 1 < unique.size(); ++s) {
    const double mid = (unique[s] + unique[s + 1]) / 2;
    Choice choice{unique[s + 1] - unique[s], {}};
    for (const auto& list : lists) {
      double sum = 0;
      std::size_t k = 0;
      while (k + 1 < list.size() && (sum += list[k]) < mid) ++k;
      choice.item.push_back(k);
    }
    out.push_back(std::move(choice));
  }
  return out;
}

std::vector<Row> chain_rows(const std::vector<std::vector<Row>>& lists) {
  std::vector<std::vector<double>> weights;
  for (const auto& list : lists) {
    double total = 0;
    for (const Row& r : list) total += r.weight;
    weights.emplace_back();
    for (const Row& r : list) weights.back().push_back(r.weight / total);
  }
  std::vector<Row> out;
  for (const Choice& c : couple(weights)) {
    Row row;
    row.weight = c.weight;
    for (std::size_t l = 0; l < lists.size(); ++l) {
      const auto& steps = lists[l][c.item[l]].steps;
      row.steps.insert(row.steps.end(), steps.begin(), steps.end());
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<std::vector<Row>> rotation_leaves(const std::vector<std::vector<unsigned>>& real, unsigned pivot,
                                              bool restoring) {
  std::vector<std::vector<Row>> leaves;
  for (const auto& c : real) {
    std::vector<Row> rows;
    for (std::size_t k = 0; k < c.size(); ++k) {
      std::vector<unsigned> chain = rotated_chain(c, k);
      if (!restoring) chain.pop_back();
      rows.push_back(Row{with_pivot(pivot, chain), 1.0 / static_cast<double>(c.size())});
    }
    leaves.push_back(std::move(rows));
  }
  return leaves;
}

namespace {

// Rows of length f stretched over a round of R >= f cycles: each row's steps
// in f of the R cycles, in order. Every f-subset when there are few (the
// integer dealing needs more than windows to balance every cycle at once),
// else the windows starting at every j, cyclically. The paper's groups run
// unsynchronised, Theorem 2 charging a round the slowest group's time; on
// synchronous cycles this spreading gives that count. Beyond kMaxRows rows
// the rows are only padded.
constexpr std::size_t kMaxRows = 4096;
std::vector<std::vector<std::size_t>> slot_sets(std::size_t f, std::size_t R, std::size_t budget) {
  std::vector<std::vector<std::size_t>> sets;
  std::vector<std::size_t> pick(f);
  std::iota(pick.begin(), pick.end(), std::size_t{0});
  while (sets.size() <= budget) {
    sets.push_back(pick);
    std::size_t i = f;
    while (i > 0 && pick[i - 1] == R - f + i - 1) --i;
    if (i == 0) return sets;
    ++pick[i - 1];
    for (std::size_t k = i; k < f; ++k) pick[k] = pick[k - 1] + 1;
  }
  sets.clear();
  for (std::size_t j = 0; j < R; ++j) {
    std::vector<std::size_t> slots;
    for (std::size_t e = 0; e < f; ++e) slots.push_back((j + e) % R);
    std::sort(slots.begin(), slots.end());
    sets.push_back(std::move(slots));
  }
  return sets;
}
std::vector<Row> spread(const std::vector<Row>& rows, std::size_t R) {
  std::vector<Row> out;
  if (rows.empty() || rows[0].steps.size() == R || rows.size() * R > kMaxRows) {
    out = rows;
    for (Row& r : out) r.steps.resize(R);
    return out;
  }
  const std::size_t f = rows[0].steps.size();
  const auto sets = slot_sets(f, R, kMaxRows / rows.size());
  for (const Row& r : rows)
    for (const auto& slots : sets) {
      Row s{std::vector<Step>(R), r.weight / static_cast<double>(sets.size())};
      for (std::size_t e = 0; e < f; ++e) s.steps[slots[e]] = r.steps[e];
      out.push_back(std::move(s));
    }
  return out;
}

}  // namespace

std::vector<Row> round_robin(const std::vector<std::vector<Row>>& groups) {
  std::size_t round = 0;
  for (const auto& g : groups)
    for (const Row& r : g) round = std::max(round, r.steps.size());
  std::vector<std::vector<Row>> child;
  for (const auto& g : groups) child.push_back(spread(g, round));
  // Beyond two groups the parts also run them in the opposite order (i - t),
  // 2 mu parts: an integer dealing can then load two groups' dimensions alike
  // in every cycle without making the mu parts equal (sec. 4.2.1's beta parts
  // are fractions of K).
  const std::size_t mu = groups.size(), directions = mu > 2 ? 2 : 1;
  std::vector<Row> rows;
  for (std::size_t dir = 0; dir < directions; ++dir)
    for (std::size_t i = 0; i < mu; ++i) {
      std::vector<std::vector<Row>> lists;
      for (std::size_t t = 0; t < mu; ++t) lists.push_back(child[dir == 0 ? (i + t) % mu : (i + mu - t) % mu]);
      for (Row& r : chain_rows(lists)) {
        r.weight /= static_cast<double>(mu * directions);
        rows.push_back(std::move(r));
      }
    }
  std::vector<Row> out;
  std::map<std::vector<std::pair<unsigned, unsigned>>, std::size_t> index;
  for (Row& r : rows) {
    std::vector<std::pair<unsigned, unsigned>> key;
    for (const Step& s : r.steps) key.emplace_back(s.pivot, s.bit);
    const auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) {
      out.push_back(std::move(r));
    } else {
      out[it->second].weight += r.weight;
    }
  }
  return out;
}

std::vector<Row> block_rows(const std::vector<std::vector<unsigned>>& real, unsigned pivot) {
  std::vector<std::size_t> order(real.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return real[x].size() > real[y].size(); });
  std::vector<std::uint64_t> width(real.size()), offset(real.size());
  std::uint64_t total = 0;
  for (std::size_t i : order) {  // decreasing powers of two: each offset a multiple of its width
    width[i] = bit(ceil_log2(real[i].size()));
    offset[i] = total;
    total += width[i];
  }
  const std::uint64_t C = total == 0 ? 0 : bit(ceil_log2(total));
  std::vector<Row> rows(C, Row{std::vector<Step>(C), 1.0 / static_cast<double>(C)});
  for (std::uint64_t r = 0; r < C; ++r)
    for (std::uint64_t t = 0; t < C; ++t)
      for (std::size_t i = 0; i < real.size(); ++i) {
        const std::uint64_t v = t ^ r;
        if (v < offset[i] || v >= offset[i] + width[i]) continue;
        const std::uint64_t pos = (t - r) & (width[i] - 1);
        if (pos < real[i].size()) rows[r].steps[t] = Step{pivot, real[i][pos]};
      }
  return rows;
}

std::uint64_t row_transfers(const std::vector<Row>& rows, const std::vector<std::uint64_t>& words, unsigned n,
                            unsigned m) {
  std::size_t cycles = 0;
  for (const Row& r : rows) cycles = std::max(cycles, r.steps.size());
  std::uint64_t sum = 0;
  for (std::size_t c = 0; c < cycles; ++c) {
    std::vector<std::uint64_t> load(n, 0);
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (c < rows[r].steps.size() && rows[r].steps[c].bit != kIdle) load[rows[r].steps[c].bit - m] += words[r];
    sum += *std::max_element(load.begin(), load.end());
  }
  return sum;
}

std::vector<unsigned> local_after(const DimensionPermutation& p, const std::vector<Step>& steps, const char* algorithm) {
  // at[x]: the bit whose content x holds.
  std::vector<unsigned> at(p.q());
  std::iota(at.begin(), at.end(), 0u);
  for (const Step& s : steps)
    if (s.bit != kIdle) std::swap(at[s.pivot], at[s.bit]);
  std::vector<unsigned> after(p.m);
  for (unsigned x = 0; x < p.q(); ++x) {
    if (p.is_processor_bit(x) ? p.to[at[x]] != x : p.is_processor_bit(p.to[at[x]]))
      throw Error(fmt::format("internal: {}'s exchanges do not realise the permutation", algorithm));
    if (x < p.m) after[x] = p.to[at[x]];
  }
  return after;
}

namespace {

// The annealing in Dealer: chains of at most kAnnealSteps single moves (8000
// a unit), each from the greedy dealing; 4 chains, or with 32 units or more
// as many as kAnnealBudget moves allow (at most 16).
constexpr std::int64_t kAnnealSteps = 1'000'000;
constexpr std::int64_t kAnnealBudget = 4'000'000;

struct Load {
  std::uint32_t cycle = 0, dim = 0;
  std::uint64_t amount = 0;
};

// Deals units of each type to rows (counts[type][row]) so that the sum over
// cycles of the busiest link's load is small: shares by weight, the rest
// greedily, then single moves while they help (a bounded search), then an
// annealing search that stops at the cycles' per-dimension bound.
class Dealer {
 public:
  // `groups`: sets of dimensions (each cycle's) for the lower bound that ends the search.
  Dealer(std::size_t cycles, unsigned dims, std::vector<std::vector<std::vector<Load>>> loads,
         std::vector<std::vector<unsigned>> groups)
      : loads_(std::move(loads)), groups_(std::move(groups)), L_(cycles, std::vector<std::uint64_t>(dims, 0)),
        max_(cycles, 0) {}

  std::vector<std::vector<std::uint64_t>> deal(const std::vector<double>& weight, const std::vector<std::uint64_t>& units,
                                               SdpEffort effort) {
    const std::size_t types = loads_.size(), rows = weight.size();
    const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
    std::vector<std::vector<std::uint64_t>> count(types, std::vector<std::uint64_t>(rows, 0));
    std::vector<std::pair<std::uint64_t, std::size_t>> left;  // (a unit's load, its type), one entry a unit
    for (std::size_t t = 0; t < types; ++t) {
      std::uint64_t rest = units[t];
      for (std::size_t r = 0; r < rows; ++r) {
        const auto share = static_cast<std::uint64_t>(std::floor(weight[r] / total * static_cast<double>(units[t]) + 1e-9));
        const std::uint64_t k = std::min(share, rest);
        add(t, r, k);
        count[t][r] += k;
        rest -= k;
      }
      std::uint64_t load = 0;
      for (const Load& l : loads_[t][0]) load += l.amount;
      left.insert(left.end(), rest, {load, t});
    }
    // The rest one by one, heaviest first, each to the row that raises the cost least.
    std::stable_sort(left.begin(), left.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [load, t] : left) {
      // Ties go to the row whose links are least loaded so far, then to the one furthest below its share.
      std::size_t best = 0;
      std::tuple<std::uint64_t, std::uint64_t, double> best_key{~std::uint64_t{0}, 0, 0};
      for (std::size_t r = 0; r < rows; ++r) {
        const double deficit = weight[r] / total * static_cast<double>(units[t]) - static_cast<double>(count[t][r]);
        const std::tuple<std::uint64_t, std::uint64_t, double> key{delta(t, r), level(t, r), -deficit};
        if (key < best_key) {
          best = r;
          best_key = key;
        }
      }
      add(t, best, 1);
      ++count[t][best];
    }
    improve(count);
    if (effort == SdpEffort::patient) anneal(count, bound(units));
    return count;
  }

 private:
  void add(std::size_t t, std::size_t r, std::uint64_t k) {
    if (k == 0) return;
    for (const Load& l : loads_[t][r]) {
      std::uint64_t& x = L_[l.cycle][l.dim];
      x += k * l.amount;
      max_[l.cycle] = std::max(max_[l.cycle], x);
    }
  }
  // Removes one unit and returns by how much the cost fell.
  std::uint64_t remove(std::size_t t, std::size_t r) {
    std::uint64_t fell = 0;
    for (const Load& l : loads_[t][r]) {
      std::uint64_t& x = L_[l.cycle][l.dim];
      const bool was_max = x == max_[l.cycle];
      x -= l.amount;
      if (was_max && l.amount > 0) {
        const std::uint64_t before = max_[l.cycle];
        max_[l.cycle] = *std::max_element(L_[l.cycle].begin(), L_[l.cycle].end());
        fell += before - max_[l.cycle];
      }
    }
    return fell;
  }
  // The loads already on the links a unit of type t in row r would use.
  std::uint64_t level(std::size_t t, std::size_t r) const {
    std::uint64_t sum = 0;
    for (const Load& l : loads_[t][r])
      if (l.amount > 0) sum += L_[l.cycle][l.dim];
    return sum;
  }
  std::uint64_t delta(std::size_t t, std::size_t r) const {
    std::uint64_t d = 0;
    for (const Load& l : loads_[t][r]) {
      const std::uint64_t x = L_[l.cycle][l.dim] + l.amount;
      if (x > max_[l.cycle]) d += x - max_[l.cycle];
    }
    return d;
  }
  // Moves single units between rows, and swaps two units of different types
  // between two rows, while that lowers the cost, within a budget of work.
  void improve(std::vector<std::vector<std::uint64_t>>& count) {
    std::int64_t budget = 4'000'000;
    const std::size_t types = count.size(), rows = types == 0 ? 0 : count[0].size();
    const auto work = [&](std::size_t t, std::size_t r) {
      budget -= static_cast<std::int64_t>((loads_[t][r].size() + 1) * (L_.empty() ? 1 : L_[0].size()));
    };
    for (bool moved = true; moved && budget > 0;) {
      moved = false;
      for (std::size_t t = 0; t < types && budget > 0; ++t)
        for (std::size_t r = 0; r < rows && budget > 0; ++r) {
          if (count[t][r] == 0) continue;
          const std::uint64_t fell = remove(t, r);
          std::size_t best = r;
          std::uint64_t best_rise = delta(t, r);
          for (std::size_t s = 0; s < rows; ++s, work(t, s - 1)) {
            const std::uint64_t rise = delta(t, s);
            if (rise < best_rise) {
              best = s;
              best_rise = rise;
            }
          }
          if (best != r && best_rise < fell) {
            --count[t][r];
            ++count[t][best];
            moved = true;
          }
          add(t, best, 1);
        }
      // Swaps: a unit of type t in row r for one of type t2 in row r2.
      for (std::size_t t = 0; t < types && budget > 0 && !moved; ++t)
        for (std::size_t r = 0; r < rows && budget > 0 && !moved; ++r) {
          if (count[t][r] == 0) continue;
          for (std::size_t t2 = t + 1; t2 < types && budget > 0 && !moved; ++t2)
            for (std::size_t r2 = 0; r2 < rows && budget > 0 && !moved; ++r2) {
              --budget;  // looking costs too: many types with few units
              if (r2 == r || count[t2][r2] == 0) continue;
              const std::uint64_t before = cost();
              remove(t, r);
              remove(t2, r2);
              add(t, r2, 1);
              add(t2, r, 1);
              work(t, r);
              work(t2, r2);
              if (cost() < before) {
                --count[t][r];
                ++count[t][r2];
                --count[t2][r2];
                ++count[t2][r];
                moved = true;
              } else {
                remove(t, r2);
                remove(t2, r);
                add(t, r, 1);
                add(t2, r2, 1);
              }
            }
        }
    }
  }
  std::uint64_t cost() const { return std::accumulate(max_.begin(), max_.end(), std::uint64_t{0}); }
  // No dealing costs less than any group D's words over |D| (the busiest
  // link's total is at least the group's average): each unit adds at least
  // the least load any row of its type puts on D.
  std::uint64_t bound(const std::vector<std::uint64_t>& units) const {
    std::uint64_t best = 0;
    for (const auto& D : groups_) {
      std::vector<bool> in(L_.empty() ? 0 : L_[0].size(), false);
      for (unsigned d : D) in[d] = true;
      std::uint64_t words = 0;
      for (std::size_t t = 0; t < loads_.size(); ++t) {
        std::uint64_t least = ~std::uint64_t{0};
        for (const auto& row : loads_[t]) {
          std::uint64_t on = 0;
          for (const Load& l : row) on += in[l.dim] ? l.amount : 0;
          least = std::min(least, on);
        }
        words += units[t] * (loads_[t].empty() ? 0 : least);
      }
      if (!D.empty()) best = std::max(best, (words + D.size() - 1) / D.size());
    }
    return best;
  }
  // Simulated annealing over single moves of a unit to another row of its
  // type, from the greedy dealing, keeping the best: the integer optimum can
  // need moves that first raise the cost (whole units cannot follow the rows'
  // fractional weights). Independent chains with fixed seeds, so plans are
  // reproducible.
  void anneal(std::vector<std::vector<std::uint64_t>>& count, std::uint64_t floor) {
    const std::size_t types = count.size(), rows = types == 0 ? 0 : count[0].size();
    std::uint64_t units = 0, heaviest = 0;
    for (std::size_t t = 0; t < types; ++t)
      for (std::size_t r = 0; r < rows; ++r) {
        units += count[t][r];
        for (const Load& l : loads_[t][r]) heaviest = std::max(heaviest, l.amount);
      }
    if (rows < 2 || units == 0 || heaviest == 0) return;
    const std::vector<std::vector<std::uint64_t>> greedy = count;
    std::vector<std::vector<std::uint64_t>> best_count = count;
    std::uint64_t best = cost();
    if (best <= floor) return;
    const std::int64_t length = std::min<std::int64_t>(kAnnealSteps, 8000 * static_cast<std::int64_t>(units));
    const auto T0 = static_cast<double>(heaviest);
    const auto chains = static_cast<std::uint64_t>(units < 32 ? 4 : std::clamp<std::int64_t>(kAnnealBudget / length, 4, 16));
    for (std::uint64_t chain = 0; chain < chains && best > floor; ++chain) {
      set(count, greedy);
      std::vector<std::pair<std::uint32_t, std::uint32_t>> unit;  // (type, row) of every unit
      for (std::size_t t = 0; t < types; ++t)
        for (std::size_t r = 0; r < rows; ++r)
          unit.insert(unit.end(), count[t][r], {static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(r)});
      std::mt19937_64 rng(chain);
      std::uint64_t now = cost();
      for (std::int64_t i = 0; i < length; ++i) {
        const double T = T0 * (1.0 - static_cast<double>(i) / static_cast<double>(length)) + 1e-3;
        auto& [t, r] = unit[rng() % unit.size()];
        const auto s = static_cast<std::uint32_t>(rng() % rows);
        if (s == r) continue;
        const std::uint64_t fell = remove(t, r);
        const std::uint64_t rise = delta(t, s);
        add(t, s, 1);
        const bool take = rise <= fell || std::generate_canonical<double, 53>(rng) <
                                              std::exp(-static_cast<double>(rise - fell) / T);
        if (!take) {
          remove(t, s);
          add(t, r, 1);
          continue;
        }
        --count[t][r];
        ++count[t][s];
        r = s;
        now = now + rise - fell;
        if (now < best) {
          best = now;
          best_count = count;
          if (best <= floor) break;
        }
      }
    }
    set(count, best_count);
  }
  // Moves units until the counts are `target`.
  void set(std::vector<std::vector<std::uint64_t>>& count, const std::vector<std::vector<std::uint64_t>>& target) {
    for (std::size_t t = 0; t < count.size(); ++t)
      for (std::size_t r = 0; r < count[t].size(); ++r) {
        for (; count[t][r] > target[t][r]; --count[t][r]) remove(t, r);
        for (; count[t][r] < target[t][r]; ++count[t][r]) add(t, r, 1);
      }
  }

  std::vector<std::vector<std::vector<Load>>> loads_;  // [type][row]
  std::vector<std::vector<unsigned>> groups_;
  std::vector<std::vector<std::uint64_t>> L_;          // [cycle][dim]
  std::vector<std::uint64_t> max_;                     // [cycle]
};

std::uint64_t deposit(std::uint64_t x, const std::vector<unsigned>& positions) {
  std::uint64_t r = 0;
  for (std::size_t i = 0; i < positions.size(); ++i)
    if (test_bit(x, static_cast<unsigned>(i))) r |= bit(positions[i]);
  return r;
}

// Each cycle's processor dimensions: the groups of Dealer's bound.
std::vector<std::vector<unsigned>> cycle_dims(const DimensionPermutation& p) {
  std::vector<std::vector<unsigned>> groups;
  for (const ShuffleCycle& c : analyze(p).cycles) {
    std::vector<unsigned> dims;
    for (unsigned b : c.bits)
      if (p.is_processor_bit(b)) dims.push_back(b - p.m);
    if (!dims.empty()) groups.push_back(std::move(dims));
  }
  return groups;
}

}  // namespace

std::vector<std::uint64_t> deal_words(const std::vector<Row>& rows, const DimensionPermutation& p, std::uint64_t words,
                                      SdpEffort effort) {
  const unsigned n = p.n, m = p.m;
  if (rows.empty()) return {};
  std::size_t cycles = 0;
  std::vector<std::vector<std::vector<Load>>> loads(1, std::vector<std::vector<Load>>(rows.size()));
  std::vector<double> weight;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    cycles = std::max(cycles, rows[r].steps.size());
    weight.push_back(rows[r].weight);
    for (std::size_t c = 0; c < rows[r].steps.size(); ++c)
      if (rows[r].steps[c].bit != kIdle) loads[0][r].push_back(Load{static_cast<std::uint32_t>(c), rows[r].steps[c].bit - m, 1});
  }
  return Dealer(cycles, n, std::move(loads), cycle_dims(p)).deal(weight, {words}, effort)[0];
}

SdpPlan rows_plan(const DimensionPermutation& p, const char* algorithm, const std::vector<Row>& rows,
                  std::vector<unsigned> closure, SdpEffort effort) {
  SdpPlan plan;
  plan.algorithm = algorithm;
  plan.schedule = plan_header(p, algorithm, PortModel::all_port);
  Schedule& s = plan.schedule;
  const unsigned q = p.q(), m = p.m;
  // Every row realises p on the processor bits and leaves the storage bits alike.
  plan.local_after.assign(p.to.begin(), p.to.begin() + m);  // no rows: the virtual cycles alone
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::vector<unsigned> after = local_after(p, rows[r].steps, algorithm);
    if (r == 0) plan.local_after = after;
    if (after != plan.local_after)
      throw Error(fmt::format("internal: {} rows leave the storage bits permuted differently", algorithm));
  }
  if (rows.empty()) return plan;

  // Pivots exchanged with one processor bit alone, which meets no other pivot, need no closure.
  std::vector<std::set<unsigned>> partners(q);
  for (const Row& row : rows)
    for (const Step& st : row.steps)
      if (st.bit != kIdle) {
        partners[st.pivot].insert(st.bit);
        partners[st.bit].insert(st.pivot);
      }
  std::vector<bool> in_closure(m, false);
  for (unsigned c : closure) in_closure[c] = true;
  NodeOffsetMap M(p.n, 0);
  std::vector<unsigned> trick;  // the pivots u outside the closure, each with its one bit
  for (unsigned u = 0; u < m; ++u) {
    if (in_closure[u] || partners[u].empty()) continue;
    const unsigned r = *partners[u].begin();
    if (partners[u].size() == 1 && partners[r].size() == 1) {
      M[r - m] = bit(u);
      trick.push_back(u);
    } else {
      in_closure[u] = true;
    }
  }
  closure.clear();
  std::vector<unsigned> free_bits;
  for (unsigned x = 0; x < m; ++x) (in_closure[x] ? closure : free_bits).push_back(x);
  // Offset maps: M for exchanges with a closure pivot; M without u's column for E(u, r).
  std::vector<std::uint32_t> map_of(m, 0);
  const bool offsets = !trick.empty();
  if (offsets) {
    s.offset_maps.push_back(M);
    for (unsigned x = 0; x < m; ++x) map_of[x] = 1;
    for (unsigned u : trick) {
      NodeOffsetMap without = M;
      for (std::uint64_t& col : without) col &= ~bit(u);
      s.offset_maps.push_back(std::move(without));
      map_of[u] = static_cast<std::uint32_t>(s.offset_maps.size());
    }
  }

  // Units: cosets of the closure (2^|closure| words), typed by their trick bits.
  const std::uint64_t unit_words = bit(static_cast<unsigned>(closure.size()));
  const std::uint64_t units = bit(static_cast<unsigned>(free_bits.size()));
  std::vector<unsigned> trick_index(m, 0);  // position of a trick pivot among free_bits
  for (unsigned u : trick)
    trick_index[u] = static_cast<unsigned>(std::find(free_bits.begin(), free_bits.end(), u) - free_bits.begin());
  const auto type_of = [&](std::uint64_t h) {
    std::uint64_t t = 0;
    for (std::size_t k = 0; k < trick.size(); ++k)
      if (test_bit(h, trick_index[trick[k]])) t |= bit(static_cast<unsigned>(k));
    return t;
  };
  const std::size_t types = std::size_t{1} << trick.size();
  std::vector<std::vector<std::uint64_t>> of_type(types);
  for (std::uint64_t h = 0; h < units; ++h) of_type[type_of(h)].push_back(h);

  std::size_t cycles = 0;
  for (const Row& row : rows) cycles = std::max(cycles, row.steps.size());
  std::vector<std::vector<std::vector<Load>>> loads(types, std::vector<std::vector<Load>>(rows.size()));
  for (std::size_t t = 0; t < types; ++t)
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::size_t c = 0; c < rows[r].steps.size(); ++c) {
        const Step& st = rows[r].steps[c];
        if (st.bit == kIdle) continue;
        std::uint64_t amount = unit_words / 2;
        if (!in_closure[st.pivot]) {
          const auto k = static_cast<unsigned>(std::find(trick.begin(), trick.end(), st.pivot) - trick.begin());
          amount = test_bit(t, k) ? unit_words : 0;
        }
        loads[t][r].push_back(Load{static_cast<std::uint32_t>(c), st.bit - m, amount});
      }
  std::vector<double> weight;
  for (const Row& row : rows) weight.push_back(row.weight);
  std::vector<std::uint64_t> units_of_type;
  for (const auto& list : of_type) units_of_type.push_back(list.size());
  const auto count = Dealer(cycles, p.n, std::move(loads), cycle_dims(p)).deal(weight, units_of_type, effort);
  std::vector<std::uint32_t> row_of(units);
  for (std::size_t t = 0; t < types; ++t) {
    std::size_t next = 0;
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::uint64_t k = 0; k < count[t][r]; ++k) row_of[of_type[t][next++]] = static_cast<std::uint32_t>(r);
  }

  std::uint64_t width = 1;
  for (std::size_t c = 0; c < cycles; ++c) {
    std::vector<std::uint64_t> load(p.n, 0);
    for (std::uint64_t h = 0; h < units; ++h) {
      const Row& row = rows[row_of[h]];
      if (c >= row.steps.size() || row.steps[c].bit == kIdle) continue;
      const auto [w, r] = row.steps[c];
      const bool closed = in_closure[w];
      if (!closed && !test_bit(h, trick_index[w])) continue;  // b_w = 0: nothing moves
      const std::uint64_t base = deposit(h, free_bits);
      for (std::uint64_t k = 0; k < unit_words; ++k) {
        const std::uint64_t beta = base | deposit(k, closure);
        if (closed && !test_bit(beta, w)) continue;
        s.add(Exchange{r - m, beta, beta ^ bit(w), offsets ? map_of[w] : 0u});
        ++load[r - m];
      }
    }
    for (std::uint64_t l : load) width = std::max(width, l);
    s.end_cycle();
  }
  if (width > 0xffffffffu) throw Error("internal: an n-port SDP cycle exceeds a channel's width");
  s.rules.channel_width = static_cast<unsigned>(width);
  plan.startups = s.cycles();
  plan.unit_words = unit_words;
  return plan;
}

}  // namespace hcube::sdp

// The n-port algorithms of Ho & Johnsson 1988 as rows (sdp_rows.hpp): A1
// n-port (sec. 4.2.1, 4.4), A4, A5 and A6 (sec. 4.3), mixed cycles as in sec. 4.4.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <optional>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/sdp_schedules.hpp"
#include "sdp_rows.hpp"

namespace hcube {

using sdp::Block;
using sdp::kIdle;
using sdp::Row;
using sdp::Step;
using sdp::Units;

namespace {

// The closure every plan of these units needs: the real chains' pivot and the
// pivots of blocks with more than one exchange (rows_plan adds what else it must).
std::vector<unsigned> closure_of(const Units& u) {
  std::vector<unsigned> c;
  if (u.pivot != kIdle) c.push_back(u.pivot);
  for (const Block& b : u.blocks)
    if (b.bits.size() > 1) c.push_back(b.pivot);
  return c;
}

// Commuting chains, part k running them from chain k on, so the parts use
// different dimensions in a cycle.
std::vector<Row> rotations(const std::vector<std::vector<Step>>& chains) {
  std::vector<Row> rows;
  for (std::size_t k = 0; k < chains.size(); ++k) {
    Row row;
    for (std::size_t i = 0; i < chains.size(); ++i) {
      const auto& c = chains[(k + i) % chains.size()];
      row.steps.insert(row.steps.end(), c.begin(), c.end());
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The mixed cycles' blocks (sec. 4.4) after the real rows, rotated over the parts.
std::vector<Row> with_blocks(std::vector<Row> real, const Units& u) {
  if (u.blocks.empty()) return real;
  std::vector<Row> blocks = rotations(sdp::block_chains(u));
  if (real.empty()) return blocks;
  return sdp::chain_rows({real, blocks});
}

}  // namespace

SdpPlan plan_a1_all_port(const DimensionPermutation& p, SdpEffort effort) {
  const DimensionPermutationAnalysis a = analyze(p);
  const Units u = sdp::units_of(p, a, "A1");
  std::vector<Row> rows;
  if (a.separable) {
    // Sec. 4.2.1, 4.3: part i of beta runs cycle (i + t) mod beta in phase t,
    // its data split over the rotations L^k(J_c), alpha_k; a cycle shorter than
    // the phase is spread over it, so each phase costs the paper's
    // (sigma_i + 1) K / (2 sigma_i beta) at most (beta (sigma_max + 1) cycles).
    if (!u.real.empty()) rows = sdp::round_robin(sdp::rotation_leaves(u.real, u.pivot, true));
  } else {
    // Sec. 4.4: A1 one-port's chains (each real cycle with the pivot, each block
    // with its own) commute; part k runs them from chain k on.
    rows = rotations(sdp::a1_chains(u));
  }
  return sdp::rows_plan(p, "A1", rows, closure_of(u), effort);
}

std::vector<std::vector<unsigned>> a4_sequences(const DimensionPermutationAnalysis& a, const DimensionPermutation& p) {
  std::vector<unsigned> seq0;
  for (const ShuffleCycle& c : a.cycles) {
    if (c.kind != ShuffleCycle::Kind::real) continue;
    seq0.insert(seq0.end(), c.bits.begin(), c.bits.end());
    seq0.push_back(c.bits[0]);
  }
  std::vector<std::vector<unsigned>> seqs;
  if (seq0.empty()) return seqs;
  const std::size_t count = a.sigma_p + a.real_cycles + a.sigma_min - 1;
  seqs.push_back(seq0);
  while (seqs.size() < count) {
    std::vector<unsigned> next(seqs.back().begin() + 1, seqs.back().end());
    next.push_back(p.to[seqs.back()[0]]);
    seqs.push_back(std::move(next));
  }
  return seqs;
}

SdpPlan plan_a4(const DimensionPermutation& p, SdpEffort effort) {
  const DimensionPermutationAnalysis a = analyze(p);
  const Units u = sdp::units_of(p, a, "A4");
  // The real cycles' sigma_p + beta + sigma_min - 1 sequences, all with the one pivot.
  const std::vector<std::vector<unsigned>> seqs = a4_sequences(a, p);
  const std::uint64_t K = bit(p.m);
  if (!seqs.empty() && K < 2 * seqs.size())
    throw Error(fmt::format("A4 runs P = sigma_p + beta + sigma_min - 1 = {} parts of K/P words: K = {} is too small "
                            "for its stated complexity (needs K >= 2P = {}, SDP paper Table 5)",
                            seqs.size(), K, 2 * seqs.size()));
  std::vector<Row> rows;
  for (const auto& q : seqs) rows.push_back(Row{sdp::with_pivot(u.pivot, q), 1.0});
  return sdp::rows_plan(p, "A4", with_blocks(rows, u), closure_of(u), effort);
}

// --- A5 --------------------------------------------------------------------

std::vector<std::vector<unsigned>> a5_sequences(const DimensionPermutationAnalysis& a, unsigned gamma) {
  if (gamma < 1) throw Error("A5's piece order gamma = 0 out of range: allowed 1..sigma_max");
  std::vector<std::vector<unsigned>> padded;  // each real cycle padded to mu_i gamma
  std::vector<std::size_t> pieces;
  std::size_t mu = 0;
  for (const ShuffleCycle& c : a.cycles) {
    if (c.kind != ShuffleCycle::Kind::real) continue;
    const std::size_t mu_i = (c.bits.size() + gamma - 1) / gamma;
    std::vector<unsigned> j = c.bits;
    j.resize(mu_i * gamma, kA5Dummy);
    padded.push_back(std::move(j));
    pieces.push_back(mu_i);
    mu += mu_i;
  }
  std::vector<std::vector<unsigned>> seqs;
  for (unsigned l = 0; l < gamma; ++l) {
    // S_k(l), k = 0 .. gamma.
    std::vector<std::vector<unsigned>> S(gamma + 1);
    for (std::size_t i = 0; i < padded.size(); ++i) {
      const std::size_t len = padded[i].size();
      const auto alpha = [&](std::size_t j) { return padded[i][(j + l) % len]; };
      for (unsigned k = 0; k < gamma; ++k)
        for (std::size_t p = 0; p < pieces[i]; ++p) S[k].push_back(alpha(p * gamma + k));
      for (std::size_t p = 1; p < pieces[i]; ++p) S[gamma].push_back(alpha(p * gamma));
      S[gamma].push_back(alpha(0));
    }
    for (std::size_t j = 0; j < mu; ++j) {
      std::vector<unsigned> seq;
      for (const std::vector<unsigned>& part : S)
        for (std::size_t u = 0; u < mu; ++u) seq.push_back(part[(u + j) % mu]);
      seqs.push_back(std::move(seq));
    }
  }
  return seqs;
}

namespace {

// A5's rows with dummies (docs/sdp.md, "A5 with dummies"). Cycle i, rotated to
// start at alpha_l (every l in Z_sigma_i), is cut into mu_i pieces of gamma
// bits from alpha_l on, the last one short (s_i = sigma_i - (mu_i - 1) gamma
// bits): no piece is headed by a dummy. Piece P (numbered over all cycles)
// keeps pivot `pivots[P]`; in row j it sits at position u = (P - j) mod mu of
// each of the gamma + 1 blocks of mu cycles: element e in block e, the coupling
// E(v_P, head of the next piece) (Lemma 8) in block gamma. The short piece's
// s_i exchanges and its coupling may take any s_i + 1 of the gamma + 1 blocks
// in order (its chain before its coupling; the coupling from the piece before
// it, in block gamma, after its first exchange; its own coupling after the
// next piece's first exchange, in block 0): its variants are the gamma + 1
// cyclic shifts of one evenly spread choice, which use every block equally
// often, so every cycle's dimensions carry the same load in every block.
// Rows: every j, and every (l, variant) of each cycle, independent of j.
std::vector<Row> a5_padded_rows(const std::vector<std::vector<unsigned>>& real, unsigned gamma,
                                const std::vector<unsigned>& pivots) {
  struct Variant {
    std::size_t l;
    std::vector<std::size_t> blocks;  // the short piece's exchanges, then its coupling
  };
  std::size_t mu = 0;
  std::vector<std::size_t> first_piece;
  std::vector<std::vector<Variant>> variants(real.size());
  for (std::size_t i = 0; i < real.size(); ++i) {
    const std::size_t sigma = real[i].size(), mu_i = (sigma + gamma - 1) / gamma, s = sigma - (mu_i - 1) * gamma;
    first_piece.push_back(mu);
    mu += mu_i;
    std::vector<std::size_t> spread;  // s + 1 of the gamma + 1 blocks, evenly spaced
    for (std::size_t e = 0; e <= s; ++e) spread.push_back(e * (gamma + 1) / (s + 1));
    const std::size_t shifts = s == gamma ? 1 : gamma + 1;
    for (std::size_t l = 0; l < sigma; ++l)
      for (std::size_t c = 0; c < shifts; ++c) {
        std::vector<std::size_t> blocks;
        for (std::size_t b : spread) blocks.push_back((b + c) % (gamma + 1));
        std::sort(blocks.begin(), blocks.end());
        variants[i].push_back(Variant{l, std::move(blocks)});
      }
  }
  std::vector<std::vector<double>> uniform;
  for (const auto& v : variants) uniform.emplace_back(v.size(), 1.0 / static_cast<double>(v.size()));
  const std::vector<sdp::Choice> choices = sdp::couple(uniform);
  std::vector<Row> rows;
  for (std::size_t j = 0; j < mu; ++j)
    for (const sdp::Choice& choice : choices) {
      Row row{std::vector<Step>((gamma + 1) * mu), choice.weight / static_cast<double>(mu)};
      for (std::size_t i = 0; i < real.size(); ++i) {
        const std::vector<unsigned>& alpha = real[i];
        const std::size_t sigma = alpha.size(), mu_i = (sigma + gamma - 1) / gamma;
        const Variant& v = variants[i][choice.item[i]];
        for (std::size_t piece = 0; piece < mu_i; ++piece) {
          const std::size_t P = first_piece[i] + piece, u = (P + mu - j) % mu;
          const std::size_t size = piece + 1 == mu_i ? sigma - piece * gamma : gamma;
          const auto block = [&](std::size_t e) { return size == gamma ? e : v.blocks[e]; };
          for (std::size_t e = 0; e < size; ++e)
            row.steps[block(e) * mu + u] = Step{pivots[P], alpha[(v.l + piece * gamma + e) % sigma]};
          const unsigned head = alpha[(v.l + ((piece + 1) % mu_i) * gamma) % sigma];
          row.steps[block(size) * mu + u] = Step{pivots[P], head};
        }
      }
      rows.push_back(std::move(row));
    }
  return rows;
}

SdpPlan plan_a5_gamma(const DimensionPermutation& p, const DimensionPermutationAnalysis& a, const Units& u,
                      unsigned gamma, SdpEffort effort) {
  if (gamma < 1 || gamma > std::max(1u, a.sigma_max))
    throw Error(fmt::format("A5's piece order gamma = {} out of range: allowed 1..sigma_max = {}", gamma,
                            std::max(1u, a.sigma_max)));
  std::size_t mu = 0;
  bool padded = false;
  for (const auto& c : u.real) {
    mu += (c.size() + gamma - 1) / gamma;
    padded = padded || c.size() % gamma != 0;
  }
  // Each piece keeps a pivot of its own: storage bits no block pivots.
  if (u.spare.size() < mu)
    throw Error(fmt::format("A5 with gamma = {} cuts the real cycles into mu = {} pieces, each with a pivot storage "
                            "dimension of its own: m = {} has {} outside the mixed cycles' blocks",
                            gamma, mu, p.m, u.spare.size()));
  const std::vector<unsigned> pivots(u.spare.begin(), u.spare.begin() + static_cast<std::ptrdiff_t>(mu));
  std::vector<Row> rows;
  if (!padded) {
    // The paper's sequences (Table 2's construction): position c mod mu of
    // sequence k holds piece (c + k) mod mu, whose pivot it uses.
    const auto seqs = a5_sequences(a, gamma);
    for (std::size_t k = 0; k < seqs.size(); ++k) {
      Row row;
      for (std::size_t c = 0; c < seqs[k].size(); ++c) row.steps.push_back(Step{pivots[(c + k) % mu], seqs[k][c]});
      rows.push_back(std::move(row));
    }
  } else {
    rows = a5_padded_rows(u.real, gamma, pivots);
  }
  std::vector<unsigned> closure(pivots.begin(), pivots.end());
  for (const Block& b : u.blocks)
    if (b.bits.size() > 1) closure.push_back(b.pivot);
  SdpPlan plan = sdp::rows_plan(p, "A5", with_blocks(rows, u), closure, effort);
  plan.gamma = gamma;
  return plan;
}

}  // namespace

SdpPlan plan_a5(const DimensionPermutation& p, unsigned gamma, double t_c, double tau, std::uint64_t packet,
                SdpEffort effort) {
  const DimensionPermutationAnalysis a = analyze(p);
  const Units u = sdp::units_of(p, a, "A5");
  if (gamma != 0 || u.real.empty()) return plan_a5_gamma(p, a, u, gamma == 0 ? 1 : gamma, effort);
  // The gamma with the lowest modelled time among those whose pieces find pivots.
  std::optional<SdpPlan> best;
  double best_time = 0;
  std::string why;
  for (unsigned g = 1; g <= a.sigma_max; ++g) {
    try {
      SdpPlan plan = plan_a5_gamma(p, a, u, g, effort);
      const double time = model_plan(plan, t_c, tau, packet == 0 ? bit(p.m) : packet).time;
      if (!best || time <= best_time) {
        best = std::move(plan);
        best_time = time;
      }
    } catch (const Error& e) {
      if (why.empty()) why = e.what();
    }
  }
  if (!best) throw Error(why);
  return *best;
}

// --- A6 --------------------------------------------------------------------

namespace {

constexpr std::size_t kA6MaxCycles = 10;

// f over subsets of S (bit masks), with the partition that reaches it.
struct Grouping {
  std::vector<std::uint64_t> s;
  std::vector<std::uint64_t> f;             // by mask; 0: not yet computed
  std::vector<std::vector<unsigned>> best;  // by mask: the blocks (masks) of the best partition

  explicit Grouping(std::vector<std::uint64_t> values)
      : s(std::move(values)), f(std::size_t{1} << s.size(), 0), best(std::size_t{1} << s.size()) {}

  std::uint64_t solve(unsigned mask) {
    if (f[mask] != 0) return f[mask];
    if ((mask & (mask - 1)) == 0) return f[mask] = s[static_cast<unsigned>(__builtin_ctz(mask))];
    // Every partition into >= 2 blocks: blocks as restricted growth over the mask's elements.
    std::vector<unsigned> elems;
    for (unsigned b = 0; b < s.size(); ++b)
      if (mask >> b & 1u) elems.push_back(1u << b);
    std::vector<unsigned> blocks;
    std::uint64_t best_f = ~std::uint64_t{0};
    std::vector<unsigned> best_blocks;
    const std::function<void(std::size_t)> place = [&](std::size_t k) {
      if (k == elems.size()) {
        if (blocks.size() < 2) return;
        std::uint64_t worst = 0;
        for (unsigned b : blocks) worst = std::max(worst, solve(b));
        const std::uint64_t value = blocks.size() * worst;
        if (value < best_f) {
          best_f = value;
          best_blocks = blocks;
        }
        return;
      }
      for (std::size_t i = 0; i < blocks.size(); ++i) {
        blocks[i] |= elems[k];
        place(k + 1);
        blocks[i] &= ~elems[k];
      }
      blocks.push_back(elems[k]);
      place(k + 1);
      blocks.pop_back();
    };
    place(0);
    best[mask] = best_blocks;
    return f[mask] = best_f;
  }
};

// The rows of a group (a mask over the units), all of length f(mask), weights summing to 1.
std::vector<Row> group_rows(Grouping& g, unsigned mask, const std::vector<std::vector<Row>>& leaves) {
  if ((mask & (mask - 1)) == 0) return leaves[static_cast<unsigned>(__builtin_ctz(mask))];
  const std::uint64_t length = g.solve(mask);  // fills g.best[mask]
  std::vector<std::vector<Row>> child;
  for (unsigned b : g.best[mask]) child.push_back(group_rows(g, b, leaves));
  std::vector<Row> rows = sdp::round_robin(child);
  if (rows.empty() || rows[0].steps.size() != length)
    throw Error("internal: an A6 group's rounds do not add up to f(S)");
  return rows;
}

}  // namespace

std::vector<Row> sdp::grouped_rows(const std::vector<std::vector<Row>>& leaves, const std::vector<std::uint64_t>& s,
                                   const char* algorithm) {
  if (leaves.size() > kA6MaxCycles)
    throw Error(fmt::format("{} searches the groupings of at most {} cycles and blocks: this permutation has {}",
                            algorithm, kA6MaxCycles, leaves.size()));
  if (leaves.empty()) return {};
  Grouping g(s);
  return group_rows(g, static_cast<unsigned>((1u << leaves.size()) - 1), leaves);
}

std::uint64_t a6_startups(const std::vector<std::uint64_t>& s) {
  if (s.empty() || s.size() > kA6MaxCycles)
    throw Error(fmt::format("A6 groups 1..{} cycles: got {}", kA6MaxCycles, s.size()));
  Grouping g(s);
  return g.solve(static_cast<unsigned>((1u << s.size()) - 1));
}

SdpPlan plan_a6(const DimensionPermutation& p, SdpEffort effort) {
  const DimensionPermutationAnalysis a = analyze(p);
  const Units u = sdp::units_of(p, a, "A6");
  // The units: each real cycle (A1 n-port's rotations, sigma + 1 cycles) and
  // each block of a mixed cycle (its chain, t cycles, sec. 4.4).
  std::vector<std::vector<Row>> leaves = sdp::rotation_leaves(u.real, u.pivot, true);
  std::vector<std::uint64_t> s;
  for (const auto& c : u.real) s.push_back(c.size() + 1);
  for (const Block& b : u.blocks) {
    leaves.push_back({Row{sdp::with_pivot(b.pivot, b.bits), 1.0}});
    s.push_back(b.bits.size());
  }
  return sdp::rows_plan(p, "A6", sdp::grouped_rows(leaves, s, "A6"), closure_of(u), effort);
}

}  // namespace hcube

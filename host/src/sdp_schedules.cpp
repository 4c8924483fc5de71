#include "hcube/host/sdp_schedules.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <numeric>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

// E(v, r) as one routing cycle: v a memory bit, r a processor bit of the address (r >= m).
void add_e(Schedule& s, unsigned v, unsigned r) {
  const std::uint64_t K = bit(s.m);
  for (std::uint64_t a = 0; a < K; ++a)
    if (test_bit(a, v)) s.add(Exchange{r - s.m, a, a ^ bit(v)});
  s.end_cycle();
}

// The header every plan's schedule shares.
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

// Storage bits of virtual cycles move by local_after: memory bit b to to[b].
std::vector<unsigned> virtual_moves(const DimensionPermutation& p, const DimensionPermutationAnalysis& a) {
  std::vector<unsigned> after(p.m);
  std::iota(after.begin(), after.end(), 0u);
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::virtual_)
      for (unsigned b : c.bits) after[b] = p.to[b];
  return after;
}

// Checks what the n-port algorithms need and returns the analysis.
DimensionPermutationAnalysis check_n_port(const DimensionPermutation& p, const char* algorithm) {
  const DimensionPermutationAnalysis a = analyze(p);
  if (!a.separable)
    throw Error(fmt::format("{} needs a separable permutation (no cycle mixing processor and storage bits): use A1 "
                            "one-port or A2",
                            algorithm));
  if (a.real_cycles > 0 && p.m == 0)
    throw Error(fmt::format("{} needs a storage dimension as pivot: m = 0 (K = 1)", algorithm));
  return a;
}

// The parts' pivot pairs: the K/2 low members (bit 0 clear, the pivot), dealt
// out as evenly as possible, parts[k] = [first, last) of the low members.
std::vector<std::pair<std::uint64_t, std::uint64_t>> deal(std::uint64_t pairs, std::uint64_t parts) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> r;
  std::uint64_t first = 0;
  for (std::uint64_t k = 0; k < parts; ++k) {
    const std::uint64_t size = pairs / parts + (k < pairs % parts ? 1 : 0);
    r.emplace_back(first, first + size);
    first += size;
  }
  return r;
}

// Parts running sequences of processor bits (kNone: idle). Parts are whole
// cosets of the mu low storage bits (the pivots), dealt to the sequences;
// in cycle c part k does E(pivot(k, c), seq_k[c]) on its own addresses, with
// offset map map(k, c) when given.
constexpr unsigned kNone = ~0u;
Schedule sequences_schedule(Schedule s, const std::vector<std::vector<unsigned>>& seqs, unsigned mu,
                            const std::function<unsigned(std::size_t, std::size_t)>& pivot,
                            const std::function<std::uint32_t(std::size_t, std::size_t)>& map = {}) {
  const auto parts = deal(s.m < mu ? 0 : bit(s.m - mu), seqs.size());
  std::size_t cycles = 0;
  for (const auto& q : seqs) cycles = std::max(cycles, q.size());
  std::uint64_t width = 1;
  for (std::size_t c = 0; c < cycles; ++c) {
    std::vector<std::uint64_t> load(s.n, 0);
    for (std::size_t k = 0; k < seqs.size(); ++k) {
      if (c >= seqs[k].size() || seqs[k][c] == kNone) continue;
      const unsigned r = seqs[k][c] - s.m, v = pivot(k, c);
      for (std::uint64_t coset = parts[k].first; coset < parts[k].second; ++coset)
        for (std::uint64_t low = 0; low < bit(mu); ++low)
          if (test_bit(low, v)) {
            const std::uint64_t a = (coset << mu) | low;
            s.add(Exchange{r, a, a ^ bit(v), map ? map(k, c) : 0u});
            ++load[r];
          }
    }
    for (std::uint64_t l : load) width = std::max(width, l);
    s.end_cycle();
  }
  if (width > 0xffffffffu) throw Error("internal: an n-port SDP cycle exceeds a channel's width");
  s.rules.channel_width = static_cast<unsigned>(width);
  return s;
}

// A plan of parts running sequences, the virtual cycles moved locally after.
SdpPlan sequences_plan(const DimensionPermutation& p, const DimensionPermutationAnalysis& a, const char* name,
                       const std::vector<std::vector<unsigned>>& seqs) {
  SdpPlan plan;
  plan.algorithm = name;
  plan.schedule = sequences_schedule(plan_header(p, name, PortModel::all_port), seqs, 1,
                                     [](std::size_t, std::size_t) { return 0u; });
  plan.local_after = virtual_moves(p, a);
  plan.startups = plan.schedule.cycles();
  return plan;
}

std::vector<unsigned> rotated_chain(const std::vector<unsigned>& bits, std::size_t k) {
  std::vector<unsigned> seq;
  for (std::size_t i = 0; i <= bits.size(); ++i) seq.push_back(bits[(k + i) % bits.size()]);
  return seq;
}

}  // namespace

namespace {

// A1's exchanges as blocks, each a chain E(pivot, r_1), ..., E(pivot, r_t):
// a real cycle's chain with a pivot it restores, and each run of processor
// bits after a storage bit u of a mixed cycle with u as the pivot. Each block
// acts on its own address bits (its pivot restored, or its run's bits), so the
// blocks commute; local_after completes the storage bits.
struct A1Blocks {
  std::vector<std::vector<std::pair<unsigned, unsigned>>> blocks;  // (pivot, processor bit)
  std::vector<unsigned> local_after;
  unsigned real_pivot = 0;
};

A1Blocks a1_blocks(const DimensionPermutation& p, const DimensionPermutationAnalysis& a) {
  A1Blocks r;
  // The real chains' pivot: a storage bit a mixed cycle touches anyway, so the
  // storage bits outside every cycle stay free (the n-port form parts by them).
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::mixed) {
      r.real_pivot = *std::min_element(c.bits.begin(), c.bits.end());
      break;
    }
  // source[x]: the position whose content ends up at storage position x after the exchanges.
  std::vector<unsigned> source(p.m);
  std::iota(source.begin(), source.end(), 0u);
  for (const ShuffleCycle& c : a.cycles) {
    const std::vector<unsigned>& b = c.bits;
    const std::size_t order = b.size();
    if (c.kind == ShuffleCycle::Kind::real) {
      if (p.m == 0) throw Error("A1 needs a storage dimension as pivot for a real cycle: m = 0 (K = 1)");
      auto& block = r.blocks.emplace_back();
      for (std::size_t k = 0; k <= order; ++k) block.emplace_back(r.real_pivot, b[k % order]);
      continue;
    }
    // Mixed or virtual: start at a storage bit; each storage bit u followed by
    // processor bits r_1..r_t pivots their chain, ending with r_t's content at u.
    std::size_t first = 0;
    while (p.is_processor_bit(b[first])) ++first;
    std::size_t k = first;
    do {
      const unsigned u = b[k];
      std::size_t next = (k + 1) % order;
      std::vector<std::pair<unsigned, unsigned>> block;
      while (p.is_processor_bit(b[next])) {
        block.emplace_back(u, b[next]);
        next = (next + 1) % order;
      }
      if (!block.empty()) r.blocks.push_back(std::move(block));
      // The storage bit after the run receives what u now holds: u's own
      // content when the run is empty, the run's last processor content otherwise.
      source[b[next]] = u;
      k = next;
    } while (k != first);
  }
  // Content at position source[x] goes to x: memory bit source[x] moves to bit x.
  r.local_after.assign(p.m, 0);
  for (unsigned x = 0; x < p.m; ++x) r.local_after[source[x]] = x;
  return r;
}

}  // namespace

SdpPlan plan_a1_one_port(const DimensionPermutation& p) {
  const A1Blocks blocks = a1_blocks(p, analyze(p));
  SdpPlan plan;
  plan.algorithm = "A1";
  plan.schedule = plan_header(p, "A1", PortModel::one_port);
  Schedule& s = plan.schedule;
  s.rules.channel_width = p.m == 0 ? 1 : static_cast<unsigned>(std::min<std::uint64_t>(bit(p.m - 1), 0xffffffffu));
  for (const auto& block : blocks.blocks)
    for (const auto& [v, r] : block) add_e(s, v, r);
  plan.local_after = blocks.local_after;
  plan.startups = s.cycles();
  return plan;
}

namespace {

SdpPlan plan_a1_all_port_non_separable(const DimensionPermutation& p, const DimensionPermutationAnalysis& a) {
  const A1Blocks b = a1_blocks(p, a);
  // The storage bits no exchange flips (outside the mixed cycles, not the real
  // chains' pivot; a virtual cycle's move comes after) part the data.
  std::vector<bool> touched(p.m, false);
  for (const ShuffleCycle& c : a.cycles)
    for (unsigned x : c.bits)
      if (c.kind == ShuffleCycle::Kind::mixed && !p.is_processor_bit(x)) touched[x] = true;
  if (a.real_cycles > 0) touched[b.real_pivot] = true;
  std::vector<unsigned> free;
  for (unsigned x = 0; x < p.m; ++x)
    if (!touched[x]) free.push_back(x);
  const std::size_t blocks = b.blocks.size();
  const std::uint64_t cosets = bit(static_cast<unsigned>(std::min<std::size_t>(free.size(), 63)));
  const std::uint64_t parts = std::max<std::uint64_t>(1, std::min<std::uint64_t>(blocks, cosets));
  // part_of[a]: the part whose sequence address a follows (its free bits' coset, dealt out).
  const auto dealt = deal(cosets, parts);
  std::vector<std::uint32_t> part_of_coset(cosets);
  for (std::uint64_t k = 0; k < parts; ++k)
    for (std::uint64_t c = dealt[k].first; c < dealt[k].second; ++c) part_of_coset[c] = static_cast<std::uint32_t>(k);
  std::vector<std::uint32_t> part_of(bit(p.m));
  for (std::uint64_t addr = 0; addr < bit(p.m); ++addr) {
    std::uint64_t coset = 0;
    for (std::size_t i = 0; i < free.size(); ++i) coset |= (addr >> free[i] & 1u) << i;
    part_of[addr] = part_of_coset[coset];
  }
  // Part k runs the blocks from block k on: different parts, different dimensions.
  std::vector<std::vector<std::pair<unsigned, unsigned>>> seqs(parts);
  for (std::uint64_t k = 0; k < parts; ++k)
    for (std::size_t i = 0; i < blocks; ++i) {
      const auto& block = b.blocks[(k + i) % blocks];
      seqs[k].insert(seqs[k].end(), block.begin(), block.end());
    }
  SdpPlan plan;
  plan.algorithm = "A1";
  plan.schedule = plan_header(p, "A1", PortModel::all_port);
  Schedule& s = plan.schedule;
  const std::size_t cycles = seqs.empty() ? 0 : seqs[0].size();
  std::uint64_t width = 1;
  for (std::size_t c = 0; c < cycles; ++c) {
    std::vector<std::uint64_t> load(p.n, 0);
    for (std::uint64_t addr = 0; addr < bit(p.m); ++addr) {
      const auto [v, r] = seqs[part_of[addr]][c];
      if (!test_bit(addr, v)) continue;
      s.add(Exchange{r - p.m, addr, addr ^ bit(v)});
      width = std::max(width, ++load[r - p.m]);
    }
    s.end_cycle();
  }
  s.rules.channel_width = static_cast<unsigned>(std::min<std::uint64_t>(width, 0xffffffffu));
  plan.local_after = b.local_after;
  plan.startups = s.cycles();
  return plan;
}

}  // namespace

}  // namespace hcube

namespace hcube {

SdpPlan plan_a1_prime(const DimensionPermutation& p, bool all_port) {
  const DimensionPermutationAnalysis a = analyze(p);
  if (all_port && !a.separable)
    throw Error("A1' n-port needs a separable permutation (no cycle mixing processor and storage bits): use A1' "
                "one-port, A1 or A2");
  // The machine: m + 1 memory bits, the empty dimension u the lowest (so a part,
  // a range of the higher bits, realigns on its own), data local bit i at bit i + 1.
  const unsigned m = p.m + 1, u = 0;
  SdpPlan plan;
  plan.algorithm = "A1'";
  plan.schedule = plan_header(p, "A1'", all_port ? PortModel::all_port : PortModel::one_port);
  Schedule& s = plan.schedule;
  s.m = m;
  s.d = std::max(1u, std::min(p.n, m));
  for (unsigned i = 0; i < p.q(); ++i) plan.embed.push_back(i + 1);
  const Geometry geo{p.n, m};
  std::vector<std::uint64_t> identity(m);
  for (unsigned b = 0; b < m; ++b) identity[b] = bit(b);
  // A node-dependent offset of u (bit u of the address a node uses is xored with
  // the node bits in `offset`): the alignment u := u xor node bit, without a launch.
  const auto fold = [&](NodeOffsetMap& offset, unsigned processor_bit) { offset[processor_bit - p.m] ^= bit(u); };
  const auto realign = [&](const NodeOffsetMap& offset, std::uint64_t lo, std::uint64_t hi) {
    if (std::any_of(offset.begin(), offset.end(), [](std::uint64_t c) { return c != 0; }))
      plan.align_after.emplace_back(AffineMap::from_columns(geo, identity, offset), lo, hi);
  };
  std::vector<const ShuffleCycle*> real;
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::real) real.push_back(&c);

  if (!all_port) {
    // Mixed and virtual cycles: A1's chains on the data (u = 0, nothing offset yet).
    DimensionPermutation rest = p;
    for (const ShuffleCycle* c : real)
      for (unsigned b : c->bits) rest.to[b] = b;
    const A1Blocks blocks = a1_blocks(rest, analyze(rest));
    for (const auto& block : blocks.blocks)
      for (const auto& [v, r] : block) {
        for (std::uint64_t x = 0; x < bit(p.m); ++x)
          if (test_bit(x, v)) s.add(Exchange{r - p.m, x << 1, (x ^ bit(v)) << 1});
        s.end_cycle();
      }
    plan.local_after = blocks.local_after;
    // Real cycles one after another: u := node bit alpha_(s-1), E(u, alpha_0),
    // ..., E(u, alpha_(s-1)) (alpha_(j-1)'s content to alpha_j), u := node bit alpha_0.
    NodeOffsetMap offset(p.n, 0);
    for (const ShuffleCycle* c : real) {
      fold(offset, c->bits.back());
      s.offset_maps.push_back(offset);
      const auto map = static_cast<std::uint32_t>(s.offset_maps.size());
      for (unsigned r : c->bits) {
        for (std::uint64_t x = 0; x < bit(p.m); ++x) s.add(Exchange{r - p.m, (x << 1) | bit(u), x << 1, map});
        s.end_cycle();
      }
      fold(offset, c->bits.front());
    }
    realign(offset, 0, 0);
    s.rules.channel_width = static_cast<unsigned>(std::min<std::uint64_t>(bit(p.m), 0xffffffffu));
  } else {
    // As A1 n-port: part i of beta runs cycle (i + t) mod beta in phase t, split
    // into sigma_max sub-parts; sub-part k runs the rotation starting at alpha_k
    // (k mod sigma_c) with its own offsets. sigma_max cycles a phase (no
    // restoring exchange), and each part realigns its own address range at the end.
    const std::size_t beta = real.size();
    const unsigned phase = a.sigma_max;
    std::vector<std::vector<unsigned>> seqs;
    std::vector<std::vector<std::uint32_t>> maps;  // per part, per phase
    std::vector<NodeOffsetMap> final_offset;
    for (std::size_t i = 0; i < beta; ++i)
      for (unsigned k = 0; k < a.sigma_max; ++k) {
        std::vector<unsigned> seq;
        std::vector<std::uint32_t> part_maps;
        NodeOffsetMap offset(p.n, 0);
        for (std::size_t t = 0; t < beta; ++t) {
          const std::vector<unsigned>& bits = real[(i + t) % beta]->bits;
          const std::size_t order = bits.size(), first = k % order;
          fold(offset, bits[(first + order - 1) % order]);
          s.offset_maps.push_back(offset);
          part_maps.push_back(static_cast<std::uint32_t>(s.offset_maps.size()));
          // Entries are machine address bits: the data's processor bit b is the machine's b + 1.
          for (std::size_t j = 0; j < phase; ++j) seq.push_back(j < order ? bits[(first + j) % order] + 1 : kNone);
          fold(offset, bits[first]);
        }
        seqs.push_back(std::move(seq));
        maps.push_back(std::move(part_maps));
        final_offset.push_back(offset);
      }
    s = sequences_schedule(std::move(s), seqs, 1, [](std::size_t, std::size_t) { return u; },
                           [&](std::size_t k, std::size_t c) { return maps[k][c / phase]; });
    const auto parts = deal(bit(p.m), seqs.size());
    for (std::size_t k = 0; k < seqs.size(); ++k)
      if (parts[k].first < parts[k].second) realign(final_offset[k], parts[k].first << 1, parts[k].second << 1);
    plan.local_after = virtual_moves(p, a);
  }
  // Memory bit b of the data is machine bit b + 1; u stays.
  for (unsigned& x : plan.local_after) ++x;
  plan.local_after.insert(plan.local_after.begin(), u);
  if (!s.offset_maps.empty()) s.pre = s.post = AlignmentKind::none;
  plan.startups = s.cycles();
  return plan;
}

DimensionPermutation extended_cube_permutation(const DimensionPermutation& p, unsigned n) {
  if (n <= p.n)
    throw Error(fmt::format("the extended cube needs more processor dimensions than the data occupies: machine n = {}, "
                            "data {}",
                            n, p.n));
  if (p.m == 0) throw Error("the extended cube spreads the data over storage dimensions: m = 0 (K = 1) has none");
  const unsigned m = p.m, e = std::min(n - p.n, m), q = n + m;
  // S on machine bits: v_i = m - i <-> r_i = m + p.n + i - 1 (node dimension p.n + i - 1).
  std::vector<unsigned> swap(q);
  std::iota(swap.begin(), swap.end(), 0u);
  for (unsigned i = 1; i <= e; ++i) std::swap(swap[m - i], swap[m + p.n + i - 1]);
  // delta on the machine's bits (the unused node bits fixed), conjugated by S:
  // P = S delta S fixes every v_i, so it is a permutation of the other bits.
  std::vector<unsigned> delta(q);
  std::iota(delta.begin(), delta.end(), 0u);
  for (unsigned b = 0; b < p.q(); ++b) delta[b] = p.to[b];
  // The reduced numbering: storage bits 0..m-e-1 as they are, node bit k at m - e + k.
  const auto reduced = [&](unsigned x) { return x < m - e ? x : x - e; };
  DimensionPermutation conj;
  conj.n = n;
  conj.m = m - e;
  conj.to.resize(q - e);
  for (unsigned x = 0; x < q; ++x) {
    if (x >= m - e && x < m) continue;  // a v_i: fixed
    conj.to[reduced(x)] = reduced(swap[delta[swap[x]]]);
  }
  return conj;
}

SdpPlan plan_extended_cube(const DimensionPermutation& p, unsigned n,
                           const std::function<SdpPlan(const DimensionPermutation&)>& inner) {
  const DimensionPermutation conj = extended_cube_permutation(p, n);
  const unsigned m = p.m, e = m - conj.m;
  SdpPlan in = inner(conj);
  if (!in.embed.empty() || !in.align_after.empty())
    throw Error(fmt::format("the extended cube runs a full-cube algorithm the data fills: {} is not one", in.algorithm));

  SdpPlan plan;
  plan.algorithm = in.algorithm;
  plan.gamma = in.gamma;
  plan.schedule = plan_header(p, in.algorithm.c_str(), in.schedule.rules.model);
  Schedule& s = plan.schedule;
  s.n = n;
  s.d = std::max(1u, std::min(n, m));
  s.rules = in.schedule.rules;
  s.rules.channel_width = std::max<unsigned>(s.rules.channel_width, m == 0 ? 1u : static_cast<unsigned>(bit(m - 1)));
  s.offset_maps = in.schedule.offset_maps;  // node bits to addresses below K / 2^e: valid as they are
  // Scatter cycle i: part j spreads over pair (v, r) number (j + i) mod e the
  // words that still hold data (no v of its earlier pairs set) with that v set.
  // One-port one part takes the pairs in order; n-port e parts, cosets of the
  // low m - e bits, keep every unused dimension busy in every cycle (the
  // spanning-tree scatter: K (1 - 2^-e) / e words a link in all).
  const bool all = s.rules.model == PortModel::all_port;
  const auto parts = deal(bit(m - e), all ? e : 1);
  const auto spread = [&](unsigned i) {
    for (std::size_t j = 0; j < parts.size(); ++j) {
      const unsigned d = static_cast<unsigned>((j + i) % e), v = m - 1 - d;
      std::uint64_t earlier = 0;
      for (unsigned k = 0; k < i; ++k) earlier |= bit(m - 1 - static_cast<unsigned>((j + k) % e));
      for (std::uint64_t high = 0; high < bit(e); ++high)
        for (std::uint64_t low = parts[j].first; low < parts[j].second; ++low) {
          const std::uint64_t a = (high << (m - e)) | low;
          if (test_bit(a, v) && (a & earlier) == 0) s.add(Exchange{p.n + d, a, a ^ bit(v)});
        }
    }
    s.end_cycle();
  };
  for (unsigned i = 0; i < e; ++i) spread(i);
  // The full-cube algorithm's addresses lie below K / 2^e: the same in the machine's memory.
  for (std::size_t c = 0; c < in.schedule.cycles(); ++c) {
    for (const Exchange& x : in.schedule.cycle(c)) s.add(x);
    s.end_cycle();
  }
  for (unsigned i = e; i-- > 0;) spread(i);  // each cycle an involution: the scatter reversed
  plan.local_after = in.local_after;
  for (unsigned b = m - e; b < m; ++b) plan.local_after.push_back(b);
  plan.embed.resize(p.q());
  std::iota(plan.embed.begin(), plan.embed.end(), 0u);  // the data's node bits are the machine's low ones
  plan.startups = s.cycles();
  return plan;
}

SdpPlan plan_a1_all_port(const DimensionPermutation& p) {
  if (const DimensionPermutationAnalysis a = analyze(p); !a.separable) return plan_a1_all_port_non_separable(p, a);
  const DimensionPermutationAnalysis a = check_n_port(p, "A1 n-port");
  std::vector<const ShuffleCycle*> real;
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::real) real.push_back(&c);
  const std::size_t beta = real.size();
  std::vector<std::vector<unsigned>> seqs;
  const std::size_t phase = a.sigma_max + 1;
  // Part i of beta runs cycle (i + t) mod beta in phase t (sigma_max + 1 cycles). It is
  // split into sigma_max sub-parts; sub-part k runs rotation k mod sigma_c of cycle c, so
  // the sub-parts of one cycle spread over its dimensions (a cycle of order sigma_c
  // puts ceil(sigma_max / sigma_c) sub-parts on a dimension).
  for (std::size_t i = 0; i < beta; ++i)
    for (unsigned k = 0; k < a.sigma_max; ++k) {
      std::vector<unsigned> seq;
      for (std::size_t t = 0; t < beta; ++t) {
        const ShuffleCycle& c = *real[(i + t) % beta];
        std::vector<unsigned> chain = rotated_chain(c.bits, k % c.bits.size());
        chain.resize(phase, kNone);
        seq.insert(seq.end(), chain.begin(), chain.end());
      }
      seqs.push_back(std::move(seq));
    }
  return sequences_plan(p, a, "A1", seqs);
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

SdpPlan plan_a4(const DimensionPermutation& p) {
  const DimensionPermutationAnalysis a = check_n_port(p, "A4");
  const std::vector<std::vector<unsigned>> seqs = a4_sequences(a, p);
  const std::uint64_t K = bit(p.m);
  if (!seqs.empty() && K < 2 * seqs.size())
    throw Error(fmt::format("A4 runs P = sigma_p + beta + sigma_min - 1 = {} parts of K/P words: K = {} is too small "
                            "for its stated complexity (needs K >= 2P = {}, SDP paper Table 5)",
                            seqs.size(), K, 2 * seqs.size()));
  return sequences_plan(p, a, "A4", seqs);
}

SdpModel model_plan(const SdpPlan& plan, double t_c, double tau, std::uint64_t packet) {
  if (t_c < 0 || tau < 0) throw Error(fmt::format("cost parameters t_c = {}, tau = {}: allowed non-negative", t_c, tau));
  if (packet < 1) throw Error("packet size B = 0 out of range: allowed at least 1 word");
  const Schedule& s = plan.schedule;
  SdpModel m;
  std::vector<std::uint64_t> load(s.n, 0);
  for (std::size_t c = 0; c < s.cycles(); ++c) {
    std::fill(load.begin(), load.end(), 0);
    std::uint64_t L = 0;
    for (std::size_t e = 0; e < s.cycle_size(c); ++e) L = std::max(L, ++load[s.cycle_begin(c)[e].dim]);
    m.element_transfers += L;
    m.startups += (L + packet - 1) / packet;
  }
  m.time = static_cast<double>(m.element_transfers) * t_c + static_cast<double>(m.startups) * tau;
  return m;
}

}  // namespace hcube

namespace hcube {
namespace {

constexpr std::size_t kA6MaxCycles = 10;

// f over subsets of S (bit masks), with the partition that reaches it.
struct Grouping {
  std::vector<std::uint64_t> s;
  std::vector<std::uint64_t> f;                  // by mask; 0: not yet computed
  std::vector<std::vector<unsigned>> best;       // by mask: the blocks (masks) of the best partition

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

// The sequences of a group (a mask over the real cycles), all of length f(mask).
std::vector<std::vector<unsigned>> group_sequences(Grouping& g, unsigned mask,
                                                   const std::vector<const ShuffleCycle*>& cycles) {
  const std::uint64_t length = g.solve(mask);
  if ((mask & (mask - 1)) == 0) {
    const ShuffleCycle& c = *cycles[static_cast<unsigned>(__builtin_ctz(mask))];
    std::vector<std::vector<unsigned>> seqs;
    for (std::size_t k = 0; k < c.bits.size(); ++k) seqs.push_back(rotated_chain(c.bits, k));
    return seqs;
  }
  const std::vector<unsigned>& blocks = g.best[mask];
  std::vector<std::vector<std::vector<unsigned>>> child;
  std::size_t subparts = 0;
  std::uint64_t round = 0;
  for (unsigned b : blocks) {
    child.push_back(group_sequences(g, b, cycles));
    subparts = std::max(subparts, child.back().size());
    round = std::max(round, g.solve(b));
  }
  const std::size_t mu = blocks.size();
  std::vector<std::vector<unsigned>> seqs;
  for (std::size_t i = 0; i < mu; ++i)
    for (std::size_t k = 0; k < subparts; ++k) {
      std::vector<unsigned> seq;
      for (std::size_t t = 0; t < mu; ++t) {
        const auto& q = child[(i + t) % mu];
        std::vector<unsigned> part = q[k % q.size()];
        part.resize(round, kNone);
        seq.insert(seq.end(), part.begin(), part.end());
      }
      if (seq.size() != length) throw Error("internal: an A6 group's rounds do not add up to f(S)");
      seqs.push_back(std::move(seq));
    }
  return seqs;
}

}  // namespace

std::uint64_t a6_startups(const std::vector<std::uint64_t>& s) {
  if (s.empty() || s.size() > kA6MaxCycles)
    throw Error(fmt::format("A6 groups 1..{} cycles: got {}", kA6MaxCycles, s.size()));
  Grouping g(s);
  return g.solve(static_cast<unsigned>((1u << s.size()) - 1));
}

SdpPlan plan_a6(const DimensionPermutation& p) {
  const DimensionPermutationAnalysis a = check_n_port(p, "A6");
  std::vector<const ShuffleCycle*> real;
  std::vector<std::uint64_t> s;
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::real) {
      real.push_back(&c);
      s.push_back(c.bits.size() + 1);
    }
  if (real.size() > kA6MaxCycles)
    throw Error(fmt::format("A6 searches the groupings of at most {} real cycles: this permutation has {}",
                            kA6MaxCycles, real.size()));
  std::vector<std::vector<unsigned>> seqs;
  if (!real.empty()) {
    Grouping g(s);
    seqs = group_sequences(g, static_cast<unsigned>((1u << real.size()) - 1), real);
  }
  return sequences_plan(p, a, "A6", seqs);
}

}  // namespace hcube

#include "hcube/host/aapc.hpp"
#include "hcube/host/edelman.hpp"
#include "hcube/host/exchange_baselines.hpp"

namespace hcube {
namespace {

// Appends the AAPC `base` (on d node and d memory bits, aligned addresses)
// exchanging storage field V with processor field R bit by bit, unaligned:
// base address bit t < d goes to V[t], the others to the remaining storage
// bits in order; node p adds its R field to V (offset map `map`, 1-based).
void append_field_aapc(Schedule& s, const Schedule& base, const std::vector<unsigned>& V,
                       const std::vector<unsigned>& R) {
  const unsigned d = static_cast<unsigned>(V.size());
  std::vector<unsigned> place(s.m);
  std::vector<bool> used(s.m, false);
  for (unsigned t = 0; t < d; ++t) {
    place[t] = V[t];
    used[V[t]] = true;
  }
  for (unsigned b = d, next = 0; b < s.m; ++b) {
    while (used[next]) ++next;
    place[b] = next++;
  }
  NodeOffsetMap map(s.n, 0);
  for (unsigned t = 0; t < d; ++t) map[R[t] - s.m] = bit(V[t]);
  s.offset_maps.push_back(std::move(map));
  const std::uint32_t index = static_cast<std::uint32_t>(s.offset_maps.size());
  const auto remap = [&](std::uint64_t a) {
    std::uint64_t r = 0;
    for (unsigned b = 0; b < s.m; ++b)
      if (test_bit(a, b)) r |= bit(place[b]);
    return r;
  };
  for (std::size_t c = 0; c < base.cycles(); ++c) {
    for (std::size_t e = 0; e < base.cycle_size(c); ++e) {
      const Exchange& x = base.cycle_begin(c)[e];
      s.add(Exchange{R[x.dim] - s.m, remap(x.addr), remap(x.peer_addr), index});
    }
    s.end_cycle();
  }
  s.rules.channel_width = std::max(s.rules.channel_width, base.rules.channel_width);
}

Schedule field_aapc_base(unsigned d, unsigned m, bool all_port) {
  if (!all_port) return make_exchange_baseline(ExchangeBaseline::standard, d, d, m);
  AapcOptions o;
  o.algorithm = AapcAlgorithm::alg4;
  o.d = d;
  o.n = d;
  o.m = m;
  return block_schedule(make_aapc_schedule(o));
}

}  // namespace

SdpPlan plan_a2(const DimensionPermutation& p, bool all_port) {
  const DimensionPermutationAnalysis a = analyze(p);
  if (p.m < a.sigma_p)
    throw Error(fmt::format("A2 needs a storage dimension for each moving processor dimension: m = {} < sigma_p = {} "
                            "(SDP paper Table 5)",
                            p.m, a.sigma_p));
  // k_j for every moving processor bit j: its predecessor if that is a storage bit, else a free storage bit.
  std::vector<unsigned> pred(p.q());
  for (unsigned b = 0; b < p.q(); ++b) pred[p.to[b]] = b;
  std::vector<unsigned> moving;
  for (unsigned b = p.m; b < p.q(); ++b)
    if (p.to[b] != b) moving.push_back(b);
  std::vector<int> k(p.q(), -1);
  std::vector<bool> taken(p.m, false);
  for (unsigned j : moving)
    if (!p.is_processor_bit(pred[j])) {
      k[j] = static_cast<int>(pred[j]);
      taken[pred[j]] = true;
    }
  unsigned free_bit = 0;
  for (unsigned j : moving)
    if (k[j] < 0) {
      while (taken[free_bit]) ++free_bit;
      k[j] = static_cast<int>(free_bit);
      taken[free_bit] = true;
    }
  SdpPlan plan;
  plan.algorithm = "A2";
  plan.schedule = plan_header(p, "A2", all_port ? PortModel::all_port : PortModel::one_port);
  plan.schedule.rules.channel_width = 1;
  // Where every original content is after the transpositions: pos[b] = position of b's content.
  std::vector<unsigned> pos(p.q()), at(p.q());
  std::iota(pos.begin(), pos.end(), 0u);
  std::iota(at.begin(), at.end(), 0u);
  const auto transpose = [&](unsigned x, unsigned y) {
    std::swap(at[x], at[y]);
    pos[at[x]] = x;
    pos[at[y]] = y;
  };
  for (int phase = 0; phase < 2; ++phase) {
    std::vector<unsigned> V, R;
    for (unsigned j : moving) {
      const unsigned r = phase == 0 ? j : p.to[j];
      if (!p.is_processor_bit(r)) continue;  // delta(j) a storage bit: a local move
      V.push_back(static_cast<unsigned>(k[j]));
      R.push_back(r);
    }
    if (V.empty()) continue;
    append_field_aapc(plan.schedule, field_aapc_base(static_cast<unsigned>(V.size()), p.m, all_port), V, R);
    for (std::size_t t = 0; t < V.size(); ++t) transpose(V[t], R[t]);
  }
  // Every processor position now holds its content; the storage contents move locally.
  plan.local_after.assign(p.m, 0);
  for (unsigned b = 0; b < p.q(); ++b) {
    if (p.is_processor_bit(p.to[b])) {
      if (pos[b] != p.to[b]) throw Error("internal: A2 left a processor dimension with the wrong content");
      continue;
    }
    plan.local_after[pos[b]] = p.to[b];
  }
  plan.startups = plan.schedule.cycles();
  return plan;
}

}  // namespace hcube

namespace hcube {

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

}  // namespace hcube

namespace hcube {

SdpPlan plan_a5(const DimensionPermutation& p, unsigned gamma) {
  const DimensionPermutationAnalysis a = check_n_port(p, "A5");
  std::vector<unsigned> orders;
  for (const ShuffleCycle& c : a.cycles)
    if (c.kind == ShuffleCycle::Kind::real) orders.push_back(static_cast<unsigned>(c.bits.size()));
  const auto divides_all = [&](unsigned g) {
    for (unsigned o : orders)
      if (g == 0 || o % g != 0) return false;
    return true;
  };
  if (gamma == 0) {
    // (gamma + 1) mu start-ups, mu = sigma_p / gamma: the largest common divisor is best.
    for (unsigned g = a.sigma_max; g >= 1 && gamma == 0; --g)
      if (divides_all(g)) gamma = g;
    if (orders.empty()) gamma = 1;
  } else if (!divides_all(gamma)) {
    throw Error(fmt::format("A5 with gamma = {} needs gamma to divide every real cycle order ({}): with dummies the "
                            "paper's construction does not realise the permutation (SDP paper Table 2, Seq8-Seq11)",
                            gamma, fmt::join(orders, ", ")));
  }
  const std::vector<std::vector<unsigned>> seqs = a5_sequences(a, gamma);
  const unsigned mu = gamma == 0 ? 0 : a.sigma_p / gamma;
  if (!orders.empty() && p.m < mu)
    throw Error(fmt::format("A5 needs mu = sigma_p / gamma = {} pivot storage dimensions: m = {}", mu, p.m));
  SdpPlan plan;
  plan.algorithm = "A5";
  plan.gamma = gamma;
  plan.schedule = plan_header(p, "A5", PortModel::all_port);
  plan.local_after = virtual_moves(p, a);
  if (seqs.empty()) return plan;
  // Sequence mu l + j, cycle c: position u = c mod mu holds piece (u + j) mod mu, pivot bit = that piece.
  const auto pivot = [&](std::size_t seq, std::size_t c) { return static_cast<unsigned>(((c % mu) + seq % mu) % mu); };
  // What every sequence does to the pivots (the processor bits must come out as delta says).
  std::vector<unsigned> pivot_source;  // pivot position -> the pivot whose content it holds
  for (std::size_t k = 0; k < seqs.size(); ++k) {
    std::vector<unsigned> at(p.q());
    std::iota(at.begin(), at.end(), 0u);
    for (std::size_t c = 0; c < seqs[k].size(); ++c) std::swap(at[pivot(k, c)], at[seqs[k][c]]);
    for (unsigned b = p.m; b < p.q(); ++b)
      if (at[p.to[b]] != b && p.is_processor_bit(p.to[b]))
        throw Error(fmt::format("internal: A5 sequence {} does not realise the permutation", k));
    std::vector<unsigned> src(at.begin(), at.begin() + mu);
    if (k == 0) pivot_source = src;
    if (src != pivot_source) throw Error("internal: A5 sequences leave the pivots permuted differently");
  }
  plan.schedule = sequences_schedule(std::move(plan.schedule), seqs, mu, pivot);
  // Pivot position x holds pivot pivot_source[x]'s content: it goes where that
  // storage bit's content belongs (itself, or where a virtual cycle sends it).
  std::vector<unsigned> after = plan.local_after;
  for (unsigned x = 0; x < mu; ++x) after[x] = plan.local_after[pivot_source[x]];
  plan.local_after = after;
  plan.startups = plan.schedule.cycles();
  return plan;
}

SdpPlan plan_edelman_bit_reversal(const DimensionPermutation& p) {
  const unsigned q = p.n + p.m;
  for (unsigned i = 0; i < q; ++i)
    if (p.to[i] != q - 1 - i)
      throw Error(fmt::format("Edelman's schedule applies to the bit reversal only: bit {} goes to {}, not {}", i,
                              p.to[i], q - 1 - i));
  if (p.n != p.m || p.n == 0)
    throw Error(fmt::format("Edelman's bit reversal needs n = m >= 1 (a 2^(2d) vector on 2^d nodes): n = {}, m = {}",
                            p.n, p.m));
  SdpPlan plan;
  plan.algorithm = "Edelman";
  plan.schedule = make_edelman_bit_reversal_schedule(p.n);
  plan.local_after.resize(p.m);
  std::iota(plan.local_after.begin(), plan.local_after.end(), 0u);
  plan.startups = plan.schedule.cycles();
  return plan;
}

}  // namespace hcube

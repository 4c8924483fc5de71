// Internal to the SDP planners (host/src/sdp_*.cpp): the n-port algorithms as
// weighted rows of exchanges E(pivot, bit), and the plan they make.
#pragma once

#include <cstdint>
#include <vector>

#include "hcube/host/sdp_schedules.hpp"

namespace hcube::sdp {

inline constexpr unsigned kIdle = ~0u;

// E(pivot, bit) in one routing cycle; bit == kIdle: the row idles.
struct Step {
  unsigned pivot = kIdle;
  unsigned bit = kIdle;
};

// The exchanges one part of the data makes, cycle by cycle, and the share of
// the data it should get (the plan deals whole units, sdp_rows.cpp).
struct Row {
  std::vector<Step> steps;
  double weight = 1;
};

// A run r_1..r_t of processor bits after a storage bit u in a mixed cycle: A1's
// chain E(u, r_1), ..., E(u, r_t) (sec. 3.1, 4.4), which leaves r_t's content at u.
struct Block {
  unsigned pivot = 0;
  std::vector<unsigned> bits;
};
std::vector<Block> mixed_blocks(const DimensionPermutation& p, const DimensionPermutationAnalysis& a);

// What A1's exchanges make of a permutation: the real cycles (each a chain with
// the pivot `pivot` restored at its end) and the mixed cycles' blocks.
struct Units {
  std::vector<std::vector<unsigned>> real;  // each real cycle's bits, alpha_0 first
  std::vector<Block> blocks;
  unsigned pivot = kIdle;                    // the real chains' pivot (kIdle without real cycles)
  std::vector<unsigned> spare;               // storage bits no block pivots (`pivot` may be one)
};
// The pivot is a storage bit the permutation's blocks leave alone if one
// exists (a restoring chain may also share a longer block's pivot, whose
// content it passes through). Throws naming `algorithm` when a real cycle
// needs a pivot and m = 0.
Units units_of(const DimensionPermutation& p, const DimensionPermutationAnalysis& a, const char* algorithm);

// Executes the steps on the bits' contents: throws hcube::Error naming
// `algorithm` unless every processor bit ends with its content under p;
// returns the local reordering that completes p (memory bit x to bit r[x]).
std::vector<unsigned> local_after(const DimensionPermutation& p, const std::vector<Step>& steps, const char* algorithm);

// A1's chains (sec. 3.1, 4.4): each real cycle's E(v, alpha_0), ...,
// E(v, alpha_(s-1)), E(v, alpha_0) with the pivot v restored, then each block
// of a mixed cycle with its own storage bit as pivot. They act on disjoint
// bits (a real chain passes its pivot's content through), so they commute.
std::vector<std::vector<Step>> a1_chains(const Units& u);
// The blocks' chains alone.
std::vector<std::vector<Step>> block_chains(const Units& u);

// The chain of a real cycle rotated to start at bits[k], with the restoring exchange.
std::vector<unsigned> rotated_chain(const std::vector<unsigned>& bits, std::size_t k);
// Steps with one pivot for a list of bits (kIdle stays idle).
std::vector<Step> with_pivot(unsigned pivot, const std::vector<unsigned>& bits);

// The schedule header every SDP plan shares (no alignments around the cycles).
Schedule plan_header(const DimensionPermutation& p, const char* algorithm, PortModel model);

// Joint choices from independent distributions with each one's marginal kept:
// the distributions' cumulative weights laid side by side on [0, 1), every
// segment between two cuts choosing one item of each. Weights of each list sum to 1.
struct Choice {
  double weight = 0;
  std::vector<std::size_t> item;  // one index per list
};
std::vector<Choice> couple(const std::vector<std::vector<double>>& lists);

// Rows whose parts run the lists one after another: couple()'s choices, each
// row the chosen rows concatenated in the lists' order.
std::vector<Row> chain_rows(const std::vector<std::vector<Row>>& lists);

// A1 n-port's rows for each real cycle (sec. 4.2.1): its rotations L^k(J),
// each with weight 1/sigma, all with `pivot`; `restoring`: followed by
// alpha_k (A1), else not (A1', whose pivot is the empty dimension).
std::vector<std::vector<Row>> rotation_leaves(const std::vector<std::vector<unsigned>>& real, unsigned pivot,
                                              bool restoring);

// Groups run round-robin (sec. 4.3, A1 n-port over the cycles and A6 over its
// subgroups): part i of mu runs group (i + t) mod mu in round t (beyond two
// groups also (i - t) mod mu, 2 mu parts), a round as long as the longest
// group's rows; a shorter group is spread over the round (its rows in every
// choice of its length's cycles, or every window when those are too many), so
// its load is the same in every cycle of the round instead of idling at its
// end. Weights of each group's rows sum to 1, and so do the result's;
// identical rows merged.
std::vector<Row> round_robin(const std::vector<std::vector<Row>>& groups);

// A1' n-port without phases: C rows of K/C words each over C routing cycles,
// in every cycle every processor dimension of the real cycles used by exactly
// one row, so the busiest link carries K/C words a cycle and K in all (the
// per-dimension bound). Cycle i gets w_i = the power of two >= its order, the
// widths packed in decreasing order at aligned offsets o_i, C the power of two
// >= their sum; row r in cycle t is at virtual slot v = t xor r: in cycle i's
// block when o_i <= v < o_i + w_i, where it does position (t - r) mod w_i of
// [alpha_0 .. alpha_(s-1), idle ...] with `pivot`. A row's blocks are disjoint
// intervals (xor is a bijection) and in each it runs one rotation of its
// cycle (idles between), so every chain completes before the next starts, as
// the shared empty pivot needs; the w_i rows in a block take every position.
// Weights 1/C each.
std::vector<Row> block_rows(const std::vector<std::vector<unsigned>>& real, unsigned pivot);

// The modelled element transfers of rows with words[r] words each, one word a
// step (the sum over cycles of the busiest link's words); bits >= m name the
// processor dimensions.
std::uint64_t row_transfers(const std::vector<Row>& rows, const std::vector<std::uint64_t>& words, unsigned n,
                            unsigned m);

// A6's recursive grouping (sec. 4.3, Lemma 11): leaf i (rows of s[i] steps)
// grouped to minimise f(S), each group's subgroups run round-robin; all rows of
// f(S) steps, weights summing to 1. A6 and A6' (on A1', sec. 4.6) share it.
// Throws naming `algorithm` beyond 10 leaves (the search is over set partitions).
std::vector<Row> grouped_rows(const std::vector<std::vector<Row>>& leaves, const std::vector<std::uint64_t>& s,
                              const char* algorithm);

// Words dealt to rows that move one word per word a step (A1', A3 n-port on
// the empty dimension): counts per row, in proportion to the weights, then as
// the dealing of rows_plan lowers the modelled transfers. Steps name the
// permutation's processor bits (m..m+n-1).
std::vector<std::uint64_t> deal_words(const std::vector<Row>& rows, const DimensionPermutation& p, std::uint64_t words,
                                      SdpEffort effort);

// The plan of rows: the data is dealt to the rows in units, the cosets of the
// storage bits `closure` (to which every pivot is added that is exchanged with
// more than one processor bit, or whose bit meets another pivot) in the
// coordinates b = a xor M(node): M adds storage bit u for node bit r of each
// remaining pivot u, exchanged with r alone. b stays in its unit through every
// exchange of the rows (E(u, r) keeps it, E(w, r) with w in `closure` flips
// b_w), and E(u, r) moves exactly the words with b_u = 1, so units need not be
// closed under such a u. Units go to rows in proportion to their weights, the
// rest one by one to the row that raises the modelled transfers least, then
// improved by single moves, and with SdpEffort::patient by a seeded annealing
// search. Every
// row is executed on the bits' contents first: each must realise p on the
// processor bits and leave the storage bits as every other row does, which one
// local permutation (local_after) then completes.
SdpPlan rows_plan(const DimensionPermutation& p, const char* algorithm, const std::vector<Row>& rows,
                  std::vector<unsigned> closure, SdpEffort effort);

}  // namespace hcube::sdp

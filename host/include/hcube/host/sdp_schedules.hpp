// Schedules for stable dimension permutations (Ho & Johnsson 1988, sec. 3),
// built from the exchange E(v, r) of storage dimension v with processor
// dimension r: every word whose address has a_v != a_r moves to the address
// with bits v and r flipped (it crosses processor dimension r and flips local
// bit v) -- on the machine one routing cycle of K/2 exchanges on dimension r,
// `dim r: addr a, peer a xor 2^v` for every local address a with bit v set.
// E(v, r) transposes address bits v and r, so a chain E(v, s_1), ...,
// E(v, s_L) moves the content of s_i to s_(i+1).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "hcube/host/affine_map.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/schedule.hpp"

namespace hcube {

// How hard the n-port algorithms' dealing of data to rows searches, as FFTW's planner flags:
// estimate deals greedily and improves by single moves (milliseconds); patient adds a seeded
// annealing search that reaches Table 3's counts (683 for A1 on {3, 6} at K = 1024) but can take
// a second a plan at K >= 1024 (docs/sdp.md).
enum class SdpEffort { estimate, patient };
SdpEffort parse_sdp_effort(const std::string& s);  // "estimate" | "patient"
std::string to_string(SdpEffort e);

// A schedule and the local reordering that completes it: memory bit b moves
// to bit local_after[b] (AffineMap::permute_bits) after the cycles.
struct SdpPlan {
  std::string algorithm;
  Schedule schedule;                 // pre = post = none: the cycles in machine addresses
  std::vector<unsigned> local_after;  // the machine's m entries; the identity when nothing is left to reorder
  std::uint64_t startups = 0;         // packets sent in sequence per node (one per cycle here)
  // Node-dependent local moves after the cycles, before local_after (A1').
  std::vector<AlignmentStep> align_after;
  // Local moves between cycles: each runs before cycle `first` (after the last
  // cycle when first == cycles()), before align_after. A3-pipelined puts each
  // phase's words back where the next phase's chains expect them.
  std::vector<std::pair<std::size_t, AlignmentStep>> align_within;
  // A plan that needs more machine than the data fills (A1': a storage
  // dimension the data leaves empty; the extended cube: the processor
  // dimensions the data does not use) runs on the schedule's geometry with
  // data address bit i at machine address bit embed[i] and every other machine
  // bit 0. Empty: the data fills the schedule's machine.
  std::vector<unsigned> embed;
  unsigned gamma = 0;  // A5's piece order (sec. 4.3); 0 for the other algorithms
  // The n-port algorithms deal the data in units of this many words (a unit
  // closed under the pivots it is exchanged with); 0 for the others.
  std::uint64_t unit_words = 0;
};

// Algorithm A1, one-port (sec. 3.1): the cycles one after another.
//  - a real cycle alpha_0 -> ... -> alpha_(s-1) with a pivot storage dimension v
//    (its content restored at the end): E(v, alpha_0), E(v, alpha_1), ...,
//    E(v, alpha_(s-1)), E(v, alpha_0): s + 1 exchanges;
//  - a mixed cycle, with no extra pivot: each run of processor bits r_1..r_t
//    after a storage bit u is E(u, r_1), ..., E(u, r_t); the storage bits'
//    contents then move locally (local_after), so sigma_p exchanges;
//  - a virtual cycle: local_after alone.
// sigma_p + beta' cycles of K/2 words on one dimension (one-port, channel width
// K/2): (sigma_p + beta') K/2 t_c + (sigma_p + beta') tau with B = K/2.
// Throws hcube::Error when a real cycle needs a pivot and m = 0.
SdpPlan plan_a1_one_port(const DimensionPermutation& p);

// Algorithm A1' (sec. 3.1): a real cycle by dimension-order routing through a
// storage dimension u the data leaves empty (the machine has 2K words a node,
// u its lowest local bit, data local bit i at bit i + 1): with u first set to
// the node's bit alpha_(s-1) (an offset map: node-dependent addresses, no
// launch), E(u, alpha_0), ..., E(u, alpha_(s-1)) moves alpha_(j-1)'s content
// to alpha_j, s exchanges of K words (one side of most pairs empty: a one-way
// move), and an alignment at the end puts every word back at u = 0.
//  - one-port: the real cycles in sequence, mixed and virtual ones as in A1;
//    sigma_p cycles of K words, sigma_p K t_c + sigma_p tau, one alignment;
//  - n-port (separable only): the fewer element transfers of two candidates:
//    A1 n-port's parts and rotations without the restoring exchange, the
//    shorter cycles spread over each phase, beta sigma_max cycles of about
//    K / (beta sigma_max) words a link (Table 3's K t_c); or blocks of
//    power-of-two widths, C cycles of K/C words on every dimension, exactly
//    K when C divides K (docs/sdp.md); rows ending with equal offsets
//    realign together.
SdpPlan plan_a1_prime(const DimensionPermutation& p, bool all_port = false, SdpEffort effort = SdpEffort::estimate);

// A4 built on A1' (sec. 4.6, "A4 based on A1' increases the data volume by a
// factor of two, since there is an unfinished GSH": 2K t_c + sigma_p tau): row
// k of sigma_p is the rotation by k of J_0 J_1 ... J_(beta-1) without
// restoring exchanges, so the rows use distinct dimensions in every cycle. A
// row starting inside cycle i routes i's tail through the empty dimension u,
// the other cycles (u now holding a content of cycle i: twice the words)
// through a second empty dimension, then i's head through u. 4K words a
// node; rows starting at a cycle's head get twice the words. sigma_p cycles.
// Separable permutations only; name "A4'".
SdpPlan plan_a4_prime(const DimensionPermutation& p);

// A6 built on A1' (sec. 4.6, "A6 based on A1' has a complexity of K t_c +
// (2 sigma_p - 1) tau"): A6's recursive grouping of the real cycles with
// S = {sigma_i}, each cycle run as A1' n-port's rotations through the empty
// dimension (2K words a node), one alignment at the end; f({sigma_i})
// cycles. Separable permutations only; name "A6'".
SdpPlan plan_a6_prime(const DimensionPermutation& p, SdpEffort effort = SdpEffort::estimate);

// The extended cube (sec. 4, "extended-cube permutations"): the data of p
// occupies the subcube of its p.n processor dimensions on a machine of n > p.n;
// the plan spreads it over the e = min(n - p.n, m) unused dimensions, runs a
// full-cube algorithm on K / 2^e words a node, and gathers it back. Scatter:
// E(v_i, r_i) for the top storage bits v_i = m - i and the unused processor
// dimensions r_i = p.n + i - 1 (i = 1..e), each on the words that still hold
// data (K/2, K/4, ...: K (1 - 2^-e) words in all); the full-cube algorithm
// `inner` then runs the permutation S delta S (S swapping v_i and r_i, which it
// fixes) on the n processor and m - e storage bits (the v_i empty); the gather
// is the scatter reversed. `inner` must build a plan the data fills (not A1').
// Throws naming the condition when n <= p.n or m = 0.
SdpPlan plan_extended_cube(const DimensionPermutation& p, unsigned n,
                           const std::function<SdpPlan(const DimensionPermutation&)>& inner);
// The full-cube permutation S delta S that plan_extended_cube hands `inner`.
DimensionPermutation extended_cube_permutation(const DimensionPermutation& p, unsigned n);

// A3 (sec. 4.3.2, recursive transposition): every cycle alpha_0 -> ... ->
// alpha_(s-1) is its two halves as cycles of their own, then the coupling
// transposition (alpha_0 alpha_h), h = ceil(s/2) (Lemma 8 with two pieces),
// recursively: ceil(log2 s) steps, each a set of disjoint transpositions (a
// "transposition with two-dimensional partitioning"), a coupling in the step
// after its halves'. a3_steps lists them (positions of the permutation's own
// bits); applied step after step they give p.
std::vector<std::vector<std::pair<unsigned, unsigned>>> a3_steps(const DimensionPermutationAnalysis& a);
// On the 2K-word machine of A1' (an empty storage dimension u):
//  - one-port: a transposition of two processor bits by the single-path
//    transpose (the 2-cycle by dimension-order routing through u: two one-way
//    moves of K words), of a storage and a processor bit by one exchange of K/2
//    words, of two storage bits by relabelling (the local reordering at the end);
//  - n-port (separable only): each step's processor transpositions over parts,
//    part k taking them in turn from transposition k/2 on (as A1' n-port does
//    with cycles), each part with its own offsets.
SdpPlan plan_a3(const DimensionPermutation& p, bool all_port = false);
// A3 with each transposition of two processor bits by A1 on their 2-cube
// (sec. 4.3.2: "node (01) and node (10) can exchange K elements in a time of
// 3K/2 t_c + 3 tau by employing one virtual dimension"): the chain E(v, x),
// E(v, y), E(v, x) with storage bit 0 as the pivot, on K words a node.
//  - one-port: 3 cycles of K/2 words a transposition, the paper's
//    3 sigma_p K / 4 t_c a step when a step transposes sigma_p / 2 pairs;
//  - n-port: each step's transpositions as A1 n-port's cycles of order 2
//    (round-robin over them, two rotations each), 3K/4 words a link a step.
// Storage-processor pairs are single exchanges, storage pairs relabellings.
// Algorithm name "A3-A1". Throws when a processor pair needs the pivot and m = 0.
SdpPlan plan_a3_via_a1(const DimensionPermutation& p, bool all_port = false, SdpEffort effort = SdpEffort::estimate);

// A3 n-port with the pipelined transpose of its refs [2], [8], [14] (Table 3's
// ceil(log2 sigma_max) (K/2B + 1)(tau + B t_c)): in each step the data is cut
// into one part a transposition, part k transposing pair (k + phase) mod P in
// phase 0..P-1. A transposition (x y) moves a part's words in chains, one a
// path: node (x y) = (0 1) sends half 0 over x through relay (1 1), then over
// y, and half 1 over y through (0 0), one word a cycle each, (1 0) the other
// way; the relays swap two empty slots of the 2K-word machine (A1''s u), so
// every link carries a word both ways in every cycle. A chain of L words takes
// L + 1 cycles and leaves each word one chain position on (bit-reversed
// order), which node-dependent range alignments (align_within) undo before the
// next phase. Packets of B words (a power of two): B chains side by side a
// link, B halved while K/2 < B P. Separable permutations, 2P <= K <= 2^14;
// name "A3-pipelined".
SdpPlan plan_a3_pipelined(const DimensionPermutation& p, std::uint64_t packet = 1);

// n-port algorithms split the data into parts and run one row of exchanges
// E(pivot, processor bit) per part concurrently (host/src/sdp_rows.hpp): the
// parts are unions of units, the cosets of the pivots a unit is exchanged with
// more than once, and every row is checked to realise the permutation. A
// mixed cycle (sec. 4.4) enters as A1's blocks: each run of processor bits
// r_1..r_t after a storage bit u is the chain E(u, r_1), ..., E(u, r_t) with u
// as its own pivot (no extra storage dimension, no restoring exchange); a
// block of one exchange needs no closure under u (its exchange moves exactly
// the words whose node bit r and local bit u differ, a fixed set in the
// coordinates local xor (node bit r at u)), so the data can be parted freely.

// A1, n-port (sec. 4.2.1 and 4.3): part i of beta runs the cycles J_i,
// J_(i+1), ... in phases; within a phase each cycle's data is split again
// over the rotated sequences L^k(J_c), alpha_k, so that different sub-parts
// use different dimensions, and a cycle shorter than the phase is spread over
// it (Table 3's beta max_i (sigma_i + 1) K / (2 sigma_i beta)). beta
// (sigma_max + 1) cycles.
// A non-separable permutation (sec. 4.4) runs A1 one-port's chains (each real
// cycle's and each block) as commuting chains, part k from chain k on, so
// parts use different dimensions in a cycle (the paper's m'_s sequences at
// once without extra storage). sigma_p + beta' cycles.
SdpPlan plan_a1_all_port(const DimensionPermutation& p, SdpEffort effort = SdpEffort::estimate);

// A4 (sec. 4.3, Table 1): P = sigma_p + beta + sigma_min - 1 sequences, Seq_0 =
// J_0, alpha_00, J_1, alpha_10, ..., and Seq_(k+1) = Seq_k without its first
// entry d_0, followed by delta(d_0); sigma_p + beta cycles, any dimension used
// by at most two parts per cycle (Lemma 7). Mixed cycles' blocks follow the
// real sequences, part k running them from block k on (sec. 4.4):
// sigma_p + beta' cycles in all. Throws hcube::Error naming the condition when
// K < 2P (the stated complexity needs K/P words per part).
SdpPlan plan_a4(const DimensionPermutation& p, SdpEffort effort = SdpEffort::estimate);
// A4's sequences alone, rows = parts, in the permutation's own bit numbering.
std::vector<std::vector<unsigned>> a4_sequences(const DimensionPermutationAnalysis& a,
                                                const DimensionPermutation& p);

// A6 (sec. 4.3, Lemma 11, Theorem 2): the real cycles and the mixed cycles'
// blocks grouped recursively; a group of mu subgroups splits its data into mu
// parts, part i running subgroup (i + t) mod mu in round t, a real cycle
// running A1 n-port's rotations, a block its chain. The grouping minimises
// the start-ups f(S), S = {sigma_i + 1 for a real cycle, t for a block}:
// f({x}) = x, f(S) = min over partitions into mu >= 2 sets of mu max f(S_i).
// A subgroup shorter than its round is spread over the round (its rows in
// every window of its length), so each round costs the slowest subgroup's
// transfers, as Theorem 2 counts. Throws for more than 10 cycles and blocks
// (the search is over set partitions).
SdpPlan plan_a6(const DimensionPermutation& p, SdpEffort effort = SdpEffort::estimate);
// f(S) of Lemma 11 for a multiset of positive integers (at most 10 of them).
std::uint64_t a6_startups(const std::vector<std::uint64_t>& s);

// A2 (sec. 4.4): two all-to-all personalized communications. Each processor
// bit j that moves gets a storage bit k_j (its predecessor when that is a
// storage bit, else a free one; needs m >= sigma_p): the first AAPC exchanges
// the fields (k_j) and (j) bit by bit, the second (k_j) and (delta(j)) for the
// j with delta(j) a processor bit; the storage bits then move locally
// (local_after). Each AAPC runs unaligned, node p using the aligned address
// xor its own field (an offset map), so no alignment runs between them:
// all-port, Algorithm 4 blocked (sigma_p cycles of K/2sigma_p words each);
// one-port, the standard exchange (sigma_p cycles of K/2). Throws naming the
// condition when m < sigma_p.
SdpPlan plan_a2(const DimensionPermutation& p, bool all_port);

// A5's exchange sequences (sec. 4.3, Table 2): each real cycle padded with
// dummies (kA5Dummy) to a multiple of gamma and cut into mu_i pieces of order
// gamma; S_k(l) takes the k-th dimension of every piece (k < gamma) or the
// coupling (k = gamma) of the cycles rotated by l; Seq_(mu l + j) = L^j(S_0(l)),
// ..., L^j(S_gamma(l)), gamma mu sequences of (gamma + 1) mu cycles, cycle c
// using pivot v_(c mod mu). Entries are the permutation's bit numbers.
inline constexpr unsigned kA5Dummy = ~0u;
std::vector<std::vector<unsigned>> a5_sequences(const DimensionPermutationAnalysis& a, unsigned gamma);

// A5 (sec. 4.3): each real cycle cut into mu_i = ceil(sigma_i / gamma) pieces,
// each piece with a pivot storage bit of its own (the paper's v_(c mod mu)
// relabelled per sequence), so every row leaves the pivots permuted the same
// way and one local permutation restores them; units are cosets of the pivots.
// When gamma divides every order the rows are the paper's gamma mu sequences;
// otherwise (dummies) the printed rows are wrong (a5_sequences) and hcube
// builds its own: every rotation of each cycle cut from its start so that no
// piece is headed by a dummy, the short piece placed in each way that leaves
// the couplings' order intact (docs/sdp.md). (gamma + 1) mu cycles either way.
// Mixed cycles' blocks follow, as in A4. gamma = 0 picks, among 1..sigma_max,
// the gamma with the lowest modelled time at t_c, tau and packets of B words
// (0: K). Throws naming the condition: gamma out of 1..sigma_max, fewer than
// mu storage bits outside the blocks.
SdpPlan plan_a5(const DimensionPermutation& p, unsigned gamma = 0, double t_c = 1.0, double tau = 0.0,
                std::uint64_t packet = 0, SdpEffort effort = SdpEffort::estimate);

// The bit reversal of a 2^(2d) vector (n = m = d) by Edelman's schedule
// (edelman.hpp): all-port, 2^(d-1) cycles of one word on every link, unaligned.
// Throws naming the condition for any other permutation or n != m.
SdpPlan plan_edelman_bit_reversal(const DimensionPermutation& p);

// The modelled time of a plan's schedule (the papers' model): in each cycle a
// node sends L words on its busiest link, as ceil(L / B) packets, costing
// L t_c + ceil(L / B) tau; the cycles add up.
struct SdpModel {
  std::uint64_t element_transfers = 0;  // sum over cycles of L: words in sequence on the busiest link
  std::uint64_t startups = 0;           // sum of ceil(L / B)
  double time = 0;
};
SdpModel model_plan(const SdpPlan& plan, double t_c, double tau, std::uint64_t packet);

}  // namespace hcube

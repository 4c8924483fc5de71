// Sequences of AAPCs (Johnsson & Ho 1992, sec. 2.3 and 4.1): s AAPCs on the
// processor axes a_1..a_s of d bits each (axis u = node bits u*d .. u*d+d-1,
// counting from 0), all sharing the memory axis a_0 (the low d memory bits):
//   (a_s, ..., a_1 | a_0) -> (a_s, ..., a_0 | a_1) -> ... -> (a_(s-1), ..., a_0 | a_s),
// the generalized shuffle, e.g. (l,k,j|i) -> (l,k,i|j) -> (l,j,i|k) -> (k,j,i|l).
//
// Lemma 1: one pre-alignment (j|i) -> (j|i xor a_1 xor ... xor a_s) and one
// post-alignment serve the whole sequence. A word then keeps its local
// address x, and in AAPC t it must cross axis t by x xor (the node's other
// axes): so the exchanges of AAPC t carry an offset map adding the node's
// other axes to the address -- direct addressing within each subcube of axis t.
#pragma once

#include "hcube/host/aapc.hpp"
#include "hcube/host/reference.hpp"

namespace hcube {

struct AapcSequenceOptions {
  AapcAlgorithm algorithm = AapcAlgorithm::alg4;
  unsigned d = 1;
  unsigned axes = 1;  // s
  unsigned m = 0;     // memory dimensions, 0 means d
  bool pipelined = true;
  LineDrawing lines = LineDrawing::diagonal;
  // The axis each AAPC exchanges with the memory axis, in order; empty means
  // 0, 1, ..., s-1 (the shuffle above). A distributed FFT, working from the
  // top index bits down, uses s-1, ..., 0.
  std::vector<unsigned> order;
  // Axes of different orders d_1 >= d_2 >= ... (sec. 4.1), axis u the next
  // dims[u] node bits, exchanging with memory bits 0..dims[u]-1 (nested in
  // d_1's): Algorithms 1, 3 and 4 (each AAPC a pair schedule of its order), d
  // and axes then come from the list. Empty: d each.
  std::vector<unsigned> dims;
};

// n = s d processor dimensions. Sequential: the single-AAPC schedule once per
// axis, one after another. Pipelined (sec. 4.1): each complement pair of local
// addresses starts the next AAPC as soon as it has finished the previous one;
// see make_aapc_sequence's notes in docs/multi-aapc.md for which single-AAPC
// schedule each algorithm pipelines with.
Schedule make_aapc_sequence(const AapcSequenceOptions& options);

// What pipelined Algorithm 4 runs (the fewest cycles; a tie to the paper's, then the solver's):
// the paper's pipeline of pairs (Alg. 1's pair schedule where d divides K/2, Alg. 3's
// elsewhere), a schedule a SAT solver found (K = 8 with d = 3, a few unequal orders;
// docs/multi-aapc.md, "Corollary 2 decided"), or the pairs skewed bit by bit (each pair's
// crossings of bit b one axis a cycle: max(K/2, n) + s - 1 cycles where one row of pairs is
// best; docs/multi-aapc.md, "Pairs skewed bit by bit"). Every other options: pairs.
enum class SequenceConstruction { pairs, found, skewed };
SequenceConstruction sequence_construction(const AapcSequenceOptions& options);
bool uses_found_schedule(const AapcSequenceOptions& options);
// How the solver's schedules cover equal axes where SequenceConstruction::found runs: a block of
// three axes first or not, then blocks of two, then Algorithm 4 alone on a last odd axis.
struct FoundCover {
  bool three_first = false;
  unsigned pairs = 0;
  bool last_alone = false;
};
FoundCover found_cover(const AapcSequenceOptions& options);
// The cycles pipelined Algorithm 4 runs on axes of orders `widths` with m memory bits: the
// fewest of those constructions, counted without building the schedule.
std::uint64_t pipelined_alg4_cycles(const std::vector<unsigned>& widths, unsigned m);

// The skewed pipeline's cycles for AAPCs on axes of orders `widths` (in the order they run), and
// a lower bound for any pipeline of pairs: max(K/2 + s - 1, n), a pair crossing one dimension a
// cycle and the dimension of the t-th AAPC waiting t cycles before its first use and s - 1 - t
// after its last (its pairs' bit chains run axis after axis); below n pairs, the fewest cycles
// that can hold every crossing, cycle c at most min(K/2, the dimensions usable in it).
std::uint64_t skewed_pipeline_cycles(const std::vector<unsigned>& widths, unsigned m);
std::uint64_t pair_pipeline_lower_bound(const std::vector<unsigned>& widths, unsigned m);

// The sequence written directly: where word g ends up when the memory axis is
// exchanged with axis order[0], then order[1], ... (empty: 0, 1, ..., s-1).
AddressMap shuffle_destination(const Geometry& geo, unsigned d, unsigned axes, std::vector<unsigned> order = {});
// The same for axes of the given orders, exchanged in order 0, 1, ...: axis u's
// field swaps with the low widths[u] memory bits.
AddressMap shuffle_destination(const Geometry& geo, const std::vector<unsigned>& widths);

// Corollary 2: s pipelined AAPCs take K/2 + (s-1)d cycles with Alg. 4,
// d ceil(K/2d) + (s-1)d with Alg. 1, K/2 + (s-1)(d + (K/2 mod d)) with Alg. 3.
std::uint64_t corollary2_cycles(AapcAlgorithm alg, unsigned d, unsigned m, unsigned axes);

// Sec. 4.1, axes of non-increasing orders d_1 >= d_2 >= ...: pipelined
// Algorithm 1 starts AAPC i d_(i-1) + (d_i - gcd(d_(i-1), d_i)) cycles after
// AAPC i-1 (the paper's extra delay d_i - gcd), so s AAPCs take the sum of
// those lags plus d_s ceil(K/2d_s); one after another (pipelined = false), the
// sum of every d_i ceil(K/2d_i). Derived for whole groups: the schedule meets
// it when K/2 >= lcm(d_(i-1), d_i) for every i, and takes fewer cycles below.
std::uint64_t unequal_orders_cycles(const std::vector<unsigned>& dims, unsigned m, bool pipelined = true);
// What Algorithms 3 and 4 on unequal orders are held against (derived, not a
// number the paper prints): Corollary 2's form K/2 + d_1 + ... + d_(s-1), every
// AAPC with all channels busy and starting the previous one's order after it;
// s K/2 one after another.
std::uint64_t unequal_orders_target(const std::vector<unsigned>& dims, unsigned m, bool pipelined = true);

}  // namespace hcube

// Schedules for one all-to-all personalized communication (AAPC) on a d-cube,
// Johnsson & Ho 1992, sec. 3 (Algorithms 1-4), 5 (blocking) and 6 (wide
// channels). All run in aligned coordinates: after the pre-alignment
// (j|i) -> (j|i xor j), the word at local address a must cross exactly the
// cube dimensions of its relative address a mod 2^d, and every exchange is
// direct-addressed (all nodes touch the same address).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hcube/host/schedule.hpp"

namespace hcube {

enum class AapcAlgorithm { alg1 = 1, alg2 = 2, alg3 = 3, alg4 = 4 };
AapcAlgorithm parse_aapc_algorithm(const std::string& s);  // "1".."4"; throws naming the allowed ones

// Algorithm 4's schedule for the c leftover cyclic pairs and their (d-c)-necklace.
enum class LineDrawing {
  diagonal,  // hcube's closed form, each necklace member along a diagonal of the generating table
  greedy,    // "type 2": cycle by cycle, greedy with alternating-path repair
  type1,     // the paper's type 1 (Figure 3 left, Table 7 left): line i in row i, on its own necklace
};
// "diagonal" | "1" | "type1" | "greedy" | "type2" | "2". "type1" named the diagonal
// drawing before the paper's own was built; "1" still does.
LineDrawing parse_line_drawing(const std::string& s);
std::string to_string(LineDrawing l);

// Which complement pair is Algorithm 2's pair u (sec. 3.2; Algorithm 3's
// head too). Pair u crosses dimension r in step (u + r) mod K/2, so the d - 1
// pairs u > K/2 - d wrap around the end.
enum class PairOrder {
  // The wrapping pair u takes (2^k - 1, its complement), k = K/2 - u: the
  // member with bits k..d-1 crosses them all in the first steps and the one
  // with bits 0..k-1 in the last, so no address waits across the wrap: span
  // d and 2d addresses in transit (Table 6's 2d).
  split,
  // Pairs in index order, as Table 5 prints them: a wrapping pair's members
  // each cross in both the first and the last steps (span up to K/2).
  table5,
};
// "split" | "table5"; throws naming the allowed ones.
PairOrder parse_pair_order(const std::string& s);
std::string to_string(PairOrder o);

struct AapcOptions {
  AapcAlgorithm algorithm = AapcAlgorithm::alg4;
  unsigned d = 1;  // AAPC dimensions
  unsigned n = 0;  // machine processor dimensions; 0 means d
  unsigned m = 0;  // machine memory dimensions; 0 means d
  LineDrawing lines = LineDrawing::diagonal;
  PairOrder pairs = PairOrder::split;  // Algorithms 2 and 3
};

// Alg. 4's mixed block (sec. 3.5.2): the c complement pairs with low members
// `pair_lows` together with a full (d-c)-necklace, in d cycles; grid[t][k] is
// the address crossing dimension k in cycle t. The necklace is that of
// alg4_mixed_seed: 0^c 1^(d-c), or the paper's own for type 1.
std::vector<std::vector<std::uint64_t>> alg4_mixed_block(const std::vector<std::uint64_t>& pair_lows, unsigned d,
                                                         LineDrawing lines);
// The necklace member the mixed block's members are rotations of (member j =
// rotate_left(seed, j)): the paper's type 1 takes {2i mod d : i < q} (sec.
// 3.5.3: "entry j of line i is (2i + j) mod d"), where those are distinct (d
// odd, or q <= d/2); otherwise, and for the other drawings, 0^c 1^q.
std::uint64_t alg4_mixed_seed(unsigned d, unsigned c, LineDrawing lines);
// Where Algorithm 4 on d dimensions puts its mixed block: cycles
// [first_cycle, first_cycle + d), with these leftover pairs; none when the
// cyclic pairs fill whole blocks.
struct Alg4MixedBlock {
  std::size_t first_cycle = 0;
  std::vector<std::uint64_t> pair_lows;
  std::uint64_t seed = 0;
};
std::optional<Alg4MixedBlock> alg4_mixed_block_of(unsigned d, LineDrawing lines);

// Throws hcube::Error unless 1 <= d <= 32, d <= n, d <= m and n + m fits the
// address model; signed so that values from a command line are checked as given.
void check_aapc_dimensions(long long d, long long n, long long m);

// The schedule with channel width 1. Throws hcube::Error for d = 0, d > n or d > m.
Schedule make_aapc_schedule(const AapcOptions& options);

// Sec. 5: cycles grouped by index mod T_max (the schedule's maximum span) into
// T_max block transfers, each one cycle whose channel width is the largest block.
Schedule block_schedule(const Schedule& s);
// Sec. 6: a channel of width b carries b words per cycle. Table 9's
// labelling: the cycles taken block transfer by block transfer (Table 8's
// rows), each from its last cycle back (right to left), b to a time step, a
// step running on into the next row. That is legal when every block holds at
// least b cycles, b <= floor(cycles / T_max) (Lemma 5's floor(K/2d) >= b):
// ceil(cycles / b) steps. Otherwise each block transfer is split into cycles
// of at most b words per channel on its own (T_max steps once b reaches the
// largest block).
Schedule widen_schedule(const Schedule& s, unsigned b);

// The paper's counts, from its formulas, for tests and reports (K = 2^m).
struct AapcBounds {
  std::uint64_t cycles = 0;    // Table 6 (element transfers in sequence)
  std::uint64_t max_span = 0;  // Table 6 / Theorem 1 (upper bound; exact for Alg. 1 and 4)
  std::uint64_t block_transfers = 0;  // Lemma 4
  std::uint64_t max_block_size = 0;   // ceil(cycles / block_transfers)
  // Table 6's local memory addresses in transit, fewest and most (0: the
  // paper gives none, Algorithm 4). Alg. 1's fewest, 2 (K/2 mod d), is the
  // short last group's; when d divides K/2 every group is whole: 2d.
  std::uint64_t min_in_transit = 0;
  std::uint64_t max_in_transit = 0;
};
AapcBounds paper_bounds(AapcAlgorithm alg, unsigned d, unsigned m);
// Lemma 5: d ceil(K / (2 d b)) cycles for channel width b.
std::uint64_t lemma5_cycles(unsigned d, unsigned m, unsigned b);
// Sec. 7's count for the same blocking with Table 9's labelling: ceil(K/2b)
// time steps when floor(K/2d) >= b, otherwise d (never more than Lemma 5's).
std::uint64_t wide_channel_cycles(unsigned d, unsigned m, unsigned b);

// The CM-2 and CM-200 had two links between each pair of nodes (sec. 1).
inline constexpr unsigned kCm2ChannelWidth = 2;

}  // namespace hcube

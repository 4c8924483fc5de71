// Algorithm 5 (Johnsson & Ho 1992, sec. 4.2): s AAPCs on d-bit processor axes
// run concurrently when memory has a spare d-bit axis v besides the AAPCs'
// memory axis i. A data set may start on axis k > 0: it exchanges v with axes
// k, ..., s-1, swaps i and v, then exchanges with axes 0, ..., k -- one AAPC
// more, the same generalized shuffle (the paper's (l,k,j|i,v) example). Data
// sets starting on axis 0 pipeline as in sec. 4.1. docs/multi-aapc.md has the
// design, the proof that every exchange stays direct-addressed, and Figure 4.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hcube/host/affine_map.hpp"
#include "hcube/host/schedule.hpp"

namespace hcube {

// The column plan: a column is d cycles, in which one data set (d complement
// pairs of local addresses, Alg. 1's group) crosses all d dimensions of one axis.
struct PlanStep {
  unsigned axis = 0;
  std::uint64_t column = 0;
  bool through_v = false;  // exchanged through the spare memory axis (before the local swap of i and v)
};

struct PlanRow {
  std::string label;       // Figure 4's name: d_p^q for the p-th pair of rotated sets, d_p otherwise
  bool rotated = false;    // starts on axis `start` > 0 through the spare axis
  unsigned start = 0;
  std::vector<PlanStep> steps;
};

struct ConcurrentPlan {
  unsigned axes = 0;             // s
  std::vector<PlanRow> rows;     // rotated data sets first, then the ones starting on axis 0
  std::uint64_t columns = 0;
};

// Where rotated data sets start.
enum class RotationLayout {
  paper,    // Figure 4: pairs of data sets on axes s-2, s-4, ..., the second one column later
  compact,  // one per axis s-2, s-3, ..., 1 (s-1, ..., 1 for s-1 sets): R + 1 columns for R data sets
  // No columns: complement pairs skewed bit by bit, and rows rotated in one bit each, filling the
  // pipeline's idle corners (hcube's; docs/multi-aapc.md, "Rows rotated bit by bit").
  skewed,
};
RotationLayout parse_rotation_layout(const std::string& s);  // "paper" | "compact" | "skewed"
std::string to_string(RotationLayout l);

// Places `standard` data sets (axes 0, 1, ..., s-1) and `rotated` ones: each
// step in the earliest column after the set's previous step whose axis is
// free; standard sets first, then rotated ones in layout order.
ConcurrentPlan place_data_sets(unsigned axes, std::uint64_t standard, std::uint64_t rotated, RotationLayout layout);

// Figure 4's table: a row per data set, a column per d cycles; "v,a" / "i,a"
// exchange the spare / the AAPC memory axis with axis a (numbered from 1 as in
// the paper), "*" is the local swap of i and v.
std::string plan_chart(const ConcurrentPlan& plan);
// The data sets that start on later axes.
std::uint64_t rotated_data_sets(const ConcurrentPlan& plan);

struct ConcurrentOptions {
  unsigned d = 1;
  unsigned axes = 1;  // s
  unsigned m = 0;     // memory dimensions, at least 2d
  // compact, left to itself (rotated_rows < 0), runs the skewed layout where that is fewer cycles.
  RotationLayout layout = RotationLayout::compact;
  // Rows of 2^d complement pairs that start on later axes; negative: the
  // count with the fewest cycles (tried up to 2s data sets). The skewed layout
  // rotates rotated_rows / d rows in each bit, so it takes multiples of d.
  long long rotated_rows = -1;
};

// The local address (w | row class | t | p): p = bits 0..d-1 the aligned
// i-axis, t = bit d and the class bits d+1..2d-1 the aligned v-axis q stored
// so that q and its complement share a row (t = q's top bit, class = its low
// bits xor t). A complement pair flips bits 0..d.
struct ConcurrentDesign {
  RotationLayout layout = RotationLayout::compact;  // the one built
  std::uint64_t rotated_rows = 0;
  std::uint64_t rotated_pairs = 0;   // in some bit (skewed: each in one, rotated_pairs / d a bit)
  std::uint64_t standard_pairs = 0;  // in every bit
  ConcurrentPlan plan;               // empty for the skewed layout
  std::uint64_t cycles = 0;          // plan.columns * d; for the skewed layout its own count
};

// The skewed layout with `rows_per_bit` rows rotated in each bit: K/2 - R + max(s - 1, R + 1)
// cycles for R = rows_per_bit 2^d rotated pairs a bit; nullopt where it cannot be built
// (K/2 < s d, R > s - 1, or d rows_per_bit more rows than memory holds).
std::optional<std::uint64_t> skewed_concurrent_cycles(unsigned d, unsigned axes, unsigned m,
                                                      std::uint64_t rows_per_bit);

// Throws hcube::Error unless s >= 1, d >= 1, m >= 2d and the sizes fit.
ConcurrentDesign design_concurrent(const ConcurrentOptions& options);

// The schedule of a design: n = s d, pre/post AlignmentKind::concurrent.
Schedule make_concurrent_schedule(const ConcurrentOptions& options, const ConcurrentDesign& design);

// Its alignments: a global affine map and a second one on the rotated rows
// only (pre: the global one first; post: the rows' one first). f / g are a
// permutation's code conversions folded in (identity for the plain shuffle).
// by_bit: the rotated rows are d equal blocks, block b rotated in bit b only (one step each).
std::vector<AlignmentStep> concurrent_pre_alignment(const Geometry& geo, unsigned d, unsigned axes,
                                                    std::uint64_t rotated_rows, bool by_bit, const AffineMap& f);
std::vector<AlignmentStep> concurrent_post_alignment(const Geometry& geo, unsigned d, unsigned axes,
                                                     std::uint64_t rotated_rows, bool by_bit, const AffineMap& g);

// Theorem 2's count (the smallest of the cases that apply) and which case it is.
struct Theorem2Bound {
  std::uint64_t cycles = 0;
  std::string source;  // e.g. "Theorem 2, K >= 2(s+1)d"
};
Theorem2Bound theorem2_bound(unsigned d, unsigned m, unsigned axes);

}  // namespace hcube

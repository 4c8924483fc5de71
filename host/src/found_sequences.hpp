// Sequences of AAPCs in fewer routing cycles than the pipelined constructions, found by
// `hcube synthesize multi-aapc` over every schedule of hcube's machine, with the proof that one
// cycle fewer is impossible where it found one. Its schedule files are the planner's cache
// (host/data/found/, written by scripts/refresh_found.sh, embedded by cmake/EmbedFiles.cmake).
#pragma once

#include <vector>

#include "hcube/host/schedule.hpp"

namespace hcube::found {

// The schedule the synthesizer found for the axes' orders `widths` with m memory bits, in the
// frame of Lemma 1's single alignment: at K = 8, orders 3,3 in 6
// cycles (Corollary 2: 7), 3,3,3 in 9 (10), 3,2 and 3,1 in 5, 3,2,2 in 7 and 3,3,2 in 8; at
// K = 4, orders 2,1 in 3. Null where none was searched for.
struct Sequence;
const Sequence* sequence(const std::vector<unsigned>& widths, unsigned m);
std::size_t cycles(const Sequence& s);

// Appends `s` to `seq` as the AAPCs of the cube axes `axes` (found axis i plays cube axis
// axes[i], which must have its order), in that order, on a cube of axes `widths`: the found
// exchanges' dimensions moved to those axes, their offset maps given Lemma 1's fold of every
// other axis (a constant on each subcube the block runs in). Adds the found schedule's cycles.
void append(Schedule& seq, const Sequence& s, const std::vector<unsigned>& axes, const std::vector<unsigned>& widths);

}  // namespace hcube::found

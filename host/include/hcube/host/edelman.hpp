// Edelman's optimal AAPC schedule for the all-port hypercube (Edelman, "Optimal
// matrix transposition and bit reversal on hypercubes"; lecture notes sec. 9):
// a table w[i][j] of relative addresses, step i = 0 .. 2^(d-1)-1 and link
// (dimension) j = 0 .. d-1, with (1) bit j of w[i][j] set, (2) no value twice
// in a row, (3) no value twice in a column. The word with relative address w
// crosses exactly w's set bits, so 2^(d-1) = K/2 steps with every link busy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hcube/host/schedule.hpp"

namespace hcube {

using EdelmanTable = std::vector<std::vector<std::uint64_t>>;  // [step i][link j]

// The direct construction: row i starts from 2i + 1; column j complements bit
// j + 1 (not for j = d - 1), then swaps bits 0 and j. Throws for d outside 1..32.
EdelmanTable edelman_table(unsigned d);

// The first of conditions 1-3 the table breaks ("step 3, link 1: ..."), or nothing.
std::optional<std::string> edelman_violation(const EdelmanTable& table, unsigned d);

// The table as a schedule on a machine of n >= d processor and m >= d memory
// dimensions (the table repeated for every value of the memory bits above d):
// aligned, after the pre-alignment (j|i) -> (j|i xor j) every node uses
// location w[i][j] on link j (direct addressing); unaligned, node k uses
// location w[i][j] xor k, as on the CM-2 (indirect addressing: an offset map
// adding the node's d low bits), with no alignment -- the run is then the
// transpose (j|i) -> (i|j) by itself.
Schedule make_edelman_schedule(unsigned d, unsigned n, unsigned m, bool aligned);

// The bit reversal of a 2^(2d) vector on n = m = d (address p|q -> rev(q)|rev(p))
// with the same table (Edelman's paper; notes sec. 9): node k sends and
// receives on link j at location rev_d(w[i][j] xor k) = rev_d(w) xor rev_d(k),
// an offset map adding the node's reversed bits. A word of relative address w
// (source node xor destination node) at node k sits at rev_d(w xor k), so it
// starts at q and ends at rev(p). No alignment; 2^(d-1) cycles.
Schedule make_edelman_bit_reversal_schedule(unsigned d);

}  // namespace hcube

// A local alignment: every node j permutes its local addresses by
//   i -> M i xor C j xor c   (bit vectors over GF(2)),
// with M an invertible m x m matrix, C an m x n matrix and c a constant. This one form
// covers the papers' pre/post-alignment (j|i) -> (j|i xor j_P), permutations
// of the memory address bits and binary <-> Gray code conversion of a bit
// field, and any composition of them, since all are affine over GF(2).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hcube/host/geometry.hpp"

namespace hcube {

class AffineMap {
 public:
  // The identity on a machine of geometry geo.
  explicit AffineMap(const Geometry& geo);

  // (j|i) -> (j|i xor j_P): bit proc_dims[t] of the node is xored onto memory
  // bit mem_dims[t]. Throws hcube::Error on a bad or repeated dimension.
  static AffineMap xor_align(const Geometry& geo, const std::vector<unsigned>& proc_dims,
                             const std::vector<unsigned>& mem_dims);
  // Lemma 1's alignment for a sequence of AAPCs: node bit k (k < axes * d)
  // is xored onto memory bit k mod d, i.e. i -> i xor a_1 xor ... xor a_s.
  static AffineMap xor_fold(const Geometry& geo, unsigned d, unsigned axes);
  // The same for axes of different orders (sec. 4.1): axis u is the next
  // widths[u] node bits, its bit b xored onto memory bit b.
  static AffineMap xor_fold(const Geometry& geo, const std::vector<unsigned>& widths);
  // Memory address bit b moves to bit perm[b]; perm must be a permutation of 0..m-1.
  static AffineMap permute_bits(const Geometry& geo, const std::vector<unsigned>& perm);
  // Complements memory bits lo .. lo+width-1 (i -> i xor mask).
  static AffineMap complement(const Geometry& geo, unsigned lo, unsigned width);
  // Binary -> Gray code (encode) or back (decode) on bits lo .. lo+width-1.
  static AffineMap gray(const Geometry& geo, unsigned lo, unsigned width, bool encode);

  // The map with these columns: M's m columns, C's n columns (each below K)
  // and c. Throws hcube::Error when a column is out of range or M is singular.
  static AffineMap from_columns(const Geometry& geo, std::vector<std::uint64_t> mem_cols,
                                std::vector<std::uint64_t> node_cols, std::uint64_t constant = 0);

  // This map followed by `next`.
  AffineMap then(const AffineMap& next) const;

  const Geometry& geometry() const { return geo_; }
  // Column b of M: the image of memory bit b. Column k of C: what node bit k adds.
  const std::vector<std::uint64_t>& mem_columns() const { return mem_cols_; }
  const std::vector<std::uint64_t>& node_columns() const { return node_cols_; }
  std::uint64_t constant() const { return constant_; }

  // Plain evaluation, bit by bit: the reference the kernels are checked against.
  std::uint64_t apply(std::uint64_t node, std::uint64_t local) const;

  bool is_identity() const;
  // i -> i xor C j xor c: then the map is an involution and runs in place.
  bool is_pure_xor() const;
  // f(f(i)) = i on every node (M M = I and M fixes C j xor c): runs in place.
  bool is_involution() const;
  // Memory bits b and above of every address are kept, so each aligned block
  // of 2^b local addresses maps onto itself.
  bool keeps_bits_from(unsigned b) const;
  // Number of nodes whose offset C j xor c is non-zero (they move words in a pure xor map).
  std::uint64_t moving_nodes() const;

  std::string describe() const;

 private:
  Geometry geo_;
  std::vector<std::uint64_t> mem_cols_;
  std::vector<std::uint64_t> node_cols_;
  std::uint64_t constant_ = 0;
};

// One alignment launch: `map` on the local addresses [lo, hi) of every node,
// the others staying put (hi = 0: the whole memory). Algorithm 5 realigns its
// rotated rows alone (host/concurrent_aapc.hpp).
struct AlignmentStep {
  AffineMap map;
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;

  explicit AlignmentStep(AffineMap m, std::uint64_t low = 0, std::uint64_t high = 0)
      : map(std::move(m)), lo(low), hi(high) {}
  bool whole() const { return lo == 0 && (hi == 0 || hi == map.geometry().words_per_node()); }
  std::uint64_t end() const { return hi == 0 ? map.geometry().words_per_node() : hi; }
};
// Throws hcube::Error unless a partial step's range is non-empty, within K,
// aligned to 2^b with the map keeping bits b and above, and the map an involution.
void check_alignment_step(const AlignmentStep& step);

// Parses "lo:width:encode" or "lo:width:decode" into AffineMap::gray.
AffineMap parse_gray(const Geometry& geo, const std::string& text);
// hcube align's map (and the Python binding's Machine.align): the node bits of
// processor dimensions xor_proc xored onto memory dimensions xor_mem, then the
// memory bits permuted by mem_perm, then a Gray field; each a flag's text
// ("0,1", "lo:width:encode"), empty for none.
AffineMap alignment_map(const Geometry& geo, const std::string& xor_proc, const std::string& xor_mem,
                        const std::string& mem_perm, const std::string& gray);

// Lookup tables that evaluate the map in a kernel with one load per input byte.
struct AffineTables {
  std::vector<std::uint64_t> mem;   // ceil(m/8) tables of 256 entries
  std::vector<std::uint64_t> node;  // ceil(n/8) tables of 256 entries
  unsigned mem_bytes = 0;
  unsigned node_bytes = 0;
  std::uint64_t constant = 0;
};
AffineTables make_tables(const AffineMap& map);
// Byte-sliced tables of y = M x for M given by its columns: ceil(cols/8) tables of 256.
std::vector<std::uint64_t> byte_tables(const std::vector<std::uint64_t>& columns, unsigned& table_count);

// y = M x over GF(2) for M given by its columns (column b: the image of bit b).
std::uint64_t gf2_mul(const std::vector<std::uint64_t>& columns, std::uint64_t x);
// Rank over GF(2) of a set of column vectors.
unsigned gf2_rank(std::vector<std::uint64_t> columns);

}  // namespace hcube

// The data motion of a distributed radix-2 FFT on the cube, planned without
// data: 2^q points, q = n + m, in cyclic order (point x at node x mod 2^n,
// local address x >> n), transformed by decimation in frequency, which works
// from the top index bit down and needs the bit it works on in local memory.
// The cyclic order puts the top m index bits in memory, so the first m stages
// are local; AAPCs (Johnsson & Ho 1992) then bring the next node bits into
// memory, m at a time -- the paper's introduction: 4096 points on 512 nodes as
// local 8-point transforms with AAPCs within 3-cubes between them -- and the
// same AAPCs, their code conversions folded into the alignments, deliver the
// result in the order asked for. docs/fft-staging.md explains the plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hcube {

enum class FftOrder {
  natural,       // X[k] in cyclic order, as the input was: node k mod 2^n, local address k >> n
  bit_reversed,  // Y[t] = X[rev_q(t)] in consecutive order: node t >> m, local address t mod 2^m
};
FftOrder parse_fft_order(const std::string& s);  // "natural" | "bit-reversed"; throws naming both
std::string to_string(FftOrder o);

// y = A x xor c over GF(2) on `bits`-bit vectors; columns[b] is the image of bit b.
struct BitAffine {
  unsigned bits = 0;
  std::vector<std::uint64_t> columns;
  std::uint64_t constant = 0;

  static BitAffine identity(unsigned bits);
  // Bit b moves to bit to[b]; `to` must be a permutation of 0 .. size-1.
  static BitAffine permutation(const std::vector<unsigned>& to);

  std::uint64_t apply(std::uint64_t x) const;
  // This map followed by `next`.
  BitAffine then(const BitAffine& next) const;
  // Throws hcube::Error when the map is not a bijection.
  BitAffine inverse() const;
  // Every column a single bit and no constant: where bit b goes is `bit_target(b)`.
  bool is_permutation() const;
  unsigned bit_target(unsigned b) const;  // the bit column b sets; only for permutation columns
  bool operator==(const BitAffine& o) const {
    return bits == o.bits && columns == o.columns && constant == o.constant;
  }
};

// Global address (node * 2^m + local) of point x of 2^(n+m) in cyclic order.
std::uint64_t cyclic_address(std::uint64_t x, unsigned n, unsigned m);
// Where the FFT leaves element i of its result: natural: X[i], in cyclic
// order; bit-reversed: Y[i] = X[rev(i)], at global address i.
std::uint64_t fft_result_address(std::uint64_t i, unsigned n, unsigned m, FftOrder order);

// One memory address bit exchanged with one node address bit by an AAPC.
struct FftSwap {
  unsigned mem_bit = 0;   // 0 .. m-1
  unsigned node_bit = 0;  // 0 .. n-1
};

struct FftStep {
  enum class Kind { stage, aapc };
  Kind kind = Kind::stage;
  // stage: the butterflies pair the points whose logical index differs in this bit.
  unsigned index_bit = 0;
  // aapc: an AAPC on d = swaps.size() dimensions (sorted by node bit) that
  // swaps what memory bit mem_bit and node bit node_bit hold, for every entry:
  // (j|i) -> (f(i)|g(j)) with f moving the memory bits to 0 .. d-1 and g back.
  std::vector<FftSwap> swaps;
};

// A stretch of the plan: the AAPCs that make index bits hi .. lo local, then
// the stages on them, top first (DIF). `first_step` .. `end_step` are its steps.
struct FftSegment {
  unsigned hi = 0, lo = 0;
  std::size_t first_step = 0, stage_step = 0, end_step = 0;  // stages start at stage_step
  unsigned aapcs = 0;
};

struct FftPlan {
  unsigned n = 0, m = 0;
  FftOrder order = FftOrder::natural;
  std::vector<FftStep> steps;
  // After the last step memory bit a moves to final_memory[a] (folded into
  // the last alignment).
  std::vector<unsigned> final_memory;
  // Logical index t -> global address: before the plan (cyclic order) and
  // after it (the requested order; the point at logical index t then holds X[rev_q(t)]).
  BitAffine initial, target;

  unsigned q() const { return n + m; }
  unsigned stages() const;
  unsigned aapcs() const;
  std::vector<unsigned> aapc_dims() const;  // d of each AAPC, in order
  std::vector<FftSegment> segments() const;
  // The plan in a few lines: each AAPC with its bits and the stages between.
  std::string describe() const;
};

// Plans the FFT of 2^(n+m) points on 2^n nodes of 2^m words: m >= 1 and
// n + m <= 56, any n. Each AAPC exchanges memory bits holding finished index
// bits with the node bits holding the next ones, and sends every finished bit
// straight to where the requested order wants it, parking an unfinished one
// when that place is not yet free; bit-reversed order takes ceil(n/m) AAPCs
// (s = n/m when m divides n, the paper's generalized shuffle with the top
// axis first), natural order a few more when n > m (docs/fft-staging.md).
// Throws hcube::Error naming the values for m = 0 or n + m too large.
FftPlan plan_fft(unsigned n, unsigned m, FftOrder order);

}  // namespace hcube

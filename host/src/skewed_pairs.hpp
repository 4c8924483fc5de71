// Pipelined AAPCs with complement pairs skewed bit by bit (hcube's construction, beyond
// Johnsson & Ho sec. 4.1; docs/multi-aapc.md, "Pairs skewed bit by bit").
//
// In Lemma 1's frame a pair's crossing of dimension b of an axis is chosen by the pair-flip
// map (bit b of the node's other axes) alone, which names the member that must cross as long
// as the pair crosses bit b of the axes in their order: bit b's chain is the only order a
// pair must keep, not "all of axis t before axis t+1". So pair j runs bit b's chain one axis
// a cycle from sigma(j, b) = (j + offset_b) mod Q, the bits' chains side by side in a row of
// Q >= K/2 cycles: Q = max(K/2, n) and max(K/2, n) + s - 1 cycles, where a schedule of pairs
// needs at least max(K/2 + s - 1, n) (pair_lower_bound).
#pragma once

#include <cstdint>
#include <vector>

namespace hcube::skewed {

// Where every (pair, step, bit) of the pipeline runs. widths[t] is the order of the axis the
// t-th AAPC exchanges with memory (bit b has a chain through the steps with widths[t] > b).
// Steps are cut into chunks run one after another per pair (each chunk a skewed row of its
// own); where K/2 >= n one chunk is best, below it the layout with the fewest cycles among
// equal chunks after a first one of another size.
class Layout {
 public:
  Layout(std::vector<unsigned> widths, unsigned m);
  std::uint64_t cycles() const { return cycles_; }
  std::uint64_t cycle(std::uint64_t pair, unsigned step, unsigned b) const;

 private:
  struct Chunk {
    unsigned first = 0, count = 0;
    std::uint64_t row = 0, start = 0;  // Q, and the cycle the chunk's row begins
    std::vector<std::uint64_t> offset;  // per bit
    std::vector<unsigned> ops;          // per bit: steps of the chunk holding it
  };
  struct Span {
    std::int64_t first, last;
  };
  std::vector<Chunk> chunks_of(const std::vector<unsigned>& sizes) const;
  Span span(const Chunk& c, std::uint64_t pair) const;     // pair's cycles in the chunk's row
  std::uint64_t place(std::vector<Chunk>& chunks) const;  // sets starts; returns the cycles

  std::vector<unsigned> widths_;
  std::uint64_t pairs_;
  std::vector<Chunk> chunks_;
  std::vector<unsigned> chunk_of_;             // per step
  std::vector<std::vector<unsigned>> rank_;   // [step][bit]: the step's place in its chunk's chain of the bit
  std::uint64_t cycles_ = 0;
};

// A lower bound on the cycles of any pipeline of pairs whose bit chains run axis after axis: at
// least max(K/2 + s - 1, n) (a dimension of step t idles t cycles before its first use and s - 1 - t
// after its last; a pair crosses one dimension a cycle), and, below n pairs, the fewest cycles
// that hold the K/2 n crossings when cycle c holds at most min(K/2, the dimensions usable then).
std::uint64_t pair_lower_bound(const std::vector<unsigned>& widths, unsigned m);

}  // namespace hcube::skewed

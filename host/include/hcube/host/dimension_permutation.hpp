// Stable dimension permutations (Ho & Johnsson 1988): a permutation of the
// q = n + m bits of the global address (node * K + local, so bits 0..m-1 are
// storage dimensions and bits m..q-1 processor dimensions -- the paper puts
// the processor bits low; hcube converts at this boundary). Source address bit
// i goes to bit position to[i] of the destination. The analysis decomposes it
// into generalized shuffles (cycles) and classifies them as the paper does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>


namespace hcube {

struct DimensionPermutation {
  unsigned n = 0, m = 0;
  std::vector<unsigned> to;  // q entries

  unsigned q() const { return n + m; }
  bool is_processor_bit(unsigned b) const { return b >= m; }
  // Where the word at global address g goes.
  std::uint64_t apply(std::uint64_t g) const;
};

// "p0,p1,...,p(q-1)", or a named one:
//   transpose          the two halves of the address exchanged (q even): with n = m, (j|i) -> (i|j)
//   bit-reversal       bit i -> q-1-i
//   shuffle:k          k-bit left rotation of all q bits (i -> i+k mod q); unshuffle:k the inverse
//   swap-axes:a:b:w    the w-bit fields at bits a and b exchanged
//   random:s           random_bit_permutation(q, s)
// Throws hcube::Error naming the bad entry and the allowed range: wrong length,
// an entry out of 0..q-1, an entry twice (not a permutation), a malformed name.
DimensionPermutation parse_dimension_permutation(const std::string& text, unsigned n, unsigned m);
// A permutation of q bits drawn from the seed, the same on every platform.
std::vector<unsigned> random_bit_permutation(unsigned q, std::uint64_t seed);

// A generalized shuffle alpha_0 -> alpha_1 -> ... -> alpha_0 (sec. 2): bits[k+1] = to[bits[k]].
struct ShuffleCycle {
  enum class Kind { real, virtual_, mixed };  // all processor bits, all storage bits, both
  std::vector<unsigned> bits;                 // starting from its smallest bit
  Kind kind = Kind::real;
  unsigned processor_bits = 0;
};
std::string to_string(ShuffleCycle::Kind k);  // "real" | "virtual" | "mixed"

struct DimensionPermutationAnalysis {
  std::vector<ShuffleCycle> cycles;  // the non-trivial ones, by smallest bit
  unsigned sigma = 0;                // |J|: bits that move
  unsigned sigma_p = 0;              // |J n Gamma_p|
  unsigned sigma_s = 0;              // |J n Gamma_s|
  unsigned beta = 0;                 // cycles
  unsigned real_cycles = 0;          // beta': real cycles
  unsigned odd_real_cycles = 0;      // oJ
  unsigned sigma_max = 0, sigma_min = 0;  // largest and smallest real cycle order (0 without real cycles)
  bool separable = true;             // no mixed cycle
};
DimensionPermutationAnalysis analyze(const DimensionPermutation& p);

// The paper's lower bounds on a full cube (every processor dimension holds
// data), in time units: K words per node, t_c per word, tau per start-up.
// Theorem 1: one-port max(sigma_p K/2 t_c, (sigma_p - oJ) tau), n-port
// max(K/2 t_c, (sigma_p - oJ) tau); a permutation without real or mixed
// bits (sigma_p = 0) needs no communication.
struct DimensionPermutationBound {
  double transfer = 0;  // the t_c term
  double startups = 0;  // the tau term
  double time() const { return transfer > startups ? transfer : startups; }
};
DimensionPermutationBound lower_bound(const DimensionPermutationAnalysis& a, std::uint64_t K, bool all_port,
                                      double t_c, double tau);

// One generalized shuffle on a full cube: Lemma 3 (real, order sigma_p):
// one-port max(sigma_p K/2 t_c, sigma_p tau) for sigma_p even and
// max(sigma_p K/2 t_c, (sigma_p - 1) tau) for odd; n-port the same with K/2 t_c.
// Lemma 4 (mixed, 0 < sigma_p < sigma): one-port max(sigma_p K/2 t_c, sigma_p tau),
// n-port max(K/2 t_c, sigma_p tau). A virtual cycle needs nothing.
DimensionPermutationBound shuffle_lower_bound(const ShuffleCycle& c, std::uint64_t K, bool all_port, double t_c,
                                              double tau);

// Corollary 4: the data on a subcube of m_p < n processor dimensions (the
// permutation's processor bits are those m_p):
// one-port max((K + sigma_p - oJ - 1) t_c, sigma_p K / 2^(n - m_p + 1) t_c, (sigma_p - oJ) tau),
// n-port max((K / (n - m_p + sigma_p) + sigma_p - oJ - 1) t_c, K / 2^(n - m_p + 1) t_c, (sigma_p - oJ) tau).
DimensionPermutationBound extended_cube_lower_bound(const DimensionPermutationAnalysis& a, std::uint64_t K,
                                                    unsigned n, unsigned m_p, bool all_port, double t_c, double tau);

}  // namespace hcube

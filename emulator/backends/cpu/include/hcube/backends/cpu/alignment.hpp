// The host launcher of an in-place xor alignment, i -> i xor C j xor c: the
// same swaps as AlignXorBody, region by region. In the tiled pvar layout a
// node's words form a column of its tile. When C sends the node bits of a
// chunk of the tile's columns below bit beta, the chunk's rows pair block by
// block: a block of 2^beta rows with one other block (or itself), so a unit
// swaps two contiguous regions of rows, and walks its own region row by row
// (long sequential runs) while the partner's lines stay in L2: 32 bytes of
// consecutive columns at a time where AVX2 runs and those columns' offsets span
// independent rows (the AAPC's alignment), word by word otherwise. Other maps
// run the per-word body.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hcube/core/xor_cosets.hpp"
#include "hcube/kernels/alignment.hpp"
#include "hcube/backends/cpu/launch.hpp"
#include "hcube/backends/cpu/xor_lanes.hpp"

namespace hcube::kernels::cpu {

#if defined(__x86_64__) || defined(__i386__)
// Swaps the coset r xor S with the coset p xor S over L = 32 / word size
// columns at `first`: lane k of row r xor off[s] lands on row p xor off[s xor k]
// and back (rows are 2^t words apart).
template <class Word>
__attribute__((target("avx2"))) void swap_cosets(Word* first, unsigned t, const std::uint64_t* off,
                                                 std::uint64_t r, std::uint64_t p) {
  constexpr unsigned L = 32 / sizeof(Word);
  __m256i x[L], y[L];
  for (unsigned s = 0; s < L; ++s) {
    x[s] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(first + ((r ^ off[s]) << t)));
    y[s] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(first + ((p ^ off[s]) << t)));
  }
  xor_lanes(x);
  xor_lanes(y);
  for (unsigned s = 0; s < L; ++s) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(first + ((p ^ off[s]) << t)), x[s]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(first + ((r ^ off[s]) << t)), y[s]);
  }
}

// The coset r xor S in place, where the map sends it to itself: lane k of row
// r xor off[s] lands on row r xor off[s xor c xor k] (off[c] = the shift).
template <class Word>
__attribute__((target("avx2"))) void permute_coset(Word* first, unsigned t, const std::uint64_t* off,
                                                   std::uint64_t r, unsigned c) {
  constexpr unsigned L = 32 / sizeof(Word);
  __m256i x[L];
  for (unsigned s = 0; s < L; ++s)
    x[s] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(first + ((r ^ off[s ^ c]) << t)));
  xor_lanes(x);
  for (unsigned s = 0; s < L; ++s) _mm256_storeu_si256(reinterpret_cast<__m256i*>(first + ((r ^ off[s]) << t)), x[s]);
}

// Row block B of one unit, whole, 32 bytes at a time (AVX2): the L = 32 /
// word size consecutive columns col0.. of the coset r xor S (S spanned by
// off[0 .. L), off linear in the column) land on the coset of
// p = r xor base xor off[col0]. `col_of` maps S's coordinates to the column
// whose offset has them.
template <class Word>
void align_block_lanes(Word* cols, unsigned t, const XorCosets& S, const std::uint64_t* off, const unsigned* col_of,
                       std::uint64_t base, std::uint64_t B, unsigned beta, std::uint64_t chunk) {
  constexpr unsigned L = 32 / sizeof(Word);
  for (std::uint64_t q = 0; q < bit(beta - S.dims); ++q) {
    const std::uint64_t r = (B << beta) | S.representative(q);
    for (std::uint64_t col0 = 0; col0 < chunk; col0 += L) {
      const std::uint64_t d = base ^ off[col0], p = r ^ d;
      if ((d >> beta) != 0) {
        swap_cosets(cols + col0, t, off, r, p);  // the partner block's coset
        continue;
      }
      const std::uint64_t partner = S.reduce(p);  // this block's: each pair once, from its lower coset
      if (r < partner)
        swap_cosets(cols + col0, t, off, r, p);
      else if (partner == r)
        permute_coset(cols + col0, t, off, r, col_of[S.coordinates(d)]);
    }
  }
}
#endif

template <class Word>
void run_align_xor(const AlignXorBody<Word>& body, const tuning::Knobs& knobs) {
  const Layout& L = body.layout;
  const AffineView& map = body.map;
  const unsigned t = L.t, m = L.geo.m;
  const std::uint64_t K = L.geo.words_per_node(), total = L.geo.total_words();
  const auto generic = [&] { launch(total, body); };
  // Only i -> i xor (C j xor c): the memory part must be the identity plus the constant.
  const std::uint64_t c = map.mem_part(0);
  for (unsigned b = 0; b < m; ++b)
    if ((map.mem_part(bit(b)) ^ c) != bit(b)) return generic();
  const std::uint64_t row = bit(t);
  std::vector<std::uint64_t> off(row);
  for (std::uint64_t col = 0; col < row; ++col) off[col] = map.node_part(col);
  // The smallest beta with off[0 .. count) below 2^beta.
  const auto span_bits = [&](std::uint64_t count) {
    std::uint64_t span = 0;
    for (std::uint64_t k = 0; k < count; ++k) span |= off[k];
    unsigned beta = 0;
    while (beta < m && (span >> beta) != 0) ++beta;
    return beta;
  };
  // The widest chunk of columns (at least one cache line, or the row) whose region fits.
  unsigned cb = 0;
  while (cb < t && (sizeof(Word) << (cb + 1)) <= 64) ++cb;
  const auto region = [&](unsigned bits) { return sizeof(Word) << (span_bits(bit(bits)) + bits); };
  const std::uint64_t most = knobs.align_region_bytes;
  if (region(cb) > most) return generic();
  while (cb < t && region(cb + 1) <= most) ++cb;
  const unsigned beta = span_bits(bit(cb));
  const std::uint64_t chunk = bit(cb), chunks = bit(t - cb), block = bit(beta), blocks = (K + block - 1) / block;
  const std::uint64_t tile_words = K << t, tiles = bit(L.geo.n - t);
  const std::uint64_t hi = body.hi == 0 ? K : body.hi, lo = body.lo;
  const auto units = static_cast<std::int64_t>(tiles * blocks * chunks);
  // The vector path: 32-byte rows of L columns whose offsets off[0 .. L) span
  // L rows (the AAPC's (j|i) -> (j|i xor j): rows r .. r + L - 1), L = 32 / word size.
  // In cache (2^20 u32 words, one core) 0.72 -> 2.66 G words/s; on both cores
  // 2^26 u32 0.62 -> 0.80 of memcpy, 2^25 u64 0.68 -> 0.76 (bench/compare_builds.sh).
  constexpr unsigned lane_bits = words_bits(32, sizeof(Word)), lane_count = 1u << lane_bits;
  std::uint64_t lane_offsets[lane_bits] = {};
  for (unsigned b = 0; b < lane_bits && bit(b) < row; ++b) lane_offsets[b] = off[bit(b)];
  const XorCosets S = xor_cosets_of(lane_offsets, lane_bits);
  unsigned col_of[lane_count] = {};
  for (unsigned k = 0; k < lane_count; ++k) col_of[S.coords[k]] = k;
  // 16-byte words already swap 16 bytes at a time: by pairs of lanes they measured
  // slower (2^24 c128: 0.78 -> 0.68 of memcpy), so they stay word by word.
  const bool lanes = (sizeof(Word) == 4 || sizeof(Word) == 8) && have_avx2() && chunk >= lane_count &&
                     S.dims == lane_bits;
  // Dynamic regions (launch.hpp): 2^28 u32 0.82 -> 0.88 of memcpy, 0.54 -> 0.59 beside a
  // busy loop. A routing cycle stays static: an AAPC's many small cycles ran slower so.
  const int per_chunk = dynamic_chunk(static_cast<std::uint64_t>(units), region(cb));
#pragma omp parallel for schedule(dynamic, per_chunk) if (total >= kParallelThreshold) num_threads(team_size())
  for (std::int64_t u = 0; u < units; ++u) {
    const std::uint64_t h = static_cast<std::uint64_t>(u) % chunks, rest = static_cast<std::uint64_t>(u) / chunks;
    const std::uint64_t B = rest % blocks, T = rest / blocks;
    const std::uint64_t base = c ^ map.node_part((T << t) | (h << cb));
    // The partner block is B xor (base >> beta): the lower block of a pair does the swaps.
    if (((B << beta) ^ base) >> beta < B) continue;
    Word* cols = body.mem + T * tile_words + (h << cb);
    const std::uint64_t first = std::max(B << beta, lo), last = std::min((B + 1) << beta, std::min(hi, K));
#if defined(__x86_64__) || defined(__i386__)
    if (lanes && first == B << beta && last == (B + 1) << beta) {
      align_block_lanes(cols, t, S, off.data(), col_of, base, B, beta, chunk);
      continue;
    }
#endif
    for (std::uint64_t i = first; i < last; ++i) {
      Word* r = cols + (i << t);
      for (std::uint64_t k = 0; k < chunk; ++k) {
        const std::uint64_t p = i ^ base ^ off[k];
        if (i < p) swap_words(r[k], cols[(p << t) + k]);
      }
    }
  }
}

}  // namespace hcube::kernels::cpu

// The store phase of the fused pass as SIMD block transposes. When the
// destination's lowest L words (L = 16 bytes / word: 4 u32, 2 u64) come from
// L different source runs and the source's lowest L words go to L different
// destination runs (a transpose, a bit reversal: every permutation that moves
// the low bits away), an L x L block of the tile is one 16-byte load from each
// of L source rows, an in-register transpose, and one 16-byte store into each
// of L destination runs: about one instruction a word instead of the scalar
// gather's three (the in-register step of Carter and Gatlin's COBRA).
#pragma once

#include <cstdint>

#include "hcube/host/bits.hpp"
#include "hcube/kernels/permute.hpp"
#include "hcube/kernels/cpu/stream.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hcube::kernels::cpu {

// Where the block transpose applies, found once per launch from the tables.
struct LaneTranspose {
  bool usable = false;
  unsigned lane_bits = 0;       // log2 L
  std::uint64_t run_flip[2]{};  // destination run index bit whose from_run is tile bit e (e < lane_bits)
  std::uint64_t row_bit[2]{};   // from_low[2^e]: the tile (source row) bit of destination word 2^e
  // The L destination runs lie a multiple of 4 KiB apart (a bit reversal's lie
  // 2^(q/2) words apart): streaming stores into them, between loads from the
  // tile buffer, stall on the processor's 4 KiB address aliasing, so the block
  // is transposed into a small staging area and each run streamed out whole
  // (2^26 u32 words: 0.083 s -> 0.040 s).
  bool stage = false;
};

template <class Word>
LaneTranspose plan_lane_transpose(const TilingView& v) {
  LaneTranspose p;
#if defined(__SSE2__)
  if constexpr (sizeof(Word) == 4 || sizeof(Word) == 8) {
    p.lane_bits = sizeof(Word) == 4 ? 2 : 1;
    if (v.run_bits < p.lane_bits) return p;
    for (unsigned e = 0; e < p.lane_bits; ++e) {
      p.row_bit[e] = v.from_low()[bit(e)];
      // The low destination words come from other rows: not from the source's own low bits.
      if (p.row_bit[e] < bit(p.lane_bits)) return p;
      bool found = false;
      for (unsigned k = 0; k < v.tile_bits - v.run_bits && !found; ++k)
        if (v.from_run()[bit(k)] == bit(e)) {
          p.run_flip[e] = bit(k);
          found = true;
        }
      if (!found) return p;
      if ((v.dst_run()[p.run_flip[e]] * sizeof(Word)) % 4096 == 0) p.stage = true;
    }
    p.usable = true;
  }
#endif
  return p;
}

#if defined(__SSE2__)
// Writes one 16-byte vector: a streaming store for data larger than the caches.
inline void put(void* dst, __m128i x, bool stream) {
  if (stream)
    _mm_stream_si128(static_cast<__m128i*>(dst), x);
  else
    _mm_store_si128(static_cast<__m128i*>(dst), x);
}
#endif

// The destination runs of one tile written L x L block by block; at(t) is
// where the tile's word t (in source order) is read: the tile buffer, or the
// source itself when the tile's source runs lie close together (the L1 cache
// then holds them as the buffer would, without the copy). The destination is 16-byte aligned (runs of at
// least L words from an aligned array); `staging` holds L runs.
template <class TileBody, class Source>
void store_tile_transposed(const TileBody& body, const LaneTranspose& p, const Source& at,
                           std::uint64_t dst_base, bool stream, typename TileBody::word_type* staging) {
#if defined(__SSE2__)
  const TilingView& v = body.view;
  const std::uint64_t runs = v.runs(), run_words = v.run_words(), L = bit(p.lane_bits);
  const std::uint64_t flips = p.run_flip[0] | (p.lane_bits > 1 ? p.run_flip[1] : 0);
  constexpr std::size_t wb = sizeof(typename TileBody::word_type);
  char* stage = reinterpret_cast<char*>(staging);
  for (std::uint64_t r = 0; r < runs; ++r) {
    if (r & flips) continue;  // r is the first of its L runs
    const std::uint64_t from = v.from_run()[r];
    if (p.lane_bits == 2) {
      char* o0 = reinterpret_cast<char*>(body.dst_run(dst_base, r));
      char* o1 = reinterpret_cast<char*>(body.dst_run(dst_base, r | p.run_flip[0]));
      char* o2 = reinterpret_cast<char*>(body.dst_run(dst_base, r | p.run_flip[1]));
      char* o3 = reinterpret_cast<char*>(body.dst_run(dst_base, r | p.run_flip[0] | p.run_flip[1]));
      const bool staged = stream && p.stage;
      char* d0 = staged ? stage : o0;
      char* d1 = staged ? stage + run_words * wb : o1;
      char* d2 = staged ? stage + 2 * run_words * wb : o2;
      char* d3 = staged ? stage + 3 * run_words * wb : o3;
      const bool stream_here = stream && !staged;
      const std::uint64_t a = p.row_bit[0], c = p.row_bit[1];
      for (std::uint64_t k = 0; k < run_words; k += L) {
        const std::uint64_t base = from | v.from_low()[k];
        const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at(base)));
        const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at(base | a)));
        const __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at(base | c)));
        const __m128i x3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at(base | a | c)));
        // Lane e of x_i is word 4k+i of destination run e: a 4 x 4 transpose.
        const __m128i t0 = _mm_unpacklo_epi32(x0, x1), t1 = _mm_unpackhi_epi32(x0, x1);
        const __m128i t2 = _mm_unpacklo_epi32(x2, x3), t3 = _mm_unpackhi_epi32(x2, x3);
        put(d0 + k * wb, _mm_unpacklo_epi64(t0, t2), stream_here);
        put(d1 + k * wb, _mm_unpackhi_epi64(t0, t2), stream_here);
        put(d2 + k * wb, _mm_unpacklo_epi64(t1, t3), stream_here);
        put(d3 + k * wb, _mm_unpackhi_epi64(t1, t3), stream_here);
      }
      if (staged) {
        stream_copy(o0, d0, run_words * wb);
        stream_copy(o1, d1, run_words * wb);
        stream_copy(o2, d2, run_words * wb);
        stream_copy(o3, d3, run_words * wb);
      }
    } else {
      char* d0 = reinterpret_cast<char*>(body.dst_run(dst_base, r));
      char* d1 = reinterpret_cast<char*>(body.dst_run(dst_base, r | p.run_flip[0]));
      const std::uint64_t a = p.row_bit[0];
      for (std::uint64_t k = 0; k < run_words; k += L) {
        const std::uint64_t base = from | v.from_low()[k];
        const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at(base)));
        const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at(base | a)));
        put(d0 + k * wb, _mm_unpacklo_epi64(x0, x1), stream);
        put(d1 + k * wb, _mm_unpackhi_epi64(x0, x1), stream);
      }
    }
  }
#else
  (void)body, (void)p, (void)at, (void)dst_base, (void)stream, (void)staging;
#endif
}

}  // namespace hcube::kernels::cpu

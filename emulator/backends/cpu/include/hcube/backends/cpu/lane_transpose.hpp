// The store phase of the fused pass as SIMD block transposes. When the
// destination's lowest L words (L = vector bytes / word: 4 u32 or 2 u64 in 16
// bytes; 8 u32, 4 u64 or 2 16-byte words in 32 with AVX2) come from L different source runs and
// the source's lowest L words go to L different destination runs (a
// transpose, a bit reversal: every permutation that moves the low bits away),
// an L x L block of the tile is one vector load from each of L source rows, an
// in-register transpose, and one vector store into each of L destination
// runs: about one instruction a word instead of the scalar gather's three (the
// in-register step of Carter and Gatlin's COBRA).
#pragma once

#include <cstdint>

#include "hcube/core/bits.hpp"
#include "hcube/kernels/permute.hpp"
#include "hcube/backends/cpu/stream.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hcube::kernels::cpu {

// Where the block transpose applies, found once per launch from the tables.
struct LaneTranspose {
  bool usable = false;
  unsigned lane_bits = 0;       // log2 L
  std::uint64_t run_flip[3]{};  // destination run index bit whose from_run is tile bit e (e < lane_bits)
  std::uint64_t row_bit[3]{};   // from_low[2^e]: the tile (source row) bit of destination word 2^e
  // The L destination runs lie a multiple of 4 KiB apart (a bit reversal's lie
  // 2^(q/2) words apart): streaming stores into them, between loads from the
  // tile buffer, stall on the processor's 4 KiB address aliasing, so the block
  // is transposed into a small staging area and each run streamed out whole
  // (2^26 u32 words: 0.083 s -> 0.040 s).
  bool stage = false;
};

// The L x L block transpose for L = 2^lane_bits, if the tables allow it.
inline LaneTranspose plan_lanes(const TilingView& v, unsigned lane_bits, std::size_t word_bytes) {
  LaneTranspose p;
  p.lane_bits = lane_bits;
  if (v.run_bits < lane_bits) return p;
  for (unsigned e = 0; e < lane_bits; ++e) {
    p.row_bit[e] = v.from_low()[bit(e)];
    // The low destination words come from other rows: not from the source's own low bits.
    if (p.row_bit[e] < bit(lane_bits)) return p;
    bool found = false;
    for (unsigned k = 0; k < v.tile_bits - v.run_bits && !found; ++k)
      if (v.from_run()[bit(k)] == bit(e)) {
        p.run_flip[e] = bit(k);
        found = true;
      }
    if (!found) return p;
    if ((v.dst_run()[p.run_flip[e]] * word_bytes) % 4096 == 0) p.stage = true;
  }
  p.usable = true;
  return p;
}

// The widest block the word size, the processor, the tables and the
// destination's alignment (its vector stores are aligned) allow: 32-byte
// blocks with AVX2 (8 x 8 u32, 4 x 4 u64, 2 x 2 16-byte words), else 16-byte
// SSE2 blocks (4 x 4 u32, 2 x 2 u64; 16-byte words take the gather).
template <class Word>
LaneTranspose plan_lane_transpose(const TilingView& v, const void* dst) {
  const auto address = reinterpret_cast<std::uintptr_t>(dst);
#if defined(__SSE2__)
  if (address % 16 != 0) return LaneTranspose{};
  if constexpr (sizeof(Word) == 4 || sizeof(Word) == 8 || sizeof(Word) == 16) {
    constexpr unsigned narrow = words_bits(16, sizeof(Word));
    if (have_avx2() && address % 32 == 0) {
      const LaneTranspose wide = plan_lanes(v, words_bits(32, sizeof(Word)), sizeof(Word));
      if (wide.usable) return wide;
    }
    if constexpr (narrow > 0) return plan_lanes(v, narrow, sizeof(Word));
  }
#endif
  (void)v, (void)address;
  return LaneTranspose{};
}

#if defined(__x86_64__) || defined(__i386__)
// In-register transposes of L rows of 32 bytes: on return x[e] holds word e of
// every input row, in row order (8 x 8 u32: 24 shuffles; 4 x 4 u64: 8;
// 2 x 2 16-byte words: 2).
__attribute__((target("avx2"))) inline void transpose_rows(__m256i (&x)[8]) {
  __m256i t[8], u[8];
  for (unsigned i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_epi32(x[i], x[i + 1]);
    t[i + 1] = _mm256_unpackhi_epi32(x[i], x[i + 1]);
  }
  for (unsigned i = 0; i < 8; i += 4) {
    u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);
    u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
    u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
    u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (unsigned e = 0; e < 4; ++e) {
    x[e] = _mm256_permute2x128_si256(u[e], u[e + 4], 0x20);
    x[e + 4] = _mm256_permute2x128_si256(u[e], u[e + 4], 0x31);
  }
}
__attribute__((target("avx2"))) inline void transpose_rows(__m256i (&x)[2]) {
  const __m256i t0 = x[0];
  x[0] = _mm256_permute2x128_si256(t0, x[1], 0x20);
  x[1] = _mm256_permute2x128_si256(t0, x[1], 0x31);
}
__attribute__((target("avx2"))) inline void transpose_rows(__m256i (&x)[4]) {
  const __m256i t0 = _mm256_unpacklo_epi64(x[0], x[1]), t1 = _mm256_unpackhi_epi64(x[0], x[1]);
  const __m256i t2 = _mm256_unpacklo_epi64(x[2], x[3]), t3 = _mm256_unpackhi_epi64(x[2], x[3]);
  x[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
  x[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
  x[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
  x[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

// The 32-byte block transpose (AVX2), L = 32 / word size: L loads of 32
// bytes, the shuffles above, L stores, for L x L words; otherwise as
// store_tile_transposed below.
template <class TileBody, class Source>
__attribute__((target("avx2"))) void store_tile_transposed_avx2(const TileBody& body, const LaneTranspose& p,
                                                               const Source& at, std::uint64_t dst_base, bool stream,
                                                               char* stage) {
  const TilingView& v = body.view;
  constexpr std::size_t wb = sizeof(typename TileBody::word_type);
  constexpr unsigned L = 32 / wb;
  const std::uint64_t runs = v.runs(), run_words = v.run_words(), run_bytes = run_words * wb;
  // The run (or tile row) offset of lane e: the lane bits of e select run_flip / row_bit entries.
  const auto lane_offset = [&](unsigned e, const std::uint64_t* per_bit) {
    std::uint64_t offset = 0;
    for (unsigned b = 0; b < p.lane_bits; ++b)
      if ((e >> b) & 1u) offset |= per_bit[b];
    return offset;
  };
  const std::uint64_t flips = lane_offset(L - 1, p.run_flip);
  std::uint64_t rows[L];
  for (unsigned i = 0; i < L; ++i) rows[i] = lane_offset(i, p.row_bit);
  const bool staged = stream && p.stage, stream_here = stream && !staged;
  for (std::uint64_t r = 0; r < runs; ++r) {
    if (r & flips) continue;  // r is the first of its L runs
    const std::uint64_t from = v.from_run()[r];
    char* out[L];
    char* to[L];
    for (unsigned e = 0; e < L; ++e) {
      out[e] = reinterpret_cast<char*>(body.dst_run(dst_base, r | lane_offset(e, p.run_flip)));
      to[e] = staged ? stage + e * run_bytes : out[e];
    }
    for (std::uint64_t k = 0; k < run_words; k += L) {
      const std::uint64_t base = from | v.from_low()[k];
      __m256i x[L];
      for (unsigned i = 0; i < L; ++i) x[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at(base | rows[i])));
      transpose_rows(x);  // x[e]: words k .. k + L - 1 of destination run e
      for (unsigned e = 0; e < L; ++e) {
        auto* d = reinterpret_cast<__m256i*>(to[e] + k * wb);
        if (stream_here)
          _mm256_stream_si256(d, x[e]);
        else
          _mm256_storeu_si256(d, x[e]);
      }
    }
    if (staged)
      for (unsigned e = 0; e < L; ++e) stream_copy(out[e], to[e], run_bytes);
  }
}
#endif

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
// where the tile's word t (in source order) lies in the tile buffer (whose rows
// are padded: launch.hpp). The destination is 16-byte aligned (runs of at
// least L words from an aligned array); `staging` holds L runs.
template <class TileBody, class Source>
void store_tile_transposed(const TileBody& body, const LaneTranspose& p, const Source& at,
                           std::uint64_t dst_base, bool stream, typename TileBody::word_type* staging) {
#if defined(__x86_64__) || defined(__i386__)
  constexpr std::size_t word_bytes = sizeof(typename TileBody::word_type);
  if constexpr (word_bytes == 4 || word_bytes == 8 || word_bytes == 16) {
    if (p.lane_bits == words_bits(32, word_bytes))  // 32-byte blocks
      return store_tile_transposed_avx2(body, p, at, dst_base, stream, reinterpret_cast<char*>(staging));
  }
#endif
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

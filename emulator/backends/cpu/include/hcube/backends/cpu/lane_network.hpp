// The store phase of the fused pass for any permutation, as SIMD blocks: where
// the block transpose (lane_transpose.hpp) does not apply -- a random
// permutation sends some of the source's lowest bits to the destination's
// lowest bits, or keeps them -- an L x L block (L = 32 bytes / word) is still
// L vector loads and L vector stores: the 2 log2 L index bits of the block
// (the source's lane bits and the bits that become the destination's lane
// bits, filled up with others) are permuted in registers by swap stages, each
// exchanging one lane bit with one register bit (two lane permutes and two
// blends a register pair), then one lane permute puts the lane bits in
// place; the register bits become the stores' addresses.
#pragma once

#include <algorithm>
#include <cstdint>

#include "hcube/core/bits.hpp"
#include "hcube/backends/cpu/stream.hpp"
#include "hcube/kernels/permute.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hcube::kernels::cpu {

// The block's plan, found once per launch from the tables. Positions are
// single bits of a tile word index (the source side) or of a destination tile
// word index (run << run_bits | word; the destination side).
struct LaneNetwork {
  bool usable = false;
  unsigned lane_bits = 0;                 // log2 L
  std::uint64_t in_bit[3]{};              // register bit j's source position
  std::uint64_t out_bit[3]{};             // register bit j's destination position, after the stages
  unsigned stages = 0;                    // swap stage s exchanges lane bit swap_lane[s] with register bit swap_reg[s]
  unsigned swap_lane[3]{}, swap_reg[3]{};
  std::uint32_t final_index[8]{};         // the last lane permute, in 32-bit units: out[c] = in[final_index[c]]
  bool final_identity = true;
  std::uint64_t block_dst_mask = 0;       // destination positions of the block's bits
};

// The plan for L = 2^lane_bits lanes of `word_bytes` words, if the tables allow it
// (runs of at least L words on both sides).
inline LaneNetwork plan_lane_network(const TilingView& v, unsigned lane_bits, std::size_t word_bytes) {
  LaneNetwork p;
  p.lane_bits = lane_bits;
  const unsigned b = v.run_bits, T = v.tile_bits;
  if (lane_bits == 0 || b < lane_bits || T < 2 * lane_bits) return p;
  // dst_of[x]: the destination position (bit index) of tile bit x.
  unsigned dst_of[64]{};
  for (unsigned e = 0; e < b; ++e) dst_of[__builtin_ctzll(v.from_low()[bit(e)])] = e;
  for (unsigned k = 0; k < T - b; ++k) dst_of[__builtin_ctzll(v.from_run()[bit(k)])] = b + k;
  // The register bits: the tile bits that become destination lane bits and are
  // not source lane bits, then others, those landing lowest first.
  unsigned reg_src[3]{}, regs = 0;
  for (unsigned x = lane_bits; x < T && regs < lane_bits; ++x)
    if (dst_of[x] < lane_bits) reg_src[regs++] = x;
  while (regs < lane_bits) {
    unsigned best = 64;
    for (unsigned x = lane_bits; x < T; ++x) {
      if (dst_of[x] < lane_bits || std::find(reg_src, reg_src + regs, x) != reg_src + regs) continue;
      if (best == 64 || dst_of[x] < dst_of[best]) best = x;
    }
    reg_src[regs++] = best;
  }
  // What each slot holds, as a tile bit: lane bit i holds tile bit i, register bit j tile bit reg_src[j].
  unsigned lane_holds[3]{}, reg_holds[3]{};
  for (unsigned i = 0; i < lane_bits; ++i) {
    lane_holds[i] = i;
    reg_holds[i] = reg_src[i];
    p.in_bit[i] = bit(reg_src[i]);
  }
  // Swap each lane bit bound for a register with a register bit bound for a lane.
  unsigned j = 0;
  for (unsigned i = 0; i < lane_bits; ++i) {
    if (dst_of[lane_holds[i]] < lane_bits) continue;
    while (dst_of[reg_holds[j]] >= lane_bits) ++j;
    p.swap_lane[p.stages] = i;
    p.swap_reg[p.stages] = j;
    ++p.stages;
    std::swap(lane_holds[i], reg_holds[j]);
  }
  for (unsigned i = 0; i < lane_bits; ++i) p.out_bit[i] = bit(dst_of[reg_holds[i]]);
  // The final lane permute: destination lane l' takes lane l whose bit i is bit dst_of[lane_holds[i]] of l'.
  const unsigned per = static_cast<unsigned>(word_bytes / 4), L = 1u << lane_bits;
  for (unsigned to = 0; to < L; ++to) {
    unsigned from = 0;
    for (unsigned i = 0; i < lane_bits; ++i)
      if ((to >> dst_of[lane_holds[i]]) & 1u) from |= 1u << i;
    for (unsigned c = 0; c < per; ++c) {
      p.final_index[to * per + c] = from * per + c;
      p.final_identity = p.final_identity && from == to;
    }
  }
  p.block_dst_mask = low_mask(lane_bits) | p.out_bit[0] | (lane_bits > 1 ? p.out_bit[1] : 0) |
                     (lane_bits > 2 ? p.out_bit[2] : 0);
  p.usable = true;
  return p;
}

// With AVX2, 32-byte blocks of 4-, 8- or 16-byte words whose destination is 32-byte aligned.
template <class Word>
LaneNetwork plan_lane_network(const TilingView& v, const void* dst) {
#if defined(__x86_64__) || defined(__i386__)
  if constexpr (sizeof(Word) == 4 || sizeof(Word) == 8 || sizeof(Word) == 16) {
    if (have_avx2() && reinterpret_cast<std::uintptr_t>(dst) % 32 == 0)
      return plan_lane_network(v, words_bits(32, sizeof(Word)), sizeof(Word));
  }
#endif
  (void)v, (void)dst;
  return LaneNetwork{};
}

#if defined(__x86_64__) || defined(__i386__)
// The destination words of one tile, block by block in destination order;
// at(t) is where tile word t lies in the tile buffer.
// Streamed, the blocks of one group of destination runs (the runs a block's
// stores reach) go through `stage` (that many runs) and each run is streamed
// out whole: stores into up to L runs a multiple of 4 KiB apart, between loads
// from the tile buffer, stall on 4 KiB address aliasing (as lane_transpose.hpp's).
template <class TileBody, class Source>
__attribute__((target("avx2"))) void store_tile_network(const TileBody& body, const LaneNetwork& p, const Source& at,
                                                        std::uint64_t dst_base, bool stream, char* stage) {
  const TilingView& v = body.view;
  constexpr std::size_t wb = sizeof(typename TileBody::word_type);
  constexpr unsigned L = 32 / wb;
  const unsigned b = v.run_bits;
  const std::uint64_t run_mask = v.run_words() - 1;
  const auto offset = [](unsigned g, const std::uint64_t* per_bit, unsigned bits) {
    std::uint64_t o = 0;
    for (unsigned k = 0; k < bits; ++k)
      if ((g >> k) & 1u) o |= per_bit[k];
    return o;
  };
  std::uint64_t in[L], out[L];
  for (unsigned g = 0; g < L; ++g) {
    in[g] = offset(g, p.in_bit, p.lane_bits);
    out[g] = offset(g, p.out_bit, p.lane_bits);
  }
  // The group's runs: the register bits that land in other runs; register g's staged row.
  std::uint64_t group_bits[3]{}, row_of[L]{};
  unsigned group = 0;
  for (unsigned k = 0; k < p.lane_bits; ++k)
    if (p.out_bit[k] >> b) group_bits[group++] = p.out_bit[k] >> b;
  for (unsigned g = 0; g < L; ++g)
    for (unsigned k = 0; k < group; ++k)
      if ((out[g] >> b) & group_bits[k]) row_of[g] |= 1u << k;
  const std::uint64_t run_bytes = v.run_words() * wb;
  const auto flush = [&](std::uint64_t first_run) {
    for (unsigned i = 0; i < (1u << group); ++i)
      stream_copy(body.dst_run(dst_base, first_run | offset(i, group_bits, group)), stage + i * run_bytes, run_bytes);
  };
  // Stage s: lanes exchanged with the lanes 2^swap_lane[s] words away, and the blend taking those lanes.
  __m256i flip[3], take[3];
  const unsigned per = static_cast<unsigned>(wb / 4);
  for (unsigned s = 0; s < p.stages; ++s) {
    alignas(32) std::uint32_t idx[8], mask[8];
    const unsigned stride = per << p.swap_lane[s];
    for (unsigned c = 0; c < 8; ++c) {
      idx[c] = c ^ stride;
      mask[c] = (c & stride) ? ~0u : 0u;
    }
    flip[s] = _mm256_load_si256(reinterpret_cast<const __m256i*>(idx));
    take[s] = _mm256_load_si256(reinterpret_cast<const __m256i*>(mask));
  }
  alignas(32) std::uint32_t fidx[8];
  for (unsigned c = 0; c < 8; ++c) fidx[c] = p.final_index[c];
  const __m256i final_index = _mm256_load_si256(reinterpret_cast<const __m256i*>(fidx));
  const std::uint64_t tile_words = v.tile_words(), block = p.block_dst_mask;
  // u runs over the destination words with the block's bits clear, in order:
  // a group's blocks one after another.
  std::uint64_t staged_run = ~std::uint64_t{0};
  for (std::uint64_t u = 0; u < tile_words; u = ((u | block) + 1) & ~block) {
    if (stream && (u >> b) != staged_run) {
      if (staged_run != ~std::uint64_t{0}) flush(staged_run);
      staged_run = u >> b;
    }
    const std::uint64_t from = v.from_run()[u >> b] | v.from_low()[u & run_mask];
    __m256i x[L];
    for (unsigned g = 0; g < L; ++g) x[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at(from | in[g])));
    for (unsigned s = 0; s < p.stages; ++s) {
      const unsigned r = 1u << p.swap_reg[s];
      for (unsigned g = 0; g < L; ++g) {
        if (g & r) continue;
        const __m256i lo = x[g], hi = x[g | r];
        x[g] = _mm256_blendv_epi8(lo, _mm256_permutevar8x32_epi32(hi, flip[s]), take[s]);
        x[g | r] = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, flip[s]), hi, take[s]);
      }
    }
    for (unsigned g = 0; g < L; ++g) {
      const __m256i y = p.final_identity ? x[g] : _mm256_permutevar8x32_epi32(x[g], final_index);
      const std::uint64_t w = u | out[g];
      if (stream)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(stage + row_of[g] * run_bytes + (w & run_mask) * wb), y);
      else
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(body.dst_run(dst_base, w >> b) + (w & run_mask)), y);
    }
  }
  if (stream && staged_run != ~std::uint64_t{0}) flush(staged_run);
}
#endif

}  // namespace hcube::kernels::cpu

// The CUDA launcher of an in-place xor alignment, i -> i xor C j xor c, coset
// by coset (host/xor_cosets.hpp): a thread block loads the two row sets of a
// chunk of 2^chunk_bits columns that the map pairs, each row a coalesced run,
// into shared memory and stores them swapped, again row by row. The per-word
// body (AlignXorBody) reads a node's partner row per thread: one 32-byte
// sector a word, about a tenth of the copy bandwidth on an H100. Global
// accesses are 16 bytes a thread (2^26 u32 words: 405 -> 311 us). Nsight
// Compute counts 1.8 times the data written to DRAM with 4- and 16-byte stores
// alike, cause not established: the launcher reaches 0.56-0.61 of the copy.
#pragma once

#include <algorithm>
#include <cstdint>

#include "hcube/core/xor_cosets.hpp"
#include "hcube/kernels/alignment.hpp"
#include "hcube/backends/cuda/launch.cuh"

namespace hcube::kernels::cuda {

// Units a block takes at once: 16 KiB a region whatever the word size. One
// 4 KiB unit of u32 words a block, half of them idle (the upper coset of a
// pair), left each block's fixed latency (decode, two barriers) exposed: 0.26
// of the copy kernel for u32, 0.53 for 16-byte words.
template <class Word>
inline constexpr unsigned kCosetUnitsPerBlock = 16 / sizeof(Word);

template <class Word>
__global__ void align_xor_cosets(AlignXorBody<Word> body, XorCosets plan, std::uint64_t units) {
  constexpr unsigned Q = kCosetUnitsPerBlock<Word>, V = 16 / sizeof(Word);
  extern __shared__ __align__(16) unsigned char coset_shared[];
  // In shared memory: a kernel parameter indexed by lane is serialised by the constant cache.
  __shared__ std::uint64_t element[1u << kMaxCosetChunkBits];
  __shared__ std::uint8_t coords[1u << kMaxCosetChunkBits];
  __shared__ XorCosetUnit unit[Q];
  const unsigned t = body.layout.t, cb = plan.chunk_bits, s = plan.dims;
  const unsigned unit_bits = s + cb, unit_words = 1u << unit_bits, words = Q * unit_words, col_mask = (1u << cb) - 1;
  auto* rows_a = reinterpret_cast<Word*>(coset_shared);
  Word* rows_b = rows_a + words;
  const std::uint64_t K = body.layout.geo.words_per_node(), lo = body.lo, hi = body.hi == 0 ? K : body.hi;
  for (unsigned r = threadIdx.x; r < (1u << s); r += blockDim.x) element[r] = plan.element(r);
  for (unsigned k = threadIdx.x; k < (1u << cb); k += blockDim.x) coords[k] = plan.coords[k];
  for (std::uint64_t u0 = std::uint64_t{blockIdx.x} * Q; u0 < units; u0 += std::uint64_t{gridDim.x} * Q) {
    if (threadIdx.x < Q && u0 + threadIdx.x < units) unit[threadIdx.x] = xor_coset_unit(body, plan, u0 + threadIdx.x);
    __syncthreads();
    const unsigned present = static_cast<unsigned>(units - u0 < Q ? units - u0 : Q) << unit_bits;
    // 16 bytes a thread, V words of one row (2^chunk_bits >= V, rows 16-byte aligned).
    for (unsigned w = threadIdx.x * V; w < present; w += blockDim.x * V) {
      const XorCosetUnit& x = unit[w >> unit_bits];
      const unsigned r = (w & (unit_words - 1)) >> cb, k = w & col_mask;
      Word* cols = body.mem + x.first;
      *reinterpret_cast<uint4*>(rows_a + w) = *reinterpret_cast<const uint4*>(cols + ((x.a ^ element[r]) << t) + k);
      *reinterpret_cast<uint4*>(rows_b + w) = *reinterpret_cast<const uint4*>(cols + ((x.b ^ element[r]) << t) + k);
    }
    __syncthreads();
    for (unsigned w = threadIdx.x * V; w < present; w += blockDim.x * V) {
      const XorCosetUnit& x = unit[w >> unit_bits];
      const unsigned r = (w & (unit_words - 1)) >> cb, k = w & col_mask;
      const Word* to_a = x.pair ? rows_b : rows_a;  // where row set a's new words come from
      const Word* to_b = x.pair ? rows_a : rows_b;
      uint4 va, vb;
      Word* na = reinterpret_cast<Word*>(&va);
      Word* nb = reinterpret_cast<Word*>(&vb);
#pragma unroll
      for (unsigned i = 0; i < V; ++i) {
        const unsigned c = (w & ~(unit_words - 1)) | ((r ^ x.g ^ coords[k + i]) << cb) | (k + i);
        na[i] = to_a[c];
        nb[i] = to_b[c];
      }
      Word* cols = body.mem + x.first;
      const std::uint64_t ra = x.a ^ element[r], rb = x.b ^ element[r];
      if (ra >= lo && ra < hi) *reinterpret_cast<uint4*>(cols + (ra << t) + k) = va;
      if (rb >= lo && rb < hi) *reinterpret_cast<uint4*>(cols + (rb << t) + k) = vb;
    }
    __syncthreads();
  }
}

// The coset launcher where the plan allows it, else the per-word body.
template <class Word>
void launch_align_xor(const AlignXorBody<Word>& body, const XorCosets& plan, cudaStream_t stream = nullptr) {
  const Layout& L = body.layout;
  if (!plan.usable || plan.chunk_bits < kMaxCosetChunkBits || plan.dims >= L.geo.m) {
    launch(L.geo.total_words(), body, stream);
    return;
  }
  const std::uint64_t units = xor_coset_units(L, plan);
  constexpr unsigned Q = kCosetUnitsPerBlock<Word>;
  const std::uint64_t blocks = std::min<std::uint64_t>((units + Q - 1) / Q, kMaxBlocks);
  const std::size_t shared = (std::size_t{2} * Q << (plan.chunk_bits + plan.dims)) * sizeof(Word);
  align_xor_cosets<<<static_cast<unsigned>(blocks), kThreadsPerBlock, shared, stream>>>(body, plan, units);
  check(cudaGetLastError(), "alignment kernel launch");
}

}  // namespace hcube::kernels::cuda

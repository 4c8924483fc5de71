// The CUDA launcher of the fused permutation with 16-byte global accesses: a
// thread loads V = 16 / sizeof(Word) consecutive words of a source run and
// stores V consecutive words of a destination run, gathered from the
// shared-memory tile. Runs are the low run_bits of both indices
// (host/bit_permutation_tiling.hpp), so with 2^run_bits >= V every vector is
// aligned. The tile's tables are copied to shared memory once per block, and
// offsets inside a tile are 32-bit. The one-word-a-thread launcher
// (apply_tiles) ran at about half the copy bandwidth on an H100.
#pragma once

#include <cstdint>

#include "hcube/backends/cuda/launch.cuh"
#include "hcube/kernels/permute.hpp"

namespace hcube::kernels::cuda {

template <class Word>
__global__ void permute_tiles_vectors(BitPermuteTileBody<Word> body) {
  constexpr unsigned V = 16 / sizeof(Word);
  extern __shared__ __align__(16) unsigned char permute_shared[];
  const TilingView& v = body.view;
  const unsigned b = v.run_bits, runs = static_cast<unsigned>(v.runs()), run_words = 1u << b;
  const unsigned words = 1u << v.tile_bits, low = run_words - 1;
  auto* src_run = reinterpret_cast<std::uint64_t*>(permute_shared);
  std::uint64_t* dst_run = src_run + runs;
  auto* from_run = reinterpret_cast<std::uint32_t*>(dst_run + runs);
  std::uint32_t* from_low = from_run + runs;
  // The buffer starts 16-byte aligned after the tables.
  auto* buffer = reinterpret_cast<Word*>(permute_shared + ((16 * runs + 4 * (runs + run_words) + 15) & ~15u));
  for (unsigned r = threadIdx.x; r < runs; r += blockDim.x) {
    src_run[r] = v.src_run()[r];
    dst_run[r] = v.dst_run()[r];
    from_run[r] = static_cast<std::uint32_t>(v.from_run()[r]);
  }
  for (unsigned k = threadIdx.x; k < run_words; k += blockDim.x) from_low[k] = static_cast<std::uint32_t>(v.from_low()[k]);
  __syncthreads();
  const auto slot = [&](unsigned t) { return t + (t >> b); };  // one padding word a run (TilingView::slot)
  for (std::uint64_t o = blockIdx.x; o < v.tiles(); o += gridDim.x) {
    const Word* src = body.src + v.src_base(o);
    for (unsigned t = threadIdx.x * V; t < words; t += blockDim.x * V) {
      const uint4 in = *reinterpret_cast<const uint4*>(src + src_run[t >> b] + (t & low));
      const Word* w = reinterpret_cast<const Word*>(&in);
      for (unsigned i = 0; i < V; ++i) buffer[slot(t + i)] = w[i];
    }
    __syncthreads();
    Word* dst = body.dst + v.dst_base(o);
    for (unsigned t = threadIdx.x * V; t < words; t += blockDim.x * V) {
      const unsigned r = t >> b, k = t & low;
      uint4 out;
      Word* w = reinterpret_cast<Word*>(&out);
      for (unsigned i = 0; i < V; ++i) w[i] = buffer[slot(from_run[r] | from_low[k + i])];
      *reinterpret_cast<uint4*>(dst + dst_run[r] + k) = out;
    }
    __syncthreads();
  }
}

// The vector launcher where runs hold whole 16-byte vectors, else apply_tiles.
template <class Word>
void launch_permute_tiles(const BitPermuteTileBody<Word>& body, cudaStream_t stream = nullptr) {
  constexpr unsigned V = 16 / sizeof(Word);
  const TilingView& v = body.view;
  if constexpr (V == 1) {
    launch_tiles(body, stream);
  } else {
    if (v.run_words() < V) {
      launch_tiles(body, stream);
      return;
    }
    const std::uint64_t blocks = std::min<std::uint64_t>(v.tiles(), kMaxBlocks);
    const std::size_t tables = (16 * v.runs() + 4 * (v.runs() + v.run_words()) + 15) & ~std::uint64_t{15};
    const std::size_t shared = tables + v.buffer_words() * sizeof(Word);
    permute_tiles_vectors<<<static_cast<unsigned>(blocks), kThreadsPerBlock, shared, stream>>>(body);
    check(cudaGetLastError(), "tiled kernel launch");
  }
}

}  // namespace hcube::kernels::cuda

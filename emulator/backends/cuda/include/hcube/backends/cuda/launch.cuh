// The CUDA launcher: one kernel launch runs a body over an index range.
// Consecutive threads take consecutive storage words, i.e. consecutive nodes
// of a subcube tile: a thread block is a subcube of the emulated machine.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "hcube/core/error.hpp"

namespace hcube::kernels::cuda {

inline void check(cudaError_t err, const char* what) {
  // A failed call also leaves its error as the thread's last error: consume it, or the next launch's
  // check(cudaGetLastError()) reports this failure again as its own (a sticky fault stays regardless).
  if (err != cudaSuccess) cudaGetLastError();
  if (err == cudaErrorMemoryAllocation)
    throw OutOfMemory(std::string("CUDA out of memory during ") + what);
  if (err != cudaSuccess) throw Error(std::string("CUDA error during ") + what + ": " + cudaGetErrorString(err));
}

template <class Body>
__global__ void apply_body(Body body, std::uint64_t count) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    body(i);
}

inline constexpr unsigned kThreadsPerBlock = 256;
// Enough blocks to fill any current GPU; the grid-stride loop covers the rest.
inline constexpr std::uint64_t kMaxBlocks = 1u << 20;

template <class Body>
void launch(std::uint64_t count, const Body& body, cudaStream_t stream = nullptr) {
  if (count == 0) return;
  const std::uint64_t blocks = std::min<std::uint64_t>((count + kThreadsPerBlock - 1) / kThreadsPerBlock, kMaxBlocks);
  apply_body<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(body, count);
  check(cudaGetLastError(), "kernel launch");
}

// A tiled body (kernels/permute.hpp): a thread block per tile, the tile buffer
// in shared memory; loads and stores are each coalesced runs of words.
template <class TileBody>
__global__ void apply_tiles(TileBody body) {
  extern __shared__ __align__(16) unsigned char tile_shared[];
  auto* buffer = reinterpret_cast<typename TileBody::word_type*>(tile_shared);
  const auto& v = body.view;
  const std::uint64_t words = v.tile_words(), low = v.run_words() - 1;
  const unsigned b = v.run_bits;
  for (std::uint64_t o = blockIdx.x; o < v.tiles(); o += gridDim.x) {
    const std::uint64_t src = v.src_base(o);
    for (std::uint64_t t = threadIdx.x; t < words; t += blockDim.x) body.load(src, t >> b, t & low, buffer);
    __syncthreads();
    const std::uint64_t dst = v.dst_base(o);
    for (std::uint64_t u = threadIdx.x; u < words; u += blockDim.x) body.store(dst, u >> b, u & low, buffer);
    __syncthreads();
  }
}

template <class TileBody>
void launch_tiles(const TileBody& body, cudaStream_t stream = nullptr) {
  const std::uint64_t blocks = std::min<std::uint64_t>(body.view.tiles(), kMaxBlocks);
  const std::size_t shared = body.view.buffer_words() * sizeof(typename TileBody::word_type);
  apply_tiles<<<static_cast<unsigned>(blocks), kThreadsPerBlock, shared, stream>>>(body);
  check(cudaGetLastError(), "tiled kernel launch");
}

}  // namespace hcube::kernels::cuda

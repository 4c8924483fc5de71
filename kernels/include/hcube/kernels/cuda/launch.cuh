// The CUDA launcher: one kernel launch runs a body over an index range.
// Consecutive threads take consecutive storage words, i.e. consecutive nodes
// of a subcube tile: a thread block is a subcube of the emulated machine.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "hcube/host/error.hpp"

namespace hcube::kernels::cuda {

inline void check(cudaError_t err, const char* what) {
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

}  // namespace hcube::kernels::cuda

// The CUDA backend's buffer and tile sizes (Kokkos keeps a backend's tuning
// beside its launchers; the launchers' own constants, threads per block and
// vector widths, sit in the headers of this folder).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hcube::kernels::cuda::tuning {

// Copy-in/out goes through a staging buffer of this size at most (or one tile).
inline constexpr std::uint64_t kStagingBytes = std::uint64_t{64} << 20;
// The fused pass's tile in a block's shared memory.
inline constexpr std::size_t kSharedTileBytes = 16 * 1024;

}  // namespace hcube::kernels::cuda::tuning

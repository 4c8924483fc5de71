// The CPU backend's memory and tile sizes (Kokkos keeps a backend's tuning
// beside its launchers; the launchers' own constants sit in the headers of
// this folder). docs/performance.md has the measurements behind each.
#pragma once

#include <cstddef>

namespace hcube::kernels::cpu::tuning {

// Storage is aligned for 16-byte words and whole cache lines.
inline constexpr std::size_t kAlignment = 64;
// Buffers of at least this size are aligned to it and advised onto huge pages.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
// The fused pass's tiles: one fits L1 (16 KiB of 32-48), or, where it is written
// by block transposes, L2 (64-128 KiB of 0.5-2 MiB a core): see CpuPolicy::plan_tiles.
inline constexpr std::size_t kL1TileBytes = 16 * 1024;
constexpr std::size_t block_tile_bytes(std::size_t word_bytes) {
  return word_bytes >= 16 ? 64 * 1024 : 128 * 1024;
}

}  // namespace hcube::kernels::cpu::tuning

// The CPU backend's memory and tile sizes (Kokkos keeps a backend's tuning
// beside its launchers; the launchers' own constants sit in the headers of
// this folder). docs/performance.md has the measurements behind each.
#pragma once

#include <cstddef>
#include <cstdint>

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

// Data passes at least this large stream their stores (and prefetch): smaller ones stay in cache.
inline constexpr std::uint64_t kStreamingBytes = std::uint64_t{16} << 20;
// How many source runs ahead the fused passes' copy into the tile buffer prefetches: a
// bit reversal's runs lie in the same few cache sets, so lines fetched a tile ahead
// were evicted before their copy (launch.hpp).
inline constexpr std::uint64_t kPrefetchRuns = 8;
// How many exchanges ahead a routing cycle prefetches its rows (exchange.hpp).
inline constexpr std::uint64_t kPrefetchRows = 2;
// An alignment unit's two regions of rows, together, fit the L2 (alignment.hpp).
inline constexpr std::uint64_t kAlignRegionBytes = 256 * 1024;

// The launchers' settings that `hcube tune` may measure on a host and keep as
// wisdom (emulator/wisdom.hpp names the keys); the defaults are the constants above.
struct Knobs {
  std::uint64_t streaming_bytes = kStreamingBytes;
  std::uint64_t prefetch_runs = kPrefetchRuns;
  std::uint64_t prefetch_rows = kPrefetchRows;
  std::uint64_t align_region_bytes = kAlignRegionBytes;
};

}  // namespace hcube::kernels::cpu::tuning

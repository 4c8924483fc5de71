// The CPU launchers' settings a test runs them under: the defaults and the two
// extremes `hcube tune` may keep as wisdom (wisdom_range), so that a setting
// measured on some host can never change where a word lands.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hcube/backends/cpu/tuning.hpp"

namespace hcube {

inline std::vector<kernels::cpu::tuning::Knobs> launcher_settings() {
  kernels::cpu::tuning::Knobs eager, never;
  // Streams and prefetches at every size, one run or row ahead, the smallest regions.
  eager.streaming_bytes = 1;
  eager.prefetch_runs = 1;
  eager.prefetch_rows = 1;
  eager.align_region_bytes = std::uint64_t{1} << 12;
  // Never streams; the farthest prefetches and the largest regions.
  never.streaming_bytes = std::uint64_t{1} << 62;
  never.prefetch_runs = 64;
  never.prefetch_rows = 64;
  never.align_region_bytes = std::uint64_t{1} << 24;
  return {kernels::cpu::tuning::Knobs{}, eager, never};
}

inline std::string describe(const kernels::cpu::tuning::Knobs& k) {
  return fmt::format("streaming from {} bytes, prefetch {} runs / {} rows ahead, regions of {} bytes", k.streaming_bytes,
                     k.prefetch_runs, k.prefetch_rows, k.align_region_bytes);
}

}  // namespace hcube

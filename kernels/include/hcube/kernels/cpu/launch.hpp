// The host launcher: runs a kernel body over an index range with OpenMP, so
// the CPU backend executes exactly the code the CUDA backend launches.
#pragma once

#include <cstdint>
#include <vector>

namespace hcube::kernels::cpu {

// Below this many indices a parallel region costs more than it saves: on a
// busy 2-core machine a region can wait milliseconds for a descheduled
// thread (an AAPC with d = 12 took 24 s instead of 0.5 s at 2^14).
inline constexpr std::uint64_t kParallelThreshold = 1 << 16;

template <class Body>
void launch(std::uint64_t count, const Body& body) {
  const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static) if (count >= kParallelThreshold)
  for (std::int64_t i = 0; i < n; ++i) body(static_cast<std::uint64_t>(i));
}

// A tiled body (kernels/permute.hpp): each thread owns one tile buffer and runs
// a tile's loads, then its stores.
template <class TileBody>
void launch_tiles(const TileBody& body) {
  using Word = typename TileBody::word_type;
  const auto& v = body.view;
  const std::uint64_t runs = v.runs(), run_words = v.run_words();
  const auto tiles = static_cast<std::int64_t>(v.tiles());
#pragma omp parallel if (v.tiles() * v.tile_words() >= kParallelThreshold)
  {
    std::vector<Word> buffer(v.tile_words());
#pragma omp for schedule(static)
    for (std::int64_t o = 0; o < tiles; ++o) {
      const std::uint64_t src = v.src_base(static_cast<std::uint64_t>(o));
      for (std::uint64_t r = 0; r < runs; ++r)
        for (std::uint64_t k = 0; k < run_words; ++k) body.load(src, r, k, buffer.data());
      const std::uint64_t dst = v.dst_base(static_cast<std::uint64_t>(o));
      for (std::uint64_t r = 0; r < runs; ++r)
        for (std::uint64_t k = 0; k < run_words; ++k) body.store(dst, r, k, buffer.data());
    }
  }
}

}  // namespace hcube::kernels::cpu

// The host launcher: runs a kernel body over an index range with OpenMP, so
// the CPU backend executes exactly the code the CUDA backend launches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hcube/backends/cpu/lane_network.hpp"
#include "hcube/backends/cpu/lane_transpose.hpp"
#include "hcube/backends/cpu/stream.hpp"
#include "hcube/backends/cpu/team.hpp"
#include "hcube/backends/cpu/tuning.hpp"

namespace hcube::kernels::cpu {

// Below this many indices a parallel region costs more than it saves: on a
// busy 2-core machine a region can wait milliseconds for a descheduled
// thread (an AAPC with d = 12 took 24 s instead of 0.5 s at 2^14).
inline constexpr std::uint64_t kParallelThreshold = 1 << 16;

template <class Body>
void launch(std::uint64_t count, const Body& body) {
  const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static) if (count >= kParallelThreshold) num_threads(team_size())
  for (std::int64_t i = 0; i < n; ++i) body(static_cast<std::uint64_t>(i));
}

// The body's values over [0, count) combined by `combine` (associative and
// commutative, `init` its identity): each thread's share, then the shares.
template <class T, class Body, class Combine>
T transform_reduce(std::uint64_t count, const Body& body, T init, const Combine& combine) {
  const auto n = static_cast<std::int64_t>(count);
  T total = init;
#pragma omp parallel if (count >= kParallelThreshold) num_threads(team_size())
  {
    T part = init;
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n; ++i) part = combine(part, body(static_cast<std::uint64_t>(i)));
#pragma omp critical(hcube_transform_reduce)
    total = combine(total, part);
  }
  return total;
}

// Work items handed out dynamically, so that a thread that loses its core on a
// shared host does not hold back a static share: about 1 MiB of data a chunk
// (the hand-out's cost hidden), and at least 16 chunks where there are items enough.
inline constexpr std::uint64_t kDynamicChunkBytes = std::uint64_t{1} << 20;
inline int dynamic_chunk(std::uint64_t items, std::uint64_t item_bytes) {
  const std::uint64_t by_bytes = std::max<std::uint64_t>(1, kDynamicChunkBytes / std::max<std::uint64_t>(1, item_bytes));
  return static_cast<int>(std::min(by_bytes, std::max<std::uint64_t>(1, items / 16)));
}

// A buffered tile's rows lie one cache line further apart than a run: the
// block transposes read a column of the buffer, which with 512-byte rows (a
// 64 or 128 KiB u32 tile) would otherwise fall into 8 of L1's 64 sets.
inline constexpr std::size_t kBufferRowPadBytes = 64;

// Asks for a run's cache lines ahead of its use.
inline void prefetch_run(const void* run, std::size_t bytes) {
  const auto* p = static_cast<const char*>(run);
  for (std::size_t k = 0; k < bytes; k += 64) __builtin_prefetch(p + k, 0, 3);
}

// A tiled body (kernels/permute.hpp): each thread owns one tile buffer, loads a
// tile run by run (plain copies the compiler vectorises), then writes the
// destination runs: as SIMD block transposes when the permutation moves the
// low bits away (lane_transpose.hpp), else gathered from the buffer through
// thread-local 32-bit index tables; with streaming stores when the data is
// larger than the caches. Every tile goes through the buffer: a transpose's
// block transposes read straight from the source measured slower than copying
// 128 KiB tiles first (cpu_backend.cpp, docs/performance.md).
template <class TileBody>
void launch_tiles(const TileBody& body, const tuning::Knobs& knobs) {
  using Word = typename TileBody::word_type;
  const auto& v = body.view;
  const std::uint64_t runs = v.runs(), run_words = v.run_words();
  const auto tiles = static_cast<std::int64_t>(v.tiles());
  const std::size_t run_bytes = run_words * sizeof(Word);
  const bool stream = v.tiles() * v.tile_words() * sizeof(Word) >= knobs.streaming_bytes && run_bytes % 16 == 0;
  const std::uint64_t ahead_runs = knobs.prefetch_runs;
  const LaneTranspose lanes = plan_lane_transpose<Word>(v, body.dst);
  // Where the block transpose does not apply, the general block network (any permutation).
  const LaneNetwork network = lanes.usable ? LaneNetwork{} : plan_lane_network<Word>(v, body.dst);
  // Buffer row r starts at word r * row_words; tile word t lies at slot(t).
  constexpr std::uint64_t pad = kBufferRowPadBytes / sizeof(Word);
  const std::uint64_t row_words = run_words + pad;
  const unsigned b = v.run_bits;
  const auto slot = [b](std::uint64_t t) { return t + (t >> b) * pad; };
  const int chunk = dynamic_chunk(v.tiles(), v.tile_words() * sizeof(Word));
#pragma omp parallel if (v.tiles() * v.tile_words() >= kParallelThreshold) num_threads(team_size())
  {
    // staged: one destination run (the gather), or L of them (the block transpose).
    std::vector<Word> buffer(runs * row_words), staged(run_words * 8);
    // The gather's tables as buffer slots (slot() adds over disjoint bits).
    std::vector<std::uint32_t> from_run(runs), from_low(run_words);
    for (std::uint64_t r = 0; r < runs; ++r) from_run[r] = static_cast<std::uint32_t>(slot(v.from_run()[r]));
    for (std::uint64_t k = 0; k < run_words; ++k) from_low[k] = static_cast<std::uint32_t>(slot(v.from_low()[k]));
    // Dynamic tiles: the 2^28 u32 transpose with a busy loop beside it 0.48 -> 0.64
    // of memcpy, quiet 0.81 -> 0.84 (static halves before).
#pragma omp for schedule(dynamic, chunk)
    for (std::int64_t o = 0; o < tiles; ++o) {
      const std::uint64_t src = v.src_base(static_cast<std::uint64_t>(o));
      const bool ahead = stream && o + 1 < tiles;
      const std::uint64_t next_src = ahead ? v.src_base(static_cast<std::uint64_t>(o + 1)) : 0;
      for (std::uint64_t r = 0; r < runs; ++r) {
        if (stream && (r + ahead_runs < runs || ahead)) {
          const std::uint64_t later = r + ahead_runs;
          prefetch_run(later < runs ? body.src_run(src, later) : body.src_run(next_src, later - runs), run_bytes);
        }
        const Word* s = body.src_run(src, r);
        Word* row = buffer.data() + r * row_words;
        for (std::uint64_t k = 0; k < run_words; ++k) row[k] = s[k];
      }
      const std::uint64_t dst = v.dst_base(static_cast<std::uint64_t>(o));
      if (lanes.usable) {
        const auto* words = reinterpret_cast<const char*>(buffer.data());
        const auto at = [&](std::uint64_t t) { return words + slot(t) * sizeof(Word); };
        store_tile_transposed(body, lanes, at, dst, stream, staged.data());
        continue;
      }
#if defined(__x86_64__) || defined(__i386__)
      if (network.usable) {
        const auto* words = reinterpret_cast<const char*>(buffer.data());
        store_tile_network(body, network, [&](std::uint64_t t) { return words + slot(t) * sizeof(Word); }, dst,
                           stream, reinterpret_cast<char*>(staged.data()));
        continue;
      }
#endif
      for (std::uint64_t r = 0; r < runs; ++r) {
        const Word* column = buffer.data() + from_run[r];
        Word* d = body.dst_run(dst, r);
        Word* out = stream ? staged.data() : d;
        for (std::uint64_t k = 0; k < run_words; ++k) out[k] = column[from_low[k]];
        if (stream) stream_copy(d, out, run_bytes);
      }
    }
    if (stream) stream_fence();
  }
}

}  // namespace hcube::kernels::cpu

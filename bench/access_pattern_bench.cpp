// The memory access patterns of the fused bit reversal alone, without the
// permutation: what a tile of R runs of B bytes, 2^28 / R bytes apart (the
// runs of a 256 MiB bit reversal), costs to read and to write on this machine
// beside sequential reads and writes of the same bytes. It separates what the
// pattern costs from what the kernel adds (docs/performance.md: the limit of
// the fused bit reversal). Both cores, as the kernels run.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "huge_areas.hpp"
#include "hcube/backends/cpu/stream.hpp"

namespace {

constexpr std::size_t kBytes = hcube::bench::kAreaBytes;
using hcube::bench::destination_area;
using hcube::bench::source_area;

// Tile o's run r starts at o * run_bytes + r * (kBytes / runs): consecutive
// tiles continue the same runs, as the fused pass's source-side outer bits do.
struct Tiles {
  std::size_t run_bytes, runs;
  std::size_t tiles() const { return kBytes / (run_bytes * runs); }
  std::size_t at(std::size_t o, std::size_t r) const { return o * run_bytes + r * (kBytes / runs); }
};

__attribute__((target("avx2"))) std::uint64_t read_runs(const Tiles& t, std::size_t prefetch_runs) {
  const char* a = source_area().data();
  std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t o = 0; o < static_cast<std::int64_t>(t.tiles()); ++o) {
    __m256i s = _mm256_setzero_si256();
    for (std::size_t r = 0; r < t.runs; ++r) {
      if (prefetch_runs > 0) {
        const std::size_t later = r + prefetch_runs, o2 = static_cast<std::size_t>(o) + later / t.runs;
        if (o2 < t.tiles())
          for (std::size_t k = 0; k < t.run_bytes; k += 64) __builtin_prefetch(a + t.at(o2, later % t.runs) + k, 0, 3);
      }
      const char* p = a + t.at(static_cast<std::size_t>(o), r);
      for (std::size_t k = 0; k < t.run_bytes; k += 32)
        s = _mm256_add_epi32(s, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + k)));
    }
    sum += static_cast<std::uint64_t>(_mm256_extract_epi32(s, 0));
  }
  return sum;
}

__attribute__((target("avx2"))) void write_runs(const Tiles& t, std::size_t store_bytes) {
  char* b = destination_area().data();
#pragma omp parallel for schedule(static)
  for (std::int64_t o = 0; o < static_cast<std::int64_t>(t.tiles()); ++o) {
    const __m256i v = _mm256_set1_epi32(static_cast<int>(o));
    for (std::size_t r = 0; r < t.runs; ++r) {
      char* p = b + t.at(static_cast<std::size_t>(o), r);
      if (store_bytes == 32)
        for (std::size_t k = 0; k < t.run_bytes; k += 32) _mm256_stream_si256(reinterpret_cast<__m256i*>(p + k), v);
      else
        for (std::size_t k = 0; k < t.run_bytes; k += 16)
          _mm_stream_si128(reinterpret_cast<__m128i*>(p + k), _mm256_castsi256_si128(v));
    }
    hcube::kernels::cpu::stream_fence();
  }
}

bool skip_without_avx2(benchmark::State& state) {
  if (hcube::kernels::cpu::have_avx2()) return false;
  state.SkipWithError("needs AVX2");
  return true;
}

// One run of kBytes per tile: a sequential pass. Args: runs, run bytes, prefetch runs ahead.
void BM_ReadRuns(benchmark::State& state) {
  if (skip_without_avx2(state)) return;
  const Tiles t{static_cast<std::size_t>(state.range(1)), static_cast<std::size_t>(state.range(0))};
  source_area();  // allocated and touched outside the timed loop
  for (auto _ : state) benchmark::DoNotOptimize(read_runs(t, static_cast<std::size_t>(state.range(2))));
  state.SetBytesProcessed(static_cast<std::int64_t>(kBytes * state.iterations()));
}
BENCHMARK(BM_ReadRuns)
    ->ArgNames({"runs", "run_bytes", "prefetch"})
    ->Args({1, 1 << 16, 0})
    ->Args({16, 256, 0})
    ->Args({32, 256, 0})
    ->Args({64, 256, 0})
    ->Args({64, 256, 8})
    ->Args({64, 512, 0})
    ->Args({128, 256, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Streaming stores. Args: runs, run bytes, bytes a store.
void BM_StreamWriteRuns(benchmark::State& state) {
  if (skip_without_avx2(state)) return;
  const Tiles t{static_cast<std::size_t>(state.range(1)), static_cast<std::size_t>(state.range(0))};
  destination_area();
  for (auto _ : state) write_runs(t, static_cast<std::size_t>(state.range(2)));
  state.SetBytesProcessed(static_cast<std::int64_t>(kBytes * state.iterations()));
}
BENCHMARK(BM_StreamWriteRuns)
    ->ArgNames({"runs", "run_bytes", "store_bytes"})
    ->Args({1, 1 << 16, 32})
    ->Args({64, 256, 16})
    ->Args({64, 256, 32})
    ->Args({64, 128, 32})
    ->Args({64, 64, 32})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

using hcube::bench::BM_Memcpy;  // the roofline
BENCHMARK(BM_Memcpy)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

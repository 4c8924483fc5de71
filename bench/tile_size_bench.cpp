// The host launcher's fused pass (backends/cpu/launch.hpp) for two permutations
// at several tile sizes and each word size, beside memcpy of the same data:
// the measurement behind the CPU backend's tile choice (cpu_backend.cpp,
// CpuPolicy::plan_tiles; table in docs/performance.md). On a shared machine
// run it with
//   --benchmark_repetitions=8 --benchmark_enable_random_interleaving=true
// so the sizes are measured in alternation, not minutes apart.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "huge_areas.hpp"
#include "hcube/host/bit_permutation_tiling.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/backends/cpu/launch.hpp"
#include "hcube/kernels/permute.hpp"
#include "hcube/kernels/word.hpp"

namespace {

// Index bit i goes to to[i]: 0, the bit reversal; 1, the rotation by half the
// bits (the transpose of a 2^(bits/2) x 2^(bits - bits/2) matrix stored row
// after row).
std::vector<unsigned> permutation(std::int64_t which, unsigned bits) {
  std::vector<unsigned> to(bits);
  for (unsigned i = 0; i < bits; ++i) to[i] = which == 0 ? bits - 1 - i : (i + bits / 2) % bits;
  return to;
}

// Args: permutation, tile KiB.
template <class Word>
void BM_FusedPass(benchmark::State& state) {
  // The whole 256 MiB area: 2^26 u32, 2^25 u64, 2^24 16-byte words.
  constexpr unsigned kBits = hcube::words_bits(hcube::bench::kAreaBytes, sizeof(Word));
  static_assert(sizeof(Word) << kBits == hcube::bench::kAreaBytes);
  const hcube::BitPermutationTiling plan = hcube::plan_bit_permutation_tiling(
      permutation(state.range(0), kBits),
      hcube::max_tile_bits_for(sizeof(Word), static_cast<std::size_t>(state.range(1)) * 1024));
  const hcube::kernels::BitPermuteTileBody<Word> body{
      reinterpret_cast<const Word*>(hcube::bench::source_area().data()),
      reinterpret_cast<Word*>(hcube::bench::destination_area().data()),
      hcube::kernels::TilingView{plan.table.data(), plan.tile_bits, plan.run_bits, plan.outer_bits}};
  for (auto _ : state) {
    hcube::kernels::cpu::launch_tiles(body, hcube::kernels::cpu::tuning::Knobs{});
    benchmark::DoNotOptimize(body.dst);
  }
  state.counters["run_bytes"] = static_cast<double>(sizeof(Word) << plan.run_bits);
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * hcube::bench::kAreaBytes * state.iterations()));
}
#define HCUBE_TILE_SIZES(Word)                                \
  BENCHMARK_TEMPLATE(BM_FusedPass, Word)                      \
      ->ArgNames({"perm", "tile_kib"})                        \
      ->ArgsProduct({{0, 1}, {16, 32, 64, 128, 256}})         \
      ->UseRealTime()                                         \
      ->Unit(benchmark::kMillisecond)
HCUBE_TILE_SIZES(std::uint32_t);
HCUBE_TILE_SIZES(std::uint64_t);
HCUBE_TILE_SIZES(hcube::kernels::Word16);

using hcube::bench::BM_Memcpy;
BENCHMARK(BM_Memcpy)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

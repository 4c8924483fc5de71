// The host launcher's fused pass (kernels/cpu/launch.hpp) for one permutation
// at several tile sizes, beside memcpy of the same data: the measurement behind
// the CPU backend's tile choice (cpu_backend.cpp, CpuPolicy::plan_tiles; table
// in docs/performance.md). On a shared machine run it with
//   --benchmark_repetitions=8 --benchmark_enable_random_interleaving=true
// so the sizes are measured in alternation, not minutes apart.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "huge_areas.hpp"
#include "hcube/host/bit_permutation_tiling.hpp"
#include "hcube/kernels/cpu/launch.hpp"
#include "hcube/kernels/permute.hpp"

namespace {

using Word = std::uint32_t;
constexpr unsigned kBits = 26;  // 256 MiB of u32
static_assert(sizeof(Word) << kBits == hcube::bench::kAreaBytes);

// Index bit i goes to to[i]: 0, the bit reversal; 1, the transpose of a
// 2^13 x 2^13 matrix stored row after row.
std::vector<unsigned> permutation(std::int64_t which) {
  std::vector<unsigned> to(kBits);
  for (unsigned i = 0; i < kBits; ++i) to[i] = which == 0 ? kBits - 1 - i : (i + kBits / 2) % kBits;
  return to;
}

// Args: permutation, tile KiB.
void BM_FusedPass(benchmark::State& state) {
  const hcube::BitPermutationTiling plan = hcube::plan_bit_permutation_tiling(
      permutation(state.range(0)),
      hcube::max_tile_bits_for(sizeof(Word), static_cast<std::size_t>(state.range(1)) * 1024));
  const hcube::kernels::BitPermuteTileBody<Word> body{
      reinterpret_cast<const Word*>(hcube::bench::source_area().data()),
      reinterpret_cast<Word*>(hcube::bench::destination_area().data()),
      hcube::kernels::TilingView{plan.table.data(), plan.tile_bits, plan.run_bits, plan.outer_bits}};
  for (auto _ : state) {
    hcube::kernels::cpu::launch_tiles(body);
    benchmark::DoNotOptimize(body.dst);
  }
  state.counters["run_bytes"] = static_cast<double>(sizeof(Word) << plan.run_bits);
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * hcube::bench::kAreaBytes * state.iterations()));
}
BENCHMARK(BM_FusedPass)
    ->ArgNames({"perm", "tile_kib"})
    ->ArgsProduct({{0, 1}, {16, 32, 64, 128, 256}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

using hcube::bench::BM_Memcpy;
BENCHMARK(BM_Memcpy)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

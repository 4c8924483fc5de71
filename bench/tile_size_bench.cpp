// The host launcher's fused pass (kernels/cpu/launch.hpp) for one permutation
// at several tile sizes, beside memcpy of the same data: the measurement behind
// the CPU backend's tile choice (cpu_backend.cpp, CpuPolicy::plan_tiles; table
// in docs/performance.md). On a shared machine run it with
//   --benchmark_repetitions=8 --benchmark_enable_random_interleaving=true
// so the sizes are measured in alternation, not minutes apart.
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "hcube/host/bit_permutation_tiling.hpp"
#include "hcube/kernels/cpu/launch.hpp"
#include "hcube/kernels/permute.hpp"

namespace {

using Word = std::uint32_t;
constexpr unsigned kBits = 26;  // 256 MiB of u32
constexpr std::size_t kBytes = sizeof(Word) << kBits;

struct Area {
  std::unique_ptr<Word, decltype(&std::free)> p{
      static_cast<Word*>(std::aligned_alloc(std::size_t{2} << 20, kBytes)), &std::free};
  // On huge pages, as the CPU backend allocates its storage.
  Area() {
    madvise(p.get(), kBytes, MADV_HUGEPAGE);
    std::memset(p.get(), 1, kBytes);
  }
};

Area& source() {
  static Area a;
  return a;
}
Area& destination() {
  static Area a;
  return a;
}

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
      source().p.get(), destination().p.get(),
      hcube::kernels::TilingView{plan.table.data(), plan.tile_bits, plan.run_bits, plan.outer_bits}};
  for (auto _ : state) {
    hcube::kernels::cpu::launch_tiles(body);
    benchmark::DoNotOptimize(destination().p.get());
  }
  state.counters["run_bytes"] = static_cast<double>(sizeof(Word) << plan.run_bits);
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * kBytes * state.iterations()));
}
BENCHMARK(BM_FusedPass)
    ->ArgNames({"perm", "tile_kib"})
    ->ArgsProduct({{0, 1}, {16, 32, 64, 128, 256}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_Memcpy(benchmark::State& state) {
  for (auto _ : state) {
    std::memcpy(destination().p.get(), source().p.get(), kBytes);
    benchmark::DoNotOptimize(destination().p.get());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * kBytes * state.iterations()));
}
BENCHMARK(BM_Memcpy)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

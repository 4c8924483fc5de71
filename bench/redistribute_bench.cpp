// Block-cyclic redistribution on the CPU machine against memcpy of the same
// data: the whole run (pack, one router step a communication step, unpack)
// by each schedule, bytes counted as the kernels read and wrote them.
//
//   build/bench/hcube_bench_redistribute
//
// Arguments: P, K, Q, x, superblocks (N = superblocks x lcm(P, KQ) x).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_support.hpp"
#include "hcube/emulator/redistribute.hpp"

namespace {

using namespace hcube;

Redistribution problem(const benchmark::State& state) {
  Redistribution r{static_cast<std::uint64_t>(state.range(0)), static_cast<std::uint64_t>(state.range(1)),
                   static_cast<std::uint64_t>(state.range(2)), static_cast<std::uint64_t>(state.range(3)), 1};
  r.N = r.x;
  r.N = redistribution_params(r).L * r.x * static_cast<std::uint64_t>(state.range(4));
  return r;
}

void BM_Redistribute(benchmark::State& state, const std::string& schedule) {
  const Redistribution r = problem(state);
  const RedistributionPlacement pl = place_redistribution(r, false);
  Machine mach(pl.machine(ElementType::u32, BackendChoice::cpu));
  std::vector<std::uint32_t> data(r.N);
  for (std::uint64_t g = 0; g < r.N; ++g) data[g] = static_cast<std::uint32_t>(g);
  const std::vector<unsigned char> image = source_image(pl, data.data(), 4);
  const RedistSchedule s = make_redistribution_schedule(r, schedule);
  std::size_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    mach.load(image.data(), image.size());
    mach.reset_counters();
    state.ResumeTiming();
    steps = run_redistribution(mach, pl, s).stats.steps;
  }
  state.SetBytesProcessed(
      static_cast<std::int64_t>((mach.counters().bytes_read + mach.counters().bytes_written) * state.iterations()));
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["data_bytes"] = static_cast<double>(r.N * 4);
}

void BM_Memcpy(benchmark::State& state) { hcube::bench::memcpy_roofline(state, problem(state).N * 4); }

// R_16(18, 6, 78) and R_4(28, 6, 36) from the paper's experiments, 2^20-ish elements.
void sizes(benchmark::internal::Benchmark* b) {
  b->Args({18, 6, 78, 16, 240});  // L = 468 blocks of 16: ~1.8 M elements
  b->Args({28, 6, 36, 4, 1000});  // L = 756 blocks of 4: ~3 M elements
}

BENCHMARK(BM_Memcpy)->Apply(sizes)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Redistribute, Circulant, std::string("circulant"))->Apply(sizes)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Redistribute, Caterpillar, std::string("caterpillar"))->Apply(sizes)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Redistribute, BipartiteGreedy, std::string("bipartite-greedy"))
    ->Apply(sizes)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

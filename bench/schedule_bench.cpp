// How fast schedules are made and checked, by algorithm and d.
//
//   build/bench/hcube_bench_schedule --benchmark_filter=Alg4
//
// Algorithm 4's schedule for d = 20 has 2^19 cycles of 20 exchanges.
#include <benchmark/benchmark.h>

#include "hcube/host/aapc.hpp"

namespace {

using namespace hcube;

void BM_MakeSchedule(benchmark::State& state, AapcAlgorithm alg) {
  const auto d = static_cast<unsigned>(state.range(0));
  std::size_t cycles = 0;
  for (auto _ : state) {
    const Schedule s = make_aapc_schedule(AapcOptions{alg, d, d, d, LineDrawing::diagonal});
    cycles = s.cycles();
    benchmark::DoNotOptimize(s.exchanges());
  }
  state.counters["cycles"] = static_cast<double>(cycles);
}

void BM_CheckAlg4Schedule(benchmark::State& state) {
  const auto d = static_cast<unsigned>(state.range(0));
  const Schedule s = make_aapc_schedule(AapcOptions{AapcAlgorithm::alg4, d, d, d, LineDrawing::diagonal});
  for (auto _ : state) benchmark::DoNotOptimize(check_schedule(s).max_span);
  state.counters["cycles"] = static_cast<double>(s.cycles());
}

BENCHMARK_CAPTURE(BM_MakeSchedule, Alg1, AapcAlgorithm::alg1)->DenseRange(12, 20, 4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MakeSchedule, Alg3, AapcAlgorithm::alg3)->DenseRange(12, 20, 4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MakeSchedule, Alg4, AapcAlgorithm::alg4)->DenseRange(10, 20, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CheckAlg4Schedule)->DenseRange(12, 20, 4)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

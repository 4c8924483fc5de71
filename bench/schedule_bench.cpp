// How fast schedules are made and checked, by algorithm and d.
//
//   build/bench/hcube_bench_schedule --benchmark_filter=Alg4
//
// Algorithm 4's schedule for d = 20 has 2^19 cycles of 20 exchanges.
// Redistribution: the paper's Table 6 sizes (P = Q = 16, K = 4, 8, 12; P = Q =
// 128, K = 32, 64, 96; one superblock of data), the circulant schedule with its
// index sets against the bipartite baselines:
//
//   build/bench/hcube_bench_schedule --benchmark_filter=Redist
#include <benchmark/benchmark.h>

#include <string>
#include <utility>
#include <vector>

#include "hcube/host/aapc.hpp"
#include "hcube/host/block_cyclic.hpp"

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

// The whole schedule (every step's messages and their blocks) for R_1(P, K, P)
// on one superblock; the paper times one processor's share (O(max(P, Q))).
void BM_RedistSchedule(benchmark::State& state, const std::string& name) {
  const auto P = static_cast<std::uint64_t>(state.range(0)), K = static_cast<std::uint64_t>(state.range(1));
  Redistribution r{P, K, P, 1, 1};
  r.N = redistribution_params(r).L;
  std::size_t steps = 0;
  for (auto _ : state) {
    const RedistSchedule s = make_redistribution_schedule(r, name);
    steps = s.steps.size();
    benchmark::DoNotOptimize(s.steps.data());
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["blocks"] = static_cast<double>(r.N);
}
void table6(benchmark::internal::Benchmark* b) {
  for (const auto& [P, K] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {16, 4}, {16, 8}, {16, 12}, {128, 32}, {128, 64}, {128, 96}})
    b->Args({P, K});
}
BENCHMARK_CAPTURE(BM_RedistSchedule, Circulant, std::string("circulant"))->Apply(table6)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RedistSchedule, Caterpillar, std::string("caterpillar"))->Apply(table6)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RedistSchedule, BipartiteStepwise, std::string("bipartite-stepwise"))
    ->Apply(table6)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RedistSchedule, BipartiteGreedy, std::string("bipartite-greedy"))
    ->Apply(table6)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

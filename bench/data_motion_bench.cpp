// The data-motion primitives on the CPU backend from L2-resident to 2 GiB of
// uint32 data, each beside memcpy of the same bytes in the same process:
// one routing cycle, one alignment, the fused transpose, bit reversal and a
// random stable dimension permutation, and the naive gather through a
// precomputed index that a user writes by hand.
//
//   build/bench/hcube_bench_data_motion --benchmark_counters_tabular=true
//
// Compare bytes_per_second with BM_Memcpy's at the same size, never across runs
// (`hcube bench` reports the ratio directly).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "bench_support.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/host/dimension_permutation.hpp"

namespace {

using namespace hcube;

// range(0) = W: 2^W uint32 words (16: 256 KiB, L2-resident; 29: 2 GiB).
void Sizes(benchmark::internal::Benchmark* b) {
  for (int w : {16, 20, 24, 27, 29}) b->Arg(w);
  b->Unit(benchmark::kMillisecond);
}

// n = W/2 processor dimensions, the rest local.
Machine make_machine(const benchmark::State& state) {
  return bench::zeroed_machine(state.range(0) / 2, state.range(0) - state.range(0) / 2);
}

void BM_Memcpy(benchmark::State& state) { bench::memcpy_roofline(state, std::size_t{4} << state.range(0)); }

// One all-port cycle moving half of every node's words (channel width K / 2n).
void BM_RoutingCycle(benchmark::State& state) {
  Machine mach = make_machine(state);
  PortRules rules;
  const Cycle c = half_memory_cycle(mach.geometry(), rules);
  for (auto _ : state) mach.run_cycle(c, rules);
  bench::count_bytes(state, mach);
}

void BM_XorAlignment(benchmark::State& state) {
  Machine mach = make_machine(state);
  bench::xor_alignment(state, mach);
}

void fused(benchmark::State& state, const std::string& name) {
  Machine mach = make_machine(state);
  std::vector<unsigned> to;
  if (name == "random") {
    to.resize(mach.geometry().address_bits());
    std::iota(to.begin(), to.end(), 0u);
    std::shuffle(to.begin(), to.end(), std::mt19937(7));
  } else {
    to = parse_dimension_permutation(name, mach.geometry().n, mach.geometry().m).to;
  }
  for (auto _ : state) mach.permute_address_bits(to);
  bench::count_bytes(state, mach);
}

void BM_FusedTranspose(benchmark::State& state) { fused(state, "transpose"); }
void BM_FusedBitReversal(benchmark::State& state) { fused(state, "bit-reversal"); }
void BM_FusedRandomPermutation(benchmark::State& state) { fused(state, "random"); }

// dst[i] = src[index[i]], the index precomputed: the baseline a user writes by hand.
void BM_GatherBitReversal(benchmark::State& state) {
  const auto w = static_cast<unsigned>(state.range(0));
  const std::uint64_t words = bit(w);
  std::vector<std::uint32_t> src(words, 1), dst(words, 0);
  std::vector<std::uint64_t> index(words);
  for (std::uint64_t i = 0; i < words; ++i) index[i] = reverse_bits(i, w);
  const auto n = static_cast<std::int64_t>(words);
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) dst[static_cast<std::uint64_t>(i)] = src[index[static_cast<std::uint64_t>(i)]];
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * 4 * words * state.iterations()));
}

BENCHMARK(BM_Memcpy)->Apply(Sizes);
BENCHMARK(BM_RoutingCycle)->Apply(Sizes);
BENCHMARK(BM_XorAlignment)->Apply(Sizes);
BENCHMARK(BM_FusedTranspose)->Apply(Sizes);
BENCHMARK(BM_FusedBitReversal)->Apply(Sizes);
BENCHMARK(BM_FusedRandomPermutation)->Apply(Sizes);
BENCHMARK(BM_GatherBitReversal)->Apply(Sizes);

}  // namespace

BENCHMARK_MAIN();

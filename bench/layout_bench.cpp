// Which storage layout? Times the three data-motion kernels on the CPU
// backend for tile widths t = 0 (the user's row-major order) up to t = n (the
// CM's pvar order), beside memcpy of the same bytes in the same process.
//
//   build/bench/hcube_bench_layout --benchmark_counters_tabular=true
//
// Each benchmark reports bytes_per_second of the words it moves; compare them
// with BM_Memcpy's figure from the same run, never across runs.
#include <benchmark/benchmark.h>

#include <vector>

#include "bench_support.hpp"
#include "hcube/emulator/machine.hpp"

namespace {

using namespace hcube;

// 2^24 four-byte words (64 MiB): well beyond the last-level cache.
constexpr unsigned kAddressBits = 24;

// range(0): n (so m = 24 - n); range(1): t.
Machine make_machine(const benchmark::State& state) {
  return bench::zeroed_machine(state.range(0), kAddressBits - state.range(0), state.range(1));
}

void BM_Memcpy(benchmark::State& state) { bench::memcpy_roofline(state, (std::size_t{1} << kAddressBits) * 4); }

// One all-port routing cycle: dimension k exchanges local word k.
void BM_RoutingCycle(benchmark::State& state) {
  Machine mach = make_machine(state);
  Cycle cycle;
  for (unsigned k = 0; k < mach.geometry().n; ++k) cycle.push_back(direct_exchange(k, k));
  for (auto _ : state) mach.run_cycle(cycle);
  bench::count_bytes(state, mach);
}

// The AAPC pre-alignment (j|i) -> (j|i xor j) over min(n, m) bits, in place.
void BM_XorAlignment(benchmark::State& state) {
  Machine mach = make_machine(state);
  bench::xor_alignment(state, mach);
}

// Copy-in from the user's row-major array.
void BM_CopyIn(benchmark::State& state) {
  Machine mach = make_machine(state);
  std::vector<unsigned char> user(mach.bytes(), 3);
  for (auto _ : state) mach.load(user.data(), user.size());
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * mach.bytes() * state.iterations()));
}

void layouts(benchmark::internal::Benchmark* b) {
  for (int n : {8, 12, 16})
    for (int t : {0, 3, 5, 8, 10, 12, 16})
      if (t <= n) b->Args({n, t});
}

BENCHMARK(BM_Memcpy)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingCycle)->Apply(layouts)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_XorAlignment)->Apply(layouts)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CopyIn)->Apply(layouts)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

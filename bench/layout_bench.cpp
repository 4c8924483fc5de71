// Which storage layout? Times the three data-motion kernels on the CPU
// backend for tile widths t = 0 (the user's row-major order) up to t = n (the
// CM's pvar order), beside memcpy of the same bytes in the same process.
//
//   build/bench/hcube_bench_layout --benchmark_counters_tabular=true
//
// Each benchmark reports bytes_per_second of the words it moves; compare them
// with BM_Memcpy's figure from the same run, never across runs.
#include <benchmark/benchmark.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "hcube/emulator/machine.hpp"

namespace {

using namespace hcube;

// 2^24 four-byte words (64 MiB): well beyond the last-level cache.
constexpr unsigned kAddressBits = 24;

// range(0): n (so m = 24 - n); range(1): t.
Machine make_machine(const benchmark::State& state) {
  const auto n = state.range(0), t = state.range(1);
  Machine mach(MachineOptions{n, kAddressBits - n, ElementType::u32, BackendChoice::cpu, t});
  std::vector<unsigned char> zeros(mach.bytes(), 0);
  mach.load(zeros.data(), zeros.size());
  return mach;
}

void BM_Memcpy(benchmark::State& state) {
  const std::size_t bytes = (std::size_t{1} << kAddressBits) * 4;
  std::vector<char> a(bytes, 1), b(bytes, 0);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::DoNotOptimize(b.data());
  }
  // Read and written, as the kernels' bytes are counted.
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * bytes * state.iterations()));
}

// One all-port routing cycle: dimension k exchanges local word k.
void BM_RoutingCycle(benchmark::State& state) {
  Machine mach = make_machine(state);
  Cycle cycle;
  for (unsigned k = 0; k < mach.geometry().n; ++k) cycle.push_back(direct_exchange(k, k));
  for (auto _ : state) mach.run_cycle(cycle);
  state.SetBytesProcessed(static_cast<std::int64_t>(mach.counters().bytes_read + mach.counters().bytes_written));
}

// The AAPC pre-alignment (j|i) -> (j|i xor j) over min(n, m) bits, in place.
void BM_XorAlignment(benchmark::State& state) {
  Machine mach = make_machine(state);
  const unsigned d = std::min(mach.geometry().n, mach.geometry().m);
  std::vector<unsigned> dims(d);
  std::iota(dims.begin(), dims.end(), 0u);
  const AffineMap map = AffineMap::xor_align(mach.geometry(), dims, dims);
  for (auto _ : state) mach.align(map);
  state.SetBytesProcessed(static_cast<std::int64_t>(mach.counters().bytes_read + mach.counters().bytes_written));
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

// A full AAPC (the transpose (j|i) -> (i|j), n = m = d) on the CPU backend:
// Algorithms 1-4 and Edelman's schedule aligned (direct addressing) and
// unaligned (node-dependent addresses, as on the CM-2), alignments included.
// The AAPC paper measured Algorithm 1 at 40 us per element against 62 us for
// Edelman's schedule on the CM-2 and put the gap down to direct vs indirect
// addressing; compare the us_per_element counters of one run.
//
//   build/bench/hcube_bench_aapc --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "bench_support.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/edelman.hpp"

namespace {

using namespace hcube;

enum Variant : int { alg1 = 1, alg2, alg3, alg4, edelman_aligned, edelman_unaligned };

Schedule make(Variant v, unsigned d) {
  if (v == edelman_aligned || v == edelman_unaligned) return make_edelman_schedule(d, d, d, v == edelman_aligned);
  AapcOptions o;
  o.algorithm = static_cast<AapcAlgorithm>(static_cast<int>(v));
  o.d = d;
  return make_aapc_schedule(o);
}

// range(0): the variant; range(1): d.
void BM_Aapc(benchmark::State& state) {
  const auto v = static_cast<Variant>(state.range(0));
  const auto d = static_cast<unsigned>(state.range(1));
  const Schedule s = make(v, d);
  Machine mach = bench::zeroed_machine(d, d);
  const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, mach.geometry(), d);
  for (auto _ : state) run_schedule(mach, s, plan.f, plan.g);
  const double words_per_node = static_cast<double>(mach.geometry().words_per_node());
  // Per element as the paper counts it: the AAPC's time over the K words a node holds.
  state.counters["us_per_element"] =
      benchmark::Counter(1e6 * static_cast<double>(state.iterations()) / words_per_node,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["cycles"] = static_cast<double>(s.cycles());
  bench::count_bytes(state, mach);
  state.SetLabel(v == edelman_aligned     ? "Edelman aligned"
                 : v == edelman_unaligned ? "Edelman unaligned"
                                          : "Algorithm " + std::to_string(static_cast<int>(v)));
}

void Variants(benchmark::internal::Benchmark* b) {
  for (int d : {8, 10, 12})
    for (int v = alg1; v <= edelman_unaligned; ++v) b->Args({v, d});
}

BENCHMARK(BM_Aapc)->Apply(Variants)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

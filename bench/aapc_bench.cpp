// A full AAPC (the transpose (j|i) -> (i|j), n = m = d) on the CPU backend:
// Algorithms 1-4 and Edelman's schedule aligned (direct addressing) and
// unaligned (node-dependent addresses, as on the CM-2), alignments included.
// The AAPC paper measured Algorithm 1 at 40 us per element against 62 us for
// Edelman's schedule on the CM-2 and put the gap down to direct vs indirect
// addressing; compare the us_per_element counters of one run.
//
// BM_AapcPlanOnCallersBuffer: the AapcPlan (Algorithm 4) on a std::vector, as
// a library user runs it: tiled, re-laid out through its scratch (range(1) =
// 1), against the same run on the row-major buffer in place (range(1) = 0).
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
#include "hcube/plans.hpp"

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

// range(0): d; range(1): 1 the plan's execute (tiled), 0 a row-major machine on the same buffer.
void BM_AapcPlanOnCallersBuffer(benchmark::State& state) {
  const auto d = static_cast<long long>(state.range(0));
  AapcPlan::Options o;
  o.schedule.d = d;
  o.target = {ElementType::u32, BackendChoice::cpu};
  AapcPlan plan(o);
  std::vector<std::uint32_t> data(plan.data_bytes() / 4, 1u);
  std::vector<std::uint32_t> scratch(plan.scratch_bytes() / 4 + 1);
  const Scratch room{scratch.data(), plan.scratch_bytes()};
  const bool tiled = state.range(1) != 0;
  // The row-major machine: the caller's buffer as storage (tile_dims 0), in place.
  Machine row_major(MachineOptions{d, d, ElementType::u32, BackendChoice::cpu, 0}, make_cpu_backend(), data.data(),
                    plan.data_bytes(), scratch.data());
  for (auto _ : state) {
    if (tiled)
      plan.execute(data.data(), plan.data_bytes(), room);
    else
      plan.execute(row_major);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(2 * plan.data_bytes()));
  state.SetLabel(tiled ? "tiled, 2 relayout passes" : "row-major in place");
}

BENCHMARK(BM_AapcPlanOnCallersBuffer)->ArgsProduct({{10, 12, 13}, {0, 1}})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

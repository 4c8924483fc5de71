// How batches of routing cycles are launched (--launch): the
// persistent launch's walk (kernels/exchange_cycles.hpp) run on an OpenMP team
// with a barrier between cycles against one launch a cycle, over real
// schedules; persistent and per-cycle runs bit for bit the same on every
// backend, with the launches counted as they happened; CUDA graphs kept,
// replayed and updated.
#include <gtest/gtest.h>

#include <omp.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend_test.hpp"
#include "hcube/core/error.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/edelman.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/backends/cpu/launch.hpp"
#include "hcube/kernels/exchange.hpp"
#include "hcube/kernels/exchange_cycles.hpp"
#include "require.hpp"
#include "test_words.hpp"

namespace hcube {
namespace {

Schedule aapc(AapcAlgorithm algorithm, unsigned d) {
  AapcOptions o;
  o.algorithm = algorithm;
  o.d = d;
  return make_aapc_schedule(o);
}

// The schedules the walk is checked on: every AAPC algorithm, and Edelman's
// table unaligned (node-dependent addresses through offset maps).
std::vector<std::pair<std::string, Schedule>> schedules() {
  std::vector<std::pair<std::string, Schedule>> all;
  for (unsigned d = 2; d <= 5; ++d) {
    for (AapcAlgorithm a : {AapcAlgorithm::alg1, AapcAlgorithm::alg2, AapcAlgorithm::alg3, AapcAlgorithm::alg4})
      all.emplace_back("Algorithm " + std::to_string(static_cast<int>(a)) + ", d = " + std::to_string(d),
                       aapc(a, d));
    all.emplace_back("Edelman unaligned, d = " + std::to_string(d), make_edelman_schedule(d, d, d, false));
  }
  return all;
}


// The schedule's cycles on labelled words: one launch a cycle (the per-word
// body through the host launcher), and one walk by `workers` OpenMP threads
// that wait at a barrier between cycles; the two must agree bit for bit.
template <class Word>
void check_walk(const Schedule& s, unsigned t, int workers, const std::string& what) {
  const Layout layout{s.geometry(), t};
  unsigned bytes = 0;
  const std::vector<std::uint64_t> tables = offset_tables(s.offset_maps, bytes);
  std::vector<std::uint64_t> ends;
  for (std::size_t c = 0; c < s.cycles(); ++c) ends.push_back(s.cycle_begin(c) + s.cycle_size(c) - s.cycle_begin(0));
  const std::vector<Word> start = labelled_words<Word>(layout.geo.total_words());
  std::vector<Word> per_cycle = start, walked = start;
  for (std::size_t c = 0; c < s.cycles(); ++c) {
    const kernels::ExchangeBody<Word> body{per_cycle.data(), layout, s.cycle_begin(c), tables.data(), bytes};
    kernels::cpu::launch(body.count(s.cycle_size(c)), body);
  }
  const kernels::ExchangeBody<Word> body{walked.data(), layout, s.cycle_begin(0), tables.data(), bytes};
#pragma omp parallel num_threads(workers)
  {
    const auto rank = static_cast<std::uint64_t>(omp_get_thread_num());
    const auto team = static_cast<std::uint64_t>(omp_get_num_threads());
    kernels::walk_exchange_cycles(body, layout.geo.n - 1, ends.data(), ends.size(), rank, team, [] {
#pragma omp barrier
    });
  }
  EXPECT_FALSE(same_words(per_cycle, start)) << what << ": the schedule moved nothing";
  EXPECT_TRUE(same_words(walked, per_cycle)) << what << ", t = " << t << ", " << workers << " workers, "
                                             << sizeof(Word) << "-byte words";
}

TEST(PersistentWalk, EqualsOneLaunchACycle) {
  for (const auto& [what, s] : schedules())
    for (const int workers : {1, 3, 4})
      for (unsigned t : {0u, s.n}) {
        check_walk<std::uint32_t>(s, t, workers, what);
        check_walk<kernels::Word16>(s, t, workers, what);
      }
}

// More workers than a cycle has items: the extra ones only wait at the barriers.
TEST(PersistentWalk, IdleWorkersOnlyWait) {
  const Schedule s = aapc(AapcAlgorithm::alg4, 2);  // 2 pairs an exchange
  check_walk<std::uint64_t>(s, s.n, 7, "Algorithm 4, d = 2");
}

TEST(LaunchMode, NamesAndErrors) {
  EXPECT_EQ(parse_launch_mode("per-cycle"), LaunchMode::per_cycle);
  EXPECT_EQ(parse_launch_mode("persistent"), LaunchMode::persistent);
  EXPECT_EQ(to_string(LaunchMode::per_cycle), "per-cycle");
  EXPECT_EQ(to_string(LaunchMode::persistent), "persistent");
  try {
    parse_launch_mode("graph");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("BenchRequest::launch 'graph' unknown: allowed per-cycle, persistent"),
              std::string::npos)
        << e.what();
  }
}

class LaunchModes : public BackendTest {};

// The same schedule launched per cycle and persistently: the same words, the
// transpose's, and the same counts, but the launches as they happened.
TEST_P(LaunchModes, PersistentEqualsPerCycle) {
  for (const ElementType type : {ElementType::u32, ElementType::u64, ElementType::c128})
    for (const bool unaligned : {false, true}) {
      const unsigned d = 5;
      const Schedule s = unaligned ? make_edelman_schedule(d, d, d, false) : aapc(AapcAlgorithm::alg4, d);
      const Geometry geo = s.geometry();
      const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, geo, d);
      std::vector<std::vector<unsigned char>> results;
      std::vector<Counters> counts;
      for (const LaunchMode launch : {LaunchMode::per_cycle, LaunchMode::persistent}) {
        Machine mach(MachineOptions{geo.n, geo.m, type, choice(), -1, launch});
        mach.load_labels();
        const std::vector<unsigned char> before = mach.read();
        mach.reset_counters();
        run_schedule(mach, s, plan.f, plan.g);
        counts.push_back(mach.counters());
        results.push_back(mach.read());
        EXPECT_EQ(results.back(), reference_permute(before, mach.word_bytes(), geo.total_words(), plan.destination))
            << to_string(launch) << ", " << info(type).name << (unaligned ? ", unaligned" : "");
      }
      EXPECT_EQ(results[0], results[1]);
      EXPECT_EQ(counts[0].routing_cycles, s.cycles());
      EXPECT_EQ(counts[1].routing_cycles, s.cycles());
      EXPECT_EQ(counts[0].element_hops, counts[1].element_hops);
      EXPECT_EQ(counts[0].links_used_per_cycle, counts[1].links_used_per_cycle);
      const std::uint64_t aligns = unaligned ? 0 : 2;
      EXPECT_EQ(counts[0].kernel_launches, s.cycles() + aligns);
      // The CPU runs both alike (a launch a cycle); CUDA's persistent batch is one launch.
      EXPECT_EQ(counts[1].kernel_launches, GetParam() == BackendKind::cpu ? s.cycles() + aligns : 1 + aligns);
    }
}

// A progress report cuts the schedule into batches of at least 64 cycles:
// each is one persistent launch on CUDA, and the words are those of a run
// launched per cycle.
TEST_P(LaunchModes, PersistentBatchesOfAProgressReport) {
  const Schedule s = aapc(AapcAlgorithm::alg4, 8);  // 128 cycles: two batches
  std::vector<std::vector<unsigned char>> results;
  for (const LaunchMode launch : {LaunchMode::per_cycle, LaunchMode::persistent}) {
    Machine mach(MachineOptions{8, 8, ElementType::u32, choice(), -1, launch});
    mach.load_labels();
    std::size_t reports = 0;
    mach.run_cycles(s, [&](std::size_t, std::size_t) { ++reports; });
    EXPECT_EQ(reports, 2u);
    const bool one_a_batch = launch == LaunchMode::persistent && GetParam() == BackendKind::cuda;
    EXPECT_EQ(mach.counters().kernel_launches, one_a_batch ? reports : s.cycles()) << to_string(launch);
    EXPECT_EQ(mach.counters().routing_cycles, s.cycles());
    results.push_back(mach.read());
  }
  EXPECT_EQ(results[0], results[1]);
}

HCUBE_ON_EVERY_BACKEND(LaunchModes);

// CUDA: a batch's graph is instantiated once and replayed by the next run of
// the same schedule; on other storage (another pointer, the same launches)
// it is updated in place, not instantiated again.
TEST(CudaGraphs, ReplayedAcrossRunsAndUpdatedForNewStorage) {
  std::string why;
  if (cuda_device_count(&why) == 0)
    HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_CUDA", "CUDA graph tests skipped: " << why);
  const unsigned d = 6;
  const Schedule s = aapc(AapcAlgorithm::alg4, d);  // 32 cycles: one graph
  const Geometry geo = s.geometry();
  const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, geo, d);
  std::shared_ptr<Backend> backend = make_cuda_backend();
  const std::uint64_t bytes = geo.total_words() * 4;
  Buffer a = backend->allocate(bytes), b = backend->allocate(bytes);
  const MachineOptions options{geo.n, geo.m, ElementType::u32, BackendChoice::cuda, 0};
  Machine first(options, backend, a.data(), bytes), second(options, backend, b.data(), bytes);
  const auto run_verified = [&](Machine& mach) {
    mach.load_labels();
    const std::vector<unsigned char> before = mach.read();
    run_schedule(mach, s, plan.f, plan.g);
    EXPECT_EQ(mach.read(), reference_permute(before, 4, geo.total_words(), plan.destination));
  };
  run_verified(first);
  const LaunchStats one = backend->launch_stats();
  EXPECT_EQ(one.graphs_instantiated, 1u);
  run_verified(first);
  const LaunchStats two = backend->launch_stats();
  EXPECT_EQ(two.graphs_instantiated, 1u);
  EXPECT_EQ(two.graphs_replayed, one.graphs_replayed + 1);
  run_verified(second);
  const LaunchStats three = backend->launch_stats();
  EXPECT_EQ(three.graphs_instantiated, 1u);
  EXPECT_EQ(three.graphs_updated, two.graphs_updated + 1);
}

}  // namespace
}  // namespace hcube

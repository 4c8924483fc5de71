// The lecture notes' standard exchange (SEX) and direct exchange (DEX) as
// schedules: the notes' round counts and costs (Q_3 examples, written as
// printed), completeness by the schedule checker, and runs on every backend
// against the transpose.
#include <gtest/gtest.h>

#include "backend_test.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/exchange_baselines.hpp"

namespace hcube {
namespace {

// Notes, Q_3: SEX takes 3 rounds of 4 packets, t = 3(t_s + 4 mu t_m); DEX 7
// rounds, t = 7(t_s + mu t_m) + 12 t_d (the exact hop count n 2^(n-1); the
// notes' n t_d / 2 per round would give 10.5).
TEST(ExchangeBaselines, NotesCountsForQ3) {
  const BaselineCost sex = baseline_cost(ExchangeBaseline::standard, 3);
  EXPECT_EQ(sex.rounds, 3u);
  EXPECT_EQ(sex.startups, 3u);
  EXPECT_EQ(sex.element_units, 12u);
  EXPECT_EQ(sex.hop_units, 0u);
  const BaselineCost dex = baseline_cost(ExchangeBaseline::direct, 3);
  EXPECT_EQ(dex.rounds, 7u);
  EXPECT_EQ(dex.startups, 7u);
  EXPECT_EQ(dex.element_units, 7u);
  EXPECT_EQ(dex.hop_units, 12u);
}

TEST(ExchangeBaselines, SchedulesAreCompleteWithTheNotesShape) {
  for (unsigned d = 1; d <= 8; ++d)
    for (unsigned m : {d, d + 2}) {
      SCOPED_TRACE(testing::Message() << "d = " << d << ", m = " << m);
      const std::uint64_t K = std::uint64_t{1} << m;
      const Schedule sex = make_exchange_baseline(ExchangeBaseline::standard, d, d, m);
      const ScheduleStats s = check_schedule(sex);  // every word crosses its bits once
      EXPECT_EQ(s.cycles, d);
      EXPECT_EQ(sex.rules.model, PortModel::one_port);
      for (std::uint32_t per : s.exchanges_per_cycle) EXPECT_EQ(per, K / 2);  // one block of N/2 packets
      const Schedule dex = make_exchange_baseline(ExchangeBaseline::direct, d, d, m);
      const ScheduleStats x = check_schedule(dex);
      EXPECT_EQ(x.cycles, baseline_cost(ExchangeBaseline::direct, d).cycles);
      EXPECT_EQ(x.max_span, d);  // a packet's e-cube path: popcount(i) consecutive hops
    }
  EXPECT_THROW(parse_exchange_baseline("bex"), Error);
  EXPECT_THROW(make_exchange_baseline(ExchangeBaseline::standard, 0, 1, 1), Error);
}

class ExchangeBaselineRun : public BackendTest {};

TEST_P(ExchangeBaselineRun, BothAreTheTranspose) {
  for (ExchangeBaseline b : {ExchangeBaseline::standard, ExchangeBaseline::direct})
    for (unsigned d = 1; d <= 5; ++d)
      for (unsigned m : {d, d + 1}) {
        SCOPED_TRACE(testing::Message() << to_string(b) << ", d = " << d << ", m = " << m);
        const Schedule s = make_exchange_baseline(b, d, d + 1, m);
        auto mach = make_labelled(d + 1, m);
        const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, mach->geometry(), d);
        const auto expected = reference_permute(mach->read(), mach->word_bytes(), mach->geometry().total_words(),
                                                plan.destination);
        run_schedule(*mach, s, plan.f, plan.g);
        ASSERT_EQ(mach->read(), expected);
        EXPECT_EQ(mach->counters().routing_cycles, s.cycles());
      }
}

HCUBE_ON_EVERY_BACKEND(ExchangeBaselineRun);

}  // namespace
}  // namespace hcube

// The skip-or-fail helper of require.hpp: skips where nothing requires the
// test, fails where the environment does (HCUBE_REQUIRE_CUDA=1 and
// HCUBE_REQUIRE_BROWSER=1 use it). cmake/CheckRequireCuda.cmake checks the
// real thing: hcube_tests' CUDA tests under HCUBE_REQUIRE_CUDA=1.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "require.hpp"

namespace {

constexpr const char* kProbe = "HCUBE_TEST_REQUIRE_PROBE";

void probe_test() { HCUBE_SKIP_UNLESS_REQUIRED(kProbe, "the probe cannot run here: " << 42); }

// Collects the results probe_test() reports when kProbe is `value` (nullptr: unset).
void run_probe(const char* value, ::testing::TestPartResultArray* results) {
  if (value) ::setenv(kProbe, value, 1);
  else ::unsetenv(kProbe);
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, results);
    probe_test();
  }
  ::unsetenv(kProbe);
}

TEST(RequireHelper, SkipsSayingWhyWhereNothingRequiresTheTest) {
  for (const char* value : {static_cast<const char*>(nullptr), "", "0"}) {
    SCOPED_TRACE(value ? std::string("'") + value + "'" : std::string("unset"));
    ::testing::TestPartResultArray r;
    run_probe(value, &r);
    ASSERT_EQ(r.size(), 1);
    EXPECT_TRUE(r.GetTestPartResult(0).skipped());
    // The message, then the scoped trace.
    EXPECT_EQ(std::string(r.GetTestPartResult(0).message()).rfind("the probe cannot run here: 42\n", 0), 0u)
        << r.GetTestPartResult(0).message();
  }
}

TEST(RequireHelper, FailsWhereTheEnvironmentRequiresTheTest) {
  for (const char* value : {"1", "yes"}) {
    SCOPED_TRACE(value);
    ::testing::TestPartResultArray r;
    run_probe(value, &r);
    ASSERT_EQ(r.size(), 1);
    EXPECT_TRUE(r.GetTestPartResult(0).fatally_failed());
    // "Failed", the message, then the scoped trace.
    EXPECT_EQ(std::string(r.GetTestPartResult(0).message())
                  .rfind("Failed\nHCUBE_TEST_REQUIRE_PROBE is set, so this test must run, but it cannot: the probe "
                         "cannot run here: 42\n",
                         0),
              0u)
        << r.GetTestPartResult(0).message();
  }
}

TEST(RequireHelper, IsAFatalFailureThatEndsTheTest) {
  ::setenv(kProbe, "1", 1);
  EXPECT_FATAL_FAILURE(probe_test(), "must run, but it cannot");
  ::unsetenv(kProbe);
}

}  // namespace

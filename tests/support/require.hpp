// Honest skips: a test that cannot run here (no CUDA device, no usable
// browser) skips, saying why -- unless the environment requires it to run:
//   HCUBE_REQUIRE_CUDA=1     every test skipped for want of CUDA fails instead
//                            (scripts/gpu_check.sh sets it: a GPU check in
//                            which nothing ran on the GPU must not pass);
//   HCUBE_REQUIRE_BROWSER=1  the headless-chromium tests fail instead of
//                            skipping (.ci/run sets it where chromium works).
// The one place that decides between skipping and failing.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace hcube::test {

// Whether `env_var` requires the tests it guards to run: set, and neither empty nor "0".
inline bool required(const char* env_var) {
  const char* v = std::getenv(env_var);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

}  // namespace hcube::test

// Skips the current test saying `why` (anything that streams into a gtest
// message), or fails it when the environment variable `env_var` requires it.
// Either way returns from the enclosing void function: the test body, SetUp,
// or a helper they call (then ASSERT_NO_FATAL_FAILURE / IsSkipped() apply).
#define HCUBE_SKIP_UNLESS_REQUIRED(env_var, why)                                               \
  do {                                                                                         \
    if (::hcube::test::required(env_var)) {                                                    \
      GTEST_FAIL() << (env_var) << " is set, so this test must run, but it cannot: " << why;  \
    } else {                                                                                   \
      GTEST_SKIP() << why;                                                                     \
    }                                                                                          \
  } while (0)

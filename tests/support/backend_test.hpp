// Tests written once and run on every backend (Kokkos style): a fixture
// parameterized by the backend, whose CUDA instance skips, saying why, where
// no device is present (and fails there under HCUBE_REQUIRE_CUDA=1, require.hpp).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>

#include "hcube/emulator/machine.hpp"
#include "require.hpp"

namespace hcube {

inline void PrintTo(BackendKind k, std::ostream* os) { *os << to_string(k); }

class BackendTest : public ::testing::TestWithParam<BackendKind> {
 protected:
  void SetUp() override {
    if (GetParam() == BackendKind::cuda) {
      std::string why;
      if (cuda_device_count(&why) == 0)
        HCUBE_SKIP_UNLESS_REQUIRED("HCUBE_REQUIRE_CUDA", "CUDA backend tests skipped: " << why);
    }
  }

  BackendChoice choice() const { return GetParam() == BackendKind::cpu ? BackendChoice::cpu : BackendChoice::cuda; }

  // A machine on this backend whose word g holds the label g.
  std::unique_ptr<Machine> make_labelled(unsigned n, unsigned m, ElementType type = ElementType::u32,
                                         long long tile_dims = -1) {
    auto mach = std::make_unique<Machine>(MachineOptions{n, m, type, choice(), tile_dims});
    mach->load_labels();
    return mach;
  }
};

}  // namespace hcube

// Instantiates a BackendTest-derived suite for the CPU and CUDA backends.
#define HCUBE_ON_EVERY_BACKEND(Suite)                                                                     \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite, ::testing::Values(::hcube::BackendKind::cpu,               \
                                                              ::hcube::BackendKind::cuda),             \
                           [](const auto& p) { return ::hcube::to_string(p.param); })

// The host launcher: runs a kernel body over an index range with OpenMP, so
// the CPU backend executes exactly the code the CUDA backend launches.
#pragma once

#include <cstdint>

namespace hcube::kernels::cpu {

// Below this many indices a parallel region costs more than it saves: on a
// busy 2-core machine a region can wait milliseconds for a descheduled
// thread (an AAPC with d = 12 took 24 s instead of 0.5 s at 2^14).
inline constexpr std::uint64_t kParallelThreshold = 1 << 16;

template <class Body>
void launch(std::uint64_t count, const Body& body) {
  const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static) if (count >= kParallelThreshold)
  for (std::int64_t i = 0; i < n; ++i) body(static_cast<std::uint64_t>(i));
}

}  // namespace hcube::kernels::cpu

// A kernel that faults, for the test that a device fault inside a plan's
// execution comes back as an exception (tests/emulator/test_plans.cpp).
#include <cuda_runtime.h>

namespace hcube {
namespace {
__global__ void trap() { __trap(); }
}  // namespace

void launch_fault(void* stream) { trap<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(); }
}  // namespace hcube

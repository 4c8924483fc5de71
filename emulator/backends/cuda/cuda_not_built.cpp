// Stand-in for the CUDA backend when the build has it switched off.
#include "hcube/emulator/backend.hpp"
#include "hcube/core/error.hpp"

namespace hcube {

bool cuda_backend_built() { return false; }

int cuda_device_count(std::string* why) {
  if (why != nullptr) *why = "this build has no CUDA backend (configured with HCUBE_ENABLE_CUDA=OFF or without nvcc)";
  return 0;
}

void set_cuda_local_rank(int) {}

std::unique_ptr<Backend> make_cuda_backend() {
  throw Error("backend cuda unavailable: this build has no CUDA backend; rebuild with nvcc and HCUBE_ENABLE_CUDA=ON");
}

}  // namespace hcube

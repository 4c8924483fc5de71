// A stand-in for the GPU driver's libcuda.so.1, for tests/mpi/cpu_ranks_no_cuda.sh: the CUDA
// runtime loads the driver on its first call, and this one, when loaded, writes the file named
// by HCUBE_FAKE_LIBCUDA_MARKER, so a test can tell whether a run touched CUDA at all. Every
// entry point the runtime asks for first answers that there is no device.
#include <cstdio>
#include <cstdlib>

namespace {
constexpr int kNoDevice = 100;  // CUDA_ERROR_NO_DEVICE
constexpr int kNotFound = 500;  // CUDA_ERROR_NOT_FOUND

__attribute__((constructor)) void loaded() {
  if (const char* marker = std::getenv("HCUBE_FAKE_LIBCUDA_MARKER")) {
    if (std::FILE* f = std::fopen(marker, "a")) {
      std::fputs("libcuda.so.1 loaded\n", f);
      std::fclose(f);
    }
  }
}
}  // namespace

extern "C" {
int cuInit(unsigned) { return kNoDevice; }
int cuDriverGetVersion(int* v) {
  if (v != nullptr) *v = 0;
  return kNoDevice;
}
int cuGetProcAddress(const char*, void** p, int, unsigned long long) {
  if (p != nullptr) *p = nullptr;
  return kNotFound;
}
int cuGetProcAddress_v2(const char*, void** p, int, unsigned long long, int* status) {
  if (p != nullptr) *p = nullptr;
  if (status != nullptr) *status = 1;  // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
  return kNotFound;
}
int cuGetExportTable(const void**, const void*) { return kNotFound; }
}

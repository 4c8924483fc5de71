// Marks functions that run both on the host and inside CUDA kernels, so the
// address model and the plans' descriptors are written once for both backends.
#pragma once

#if defined(__CUDACC__)
#define HCUBE_HD __host__ __device__
#else
#define HCUBE_HD
#endif

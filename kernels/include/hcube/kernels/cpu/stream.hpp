// Non-temporal stores for the host launchers: a large destination written in
// whole cache lines skips the read-for-ownership a plain store costs (the
// trick memcpy itself uses above the cache size), so a pass that streams its
// output moves 2 bytes per byte instead of 3.
#pragma once

#include <cstddef>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hcube::kernels::cpu {

// Data passes at least this large stream their stores; smaller ones stay in cache.
inline constexpr std::size_t kStreamingBytes = std::size_t{16} << 20;

// Copies `bytes` (a multiple of 16) to `dst` (16-byte aligned) with streaming stores.
inline void stream_copy(void* dst, const void* src, std::size_t bytes) {
#if defined(__SSE2__)
  auto* d = static_cast<__m128i*>(dst);
  const auto* s = static_cast<const __m128i*>(src);
  for (std::size_t i = 0; i < bytes / 16; ++i) _mm_stream_si128(d + i, _mm_loadu_si128(s + i));
#else
  std::memcpy(dst, src, bytes);
#endif
}

// Orders a thread's streaming stores before what follows (a barrier, the end of a launch).
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace hcube::kernels::cpu

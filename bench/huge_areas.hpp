// The kernel-level benchmarks' data: a source and a destination of 256 MiB on
// huge pages (as the CPU backend allocates its storage), touched before any
// timing, and memcpy between them as the roofline.
#pragma once

#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace hcube::bench {

inline constexpr std::size_t kAreaBytes = std::size_t{256} << 20;

class HugeArea {
 public:
  HugeArea() {
    madvise(p_.get(), kAreaBytes, MADV_HUGEPAGE);  // advice only
    std::memset(p_.get(), 1, kAreaBytes);
  }
  char* data() { return p_.get(); }

 private:
  std::unique_ptr<char, decltype(&std::free)> p_{
      static_cast<char*>(std::aligned_alloc(std::size_t{2} << 20, kAreaBytes)), &std::free};
};

inline HugeArea& source_area() {
  static HugeArea a;
  return a;
}
inline HugeArea& destination_area() {
  static HugeArea a;
  return a;
}

// memcpy of the whole area on one thread, counted read + written.
inline void BM_Memcpy(benchmark::State& state) {
  char* src = source_area().data();
  char* dst = destination_area().data();
  for (auto _ : state) {
    std::memcpy(dst, src, kAreaBytes);
    benchmark::DoNotOptimize(dst);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * kAreaBytes * state.iterations()));
}

}  // namespace hcube::bench

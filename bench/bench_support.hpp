// What the Google Benchmark programs share: a CPU machine holding zeros, the
// memcpy roofline of a size, and the bytes a machine's kernels moved.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "hcube/emulator/backend.hpp"
#include "hcube/emulator/machine.hpp"

namespace hcube::bench {

inline Machine zeroed_machine(long long n, long long m, long long tile_dims = -1) {
  Machine mach(MachineOptions{n, m, ElementType::u32, BackendChoice::cpu, tile_dims});
  std::vector<unsigned char> zeros(mach.bytes(), 0);
  mach.load(zeros.data(), zeros.size());
  return mach;
}

// memcpy of `bytes` between buffers the CPU backend allocates as it does the
// machine's storage (huge pages, where memcpy ran about 5% faster than between
// vectors on 4 KiB pages), counted read + written as the kernels' bytes are.
inline void memcpy_roofline(benchmark::State& state, std::size_t bytes) {
  const std::unique_ptr<Backend> cpu = make_cpu_backend();
  const std::function<double()> copy = cpu->copy_timer(bytes);
  copy();  // the destination's first touch (copy_timer has written the source)
  for (auto _ : state) copy();
  state.SetBytesProcessed(static_cast<std::int64_t>(2 * bytes * state.iterations()));
}

// The bytes the machine's data-motion kernels read and wrote over all iterations.
inline void count_bytes(benchmark::State& state, const Machine& mach) {
  state.SetBytesProcessed(static_cast<std::int64_t>(mach.counters().bytes_read + mach.counters().bytes_written));
}

// The AAPC pre-alignment (j|i) -> (j|i xor j) over min(n, m) bits, in place, timed.
inline void xor_alignment(benchmark::State& state, Machine& mach) {
  const AffineMap map = AffineMap::xor_fold(mach.geometry(), std::min(mach.geometry().n, mach.geometry().m), 1);
  for (auto _ : state) mach.align(map);
  count_bytes(state, mach);
}

}  // namespace hcube::bench

// A batch of routing cycles in one launch (--launch persistent): every worker
// of the launch walks the cycles in order, takes its share of each cycle's
// work items and waits at a barrier before the next cycle, which reads what
// the last one wrote. The CUDA backend runs it as one cooperative kernel
// (grid.sync() the barrier, backends/cuda/exchange.cuh); the tests run the same
// walk on an OpenMP team (#pragma omp barrier) against one launch a cycle.
#pragma once

#include <cstdint>

#include "hcube/core/hd.hpp"

namespace hcube::kernels {

// Cycle c is exchanges [ends[c-1], ends[c]) (from 0 for c = 0); an exchange
// is 2^item_bits work items of `body`, whose item t belongs to exchange
// t >> item_bits (ExchangeBody: a node pair each; the CUDA vector body: V
// pairs each). Worker `rank` of `workers` runs items rank, rank + workers, ...
// of each cycle: consecutive workers on consecutive items, as a grid-stride
// loop. No barrier after the last cycle: the launch's end is one.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable  // the CUDA kernel's body and barrier are device functions
#endif
template <class Body, class Barrier>
HCUBE_HD void walk_exchange_cycles(const Body& body, unsigned item_bits, const std::uint64_t* ends,
                                   std::uint64_t cycles, std::uint64_t rank, std::uint64_t workers,
                                   Barrier&& barrier) {
  std::uint64_t first = 0;
  for (std::uint64_t c = 0; c < cycles; ++c) {
    const std::uint64_t last = ends[c] << item_bits;
    for (std::uint64_t t = first + rank; t < last; t += workers) body(t);
    first = last;
    if (c + 1 < cycles) barrier();
  }
}

}  // namespace hcube::kernels

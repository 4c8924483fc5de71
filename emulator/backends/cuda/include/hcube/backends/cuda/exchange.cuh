// The CUDA launcher of a routing cycle: a thread swaps V = 16 / sizeof(Word)
// node pairs of one exchange in 16-byte vectors, the V low nodes' words of one
// tile row against the V partners' of another, or, for a direct exchange across
// a dimension below log2 V, the 2V nodes of its row with the lanes swapped in
// registers. An exchange with node-dependent offsets, or across such a
// dimension between two addresses, runs its V pairs through the per-word body;
// cubes or tiles narrower than 2V nodes run one pair a thread. Four-byte
// accesses leave an H100's memory system short of requests in flight (one
// cycle: 0.01 -> 0.67 of the copy kernel, 0.75 with the lane swaps).
#pragma once

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>

#include "hcube/backends/cuda/launch.cuh"
#include "hcube/kernels/exchange.hpp"
#include "hcube/kernels/exchange_cycles.hpp"

namespace hcube::kernels::cuda {

// Node v (bit D of v clear) swaps with node v | 2^D within one row; D is a
// constant so the lanes stay in registers.
template <unsigned D, unsigned N, class Word>
__device__ inline void swap_lanes(Word* a) {
#pragma unroll
  for (unsigned v = 0; v < N; ++v)
    if (!((v >> D) & 1u)) swap_words(a[v], a[v | (1u << D)]);
}

// log2 of the node pairs a 16-byte vector holds: 2 (u32), 1 (u64), 0 (16-byte words).
template <class Word>
inline constexpr unsigned kVectorPairBits = sizeof(Word) == 4 ? 2 : sizeof(Word) == 8 ? 1 : 0;

// V node pairs of one exchange a thread, in 16-byte vectors: item u is
// group u mod 2^group_bits of exchange u >> group_bits, as walk_exchange_cycles
// counts items. Usable with n and t above kVectorPairBits (usable()).
template <class Word>
struct ExchangeVectorBody {
  ExchangeBody<Word> body;

  static constexpr unsigned vbits = kVectorPairBits<Word>;
  static_assert(vbits > 0, "16-byte words run one pair a thread (ExchangeBody)");
  static bool usable(const Layout& L) { return L.geo.n > vbits && L.t > vbits; }
  // log2 of the items an exchange has.
  HCUBE_HD unsigned item_bits() const { return body.layout.geo.n - 1 - vbits; }

  __device__ void operator()(std::uint64_t u) const {
    constexpr unsigned V = 1u << vbits;
    const Layout& L = body.layout;
    const unsigned pair_bits = L.geo.n - 1, group_bits = pair_bits - vbits;
    const std::uint64_t e = u >> group_bits, first = (u & low_mask(group_bits)) << vbits;
    const Exchange x = body.exchanges[e];
    if (x.offset_map != 0) {
      for (unsigned v = 0; v < V; ++v) body((e << pair_bits) | (first + v));
      return;
    }
    if (x.dim >= vbits) {  // V low nodes in a row, their V partners in another
      const std::uint64_t low = insert_zero_bit(first, x.dim), high = low | bit(x.dim);
      auto* a = reinterpret_cast<uint4*>(body.mem + L.index(low, x.addr));
      auto* b = reinterpret_cast<uint4*>(body.mem + L.index(high, x.peer_addr));
      const uint4 va = *a, vb = *b;
      *a = vb;
      *b = va;
      return;
    }
    if (x.addr != x.peer_addr) {
      // Another exchange of the cycle may own the other side's words of these
      // rows (opposite sides of one dimension share an address): word by word.
      for (unsigned v = 0; v < V; ++v) body((e << pair_bits) | (first + v));
      return;
    }
    // A direct exchange across a dimension inside the vector owns both sides of
    // its row: the V pairs are the 2V nodes from 2 * first, swapped in registers.
    auto* a = reinterpret_cast<uint4*>(body.mem + L.index(2 * first, x.addr));
    uint4 ra[2] = {a[0], a[1]};
    Word* wa = reinterpret_cast<Word*>(ra);
    if (x.dim == 0)
      swap_lanes<0, 2 * V>(wa);
    else
      swap_lanes<1, 2 * V>(wa);  // only u32 words (vbits = 2) get here
    a[0] = ra[0];
    a[1] = ra[1];
  }
};

// `count` exchanges over every node pair: in vectors where the cube and its
// tiles span 2V nodes, else one pair a thread.
template <class Word>
void launch_exchanges(const ExchangeBody<Word>& body, std::uint64_t count, cudaStream_t stream = nullptr) {
  if constexpr (kVectorPairBits<Word> > 0) {
    if (ExchangeVectorBody<Word>::usable(body.layout)) {
      const ExchangeVectorBody<Word> vectors{body};
      launch(count << vectors.item_bits(), vectors, stream);
      return;
    }
  }
  launch(body.count(count), body, stream);
}

// The persistent launch: one cooperative kernel walks a batch of cycles
// (kernels/exchange_cycles.hpp) with grid.sync() between them.
template <class Body>
__global__ void walk_cycles_kernel(Body body, unsigned item_bits, const std::uint64_t* ends, std::uint64_t cycles) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  walk_exchange_cycles(body, item_bits, ends, cycles, grid.thread_rank(), grid.num_threads(), [&] { grid.sync(); });
}

// As many blocks as can be resident at once on the device's `sms`
// multiprocessors (a cooperative launch needs them all resident), and no more
// than the largest cycle of `most_exchanges` exchanges has items for.
template <class Body>
void launch_walk_cycles(const Body& body, unsigned item_bits, const std::uint64_t* ends, std::uint64_t cycles,
                        std::uint64_t most_exchanges, int sms, cudaStream_t stream) {
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, walk_cycles_kernel<Body>, kThreadsPerBlock, 0),
        "occupancy of the persistent routing kernel");
  const std::uint64_t needed = ((most_exchanges << item_bits) + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned>(
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(needed, static_cast<std::uint64_t>(per_sm) * sms)));
  void* args[] = {const_cast<Body*>(&body), &item_bits, &ends, &cycles};
  check(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(walk_cycles_kernel<Body>), dim3(blocks),
                                    dim3(kThreadsPerBlock), args, 0, stream),
        "persistent routing kernel launch");
}

// A batch of cycles (ends[c]: cycle c's end, device memory) in one
// cooperative launch, vectors where launch_exchanges takes them.
template <class Word>
void launch_exchange_cycles_persistent(const ExchangeBody<Word>& body, const std::uint64_t* ends,
                                       std::uint64_t cycles, std::uint64_t most_exchanges, int sms,
                                       cudaStream_t stream) {
  if constexpr (kVectorPairBits<Word> > 0) {
    if (ExchangeVectorBody<Word>::usable(body.layout)) {
      const ExchangeVectorBody<Word> vectors{body};
      launch_walk_cycles(vectors, vectors.item_bits(), ends, cycles, most_exchanges, sms, stream);
      return;
    }
  }
  launch_walk_cycles(body, body.layout.geo.n - 1, ends, cycles, most_exchanges, sms, stream);
}

}  // namespace hcube::kernels::cuda

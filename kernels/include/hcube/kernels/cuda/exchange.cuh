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

#include <cstdint>

#include "hcube/kernels/cuda/launch.cuh"
#include "hcube/kernels/exchange.hpp"

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

// Launched with n and t above kVectorPairBits (launch_exchanges).
template <class Word>
__global__ void exchange_vectors(ExchangeBody<Word> body, std::uint64_t groups) {
  constexpr unsigned vbits = kVectorPairBits<Word>, V = 1u << vbits;
  const Layout& L = body.layout;
  const unsigned pair_bits = L.geo.n - 1, group_bits = pair_bits - vbits;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t u = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; u < groups; u += stride) {
    const std::uint64_t e = u >> group_bits, first = (u & low_mask(group_bits)) << vbits;
    const Exchange x = body.exchanges[e];
    if (x.offset_map != 0) {
      for (unsigned v = 0; v < V; ++v) body((e << pair_bits) | (first + v));
      continue;
    }
    if (x.dim >= vbits) {  // V low nodes in a row, their V partners in another
      const std::uint64_t low = insert_zero_bit(first, x.dim), high = low | bit(x.dim);
      auto* a = reinterpret_cast<uint4*>(body.mem + L.index(low, x.addr));
      auto* b = reinterpret_cast<uint4*>(body.mem + L.index(high, x.peer_addr));
      const uint4 va = *a, vb = *b;
      *a = vb;
      *b = va;
      continue;
    }
    if (x.addr != x.peer_addr) {
      // Another exchange of the cycle may own the other side's words of these
      // rows (opposite sides of one dimension share an address): word by word.
      for (unsigned v = 0; v < V; ++v) body((e << pair_bits) | (first + v));
      continue;
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
}

// `count` exchanges over every node pair: in vectors where the cube and its
// tiles span 2V nodes, else one pair a thread.
template <class Word>
void launch_exchanges(const ExchangeBody<Word>& body, std::uint64_t count, cudaStream_t stream = nullptr) {
  constexpr unsigned vbits = kVectorPairBits<Word>;
  if constexpr (vbits > 0) {
    if (body.layout.geo.n > vbits && body.layout.t > vbits) {
      const std::uint64_t groups = body.count(count) >> vbits;
      const std::uint64_t blocks =
          std::min<std::uint64_t>((groups + kThreadsPerBlock - 1) / kThreadsPerBlock, kMaxBlocks);
      exchange_vectors<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(body, groups);
      check(cudaGetLastError(), "routing kernel launch");
      return;
    }
  }
  launch(body.count(count), body, stream);
}

}  // namespace hcube::kernels::cuda

// The CPU backend's fast host launchers (kernels/cpu/exchange.hpp: whole tile
// rows; kernels/cpu/alignment.hpp: whole cache lines) against the per-word
// bodies the CUDA backend launches, run here through the plain host launcher:
// the same words must end in the same places, so the bodies the GPU runs stay
// checked on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "hcube/host/affine_map.hpp"
#include "hcube/host/bits.hpp"
#include "hcube/host/layout.hpp"
#include "hcube/kernels/cpu/alignment.hpp"
#include "hcube/kernels/cpu/exchange.hpp"
#include "hcube/kernels/cpu/launch.hpp"

namespace hcube {
namespace {

std::vector<std::uint32_t> labels(std::uint64_t words) {
  std::vector<std::uint32_t> v(words);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

TEST(HostLaunchers, RowSwapsEqualThePerWordExchangeBody) {
  std::mt19937_64 rng(41);
  for (unsigned n = 1; n <= 7; ++n)
    for (unsigned m = 1; m <= 5; ++m)
      for (unsigned t = 0; t <= n; ++t) {
        const Layout layout{Geometry{n, m}, t};
        // Exchanges on random dimensions, every local word in at most one of them.
        std::vector<std::uint64_t> pool(bit(m));
        std::iota(pool.begin(), pool.end(), 0u);
        std::shuffle(pool.begin(), pool.end(), rng);
        std::vector<Exchange> cycle;
        for (std::size_t k = 0; k + 1 < pool.size();) {
          const auto dim = static_cast<std::uint32_t>(rng() % n);
          const bool direct = rng() % 2 == 0;  // one word (the same address on both nodes) or two
          cycle.push_back(Exchange{dim, pool[k], direct ? pool[k] : pool[k + 1]});
          k += direct ? 1 : 2;
        }
        std::vector<std::uint32_t> fast = labels(layout.geo.total_words()), slow = fast;
        const kernels::ExchangeBody<std::uint32_t> a{fast.data(), layout, cycle.data(), nullptr, 0};
        const kernels::ExchangeBody<std::uint32_t> b{slow.data(), layout, cycle.data(), nullptr, 0};
        kernels::cpu::run_exchanges(a, cycle.size());
        kernels::cpu::launch(b.count(cycle.size()), b);
        ASSERT_EQ(fast, slow) << "n = " << n << ", m = " << m << ", t = " << t;
      }
}

// A random xor alignment (some processor bits onto some memory bits, then a complement) on one layout.
template <class Word>
void check_align_xor(const Layout& layout, std::mt19937_64& rng) {
  const Geometry& geo = layout.geo;
  const unsigned n = geo.n, m = geo.m;
  std::vector<unsigned> procs(n), mems(m);
  std::iota(procs.begin(), procs.end(), 0u);
  std::iota(mems.begin(), mems.end(), 0u);
  std::shuffle(procs.begin(), procs.end(), rng);
  std::shuffle(mems.begin(), mems.end(), rng);
  const std::size_t k = rng() % (std::min(n, m) + 1);
  const unsigned lo_bit = static_cast<unsigned>(rng() % m);
  const AffineMap map = AffineMap::xor_align(geo, {procs.begin(), procs.begin() + k}, {mems.begin(), mems.begin() + k})
                            .then(AffineMap::complement(geo, lo_bit, m - lo_bit));
  const AffineTables tables = make_tables(map);
  const kernels::AffineView view{tables.mem.data(), tables.node.data(), tables.mem_bytes, tables.node_bytes,
                                 tables.constant};
  std::vector<Word> fast(geo.total_words());
  std::iota(fast.begin(), fast.end(), Word{0});
  std::vector<Word> slow = fast;
  kernels::cpu::run_align_xor(kernels::AlignXorBody<Word>{fast.data(), layout, view, 0, bit(m)});
  const kernels::AlignXorBody<Word> body{slow.data(), layout, view, 0, bit(m)};
  kernels::cpu::launch(geo.total_words(), body);
  ASSERT_EQ(fast, slow) << "n = " << n << ", m = " << m << ", t = " << layout.t << ", " << sizeof(Word)
                        << "-byte words, " << map.describe();
}

TEST(HostLaunchers, LineSwapsEqualThePerWordAlignmentBody) {
  std::mt19937_64 rng(43);
  for (unsigned n = 0; n <= 7; ++n)
    for (unsigned m = 1; m <= 6; ++m)
      for (unsigned t = 0; t <= n; ++t) check_align_xor<std::uint32_t>(Layout{Geometry{n, m}, t}, rng);
}

// Geometries whose row blocks fill whole L2-sized regions (many blocks and tiles
// a map pairs block with block), and 8-byte words (fewer columns a line).
TEST(HostLaunchers, RegionSwapsEqualThePerWordAlignmentBody) {
  std::mt19937_64 rng(47);
  const Layout layouts[] = {{Geometry{10, 10}, 8}, {Geometry{9, 12}, 8}, {Geometry{12, 9}, 6}, {Geometry{8, 11}, 3}};
  for (const Layout& layout : layouts)
    for (int rep = 0; rep < 4; ++rep) {
      check_align_xor<std::uint32_t>(layout, rng);
      check_align_xor<std::uint64_t>(layout, rng);
    }
}

}  // namespace
}  // namespace hcube

// The CPU backend's fast host launchers (backends/cpu/exchange.hpp: whole tile
// rows; backends/cpu/alignment.hpp: whole cache lines) against the per-word
// bodies the CUDA backend launches, run here through the plain host launcher:
// the same words must end in the same places, so the bodies the GPU runs stay
// checked on the CPU.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <random>
#include <vector>

#include "hcube/host/affine_map.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/host/layout.hpp"
#include "hcube/host/xor_cosets.hpp"
#include "hcube/backends/cpu/alignment.hpp"
#include "hcube/backends/cpu/exchange.hpp"
#include "hcube/backends/cpu/launch.hpp"
#include "hcube/backends/cpu/team.hpp"
#include "hcube/emulator/measure.hpp"
#include "launcher_settings.hpp"
#include "test_words.hpp"

namespace hcube {
namespace {

std::vector<std::uint32_t> labels(std::uint64_t words) {
  std::vector<std::uint32_t> v(words);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

// Beside a spinning process the kernels' team gives up a core: two
// samples 20 ms apart see it, and the team never drops below one thread.
TEST(HostLaunchers, TheTeamLeavesACoreToABusyNeighbour) {
  if (std::getenv("OMP_NUM_THREADS") != nullptr || std::getenv("HCUBE_ADAPTIVE_THREADS") != nullptr)
    GTEST_SKIP() << "the team size is fixed by OMP_NUM_THREADS or HCUBE_ADAPTIVE_THREADS here";
  const int most = omp_get_max_threads();
  BusyNeighbour neighbour;
  int team = most;
  for (int k = 0; k < 10 && team == most; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    team = kernels::cpu::team_size();
  }
  EXPECT_GE(team, 1);
  EXPECT_LE(team, std::max(1, std::min(most, omp_get_num_procs() - 1)));
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
        std::vector<std::uint32_t> slow = labels(layout.geo.total_words());
        const kernels::ExchangeBody<std::uint32_t> b{slow.data(), layout, cycle.data(), nullptr, 0};
        kernels::cpu::launch(b.count(cycle.size()), b);
        for (const kernels::cpu::tuning::Knobs& knobs : launcher_settings()) {
          std::vector<std::uint32_t> fast = labels(layout.geo.total_words());
          const kernels::ExchangeBody<std::uint32_t> a{fast.data(), layout, cycle.data(), nullptr, 0};
          kernels::cpu::run_exchanges(a, cycle.size(), knobs);
          ASSERT_EQ(fast, slow) << "n = " << n << ", m = " << m << ", t = " << t << ", " << describe(knobs);
        }
      }
}

// Batches of cycles with node-dependent addresses (run_exchange_cycles: rows
// where the map is constant over a tile, skewed tiles where it is not) against
// the per-word body cycle by cycle. Each cycle pairs two maps (either may be
// direct, constant over tiles, or vary inside them), each on its half of the
// addresses (maps below the top address bit), so no word is in two exchanges;
// runs of cycles repeat a pair, long enough to be worth skewing.
template <class Word>
void check_exchange_batch(const Layout& layout, std::mt19937_64& rng) {
  const unsigned n = layout.geo.n, m = layout.geo.m;
  OffsetMaps maps(3, NodeOffsetMap(n, 0));
  for (unsigned b = 0; b < n; ++b) {
    maps[0][b] = rng() & low_mask(m - 1);                    // any node bits
    maps[1][b] = b >= layout.t ? rng() & low_mask(m - 1) : 0;  // constant over a tile
    maps[2][b] = b < layout.t ? rng() & low_mask(m - 1) : 0;   // only inside the tiles
  }
  unsigned bytes = 0;
  const std::vector<std::uint64_t> tables = offset_tables(maps, bytes);
  std::vector<Exchange> all;
  std::vector<std::size_t> ends;
  std::uint32_t pair[2] = {0, 0};
  for (unsigned c = 0; c < 24; ++c) {
    if (c % 6 == 0)
      for (std::uint32_t& k : pair) k = static_cast<std::uint32_t>(rng() % 4);
    for (unsigned half = 0; half < 2; ++half) {
      std::vector<std::uint64_t> pool(bit(m - 1));
      std::iota(pool.begin(), pool.end(), std::uint64_t{half} << (m - 1));
      std::shuffle(pool.begin(), pool.end(), rng);
      for (std::size_t k = 0; k + 1 < pool.size();) {
        const auto dim = static_cast<std::uint32_t>(rng() % n);
        const bool direct = rng() % 2 == 0;
        all.push_back(Exchange{dim, pool[k], direct ? pool[k] : pool[k + 1], pair[half]});
        k += direct ? 1 : 2;
      }
    }
    ends.push_back(all.size());
  }
  std::vector<Word> slow = labelled_words<Word>(layout.geo.total_words());
  for (std::size_t c = 0; c < ends.size(); ++c) {
    const std::size_t first = c == 0 ? 0 : ends[c - 1];
    const kernels::ExchangeBody<Word> b{slow.data(), layout, all.data() + first, tables.data(), bytes};
    kernels::cpu::launch(b.count(ends[c] - first), b);
  }
  for (const kernels::cpu::tuning::Knobs& knobs : launcher_settings()) {
    std::vector<Word> fast = labelled_words<Word>(layout.geo.total_words());
    kernels::cpu::run_exchange_cycles(
        kernels::ExchangeBody<Word>{fast.data(), layout, all.data(), tables.data(), bytes}, ends, knobs);
    EXPECT_TRUE(same_words(fast, slow)) << "n = " << n << ", m = " << m << ", t = " << layout.t << ", "
                                        << sizeof(Word) << "-byte words, " << describe(knobs);
  }
}

TEST(HostLaunchers, SkewedTilesEqualThePerWordExchangeBody) {
  std::mt19937_64 rng(43);
  for (unsigned n = 1; n <= 6; ++n)
    for (unsigned m = 2; m <= 6; ++m)
      for (unsigned t = 0; t <= n; ++t) {
        check_exchange_batch<std::uint32_t>(Layout{Geometry{n, m}, t}, rng);
        check_exchange_batch<kernels::Word16>(Layout{Geometry{n, m}, t}, rng);
      }
}

// The host launcher (run_align_xor) and the per-word body the CUDA backend
// launches, on the same labelled words: every word must land in the same place.
template <class Word>
void expect_host_alignment_equals_body(const Layout& layout, const AffineMap& map, std::uint64_t lo, std::uint64_t hi) {
  const AffineTables tables = make_tables(map);
  const kernels::AffineView view{tables.mem.data(), tables.node.data(), tables.mem_bytes, tables.node_bytes,
                                 tables.constant};
  std::vector<Word> slow = labelled_words<Word>(layout.geo.total_words());
  kernels::cpu::launch(layout.geo.total_words(), kernels::AlignXorBody<Word>{slow.data(), layout, view, lo, hi});
  for (const kernels::cpu::tuning::Knobs& knobs : launcher_settings()) {
    std::vector<Word> fast = labelled_words<Word>(layout.geo.total_words());
    kernels::cpu::run_align_xor(kernels::AlignXorBody<Word>{fast.data(), layout, view, lo, hi}, knobs);
    EXPECT_TRUE(same_words(fast, slow)) << "n = " << layout.geo.n << ", m = " << layout.geo.m << ", t = " << layout.t
                                        << ", " << sizeof(Word) << "-byte words, rows " << lo << ".." << hi << ", "
                                        << map.describe() << ", " << describe(knobs);
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
  expect_host_alignment_equals_body<Word>(layout, map, 0, bit(m));
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

// A random pure xor map i -> i xor (C j xor c) and a row range [lo, hi) it
// keeps: C and c touch only the bits below `keep`, lo and hi are multiples of
// 2^keep. With lane_bits > 0, half of the time the tile's lowest lane_bits
// columns go to independent rows.
struct KeptXorMap {
  AffineMap map;
  std::uint64_t lo, hi;
};
KeptXorMap random_kept_xor_map(const Geometry& geo, std::mt19937_64& rng, unsigned lane_bits = 0) {
  const unsigned m = geo.m, keep = 1 + static_cast<unsigned>(rng() % m);
  std::vector<std::uint64_t> mem_cols(m), node_cols(geo.n);
  for (unsigned b = 0; b < m; ++b) mem_cols[b] = bit(b);
  for (auto& c : node_cols) c = rng() % 4 == 0 ? 0 : rng() & low_mask(keep);
  if (lane_bits > 0 && keep >= lane_bits && rng() % 2 == 0) {
    std::vector<unsigned> rows(keep);
    std::iota(rows.begin(), rows.end(), 0u);
    std::shuffle(rows.begin(), rows.end(), rng);
    for (unsigned b = 0; b < lane_bits && b < geo.n; ++b) node_cols[b] = bit(rows[b]);
  }
  const AffineMap map = AffineMap::from_columns(geo, mem_cols, node_cols, rng() & low_mask(keep));
  const std::uint64_t blocks = bit(m - keep), first = rng() % blocks, last = first + 1 + rng() % (blocks - first);
  const std::uint64_t lo = rng() % 2 == 0 ? 0 : first << keep, hi = rng() % 2 == 0 ? bit(m) : last << keep;
  return {map, lo, hi};
}

// The host launcher's vector path (backends/cpu/alignment.hpp, AVX2 where it
// runs): 32-byte rows of L = 32 / word size columns whose offsets span L rows.
// Pure xor maps that keep a row range [lo, hi) (C and c below bit `keep`),
// the tile's lowest L columns sent to independent rows half of the time (the
// vector path) and anywhere otherwise (the word-by-word path, or both in one
// run); every word must land where the per-word body puts it.
template <class Word>
void check_align_lanes(const Layout& layout, std::mt19937_64& rng) {
  const auto [map, lo, hi] = random_kept_xor_map(layout.geo, rng, words_bits(32, sizeof(Word)));
  expect_host_alignment_equals_body<Word>(layout, map, lo, hi);
}

TEST(HostLaunchers, LaneButterflyAlignmentEqualsThePerWordBody) {
  std::mt19937_64 rng(59);
  for (unsigned n = 3; n <= 9; ++n)
    for (unsigned m = 1; m <= 9; ++m)
      for (unsigned t = 3; t <= n; ++t)
        for (int rep = 0; rep < 2; ++rep) {
          check_align_lanes<std::uint32_t>(Layout{Geometry{n, m}, t}, rng);
          check_align_lanes<std::uint64_t>(Layout{Geometry{n, m}, t}, rng);
          check_align_lanes<kernels::Word16>(Layout{Geometry{n, m}, t}, rng);
        }
  // The AAPC's alignment (j|i) -> (j|i xor j) on L2-sized regions.
  for (const Layout layout : {Layout{Geometry{10, 10}, 8}, Layout{Geometry{12, 12}, 10}, Layout{Geometry{9, 12}, 4}}) {
    std::vector<unsigned> dims(std::min(layout.geo.n, layout.geo.m));
    std::iota(dims.begin(), dims.end(), 0u);
    expect_host_alignment_equals_body<std::uint32_t>(layout, AffineMap::xor_align(layout.geo, dims, dims), 0,
                                                     bit(layout.geo.m));
  }
}

// The CUDA coset launcher's units (host/xor_cosets.hpp, kernels/alignment.hpp)
// walked on the host as the kernel walks them: each unit's two row sets read,
// then written swapped, only rows in [lo, hi) written. The same words must
// land where the per-word body puts them, for any pure xor map (random node
// columns, a constant) and any row range the map keeps.
template <class Word>
void check_xor_cosets(const Layout& layout, std::mt19937_64& rng) {
  const Geometry& geo = layout.geo;
  const unsigned m = geo.m;
  const auto [map, lo, hi] = random_kept_xor_map(geo, rng);
  const AffineTables tables = make_tables(map);
  const kernels::AffineView view{tables.mem.data(), tables.node.data(), tables.mem_bytes, tables.node_bytes,
                                 tables.constant};
  const XorCosets plan = plan_xor_cosets(tables, layout);
  ASSERT_TRUE(plan.usable);
  if (plan.dims >= m) return;  // a single coset: the launcher runs the per-word body
  std::vector<Word> fast(geo.total_words());
  std::iota(fast.begin(), fast.end(), Word{0});
  std::vector<Word> slow = fast;
  const kernels::AlignXorBody<Word> body{fast.data(), layout, view, lo, hi};
  const unsigned cb = plan.chunk_bits, t = layout.t;
  std::vector<Word> a(bit(cb + plan.dims)), b(a.size());
  std::vector<int> seen(geo.total_words(), 0);  // every word in exactly one unit
  for (std::uint64_t u = 0; u < kernels::xor_coset_units(layout, plan); ++u) {
    const kernels::XorCosetUnit unit = kernels::xor_coset_unit(body, plan, u);
    Word* cols = fast.data() + unit.first;
    const auto row_a = [&](std::uint64_t r) { return unit.a ^ plan.element(static_cast<unsigned>(r)); };
    const auto row_b = [&](std::uint64_t r) { return unit.b ^ plan.element(static_cast<unsigned>(r)); };
    for (std::uint64_t w = 0; w < a.size(); ++w) {
      a[w] = cols[(row_a(w >> cb) << t) + (w & low_mask(cb))];
      b[w] = cols[(row_b(w >> cb) << t) + (w & low_mask(cb))];
      ++seen[unit.first + (row_a(w >> cb) << t) + (w & low_mask(cb))];
      ++seen[unit.first + (row_b(w >> cb) << t) + (w & low_mask(cb))];
    }
    for (std::uint64_t w = 0; w < a.size(); ++w) {
      const std::uint64_t r = w >> cb, k = w & low_mask(cb), c = ((r ^ unit.g ^ plan.coords[k]) << cb) | k;
      if (row_a(r) >= lo && row_a(r) < hi) cols[(row_a(r) << t) + k] = unit.pair ? b[c] : a[c];
      if (row_b(r) >= lo && row_b(r) < hi) cols[(row_b(r) << t) + k] = unit.pair ? a[c] : b[c];
    }
  }
  ASSERT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  kernels::cpu::launch(geo.total_words(), kernels::AlignXorBody<Word>{slow.data(), layout, view, lo, hi});
  ASSERT_EQ(fast, slow) << "n = " << geo.n << ", m = " << m << ", t = " << t << ", rows " << lo << ".." << hi << ", "
                        << map.describe();
}

TEST(HostLaunchers, XorCosetUnitsEqualThePerWordAlignmentBody) {
  std::mt19937_64 rng(53);
  for (unsigned n = 5; n <= 9; ++n)
    for (unsigned m = 1; m <= 8; ++m)
      for (unsigned t = 5; t <= n; ++t)
        for (int rep = 0; rep < 3; ++rep) {
          check_xor_cosets<std::uint32_t>(Layout{Geometry{n, m}, t}, rng);
          check_xor_cosets<std::uint64_t>(Layout{Geometry{n, m}, t}, rng);
        }
}

// A map that is not a pure xor has no coset plan: the per-word body runs it.
TEST(HostLaunchers, XorCosetsRefuseOtherMaps) {
  const Geometry geo{6, 4};
  const AffineTables tables = make_tables(AffineMap::gray(geo, 0, 4, true));
  EXPECT_FALSE(plan_xor_cosets(tables, Layout{geo, 6}).usable);
  EXPECT_TRUE(plan_xor_cosets(make_tables(AffineMap::xor_fold(geo, 4, 1)), Layout{geo, 6}).usable);
}

}  // namespace
}  // namespace hcube

// The machine on every backend: each primitive against the reference, bit for
// bit, over many geometries, tile widths and element types, plus the exact
// counts it reports. Written once, instantiated for the CPU and CUDA backends
// (CUDA skips, saying so, where no device is present).
#include <gtest/gtest.h>

#include "backend_test.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "hcube/emulator/json.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/reference.hpp"

namespace hcube {
namespace {

class MachineTest : public BackendTest {
 protected:
  std::unique_ptr<Machine> make(unsigned n, unsigned m, ElementType type = ElementType::u32, long long t = -1) {
    return make_labelled(n, m, type, t);
  }

  // Runs `step` and checks the machine against the reference permutation `dest`.
  void expect_permutation(Machine& mach, const AddressMap& dest, const std::function<void()>& step) {
    const std::vector<unsigned char> before = mach.read();
    const auto expected = reference_permute(before, mach.word_bytes(), mach.geometry().total_words(), dest);
    step();
    ASSERT_EQ(mach.read(), expected) << "n = " << mach.geometry().n << ", m = " << mach.geometry().m
                                     << ", t = " << mach.layout().t << ", type " << info(mach.type()).name;
  }

  std::mt19937_64 rng_{20261121};
};

// A random legal cycle: candidate exchanges kept only when the checker allows them.
Cycle random_cycle(const Geometry& g, const PortRules& rules, std::mt19937_64& rng) {
  Cycle c;
  for (int tries = 0; tries < 4 * static_cast<int>(g.n * rules.channel_width) + 4; ++tries) {
    const Exchange e{static_cast<std::uint32_t>(rng() % g.n), rng() & low_mask(g.m),
                     (rng() % 3 == 0) ? rng() & low_mask(g.m) : ~std::uint64_t{0}};
    Cycle more = c;
    more.push_back(e.peer_addr == ~std::uint64_t{0} ? direct_exchange(e.dim, e.addr) : e);
    if (!find_violation(g, more, rules)) c = std::move(more);
  }
  return c;
}

AffineMap random_map(const Geometry& g, std::mt19937_64& rng, bool pure_xor) {
  std::vector<unsigned> procs(g.n), mems(g.m);
  std::iota(procs.begin(), procs.end(), 0u);
  std::iota(mems.begin(), mems.end(), 0u);
  std::shuffle(procs.begin(), procs.end(), rng);
  std::shuffle(mems.begin(), mems.end(), rng);
  const std::size_t k = std::min(g.n, g.m) == 0 ? 0 : rng() % (std::min(g.n, g.m) + 1);
  AffineMap a = AffineMap::xor_align(g, {procs.begin(), procs.begin() + k}, {mems.begin(), mems.begin() + k});
  if (pure_xor || g.m == 0) return a;
  std::shuffle(mems.begin(), mems.end(), rng);
  const unsigned lo = static_cast<unsigned>(rng() % g.m);
  return a.then(AffineMap::permute_bits(g, mems))
      .then(AffineMap::gray(g, lo, 1 + static_cast<unsigned>(rng() % (g.m - lo)), rng() % 2 == 0));
}

TEST_P(MachineTest, CopyInAndOutRoundTripForEveryTileWidthAndType) {
  for (const ElementInfo& e : all_element_types())
    for (unsigned n : {0u, 1u, 3u, 6u})
      for (unsigned m : {0u, 2u, 5u})
        for (unsigned t = 0; t <= n; ++t) {
          auto mach = make(n, m, e.type, t);
          const std::vector<unsigned char> out = mach->read();
          for (std::uint64_t g = 0; g < mach->geometry().total_words(); ++g)
            ASSERT_EQ(read_label(e.type, &out[g * e.bytes]), g) << e.name << " n=" << n << " m=" << m << " t=" << t;
        }
}

// gather reads the words at any global addresses, in the order asked, for
// every tile width and word size (the verification of a file-backed run reads
// the machine this way); an address outside the machine is refused.
TEST_P(MachineTest, GatherReadsTheWordsAtGivenGlobalAddresses) {
  for (const ElementType type : {ElementType::u32, ElementType::u64, ElementType::c128})
    for (unsigned t : {0u, 2u, 4u}) {
      auto mach = make(4, 3, type, t);
      const std::size_t wb = mach->word_bytes();
      std::vector<std::uint64_t> where(mach->geometry().total_words());
      std::iota(where.begin(), where.end(), 0u);
      std::shuffle(where.begin(), where.end(), rng_);
      where.push_back(where.front());  // an address twice is read twice
      std::vector<unsigned char> got(where.size() * wb);
      mach->gather(where.data(), where.size(), got.data());
      for (std::size_t i = 0; i < where.size(); ++i)
        ASSERT_EQ(read_label(type, &got[i * wb]), where[i]) << info(type).name << " t=" << t << " i=" << i;
    }
  auto mach = make(2, 2);
  const std::uint64_t outside[] = {3, 16};
  std::vector<unsigned char> got(2 * 4, 0xab);
  try {
    mach->gather(outside, 2, got.data());
    ADD_FAILURE() << "an address outside the machine was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("global address 16 is outside the machine's 16 words"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(got, std::vector<unsigned char>(2 * 4, 0xab));  // nothing read
}

// The same gather into a buffer of the backend's own memory (device memory on
// CUDA, what a CUDA-aware MPI is handed), at a word offset, and the scatter
// back out of one: the words a distributed machine sends and receives.
TEST_P(MachineTest, GatherAndScatterThroughABackendBuffer) {
  for (const ElementType type : {ElementType::u32, ElementType::c128})
    for (unsigned t : {0u, 3u}) {
      auto mach = make(4, 3, type, t);
      const std::size_t wb = mach->word_bytes();
      const std::uint64_t total = mach->geometry().total_words(), at = 5;
      std::vector<std::uint64_t> where(total);
      std::iota(where.begin(), where.end(), 0u);
      std::shuffle(where.begin(), where.end(), rng_);
      Buffer packed = mach->backend().allocate((at + total) * wb);
      mach->gather(where.data(), total, packed, at, "pack");
      std::vector<unsigned char> got(total * wb);
      mach->backend().read_storage(packed, at * wb, got.data(), got.size());
      for (std::uint64_t i = 0; i < total; ++i)
        ASSERT_EQ(read_label(type, &got[i * wb]), where[i]) << info(type).name << " t=" << t << " i=" << i;
      // Scattered to the same addresses in reverse order: packed word i lands at back[i].
      std::vector<std::uint64_t> back(where.rbegin(), where.rend());
      mach->scatter(back.data(), total, packed, at, "pack");
      const std::vector<unsigned char> now = mach->read();
      for (std::uint64_t i = 0; i < total; ++i)
        ASSERT_EQ(read_label(type, &now[back[i] * wb]), where[i]) << info(type).name << " t=" << t << " i=" << i;
      EXPECT_THROW(mach->gather(where.data(), total, packed, at + 1, "pack"), Error);  // past the buffer
    }
}

// A distributed machine's words of its exchanges with another rank: packed
// exchange by exchange, node by node, node j's word addr xor L(j) (peer_addr
// on the upper side), for tile widths below and above the CPU's run copy,
// and scattered back to the same places; checked against the global address
// formula. A buffer too small or an address outside a node is refused.
TEST_P(MachineTest, ExchangeWordsArePackedNodeByNodeAndLandWhereTheyWereTaken) {
  const unsigned n = 5, m = 4;
  const OffsetMaps maps{{3, 5, 6, 9, 12}};  // L(j): the xor of the columns of j's set bits
  const auto L = [&](std::uint64_t j) {
    std::uint64_t a = 0;
    for (unsigned k = 0; k < n; ++k)
      if ((j >> k) & 1) a ^= maps[0][k];
    return a;
  };
  // Two sets, each touching distinct words on every node: fixed addresses, and node-dependent ones.
  const std::vector<Cycle> sets{{Exchange(5, 1, 6), Exchange(6, 9, 2), Exchange(5, 14, 14)},
                                {Exchange(5, 2, 7, 1), Exchange(7, 11, 0, 1)}};
  for (const ElementType type : {ElementType::u32, ElementType::c128})
    for (const unsigned t : {0u, 2u, 3u, 5u})
      for (const Cycle& x : sets)
        for (const bool upper : {false, true}) {
          auto mach = make(n, m, type, t);
          const std::size_t wb = mach->word_bytes();
          const std::uint64_t at = 3, words = x.size() << n;
          const auto place = [&](std::size_t e, std::uint64_t j) {
            return (j << m) | ((upper ? x[e].peer_addr : x[e].addr) ^ (x[e].offset_map != 0 ? L(j) : 0));
          };
          Buffer packed = mach->backend().allocate((at + words) * wb);
          mach->exchange_words(x.data(), x.size(), upper, maps, packed, at, Machine::LocalDirection::gather, "pack");
          std::vector<unsigned char> got(words * wb);
          mach->backend().read_storage(packed, at * wb, got.data(), got.size());
          for (std::size_t e = 0; e < x.size(); ++e)
            for (std::uint64_t j = 0; j < (1u << n); ++j)
              ASSERT_EQ(read_label(type, &got[((e << n) + j) * wb]), place(e, j))
                  << info(type).name << " t=" << t << " e=" << e << " j=" << j << " upper=" << upper;
          // Other words scattered there: word i of the buffer gets label i + 1000 (u32) and lands at place(e, j).
          for (std::uint64_t i = 0; i < words; ++i) write_label(type, 1000 + i, &got[i * wb]);
          mach->backend().write_storage(got.data(), packed, at * wb, got.size());
          mach->exchange_words(x.data(), x.size(), upper, maps, packed, at, Machine::LocalDirection::scatter, "pack");
          const std::vector<unsigned char> now = mach->read();
          std::vector<std::uint64_t> want(mach->geometry().total_words());
          std::iota(want.begin(), want.end(), 0u);
          for (std::size_t e = 0; e < x.size(); ++e)
            for (std::uint64_t j = 0; j < (1u << n); ++j) want[place(e, j)] = 1000 + (e << n) + j;
          for (std::uint64_t g = 0; g < want.size(); ++g)
            ASSERT_EQ(read_label(type, &now[g * wb]), want[g]) << info(type).name << " t=" << t << " g=" << g;
          EXPECT_THROW(mach->exchange_words(x.data(), x.size(), upper, maps, packed, at + 1, Machine::LocalDirection::gather,
                                            "pack"),
                       Error);
        }
  auto mach = make(n, m);
  Buffer packed = mach->backend().allocate(std::uint64_t{4} << n);
  const Exchange outside(5, 16, 0);
  EXPECT_THROW(mach->exchange_words(&outside, 1, false, {}, packed, 0, Machine::LocalDirection::gather, "pack"), Error);
  const Exchange no_map(5, 1, 1, 2);
  EXPECT_THROW(mach->exchange_words(&no_map, 1, false, maps, packed, 0, Machine::LocalDirection::scatter, "pack"), Error);
}

// store_in_order hands the data over in the user's order, each run where the
// last ended, a whole tile at a time: what a FIFO or device output needs.
TEST_P(MachineTest, StoreInOrderIsTheUsersOrderATileAtATime) {
  for (unsigned t : {0u, 1u, 3u, 5u}) {
    auto mach = make(5, 4, ElementType::u64, t);
    std::vector<unsigned char> all;
    std::uint64_t next = 0;
    mach->store_in_order([&](std::uint64_t g, std::uint64_t words, const void* src) {
      ASSERT_EQ(g, next) << "t = " << t;
      ASSERT_EQ(words, mach->geometry().words_per_node() << t);
      const auto* p = static_cast<const unsigned char*>(src);
      all.insert(all.end(), p, p + words * 8);
      next += words;
    });
    EXPECT_EQ(all, mach->read()) << "t = " << t;
  }
}

TEST(CpuBackend, ChunkedCopyInAndOutRoundTrip) {
  // 64-byte chunks: several tiles per chunk, or one tile larger than a chunk.
  for (unsigned t : {0u, 2u, 5u}) {
    Machine mach(MachineOptions{5, 3, ElementType::u64, BackendChoice::cpu, t}, make_cpu_backend(64));
    mach.load_labels();
    const std::vector<unsigned char> out = mach.read();
    for (std::uint64_t g = 0; g < mach.geometry().total_words(); ++g)
      ASSERT_EQ(read_label(ElementType::u64, &out[g * 8]), g) << "t = " << t;
  }
}

TEST_P(MachineTest, RoutingCyclesMatchTheReference) {
  for (unsigned n = 1; n <= 8; ++n)
    for (unsigned m : {0u, 1u, 3u, 5u})
      for (const ElementInfo& e : all_element_types()) {
        if (n + m > 11 && e.bytes != 8) continue;  // the big cubes once per type size is enough
        const long long t = static_cast<long long>(rng_() % (n + 1));
        auto mach = make(n, m, e.type, t);
        for (const PortRules rules : {PortRules{PortModel::all_port, 1}, PortRules{PortModel::all_port, 3},
                                      PortRules{PortModel::one_port, 2}}) {
          const Cycle c = random_cycle(mach->geometry(), rules, rng_);
          expect_permutation(*mach, cycle_destination(mach->geometry(), c), [&] { mach->run_cycle(c, rules); });
        }
      }
}

// Node-dependent addresses (offset maps): random maps and cycles, kept when the
// exact GF(2) clash test allows them, against the reference.
TEST_P(MachineTest, CyclesWithOffsetMapsMatchTheReference) {
  for (unsigned n = 1; n <= 7; ++n)
    for (unsigned m : {1u, 3u, 4u}) {
      auto mach = make(n, m, ElementType::u64, static_cast<long long>(rng_() % (n + 1)));
      const Geometry& g = mach->geometry();
      OffsetMaps maps(2, NodeOffsetMap(n));
      for (auto& map : maps)
        for (auto& col : map) col = rng_() % 3 == 0 ? 0 : rng_() & low_mask(m);
      const PortRules rules{PortModel::all_port, 2};
      for (int trial = 0; trial < 3; ++trial) {
        Cycle c;
        for (int tries = 0; tries < 12; ++tries) {
          Cycle more = c;
          more.push_back(Exchange{static_cast<std::uint32_t>(rng_() % n), rng_() & low_mask(m), rng_() & low_mask(m),
                                  static_cast<std::uint32_t>(rng_() % 3)});
          if (!find_violation(g, more, rules, maps)) c = std::move(more);
        }
        expect_permutation(*mach, cycle_destination(g, c, maps), [&] { mach->run_cycle(c, rules, maps); });
      }
    }
}

TEST_P(MachineTest, AlignmentsMatchTheReferenceInPlaceAndThroughScratch) {
  for (unsigned n = 0; n <= 7; ++n)
    for (unsigned m : {0u, 1u, 2u, 4u, 6u})
      for (bool pure_xor : {true, false})
        for (const ElementInfo& e : all_element_types()) {
          if (n + m > 10 && e.type != ElementType::c128) continue;
          auto mach = make(n, m, e.type, static_cast<long long>(rng_() % (n + 1)));
          const AffineMap map = random_map(mach->geometry(), rng_, pure_xor);
          expect_permutation(*mach, alignment_destination(map), [&] { mach->align(map); });
          // A pure xor with a constant (the host launcher's line-swapping path) and a range of it.
          if (!pure_xor || m == 0) continue;
          const unsigned lo = static_cast<unsigned>(rng_() % m);
          const AffineMap shifted = map.then(AffineMap::complement(mach->geometry(), lo, m - lo));
          expect_permutation(*mach, alignment_destination(shifted), [&] { mach->align(shifted); });
        }
}

// Pure xor maps on tiles of at least 32 nodes, where the CUDA backend swaps
// coset by coset through shared memory: random node columns, a constant, and
// row ranges the map keeps (Algorithm 5 realigns some rows alone).
TEST_P(MachineTest, XorAlignmentsOnWideTilesAndRowRanges) {
  for (unsigned n : {5u, 6u, 8u, 9u})
    for (unsigned m : {1u, 3u, 5u, 7u})
      for (ElementType type : {ElementType::u32, ElementType::u64, ElementType::c128}) {
        if (n + m > 14 && type != ElementType::u32) continue;
        auto mach = make(n, m, type, 5 + static_cast<long long>(rng_() % (n - 4)));
        const Geometry& g = mach->geometry();
        const unsigned keep = 1 + static_cast<unsigned>(rng_() % m);
        std::vector<std::uint64_t> mem_cols(m), node_cols(n);
        for (unsigned b = 0; b < m; ++b) mem_cols[b] = bit(b);
        for (auto& c : node_cols) c = rng_() % 4 == 0 ? 0 : rng_() & low_mask(keep);
        const AffineMap map = AffineMap::from_columns(g, mem_cols, node_cols, rng_() & low_mask(keep));
        expect_permutation(*mach, alignment_destination(map), [&] { mach->align(map); });
        const std::uint64_t blocks = bit(m - keep), first = rng_() % blocks, last = first + 1 + rng_() % (blocks - first);
        const AlignmentStep step(map, first << keep, last << keep);
        expect_permutation(*mach, alignment_destination(step), [&] { mach->align(step); });
      }
}

TEST_P(MachineTest, RouterStepsMatchTheReference) {
  for (unsigned n : {0u, 1u, 4u, 7u})
    for (unsigned m : {1u, 3u, 5u})
      for (const ElementInfo& e : all_element_types()) {
        auto mach = make(n, m, e.type, static_cast<long long>(rng_() % (n + 1)));
        const Geometry& g = mach->geometry();
        // Senders read the lower half of their memory, receivers write the upper half.
        const std::uint64_t half = g.words_per_node() / 2;
        std::vector<std::uint64_t> dst(g.nodes());
        std::iota(dst.begin(), dst.end(), 0u);
        std::shuffle(dst.begin(), dst.end(), rng_);
        RouterStep step;
        for (std::uint64_t j = 0; j < g.nodes(); ++j) {
          if (rng_() % 4 == 0) continue;  // some nodes stay silent
          const std::uint64_t len = 1 + rng_() % half;
          step.push_back({j, rng_() % (half - len + 1), dst[j], half + rng_() % (half - len + 1), len});
        }
        const auto expected = reference_route(mach->read(), mach->word_bytes(), g, step);
        const RouterStepReport rep = mach->route(step, {half, ContentionPolicy::reject});
        EXPECT_EQ(rep.contention, 0u);
        ASSERT_EQ(mach->read(), expected) << "n = " << n << ", m = " << m << ", type " << e.name;
      }
}

TEST_P(MachineTest, ContentionIsReportedAndDelivered) {
  auto mach = make(3, 2);
  const RouterStep step = {{0, 0, 5, 2, 1}, {1, 0, 5, 3, 1}, {2, 1, 6, 0, 1}};
  const auto expected = reference_route(mach->read(), mach->word_bytes(), mach->geometry(), step);
  EXPECT_EQ(mach->route(step, {1, ContentionPolicy::report}).contention, 1u);
  EXPECT_EQ(mach->read(), expected);
  EXPECT_EQ(mach->counters().router_contention, 1u);
  EXPECT_THROW(mach->route(step, {1, ContentionPolicy::reject}), Error);
}

// An asynchronous machine (a plan on device memory) enqueues the same work and
// waits for none: the same words and counts, its phases' calls without seconds
// (the host's clock would time the enqueueing). Copies with the host still wait.
TEST_P(MachineTest, AnAsynchronousMachineDoesTheSameWorkUntimed) {
  std::vector<std::vector<unsigned char>> out;
  std::vector<Counters> counted;
  for (bool asynchronous : {false, true}) {
    auto mach = make_labelled(5, 4);
    mach->reset_counters();
    mach->set_asynchronous(asynchronous);
    mach->run_cycle({direct_exchange(0, 1), direct_exchange(3, 7)});
    mach->align(AffineMap::xor_align(mach->geometry(), {0, 3}, {0, 2}));
    mach->align(AffineMap::permute_bits(mach->geometry(), {1, 2, 0, 3}));  // through scratch
    mach->permute_address_bits({8, 0, 1, 2, 3, 4, 5, 6, 7});
    mach->route({{0, 0, 15, 4, 3}}, {4, ContentionPolicy::reject});
    out.push_back(mach->read());
    counted.push_back(mach->counters());
  }
  EXPECT_EQ(out[0], out[1]);
  const Counters &sync = counted[0], &async = counted[1];
  EXPECT_EQ(async.kernel_launches, sync.kernel_launches);
  EXPECT_EQ(async.bytes_read, sync.bytes_read);
  EXPECT_EQ(async.element_hops, sync.element_hops);
  ASSERT_EQ(async.phases.size(), sync.phases.size());
  for (std::size_t k = 0; k < sync.phases.size(); ++k) {
    EXPECT_EQ(async.phases[k].name, sync.phases[k].name);
    EXPECT_EQ(async.phases[k].calls, sync.phases[k].calls);
    if (async.phases[k].name != "copy-out") {
      EXPECT_EQ(async.phases[k].seconds, 0) << async.phases[k].name;
    }
  }
  EXPECT_GT(sync.phase_seconds("routing"), 0.0);
}

TEST_P(MachineTest, CountersAreExact) {
  auto mach = make(4, 3, ElementType::f64);
  mach->reset_counters();
  mach->run_cycle({direct_exchange(0, 0), direct_exchange(1, 1), direct_exchange(2, 2), direct_exchange(3, 3)});
  mach->run_cycle({direct_exchange(2, 5), direct_exchange(2, 6)}, {PortModel::one_port, 2});
  const Counters& c = mach->counters();
  EXPECT_EQ(c.routing_cycles, 2u);
  EXPECT_EQ(c.kernel_launches, 2u);
  EXPECT_EQ(c.element_hops, 6u * 16);  // one word per node per exchange
  EXPECT_EQ(c.links_total, 4u * 16);
  EXPECT_EQ(c.links_used_per_cycle, (std::vector<std::uint64_t>{64, 16}));
  EXPECT_DOUBLE_EQ(c.mean_channel_use(), (1.0 + 0.25) / 2);
  EXPECT_EQ(c.bytes_read, 6u * 16 * 8);
  EXPECT_EQ(c.bytes_written, 6u * 16 * 8);

  // The xor alignment over two node bits moves every word of 12 of the 16 nodes.
  mach->align(AffineMap::xor_align(mach->geometry(), {0, 3}, {0, 2}));
  EXPECT_EQ(c.alignments, 1u);
  EXPECT_EQ(c.kernel_launches, 3u);
  EXPECT_EQ(c.bytes_read, 6u * 16 * 8 + 12u * 8 * 8);
  // A general map rewrites all words through scratch.
  mach->align(AffineMap::permute_bits(mach->geometry(), {1, 2, 0}));
  EXPECT_EQ(c.bytes_written, 6u * 16 * 8 + 12u * 8 * 8 + 128u * 8);

  mach->route({{0, 0, 15, 4, 3}}, {4, ContentionPolicy::reject});
  EXPECT_EQ(c.router_steps, 1u);
  EXPECT_EQ(c.kernel_launches, 5u);
  EXPECT_EQ(c.element_hops, 6u * 16 + 3u * 4);  // 3 words over 4 links each
  EXPECT_GT(c.phase_seconds("routing"), 0.0);
  const nlohmann::json j = to_json(c);
  EXPECT_EQ(j["routing_cycles"], 2);
  EXPECT_EQ(j["channel_use"]["links_used_per_cycle"][1], 16);
  EXPECT_EQ(j["phases"]["router"]["calls"], 1);
}

TEST_P(MachineTest, IllegalCycleMovesNothing) {
  auto mach = make(3, 3);
  const auto before = mach->read();
  EXPECT_THROW(mach->run_cycle({direct_exchange(0, 1), direct_exchange(1, 1)}), Error);
  EXPECT_THROW(mach->run_cycle({direct_exchange(0, 1), direct_exchange(1, 2)}, {PortModel::one_port, 1}), Error);
  EXPECT_THROW(mach->route({{0, 0, 1, 0, 2}}, {1, ContentionPolicy::report}), Error);
  EXPECT_EQ(mach->read(), before);
  EXPECT_EQ(mach->counters().kernel_launches, 0u);
}

TEST_P(MachineTest, LimitsAreCheckedBeforeAllocation) {
  const BackendChoice choice = this->choice();
  try {
    Machine too_big(MachineOptions{30, 20, ElementType::c128, choice, -1});
    FAIL() << "a 2^50-word machine was allocated";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("n + m = 30 + 20"), std::string::npos) << msg;
    EXPECT_NE(msg.find("available"), std::string::npos) << msg;
    EXPECT_NE(msg.find("allowed n + m <="), std::string::npos) << msg;
  }
  EXPECT_THROW(Machine(MachineOptions{60, 0, ElementType::u32, choice, -1}), Error);
  EXPECT_THROW(Machine(MachineOptions{3, 2, ElementType::u32, choice, 4}), Error);  // t > n
  Machine labels(MachineOptions{13, 12, ElementType::f32, choice, -1});
  EXPECT_THROW(labels.load_labels(), Error);  // 25 address bits exceed float's 24-bit labels
  std::vector<unsigned char> wrong(10);
  EXPECT_THROW(labels.load(wrong.data(), wrong.size()), Error);
}

HCUBE_ON_EVERY_BACKEND(MachineTest);

TEST(BackendChoice, CudaWithoutADeviceIsAClearError) {
  std::string why;
  if (cuda_device_count(&why) > 0) GTEST_SKIP() << "a CUDA device is present";
  try {
    make_backend(BackendChoice::cuda);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("backend cuda requested but unavailable"), std::string::npos) << e.what();
  }
  EXPECT_EQ(make_backend(BackendChoice::automatic)->kind(), BackendKind::cpu);
  EXPECT_THROW(parse_backend_choice("gpu"), Error);
}

}  // namespace
}  // namespace hcube

// Block-cyclic redistribution run on the machine's router
// (emulator/redistribute.hpp), on every backend: the destinations' memories
// must equal the cyclic(Kx) layout computed directly from the formulas, for
// every schedule, disjoint and overlapping processor sets, P > Q and partial
// superblocks; one launch a communication step plus the packing and unpacking.
#include <cstring>
#include <random>
#include <vector>

#include "backend_test.hpp"
#include "pipe.hpp"
#include "hcube/emulator/redistribute.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

class RedistributeRun : public BackendTest {};

TEST_P(RedistributeRun, EveryScheduleDeliversTheCyclicKxLayout) {
  struct Case {
    std::uint64_t P, K, Q, x, N;
  };
  const Case cases[] = {
      {3, 2, 6, 2, 24},    // R_2(3, 2, 6): one superblock, G > K
      {6, 4, 9, 1, 216},   // R_x(6, 4, 9), x = 1: one superblock
      {4, 3, 6, 3, 108},   // all-to-all with unequal messages
      {6, 2, 4, 2, 100},   // P > Q, a partial superblock
      {5, 3, 5, 1, 77},    // P = Q, partial
      {8, 6, 3, 4, 1000},  // P > Q
      {1, 5, 7, 3, 300},   // one source
      {7, 1, 1, 2, 98},    // one destination
  };
  std::mt19937_64 rng(7);
  for (const Case& c : cases)
    for (const bool overlap : {false, true})
      for (const bool reverse : {false, true})
      for (const std::string& name : redistribution_schedule_names())
      // Direct (route_blocks, one launch) and staged (pack, steps, unpack, as a trace runs it),
      // in the tiled layout and the row-major one.
      for (const long long tile : {-1LL, 0LL})
      for (const bool staged : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "R_" << c.x << "(" << c.P << ", " << c.K << ", " << c.Q << "), N = "
                                          << c.N << (overlap ? ", overlap, " : ", disjoint, ") << name
                                          << (reverse ? ", reverse" : "") << ", tile dims " << tile
                                          << (staged ? ", staged" : ", direct"));
        const Redistribution r{c.P, c.K, c.Q, c.x, c.N, reverse};
        const RedistributionPlacement pl = place_redistribution(r, overlap);
        std::vector<std::uint64_t> data(c.N);
        for (auto& v : data) v = rng();
        Machine mach(MachineOptions{pl.n, pl.m, ElementType::u64, choice(), tile});
        const std::vector<unsigned char> image = source_image(pl, data.data(), 8);
        mach.load(image.data(), image.size());
        const RedistSchedule s = make_redistribution_schedule(r, name);
        std::vector<std::string> stages;
        const RedistStepDone seen = [&](const std::string& stage, const RedistStep*) { stages.push_back(stage); };
        const RedistributionReport rep = run_redistribution(mach, pl, s, staged ? seen : RedistStepDone{});
        EXPECT_EQ(destination_rows(pl, mach.read(), 8), expected_destinations(pl, data.data(), 8));
        // hcube redistribute's path: loaded, checked and read chunk by chunk, the same answers.
        const RedistElement element = [&](std::uint64_t g, unsigned char* out) { std::memcpy(out, &data[g], 8); };
        EXPECT_NO_THROW(verify_redistribution(mach, pl, element));
        EXPECT_EQ(destination_rows(mach, pl), expected_destinations(pl, data.data(), 8));
        if (reverse) {
          // Back to cyclic(x) on P, by its definition: element g in block i = g div x on
          // processor i mod P at local word (i div P) x + g mod x.
          std::vector<std::uint64_t> rows(c.P * (pl.dest_words), 0);
          for (std::uint64_t g = 0; g < c.N; ++g) {
            const std::uint64_t i = g / c.x;
            rows[(i % c.P) * pl.dest_words + (i / c.P) * c.x + g % c.x] = data[g];
          }
          std::vector<unsigned char> bytes(rows.size() * 8);
          std::memcpy(bytes.data(), rows.data(), bytes.size());
          EXPECT_EQ(destination_rows(mach, pl), bytes);
          // The same pairs exchange the same blocks: the forward schedule's steps, turned around.
          EXPECT_EQ(s.steps.size(), make_redistribution_schedule(Redistribution{c.P, c.K, c.Q, c.x, c.N}, name).steps.size());
        }
        Machine loaded(MachineOptions{pl.n, pl.m, ElementType::u64, choice(), -1});
        load_sources(loaded, pl, element);
        EXPECT_EQ(loaded.read(), image);
        EXPECT_THROW(verify_redistribution(loaded, pl, element), Error);  // not run: the destinations are empty
        const RedistElement off_by_one = [&](std::uint64_t g, unsigned char* out) { std::memcpy(out, &data[(g + 1) % c.N], 8); };
        EXPECT_THROW(verify_redistribution(mach, pl, off_by_one), Error);
        if (tile == -1 && !staged) {
          // From a pipe: loaded as it arrives, checked against its fingerprint.
          test::Pipe pipe(encode_npy(ElementType::u64, {c.N}, data.data(), c.N * 8));
          NpyInput in(pipe.path());
          Machine streamed(MachineOptions{pl.n, pl.m, ElementType::u64, choice(), -1});
          const InputFingerprint fp = load_sources(streamed, pl, in);
          EXPECT_EQ(streamed.read(), image);
          EXPECT_THROW(verify_redistribution(streamed, pl, fp), Error);  // not run yet
          run_redistribution(streamed, pl, s);
          EXPECT_NO_THROW(verify_redistribution(streamed, pl, fp));
          // Two destination words swapped: the same elements, misplaced.
          const std::uint64_t at[2] = {bit(pl.m) * pl.destination_node(0) + pl.dest_offset(),
                                       bit(pl.m) * pl.destination_node(receivers(r) - 1) + pl.dest_offset() + 1};
          std::uint64_t two[2];
          streamed.gather(at, 2, two);
          std::swap(two[0], two[1]);
          streamed.scatter(at, 2, two);
          try {
            verify_redistribution(streamed, pl, fp);
            ADD_FAILURE() << "a swap was verified";
          } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("fingerprint differs"), std::string::npos) << e.what();
          }
        }
        if (staged) {
          EXPECT_EQ(rep.launches, s.steps.size() + 4);  // pack and unpack: a gather and a copy back each
          EXPECT_EQ(stages.size(), s.steps.size() + 2);
        } else {
          EXPECT_EQ(rep.launches, 1u);  // every step's blocks straight to their places
          // The sources keep their order: only the destination regions were written.
          std::vector<unsigned char> now = mach.read();
          const std::uint64_t K = bit(pl.m);
          for (std::uint64_t j = 0; j < senders(r); ++j)
            EXPECT_TRUE(std::equal(&now[pl.source_node(j) * K * 8], &now[(pl.source_node(j) * K + pl.source_words) * 8],
                                   &image[pl.source_node(j) * K * 8]));
        }
        EXPECT_EQ(rep.stats.contention, 0u);
        EXPECT_EQ(mach.counters().router_contention, 0u);
        EXPECT_EQ(mach.counters().router_steps, s.steps.size());
      }
}

// The general problem, cyclic(x) on P to cyclic(y) on Q for any x and y, in units of
// gcd(x, y): every schedule, both directions, disjoint and overlapping sets, direct and staged,
// against the receivers' layout written here from its definition.
TEST_P(RedistributeRun, AnyBlockSizesDeliverTheCyclicYLayout) {
  struct Case {
    std::uint64_t P, Q, x, y, N;
  };
  const Case cases[] = {
      {4, 3, 2, 3, 72},   // gcd 1: units of one element, P > Q
      {3, 5, 6, 4, 180},  // gcd 2, P < Q
      {3, 5, 6, 2, 90},   // y divides x: the paper's problem mirrored
      {6, 4, 4, 6, 150},  // a partial superblock
      {2, 2, 3, 5, 60},   // P = Q
      {5, 1, 2, 7, 70},   // one destination
  };
  std::mt19937_64 rng(11);
  for (const Case& c : cases)
    for (const bool overlap : {false, true})
      for (const bool reverse : {false, true})
        for (const std::string& name : redistribution_schedule_names())
          for (const bool staged : {false, true}) {
            SCOPED_TRACE(::testing::Message() << "cyclic(" << c.x << ") on " << c.P << " -> cyclic(" << c.y << ") on "
                                              << c.Q << ", N = " << c.N << (overlap ? ", overlap, " : ", disjoint, ")
                                              << name << (reverse ? ", reverse" : "") << (staged ? ", staged" : ""));
            Redistribution r{c.P, 0, c.Q, c.x, c.N, reverse};
            r.y = c.y;
            const RedistributionPlacement pl = place_redistribution(r, overlap);
            std::vector<std::uint64_t> data(c.N);
            for (auto& v : data) v = rng();
            Machine mach(MachineOptions{pl.n, pl.m, ElementType::u64, choice(), 0});
            const RedistElement element = [&](std::uint64_t g, unsigned char* out) { std::memcpy(out, &data[g], 8); };
            load_sources(mach, pl, element);
            const RedistSchedule s = make_redistribution_schedule(r, name);
            const RedistStepDone seen = [](const std::string&, const RedistStep*) {};
            const RedistributionReport rep = run_redistribution(mach, pl, s, staged ? seen : RedistStepDone{});
            // The receivers' layout by its definition: element g in block i = g div B on
            // processor i mod R at local word (i div R) B + g mod B.
            const std::uint64_t B = reverse ? c.x : c.y, R = reverse ? c.P : c.Q;
            std::vector<std::uint64_t> rows(R * pl.dest_words, 0);
            for (std::uint64_t g = 0; g < c.N; ++g) {
              const std::uint64_t i = g / B;
              rows[(i % R) * pl.dest_words + (i / R) * B + g % B] = data[g];
            }
            std::vector<unsigned char> bytes(rows.size() * 8);
            std::memcpy(bytes.data(), rows.data(), bytes.size());
            EXPECT_EQ(destination_rows(mach, pl), bytes);
            EXPECT_NO_THROW(verify_redistribution(mach, pl, element));
            EXPECT_EQ(rep.stats.contention, 0u);
            EXPECT_EQ(mach.counters().router_contention, 0u);
          }
}

TEST_P(RedistributeRun, LocalPermutationsAreCheckedBeforeAnythingMoves) {
  auto mach = make_labelled(2, 2);
  const std::vector<unsigned char> before = mach->read();
  std::vector<std::uint64_t> from = {3, 2, 1, 0, 0, 1, 2, 3, 1, 1, 2, 3, 0, 1, 2, 3};  // node 2 takes address 1 twice
  EXPECT_THROW(mach->permute_local(from), Error);
  from[8] = 4;  // out of range
  EXPECT_THROW(mach->permute_local(from), Error);
  EXPECT_THROW(mach->permute_local({0, 1}), Error);
  EXPECT_EQ(mach->read(), before);
  from[8] = 0;  // a permutation: node 0 reversed, the others as they are
  mach->permute_local(from);
  const std::vector<unsigned char> after = mach->read();
  for (std::uint64_t i = 0; i < 4; ++i) EXPECT_EQ(after[i * 4], before[(3 - i) * 4]);
  EXPECT_EQ(std::vector<unsigned char>(after.begin() + 16, after.end()),
            std::vector<unsigned char>(before.begin() + 16, before.end()));
}

// Blocks of a region: the rest of every node's memory stays where it was.
TEST_P(RedistributeRun, BlockPermutationsMoveTheRegionOnly) {
  auto mach = make_labelled(3, 4);  // 8 nodes of 16 words
  const std::vector<unsigned char> before = mach->read();
  // Region: 3 blocks of 4 words from address 2 (words 2..13); node j rotates its blocks by j.
  std::vector<std::uint64_t> from(8 * 3);
  for (std::uint64_t j = 0; j < 8; ++j)
    for (std::uint64_t f = 0; f < 3; ++f) from[j * 3 + f] = (f + j) % 3;
  EXPECT_THROW(mach->permute_local(from, {0, 0, 5, 4}), Error);  // 5 + 12 > 16
  EXPECT_THROW(mach->permute_local(from, {0, 0, 2, 0}), Error);
  EXPECT_THROW(mach->permute_local(from, {4, 6, 2, 4}), Error);  // nodes 4..9 of 8
  EXPECT_THROW(mach->permute_local(from, {0, 5, 2, 4}), Error);  // 24 entries are not a multiple of 5 nodes
  const std::uint64_t launches = mach->counters().kernel_launches;
  mach->permute_local(from, {0, 0, 2, 4});
  const std::vector<unsigned char> after = mach->read();
  for (std::uint64_t j = 0; j < 8; ++j)
    for (std::uint64_t i = 0; i < 16; ++i) {
      std::uint64_t src = i;
      if (i >= 2 && i < 14) src = 2 + ((i - 2) / 4 + j) % 3 * 4 + (i - 2) % 4;
      EXPECT_EQ(after[(j * 16 + i) * 4], before[(j * 16 + src) * 4]) << "node " << j << " word " << i;
    }
  EXPECT_EQ(mach->counters().kernel_launches - launches, 2u);
  // Nodes 3..5 only: node 3 + k reverses its blocks, the other nodes keep theirs.
  const std::vector<unsigned char> mid = mach->read();
  mach->permute_local({2, 1, 0, 2, 1, 0, 2, 1, 0}, {3, 3, 2, 4});
  const std::vector<unsigned char> last = mach->read();
  for (std::uint64_t j = 0; j < 8; ++j)
    for (std::uint64_t i = 0; i < 16; ++i) {
      std::uint64_t src = i;
      if (j >= 3 && j < 6 && i >= 2 && i < 14) src = 2 + (2 - (i - 2) / 4) * 4 + (i - 2) % 4;
      EXPECT_EQ(last[(j * 16 + i) * 4], mid[(j * 16 + src) * 4]) << "node " << j << " word " << i;
    }
}

// Block router steps against their definition, word by word: message block f
// is the sender's block from[f mod per] + (f div per) from_step, written to the
// receiver's block to[f mod per] + (f div per) to_step.
TEST_P(RedistributeRun, BlockRouterStepsMoveEachBlockWhereItsEntriesSay) {
  for (const long long tile : {-1LL, 0LL}) {
    auto mach = make_labelled(3, 6, ElementType::u32, tile);  // 8 nodes of 64 words
    const std::vector<unsigned char> before = mach->read();
    // Two steps; blocks of 2 words; senders read words 0..31, receivers write from word 32.
    BlockRouteStep a{{BlockMessage{0, 5, 0, 3, 7}, BlockMessage{1, 4, 3, 1, 2}}, {2, 0, 1, 3}, {1, 2, 0, 0},
                     0, 32, 2, 4, 3};
    BlockRouteStep b{{BlockMessage{6, 1, 0, 2, 3}}, {1, 0}, {0, 1}, 0, 32, 2, 4, 3};
    const RouterStepReport rep = mach->route_blocks({a, b});
    EXPECT_EQ(rep.words, (7 + 2 + 3) * 2u);
    EXPECT_EQ(rep.element_hops, 7 * 2 * 2u + 2 * 2 * 2u + 3 * 2 * 3u);  // 0->5, 1->4, 6->1: 2, 2 and 3 links
    EXPECT_EQ(mach->counters().router_steps, 2u);
    std::vector<unsigned char> want = before;
    const auto word = [](std::uint64_t node, std::uint64_t local) { return (node * 64 + local) * 4; };
    for (const BlockRouteStep* st : {&a, &b})
      for (const BlockMessage& m : st->messages)
        for (std::uint64_t f = 0; f < m.blocks; ++f)
          for (std::uint64_t e = 0; e < 2; ++e) {
            const std::uint64_t from = st->from[m.first + f % m.per] + f / m.per * st->from_step;
            const std::uint64_t to = st->to[m.first + f % m.per] + f / m.per * st->to_step;
            std::memcpy(&want[word(m.dst_node, 32 + to * 2 + e)], &before[word(m.src_node, from * 2 + e)], 4);
          }
    EXPECT_EQ(mach->read(), want) << "tile dims " << tile;
    // Refused before anything moves: a node out of range, a block past K, a node sending twice in a step,
    // a step writing words another reads.
    const std::vector<unsigned char> now = mach->read();
    BlockRouteStep bad = a;
    bad.messages[0].dst_node = 8;
    EXPECT_THROW(mach->route_blocks({bad}), Error);
    bad = a;
    bad.messages[0].blocks = 40;  // (40 - 1) div 3 = 13 periods of 3 blocks: block 40 of the receiver, past 16
    EXPECT_THROW(mach->route_blocks({bad}), Error);
    bad = a;
    bad.messages[1].src_node = 0;
    EXPECT_THROW(mach->route_blocks({bad}), Error);
    BlockRouteStep back{{BlockMessage{5, 0, 0, 1, 1}}, {20}, {0}, 0, 32, 2, 4, 3};  // node 5's words 40, 41: a writes them
    EXPECT_THROW(mach->route_blocks({a, back}), Error);
    BlockRouteStep other = b;
    other.to_step = 2;  // steps of one launch share their block shape
    EXPECT_THROW(mach->route_blocks({a, other}), Error);
    EXPECT_EQ(mach->read(), now);
  }
}

HCUBE_ON_EVERY_BACKEND(RedistributeRun);

// Apart, no node is both a source and a destination, so the two regions share
// the words from 0 and a node needs max(S, D) of them; together, S + D.
TEST(RedistributionPlacement, DisjointSetsShareTheWordsOverlappingOnesStackThem) {
  struct Case {
    Redistribution r;
    bool overlap;
    std::uint64_t S, D, O;
    unsigned n, m;
  };
  const Case cases[] = {
      {{2, 1, 2, 1, 1 << 10}, false, 512, 512, 0, 2, 9},   // 4 nodes of 2^9 words: twice the data, was 4x
      {{2, 1, 2, 1, 1 << 10}, true, 512, 512, 512, 1, 10},
      {{4, 1, 8, 4, 1 << 12}, false, 1024, 512, 0, 4, 10},  // 12 nodes on 16
      {{4, 1, 8, 4, 1 << 12}, true, 1024, 512, 1024, 3, 11},
      {{3, 2, 5, 1, 60}, false, 20, 12, 0, 3, 5},
      {{3, 2, 5, 1, 60, true}, false, 12, 20, 0, 3, 5},     // reverse: cyclic(2) on 5 to cyclic(1) on 3
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "R_" << c.r.x << "(" << c.r.P << ", " << c.r.K << ", " << c.r.Q
                                      << "), N = " << c.r.N << (c.overlap ? ", overlap" : ""));
    const RedistributionPlacement pl = place_redistribution(c.r, c.overlap);
    EXPECT_EQ(pl.source_words, c.S);
    EXPECT_EQ(pl.dest_words, c.D);
    EXPECT_EQ(pl.dest_offset(), c.O);
    EXPECT_EQ(pl.n, c.n);
    EXPECT_EQ(pl.m, c.m);
  }
}

}  // namespace
}  // namespace hcube

// Labels made and checked on the backend: the closed forms of the
// references against their formulas at every address, the labels a backend
// writes against write_label's, and the backend's count of words that are not
// their label -- a NaN, a -0, a wrong imaginary part, a wrong label -- with the
// first one named as the host check names it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <tuple>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backend_test.hpp"
#include "hcube/core/error.hpp"
#include "hcube/emulator/measure.hpp"
#include "hcube/emulator/verified_run.hpp"
#include "hcube/plans.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_build.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/aapc_sequence.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/reference.hpp"

namespace hcube {
namespace {

// f must throw hcube::Error whose text holds `part`; `passed` says what it means if it does not throw.
void expect_error_with(const std::function<void()>& f, const std::string& part, const std::string& passed) {
  try {
    f();
    ADD_FAILURE() << passed;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// Every address: the closed form is the formula.
void expect_same_map(const AffineAddressMap& form, const AddressMap& f, std::uint64_t total, const std::string& what) {
  for (std::uint64_t g = 0; g < total; ++g)
    if (form(g) != f(g)) {
      ADD_FAILURE() << what << ": the closed form sends " << g << " to " << form(g) << ", the formula to " << f(g);
      return;
    }
}

TEST(AffineAddressMap, ComposesAndInverts) {
  std::mt19937_64 rng(26);
  for (unsigned q = 1; q <= 12; ++q) {
    // A random invertible map: a bit permutation, then shears x ^= bit b if bit c is set.
    std::vector<unsigned> to(q);
    for (unsigned b = 0; b < q; ++b) to[b] = b;
    std::shuffle(to.begin(), to.end(), rng);
    AffineAddressMap a = AffineAddressMap::permute_bits(to);
    for (int k = 0; k < 3 && q > 1; ++k) {
      const auto b = static_cast<unsigned>(rng() % q), c = static_cast<unsigned>((b + 1 + rng() % (q - 1)) % q);
      AffineAddressMap shear = AffineAddressMap::identity(q);
      shear.columns[c] |= bit(b);
      a = a.then(shear);
    }
    a.constant = rng() & low_mask(q);
    const AffineAddressMap inv = a.inverse();
    const AddressMap plain = [&a](std::uint64_t g) { return a(g); };
    expect_same_map(AffineAddressMap::of(plain, q), plain, bit(q), "of()");
    for (std::uint64_t g = 0; g < bit(q); ++g) {
      ASSERT_EQ(inv(a(g)), g) << "q = " << q;
      ASSERT_EQ(a.then(inv)(g), g) << "q = " << q;
    }
  }
  AffineAddressMap singular = AffineAddressMap::identity(3);
  singular.columns[2] = singular.columns[1];
  EXPECT_THROW(singular.inverse(), Error);
}

// The permutations whose references are checked on the backend: their closed
// forms equal their formulas everywhere.
TEST(AffineAddressMap, ClosedFormsAreTheFormulas) {
  for (const AapcPermutation p :
       {AapcPermutation::transpose, AapcPermutation::bit_reversal, AapcPermutation::vector_reversal,
        AapcPermutation::gray})
    for (const auto& [n, m, d] : {std::tuple{3u, 3u, 3u}, {4u, 5u, 3u}, {5u, 4u, 4u}, {2u, 6u, 2u}}) {
      const Geometry geo{n, m};
      const PermutationPlan plan = plan_aapc_permutation(p, geo, d);
      expect_same_map(plan.destination_form, plan.destination, geo.total_words(),
                      to_string(p) + " n = " + std::to_string(n) + " m = " + std::to_string(m));
    }
  // hcube run's named permutations: the transpose and the generalized shuffle of a sequence.
  for (const unsigned axes : {1u, 2u, 3u}) {
    AapcSequenceOptions o;
    o.d = 2;
    o.axes = axes;
    const Schedule s = make_aapc_sequence(o);
    const std::optional<NamedPermutation> named = named_permutation(s);
    ASSERT_TRUE(named) << axes << " axes";
    expect_same_map(named->destination_form, named->destination, s.geometry().total_words(), named->name);
  }
  for (const char* text : {"transpose", "bit-reversal", "shuffle:3", "random:5"}) {
    const DimensionPermutation p = parse_dimension_permutation(text, 4, 6);
    expect_same_map(AffineAddressMap::permute_bits(p.to), [&p](std::uint64_t g) { return p.apply(g); }, bit(10), text);
  }
}

class Labels : public BackendTest {};

// Labels written on the backend are write_label's, in any layout.
TEST_P(Labels, FilledLikeWriteLabel) {
  for (const ElementInfo& t : all_element_types())
    for (const long long tile : {0LL, 2LL, 5LL}) {
      Machine mach(MachineOptions{5, 3, t.type, choice(), tile});
      mach.load_labels();
      const std::vector<unsigned char> got = mach.read();
      std::vector<unsigned char> want(got.size());
      for (std::uint64_t g = 0; g < mach.geometry().total_words(); ++g) write_label(t.type, g, &want[g * t.bytes]);
      EXPECT_EQ(got, want) << t.name << ", tile_dims " << tile;
    }
}

// One word made wrong in a way that keeps its type's label readable or not.
std::vector<unsigned char> spoiled(ElementType type, std::uint64_t label, int how) {
  const std::size_t wb = info(type).bytes;
  std::vector<unsigned char> w(wb);
  write_label(type, label, w.data());
  if (how == 0) {
    write_label(type, label ^ 1, w.data());  // another label
  } else if (how == 1 && (type == ElementType::f32 || type == ElementType::c64)) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(w.data(), &nan, sizeof nan);
  } else if (how == 1 && (type == ElementType::f64 || type == ElementType::c128)) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::memcpy(w.data(), &nan, sizeof nan);
  } else if (how == 2 && (type == ElementType::c64 || type == ElementType::c128)) {
    w[wb - 1] ^= 0x80;  // the imaginary part's sign: the real part still reads as the label
  } else if (how == 2 && (type == ElementType::f32 || type == ElementType::f64) && label == 0) {
    w[wb - 1] ^= 0x80;  // -0 where +0 belongs
  } else {
    w[0] ^= 1;
  }
  return w;
}

TEST_P(Labels, EveryWrongWordIsCounted) {
  for (const ElementInfo& t : all_element_types())
    for (int how = 0; how < 3; ++how) {
      Machine mach(MachineOptions{4, 4, t.type, choice(), 2});
      mach.load_labels();
      const AffineAddressMap own = AffineAddressMap::identity(8);
      EXPECT_EQ(mach.count_label_mismatches(own).mismatches, 0u) << t.name;
      // Two wrong words; the first in storage order is named.
      const std::uint64_t late = mach.geometry().global(3, 9), early = mach.geometry().global(0, 0);
      for (const std::uint64_t g : {late, early}) {
        const std::vector<unsigned char> w = spoiled(t.type, g, how);
        mach.scatter(&g, 1, w.data());
      }
      const Machine::LabelCheck check = mach.count_label_mismatches(own);
      EXPECT_EQ(check.mismatches, 2u) << t.name << ", spoiled by " << how;
      EXPECT_EQ(check.first, early) << t.name;
    }
}

// A rank's share of a larger cube: the words [base, base + 2^q) of labels
// placed by the transpose of the whole cube, checked where they are.
TEST_P(Labels, ShareOfALargerCube) {
  const Geometry cube{5, 4}, share{3, 4};
  const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, cube, 4);
  const AffineAddressMap label_at = plan.destination_form.inverse();
  for (std::uint64_t rank = 0; rank < 4; ++rank) {
    const std::uint64_t base = rank * share.total_words();
    std::vector<unsigned char> words(share.total_words() * 8);
    for (std::uint64_t g = 0; g < share.total_words(); ++g) write_label(ElementType::u64, label_at(base + g), &words[g * 8]);
    Machine mach(MachineOptions{share.n, share.m, ElementType::u64, choice(), 2});
    mach.load(words.data(), words.size());
    EXPECT_EQ(mach.count_label_mismatches(label_at, base).mismatches, 0u) << "rank " << rank;
    // Read as another rank's share, every word is wrong (label_at is a bijection).
    const std::uint64_t other = ((rank + 1) % 4) * share.total_words();
    EXPECT_EQ(mach.count_label_mismatches(label_at, other).mismatches, share.total_words()) << "rank " << rank;
  }
}

// A verified run checks labelled data on the backend (phase "verify", no
// copy-out), and names the first wrong word as the host check does.
TEST_P(Labels, VerifiedRunsCheckOnTheBackend) {
  for (const AapcPermutation p : {AapcPermutation::transpose, AapcPermutation::gray}) {
    AapcPlan::Options o;
    o.schedule.method = AapcMethod::alg4;
    o.schedule.d = 4;
    o.schedule.m = 5;
    o.permutation = p;
    o.target = {ElementType::c64, choice()};
    AapcPlan plan(o);
    Session session = open_session(MachineOptions{4, 5, ElementType::c64, choice(), -1});
    execute_verified(session, plan);
    const Counters& k = session.machine->counters();
    EXPECT_EQ(k.phase_seconds("copy-out"), 0.0);
    bool verified = false;
    for (const PhaseTime& ph : k.phases) verified = verified || (ph.name == "verify" && ph.calls == 1);
    EXPECT_TRUE(verified) << to_string(p);
    // The same check again, with one word wrong.
    const std::uint64_t g = session.machine->geometry().global(5, 17);
    const std::vector<unsigned char> w = spoiled(ElementType::c64, 0, 1);
    session.machine->scatter(&g, 1, w.data());
    try {
      verify(session, "the spoiled run");
      ADD_FAILURE() << "a NaN passed";
    } catch (const Error& e) {
      const std::string text = e.what();
      EXPECT_NE(text.find("verification of the spoiled run failed: word 17 of node 5 holds (nan"), std::string::npos)
          << text;
      EXPECT_NE(text.find("the reference has ("), std::string::npos) << text;
      EXPECT_NE(text.find("(1 of 512 words differ)"), std::string::npos) << text;
    }
  }
}

// Label windows: a large machine's address has more bits than its type's
// labels (d = 17 u32: 34 in 32), so a run is checked once per window of the
// address bits. Here windows of 2 bits on an 8-bit machine stand in for them.
TEST(LabelWindows, CoverEveryAddressBit) {
  const auto covered = [](const std::vector<LabelWindow>& windows, unsigned q) {
    std::uint64_t bits = 0;
    unsigned next = 0;
    for (const LabelWindow& w : windows) {
      EXPECT_EQ(w.lo, next) << "windows in order, without gaps";
      EXPECT_GT(w.width, 0u);
      bits |= low_mask(w.width) << w.lo;
      next = w.lo + w.width;
    }
    return next == q && bits == low_mask(q);
  };
  // d = 17: 34 address bits; u32 holds 32 label bits, f32 24, u64 all of them.
  const std::vector<LabelWindow> u32 = label_windows(Geometry{17, 17}, ElementType::u32);
  ASSERT_EQ(u32.size(), 2u);
  EXPECT_EQ(u32[1].lo, 32u);
  EXPECT_EQ(u32[1].width, 2u);
  EXPECT_TRUE(covered(u32, 34));
  EXPECT_TRUE(covered(label_windows(Geometry{17, 17}, ElementType::f32), 34));
  EXPECT_EQ(label_windows(Geometry{17, 17}, ElementType::u64).size(), 1u);
  EXPECT_EQ(label_windows(Geometry{8, 8}, ElementType::u32).size(), 1u);
  for (unsigned w = 1; w <= 9; ++w) EXPECT_TRUE(covered(label_windows(Geometry{4, 5}, ElementType::u32, w), 9)) << w;
  EXPECT_THROW(label_windows(Geometry{4, 4}, ElementType::f32, 25), Error);
  // A window's map takes its bits down to bit 0.
  const AffineAddressMap m = LabelWindow{3, 2}.map(8);
  EXPECT_EQ(m(0b11111111), 0b11u);
  EXPECT_EQ(m(0b00010000), 0b10u);
  EXPECT_EQ(m(0b11100111), 0b00u);
}

TEST_P(Labels, WindowsLoadTheirBits) {
  Machine mach(MachineOptions{4, 4, ElementType::f32, choice(), 2});
  const AffineAddressMap high = LabelWindow{5, 3}.map(8);
  mach.load_labels(high);
  EXPECT_EQ(mach.count_label_mismatches(high).mismatches, 0u);
  EXPECT_NE(mach.count_label_mismatches(AffineAddressMap::identity(8)).mismatches, 0u);
  // f32 holds 24 label bits: a window reaching bit 24 is refused.
  AffineAddressMap wide = AffineAddressMap::identity(8);
  wide.columns[7] = bit(24);
  EXPECT_THROW(mach.load_labels(wide), Error);
}

// A permutation that misplaces only the high bits of a word's address passes
// the low windows and fails the high one, and the other way round; the right
// one passes all.
// The reference is the closed form of the intended map, never the run itself.
TEST_P(Labels, WindowsCatchWordsWrongInAnyBits) {
  const std::vector<unsigned> right{4, 5, 6, 7, 0, 1, 2, 3};  // the transpose of n = m = 4
  const AffineAddressMap destination = AffineAddressMap::permute_bits(right);
  std::vector<unsigned> high = right, low = right;
  std::swap(high[4], high[5]);  // address bits 4, 5 land on 1, 0: the high bits misplaced, the low ones right
  std::swap(low[0], low[1]);    // address bits 0, 1 land on 5, 4: the low bits misplaced, the high ones right
  Machine mach(MachineOptions{4, 4, ElementType::u32, choice(), 2});
  const auto run_with = [&](const std::vector<unsigned>& to) {
    std::vector<std::size_t> windows;
    verify_in_windows(
        mach, destination,
        [&](std::size_t k) {
          windows.push_back(k);
          mach.permute_address_bits(to);
        },
        "the test permutation", 2);
    return windows.size();
  };
  EXPECT_EQ(run_with(right), 4u);
  const auto fails_in = [&](const std::vector<unsigned>& to, const std::string& bits) {
    expect_error_with([&] { run_with(to); },
                      "verification of the test permutation (labels: address bits " + bits + ") failed",
                      "a wrong permutation passed every window");
  };
  fails_in(high, "4..5");
  fails_in(low, "0..1");
  // One window as wide as the machine catches both.
  EXPECT_THROW(verify_in_windows(mach, destination, [&](std::size_t) { mach.permute_address_bits(high); }, "x"), Error);
}

// A plan that claims `claimed` and moves its words by `actual`: a plan under test whose
// result may be wrong, checked against the closed form of what it claims.
class BitPermutingPlan final : public Plan {
 public:
  BitPermutingPlan(const Geometry& geo, const PlanTarget& target, const std::vector<unsigned>& claimed,
                   std::vector<unsigned> actual)
      : Plan(geo, target), actual_(std::move(actual)) {
    Job job;
    job.destination = [claimed](std::uint64_t g) { return AffineAddressMap::permute_bits(claimed)(g); };
    job.destination_form = AffineAddressMap::permute_bits(claimed);
    job.permutation = "bit permutation";
    job.formula = "under test";
    job.one_step = "bit permutation";
    set_job(std::move(job));
  }

 private:
  void run(Machine& machine, const Machine::Progress&) override { machine.permute_address_bits(actual_); }
  std::vector<unsigned> actual_;
};

// hcube aapc on a machine whose address outgrows its labels (d = 17 u32): the session holds
// one window of labels and execute_verified repeats the run for each other one, counting one
// run. Windows of 3 bits on an 8-bit machine stand in: a word wrong only in the high bits
// passes the low window and fails a high one, and the other way round.
TEST_P(Labels, ExecuteVerifiedRepeatsTheRunPerWindow) {
  const Geometry geo{4, 4};
  const std::vector<unsigned> right{4, 5, 6, 7, 0, 1, 2, 3};
  std::vector<unsigned> high = right, low = right;
  std::swap(high[6], high[7]);  // address bits 6, 7 (window 6..7) land on each other's place
  std::swap(low[0], low[1]);    // address bits 0, 1 (window 0..2)
  const MachineOptions options{4, 4, ElementType::u32, choice(), 2};
  const auto run = [&](const std::vector<unsigned>& actual) {
    BitPermutingPlan plan(geo, PlanTarget{ElementType::u32, choice()}, right, actual);
    Session s = open_session(options, {}, LabelMode::windows, 3);
    EXPECT_EQ(s.windows.size(), 3u);
    execute_verified(s, plan);
    return s;
  };
  const Session s = run(right);
  EXPECT_EQ(s.window, 0u);
  // One run counted; the other windows' runs are time spent verifying.
  EXPECT_EQ(s.machine->counters().kernel_launches, 1u);
  // Window 0 last: the result holds the low 3 bits of each word's source address.
  const std::vector<unsigned char> words = s.machine->read();
  const AffineAddressMap source = AffineAddressMap::permute_bits(right).inverse();
  for (std::uint64_t g = 0; g < geo.total_words(); ++g) {
    std::uint32_t v = 0;
    std::memcpy(&v, &words[g * 4], 4);
    ASSERT_EQ(v, source(g) & 7u) << "word " << g;
  }
  const auto fails_in = [&](const std::vector<unsigned>& actual, const std::string& bits) {
    expect_error_with([&] { run(actual); }, "(labels: address bits " + bits + ") failed",
                      "a wrong run passed every window");
  };
  fails_in(high, "6..7");
  fails_in(low, "0..2");
  // A step by step check has no closed form to follow in windows: refused, not checked on the low bits alone.
  Session stepwise = open_session(options, {}, LabelMode::windows, 3);
  stepwise.machine->permute_address_bits(right);
  advance_reference(stepwise, [&](std::uint64_t g) { return AffineAddressMap::permute_bits(right)(g); });
  expect_error_with([&] { verify(stepwise, "a step"); }, "needs each step's closed form",
                    "a windowed session verified without a closed form");
  // Without windows asked for, labels the type cannot hold stay an error.
  EXPECT_THROW(open_session(MachineOptions{13, 13, ElementType::f32, choice(), -1}), Error);
}

// hcube sweep checks every d on the backend: here in windows of 3 bits, so
// d = 2..4 (4 to 8 address bits) take two and three windows.
TEST_P(Labels, SweepRowsVerifiedInWindowsAtEveryD) {
  SweepRequest r;
  r.from = 2;
  r.to = 4;
  r.algorithms = {"1", "4", "edelman-unaligned"};
  r.repeat = 1;
  r.backend = choice();
  r.label_window_bits = 3;
  const SweepResult s = run_sweep(r);
  ASSERT_EQ(s.rows.size(), 9u);
  for (const SweepRow& row : s.rows) {
    EXPECT_TRUE(row.verified) << row.d << " " << row.algorithm;
    EXPECT_GT(row.element_hops, 0u) << row.d << " " << row.algorithm;
    EXPECT_EQ(row.memcpy_bytes, row.data_bytes);
  }
}

// The memory a sweep point needs, and the range refused before anything is allocated.
TEST(Sweep, RangeFitsBeforeAnyAllocation) {
  SweepRequest r;
  r.algorithms = {"4"};
  // d = 17 u32: 64 GiB of words and two copy buffers of 4 GiB, not two of 64 GiB.
  EXPECT_EQ(sweep_bytes_needed(r, 17), (std::uint64_t{64} << 30) + (std::uint64_t{8} << 30));
  EXPECT_EQ(sweep_bytes_needed(r, 5), 3u * 4096u);
  const std::uint64_t available = sweep_bytes_needed(r, 8);
  EXPECT_EQ(sweep_largest_fitting(r, available), 8u);
  EXPECT_EQ(sweep_largest_fitting(r, available - 1), 7u);
  r.from = 2;
  r.to = kSweepLargestFitting;
  EXPECT_EQ(fit_sweep(r, available).to, 8);
  r.to = 9;
  try {
    fit_sweep(r, available);
    ADD_FAILURE() << "d = 9 fitted";
  } catch (const OutOfMemory& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("d = 9 needs 3.0 MiB"), std::string::npos) << text;
    EXPECT_NE(text.find("the largest d that fits is 8"), std::string::npos) << text;
  }
  r.from = 9;
  r.to = kSweepLargestFitting;
  EXPECT_THROW(fit_sweep(r, available), OutOfMemory);
  r.from = 1;
  r.to = kSweepMaxDims + 1;
  EXPECT_THROW(check_sweep(r), Error);
  EXPECT_EQ(parse_sweep_to("max"), kSweepLargestFitting);
  EXPECT_EQ(parse_sweep_to("17"), 17);
  EXPECT_THROW(parse_sweep_to("17x"), Error);
}

HCUBE_ON_EVERY_BACKEND(Labels);

}  // namespace
}  // namespace hcube

// The public plans (hcube/plans.hpp) on the caller's own buffers: each result
// is checked against the permutation written here from its address formula,
// independently of the library, and against the Machine path bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include "backend_test.hpp"
#ifdef HCUBE_TEST_CUDA_FAULT
#include <cuda_runtime.h>

namespace hcube {
void launch_fault(void* stream);  // tests/support/cuda_fault.cu
}  // namespace hcube
#endif
#include "hcube/emulator/json.hpp"
#include "hcube/hcube.hpp"

namespace hcube {
namespace {

std::uint64_t reverse(std::uint64_t v, unsigned bits) {
  std::uint64_t r = 0;
  for (unsigned b = 0; b < bits; ++b) r |= ((v >> b) & 1) << (bits - 1 - b);
  return r;
}

// Distinct words that are not the labels 0, 1, 2, ...: a plan that
// relabelled instead of moving would fail.
std::vector<std::uint32_t> distinct_words(std::uint64_t count, std::uint32_t seed) {
  std::vector<std::uint32_t> v(count);
  for (std::uint64_t g = 0; g < count; ++g) v[g] = static_cast<std::uint32_t>(g * 2654435761u) ^ seed;
  return v;
}

// The same plan on a Machine of its geometry: load, execute(Machine&), read.
template <class T>
std::vector<T> via_machine(Plan& plan, const std::vector<T>& in, BackendChoice backend = BackendChoice::cpu) {
  Machine mach(MachineOptions{plan.geometry().n, plan.geometry().m, plan.type(), backend, -1});
  mach.load(in.data(), in.size() * sizeof(T));
  plan.execute(mach);
  std::vector<T> out(in.size());
  mach.read(out.data(), out.size() * sizeof(T));
  return out;
}

TEST(Plans, VersionIsTheCommandLines) {
  EXPECT_STREQ(version(), HCUBE_VERSION);
  EXPECT_GT(std::strlen(version()), 0u);
}

TEST(Plans, AapcTransposesTheCallersBufferForEveryMethod) {
  for (AapcMethod method : {AapcMethod::alg1, AapcMethod::alg2, AapcMethod::alg3, AapcMethod::alg4,
                            AapcMethod::edelman, AapcMethod::sex, AapcMethod::dex})
    for (long long d = 1; d <= 5; ++d) {
      AapcPlan::Options o;
      o.schedule.method = method;
      o.schedule.d = d;
      o.target = {ElementType::u32, BackendChoice::cpu};
      AapcPlan plan(o);
      const std::uint64_t K = bit(static_cast<unsigned>(d));
      const std::vector<std::uint32_t> in = distinct_words(K * K, 7);
      std::vector<std::uint32_t> buf = in;
      const Counters c = plan.execute(buf.data(), buf.size() * 4);
      // (j|i) -> (i|j): word i of node j lands at word j of node i.
      for (std::uint64_t j = 0; j < K; ++j)
        for (std::uint64_t i = 0; i < K; ++i)
          ASSERT_EQ(buf[i * K + j], in[j * K + i]) << to_string(method) << " d = " << d;
      EXPECT_EQ(c.routing_cycles, plan.stats().cycles);
      EXPECT_EQ(buf, via_machine(plan, in)) << to_string(method) << " d = " << d;
      // Executed again on the result: the transpose of the transpose, same counts.
      const Counters again = plan.execute(buf.data(), buf.size() * 4);
      EXPECT_EQ(buf, in);
      EXPECT_EQ(again.routing_cycles, c.routing_cycles);
      EXPECT_EQ(again.element_hops, c.element_hops);
    }
}

TEST(Plans, AapcBitReversalOnWiderWords) {
  const unsigned d = 4;
  AapcPlan::Options o;
  o.schedule.d = d;
  o.permutation = AapcPermutation::bit_reversal;
  o.target = {ElementType::u64, BackendChoice::cpu};
  AapcPlan plan(o);
  const std::uint64_t total = bit(2 * d);
  std::vector<std::uint64_t> in(total), buf;
  for (std::uint64_t g = 0; g < total; ++g) in[g] = g * 0x9E3779B97F4A7C15ull;
  buf = in;
  plan.execute(buf.data(), buf.size() * 8);
  // (j|i) -> (rev i|rev j) on d bits each: the whole address reversed.
  for (std::uint64_t g = 0; g < total; ++g) ASSERT_EQ(buf[reverse(g, 2 * d)], in[g]) << g;
}

TEST(Plans, PermuteBitReversalFusedAndRoutedByEveryAlgorithm) {
  const unsigned n = 3, m = 4, q = n + m;
  const std::vector<std::uint32_t> in = distinct_words(bit(q), 3);
  for (const char* ports : {"one", "all"})
    for (const SdpAlgorithm a : {SdpAlgorithm::automatic, SdpAlgorithm::a1, SdpAlgorithm::a1_prime, SdpAlgorithm::a2,
                                 SdpAlgorithm::a3, SdpAlgorithm::a4, SdpAlgorithm::a5, SdpAlgorithm::a6,
                                 SdpAlgorithm::a6_prime}) {
      PermutePlan::Options o;
      o.perm = "bit-reversal";
      o.n = n;
      o.m = m;
      o.algorithm = a;
      o.cost.ports = parse_ports(ports);
      o.target = {ElementType::u32, BackendChoice::cpu};
      std::unique_ptr<PermutePlan> plan;
      try {
        plan = std::make_unique<PermutePlan>(o);
      } catch (const Error& e) {
        // An algorithm the ports or the permutation rule out says so.
        EXPECT_TRUE(std::string(e.what()).find("applies") != std::string::npos ||
                    std::string(e.what()).find("needs SdpCost::ports all") != std::string::npos)
            << e.what();
        continue;
      }
      std::vector<std::uint32_t> buf = in;
      plan->execute(buf.data(), buf.size() * 4);
      for (std::uint64_t g = 0; g < bit(q); ++g)
        ASSERT_EQ(buf[reverse(g, q)], in[g]) << to_string(plan->chosen()->algorithm) << " " << ports;
      EXPECT_EQ(buf, via_machine(*plan, in));
    }
  PermutePlan::Options o;
  o.perm = "bit-reversal";
  o.n = n;
  o.m = m;
  o.fused = true;
  o.target = {ElementType::u32, BackendChoice::cpu};
  PermutePlan fused(o);
  EXPECT_EQ(fused.scratch_bytes(), fused.data_bytes());
  std::vector<std::uint32_t> buf = in;
  const Counters c = fused.execute(buf.data(), buf.size() * 4);
  for (std::uint64_t g = 0; g < bit(q); ++g) ASSERT_EQ(buf[reverse(g, q)], in[g]);
  EXPECT_EQ(c.routing_cycles, 0u);
}

TEST(Plans, RandomPermutationsWithTheCallersScratch) {
  std::mt19937 rng(20261123);
  for (int trial = 0; trial < 40; ++trial) {
    const unsigned n = 1 + rng() % 4, m = 1 + rng() % 4, q = n + m;
    std::vector<unsigned> to(q);
    std::iota(to.begin(), to.end(), 0u);
    std::shuffle(to.begin(), to.end(), rng);
    std::string text;
    for (unsigned b : to) text += (text.empty() ? "" : ",") + std::to_string(b);
    PermutePlan::Options o;
    o.perm = text;
    o.n = n;
    o.m = m;
    o.fused = trial % 3 == 0;
    o.cost.ports = trial % 2 == 0 ? PortModelChoice::all : PortModelChoice::one;
    o.target = {ElementType::u32, BackendChoice::cpu};
    PermutePlan plan(o);
    const std::vector<std::uint32_t> in = distinct_words(bit(q), static_cast<std::uint32_t>(trial));
    std::vector<std::uint32_t> buf = in;
    std::vector<unsigned char> scratch(plan.scratch_bytes());
    plan.execute(buf.data(), buf.size() * 4, Scratch{scratch.empty() ? nullptr : scratch.data(), scratch.size()});
    for (std::uint64_t g = 0; g < bit(q); ++g) {
      std::uint64_t dest = 0;  // source bit i to bit to[i]
      for (unsigned i = 0; i < q; ++i) dest |= ((g >> i) & 1) << to[i];
      ASSERT_EQ(buf[dest], in[g]) << "perm " << text << " n = " << n << " m = " << m;
    }
  }
}

TEST(Plans, ExtendedCubePermutationOnASubcube) {
  // A real cycle 3 -> 4 -> 5 of processor bits on 3 of the 5 processor dimensions.
  const std::vector<unsigned> to = {0, 1, 2, 4, 5, 3};
  for (const PortModelChoice ports : {PortModelChoice::one, PortModelChoice::all}) {
    PermutePlan::Options o;
    o.perm = "0,1,2,4,5,3";
    o.n = 5;
    o.m = 3;
    o.subcube_dims = 3;
    o.cost.ports = ports;
    o.target = {ElementType::u32, BackendChoice::cpu};
    PermutePlan plan(o);
    EXPECT_EQ(plan.geometry().n, 3u);
    EXPECT_GT(plan.scratch_bytes(), plan.data_bytes());  // the whole cube beside the data
    const std::vector<std::uint32_t> in = distinct_words(bit(6), 9);
    std::vector<std::uint32_t> buf = in;
    plan.execute(buf.data(), buf.size() * 4);
    for (std::uint64_t g = 0; g < bit(6); ++g) {
      std::uint64_t dest = 0;
      for (unsigned i = 0; i < 6; ++i) dest |= ((g >> i) & 1) << to[i];
      ASSERT_EQ(buf[dest], in[g]) << g;
    }
    EXPECT_EQ(buf, via_machine(plan, in));
  }
}

TEST(Plans, MultiAapcIsTheGeneralizedShuffle) {
  for (const char* algorithm : {"1", "3", "4", "5"})
    for (bool sequential : {false, true}) {
      if (sequential && std::string(algorithm) == "5") continue;
      const unsigned d = 2, s = 2;
      MultiAapcPlan::Options o;
      o.request.axes = s;
      o.request.dims = std::to_string(d);
      o.request.m = d;
      o.request.algorithm = algorithm;
      o.request.sequential = sequential;
      o.target = {ElementType::u32, BackendChoice::cpu};
      MultiAapcPlan plan(o);
      const unsigned q = (s + 1) * d;
      const std::vector<std::uint32_t> in = distinct_words(bit(q), 5);
      std::vector<std::uint32_t> buf = in;
      plan.execute(buf.data(), buf.size() * 4);
      // (a_s..a_1|a_0) -> (a_(s-1)..a_0|a_s): the address rotated left by d bits.
      for (std::uint64_t g = 0; g < bit(q); ++g) {
        const std::uint64_t dest = ((g << d) | (g >> (q - d))) & (bit(q) - 1);
        ASSERT_EQ(buf[dest], in[g]) << "algorithm " << algorithm << (sequential ? " sequential" : "");
      }
      EXPECT_EQ(buf, via_machine(plan, in));
    }
}

TEST(Plans, DistributedFftMatchesADirectDft) {
  for (const FftOrder order : {FftOrder::natural, FftOrder::bit_reversed}) {
    const unsigned q = 7, n = 3, m = q - n;
    const std::uint64_t N = bit(q);
    DistributedFftPlan::Options o;
    o.points_log2 = q;
    o.nodes_log2 = n;
    o.fft.order = order;
    o.target = {ElementType::c128, BackendChoice::cpu};
    DistributedFftPlan plan(o);
    std::vector<std::complex<double>> x(N), buf(N);
    for (std::uint64_t t = 0; t < N; ++t) {
      const double v = static_cast<double>(t);
      x[t] = {std::cos(0.3 * v) + 0.01 * v, std::sin(1.7 * v)};
    }
    // Cyclic order: point t at node t mod 2^n, local address t >> n.
    for (std::uint64_t t = 0; t < N; ++t) buf[(t & (bit(n) - 1)) * bit(m) + (t >> n)] = x[t];
    plan.execute(buf.data(), buf.size() * sizeof(std::complex<double>));
    const double pi = std::acos(-1.0);
    for (std::uint64_t k = 0; k < N; ++k) {
      std::complex<double> want = 0;
      for (std::uint64_t t = 0; t < N; ++t)
        want += x[t] * std::polar(1.0, -2 * pi * static_cast<double>(t * k % N) / static_cast<double>(N));
      const std::complex<double> got = buf[plan.result_address(k)];
      ASSERT_TRUE(std::isfinite(got.real()) && std::isfinite(got.imag())) << k;
      ASSERT_LT(std::abs(got - want), 1e-9 * static_cast<double>(N)) << "X[" << k << "] " << to_string(order);
    }
  }
}

TEST(Plans, RedistributionMatchesTheLayoutFormula) {
  RedistributePlan::Options o;
  o.problem = Redistribution{3, 2, 5, 2, 0};  // P, K, Q, x
  o.problem.N = 60 * o.problem.x;
  o.target = {ElementType::u32, BackendChoice::cpu};
  RedistributePlan plan(o);
  const RedistributionPlacement& pl = plan.placement();
  const Redistribution& r = pl.r;
  std::vector<std::uint32_t> data(r.N);
  for (std::uint64_t g = 0; g < r.N; ++g) data[g] = static_cast<std::uint32_t>(1000 + 3 * g);
  const std::vector<unsigned char> image = source_image(pl, data.data(), 4);
  std::vector<std::uint32_t> buf(image.size() / 4);
  std::memcpy(buf.data(), image.data(), image.size());
  plan.execute(buf.data(), buf.size() * 4);
  // cyclic(Kx) on Q: big block b = g div Kx on destination b mod Q, at local
  // (b div Q) Kx + g mod Kx of its region, which starts at word O.
  const std::uint64_t big = r.K * r.x, Kw = bit(pl.m);
  for (std::uint64_t g = 0; g < r.N; ++g) {
    const std::uint64_t b = g / big, q = b % r.Q, local = (b / r.Q) * big + g % big;
    ASSERT_EQ(buf[pl.destination_node(q) * Kw + pl.dest_offset() + local], data[g]) << g;
  }
}

// docs/api.md: --perm p is NumPy's a.reshape((2,) * q).transpose(axes) with
// p[q-1-axes[k]] = q-1-k. NumPy's rule, written out: the result's element at
// multi-index (c_0..c_(q-1)) is a's element whose index along axis axes[k] is
// c_k, axis k being address bit q-1-k in C order.
TEST(Plans, PermIsNumpysTransposeOfAxes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const unsigned q = 1 + rng() % 8;
    std::vector<unsigned> axes(q);
    std::iota(axes.begin(), axes.end(), 0u);
    std::shuffle(axes.begin(), axes.end(), rng);
    std::vector<unsigned> p(q);
    for (unsigned k = 0; k < q; ++k) p[q - 1 - axes[k]] = q - 1 - k;
    DimensionPermutation perm{1, q - 1, p};
    for (std::uint64_t out = 0; out < bit(q); ++out) {
      std::uint64_t src = 0;  // a's flat index read into b's flat index `out`
      for (unsigned k = 0; k < q; ++k) src |= ((out >> (q - 1 - k)) & 1) << (q - 1 - axes[k]);
      ASSERT_EQ(perm.apply(src), out) << "q = " << q;
    }
  }
}

TEST(Plans, BadBuffersAndOptionsAreRefusedWithOneLine) {
  AapcPlan::Options o;
  o.schedule.d = 3;
  o.target = {ElementType::u32, BackendChoice::cpu};
  AapcPlan plan(o);
  std::vector<std::uint32_t> small(10);
  try {
    plan.execute(small.data(), small.size() * 4);
    FAIL() << "a short buffer was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("holds 40 bytes"), std::string::npos) << e.what();
  }
  std::vector<std::uint32_t> buf(64);
  EXPECT_THROW(plan.execute_device(buf.data(), buf.size() * 4, nullptr), Error);
  AapcPlan::Options bad = o;
  bad.schedule.d = 0;
  try {
    AapcPlan p(bad);
    FAIL() << "d = 0 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("d = 0"), std::string::npos) << e.what();
  }
  PermutePlan::Options p;
  p.perm = "0,1,1";
  p.n = 1;
  p.m = 2;
  p.target = {ElementType::u32, BackendChoice::cpu};
  EXPECT_THROW(PermutePlan{p}, Error);
  // A fused plan given too little scratch says how much it needs.
  p.perm = "transpose";
  p.fused = true;
  p.m = 1;
  PermutePlan fused(p);
  std::vector<std::uint32_t> data(4), scratch(1);
  try {
    fused.execute(data.data(), 16, Scratch{scratch.data(), 4});
    FAIL() << "short scratch accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs 16"), std::string::npos) << e.what();
  }
}

// NumPy's transpose written out: result element at multi-index c (over the
// result's extents) is a's element whose index along axis axes[k] is c_k.
template <class T>
std::vector<T> numpy_transpose(const std::vector<T>& a, const std::vector<std::uint64_t>& extents,
                               const std::vector<int>& axes) {
  const std::size_t r = extents.size();
  std::vector<std::uint64_t> out_ext(r), c(r), src(r);
  for (std::size_t k = 0; k < r; ++k) out_ext[k] = extents[static_cast<std::size_t>(axes[k])];
  std::vector<T> out(a.size());
  for (std::uint64_t flat = 0; flat < a.size(); ++flat) {
    std::uint64_t rest = flat;  // C order: the last axis varies fastest
    for (std::size_t k = r; k-- > 0;) {
      c[k] = rest % out_ext[k];
      rest /= out_ext[k];
    }
    for (std::size_t k = 0; k < r; ++k) src[static_cast<std::size_t>(axes[k])] = c[k];
    std::uint64_t from = 0;
    for (std::size_t k = 0; k < r; ++k) from = from * extents[k] + src[k];
    out[flat] = a[from];
  }
  return out;
}

struct Bytes16 {  // any 16-byte trivially copyable word
  std::uint64_t lo, hi;
  bool operator==(const Bytes16& o) const { return lo == o.lo && hi == o.hi; }
};

template <class T>
T word_of(std::uint64_t g) {
  if constexpr (std::is_same_v<T, Bytes16>) return {g * 0x9E3779B97F4A7C15ull, ~g};
  else if constexpr (std::is_same_v<T, std::complex<double>>) return {static_cast<double>(g), -0.5 - static_cast<double>(g)};
  else return static_cast<T>(g * 7 + 3);
}

template <class T>
void check_typed_transposes(unsigned seed) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t r = 1 + rng() % 4;
    std::vector<std::uint64_t> extents(r);
    unsigned q = 0;
    do {
      q = 0;
      for (auto& e : extents) {
        const unsigned w = rng() % 4;  // extents 1..8
        e = std::uint64_t{1} << w;
        q += w;
      }
    } while (q == 0 || q > 11);
    std::vector<int> axes(r);
    std::iota(axes.begin(), axes.end(), 0);
    std::shuffle(axes.begin(), axes.end(), rng);
    std::vector<T> a(std::size_t{1} << q);
    for (std::uint64_t g = 0; g < a.size(); ++g) a[g] = word_of<T>(g);
    const std::vector<T> want = numpy_transpose(a, extents, axes);
    TransposePlan<T> plan(extents, axes, BackendChoice::cpu);  // the two statements
    plan.execute(a);
    ASSERT_TRUE(a == want) << "trial " << trial;
    EXPECT_EQ(plan.size(), a.size());
  }
}

// The typed plans in two statements: NumPy's transpose of power-of-two
// extents, on any word of 4, 8 or 16 bytes, against the index arithmetic.
TEST(TypedPlans, TransposeIsNumpysTransposeOfExtents) {
  check_typed_transposes<float>(1);
  check_typed_transposes<std::int64_t>(2);
  check_typed_transposes<std::complex<double>>(3);
  check_typed_transposes<Bytes16>(4);
  static_assert(element_type_of<std::int64_t>() == ElementType::u64);
  static_assert(element_type_of<Bytes16>() == ElementType::c128);
  static_assert(element_type_of<std::int32_t>() == ElementType::i32);
}

TEST(TypedPlans, BitReversalAndAMatrixTranspose) {
  std::vector<std::uint32_t> v(1 << 10);
  for (std::uint32_t g = 0; g < v.size(); ++g) v[g] = g;
  auto rev = bit_reversal_plan<std::uint32_t>(v.size(), BackendChoice::cpu);
  rev.execute(v);
  for (std::uint32_t g = 0; g < v.size(); ++g) ASSERT_EQ(v[reverse(g, 10)], g);
  std::vector<double> m(32 * 8);
  for (std::size_t g = 0; g < m.size(); ++g) m[g] = static_cast<double>(g);
  TransposePlan<double> t({32, 8}, {1, 0}, BackendChoice::cpu);
  t.execute(m.data(), m.size());
  EXPECT_EQ(t.result_extents(), (std::vector<std::uint64_t>{8, 32}));
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 32; ++j) ASSERT_EQ(m[i * 32 + j], static_cast<double>(j * 8 + i));
}

// A schedule file is a plan: loaded and checked once, run on the caller's
// buffer, verified against what its header names (here the transpose,
// written from its formula); a schedule built elsewhere is checked when its
// plan is made, so a bad one never runs.
TEST(SchedulePlans, AFileRunsAsItsPlanAndABadScheduleIsRefusedWhenMade) {
  const unsigned d = 3;
  AapcPlan::Options o;
  o.schedule.d = d;
  o.target = {ElementType::u32, BackendChoice::cpu};
  const AapcPlan aapc(o);
  char path[] = "/tmp/hcube_schedule_plan_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  save_schedule(path, aapc.schedule());
  SchedulePlan plan({path, std::nullopt, {ElementType::u32, BackendChoice::cpu}});
  std::remove(path);
  EXPECT_TRUE(plan.verified());
  EXPECT_EQ(plan.stats().cycles, aapc.stats().cycles);
  std::vector<std::uint32_t> v(std::size_t{1} << (2 * d));
  std::iota(v.begin(), v.end(), 0u);
  plan.execute(v.data(), v.size() * 4);
  for (std::uint32_t g = 0; g < v.size(); ++g) ASSERT_EQ(v[((g & 7u) << d) | (g >> d)], g);
  // An exchange on a dimension the machine lacks: refused as the plan is made.
  Job bad;
  bad.schedule = aapc.schedule().header();
  Exchange e;
  e.dim = 9;
  bad.schedule.add(e);
  bad.schedule.end_cycle();
  EXPECT_THROW(SchedulePlan(std::move(bad), PlanTarget{ElementType::u32, BackendChoice::cpu}), Error);
}

// Plans are nothrow-movable: returned by value, kept in containers, still running.
TEST(TypedPlans, PlansMoveWithoutThrowing) {
  static_assert(std::is_nothrow_move_constructible_v<AapcPlan>);
  static_assert(std::is_nothrow_move_constructible_v<PermutePlan>);
  static_assert(std::is_nothrow_move_constructible_v<MultiAapcPlan>);
  static_assert(std::is_nothrow_move_constructible_v<DistributedFftPlan>);
  static_assert(std::is_nothrow_move_constructible_v<RedistributePlan>);
  static_assert(std::is_nothrow_move_constructible_v<SchedulePlan>);
  static_assert(std::is_nothrow_move_constructible_v<TransposePlan<float>>);
  static_assert(std::is_nothrow_move_assignable_v<PermutePlan>);
  std::vector<TransposePlan<std::uint32_t>> plans;
  for (int k = 0; k < 4; ++k) plans.push_back(TransposePlan<std::uint32_t>({16, 4}, {1, 0}, BackendChoice::cpu));
  TransposePlan<std::uint32_t> moved = std::move(plans.back());
  std::vector<std::uint32_t> v(64);
  for (std::uint32_t g = 0; g < 64; ++g) v[g] = g;
  moved.execute(v);
  for (std::uint32_t i = 0; i < 4; ++i)
    for (std::uint32_t j = 0; j < 16; ++j) ASSERT_EQ(v[i * 16 + j], j * 4 + i);
}

// Errors name the API's parameters, never a command-line flag.
TEST(TypedPlans, BadExtentsAxesAndBuffersAreRefusedInApiTerms) {
  const auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const std::string not_pow2 = message([] { TransposePlan<float>({4, 3}, {1, 0}, BackendChoice::cpu); });
  EXPECT_NE(not_pow2.find("extents[1] = 3 is not a power of two"), std::string::npos) << not_pow2;
  const std::string bad_axes = message([] { TransposePlan<float>({4, 2}, {1, 1}, BackendChoice::cpu); });
  EXPECT_NE(bad_axes.find("axes = (1, 1) is not a permutation of 0..1"), std::string::npos) << bad_axes;
  const std::string few_axes = message([] { TransposePlan<float>({4, 2}, {0}, BackendChoice::cpu); });
  EXPECT_NE(few_axes.find("axes has 1 entries"), std::string::npos) << few_axes;
  const std::string count = message([] { bit_reversal_plan<float>(12, BackendChoice::cpu); });
  EXPECT_NE(count.find("count = 12 is not a power of two"), std::string::npos) << count;
  TransposePlan<float> plan({4, 2}, {1, 0}, BackendChoice::cpu);
  std::vector<float> shorter(7);
  const std::string size = message([&] { plan.execute(shorter); });
  EXPECT_NE(size.find("holds 28 bytes"), std::string::npos) << size;
  for (const std::string& m : {not_pow2, bad_axes, few_axes, count, size})
    EXPECT_EQ(m.find("--"), std::string::npos) << "a command-line flag in: " << m;
}

// The verified run's trace is data: every step, its state and its exchanges,
// handed to an observer; the states are checked here against the transpose
// composed from the steps' own destination maps and, at the end, the formula.
TEST(VerifiedRun, TraceHandsEveryStepToTheObserver) {
  const unsigned d = 2;
  AapcPlan::Options o;
  o.schedule.d = d;
  o.target = {ElementType::u32, BackendChoice::cpu};
  AapcPlan plan(o);
  const ScheduleStats& stats = plan.stats();
  Session s = open_session(MachineOptions{d, d, ElementType::u32, BackendChoice::cpu, -1});
  std::vector<std::string> names;
  std::size_t cycles_seen = 0;
  std::vector<std::uint64_t> where(bit(2 * d));  // where each starting word is now, composed step by step
  std::iota(where.begin(), where.end(), 0);
  const StepObserver observe = [&](hcube::Session& session, const TraceStep& t) {
    names.push_back(t.name);
    if (t.cycle != nullptr) ++cycles_seen;
    for (std::uint64_t& w : where) w = t.destination(w);
    // The state handed over is the machine's: label g sits where g has gone.
    const std::vector<unsigned char> state = session.machine->read();
    for (std::uint64_t g = 0; g < where.size(); ++g) {
      std::uint32_t label = 0;
      std::memcpy(&label, &state[where[g] * 4], 4);
      ASSERT_EQ(label, g) << t.name;
    }
  };
  execute_verified(s, plan, RunOptions{true, observe, {}});
  EXPECT_EQ(cycles_seen, stats.cycles);
  ASSERT_EQ(names.size(), stats.cycles + 2);
  EXPECT_EQ(names.front(), "pre-alignment");
  EXPECT_EQ(names.back(), "post-alignment");
  for (std::uint64_t g = 0; g < where.size(); ++g) {
    const std::uint64_t j = g >> d, i = g & (bit(d) - 1);
    EXPECT_EQ(where[g], (i << d) | j);  // (j|i) -> (i|j)
  }
}

// The device path: a device pointer and the caller's stream (skips without a GPU).
class PlansOnDevice : public BackendTest {};

// The transpose of a (2^d, 2^d) array of u32 on `backend`.
std::unique_ptr<AapcPlan> transpose_plan(long long d, BackendChoice backend) {
  AapcPlan::Options o;
  o.schedule.d = d;
  o.target = {ElementType::u32, backend};
  return std::make_unique<AapcPlan>(o);
}

TEST_P(PlansOnDevice, AapcOnTheBackendsOwnMemoryEqualsTheHostPath) {
  const std::unique_ptr<AapcPlan> made = transpose_plan(4, choice());
  AapcPlan& plan = *made;
  const std::vector<std::uint32_t> in = distinct_words(bit(8), 11);
  std::vector<std::uint32_t> host = in;
  plan.execute(host.data(), host.size() * 4);
  EXPECT_EQ(host, via_machine(plan, in, choice()));
  if (GetParam() == BackendKind::cuda) {
    // Device memory the caller owns, on the default stream.
    std::unique_ptr<Backend> b = make_cuda_backend();
    Buffer dev = b->allocate(plan.data_bytes());
    b->write_storage(in.data(), dev, 0, plan.data_bytes());
    plan.execute_device(dev.data(), plan.data_bytes(), nullptr);
    std::vector<std::uint32_t> back(in.size());
    b->read_storage(dev, 0, back.data(), plan.data_bytes());
    EXPECT_EQ(back, host);
  }
}

// A buffer off the kernels' alignment (a slice of a tensor) is refused before any
// work, with one line; the plan runs on an aligned one afterwards. On CUDA a
// device buffer needs 16 bytes, and host memory given as device memory is refused.
TEST_P(PlansOnDevice, MisalignedOrForeignBuffersAreRefusedBeforeAnyWork) {
  const std::unique_ptr<AapcPlan> made = transpose_plan(3, choice());
  AapcPlan& plan = *made;
  const std::vector<std::uint32_t> in = distinct_words(bit(6), 5);
  std::vector<std::uint32_t> room(in.size() + 1);
  auto* off = reinterpret_cast<unsigned char*>(room.data()) + 1;  // one byte past a word
  std::memcpy(off, in.data(), plan.data_bytes());
  const auto refused = [](const std::function<void()>& f, const std::string& what) {
    try {
      f();
      ADD_FAILURE() << "accepted: " << what;
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(what), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  };
  refused([&] { plan.execute(off, plan.data_bytes()); }, "is not aligned to 4 bytes (uint32)");
  EXPECT_EQ(std::memcmp(off, in.data(), plan.data_bytes()), 0) << "a refused buffer was written";
  std::vector<std::uint32_t> aligned = in, scratch(in.size() + 1);
  refused([&] {
    plan.execute(aligned.data(), plan.data_bytes(),
                 Scratch{reinterpret_cast<unsigned char*>(scratch.data()) + 2, plan.data_bytes()});
  }, "scratch at");
  EXPECT_EQ(aligned, in);
  if (GetParam() != BackendKind::cuda) return;
  std::unique_ptr<Backend> b = make_cuda_backend();
  Buffer dev = b->allocate(plan.data_bytes() + 16);
  auto* dev_off = static_cast<unsigned char*>(dev.data()) + 4;
  refused([&] { plan.execute_device(dev_off, plan.data_bytes(), nullptr); }, "is not aligned to 16 bytes");
  refused([&] { plan.execute_device(aligned.data(), plan.data_bytes(), nullptr); }, "host memory");
  // The device and the plan are sound after the refusals.
  b->write_storage(in.data(), dev, 0, plan.data_bytes());
  plan.execute_device(dev.data(), plan.data_bytes(), nullptr);
  std::vector<std::uint32_t> back(in.size()), want = in;
  b->read_storage(dev, 0, back.data(), plan.data_bytes());
  plan.execute(want.data(), plan.data_bytes());
  EXPECT_EQ(back, want);
}

// last_counters() is the last execution's counters: on host memory the very
// counters execute returned (their seconds the host's), on a machine too.
TEST_P(PlansOnDevice, LastCountersAreTheLastExecutions) {
  const std::unique_ptr<AapcPlan> made = transpose_plan(5, choice());
  AapcPlan& plan = *made;
  std::vector<std::uint32_t> a = distinct_words(bit(10), 3);
  const Counters c = plan.execute(a.data(), a.size() * 4);
  const Counters last = plan.last_counters();
  EXPECT_EQ(to_json(last), to_json(c));
  EXPECT_EQ(last.routing_cycles, plan.stats().cycles);
  EXPECT_EQ(last.phase_seconds("device"), 0) << "no events on host memory";
  Machine mach(MachineOptions{5, 5, ElementType::u32, choice(), -1});
  mach.load(a.data(), a.size() * 4);
  const Counters on_machine = plan.execute(mach);
  EXPECT_EQ(to_json(plan.last_counters()), to_json(on_machine));
}

// On a caller's buffer a plan that routes runs on tiles, re-laid out through its
// scratch and back (two fused passes, counted), and gives the formula's words
// whether the caller passes the scratch or not; the fused pass stays in place.
TEST_P(PlansOnDevice, RoutingPlansRunTiledThroughTheirScratch) {
  const std::unique_ptr<AapcPlan> made = transpose_plan(6, choice());
  AapcPlan& plan = *made;
  EXPECT_EQ(plan.tile_dims(), 6u);
  EXPECT_EQ(plan.scratch_bytes(), plan.data_bytes());
  const std::vector<std::uint32_t> in = distinct_words(bit(12), 9);
  std::vector<std::uint32_t> want(in.size());
  for (std::uint64_t j = 0; j < 64; ++j)
    for (std::uint64_t i = 0; i < 64; ++i) want[i * 64 + j] = in[j * 64 + i];
  std::vector<std::uint32_t> a = in, b = in, scratch(in.size());
  const Counters c = plan.execute(a.data(), plan.data_bytes());
  EXPECT_EQ(a, want);
  plan.execute(b.data(), plan.data_bytes(), Scratch{scratch.data(), plan.scratch_bytes()});
  EXPECT_EQ(b, want);
  const Counters on_machine = [&] {
    Machine mach(MachineOptions{6, 6, ElementType::u32, choice(), -1});
    mach.load(in.data(), plan.data_bytes());
    return plan.execute(mach);
  }();
  if (GetParam() == BackendKind::cpu) {  // the host path of a CUDA plan copies through its own device machine
    EXPECT_EQ(c.kernel_launches, on_machine.kernel_launches + 2) << "the two re-layout passes";
    EXPECT_EQ(c.routing_cycles, on_machine.routing_cycles);
    EXPECT_EQ(c.bytes_read, on_machine.bytes_read + 2 * plan.data_bytes());
  }

  PermutePlan::Options fo;
  fo.perm = "bit-reversal";
  fo.n = 6;
  fo.m = 6;
  fo.fused = true;
  fo.target = {ElementType::u32, choice()};
  EXPECT_EQ(PermutePlan(fo).tile_dims(), 0u);
}

// What runs while an exception leaves execute_device cannot throw a second one.
static_assert(noexcept(std::declval<Backend&>().reset_stream()), "reset_stream runs in a destructor");
static_assert(noexcept(std::declval<Backend&>().leave_device(0)), "leave_device runs in a destructor");

#ifdef HCUBE_TEST_CUDA_FAULT
// The child's part: exit status 0 when execute_device raised hcube::Error.
[[noreturn]] void execute_after_a_fault() {
  const std::unique_ptr<AapcPlan> made = transpose_plan(6, BackendChoice::cuda);
  AapcPlan& plan = *made;
  std::unique_ptr<Backend> b = make_cuda_backend();
  Buffer dev = b->allocate(plan.data_bytes());
  cudaStream_t stream = nullptr;
  cudaStreamCreate(&stream);
  launch_fault(stream);  // enqueued before the plan's work: the fault surfaces in execute_device or its wait
  try {
    plan.execute_device(dev.data(), plan.data_bytes(), stream);
    plan.last_counters();
    std::fprintf(stderr, "no error\n");
    std::_Exit(2);
  } catch (const Error& e) {
    std::fprintf(stderr, "raised: %s\n", e.what());
    std::_Exit(0);
  }
}

// A device fault (a sticky error) while a plan executes comes back as hcube::Error, not
// std::terminate from a destructor. In a child process: the fault ends the CUDA context.
TEST_P(PlansOnDevice, ADeviceFaultRaisesAnError) {
  if (GetParam() != BackendKind::cuda) GTEST_SKIP() << "a device fault needs a GPU (the CPU side is the static_asserts)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: CUDA does not survive fork
  EXPECT_EXIT(execute_after_a_fault(), ::testing::ExitedWithCode(0), "raised: ");
}
#endif

HCUBE_ON_EVERY_BACKEND(PlansOnDevice);

}  // namespace
}  // namespace hcube

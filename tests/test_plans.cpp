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
#include <vector>

#include "backend_test.hpp"
#ifdef HCUBE_TEST_CUDA_FAULT
#include <cuda_runtime.h>

namespace hcube {
void launch_fault(void* stream);  // tests/cuda_fault.cu
}  // namespace hcube
#endif
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
                                 SdpAlgorithm::a3, SdpAlgorithm::a4, SdpAlgorithm::a5, SdpAlgorithm::a6}) {
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
                    std::string(e.what()).find("needs --ports all") != std::string::npos)
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

// The verified run's trace is data: every step, its state and its exchanges,
// handed to an observer; the states are checked here against the transpose
// composed from the steps' own destination maps and, at the end, the formula.
TEST(VerifiedRun, TraceHandsEveryStepToTheObserver) {
  const unsigned d = 2;
  const BuiltSchedule b = build_aapc_schedule(AapcRequest{AapcMethod::alg4, d, std::nullopt, std::nullopt, 1, false, LineDrawing::diagonal, false});
  const PermutationPlan p = plan_aapc_permutation(AapcPermutation::transpose, b.schedule.geometry(), d);
  const Job job{b.schedule, b.stats, p.f, p.g, p.destination, "transpose", p.formula, {}, {}, 0, {}};
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
  run_job(s, job, RunOptions{true, observe, {}});
  EXPECT_EQ(cycles_seen, b.stats.cycles);
  ASSERT_EQ(names.size(), b.stats.cycles + 2);
  EXPECT_EQ(names.front(), "pre-alignment");
  EXPECT_EQ(names.back(), "post-alignment");
  for (std::uint64_t g = 0; g < where.size(); ++g) {
    const std::uint64_t j = g >> d, i = g & (bit(d) - 1);
    EXPECT_EQ(where[g], (i << d) | j);  // (j|i) -> (i|j)
  }
}

// The device path: a device pointer and the caller's stream (skips without a GPU).
class PlansOnDevice : public BackendTest {};

TEST_P(PlansOnDevice, AapcOnTheBackendsOwnMemoryEqualsTheHostPath) {
  AapcPlan::Options o;
  o.schedule.d = 4;
  o.target = {ElementType::u32, choice()};
  AapcPlan plan(o);
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
  AapcPlan::Options o;
  o.schedule.d = 3;
  o.target = {ElementType::u32, choice()};
  AapcPlan plan(o);
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

// What runs while an exception leaves execute_device cannot throw a second one.
static_assert(noexcept(std::declval<Backend&>().reset_stream()), "reset_stream runs in a destructor");
static_assert(noexcept(std::declval<Backend&>().leave_device(0)), "leave_device runs in a destructor");

#ifdef HCUBE_TEST_CUDA_FAULT
// The child's part: exit status 0 when execute_device raised hcube::Error.
[[noreturn]] void execute_after_a_fault() {
  AapcPlan::Options o;
  o.schedule.d = 6;
  o.target = {ElementType::u32, BackendChoice::cuda};
  AapcPlan plan(o);
  std::unique_ptr<Backend> b = make_cuda_backend();
  Buffer dev = b->allocate(plan.data_bytes());
  cudaStream_t stream = nullptr;
  cudaStreamCreate(&stream);
  launch_fault(stream);  // enqueued before the plan's work: the fault surfaces inside execute_device
  try {
    plan.execute_device(dev.data(), plan.data_bytes(), stream);
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

// The distributed FFT (host/fft_plan.hpp, emulator/fft.hpp): its plan checked
// without data for every geometry up to 2^24 points, and its results against
// FFTW's transform of the whole vector for every size up to 2^14 on several
// node counts, both orders, both precisions; the paper's 4096 points on 512
// nodes; one 2^20-point transform; staging one's own FFT; bad input; the
// DFT library's plans made once per shape and reused.
#include <fftw3.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <set>

#include "backend_test.hpp"
#include "hcube/backends/cpu/fft_block.hpp"
#include "hcube/emulator/fft.hpp"
#include "hcube/core/error.hpp"

namespace hcube {
namespace {

using cvec = std::vector<std::complex<double>>;
constexpr double kPi = 3.141592653589793238462643383279502884;

cvec random_points(std::uint64_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; };  // [-1, 1)
  cvec x(count);
  for (auto& v : x) v = {unit(), unit()};
  return x;
}

// The result vector in `order` from the natural-order transform.
cvec in_order(const cvec& X, FftOrder order) {
  if (order == FftOrder::natural) return X;
  const unsigned q = static_cast<unsigned>(__builtin_ctzll(X.size()));
  cvec y(X.size());
  for (std::uint64_t t = 0; t < X.size(); ++t) y[t] = X[reverse_bits(t, q)];
  return y;
}

// The node counts tested for 2^P points: none, one bit, m dividing n, half, and the most.
std::set<unsigned> node_dims(unsigned P) {
  std::set<unsigned> ns = {0, P - 1, P / 2, std::min(1u, P - 1)};
  for (unsigned n = 1; n < P; ++n)
    if (n % (P - n) == 0 && n / (P - n) >= 2) ns.insert(n);  // s >= 2 axes of m bits
  if (P >= 5) ns.insert(P - 3);
  return ns;
}

// --- the plan, without data ----------------------------------------------------------

// Replays a plan on bit positions: every stage finds its bit in memory and
// comes in DIF order, and the data ends where the order wants it.
void replay(const FftPlan& p) {
  const unsigned q = p.q(), m = p.m;
  std::vector<unsigned> pos(q), occ(q);
  for (unsigned b = 0; b < q; ++b) {
    pos[b] = p.initial.bit_target(b);
    occ[pos[b]] = b;
  }
  int next = static_cast<int>(q) - 1;
  for (const FftStep& s : p.steps) {
    if (s.kind == FftStep::Kind::stage) {
      ASSERT_EQ(static_cast<int>(s.index_bit), next);
      ASSERT_LT(pos[s.index_bit], m) << "stage on bit " << s.index_bit << " while it is a node bit";
      --next;
      continue;
    }
    ASSERT_GE(s.swaps.size(), 1u);
    ASSERT_LE(s.swaps.size(), m);
    std::set<unsigned> mems, nodes;
    for (const FftSwap& w : s.swaps) {
      ASSERT_LT(w.mem_bit, m);
      ASSERT_LT(w.node_bit, p.n);
      mems.insert(w.mem_bit);
      nodes.insert(w.node_bit);
      const unsigned na = m + w.node_bit;
      std::swap(occ[w.mem_bit], occ[na]);
      pos[occ[w.mem_bit]] = w.mem_bit;
      pos[occ[na]] = na;
    }
    ASSERT_EQ(mems.size(), s.swaps.size());
    ASSERT_EQ(nodes.size(), s.swaps.size());
  }
  ASSERT_EQ(next, -1);
  for (unsigned b = 0; b < q; ++b) {
    const unsigned a = pos[b] < m ? p.final_memory[pos[b]] : pos[b];
    ASSERT_EQ(a, p.target.bit_target(b)) << "index bit " << b;
  }
}

TEST(FftPlan, EveryGeometryUpTo24BitsEndsInItsOrder) {
  for (FftOrder order : {FftOrder::natural, FftOrder::bit_reversed})
    for (unsigned q = 1; q <= 24; ++q)
      for (unsigned n = 0; n < q; ++n) {
        const unsigned m = q - n;
        SCOPED_TRACE(testing::Message() << to_string(order) << ", n = " << n << ", m = " << m);
        const FftPlan p = plan_fft(n, m, order);
        replay(p);
        EXPECT_EQ(p.stages(), q);
        const unsigned ceil_nm = (n + m - 1) / m;
        if (order == FftOrder::bit_reversed) {
          EXPECT_EQ(p.aapcs(), ceil_nm);  // the fewest that bring every node bit into memory
        } else {
          // c = ceil(n/m) AAPCs bring the node bits in, and every second one
          // parks bits on their way: c + floor(c/2) (s + floor(s/2) when m divides n), once n > m.
          // For n <= m the bit reversal (j|i) -> (rev i|rev j) folds into the FFT's one AAPC.
          const unsigned expected = n == 0 ? 0u : n <= m ? 1u : ceil_nm + ceil_nm / 2;
          EXPECT_EQ(p.aapcs(), expected);
        }
      }
}

// The identity, permutations, composition and inversion of bit maps.
TEST(FftPlan, BitAffineAlgebra) {
  const BitAffine p = BitAffine::permutation({2, 0, 1});
  EXPECT_TRUE(p.is_permutation());
  EXPECT_EQ(p.apply(0b001), 0b100u);
  EXPECT_EQ(p.then(p.inverse()), BitAffine::identity(3));
  BitAffine a = BitAffine::identity(4);
  a.columns[0] = 0b0011;  // bit 0 also sets bit 1
  a.constant = 0b1000;
  EXPECT_FALSE(a.is_permutation());
  const BitAffine inv = a.inverse();
  for (std::uint64_t x = 0; x < 16; ++x) EXPECT_EQ(inv.apply(a.apply(x)), x);
  BitAffine singular = BitAffine::identity(2);
  singular.columns[1] = 1;
  EXPECT_THROW(singular.inverse(), Error);
  EXPECT_THROW(BitAffine::permutation({0, 0}), Error);
}

TEST(FftPlan, OrdersAndAddresses) {
  EXPECT_EQ(parse_fft_order("natural"), FftOrder::natural);
  EXPECT_EQ(parse_fft_order("bit-reversed"), FftOrder::bit_reversed);
  EXPECT_THROW(parse_fft_order("reversed"), Error);
  // Point x of 2^5 on 2^3 nodes: node x mod 8, local x >> 3.
  EXPECT_EQ(cyclic_address(13, 3, 2), (5u << 2) | 1u);
  EXPECT_EQ(fft_result_address(13, 3, 2, FftOrder::natural), cyclic_address(13, 3, 2));
  EXPECT_EQ(fft_result_address(13, 3, 2, FftOrder::bit_reversed), 13u);
  EXPECT_EQ(reverse_bits(0b00110, 5), 0b01100u);
  EXPECT_THROW(plan_fft(3, 0, FftOrder::natural), Error);
}

// The introduction's example: 4096 points on 512 nodes are four local
// 8-point transforms (12 radix-2 stages) with three AAPCs within 3-cubes
// between them, the memory axis exchanged with the top axis first:
// (l,k,j|i) -> (l,k,i|j)... in the paper's words, the shuffle on 3-bit axes.
TEST(FftPlan, PapersExample4096PointsOn512Nodes) {
  const FftPlan p = plan_fft(9, 3, FftOrder::bit_reversed);
  EXPECT_EQ(p.stages(), 12u);
  EXPECT_EQ(p.aapc_dims(), (std::vector<unsigned>{3, 3, 3}));
  const std::vector<FftSegment> segs = p.segments();
  ASSERT_EQ(segs.size(), 4u);
  for (unsigned s = 0; s < 4; ++s) {
    EXPECT_EQ(segs[s].hi, 11 - 3 * s);
    EXPECT_EQ(segs[s].lo, 9 - 3 * s);
    EXPECT_EQ(segs[s].aapcs, s == 0 ? 0u : 1u);
  }
  // Axis 2 (node bits 6..8) first, then axis 1, then axis 0.
  for (unsigned t = 0; t < 3; ++t)
    for (unsigned k = 0; k < 3; ++k) {
      EXPECT_EQ(p.steps[segs[t + 1].first_step].swaps[k].node_bit, 3 * (2 - t) + k);
      EXPECT_EQ(p.steps[segs[t + 1].first_step].swaps[k].mem_bit, k);
    }
  // Natural order costs one AAPC more here (an axis comes back once).
  EXPECT_EQ(plan_fft(9, 3, FftOrder::natural).aapc_dims(), (std::vector<unsigned>{3, 3, 3, 3}));
}

// --- on the machine, against FFTW ---------------------------------------------------------

class Fft : public BackendTest {
 protected:
  // Transforms x on 2^n nodes; returns the result vector in `order` and the report.
  std::pair<cvec, FftReport> transform(const cvec& x, unsigned n, ElementType type, FftOrder order,
                                       bool inverse = false, long long tile_dims = -1,
                                       LocalTransform local = LocalTransform::library) {
    const unsigned q = static_cast<unsigned>(__builtin_ctzll(x.size()));
    Machine mach(MachineOptions{n, q - n, type, choice(), tile_dims});
    load_cyclic(mach, x);
    FftOptions o;
    o.order = order;
    o.inverse = inverse;
    o.local = local;
    const FftReport r = distributed_fft(mach, o);
    return {read_result(mach, order), r};
  }
};

TEST_P(Fft, EverySizeUpTo2To14AgainstFftw) {
  double worst128 = 0, worst64 = 0;
  for (LocalTransform local : {LocalTransform::library, LocalTransform::radix2})
    for (unsigned P = 1; P <= 14; ++P) {
      const cvec x = random_points(std::uint64_t{1} << P, P);
      const cvec X = fftw_dft(x);
      cvec x64 = x;  // the same points rounded to single precision, for complex64
      for (auto& v : x64) v = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
      const cvec X64 = fftw_dft(x64);
      const bool radix2 = local == LocalTransform::radix2;
      const cvec on_one_node = transform(x, 0, ElementType::c128, FftOrder::natural, false, -1, local).first;
      for (unsigned n : node_dims(P))
        for (FftOrder order : {FftOrder::natural, FftOrder::bit_reversed}) {
          SCOPED_TRACE(testing::Message() << "P = " << P << ", n = " << n << ", " << to_string(order)
                                          << (radix2 ? ", radix-2" : ", library"));
          const auto [y, rep] = transform(x, n, ElementType::c128, order, false, -1, local);
          const double e = max_relative_error(y, in_order(X, order));
          EXPECT_LT(e, 1e-12);
          worst128 = std::max(worst128, e);
          // Radix-2: the same butterflies with the same twiddles whatever n: the
          // data motion only moves words, so the result is bit for bit the same.
          if (radix2 && order == FftOrder::natural) {
            EXPECT_EQ(y, on_one_node);
          }
          EXPECT_EQ(rep.stages, P);
          EXPECT_EQ(rep.aapcs, plan_fft(n, P - n, order).aapcs());
          std::size_t blocks = 0;
          for (const FftSegment& seg : plan_fft(n, P - n, order).segments()) blocks += seg.stage_step < seg.end_step;
          EXPECT_EQ(rep.local_transforms, radix2 ? 0u : blocks);
          EXPECT_EQ(rep.local_library, radix2 ? "radix-2" : (GetParam() == BackendKind::cpu ? "FFTW" : "cuFFT"));
          // A library block is three launches: gather, the batched transforms, scatter.
          EXPECT_EQ(rep.launches, (radix2 ? rep.stages : 3 * rep.local_transforms) + rep.alignments + rep.cycles);
          const auto [y64, rep64] = transform(x64, n, ElementType::c64, order, false, -1, local);
          const double e64 = max_relative_error(y64, in_order(X64, order));
          EXPECT_LT(e64, 1e-4);
          worst64 = std::max(worst64, e64);
        }
    }
  std::printf("[ measured ] max relative error vs FFTW, 2^1..2^14 points: complex128 %.3g, complex64 %.3g\n",
              worst128, worst64);
}

// n = 0: the whole transform is the local transform alone, so this is its
// accuracy: the radix-2 kernel (one launch per stage), or one library block.
TEST_P(Fft, LocalKernelAloneMatchesFftw) {
  for (LocalTransform local : {LocalTransform::radix2, LocalTransform::library})
    for (unsigned P : {1u, 5u, 10u, 16u}) {
      const bool radix2 = local == LocalTransform::radix2;
      SCOPED_TRACE(testing::Message() << "P = " << P << (radix2 ? ", radix-2" : ", library"));
      const cvec x = random_points(std::uint64_t{1} << P, 100 + P);
      const auto [y, rep] = transform(x, 0, ElementType::c128, FftOrder::bit_reversed, false, -1, local);
      EXPECT_LT(max_relative_error(y, in_order(fftw_dft(x), FftOrder::bit_reversed)), 1e-14);
      EXPECT_EQ(rep.aapcs, 0u);
      EXPECT_EQ(rep.launches, radix2 ? P : 3u);  // no data motion at all
      const auto [z, rep2] = transform(x, 0, ElementType::c128, FftOrder::natural, false, -1, local);
      EXPECT_LT(max_relative_error(z, fftw_dft(x)), 1e-14);
      EXPECT_EQ(rep2.alignments, P == 1 ? 0u : 1u);  // the bit reversal of one node's memory
    }
}

TEST_P(Fft, InverseIsFftwsBackwardTransform) {
  for (unsigned n : {0u, 3u, 6u}) {
    const cvec x = random_points(1024, 7 + n);
    for (LocalTransform local : {LocalTransform::library, LocalTransform::radix2}) {
      const auto [y, rep] = transform(x, n, ElementType::c128, FftOrder::natural, true, -1, local);
      EXPECT_LT(max_relative_error(y, fftw_dft(x, true)), 1e-12) << "n = " << n;
    }
  }
}

TEST_P(Fft, EveryTileWidth) {
  const cvec x = random_points(1 << 11, 11);
  const cvec X = fftw_dft(x);
  for (long long t : {0, 2, 5, 8})
    for (FftOrder order : {FftOrder::natural, FftOrder::bit_reversed}) {
      for (LocalTransform local : {LocalTransform::library, LocalTransform::radix2}) {
        const auto [y, rep] = transform(x, 8, ElementType::c128, order, false, t, local);
        EXPECT_LT(max_relative_error(y, in_order(X, order)), 1e-12) << "t = " << t;
      }
    }
}

// The library blocks over several chunks of rows (2^17 points) in every kind
// of layout: rows read by the library straight from storage (consecutive or
// strided words) and gathered ones (aligned addresses, reversed fields), in
// both precisions and directions, against FFTW.
TEST_P(Fft, ChunkedBlocksInEveryLayout) {
  constexpr unsigned P = 17;
  const cvec x = random_points(std::uint64_t{1} << P, 17);
  cvec x64 = x;
  for (auto& v : x64) v = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
  for (bool inverse : {false, true}) {
    const cvec X = fftw_dft(x, inverse), X64 = fftw_dft(x64, inverse);
    for (unsigned n : {1u, 4u, 8u, 11u})
      for (long long t : {0ll, static_cast<long long>(n / 2), static_cast<long long>(std::min(n, 8u))})
        for (FftOrder order : {FftOrder::natural, FftOrder::bit_reversed}) {
          SCOPED_TRACE(testing::Message() << "n = " << n << ", t = " << t << ", " << to_string(order)
                                          << (inverse ? ", inverse" : ""));
          const auto [y, rep] = transform(x, n, ElementType::c128, order, inverse, t, LocalTransform::library);
          EXPECT_LT(max_relative_error(y, in_order(X, order)), 1e-12);
          const auto [y64, rep64] = transform(x64, n, ElementType::c64, order, inverse, t, LocalTransform::library);
          EXPECT_LT(max_relative_error(y64, in_order(X64, order)), 1e-4);
        }
  }
}

// 4096 points on 512 nodes: three AAPCs within 3-cubes between four local
// 8-point transforms; in bit-reversed order they run as one sequence with one
// pre- and one post-alignment (Lemma 1), the stages between them at aligned addresses.
TEST_P(Fft, PapersExample4096PointsOn512Nodes) {
  const cvec x = random_points(4096, 4096);
  const cvec X = fftw_dft(x);
  const auto [y, rep] = transform(x, 9, ElementType::c128, FftOrder::bit_reversed);
  EXPECT_LT(max_relative_error(y, in_order(X, FftOrder::bit_reversed)), 1e-12);
  EXPECT_EQ(rep.stages, 12u);
  EXPECT_EQ(rep.aapcs, 3u);
  EXPECT_EQ(rep.aapc_dims, (std::vector<unsigned>{3, 3, 3}));
  EXPECT_TRUE(rep.single_alignment_pair);
  EXPECT_EQ(rep.alignments, 2u);
  EXPECT_EQ(rep.cycles, 3u * 4u);  // K/2 = 4 cycles each (Algorithm 4)
  const auto [z, nat] = transform(x, 9, ElementType::c128, FftOrder::natural);
  EXPECT_LT(max_relative_error(z, X), 1e-12);
  EXPECT_EQ(nat.aapcs, 4u);
  EXPECT_FALSE(nat.single_alignment_pair);
  EXPECT_EQ(nat.alignments, 5u);  // each pre-alignment merged with the post-alignment before it
}

// n = m: the bit reversal is the FFT's own AAPC with f and g the reversals,
// (j|i) -> (rev i|rev j): natural order costs nothing extra.
TEST_P(Fft, NaturalOrderFoldsIntoTheAapcWhenNEqualsM) {
  const cvec x = random_points(1 << 10, 55);
  const auto [y, nat] = transform(x, 5, ElementType::c128, FftOrder::natural);
  const auto [z, rev] = transform(x, 5, ElementType::c128, FftOrder::bit_reversed);
  EXPECT_LT(max_relative_error(y, fftw_dft(x)), 1e-12);
  EXPECT_EQ(nat.aapcs, 1u);
  EXPECT_EQ(nat.cycles, rev.cycles);
  EXPECT_EQ(nat.launches, rev.launches);
}

TEST_P(Fft, MillionPoints) {
  const cvec x = random_points(std::uint64_t{1} << 20, 20);
  const auto [y, rep] = transform(x, 10, ElementType::c128, FftOrder::natural);
  const double e = max_relative_error(y, fftw_dft(x));
  std::printf("[ measured ] 2^20 points on 2^10 nodes, complex128, natural order: max relative error %.3g\n", e);
  EXPECT_LT(e, 1e-12);
  EXPECT_EQ(rep.aapcs, 1u);
}

// Staging one's own FFT: the caller's local DIF stages on the host copy of
// the machine, the library's AAPCs and bit reversal between them.
TEST_P(Fft, StagingOnesOwnLocalTransforms) {
  for (FftOrder order : {FftOrder::natural, FftOrder::bit_reversed})
    for (unsigned n : {0u, 4u, 6u, 7u}) {
      const unsigned q = 9;
      const cvec x = random_points(1 << q, 300 + n);
      Machine mach(MachineOptions{n, q - n, ElementType::c128, choice(), -1});
      load_cyclic(mach, x);
      FftStaging st(mach, order);
      for (std::size_t s = 0; s < st.segments().size(); ++s) {
        st.move_to(s);
        const FftSegment& seg = st.segments()[s];
        if (s % 2 == 1) {  // every other segment with the library's own stages
          for (int b = static_cast<int>(seg.hi); b >= static_cast<int>(seg.lo); --b) st.stage(static_cast<unsigned>(b));
          continue;
        }
        std::vector<unsigned char> bytes = mach.read();
        auto* w = reinterpret_cast<std::complex<double>*>(bytes.data());
        const std::uint64_t K = std::uint64_t{1} << (q - n);
        for (int b = static_cast<int>(seg.hi); b >= static_cast<int>(seg.lo); --b) {
          const std::uint64_t a = std::uint64_t{1} << st.local_bit(static_cast<unsigned>(b));
          for (std::uint64_t node = 0; node < (std::uint64_t{1} << n); ++node)
            for (std::uint64_t i = 0; i < K; ++i) {
              if (i & a) continue;
              std::uint64_t top = node * K + i, bot = top + a;
              const std::uint64_t t = st.logical_index(node, i);
              if ((t >> b) & 1) std::swap(top, bot);
              const double angle = -kPi * static_cast<double>(t & ((std::uint64_t{1} << b) - 1)) / std::ldexp(1.0, b);
              const std::complex<double> u = w[top], v = w[bot];
              w[top] = u + v;
              w[bot] = (u - v) * std::polar(1.0, angle);
            }
        }
        mach.load(bytes.data(), bytes.size());
      }
      st.finish();
      EXPECT_LT(max_relative_error(read_result(mach, order), in_order(fftw_dft(x), order)), 1e-12)
          << to_string(order) << ", n = " << n;
      EXPECT_THROW(st.finish(), Error);
    }
}

TEST_P(Fft, BadInput) {
  Machine words(MachineOptions{2, 2, ElementType::f64, choice(), -1});
  EXPECT_THROW(distributed_fft(words), Error);
  Machine one_each(MachineOptions{3, 0, ElementType::c128, choice(), -1});
  try {
    distributed_fft(one_each);
    ADD_FAILURE() << "m = 0 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at least 2 points"), std::string::npos) << e.what();
  }
  Machine mach(MachineOptions{2, 2, ElementType::c64, choice(), -1});
  EXPECT_THROW(load_cyclic(mach, cvec(15)), Error);
  EXPECT_THROW(mach.fft_stage(2, 0, AffineTables{}), Error);  // memory bit out of range
  FftStaging st(mach, FftOrder::natural);
  EXPECT_THROW(st.move_to(1), Error);  // segments in order
  EXPECT_THROW(st.finish(), Error);    // not all segments run
  EXPECT_THROW(st.local_bit(0), Error);  // index bit 0 starts on a node bit
  const BackendChoice b = choice();
  EXPECT_THROW(hcube_fft(cvec(12), 1, FftOrder::natural, b), Error);  // not a power of two
  EXPECT_THROW(hcube_fft(cvec(16), 4, FftOrder::natural, b), Error);  // one point per node
  EXPECT_THROW(hcube_fft(cvec(16), 5, FftOrder::natural, b), Error);  // more nodes than points
  EXPECT_THROW(hcube_fft(cvec(), 0, FftOrder::natural, b), Error);
}

TEST_P(Fft, ConvenienceCallForUsersArrays) {
  const cvec x = random_points(1 << 12, 12);
  const cvec X = fftw_dft(x);
  EXPECT_LT(max_relative_error(hcube_fft(x, 6, FftOrder::natural, choice()), X), 1e-12);
  EXPECT_LT(max_relative_error(hcube_fft(x, 9, FftOrder::bit_reversed, choice()), in_order(X, FftOrder::bit_reversed)),
            1e-12);
  std::vector<std::complex<float>> xf(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) xf[i] = {static_cast<float>(x[i].real()), static_cast<float>(x[i].imag())};
  const std::vector<std::complex<float>> yf = hcube_fft(xf, 4, FftOrder::natural, choice());
  const cvec y(yf.begin(), yf.end());
  EXPECT_LT(max_relative_error(y, fftw_dft(cvec(xf.begin(), xf.end()))), 1e-5);
}

// A backend makes its DFT library's plans once per shape: the same transform
// again on the same machine makes none (FFTW plans a direction each, cuFFT
// serves both with one), and its results are as right.
TEST_P(Fft, LibraryPlansAreMadeOnceAndReused) {
  const cvec x = random_points(1 << 10, 1010);
  const cvec X = fftw_dft(x), Xinv = fftw_dft(x, true);
  // One node: one library block of all 10 stages, a single row, one plan.
  Machine mach(MachineOptions{0, 10, ElementType::c128, choice(), -1});
  const Backend& backend = mach.backend();
  EXPECT_EQ(backend.dft_plans_made(), 0u);
  const auto run = [&](bool inverse) {
    load_cyclic(mach, x);
    FftOptions o;
    o.inverse = inverse;
    EXPECT_EQ(distributed_fft(mach, o).local_transforms, 1u);
    return read_result(mach, FftOrder::natural);
  };
  for (int pass = 0; pass < 3; ++pass) {
    EXPECT_LT(max_relative_error(run(false), X), 1e-12) << "pass " << pass;
    EXPECT_EQ(backend.dft_plans_made(), 1u) << "pass " << pass;
  }
  const std::uint64_t with_inverse = GetParam() == BackendKind::cpu ? 2 : 1;
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_LT(max_relative_error(run(true), Xinv), 1e-12) << "inverse, pass " << pass;
    EXPECT_EQ(backend.dft_plans_made(), with_inverse) << "inverse, pass " << pass;
  }

  // Many nodes: several blocks, each shape planned on its first use only.
  Machine wide(MachineOptions{6, 6, ElementType::c64, choice(), -1});
  cvec x64 = random_points(1 << 12, 1212);
  for (auto& v : x64) v = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
  const cvec X64 = fftw_dft(x64);
  load_cyclic(wide, x64);
  const FftReport first = distributed_fft(wide);
  const std::uint64_t made = wide.backend().dft_plans_made();
  EXPECT_GE(made, 1u);
  EXPECT_LE(made, first.local_transforms);
  EXPECT_LT(max_relative_error(read_result(wide, FftOrder::natural), X64), 1e-4);
  load_cyclic(wide, x64);
  distributed_fft(wide);
  EXPECT_EQ(wide.backend().dft_plans_made(), made);
  EXPECT_LT(max_relative_error(read_result(wide, FftOrder::natural), X64), 1e-4);
}

// x transformed on the machine equals FFTW's X, with the thread count in the message.
void fft_matches_fftw(Machine& mach, const cvec& x, const cvec& X) {
  load_cyclic(mach, x);
  distributed_fft(mach);
  EXPECT_LT(max_relative_error(read_result(mach, FftOrder::natural), X), 1e-12) << omp_get_max_threads() << " threads";
}

// FFTW plans for rows longer than a chunk (one batched call on FFTW's
// threads) are made for a number of threads: another OpenMP thread count gets
// a plan of its own, and going back reuses the first.
TEST(CpuBackendFft, PlansAreKeyedOnTheThreadCount) {
  constexpr unsigned m = kernels::cpu::kFftChunkRowBitsMax + 1;
  const cvec x = random_points(std::size_t{1} << m, 99);
  const cvec X = fftw_dft(x);
  Machine mach(MachineOptions{0, m, ElementType::c128, BackendChoice::cpu, -1});
  const int threads = omp_get_max_threads();
  const auto run = [&] { fft_matches_fftw(mach, x, X); };
  run();
  EXPECT_EQ(mach.backend().dft_plans_made(), 1u);
  omp_set_num_threads(threads + 1);
  run();
  omp_set_num_threads(threads);
  EXPECT_EQ(mach.backend().dft_plans_made(), 2u);
  run();
  EXPECT_EQ(mach.backend().dft_plans_made(), 2u);
}

// Rows that fit a chunk go a chunk at a time, each thread with a one-thread
// plan: the thread count makes no new plan, and the result is as right.
TEST(CpuBackendFft, ChunkPlansServeAnyThreadCount) {
  const cvec x = random_points(1 << 12, 98);
  const cvec X = fftw_dft(x);
  Machine mach(MachineOptions{4, 8, ElementType::c128, BackendChoice::cpu, -1});
  const int threads = omp_get_max_threads();
  const auto run = [&] { fft_matches_fftw(mach, x, X); };
  run();
  const std::uint64_t made = mach.backend().dft_plans_made();
  omp_set_num_threads(threads + 1);
  run();
  omp_set_num_threads(threads);
  EXPECT_EQ(mach.backend().dft_plans_made(), made);
}

// One FFTW plan serves rows at any address of the alignment it was made for
// (fftw_alignment_of): rows at every 8-byte offset up to 64 get one plan per
// alignment FFTW tells apart, no more. Backend::fft_block on one node, the DFT
// of 2^17 complex64 points (longer than a chunk: the rows in the scratch) left
// in bit-reversed order.
TEST(CpuBackendFft, PlansAreKeyedOnTheRowsAlignment) {
  constexpr unsigned m = kernels::cpu::kFftChunkRowBitsMax + 1;
  constexpr std::uint64_t words = std::uint64_t{1} << m, bytes = words * sizeof(std::complex<float>);
  const Geometry geo{0, m};
  const Layout layout{geo, 0};
  const AffineTables index = make_tables(AffineMap(geo));
  cvec x = random_points(words, 66);
  std::vector<std::complex<float>> xf(words);
  for (std::uint64_t i = 0; i < words; ++i) {
    xf[i] = {static_cast<float>(x[i].real()), static_cast<float>(x[i].imag())};
    x[i] = xf[i];
  }
  const cvec expected = in_order(fftw_dft(x), FftOrder::bit_reversed);

  auto backend = make_cpu_backend();
  Buffer storage = backend->allocate(bytes), room = backend->allocate(bytes + 64);
  std::set<int> alignments;
  for (std::size_t offset = 0; offset <= 64; offset += 8) {
    char* rows = static_cast<char*>(room.data()) + offset;
    alignments.insert(fftwf_alignment_of(reinterpret_cast<float*>(rows)));
    Buffer scratch(rows, bytes, [](void*) {});  // a view: `room` frees it
    std::memcpy(storage.data(), xf.data(), bytes);
    backend->fft_block(storage, scratch, layout, sizeof(std::complex<float>), index, words - 1, 0, m, false);
    std::vector<std::complex<float>> y(words);
    std::memcpy(y.data(), storage.data(), bytes);
    EXPECT_LT(max_relative_error(cvec(y.begin(), y.end()), expected), 1e-5) << "rows at offset " << offset;
    EXPECT_EQ(backend->dft_plans_made(), alignments.size()) << "rows at offset " << offset;
  }
  EXPECT_GE(alignments.size(), 2u);  // FFTW's SIMD alignment is at least 16 bytes
}

HCUBE_ON_EVERY_BACKEND(Fft);

}  // namespace
}  // namespace hcube

namespace hcube {
namespace {

// A NaN anywhere fails verification: std::max alone would drop it and report 0.
TEST(FftCheck, NanNeverVerifies) {
  const std::vector<std::complex<double>> x(8, {1.0, 0.0});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::complex<double>> y(8, {nan, nan});
  EXPECT_TRUE(std::isnan(max_relative_error(y, fftw_dft(x))));
  EXPECT_THROW(verify_fft(x, y, FftOptions{}, ElementType::c128), Error);
  y = fftw_dft(x);
  y[5] = {0.0, nan};  // one NaN among right answers
  EXPECT_TRUE(std::isnan(max_relative_error(y, fftw_dft(x))));
  EXPECT_THROW(verify_fft(x, y, FftOptions{}, ElementType::c128), Error);
  y = fftw_dft(x);
  EXPECT_LT(verify_fft(x, y, FftOptions{}, ElementType::c128).error, 1e-15);
}

// The check made in place over the points: it passes the machine's transform,
// leaves the result in order where the points were, and fails a machine that
// was not transformed or holds one NaN.
TEST(FftCheck, InPlaceCheckAgainstTheMachine) {
  for (FftOrder order : {FftOrder::natural, FftOrder::bit_reversed})
    for (ElementType type : {ElementType::c128, ElementType::c64}) {
      SCOPED_TRACE(testing::Message() << to_string(order) << " " << info(type).name);
      const unsigned n = 3, m = 4;
      const cvec x = random_points(std::uint64_t{1} << (n + m), 5);
      Machine mach(MachineOptions{n, m, type, BackendChoice::cpu, -1});
      FftOptions o;
      o.order = order;
      load_cyclic(mach, x);
      cvec untouched = x;
      EXPECT_THROW(verify_fft_in_place(mach, untouched, o), Error);  // not transformed yet
      distributed_fft(mach, o);
      cvec points = x;
      EXPECT_LT(verify_fft_in_place(mach, points, o).error, fft_tolerance(type));
      EXPECT_EQ(points, read_result(mach, order));
      std::vector<unsigned char> words = mach.read();
      const double nan = std::numeric_limits<double>::quiet_NaN();
      if (type == ElementType::c128) {
        const std::complex<double> v(nan, 0.0);
        std::memcpy(&words[5 * 16], &v, 16);
      } else {
        const std::complex<float> v(static_cast<float>(nan), 0.0f);
        std::memcpy(&words[5 * 8], &v, 8);
      }
      mach.load(words.data(), words.size());
      points = x;
      EXPECT_THROW(verify_fft_in_place(mach, points, o), Error);
    }
}

}  // namespace
}  // namespace hcube

// hcube fft as a user runs it: the real binary, its JSON, and the .npy files
// it reads and writes, the result checked here against a DFT written from
// its definition (not with FFTW or the emulator's code).
#include <cmath>
#include <complex>

#include <limits>
#include "cli_harness.hpp"

namespace {

using namespace hcube::test;
using cvec = std::vector<std::complex<double>>;

class CliFft : public Cli {
 protected:
  fs::path write_points(const std::string& name, const cvec& x, hcube::ElementType type,
                        std::vector<std::uint64_t> shape = {}) const {
    if (shape.empty()) shape = {x.size()};
    std::vector<unsigned char> bytes;
    for (const auto& v : x) {
      if (type == hcube::ElementType::c128) {
        const unsigned char* p = reinterpret_cast<const unsigned char*>(&v);
        bytes.insert(bytes.end(), p, p + 16);
      } else {
        const std::complex<float> f(static_cast<float>(v.real()), static_cast<float>(v.imag()));
        const unsigned char* p = reinterpret_cast<const unsigned char*>(&f);
        bytes.insert(bytes.end(), p, p + 8);
      }
    }
    hcube::write_npy(path(name).string(), type, shape, bytes.data(), bytes.size());
    return path(name);
  }

  static cvec read_points(const fs::path& p, hcube::ElementType type) {
    const hcube::NpyArray a = hcube::read_npy(p.string());
    EXPECT_EQ(a.type, type);
    EXPECT_EQ(a.shape.size(), 1u);
    cvec y(a.elements());
    for (std::size_t i = 0; i < y.size(); ++i) {
      if (type == hcube::ElementType::c128) {
        std::memcpy(&y[i], &a.data[i * 16], 16);
      } else {
        std::complex<float> f;
        std::memcpy(&f, &a.data[i * 8], 8);
        y[i] = {f.real(), f.imag()};
      }
    }
    return y;
  }
};

cvec points(std::size_t N, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  cvec x(N);
  for (auto& v : x) v = {u(rng), u(rng)};
  return x;
}

// X[k] = sum_t x[t] exp(-+2 pi i t k / N), by definition, the angle reduced exactly.
cvec dft(const cvec& x, bool inverse = false) {
  const std::size_t N = x.size();
  const double pi = 3.141592653589793238462643383279502884;
  cvec X(N);
  for (std::size_t k = 0; k < N; ++k) {
    std::complex<double> s = 0;
    for (std::size_t t = 0; t < N; ++t) {
      const double a = (inverse ? 2 : -2) * pi * static_cast<double>((t * k) % N) / static_cast<double>(N);
      s += x[t] * std::complex<double>(std::cos(a), std::sin(a));
    }
    X[k] = s;
  }
  return X;
}

std::size_t reverse(std::size_t x, unsigned bits) {
  std::size_t r = 0;
  for (unsigned b = 0; b < bits; ++b)
    if ((x >> b) & 1) r |= std::size_t{1} << (bits - 1 - b);
  return r;
}

// NaN anywhere gives NaN (every comparison with it fails), which std::max would drop.
double max_rel(const cvec& a, const cvec& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::quiet_NaN();
  double d = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double di = std::abs(a[i] - b[i]), si = std::abs(b[i]);
    if (std::isnan(di) || std::isnan(si)) return std::numeric_limits<double>::quiet_NaN();
    d = std::max(d, di);
    s = std::max(s, si);
  }
  return d / s;
}

// The introduction's example: 4096 points on 512 nodes, three AAPCs within
// 3-cubes between four local 8-point transforms, one sequence (Lemma 1).
TEST_F(CliFft, PapersExampleJson) {
  const json j = ok_json({"fft", "--points-log2", "12", "--nodes-log2", "9", "--order", "bit-reversed", "--backend", "cpu"});
  EXPECT_EQ(j["command"], "fft");
  EXPECT_EQ(j["points_log2"], 12);
  EXPECT_EQ(j["nodes_log2"], 9);
  EXPECT_EQ(j["m"], 3);
  EXPECT_EQ(j["type"], "complex128");
  EXPECT_EQ(j["order"], "bit-reversed");
  EXPECT_EQ(j["stages"], 12);
  EXPECT_EQ(j["aapcs"], 3);
  EXPECT_EQ(j["aapc_dims"], json::array({3, 3, 3}));
  EXPECT_EQ(j["single_alignment_pair"], true);
  EXPECT_EQ(j["alignments"], 2);
  EXPECT_EQ(j["cycles"], 12);
  // Four local 8-point transforms, each a batched FFTW call between a gather and a scatter.
  EXPECT_EQ(j["local_transform"], "FFTW");
  EXPECT_EQ(j["local_transforms"], 4);
  EXPECT_EQ(j["launches"], 4 * 3 + 2 + 12);
  // The library's own radix-2 kernel instead: one launch per stage.
  const json r2 = ok_json({"fft", "-P", "12", "-n", "9", "--order", "bit-reversed", "--backend", "cpu", "--local",
                           "radix-2"});
  EXPECT_EQ(r2["local_transform"], "radix-2");
  EXPECT_EQ(r2["local_transforms"], 0);
  EXPECT_EQ(r2["launches"], 12 + 2 + 12);
  EXPECT_LT(r2["max_relative_error"].get<double>(), 1e-12);
  EXPECT_EQ(j["verified"], true);
  EXPECT_LT(j["max_relative_error"].get<double>(), 1e-12);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["seed"], 1);
  for (const char* key : {"seconds", "tolerance", "device", "counters", "backend_note", "input", "output"})
    EXPECT_TRUE(j.contains(key)) << key;
  // Natural order: one AAPC more, and the same result up to the order.
  const json nat = ok_json({"fft", "-P", "12", "-n", "9", "--backend", "cpu"});
  EXPECT_EQ(nat["aapcs"], 4);
  EXPECT_EQ(nat["verified"], true);
}

TEST_F(CliFft, InputAndOutputInBothOrdersAndTypes) {
  const unsigned P = 8;
  const cvec x = points(1 << P, 8);
  const cvec X = dft(x);
  for (auto type : {hcube::ElementType::c128, hcube::ElementType::c64}) {
    const bool dbl = type == hcube::ElementType::c128;
    cvec xt = x;
    if (!dbl)
      for (auto& v : xt) v = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
    const cvec Xt = dbl ? X : dft(xt);
    const fs::path in = write_points(dbl ? "x128.npy" : "x64.npy", xt, type);
    for (const char* n : {"0", "3", "4", "7"})
      for (const char* order : {"natural", "bit-reversed"}) {
        SCOPED_TRACE(testing::Message() << (dbl ? "complex128" : "complex64") << ", n = " << n << ", " << order);
        const fs::path out = path("y.npy");
        const json j = ok_json({"fft", "-P", "8", "-n", n, "--order", order, "-i", in.string(), "-o", out.string(),
                                "--backend", "cpu"});
        EXPECT_EQ(j["type"], dbl ? "complex128" : "complex64");
        EXPECT_EQ(j["input"], in.string());
        EXPECT_TRUE(j["seed"].is_null());
        const cvec y = read_points(out, type);
        ASSERT_EQ(y.size(), X.size());
        cvec expect = Xt;
        if (std::string(order) == "bit-reversed")
          for (std::size_t t = 0; t < y.size(); ++t) expect[t] = Xt[reverse(t, P)];
        EXPECT_LT(max_rel(y, expect), dbl ? 1e-13 : 1e-5);
      }
  }
}

TEST_F(CliFft, InverseAndProse) {
  const cvec x = points(64, 6);
  const fs::path in = write_points("x.npy", x, hcube::ElementType::c128), out = path("y.npy");
  const std::string text = ok({"fft", "-P", "6", "-n", "4", "--inverse", "-i", in.string(), "-o", out.string(),
                               "--plan", "--backend", "cpu"});
  EXPECT_TRUE(contains(text, "inverse FFT of 2^6 points")) << text;
  EXPECT_TRUE(contains(text, "AAPC d = ")) << text;
  EXPECT_TRUE(contains(text, "verified")) << text;
  EXPECT_TRUE(contains(text, "wrote " + out.string())) << text;
  EXPECT_LT(max_rel(read_points(out, hcube::ElementType::c128), dft(x, true)), 1e-13);
}

TEST_F(CliFft, SeededPointsAreReproducible) {
  const json a = ok_json({"fft", "-P", "10", "-n", "5", "--seed", "7", "-o", path("a.npy").string(), "--backend", "cpu"});
  const json b = ok_json({"fft", "-P", "10", "-n", "5", "--seed", "7", "-o", path("b.npy").string(), "--backend", "cpu"});
  EXPECT_EQ(read_text(path("a.npy")), read_text(path("b.npy")));
  EXPECT_EQ(a["max_relative_error"], b["max_relative_error"]);
}

TEST_F(CliFft, BadInput) {
  const cvec x = points(1000, 1);
  const fs::path odd = write_points("odd.npy", x, hcube::ElementType::c128);
  const fs::path small = write_points("small.npy", points(256, 2), hcube::ElementType::c64);
  const fs::path flat2d = write_points("square.npy", points(256, 3), hcube::ElementType::c128, {16, 16});
  const std::vector<double> reals(256, 1.0);
  hcube::write_npy(path("real.npy").string(), hcube::ElementType::f64, {256}, reals.data(), reals.size() * 8);

  expect_error({"fft", "-P", "0", "-n", "0"}, {"--points-log2 0", "allowed 1..30"});
  expect_error({"fft", "-P", "31", "-n", "0"}, {"--points-log2 31", "allowed 1..30"});
  expect_error({"fft", "-P", "12", "-n", "13"}, {"more nodes than points", "allowed 0..11"});
  expect_error({"fft", "-P", "12", "-n", "12"}, {"one point per node", "allowed 0..11"});
  expect_error({"fft", "-P", "12", "-n", "-2"}, {"--nodes-log2 -2", "allowed 0..11"});
  expect_error({"fft", "-P", "10", "-n", "3", "-i", odd.string()}, {"1000 points", "not a power of two"});
  expect_error({"fft", "-P", "9", "-n", "3", "-i", small.string()}, {"256 = 2^8 points", "--points-log2 9", "512"});
  expect_error({"fft", "-P", "8", "-n", "3", "-i", path("real.npy").string()}, {"holds double", "complex64", "complex128"});
  expect_error({"fft", "-P", "8", "-n", "3", "-i", flat2d.string()}, {"shape (16, 16)", "flat"});
  expect_error({"fft", "-P", "8", "-n", "3", "-i", small.string(), "--type", "complex128"},
               {"complex64", "--type asks for complex128"});
  expect_error({"fft", "-P", "8", "-n", "3", "--type", "double"}, {"--type double", "complex64 or complex128"});
  expect_error({"fft", "-P", "8", "-n", "3", "--order", "reversed"}, {"'reversed'", "natural, bit-reversed"});
  expect_error({"fft", "-P", "8", "-n", "3", "--algorithm", "5"}, {"'5'", "1, 2, 3, 4"});
  expect_error({"fft", "-P", "8", "-n", "3", "--local", "fast"}, {"'fast'", "library", "radix-2"});
  // No output file after an error, not even a partial one.
  const Result r = run({"fft", "-P", "9", "-n", "3", "-i", small.string(), "-o", path("never.npy").string()});
  EXPECT_GT(r.code, 0);
  EXPECT_FALSE(fs::exists(path("never.npy")));
}

}  // namespace

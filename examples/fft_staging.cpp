// Staging an FFT of one's own through hcube (docs/fft-staging.md).
//
// 4096 complex points on 512 nodes of 8 words -- the example of Johnsson &
// Ho's introduction -- in cyclic order. The library (FftStaging) runs the
// data motion: the AAPCs within 3-cubes that bring the next three index bits
// into every node's memory, and the bit reversal at the end, folded into the
// AAPCs' alignments. This program does the arithmetic itself: its own local
// 8-point transforms, as three radix-2 decimation-in-frequency stages on each
// node's memory, using FftStaging::logical_index to know which point each
// word holds. The result is compared with FFTW's transform of the whole vector.
//
//   build/bin/hcube_example_fft [--backend cpu|cuda|auto]
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hcube/emulator/fft.hpp"
#include "hcube/host/error.hpp"

namespace {

using cvec = std::vector<std::complex<double>>;
constexpr double kPi = 3.141592653589793238462643383279502884;

// The user's local transform: the DIF stages on index bits hi .. lo, which
// are local now, on a host copy of every node's memory. Stage b pairs the
// points whose logical indices t differ in bit b (local address bit a):
//   top' = top + bottom,  bottom' = (top - bottom) exp(-i pi (t mod 2^b) / 2^b).
void my_local_transform(hcube::Machine& machine, const hcube::FftStaging& staging, unsigned hi, unsigned lo) {
  const hcube::Geometry geo = machine.geometry();
  std::vector<unsigned char> bytes = machine.read();  // A[node][local], complex128
  auto* w = reinterpret_cast<std::complex<double>*>(bytes.data());
  const std::uint64_t K = geo.words_per_node();
  for (int b = static_cast<int>(hi); b >= static_cast<int>(lo); --b) {
    const std::uint64_t a = std::uint64_t{1} << staging.local_bit(static_cast<unsigned>(b));
    for (std::uint64_t node = 0; node < geo.nodes(); ++node)
      for (std::uint64_t i = 0; i < K; ++i) {
        if (i & a) continue;  // each pair once, from the word whose bit a is clear
        std::uint64_t top = node * K + i, bottom = node * K + (i | a);
        const std::uint64_t t = staging.logical_index(node, i);
        if ((t >> b) & 1) std::swap(top, bottom);  // top is the one whose index bit b is clear
        const std::uint64_t j = t & ((std::uint64_t{1} << b) - 1);
        const std::complex<double> twiddle = std::polar(1.0, -kPi * static_cast<double>(j) / std::ldexp(1.0, b));
        const std::complex<double> u = w[top], v = w[bottom];
        w[top] = u + v;
        w[bottom] = (u - v) * twiddle;
      }
  }
  machine.load(bytes.data(), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    hcube::BackendChoice backend = hcube::BackendChoice::automatic;
    if (argc == 3 && std::string(argv[1]) == "--backend") {
      backend = hcube::parse_backend_choice(argv[2]);
    } else if (argc != 1) {
      std::fprintf(stderr, "usage: %s [--backend auto|cpu|cuda]\n", argv[0]);
      return 2;
    }
    const unsigned n = 9, m = 3, q = n + m;  // 2^12 points, 2^9 nodes, 8 points each
    const std::uint64_t N = std::uint64_t{1} << q;

    // A signal: two tones, at frequencies 100 and 1000, plus a constant.
    cvec x(N);
    for (std::uint64_t t = 0; t < N; ++t) {
      const double phase = 2 * kPi * static_cast<double>(t) / static_cast<double>(N);
      x[t] = 0.5 + std::polar(1.0, 100 * phase) + 0.25 * std::polar(1.0, 1000 * phase);
    }

    hcube::Machine machine(hcube::MachineOptions{n, m, hcube::ElementType::c128, backend, -1});
    hcube::load_cyclic(machine, x);  // point t at node t mod 512, local address t / 512

    hcube::FftStaging staging(machine, hcube::FftOrder::natural);
    std::printf("%s", staging.plan().describe().c_str());
    for (std::size_t s = 0; s < staging.segments().size(); ++s) {
      const hcube::FftSegment& seg = staging.segments()[s];
      staging.move_to(s);                                   // the library: this segment's AAPCs
      my_local_transform(machine, staging, seg.hi, seg.lo);  // the user: the local 8-point transform
    }
    staging.finish();  // the library: the last alignment, into natural order

    const cvec X = hcube::read_result(machine, hcube::FftOrder::natural);  // X[k] for k = 0 .. N-1
    const double err = hcube::max_relative_error(X, hcube::fftw_dft(x));
    std::printf("X[0] = %.3f, X[100] = %.3f, X[1000] = %.3f (expected %g, %g, %g)\n", std::abs(X[0]),
                std::abs(X[100]), std::abs(X[1000]), 0.5 * static_cast<double>(N), static_cast<double>(N),
                0.25 * static_cast<double>(N));
    const hcube::Counters& c = machine.counters();
    std::printf("%llu routing cycles, %llu alignments, %llu launches on the %s backend\n",
                static_cast<unsigned long long>(c.routing_cycles), static_cast<unsigned long long>(c.alignments),
                static_cast<unsigned long long>(c.kernel_launches), hcube::to_string(machine.backend().kind()).c_str());
    std::printf("max relative error vs FFTW: %.3g\n", err);
    return err < 1e-12 ? 0 : 1;
  } catch (const hcube::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

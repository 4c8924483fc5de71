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
// The data is the program's own: the machine runs on its buffer (caller-owned
// memory, no copy), so between the library's AAPCs the program transforms
// its buffer in place. With --backend cuda the buffer is device memory the
// program owns, and the local transforms run through the library's cuFFT
// blocks (the program's arithmetic here is host code).
//
//   build/bin/hcube_example_fft [--backend cpu|cuda|auto]
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <hcube/hcube.hpp>

namespace {

using cvec = std::vector<std::complex<double>>;
constexpr double kPi = 3.141592653589793238462643383279502884;

// The user's local transform: the DIF stages on index bits hi .. lo, which
// are local now, on the program's own buffer w (A[node][local], complex128).
// Stage b pairs the points whose logical indices t differ in bit b (local
// address bit a):
//   top' = top + bottom,  bottom' = (top - bottom) exp(-i pi (t mod 2^b) / 2^b).
void my_local_transform(std::complex<double>* w, const hcube::Geometry& geo, const hcube::FftStaging& staging,
                        unsigned hi, unsigned lo) {
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

    // The program's buffer: point t at node t mod 512, local address t / 512
    // (cyclic order), row-major (2^n, K) as the machine's caller-owned memory wants it.
    const hcube::Geometry geo{n, m};
    cvec data(N);
    for (std::uint64_t t = 0; t < N; ++t) data[hcube::cyclic_address(t, n, m)] = x[t];
    const std::uint64_t bytes = N * sizeof(std::complex<double>);

    std::shared_ptr<hcube::Backend> device = hcube::make_backend(backend);
    const bool on_host = device->kind() == hcube::BackendKind::cpu;
    hcube::Buffer device_data;  // CUDA: the program's device buffer
    void* mine = data.data();
    if (!on_host) {
      device_data = device->allocate(bytes);
      device->write_storage(data.data(), device_data, 0, bytes);
      mine = device_data.data();
    }
    hcube::Machine machine(hcube::MachineOptions{n, m, hcube::ElementType::c128, backend, 0}, device, mine, bytes);

    hcube::FftStaging staging(machine, hcube::FftOrder::natural);
    std::printf("%s", staging.plan().describe().c_str());
    for (std::size_t s = 0; s < staging.segments().size(); ++s) {
      const hcube::FftSegment& seg = staging.segments()[s];
      staging.move_to(s);  // the library: this segment's AAPCs, on the program's buffer
      if (on_host)
        my_local_transform(data.data(), geo, staging, seg.hi, seg.lo);  // the user: the local 8-point transform
      else
        staging.block(seg.hi, seg.lo);  // on the device: the library's cuFFT blocks
    }
    staging.finish();  // the library: the last alignment, into natural order
    if (!on_host) device->read_storage(device_data, 0, data.data(), bytes);

    cvec X(N);  // X[k] for k = 0 .. N-1, back in cyclic order in the program's buffer
    for (std::uint64_t k = 0; k < N; ++k)
      X[k] = data[hcube::fft_result_address(k, n, m, hcube::FftOrder::natural)];
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

// docs/api.md's two-statement plans: NumPy's transpose and a bit reversal on
// the program's own buffers, typed (C++20: the buffer as a std::span).
#include <hcube/hcube.hpp>

#include <complex>
#include <cstdio>
#include <span>
#include <vector>

int main() {
  // a.transpose(1, 0) of a 512 x 256 matrix of floats, in place.
  std::vector<float> a(512 * 256);
  for (std::size_t g = 0; g < a.size(); ++g) a[g] = static_cast<float>(g);
  hcube::TransposePlan<float> transpose({512, 256}, {1, 0});
  transpose.execute(std::span<float>(a));
  for (std::size_t i = 0; i < 256; ++i)
    for (std::size_t j = 0; j < 512; ++j)
      if (a[i * 512 + j] != static_cast<float>(j * 256 + i)) return std::printf("transpose wrong at (%zu, %zu)\n", i, j), 1;

  // The bit reversal of 2^20 complex points, FFT staging's reordering.
  std::vector<std::complex<double>> x(1 << 20);
  for (std::size_t g = 0; g < x.size(); ++g) x[g] = {static_cast<double>(g), 0.0};
  auto reversal = hcube::bit_reversal_plan<std::complex<double>>(x.size());
  reversal.execute(x);
  for (std::size_t g = 0; g < x.size(); ++g) {
    std::size_t r = 0;
    for (unsigned b = 0; b < 20; ++b) r |= ((g >> b) & 1) << (19 - b);
    if (x[r].real() != static_cast<double>(g)) return std::printf("bit reversal wrong at %zu\n", g), 1;
  }
  std::printf("transpose and bit reversal: as NumPy gives them\n");
  return 0;
}

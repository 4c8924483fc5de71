// hcube fft's points: checked against 2^P before any body is read, made from
// a seed or read from a file or a stream, widened to complex<double> for the
// reference transform (FFTW's).
#include "hcube/app/fft_points.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "hcube/core/error.hpp"
#include "hcube/host/system/host_memory.hpp"

namespace hcube::app {

// The element type of the run: --type, which --input's dtype must match, and
// --input's header checked against 2^P points before any of its body is read.
ElementType points_type(const std::string& type_text, const std::string& input_path, unsigned P,
                        const NpyInput* input) {
  std::optional<ElementType> asked;
  if (!type_text.empty()) {
    asked = parse_element_type(type_text);
    if (*asked != ElementType::c64 && *asked != ElementType::c128)
      throw Error(fmt::format("--type {} out of range: hcube fft runs on complex64 or complex128", info(*asked).name));
  }
  if (input == nullptr) return asked.value_or(ElementType::c128);
  const std::uint64_t N = std::uint64_t{1} << P;
  const ElementType type = input->type();
  const std::vector<std::uint64_t>& shape = input->shape();
  if (type != ElementType::c64 && type != ElementType::c128)
    throw Error(fmt::format("{} holds {} ({}): hcube fft needs complex64 (<c8) or complex128 (<c16) points", input_path,
                            info(type).name, info(type).npy_descr));
  if (asked && *asked != type)
    throw Error(fmt::format("{} holds {} but --type asks for {}: drop --type or convert the file", input_path,
                            info(type).name, info(*asked).name));
  if (shape.size() != 1) {
    std::string text;
    for (std::uint64_t d : shape) text += (text.empty() ? "" : ", ") + std::to_string(d);
    throw Error(fmt::format("{} has shape ({}): hcube fft reads a flat array of 2^{} = {} points in index order",
                            input_path, text, P, N));
  }
  const std::uint64_t count = shape[0];
  if (count == 0 || (count & (count - 1)) != 0)
    throw Error(fmt::format("{} holds {} points: not a power of two; --points-log2 {} needs 2^{} = {}", input_path, count,
                            P, P, N));
  if (count != N)
    throw Error(fmt::format("{} holds {} = 2^{} points: --points-log2 {} needs 2^{} = {}", input_path, count,
                            __builtin_ctzll(count), P, P, N));
  return type;
}

namespace {

// Appends `count` points of `type` from `bytes` to x, widened to complex<double>.
void append_points(std::vector<std::complex<double>>& x, ElementType type, const unsigned char* bytes,
                   std::uint64_t count) {
  const std::size_t at = x.size();
  x.resize(at + count);
  if (type == ElementType::c128) {
    std::memcpy(&x[at], bytes, count * 16);  // std::complex<double> is the <c16 layout
    return;
  }
  for (std::uint64_t k = 0; k < count; ++k) {
    std::complex<float> v;
    std::memcpy(&v, bytes + k * 8, 8);
    x[at + k] = {v.real(), v.imag()};
  }
}

}  // namespace

// The points: seeded random ones, a regular file's (read again for the check),
// or a stream's, read once as they arrive (the vector grows with them).
FftPoints read_points(unsigned long long seed, unsigned P, ElementType type, const NpyFile* file, NpyInput* stream) {
  FftPoints p;
  p.type = type;
  const std::uint64_t N = std::uint64_t{1} << P;
  if (file == nullptr && stream == nullptr) {
    std::mt19937_64 rng(seed);
    const auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; };
    p.x.resize(N);
    for (auto& v : p.x) {
      const double re = unit(), im = unit();
      v = p.type == ElementType::c64 ? std::complex<double>(static_cast<float>(re), static_cast<float>(im))
                                     : std::complex<double>(re, im);
    }
    return p;
  }
  const std::size_t wb = info(type).bytes;
  if (stream != nullptr) {
    stream->read_body([&](std::uint64_t, const unsigned char* bytes, std::size_t count) {
      if (p.x.capacity() - p.x.size() < count / wb)
        p.x.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(N, 2 * p.x.size() + count / wb)));
      append_points(p.x, type, bytes, count / wb);
    });
    return p;
  }
  p.x.reserve(N);
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 16;
  std::vector<unsigned char> chunk(static_cast<std::size_t>(std::min(N, kChunk) * wb));
  for (std::uint64_t i = 0; i < N; i += kChunk) {
    const std::uint64_t n_points = std::min(kChunk, N - i);
    file->read(i * wb, chunk.data(), n_points * wb);
    append_points(p.x, type, chunk.data(), n_points);
  }
  return p;
}

FftRun run_fft(DistributedFftPlan& plan, const FftInput& in, BackendChoice choice, long long tile_dims,
               LaunchMode launch, const std::string& output) {
  const Geometry geo = plan.geometry();
  const unsigned P = geo.address_bits();
  {
    // The machine and its scratch while the transform runs; the points (complex128 on the
    // host) beside the machine while it loads and is checked, and throughout for a stream.
    const std::unique_ptr<Backend> backend = make_backend(choice);
    const std::uint64_t data = geo.total_words() * info(in.type).bytes, points = geo.total_words() * 16;
    std::vector<MemoryNeed> parts{{"its scratch copy", data, true}};
    if (in.stream != nullptr)
      parts.push_back({"the points read from the stream, kept for the check", points, false});
    else if (backend->kind() != BackendKind::cpu)
      parts.push_back({"the points, made again for the check", points, false});
    else if (points > data)  // complex64: the points take twice the machine, the scratch is gone by then
      parts.push_back({"the points for the check, beyond the scratch they replace", points - data, false});
    check_machine_fits(geo, in.type, *backend);
    check_run_fits(fmt::format("hcube fft -P {} -n {}", P, geo.n), geo, in.type, *backend, parts);
  }
  FftPoints pts = read_points(in.seed, P, in.type, in.file, in.stream);
  FftRun run;
  run.machine = std::make_unique<Machine>(MachineOptions{geo.n, geo.m, pts.type, choice, tile_dims, launch});
  Machine& mach = *run.machine;
  run.note = backend_note(choice, mach.backend());
  load_cyclic(mach, pts.x);
  // The points are made or read again for the check: while the transform
  // runs, the host holds only the machine and its scratch.
  if (in.stream == nullptr) std::vector<std::complex<double>>().swap(pts.x);  // frees it (= {} would keep its capacity)
  plan.execute(mach);
  run.report = plan.last_report();
  mach.release_scratch();
  if (in.stream == nullptr) pts = read_points(in.seed, P, in.type, in.file, nullptr);
  // Now FFTW's transform, compared in place; afterwards the machine's result in index order.
  run.check = verify_fft_in_place(mach, pts.x, plan.options());
  if (!output.empty()) {
    std::vector<std::complex<double>>& y = pts.x;
    if (pts.type == ElementType::c64) {
      // Narrowed in place: element i's 8 bytes land below element i's 16, which is read first.
      auto* bytes = reinterpret_cast<unsigned char*>(y.data());
      for (std::uint64_t i = 0; i < y.size(); ++i) {
        const std::complex<float> v(static_cast<float>(y[i].real()), static_cast<float>(y[i].imag()));
        std::memcpy(bytes + i * 8, &v, 8);
      }
    }
    write_npy(output, pts.type, {y.size()}, y.data(), y.size() * info(pts.type).bytes);
  }
  return run;
}

}  // namespace hcube::app

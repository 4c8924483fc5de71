// hcube fft: a distributed radix-2 FFT of 2^P complex points in cyclic order
// on 2^n nodes (emulator/fft.hpp): local butterfly stages with AAPCs between
// them and the bit reversal folded into their alignments, compared with
// FFTW's transform of the whole vector.
#include <fmt/format.h>

#include <complex>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/emulator/fft.hpp"
#include "hcube/emulator/npy.hpp"
#include "hcube/core/error.hpp"

namespace hcube::cli {
namespace {

constexpr long long kUnset = std::numeric_limits<long long>::min();

struct FftFlags {
  long long points_log2 = kUnset;
  long long nodes_log2 = kUnset;
  std::string type;  // empty: --input's, else complex128
  std::string order = "natural";
  std::string backend = "auto";
  long long tile_dims = -1;
  std::string launch = "per-cycle";
  std::string algorithm = "4";
  std::string local = "library";
  bool inverse = false;
  std::string input, output;
  unsigned long long seed = 1;
  bool json = false;
  bool plan = false;
};

// Element type and points: --input's (checked) or seeded random ones in [-1, 1)^2.
struct Points {
  ElementType type = ElementType::c128;
  std::vector<std::complex<double>> x;
};

Points read_points(const FftFlags& f, unsigned P) {
  Points p;
  std::optional<ElementType> asked;
  if (!f.type.empty()) {
    asked = parse_element_type(f.type);
    if (*asked != ElementType::c64 && *asked != ElementType::c128)
      throw Error(fmt::format("--type {} out of range: hcube fft runs on complex64 or complex128", info(*asked).name));
    p.type = *asked;
  }
  const std::uint64_t N = std::uint64_t{1} << P;
  if (f.input.empty()) {
    std::mt19937_64 rng(f.seed);
    const auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; };
    p.x.resize(N);
    for (auto& v : p.x) {
      const double re = unit(), im = unit();
      v = p.type == ElementType::c64 ? std::complex<double>(static_cast<float>(re), static_cast<float>(im))
                                     : std::complex<double>(re, im);
    }
    return p;
  }
  // A regular file is read straight into the points; a pipe whole, then converted.
  const std::shared_ptr<const NpyFile> file = NpyFile::open(f.input);
  std::optional<NpyArray> whole;
  if (!file) whole = read_npy(f.input);
  const ElementType type = file ? file->type() : whole->type;
  const std::vector<std::uint64_t> shape = file ? file->shape() : whole->shape;
  if (type != ElementType::c64 && type != ElementType::c128)
    throw Error(fmt::format("{} holds {} ({}): hcube fft needs complex64 (<c8) or complex128 (<c16) points", f.input,
                            info(type).name, info(type).npy_descr));
  if (asked && *asked != type)
    throw Error(fmt::format("{} holds {} but --type asks for {}: drop --type or convert the file", f.input,
                            info(type).name, info(*asked).name));
  p.type = type;
  if (shape.size() != 1) {
    std::string text;
    for (std::uint64_t d : shape) text += (text.empty() ? "" : ", ") + std::to_string(d);
    throw Error(fmt::format("{} has shape ({}): hcube fft reads a flat array of 2^{} = {} points in index order",
                            f.input, text, P, N));
  }
  const std::uint64_t count = shape[0];
  if (count == 0 || (count & (count - 1)) != 0)
    throw Error(fmt::format("{} holds {} points: not a power of two; --points-log2 {} needs 2^{} = {}", f.input, count,
                            P, P, N));
  if (count != N)
    throw Error(fmt::format("{} holds {} = 2^{} points: --points-log2 {} needs 2^{} = {}", f.input, count,
                            __builtin_ctzll(count), P, P, N));
  p.x.resize(N);
  const std::size_t wb = info(type).bytes;
  const auto bytes_at = [&](std::uint64_t i, std::uint64_t n_points, void* dst) {
    if (file) {
      file->read(i * wb, dst, n_points * wb);
    } else {
      std::memcpy(dst, &whole->data[i * wb], n_points * wb);
    }
  };
  if (type == ElementType::c128) {
    bytes_at(0, N, p.x.data());  // std::complex<double> is the <c16 layout
    return p;
  }
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 16;
  std::vector<std::complex<float>> narrow(static_cast<std::size_t>(std::min(N, kChunk)));
  for (std::uint64_t i = 0; i < N; i += kChunk) {
    const std::uint64_t n_points = std::min(kChunk, N - i);
    bytes_at(i, n_points, narrow.data());
    for (std::uint64_t k = 0; k < n_points; ++k) p.x[i + k] = {narrow[k].real(), narrow[k].imag()};
  }
  return p;
}


}  // namespace

void add_fft(CLI::App& app) {
  auto f = std::make_shared<FftFlags>();
  auto* cmd = app.add_subcommand(
      "fft",
      "distributed radix-2 FFT of 2^P complex points in cyclic order on 2^n nodes: local transforms (FFTW or cuFFT, or "
      "radix-2 butterflies) with AAPCs between them and the bit reversal folded into their alignments, compared with "
      "FFTW");
  cmd->add_option("-P,--points-log2", f->points_log2, "2^P points")->required();
  cmd->add_option("-n,--nodes-log2", f->nodes_log2, "2^n nodes, 0 <= n <= P-1: each holds 2^(P-n) points")->required();
  choices(cmd->add_option("-t,--type", f->type, "complex128 or complex64 (default complex128, or --input's)"),
          {"complex128", "complex64"});
  choices(cmd->add_option("--order", f->order,
                          "natural (X[k] in cyclic order, as the input) or bit-reversed (X[rev k] at global "
                          "address k)"),
          {"natural", "bit-reversed"})
      ->capture_default_str();
  choices(cmd->add_option("--local", f->local,
                          "the stages between AAPCs: library (all of a segment as one batched DFT: FFTW on the CPU, "
                          "cuFFT on CUDA) or radix-2 (one butterfly launch per stage)"),
          {"library", "radix-2"})
      ->capture_default_str();
  cmd->add_flag("--inverse", f->inverse, "exp(+2 pi i t k / N), unscaled (compared with FFTW's backward transform)");
  choices(cmd->add_option("-a,--algorithm", f->algorithm, "the AAPC schedules: Johnsson & Ho's Algorithm 1, 2, 3 or 4"),
          {"1", "2", "3", "4"})
      ->capture_default_str();
  choices(cmd->add_option("--backend", f->backend, "auto (CUDA when a GPU is present), cpu or cuda"), backend_names())
      ->capture_default_str();
  cmd->add_option("--tile-dims", f->tile_dims,
                  "nodes per storage tile = 2^t, 0..n (default min(n, " + std::to_string(kDefaultTileDims) + "))");
  add_launch_flag(*cmd, f->launch);
  cmd->add_option("-i,--input", f->input, "the points: a flat .npy of 2^P complex64 or complex128 values, in index order");
  output_flag(cmd->add_option("-o,--output", f->output,
                              "write the transform, a flat .npy of 2^P values in index order: natural X[k] at k, "
                              "bit-reversed X[rev k] at k"));
  cmd->add_option("--seed", f->seed, "seed of the random points when there is no --input")->capture_default_str();
  cmd->add_flag("--plan", f->plan, "print the plan: every AAPC's bits and the stages between them");
  cmd->add_flag("--json", f->json, "print one JSON object instead of prose");
  cmd->callback([f] {
    // Every flag is checked before anything is read or allocated.
    check_fft_sizes(f->points_log2, f->nodes_log2);
    const unsigned P = static_cast<unsigned>(f->points_log2), n = static_cast<unsigned>(f->nodes_log2), m = P - n;
    FftOptions options;
    options.order = parse_fft_order(f->order);
    options.inverse = f->inverse;
    options.algorithm = parse_aapc_algorithm(f->algorithm);
    options.local = parse_local_transform(f->local);
    const BackendChoice choice = parse_backend_choice(f->backend);
    const LaunchMode launch = parse_launch_mode(f->launch);
    const FftPlan plan = plan_fft(n, m, options.order);
    Points pts = read_points(*f, P);

    Machine mach(MachineOptions{n, m, pts.type, choice, f->tile_dims, launch});
    std::string note;
    if (choice == BackendChoice::automatic) {
      std::string why;
      cuda_device_count(&why);
      note = mach.backend().kind() == BackendKind::cpu ? "auto chose cpu: " + why : "auto chose cuda: a GPU is present";
    }
    load_cyclic(mach, pts.x);
    // The points are made or read again for the check: while the transform
    // runs, the host holds only the machine and its scratch.
    std::vector<std::complex<double>>().swap(pts.x);  // frees it (= {} would keep its capacity)
    const FftReport rep = distributed_fft(mach, options);
    mach.release_scratch();
    pts = read_points(*f, P);
    // Now FFTW's transform, compared in place; afterwards the machine's result in index order.
    const FftCheck check = verify_fft_in_place(mach, pts.x, options);
    const double err = check.error, tol = check.tolerance;

    if (!f->output.empty()) {
      std::vector<std::complex<double>>& y = pts.x;
      if (pts.type == ElementType::c64) {
        // Narrowed in place: element i's 8 bytes land below element i's 16, which is read first.
        auto* bytes = reinterpret_cast<unsigned char*>(y.data());
        for (std::uint64_t i = 0; i < y.size(); ++i) {
          const std::complex<float> v(static_cast<float>(y[i].real()), static_cast<float>(y[i].imag()));
          std::memcpy(bytes + i * 8, &v, 8);
        }
      }
      write_npy(f->output, pts.type, {y.size()}, y.data(), y.size() * info(pts.type).bytes);
    }

    const std::string source = f->input.empty() ? fmt::format("random points, seed {}", f->seed) : f->input;
    if (f->json) {
      nlohmann::ordered_json j = {
          {"command", "fft"},
          {"points_log2", P},
          {"nodes_log2", n},
          {"m", m},
          {"points", std::uint64_t{1} << P},
          {"nodes", std::uint64_t{1} << n},
          {"type", info(pts.type).name},
          {"order", to_string(options.order)},
          {"inverse", options.inverse},
          {"algorithm", f->algorithm},
          {"input", f->input.empty() ? nlohmann::json(nullptr) : nlohmann::json(f->input)},
          {"seed", f->input.empty() ? nlohmann::json(f->seed) : nlohmann::json(nullptr)},
          {"stages", rep.stages},
          {"local_transform", rep.local_library},
          {"local_transforms", rep.local_transforms},
          {"aapcs", rep.aapcs},
          {"aapc_dims", rep.aapc_dims},
          {"single_alignment_pair", rep.single_alignment_pair},
          {"alignments", rep.alignments},
          {"cycles", rep.cycles},
          {"launches", rep.launches},
          {"max_relative_error", err},
          {"tolerance", tol},
          {"verified", true},
          {"backend", to_string(mach.backend().kind())},
          {"device", mach.backend().device_name()},
          {"backend_note", note},
          {"tile_dims", mach.layout().t},
          {"seconds", rep.seconds},
          {"output", f->output.empty() ? nlohmann::json(nullptr) : nlohmann::json(f->output)},
          {"counters", mach.counters().to_json()},
      };
      std::cout << j.dump(2) << "\n";
      return;
    }
    if (!note.empty()) fmt::print("backend {}\n", note);
    fmt::print("{}FFT of 2^{} points ({}, {}) on 2^{} nodes of 2^{} words, {} order\n", options.inverse ? "inverse " : "",
               P, info(pts.type).name, source, n, m, to_string(options.order));
    if (f->plan) {
      const std::string text = plan.describe();
      std::cout << text.substr(text.find('\n') + 1);  // the steps, below the headline already printed
    }
    const std::string local = rep.local_transforms > 0
                                  ? fmt::format("{} stages as {} batched {} transform{}", rep.stages,
                                                rep.local_transforms, rep.local_library,
                                                rep.local_transforms == 1 ? "" : "s")
                                  : fmt::format("{} radix-2 stages", rep.stages);
    fmt::print("{}, {} AAPC{}{}{}, {} alignment{}, {} routing cycles: {} launches in {:.6f} s\n", local, rep.aapcs, rep.aapcs == 1 ? "" : "s",
               rep.aapcs ? fmt::format(" (d = {})", join_uints(rep.aapc_dims)) : std::string(),
               rep.single_alignment_pair ? " as one sequence (Lemma 1)" : "", rep.alignments,
               rep.alignments == 1 ? "" : "s", rep.cycles, rep.launches, rep.seconds);
    fmt::print("on {} backend ({})\n", to_string(mach.backend().kind()), mach.backend().device_name());
    fmt::print("max relative error vs FFTW: {:.3g} (tolerance {:.0e}): verified\n", err, tol);
    std::cout << mach.counters().to_text();
    if (!f->output.empty()) fmt::print("wrote {}\n", f->output);
  });
}

}  // namespace hcube::cli

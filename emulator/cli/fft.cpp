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
#include "hcube/app/distributed.hpp"
#include "hcube/app/fft_points.hpp"
#include "hcube/app/ranks.hpp"
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
  long long tile_dims = kUnsetDims;
  std::string launch = "per-cycle";
  std::string algorithm = "4";
  std::string local = "library";
  bool inverse = false;
  std::string input, output;
  unsigned long long seed = 1;
  bool json = false;
  bool plan = false;
};

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
  input_flag(
      cmd->add_option("-i,--input", f->input, "the points: a flat .npy of 2^P complex64 or complex128 values, in index order"));
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
    const long long tile = tile_dims(f->tile_dims, n);
    FftOptions options;
    options.order = parse_fft_order(f->order);
    options.inverse = f->inverse;
    options.algorithm = parse_aapc_algorithm(f->algorithm);
    options.local = parse_local_transform(f->local);
    const BackendChoice choice = parse_backend_choice(f->backend);
    const LaunchMode launch = parse_launch_mode(f->launch);
    const FftPlan plan = plan_fft(n, m, options.order);
    const std::string source = f->input.empty() ? fmt::format("random points, seed {}", f->seed) : f->input;
    // The command's JSON from the run's report, its check, the backend and the counters.
    const auto fields = [&](const FftReport& rep, const FftCheck& check, ElementType type, const Backend& backend,
                            const std::string& note, unsigned tile_dims, const Counters& counters) {
      return nlohmann::ordered_json{
          {"command", "fft"},
          {"points_log2", P},
          {"nodes_log2", n},
          {"m", m},
          {"points", std::uint64_t{1} << P},
          {"nodes", std::uint64_t{1} << n},
          {"n", n},
          {"K", std::uint64_t{1} << m},
          {"bytes", (std::uint64_t{1} << P) * info(type).bytes},
          {"launch", to_string(launch)},
          {"type", info(type).name},
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
          {"max_relative_error", check.error},
          {"tolerance", check.tolerance},
          {"verified", true},
          {"verified_by", "fftw"},  // against FFTW's transform of the same points (max_relative_error)
          {"backend", to_string(backend.kind())},
          {"device", backend.device_name()},
          {"backend_note", note},
          {"tile_dims", tile_dims},
          {"seconds", rep.seconds},
          {"output", f->output.empty() ? nlohmann::json(nullptr) : nlohmann::json(f->output)},
          {"counters", to_json(counters)},
      };
    };
    const std::shared_ptr<NpyInput> input = open_input(f->input);
    const ElementType type = points_type(f->type, f->input, P, input.get());
    const std::shared_ptr<const NpyFile> file = input ? input->file() : nullptr;
    // A stream cannot be read again for the check: its points stay beside the machine.
    NpyInput* stream = input && !file ? input.get() : nullptr;
    if (distributed()) {
      FftAcrossRanks job;
      job.n = n;
      job.m = m;
      job.backend = choice;
      job.tile_dims = tile;
      job.options = options;
      job.plan = &plan;
      if (stream != nullptr)
        throw Error(fmt::format("--input {}: under mpirun every rank reads the points, so it must be a regular file "
                                "(not a pipe or FIFO)",
                                f->input));
      FftPoints pts = read_points(f->seed, P, type, file.get(), nullptr);
      job.type = pts.type;
      job.x = std::move(pts.x);
      job.points = [&] { return read_points(f->seed, P, type, file.get(), nullptr).x; };
      job.io.json = f->json;
      job.io.output = f->output;
      job.fields = [&](const FftReport& rep, const FftCheck& check, const Backend& backend, unsigned tile_dims,
                       const Counters& counters) {
        return nlohmann::json::parse(fields(rep, check, job.type, backend, "", tile_dims, counters).dump());
      };
      job.summary = [&](const FftReport& rep, const FftCheck& check) {
        return fmt::format("{}FFT of 2^{} points ({}, {}) on 2^{} nodes of 2^{} words, {} order: {} AAPCs, {} "
                           "routing cycles, {} launches in {:.6f} s; max relative error vs FFTW {:.3g} (tolerance "
                           "{:.0e})",
                           options.inverse ? "inverse " : "", P, info(job.type).name, source, n, m,
                           to_string(options.order), rep.aapcs, rep.cycles, rep.launches, rep.seconds, check.error,
                           check.tolerance);
      };
      run_fft_across_ranks(std::move(job));
      return;
    }
    DistributedFftPlan fft_plan({P, n, options, PlanTarget{type, choice}});
    const FftRun run =
        run_fft(fft_plan, FftInput{f->seed, type, file.get(), stream}, choice, tile, launch, f->output);
    const Machine& mach = *run.machine;
    const FftReport& rep = run.report;
    const std::string& note = run.note;
    const double err = run.check.error, tol = run.check.tolerance;
    if (f->json) {
      std::cout << fields(rep, run.check, type, mach.backend(), note, mach.layout().t, mach.counters()).dump(2) << "\n";
      return;
    }
    if (!note.empty()) fmt::print("backend {}\n", note);
    fmt::print("{}FFT of 2^{} points ({}, {}) on 2^{} nodes of 2^{} words, {} order\n", options.inverse ? "inverse " : "",
               P, info(type).name, source, n, m, to_string(options.order));
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
    if (!f->output.empty()) fmt::print("wrote {}\n", printable_text(f->output));
  });
}

}  // namespace hcube::cli

// hcube fft's points (emulator/app/src/fft_points.cpp).
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "hcube/emulator/element_type.hpp"
#include "hcube/emulator/npy.hpp"
#include "hcube/plans.hpp"

namespace hcube::app {

// Element type and points: --input's (checked) or seeded random ones in [-1, 1)^2.
struct FftPoints {
  ElementType type = ElementType::c128;
  std::vector<std::complex<double>> x;
};

// The element type of the run: `type_text` (--type, empty: none), which the
// input's dtype must match, and the input's header checked against 2^P points
// before any of its body is read (`input` null: no input).
ElementType points_type(const std::string& type_text, const std::string& input_path, unsigned P,
                        const NpyInput* input);
// The points: seeded random ones (`file` and `stream` null), a regular file's
// (read again for the check), or a stream's, read once as they arrive.
FftPoints read_points(unsigned long long seed, unsigned P, ElementType type, const NpyFile* file, NpyInput* stream);

// Where the points come from: seeded random ones (`file` and `stream` null), a
// regular file (read again for the check) or a stream (kept beside the machine).
struct FftInput {
  unsigned long long seed = 1;
  ElementType type = ElementType::c128;
  const NpyFile* file = nullptr;
  NpyInput* stream = nullptr;
};
// One process's run of the plan: its footprint checked, the machine loaded
// with the points, the transform executed, compared with FFTW's transform of
// the same points, and written to `output` (empty: none) in index order.
struct FftRun {
  std::unique_ptr<Machine> machine;
  FftReport report;
  FftCheck check;
  std::string note;  // how BackendChoice::automatic chose
};
FftRun run_fft(DistributedFftPlan& plan, const FftInput& in, BackendChoice choice, long long tile_dims,
               LaunchMode launch, const std::string& output);

}  // namespace hcube::app

// hcube sweep --plot (emulator/app/src/plot.cpp).
#pragma once

#include <string>
#include <vector>

#include "hcube/emulator/measure.hpp"

namespace hcube::app {

// Refuses, before anything runs, a --plot path not ending in .svg or .png, or
// a machine without gnuplot.
void check_plot_target(const std::string& path);
// The ratio to memcpy, the cycles and the time per cycle against d, one line
// per algorithm (and per sweep, labelled by its launch mode, when several),
// drawn by gnuplot into `path`.
void plot_sweep(const std::string& path, const std::vector<SweepResult>& sweeps);
void plot_sweep(const std::string& path, const SweepResult& sweep);

}  // namespace hcube::app

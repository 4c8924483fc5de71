// hcube sweep's JSON: what --json prints, and what --from reads back to
// re-plot without running (the device that ran the sweep may lack gnuplot).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "hcube/emulator/measure.hpp"

namespace hcube::app {

// The sweep as hcube sweep --json prints it: the run's fields and one object a row.
nlohmann::json sweep_json(const SweepResult& sweep);
// A file hcube sweep --json wrote; throws hcube::Error, one line naming the file and what is wrong.
SweepResult load_sweep_json(const std::string& path);

}  // namespace hcube::app

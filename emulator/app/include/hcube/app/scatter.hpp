// hcube scatter's runs and report terms (emulator/app/src/scatter.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "hcube/app/run.hpp"
#include "hcube/emulator/grid_machine.hpp"
#include "hcube/emulator/scatter_run.hpp"
#include "hcube/host/grid_scatter.hpp"

namespace hcube::app {

// "7 t_s + 28 mu t_m" (+ "12 t_d" where there is a hop term).
std::string cost_text(std::uint64_t startups, std::uint64_t elements, std::uint64_t hops);
nlohmann::json model_json(std::uint64_t startups, std::uint64_t elements, std::uint64_t hops);

// The scatter on the grid machine (or, `embed`, on the cube it embeds in,
// checked against the grid's run): --input's shape checked from its header,
// the machine's fit checked before any data is made, every cycle's state
// recorded (--trace --json) or printed (--trace), --output written.
struct GridScatterRun {
  ScatterRun run;
  ElementType type = ElementType::u32;
  bool identical = true;  // embed: the cube left every word where the grid does
  nlohmann::json trace = nlohmann::json::array();
};
GridScatterRun run_grid_scatter(const GridSchedule& s, const IoFlags& io, const MachineFlags& mf, bool embed);

// hcube scatter --schedule: the hcube-scatter/1 file loaded and checked, its topology against
// `topology` where given; on a grid its wormhole rounds, to run. On the cube its wormhole rounds
// run here on the cube machine (run_cube_scatter), verified and reported (emit), and none returned.
std::optional<GridSchedule> scatter_schedule_file(const std::string& path, const std::string& topology,
                                                  const IoFlags& io, const MachineFlags& mf);

}  // namespace hcube::app

// Running an all-to-all scatter plan (host/grid_scatter.hpp) on the grid
// machine, or on the cube machine through the Gray-code embedding, and
// checking it: the result is compared bit for bit with the scatter's
// definition (node j's block i is node i's input block j), computed here
// without the plan.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hcube/emulator/backend.hpp"
#include "hcube/emulator/counters.hpp"
#include "hcube/emulator/element_type.hpp"
#include "hcube/host/grid_scatter.hpp"

namespace hcube {

// The definition: `input` is N rows of N mu words (row i, block j: node i's
// packet for node j); the result has row j, block i = row i, block j.
std::vector<unsigned char> scatter_reference(const std::vector<unsigned char>& input, std::uint64_t nodes,
                                             std::uint64_t packet_words, std::size_t word_bytes);
// The address labels as input: word w of row i holds i N mu + w. Throws
// hcube::Error when `type` cannot hold every label exactly.
std::vector<unsigned char> scatter_labels(ElementType type, std::uint64_t nodes, std::uint64_t packet_words);
// Throws hcube::Error naming the first word (node, packet, word) where `got`
// differs from `expected` (both N rows of N mu words).
void check_scatter_result(const std::vector<unsigned char>& got, const std::vector<unsigned char>& expected,
                          ElementType type, std::uint64_t nodes, std::uint64_t packet_words);

// The nodes' memories (N x W words) with the input in its area, every other word 0.
std::vector<unsigned char> scatter_memory(const GridSchedule& s, const std::vector<unsigned char>& input,
                                          std::size_t word_bytes);
// The output area of the memories: N rows of N mu words.
std::vector<unsigned char> scatter_output(const GridSchedule& s, const std::vector<unsigned char>& memory,
                                          std::size_t word_bytes);

// After each cycle (numbered from 0), the memories, already checked against
// the cycle's own reference (reference_grid_cycle).
using GridObserver = std::function<void(std::size_t cycle, const std::vector<unsigned char>& memory)>;

struct ScatterRun {
  std::vector<unsigned char> memory;  // the final memories, N x W words in grid order
  std::vector<unsigned char> output;  // their output area, verified against the definition
  Counters counters;                  // of the machine that ran it
  double seconds = 0;                 // the cycles' wall time
  std::string backend_note;           // how BackendChoice::automatic chose
  // On the cube: its dimensions, and router steps (one launch a grid cycle).
  unsigned cube_dims = 0, cube_mem_dims = 0;
};

enum class ScatterMachine { grid, cube };

// Loads `input` (N rows of N mu words of `type`), runs every cycle of `s` on a
// grid machine, or on a cube machine of grid_cube_dims(s.topology) dimensions
// with each grid node at its Gray-code node and each grid cycle one launch of
// router steps between neighbours (embed_grid_cycle), and verifies the output
// against scatter_reference (throws hcube::Error if it differs). With an
// observer every cycle is also checked against its own reference and shown.
ScatterRun run_scatter(const GridSchedule& s, const std::vector<unsigned char>& input, ElementType type,
                       BackendChoice backend, ScatterMachine on = ScatterMachine::grid,
                       const GridObserver& observer = {});

// Loads `input` (N rows of N mu words) on the cube machine of s.d dimensions, its rows in the
// input blocks, runs every hop cycle of `s` (a launch a router step) and verifies the output
// blocks against scatter_reference (throws hcube::Error if they differ). `memory` is then the
// output area, N rows of N mu words; cube_dims and cube_mem_dims say the machine.
ScatterRun run_cube_scatter(const CubeScatterSchedule& s, const std::vector<unsigned char>& input, ElementType type,
                            BackendChoice backend);

}  // namespace hcube

#include "hcube/emulator/scatter_run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <memory>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/emulator/grid_machine.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/verified_run.hpp"

namespace hcube {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Checks the memories after cycle c against that cycle applied to the memories before it.
void check_cycle_step(const GridSchedule& s, std::size_t c, const std::vector<unsigned char>& before,
                      const std::vector<unsigned char>& after, std::size_t wb) {
  const std::vector<unsigned char> expected =
      reference_grid_cycle(before, s.node_blocks, s.packet_words * wb, s.topology, s.cycles[c]);
  if (expected != after)
    throw Error(fmt::format("verification of grid cycle {} of {} failed: the machine differs from the cycle's reference",
                            c, s.algorithm));
}

}  // namespace

std::vector<unsigned char> scatter_reference(const std::vector<unsigned char>& input, std::uint64_t nodes,
                                             std::uint64_t packet_words, std::size_t wb) {
  const std::size_t block = packet_words * wb, row = nodes * block;
  if (input.size() != nodes * row)
    throw Error(fmt::format("scatter input holds {} bytes: {} rows of {} bytes expected", input.size(), nodes, row));
  std::vector<unsigned char> out(input.size());
  for (std::uint64_t i = 0; i < nodes; ++i)
    for (std::uint64_t j = 0; j < nodes; ++j) std::memcpy(&out[j * row + i * block], &input[i * row + j * block], block);
  return out;
}

std::vector<unsigned char> scatter_labels(ElementType type, std::uint64_t nodes, std::uint64_t packet_words) {
  const ElementInfo& ti = info(type);
  const std::uint64_t words = nodes * nodes * packet_words;
  if (ti.label_bits < 64 && words > bit(ti.label_bits))
    throw Error(
        fmt::format("labels of {} words need integers up to {} but {} holds distinct integers up to 2^{}: "
                    "use a wider scatter_labels::type",
                    words, words - 1, ti.name, ti.label_bits));
  std::vector<unsigned char> data(words * ti.bytes);
  for (std::uint64_t g = 0; g < words; ++g) write_label(type, g, &data[g * ti.bytes]);
  return data;
}

void check_scatter_result(const std::vector<unsigned char>& got, const std::vector<unsigned char>& expected,
                          ElementType type, std::uint64_t nodes, std::uint64_t packet_words) {
  const std::size_t wb = info(type).bytes;
  if (got.size() != expected.size())
    throw Error(fmt::format("verification of the scatter failed: {} bytes, the reference has {}", got.size(),
                            expected.size()));
  for (std::uint64_t w = 0; w < got.size() / wb; ++w)
    if (std::memcmp(&got[w * wb], &expected[w * wb], wb) != 0) {
      const std::uint64_t row = nodes * packet_words, node = w / row, word = w % row;
      throw Error(fmt::format("verification of the scatter failed: node {} holds {} as word {} of its packet from node "
                              "{}, the definition has {}",
                              node, format_element(type, &got[w * wb]), word % packet_words, word / packet_words,
                              format_element(type, &expected[w * wb])));
    }
}

std::vector<unsigned char> scatter_memory(const GridSchedule& s, const std::vector<unsigned char>& input,
                                          std::size_t wb) {
  const std::uint64_t N = s.topology.nodes();
  const std::size_t row = N * s.packet_words * wb, memory = s.words_per_node() * wb;
  if (input.size() != N * row)
    throw Error(fmt::format("scatter input holds {} bytes: {} nodes of {} packets of {} words need {}", input.size(), N,
                            N, s.packet_words, N * row));
  std::vector<unsigned char> out(N * memory, 0);
  for (std::uint64_t j = 0; j < N; ++j) std::memcpy(&out[j * memory], &input[j * row], row);
  return out;
}

std::vector<unsigned char> scatter_output(const GridSchedule& s, const std::vector<unsigned char>& memory,
                                          std::size_t wb) {
  const std::uint64_t N = s.topology.nodes();
  const std::size_t row = N * s.packet_words * wb, node = s.words_per_node() * wb,
                    first = s.output_block * s.packet_words * wb;
  std::vector<unsigned char> out(N * row);
  for (std::uint64_t j = 0; j < N; ++j) std::memcpy(&out[j * row], &memory[j * node + first], row);
  return out;
}

ScatterRun run_scatter(const GridSchedule& s, const std::vector<unsigned char>& input, ElementType type,
                       BackendChoice backend, ScatterMachine on, const GridObserver& observer) {
  const GridTopology& t = s.topology;
  const std::size_t wb = info(type).bytes;
  const std::uint64_t N = t.nodes(), W = s.words_per_node();
  const std::vector<unsigned char> expected = scatter_reference(input, N, s.packet_words, wb);
  std::vector<unsigned char> memory = scatter_memory(s, input, wb);
  ScatterRun run;
  std::unique_ptr<Backend> be = make_backend(backend);
  run.backend_note = backend_note(backend, *be);
  if (on == ScatterMachine::grid) {
    GridMachine machine(t, W, type, std::move(be));
    machine.load(memory.data(), memory.size());
    const auto start = Clock::now();
    for (std::size_t c = 0; c < s.cycles.size(); ++c) {
      machine.run_cycle(s.cycles[c], s.rules, s.packet_words);
      if (!observer) continue;
      std::vector<unsigned char> after = machine.read();
      check_cycle_step(s, c, memory, after, wb);
      memory = std::move(after);
      observer(c, memory);
    }
    run.seconds = seconds_since(start);
    run.memory = machine.read();
    run.counters = machine.counters();
  } else {
    // Node v of the grid is node G(v) of the cube, its W words the first of 2^m.
    const unsigned n = grid_cube_dims(t), m = ceil_log2(W);
    run.cube_dims = n;
    run.cube_mem_dims = m;
    Machine cube(MachineOptions{n, m, type, backend, -1}, std::move(be));
    const std::uint64_t K = bit(m);
    const auto to_cube = [&](const std::vector<unsigned char>& grid) {
      std::vector<unsigned char> words(bit(n) * K * wb, 0);
      for (std::uint64_t v = 0; v < N; ++v)
        std::memcpy(&words[grid_cube_node(t, v) * K * wb], &grid[v * W * wb], W * wb);
      return words;
    };
    const auto from_cube = [&](const std::vector<unsigned char>& words) {
      std::vector<unsigned char> grid(N * W * wb);
      for (std::uint64_t v = 0; v < N; ++v)
        std::memcpy(&grid[v * W * wb], &words[grid_cube_node(t, v) * K * wb], W * wb);
      return grid;
    };
    const std::vector<unsigned char> loaded = to_cube(memory);
    cube.load(loaded.data(), loaded.size());
    const auto start = Clock::now();
    for (std::size_t c = 0; c < s.cycles.size(); ++c) {
      check_grid_cycle(t, s.node_blocks, s.cycles[c], s.rules, c);
      cube.route_blocks(embed_grid_cycle(t, s.cycles[c], s.packet_words));
      if (!observer) continue;
      std::vector<unsigned char> after = from_cube(cube.read());
      check_cycle_step(s, c, memory, after, wb);
      memory = std::move(after);
      observer(c, memory);
    }
    run.seconds = seconds_since(start);
    run.memory = from_cube(cube.read());
    run.counters = cube.counters();
  }
  run.output = scatter_output(s, run.memory, wb);
  check_scatter_result(run.output, expected, type, N, s.packet_words);
  return run;
}

ScatterRun run_cube_scatter(const CubeScatterSchedule& s, const std::vector<unsigned char>& input, ElementType type,
                            BackendChoice backend) {
  const std::size_t wb = info(type).bytes;
  const std::uint64_t N = bit(s.d), row = N * s.packet_words;
  const std::vector<unsigned char> expected = scatter_reference(input, N, s.packet_words, wb);
  ScatterRun run;
  std::unique_ptr<Backend> be = make_backend(backend);
  run.backend_note = backend_note(backend, *be);
  run.cube_dims = s.d;
  run.cube_mem_dims = ceil_log2(s.node_blocks * s.packet_words);
  const std::uint64_t K = bit(run.cube_mem_dims);
  Machine cube(MachineOptions{s.d, run.cube_mem_dims, type, backend, -1}, std::move(be));
  std::vector<unsigned char> words(N * K * wb, 0);
  for (std::uint64_t v = 0; v < N; ++v) std::memcpy(&words[v * K * wb], &input[v * row * wb], row * wb);
  cube.load(words.data(), words.size());
  const auto start = Clock::now();
  for (const std::vector<BlockRouteStep>& cycle : s.cycles)
    for (const BlockRouteStep& step : cycle) cube.route_blocks({step});
  run.seconds = seconds_since(start);
  words = cube.read();
  run.counters = cube.counters();
  run.output.resize(N * row * wb);
  for (std::uint64_t v = 0; v < N; ++v) std::memcpy(&run.output[v * row * wb], &words[(v * K + row) * wb], row * wb);
  run.memory = run.output;
  check_scatter_result(run.output, expected, type, N, s.packet_words);
  return run;
}

}  // namespace hcube

// The lecture notes' all-to-all scatter on a grid machine (or the cube it
// embeds in), run for a person: its input checked and loaded, its states
// traced, its result compared with the grid's and written.
#include "hcube/app/scatter.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "hcube/core/error.hpp"

namespace hcube::app {

// "7 t_s + 28 mu t_m" (+ "12 t_d" where there is a hop term).
std::string cost_text(std::uint64_t startups, std::uint64_t elements, std::uint64_t hops) {
  std::string text = fmt::format("{} t_s + {} mu t_m", startups, elements);
  if (hops != 0) text += fmt::format(" + {} t_d", hops);
  return text;
}

nlohmann::json model_json(std::uint64_t startups, std::uint64_t elements, std::uint64_t hops) {
  return {{"startups", startups}, {"element_units", elements}, {"hop_units", hops}};
}

namespace {

// A cycle's link messages (src_node, dst_node, dim, dir, blocks, elements) and
// every word it copies as [src_node, src_word, dst_node, dst_word].
void cycle_json(const GridSchedule& s, const GridCycle& c, nlohmann::json& messages, nlohmann::json& moves) {
  messages = nlohmann::json::array();
  moves = nlohmann::json::array();
  const std::uint64_t mu = s.packet_words;
  for (const GridMessage& m : c.messages) {
    const std::uint64_t to = m.dir == 0 ? m.node : *s.topology.neighbour(m.node, m.dim, m.dir);
    if (m.dir != 0)
      messages.push_back({{"src_node", m.node}, {"dst_node", to}, {"dim", m.dim}, {"dir", m.dir}, {"blocks", m.blocks},
                          {"elements", m.blocks * mu}});
    for (std::uint64_t e = m.first; e < m.first + m.blocks; ++e)
      for (std::uint64_t w = 0; w < mu; ++w) moves.push_back({m.node, c.from[e] * mu + w, to, c.to[e] * mu + w});
  }
}

std::string cycle_text(const GridSchedule& s, std::size_t c) {
  std::string text;
  for (const GridMessage& m : s.cycles[c].messages) {
    if (m.dir == 0) continue;
    text += fmt::format("{}{}->{} {}{} ({} packet{})", text.empty() ? "" : ", ", m.node,
                        *s.topology.neighbour(m.node, m.dim, m.dir), m.dim == 0 ? 'X' : 'Y', m.dir > 0 ? '+' : '-',
                        m.blocks, m.blocks == 1 ? "" : "s");
  }
  return text;
}

std::string memory_text(const GridSchedule& s, const std::vector<unsigned char>& memory, ElementType type,
                        const std::string& title) {
  const std::size_t wb = info(type).bytes;
  const std::uint64_t N = s.topology.nodes(), W = s.words_per_node();
  std::vector<std::string> cells(N * W);
  std::size_t width = 1;
  for (std::uint64_t k = 0; k < N * W; ++k) {
    cells[k] = format_element(type, &memory[k * wb]);
    width = std::max(width, cells[k].size());
  }
  std::string out = title + "\n";
  const std::size_t node_w = std::max<std::size_t>(4, fmt::format("{}", N - 1).size());
  for (std::uint64_t v = 0; v < N; ++v) {
    out += fmt::format("{:>{}} |", v, node_w);
    for (std::uint64_t w = 0; w < W; ++w) {
      const bool boundary = w == N * s.packet_words || w == 2 * N * s.packet_words;
      out += fmt::format("{}{:>{}}", boundary ? " | " : " ", cells[v * W + w], width);
    }
    out += "\n";
  }
  return out;
}

// The element type of the run on N nodes (`topology`) and, for --input, its shape checked from the header alone.
ElementType scatter_input_type(const IoFlags& io, const MachineFlags& mf, std::uint64_t N, std::uint64_t mu,
                               const std::string& topology) {
  if (io.input.empty()) return mf.type.empty() ? ElementType::u32 : parse_element_type(mf.type);
  const NpyHeader h = read_npy_header(io.input);
  const std::uint64_t row = N * mu;
  const bool flat = h.shape.size() == 1 && h.shape[0] == N * row;
  if (!flat && h.shape != std::vector<std::uint64_t>{N, row})
    throw Error(fmt::format("{} has shape ({}): {} takes ({}, {}) or ({},), a row of {} packets of {} word{} a node",
                            io.input, fmt::join(h.shape, ", "), topology, N, row, N * row, N, mu, mu == 1 ? "" : "s"));
  return element_type(mf, h.type, io.input);
}

}  // namespace

GridScatterRun run_grid_scatter(const GridSchedule& s, const IoFlags& io, const MachineFlags& mf, bool embed) {
  const std::uint64_t N = s.topology.nodes(), W = s.words_per_node();
  const ElementType type = scatter_input_type(io, mf, N, s.packet_words, to_string(s.topology));
  const BackendChoice backend = parse_backend_choice(mf.backend);
  // The machine must fit before any data is made (the plan is small beside it).
  check_grid_machine_fits(s.topology, W, type, *make_backend(backend));
  const std::vector<unsigned char> input =
      io.input.empty() ? scatter_labels(type, N, s.packet_words) : read_npy(io.input).data;

  GridScatterRun out;
  nlohmann::json& trace = out.trace;
  if (io.trace && io.json) trace.push_back({{"step", "initial"}, {"state", state_json(N, W, type, scatter_memory(s, input, info(type).bytes))}});
  if (io.trace && !io.json)
    std::cout << fmt::format("words 0..{} of a node: its packets for nodes 0..{}; {}..{}: the packets from them; the "
                             "rest: buffers\n\n",
                             N * s.packet_words - 1, N - 1, N * s.packet_words, 2 * N * s.packet_words - 1)
              << memory_text(s, scatter_memory(s, input, info(type).bytes), type, "initial state") << "\n";
  GridObserver observer;
  if (io.trace)
    observer = [&](std::size_t c, const std::vector<unsigned char>& memory) {
      const std::string name = fmt::format("routing cycle {}", c + 1);
      if (io.json) {
        nlohmann::json step = {{"step", name}, {"round", s.round_of(c) + 1}};
        cycle_json(s, s.cycles[c], step["messages"], step["moves"]);
        step["state"] = state_json(N, W, type, memory);
        trace.push_back(std::move(step));
      } else {
        std::cout << memory_text(s, memory, type,
                                 fmt::format("after {} of round {}: {}", name, s.round_of(c) + 1, cycle_text(s, c)))
                  << "\n";
      }
    };
  out.run = run_scatter(s, input, type, backend, embed ? ScatterMachine::cube : ScatterMachine::grid, observer);
  const ScatterRun& run = out.run;
  out.type = type;
  if (embed) {
    // The same plan on the grid machine: the embedding leaves every word where the grid does.
    const ScatterRun grid = run_scatter(s, input, type, backend, ScatterMachine::grid);
    out.identical = grid.memory == run.memory;
    if (!out.identical) throw Error("the run on the cube differs from the run on the grid: the embedding is wrong");
  }
  if (!io.output.empty()) write_npy(io.output, type, {N, N * s.packet_words}, run.output.data(), run.output.size());

  return out;
}

std::optional<GridSchedule> scatter_schedule_file(const std::string& path, const std::string& topology,
                                                  const IoFlags& io, const MachineFlags& mf) {
  const ScatterRounds r = load_scatter_rounds(path);  // checked: every pair once, no link or port twice
  if (!topology.empty() && to_string(parse_scatter_topology(topology)) != to_string(r.topology))
    throw Error(fmt::format("--topology {} differs from the schedule's {}: allowed {} or none", printable_text(topology),
                            to_string(r.topology), to_string(r.topology)));
  if (!r.topology.cube) return grid_scatter_from_rounds(r);
  if (io.trace) throw Error(fmt::format("--trace: the wormhole rounds on {} are run, not traced", to_string(r.topology)));
  const CubeScatterSchedule s = cube_scatter_from_rounds(r, 1);
  const std::uint64_t N = bit(s.d);
  const ElementType type = scatter_input_type(io, mf, N, 1, to_string(r.topology));
  const std::vector<unsigned char> input = io.input.empty() ? scatter_labels(type, N, 1) : read_npy(io.input).data;
  const ScatterRun run = run_cube_scatter(s, input, type, parse_backend_choice(mf.backend));  // verified
  if (!io.output.empty()) write_npy(io.output, type, {N, N}, run.output.data(), run.output.size());
  const Counters& k = run.counters;
  const nlohmann::json j = {{"command", "scatter"},       {"topology", to_string(r.topology)},
                            {"schedule", path},           {"algorithm", "sat"},
                            {"ports", to_string(r.ports)}, {"rounds", r.rounds.size()},
                            {"cycles", s.cycles.size()},  {"launches", k.kernel_launches},
                            {"cube_mem_dims", run.cube_mem_dims}, {"type", info(type).name},
                            {"verified", true},           {"run", true},
                            {"seconds", run.seconds},     {"permutation", "all-to-all scatter"}};
  emit(io, j, [&] {
    fmt::print("all-to-all scatter, schedule {} on {} (e-cube, {}-port): {} rounds in {} hop cycles\n",
               printable_text(path), to_string(r.topology), to_string(r.ports), r.rounds.size(), s.cycles.size());
    fmt::print("run on the {}-cube with {} words a node (input, output, a transit word a dimension), {} launches, "
               "verified against the definition: yes\n",
               s.d, bit(run.cube_mem_dims), k.kernel_launches);
  });
  return std::nullopt;
}

}  // namespace hcube::app

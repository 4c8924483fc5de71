#include "common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "hcube/emulator/npy.hpp"
#include "hcube/emulator/units.hpp"
#include "hcube/host/error.hpp"

namespace hcube::cli {

void add_machine_flags(CLI::App& cmd, MachineFlags& f, const char* dims_help) {
  cmd.add_option("-n,--dims", f.n, dims_help)->capture_default_str();
  cmd.add_option("-m,--mem-dims", f.m, "memory dimensions m (K = 2^m words per node)")->capture_default_str();
  add_backend_flags(cmd, f);
}

void add_backend_flags(CLI::App& cmd, MachineFlags& f) {
  cmd.add_option("-t,--type", f.type, "element type: " + element_type_names() + " (default uint32, or --input's)");
  cmd.add_option("--backend", f.backend, "auto (CUDA when a GPU is present), cpu or cuda")->capture_default_str();
  cmd.add_option("--tile-dims", f.tile_dims,
                 "nodes per storage tile = 2^t, 0..n (default min(n, " + std::to_string(kDefaultTileDims) + "))");
}

void add_io_flags(CLI::App& cmd, IoFlags& f) {
  cmd.add_option("-i,--input", f.input, "initial state, .npy of shape (2^n, 2^m) or (2^(n+m),); default: address labels");
  cmd.add_option("-o,--output", f.output, "write the final state as .npy of shape (2^n, 2^m)");
  cmd.add_flag("--json", f.json, "print one JSON object instead of prose");
  cmd.add_flag("--trace", f.trace, "print the machine state after every step");
}

Session open_session(const MachineFlags& mf, const IoFlags& io) {
  std::optional<NpyArray> input;
  if (!io.input.empty()) input = read_npy(io.input);
  ElementType type = ElementType::u32;
  if (!mf.type.empty()) {
    type = parse_element_type(mf.type);
    if (input && input->type != type)
      throw Error(fmt::format("{} holds {} but --type asks for {}: drop --type or convert the file", io.input,
                              info(input->type).name, info(type).name));
  } else if (input) {
    type = input->type;
  }
  const Geometry geo = make_geometry(mf.n, mf.m);
  if (input) check_machine_array(*input, io.input, geo.n, geo.m, type);

  Session s;
  const BackendChoice choice = parse_backend_choice(mf.backend);
  s.machine = std::make_unique<Machine>(MachineOptions{mf.n, mf.m, type, choice, mf.tile_dims});
  // --backend auto says what it chose and why.
  if (choice == BackendChoice::automatic && s.machine->backend().kind() == BackendKind::cpu) {
    std::string why;
    cuda_device_count(&why);
    s.backend_note = "auto chose cpu: " + why;
  } else if (choice == BackendChoice::automatic) {
    s.backend_note = "auto chose cuda: a GPU is present";
  }
  if (input) {
    s.machine->load(input->data.data(), input->data.size());
    s.expected = std::move(input->data);
  } else {
    s.machine->load_labels();
    s.expected = s.machine->read();
    s.labelled = true;
  }
  return s;
}

void begin_trace(Session& s, const IoFlags& io) {
  if (!io.json && !s.backend_note.empty()) std::cout << "backend " << s.backend_note << "\n";
  if (!io.trace) return;
  const Geometry& geo = s.machine->geometry();
  if (io.json)
    s.trace.push_back({{"step", "initial"}, {"state", state_json(geo, s.machine->type(), s.expected)}});
  else
    std::cout << format_memory(geo, s.machine->type(), s.expected, "initial state") << "\n";
}

void run_step(Session& s, const IoFlags& io, const std::string& name, const ReferenceStep& reference,
              const std::function<void(Machine&)>& step) {
  std::vector<unsigned char> next = reference(s.expected);
  step(*s.machine);
  verify(*s.machine, next, name);
  s.expected = std::move(next);
  if (!io.trace) return;
  const Geometry& geo = s.machine->geometry();
  if (io.json)
    s.trace.push_back({{"step", name}, {"state", state_json(geo, s.machine->type(), s.expected)}});
  else
    std::cout << format_memory(geo, s.machine->type(), s.expected, "after " + name) << "\n";
}

ReferenceStep permutation_reference(const Machine& machine, AddressMap dest) {
  const std::size_t wb = machine.word_bytes();
  const std::uint64_t total = machine.geometry().total_words();
  return [wb, total, dest = std::move(dest)](const std::vector<unsigned char>& in) {
    return reference_permute(in, wb, total, dest);
  };
}

nlohmann::json state_json(const Geometry& geo, ElementType type, const std::vector<unsigned char>& data) {
  const std::size_t wb = info(type).bytes;
  nlohmann::json rows = nlohmann::json::array();
  for (std::uint64_t j = 0; j < geo.nodes(); ++j) {
    nlohmann::json row = nlohmann::json::array();
    for (std::uint64_t a = 0; a < geo.words_per_node(); ++a) row.push_back(element_json(type, &data[geo.global(j, a) * wb]));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string format_memory(const Geometry& geo, ElementType type, const std::vector<unsigned char>& data,
                          const std::string& title) {
  const std::size_t wb = info(type).bytes;
  std::vector<std::string> cells(geo.total_words());
  std::size_t width = 1;
  for (std::uint64_t g = 0; g < cells.size(); ++g) {
    cells[g] = format_element(type, &data[g * wb]);
    width = std::max(width, cells[g].size());
  }
  const std::size_t node_w = std::max<std::size_t>(4, geo.n);
  std::string s = title + "\n" + fmt::format("{:>{}} |", "node", node_w);
  for (std::uint64_t a = 0; a < geo.words_per_node(); ++a) s += fmt::format(" {:>{}}", a, width);
  s += "\n" + std::string(node_w + 2 + geo.words_per_node() * (width + 1), '-') + "\n";
  for (std::uint64_t j = 0; j < geo.nodes(); ++j) {
    std::string node = geo.n == 0 ? "-" : fmt::format("{:0{}b}", j, geo.n);
    s += fmt::format("{:>{}} |", node, node_w);
    for (std::uint64_t a = 0; a < geo.words_per_node(); ++a) s += fmt::format(" {:>{}}", cells[geo.global(j, a)], width);
    s += "\n";
  }
  return s;
}

void verify(const Machine& machine, const std::vector<unsigned char>& expected, const std::string& what) {
  const std::vector<unsigned char> got = machine.read();
  const std::size_t wb = machine.word_bytes();
  for (std::uint64_t g = 0; g < machine.geometry().total_words(); ++g) {
    if (std::equal(&got[g * wb], &got[g * wb] + wb, &expected[g * wb])) continue;
    const Geometry& geo = machine.geometry();
    throw Error(fmt::format("verification of {} failed: word {} of node {} holds {}, the reference has {}", what,
                            geo.local_of(g), geo.node_of(g), format_element(machine.type(), &got[g * wb]),
                            format_element(machine.type(), &expected[g * wb])));
  }
}

void write_output(const IoFlags& io, const Machine& machine) {
  if (io.output.empty()) return;
  const std::vector<unsigned char> data = machine.read();
  write_npy(io.output, machine.type(), {machine.geometry().nodes(), machine.geometry().words_per_node()}, data.data(),
            data.size());
}

nlohmann::json machine_json(const Session& s) {
  const Machine& machine = *s.machine;
  const Geometry& geo = machine.geometry();
  return {
      {"backend_note", s.backend_note},
      {"n", geo.n},
      {"m", geo.m},
      {"nodes", geo.nodes()},
      {"K", geo.words_per_node()},
      {"type", info(machine.type()).name},
      {"bytes", machine.bytes()},
      {"backend", to_string(machine.backend().kind())},
      {"device", machine.backend().device_name()},
      {"tile_dims", machine.layout().t},
      {"counters", machine.counters().to_json()},
  };
}

void emit(const IoFlags& io, const nlohmann::json& j, const std::function<void()>& prose) {
  if (io.json)
    std::cout << j.dump(2) << "\n";
  else
    prose();
}

void finish_run(Session& s, const IoFlags& io, nlohmann::json j, const std::string& summary) {
  write_output(io, *s.machine);
  const Machine& mach = *s.machine;
  j.update(machine_json(s));
  j["verified"] = true;
  if (io.trace) j["trace"] = s.trace;
  emit(io, j, [&] {
    fmt::print("{} on {} backend ({}), {}\n", summary, to_string(mach.backend().kind()), mach.backend().device_name(),
               describe(mach.geometry()));
    fmt::print("verified against the reference: yes\n{}", mach.counters().to_text());
    if (!io.output.empty()) fmt::print("wrote {}\n", io.output);
  });
}

}  // namespace hcube::cli

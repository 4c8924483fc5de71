#include "common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>

#include "hcube/cli/animate.hpp"
#include "hcube/emulator/npy.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/emulator/units.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/output_file.hpp"
#include "ranks.hpp"

namespace hcube::cli {

CLI::Option* choices(CLI::Option* opt, const std::vector<std::string>& values) {
  std::string list;
  for (const std::string& v : values) list += (list.empty() ? "" : ",") + v;
  // Accepts everything: the library's parse names the bad value and the allowed ones.
  return opt->check(CLI::Validator([](const std::string&) { return std::string(); }, "{" + list + "}", "choices"));
}

CLI::Option* output_flag(CLI::Option* opt, bool dash) {
  const std::string name = opt->get_name();
  return opt->check(CLI::Validator(
      [name, dash](const std::string& path) {
        if (dash && path == "-") return std::string();
        try {
          check_output(path, name);
        } catch (const Error& e) {
          // CLI11 puts the flag's name in front itself.
          const std::string text = e.what();
          return text.rfind(name + ": ", 0) == 0 ? text.substr(name.size() + 2) : text;
        }
        return std::string();
      },
      "FILE", "output file"));
}

CLI::Option* input_flag(CLI::Option* opt) {
  return opt->check(CLI::Validator(
      [](const std::string& path) { return path.empty() ? std::string("empty path: allowed a file name") : std::string(); },
      "FILE", "input file"));
}

void check_numbers(CLI::App& app) {
  for (CLI::App* cmd : app.get_subcommands([](const CLI::App*) { return true; })) check_numbers(*cmd);
  for (CLI::Option* opt : app.get_options()) {
    const std::string type = opt->get_type_name();
    if (type != "INT" && type != "UINT" && type != "FLOAT") continue;
    // Before CLI11's conversion, which reads "" as 0 and accepts nan and inf.
    const bool is_unsigned = type == "UINT", is_integer = type != "FLOAT";
    opt->check(CLI::Validator(
        [is_unsigned, is_integer](const std::string& text) {
          if (text.empty()) return std::string("empty value: allowed a number");
          // CLI11 reads 0x10, 0o20 and 0b10000 as 16, and 1e1 as 10: a count is written in decimal digits.
          const std::size_t digits_from = text[0] == '-' ? 1 : 0;
          if (is_integer && (text.size() == digits_from ||
                             text.find_first_not_of("0123456789", digits_from) != std::string::npos))
            return fmt::format("'{}' is not a whole number in decimal: allowed the digits 0-9", printable_input(text));
          char* end = nullptr;
          const double v = std::strtod(text.c_str(), &end);
          if (end != text.c_str() + text.size()) return std::string();  // CLI11 names the bad text itself
          if (!std::isfinite(v)) return fmt::format("{} out of range: allowed a finite number", text);
          // CLI11 would wrap -1 to 2^64 - 1.
          if (is_unsigned && v < 0) return fmt::format("{} out of range: allowed a number >= 0", text);
          // An integer past 64 bits: CLI11 would clamp it, and the command would name the clamped value.
          const bool integer = text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == std::string::npos;
          errno = 0;
          if (integer && is_unsigned) std::strtoull(text.c_str(), nullptr, 10);
          if (integer && !is_unsigned) std::strtoll(text.c_str(), nullptr, 10);
          if (integer && errno == ERANGE)
            return fmt::format("{} out of range: allowed {}", text,
                               is_unsigned ? "at most 18446744073709551615"
                                           : "-9223372036854775808..9223372036854775807");
          return std::string();  // a negative value reaches the command, whose check names its range
        },
        "", "a finite number"));
  }
}

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(", ", start), list.size());
    if (end > start) names.push_back(list.substr(start, end - start));
    start = end + 2;
  }
  return names;
}

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = {"auto", "cpu", "cuda"};
  return names;
}

namespace {

// Levenshtein distance, ignoring case.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "x", "x or y", "x, y or z".
std::string or_list(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

bool is_number(const std::string& s) {
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

// Every spelling of every flag of `cmd`: --long and -s.
std::vector<std::string> flag_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// The flag a word names, or "" for a value: --name[=value], -x[value].
std::string flag_of(const std::string& word) {
  if (word.size() < 2 || word[0] != '-' || is_number(word)) return "";
  if (word[1] == '-') return word.substr(0, word.find('='));
  return word.substr(0, 2);
}

}  // namespace

std::vector<std::string> nearest_names(const std::string& word, const std::vector<std::string>& names) {
  if (word.find_first_not_of('-') == std::string::npos) return {};
  std::vector<std::string> begun;
  for (const std::string& n : names)
    if (n.size() > word.size() && n.compare(0, word.size(), word) == 0) begun.push_back(n);
  if (begun.size() == 1) return begun;
  std::size_t best = 3;
  std::vector<std::string> near;
  for (const std::string& n : names) {
    const std::size_t d = edit_distance(word, n);
    if (d < best) {
      best = d;
      near.clear();
    }
    if (d == best && std::find(near.begin(), near.end(), n) == near.end()) near.push_back(n);
  }
  return near.size() <= 3 ? near : std::vector<std::string>{};
}

std::string parse_error_text(CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(sub->get_name());
  const std::string all_commands = fmt::format("{}", fmt::join(commands, ", "));
  // The command is the first word that is not a flag: hcube's own flags take no values.
  const auto first =
      std::find_if(args.begin(), args.end(), [](const std::string& a) { return a.empty() || a[0] != '-'; });
  // A flag before the command is hcube's own, or named as unknown (not "no command given").
  const std::vector<std::string> own = flag_names(app);
  for (auto a = args.begin(); a != first && *a != "--"; ++a) {
    const std::string flag = flag_of(*a);
    if (flag.empty() || std::find(own.begin(), own.end(), flag) != own.end()) continue;
    const std::vector<std::string> near = nearest_names(flag, own);
    if (near.empty()) return fmt::format("unknown flag '{}' for hcube: hcube --help lists its flags and commands", flag);
    return fmt::format("unknown flag '{}' for hcube: did you mean {}?", flag, or_list(near));
  }
  if (first == args.end())
    return fmt::format("no command given: allowed {} (hcube --help describes them)", all_commands);
  CLI::App* cmd = std::find(commands.begin(), commands.end(), *first) != commands.end() ? app.get_subcommand(*first)
                                                                                        : nullptr;
  if (cmd == nullptr) {
    const std::vector<std::string> near = nearest_names(*first, commands);
    if (near.empty()) return fmt::format("unknown command '{}': allowed {}", *first, all_commands);
    return fmt::format("unknown command '{}': did you mean {}?", *first, or_list(near));
  }
  // A misspelt flag is named even when CLI11 complains first of the flag it
  // replaced (--prem for --perm: "--perm is required").
  if (!cmd->get_allow_extras()) {
    const std::vector<std::string> known = flag_names(*cmd);
    for (auto a = first + 1; a != args.end() && *a != "--"; ++a) {
      const std::string flag = flag_of(*a);
      if (flag.empty() || std::find(known.begin(), known.end(), flag) != known.end()) continue;
      const std::vector<std::string> near = nearest_names(flag, known);
      if (near.empty())
        return fmt::format("unknown flag '{}' for hcube {}: hcube {} --help lists its flags", flag, *first, *first);
      return fmt::format("unknown flag '{}' for hcube {}: did you mean {}?", flag, *first, or_list(near));
    }
  }
  // CLI11's own text, on one line.
  std::string text = e.what();
  for (char& c : text)
    if (c == '\n') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

void add_machine_flags(CLI::App& cmd, MachineFlags& f, const char* dims_help) {
  // Unset until resolve_machine: --help shows the default that applies without --input.
  cmd.add_option("-n,--dims", f.n, dims_help)->default_str(std::to_string(kDefaultDims));
  cmd.add_option("-m,--mem-dims", f.m, "memory dimensions m (K = 2^m words per node)")
      ->default_str(std::to_string(kDefaultDims));
  add_backend_flags(cmd, f);
}

std::shared_ptr<NpyInput> open_input(const std::string& path) {
  return path.empty() ? nullptr : std::make_shared<NpyInput>(path);
}

void resolve_machine(MachineFlags& mf, const NpyInput* input, long long data_dims) {
  const bool n_set = mf.n != kUnsetDims, m_set = mf.m != kUnsetDims;
  if (input != nullptr && !(n_set && m_set)) {
    // The header alone: open_session reads the data once the geometry is known.
    std::optional<long long> n = n_set ? std::optional<long long>(mf.n) : std::nullopt;
    std::optional<long long> m = m_set ? std::optional<long long>(mf.m) : std::nullopt;
    machine_dims_from_shape(input->shape(), input->path(), n, m, data_dims);
    if (n) mf.n = *n;
    if (m) mf.m = *m;
  }
  if (mf.n == kUnsetDims) mf.n = kDefaultDims;
  if (mf.m == kUnsetDims) mf.m = kDefaultDims;
}

void check_machine_size(const MachineFlags& mf) {
  const ElementType type = mf.type.empty() ? ElementType::u32 : parse_element_type(mf.type);
  check_machine_fits(make_geometry(mf.n, mf.m), type, *make_backend(parse_backend_choice(mf.backend)));
}

ElementType run_type(const MachineFlags& mf, const NpyInput* input) {
  return input != nullptr ? element_type(mf, input->type(), input->path()) : element_type(mf, std::nullopt, "");
}

void check_fits(const std::string& run, const MachineFlags& mf, const NpyInput* input, std::vector<MemoryNeed> parts,
                bool needs_words) {
  const ElementType type = run_type(mf, input);
  const Geometry geo = make_geometry(mf.n, mf.m);
  const std::unique_ptr<Backend> backend = make_backend(parse_backend_choice(mf.backend));
  check_machine_fits(geo, type, *backend);
  if (input != nullptr && !input->regular() && needs_words)
    parts.push_back({"the input stream read whole", input->data_bytes(), false});
  check_run_fits(run, geo, type, *backend, parts);
}

MemoryNeed schedule_tables(std::uint64_t exchanges, unsigned m) {
  // The exchanges, and check_schedule's first, last, crossed and used slots per address.
  const std::uint64_t per_address = 2 * sizeof(std::uint32_t) + 2 * sizeof(std::uint64_t);
  const std::uint64_t words = m < 64 ? std::uint64_t{1} << m : ~std::uint64_t{0};
  const std::uint64_t limit = ~std::uint64_t{0};
  const std::uint64_t a = exchanges > limit / sizeof(Exchange) ? limit : exchanges * sizeof(Exchange);
  const std::uint64_t b = words > limit / per_address ? limit : words * per_address;
  return {"the schedule's tables", a > limit - b ? limit : a + b, false};
}

void check_fits_before_planning(const std::string& run, MachineFlags mf, std::vector<MemoryNeed> parts) {
  // Under mpirun each rank holds 2^(n - r) of the nodes (r > n is refused by the machine itself).
  const unsigned r = rank_dims();
  if (r == 0 || mf.n < static_cast<long long>(r)) return check_fits(run, mf, nullptr, std::move(parts));
  const long long n = mf.n;
  mf.n -= static_cast<long long>(r);
  try {
    check_fits(run, mf, nullptr, std::move(parts));
  } catch (const Error& e) {
    throw Error(fmt::format("{} ranks each hold 2^{} of the 2^{} nodes: {}", 1u << r, mf.n, n, e.what()));
  }
}

void check_job_fits(const std::string& run, const MachineFlags& mf, const NpyInput* input, const Job& job,
                    bool needs_words) {
  check_fits(run, mf, input,
             scratch_copy(schedule_needs_scratch(job.schedule, job.f, job.g), mf, input,
                          "its scratch copy (an alignment that copies)"),
             needs_words);
}

std::vector<MemoryNeed> scratch_copy(bool needed, const MachineFlags& mf, const NpyInput* input, const char* why) {
  if (!needed) return {};
  return {{why, make_geometry(mf.n, mf.m).total_words() * info(run_type(mf, input)).bytes, true}};
}

long long tile_dims(long long flag, unsigned n) {
  if (flag == kUnsetDims) return -1;
  check_tile_dims(n, flag);
  return flag;
}

long long tile_dims(long long flag) {
  if (flag == kUnsetDims) return -1;
  if (flag < 0)
    throw Error(fmt::format("tile dimensions t = {} out of range: allowed 0..n (the cube's processor dimensions)", flag));
  return flag;
}

void add_backend_flags(CLI::App& cmd, MachineFlags& f) {
  choices(cmd.add_option("-t,--type", f.type, "element type (default uint32, or --input's)"),
          split_names(element_type_names()));
  choices(cmd.add_option("--backend", f.backend, "auto (CUDA when a GPU is present), cpu or cuda"), backend_names())
      ->capture_default_str();
  cmd.add_option("--tile-dims", f.tile_dims,
                 "nodes per storage tile = 2^t, 0..n (default min(n, " + std::to_string(kDefaultTileDims) + "))");
}

void add_launch_flag(CLI::App& cmd, std::string& launch) {
  std::string list;
  for (const std::string& v : split_names(launch_mode_names())) list += (list.empty() ? "" : ",") + v;
  cmd.add_option("--launch", launch,
                 "how batches of routing cycles are launched: per-cycle (one kernel launch a cycle; on CUDA one "
                 "replayed graph a batch) or persistent (one cooperative launch a batch, a grid-wide barrier between "
                 "cycles; on the CPU the same execution as per-cycle)")
      ->capture_default_str()
      // Refused as the flags are parsed, before anything is built.
      ->check(CLI::Validator(
          [](const std::string& text) {
            try {
              parse_launch_mode(text);
            } catch (const Error& e) {
              const std::string why = e.what();  // CLI11 puts the flag's name in front itself
              return why.rfind("--launch ", 0) == 0 ? why.substr(9) : why;
            }
            return std::string();
          },
          "{" + list + "}", "launch mode"));
}

MachineOptions machine_options(const MachineFlags& mf, ElementType type) {
  const Geometry geo = make_geometry(mf.n, mf.m);
  return MachineOptions{mf.n, mf.m, type, parse_backend_choice(mf.backend), tile_dims(mf.tile_dims, geo.n),
                        parse_launch_mode(mf.launch)};
}

void add_io_flags(CLI::App& cmd, IoFlags& f, bool input_gives_dims) {
  input_flag(cmd.add_option("-i,--input", f.input,
                 input_gives_dims ? "initial state, .npy of shape (2^n, 2^m) or (2^(n+m),), which gives n and m when "
                                    "-n, -m are left out; default: address labels"
                                  : "initial state, .npy of shape (2^n, 2^m) or (2^(n+m),); default: address labels"));
  output_flag(cmd.add_option("-o,--output", f.output, "write the final state as .npy of shape (2^n, 2^m)"));
  cmd.add_flag("--json", f.json, "print one JSON object instead of prose");
  cmd.add_flag("--trace", f.trace, "print the machine state after every step");
}

ElementType element_type(const MachineFlags& mf, std::optional<ElementType> input, const std::string& input_path) {
  if (mf.type.empty()) return input.value_or(ElementType::u32);
  const ElementType type = parse_element_type(mf.type);
  if (input && *input != type)
    throw Error(fmt::format("{} holds {} but --type asks for {}: drop --type or convert the file", input_path,
                            info(*input).name, info(type).name));
  return type;
}

Session open_session(const MachineFlags& mf, const IoFlags& io, std::shared_ptr<NpyInput> input, bool needs_words) {
  if (!input) input = open_input(io.input);
  const BackendChoice backend = parse_backend_choice(mf.backend);
  Session s;
  if (!input) {
    static_cast<hcube::Session&>(s) =
        hcube::open_session(machine_options(mf, element_type(mf, std::nullopt, io.input)));
    return s;
  }
  const ElementType type = element_type(mf, input->type(), io.input);
  const Geometry geo = make_geometry(mf.n, mf.m);
  const MachineOptions options = machine_options(mf, type);
  check_machine_shape(input->type(), input->shape(), io.input, geo.n, geo.m, type);
  if (std::shared_ptr<const NpyFile> file = input->file()) {
    // A regular file is read in pieces into the machine and stays the reference: no host copy.
    static_cast<hcube::Session&>(s) = hcube::open_session(options, std::move(file));
  } else if (!needs_words) {
    static_cast<hcube::Session&>(s) = hcube::open_session(options, *input);
  } else {
    check_machine_fits(geo, type, *make_backend(backend));  // before the words are held
    static_cast<hcube::Session&>(s) = hcube::open_session(options, input->read_all());
  }
  return s;
}

void trace_state(const IoFlags& io, nlohmann::json& trace, const Geometry& geo, ElementType type,
                 const std::vector<unsigned char>& words, const std::string& name) {
  if (io.json)
    trace.push_back({{"step", name}, {"state", state_json(geo, type, words)}});
  else
    std::cout << format_memory(geo, type, words, name == "initial" ? "initial state" : "after " + name) << "\n";
}

void begin_trace(Session& s, const IoFlags& io) {
  if (!io.json && !s.backend_note.empty()) std::cout << "backend " << s.backend_note << "\n";
  if (io.trace) trace_state(io, s.trace, s.machine->geometry(), s.machine->type(), expected_words(s), "initial");
}

namespace {

// With --trace: the state after a step, as JSON or a printed table.
void record_step(Session& s, const IoFlags& io, const std::string& name) {
  if (io.trace) trace_state(io, s.trace, s.machine->geometry(), s.machine->type(), expected_words(s), name);
}

}  // namespace

void run_step(Session& s, const IoFlags& io, const std::string& name, const AddressMap& dest,
              const std::function<void(Machine&)>& step) {
  hcube::run_step(s, name, dest, step);
  record_step(s, io, name);
}

void run_step(Session& s, const IoFlags& io, const std::string& name, const ReferenceStep& reference,
              const std::function<void(Machine&)>& step) {
  hcube::run_step(s, name, reference, step);
  record_step(s, io, name);
}

nlohmann::json state_json(const Geometry& geo, ElementType type, const std::vector<unsigned char>& data) {
  return state_json(geo.nodes(), geo.words_per_node(), type, data);
}

nlohmann::json state_json(std::uint64_t nodes, std::uint64_t words, ElementType type,
                          const std::vector<unsigned char>& data) {
  const std::size_t wb = info(type).bytes;
  nlohmann::json rows = nlohmann::json::array();
  for (std::uint64_t j = 0; j < nodes; ++j) {
    nlohmann::json row = nlohmann::json::array();
    for (std::uint64_t a = 0; a < words; ++a) row.push_back(element_json(type, &data[(j * words + a) * wb]));
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

void write_output(const IoFlags& io, const Machine& machine) {
  if (io.output.empty()) return;
  NpyWriter out(io.output, machine.type(), {machine.geometry().nodes(), machine.geometry().words_per_node()});
  const std::size_t wb = machine.word_bytes();
  if (out.seekable()) {
    // Each run straight to its place in the file: no host copy of the data.
    machine.store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) { out.write_at(g * wb, src, words * wb); });
  } else {
    // A FIFO or device takes the words in order: a tile at a time, not a host copy of the data.
    machine.store_in_order([&](std::uint64_t, std::uint64_t words, const void* src) { out.write(src, words * wb); });
  }
  out.commit();
}

nlohmann::json machine_json(const std::string& backend_note, const Geometry& geo, ElementType type,
                            const Backend& backend, unsigned tile_dims, const Counters& counters) {
  return {
      {"backend_note", backend_note},
      {"n", geo.n},
      {"m", geo.m},
      {"nodes", geo.nodes()},
      {"K", geo.words_per_node()},
      {"type", info(type).name},
      {"bytes", geo.total_words() * info(type).bytes},
      {"backend", to_string(backend.kind())},
      {"device", backend.device_name()},
      {"tile_dims", tile_dims},
      {"counters", to_json(counters)},
  };
}

nlohmann::json machine_json(const Session& s) {
  const Machine& machine = *s.machine;
  nlohmann::json j = machine_json(s.backend_note, machine.geometry(), machine.type(), machine.backend(),
                                  machine.layout().t, machine.counters());
  j["launch"] = to_string(machine.launch_mode());
  return j;
}

void emit(const IoFlags& io, const nlohmann::json& j, const std::function<void()>& prose) {
  if (io.sink)
    io.sink(j);
  else if (io.json)
    std::cout << j.dump(2) << "\n";
  else
    prose();
}

void finish_run(Session& s, const IoFlags& io, nlohmann::json j, const std::string& summary, bool verified,
                const std::optional<Geometry>& routed_on) {
  write_output(io, *s.machine);
  const Machine& mach = *s.machine;
  j.update(machine_json(s));
  j["verified"] = verified;
  // A stream is read once: its result is checked against its fingerprint, not its words read again.
  if (verified) j["verified_by"] = s.fingerprint ? "fingerprint" : "words";
  if (io.trace) j["trace"] = s.trace;
  report_run(io, j, summary, verified,
             fmt::format("{} backend ({}), {}", to_string(mach.backend().kind()), mach.backend().device_name(),
                         routed_on ? fmt::format("routed on the {}, the data on its subcube of n = {}",
                                                 describe(*routed_on), mach.geometry().n)
                                   : describe(mach.geometry())),
             mach.counters());
}

void report_run(const IoFlags& io, const nlohmann::json& j, const std::string& summary, bool verified,
                const std::string& machine_text, const Counters& counters) {
  emit(io, j, [&] {
    fmt::print("{} on {}\n", summary, machine_text);
    const bool by_fingerprint = j.value("verified_by", "") == "fingerprint";
    fmt::print("verified against the reference: {}\n{}",
               !verified        ? "no (the schedule names no permutation to check it against)"
               : by_fingerprint ? "yes (the input, a stream read once, by the fingerprint of its words)"
                                : "yes",
               counters.to_text());
    if (!io.output.empty()) fmt::print("wrote {}\n", printable_text(io.output));
  });
}


// --- running a schedule ------------------------------------------------------

void check_trace_size(const IoFlags& io, unsigned n, unsigned m) {
  // A result handed to a sink (hcube animate) is not printed: its page holds up to d = 8.
  const std::uint64_t limit = io.sink ? kMaxAnimatedWords : kMaxTraceWords;
  if (io.trace && bit(n + m) > limit)
    throw Error(
        fmt::format("--trace prints every word: 2^(n+m) = {} words for n = {}, m = {}, allowed at most {}; "
                    "`hcube schedule` prints the schedule alone",
                    bit(n + m), n, m, limit));
}

nlohmann::json exchanges_json(const Cycle& cycle) {
  nlohmann::json j = nlohmann::json::array();
  for (const Exchange& e : cycle) {
    j.push_back({{"dim", e.dim}, {"addr", e.addr}, {"peer_addr", e.peer_addr}});
    if (e.offset_map != 0) j.back()["map"] = e.offset_map;
  }
  return j;
}

OriginView::OriginView(const Geometry& geo, bool on) : geo_(geo), on_(on) {
  if (!on_) return;
  origin_.resize(geo.total_words() * kWord);
  for (std::uint64_t g = 0; g < geo.total_words(); ++g) std::memcpy(&origin_[g * kWord], &g, kWord);
  std::cout << "Each cell is node.addr of the word's starting place; * marks a word the step moved.\n\n";
  print("initial state", {});
}

void OriginView::advance(const AddressMap& dest, const std::string& title) {
  if (!on_) return;
  std::vector<unsigned char> next = reference_permute(origin_, kWord, geo_.total_words(), dest);
  print(title, next);
  origin_ = std::move(next);
}

std::uint64_t OriginView::at(const std::vector<unsigned char>& v, std::uint64_t g) const {
  std::uint64_t o = 0;
  std::memcpy(&o, &v[g * kWord], kWord);
  return o;
}

void OriginView::print(const std::string& title, const std::vector<unsigned char>& state) {
  const std::vector<unsigned char>& now = state.empty() ? origin_ : state;
  const std::uint64_t total = geo_.total_words(), K = geo_.words_per_node();
  std::vector<std::string> cells(total);
  std::size_t width = 1;
  for (std::uint64_t g = 0; g < total; ++g) {
    const std::uint64_t o = at(now, g);
    cells[g] = fmt::format("{}.{}", geo_.node_of(o), geo_.local_of(o));
    width = std::max(width, cells[g].size());
  }
  const std::size_t node_w = std::max<std::size_t>(4, fmt::format("{}", geo_.nodes() - 1).size());
  std::string out = title + "\n" + fmt::format("{:>{}} |", "node", node_w);
  for (std::uint64_t a = 0; a < K; ++a) out += fmt::format(" {:>{}} ", a, width);
  out += "\n" + std::string(node_w + 1, '-') + "+" + std::string(K * (width + 2), '-') + "\n";
  for (std::uint64_t j = 0; j < geo_.nodes(); ++j) {
    out += fmt::format("{:>{}} |", j, node_w);
    for (std::uint64_t a = 0; a < K; ++a) {
      const std::uint64_t g = geo_.global(j, a);
      out += fmt::format(" {:>{}}{}", cells[g], width, !state.empty() && at(now, g) != at(origin_, g) ? '*' : ' ');
    }
    out += "\n";
  }
  std::cout << out << "\n";
}

double run_verified(Session& s, const IoFlags& io, const Job& job,
                    const std::function<double(const Machine::Progress&)>& run) {
  ProgressBar bar(!io.json && ::isatty(2) == 1);
  return hcube::run_verified(s, job, run, bar.callback());
}

double run_job(Session& s, const IoFlags& io, const Job& job) {
  IoFlags step_io = io;
  step_io.trace = io.trace && io.json;
  begin_trace(s, step_io);
  if (!io.trace) {
    ProgressBar bar(!io.json && ::isatty(2) == 1);
    return hcube::run_job(s, job, RunOptions{false, {}, bar.callback()});
  }
  // A traced run draws no bar: it reports every step instead, as JSON or as
  // the teaching view of where every word started.
  std::optional<OriginView> view;
  if (!io.json) view.emplace(s.machine->geometry(), true);
  const StepObserver observe = [&](hcube::Session&, const TraceStep& t) {
    if (view) {
      view->advance(t.destination, t.title);
      return;
    }
    record_step(s, step_io, t.name);
    if (t.cycle != nullptr) s.trace.back()["exchanges"] = exchanges_json(*t.cycle);
    if (t.after_aapc != 0) s.trace.back()["after_aapc"] = t.after_aapc;
  };
  return hcube::run_job(s, job, RunOptions{true, observe, {}});
}

nlohmann::json job_json(const std::string& command, const Job& job, const Counters& counters, double seconds) {
  const Schedule& sch = job.schedule;
  const ScheduleStats& st = job.stats;
  return {
      {"command", command},
      {"algorithm", sch.algorithm},
      {"d", sch.d},
      {"cycles", st.cycles},
      {"launches", counters.kernel_launches},
      {"exchanges", st.exchanges},
      {"element_hops", st.element_hops},
      {"max_span", st.max_span},
      {"min_channel_use", st.min_channel_use},
      {"mean_channel_use", st.mean_channel_use},
      {"block_transfers", st.block_transfers},
      {"max_block_size", st.max_block_size},
      {"min_in_transit", st.min_in_transit},
      {"max_in_transit", st.max_in_transit},
      {"seconds", seconds},
      {"permutation", job.permutation},
      {"formula", job.formula},
      {"lines", sch.lines.empty() ? nlohmann::json(nullptr) : nlohmann::json(sch.lines)},
      {"channel_width", sch.rules.channel_width},
      {"port_model", to_string(sch.rules.model)},
      {"blocked", sch.blocked},
      {"pre", to_string(sch.pre)},
      {"post", to_string(sch.post)},
  };
}

std::string join_uints(const std::vector<unsigned>& values, const char* separator) {
  std::string text;
  for (unsigned v : values) text += (text.empty() ? "" : separator) + std::to_string(v);
  return text;
}

}  // namespace hcube::cli

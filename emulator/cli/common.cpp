// The flags every hcube command shares, and the one-line errors of a bad
// command line (the nearest spelling of a misspelt command or flag).
#include "common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "hcube/app/cli_words.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/host/parse.hpp"

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
              const std::string why = cli_words(e.what());  // CLI11 puts the flag's name in front itself
              return why.rfind("--launch ", 0) == 0 ? why.substr(9) : why;
            }
            return std::string();
          },
          "{" + list + "}", "launch mode"));
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

ElementType plan_type(const MachineFlags& mf, const IoFlags& io, std::shared_ptr<NpyInput>& input) {
  if (!distributed()) {
    input = open_input(io.input);
    return run_type(mf, input.get());
  }
  // A regular file's header (never a pipe's, which the ranks refuse).
  const std::shared_ptr<const NpyFile> file = io.input.empty() ? nullptr : NpyFile::open(io.input);
  return element_type(mf, file ? std::optional<ElementType>(file->type()) : std::nullopt, io.input);
}

void run_plan(const std::string& what, MachineFlags mf, const IoFlags& io, const std::shared_ptr<NpyInput>& input,
              Plan& plan, const PlanFields& fields, const PlanSummary& summary, const std::optional<Geometry>& routed_on,
              const char* scratch_why) {
  const Job& job = *plan.job();
  mf.n = plan.geometry().n;
  mf.m = plan.geometry().m;
  const auto fields_of = [&](const Counters& k, double seconds) { return fields(job, k, seconds); };
  const auto summary_of = [&](const Counters& k, double seconds) { return summary(job, k, seconds); };
  if (distributed()) {
    run_plan_across_ranks(mf, io, plan, fields_of, summary_of);
    return;
  }
  check_plan_fits(what, mf, input.get(), plan, io.trace, scratch_why);
  RunSession s = open_run_session(mf, io, input, io.trace, LabelMode::windows);
  const double seconds = execute_plan(s, io, plan);
  const Counters counters = s.machine->counters();
  finish_run(s, io, fields_of(counters, seconds), summary_of(counters, seconds), static_cast<bool>(job.destination),
             routed_on);
}

}  // namespace hcube::cli

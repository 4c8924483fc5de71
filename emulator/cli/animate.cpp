// hcube animate COMMAND [its flags] --output page.html: runs the command in
// this process with --trace --json, then writes the states it recorded into a
// self-contained teaching page (animate_page.cpp, emulator/app/page/). What the
// page shows is what ran: the frames are the emulator's states, verified step
// by step; the narration of each step is read off the plan that ran it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "hcube/app/lesson.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "hcube/cli/animate.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/io/output_file.hpp"

namespace hcube::cli {
namespace {

const std::vector<std::string> kAnimated = {"aapc", "multi-aapc", "permute", "redistribute", "scatter"};

// The page path (from --output / -o), removed from args with --json and --trace.
std::string take_output(std::vector<std::string>& args) {
  std::string page;
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--output" || a == "-o") {
      if (i + 1 == args.size()) throw Error(fmt::format("{} needs a value: the page to write, e.g. page.html", a));
      page = args[++i];
    } else if (a.rfind("--output=", 0) == 0) {
      page = a.substr(9);
    } else if (a != "--json" && a != "--trace") {
      kept.push_back(a);
    }
  }
  args = std::move(kept);
  return page;
}

// Refuses, before anything else, a missing command or one the page cannot draw.
void check_animated_command(const std::vector<std::string>& args) {
  if (args.empty())
    throw Error(fmt::format("hcube animate needs a command: {} (then its flags and --output page.html)",
                            fmt::join(kAnimated, ", ")));
  if (std::find(kAnimated.begin(), kAnimated.end(), args.front()) == kAnimated.end())
    throw Error(fmt::format("hcube animate {}: allowed commands {}", args.front(), fmt::join(kAnimated, ", ")));
}

// --algorithm A,B: the same command once with A and once with B, drawn side by
// side; any other flags as given. One list of flags when no comma is given.
std::vector<std::vector<std::string>> side_by_side(const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string value;
    bool separate = false;
    if ((a == "--algorithm" || a == "-a") && i + 1 < args.size()) {
      value = args[i + 1];
      separate = true;
    } else if (a.rfind("--algorithm=", 0) == 0) {
      value = a.substr(12);
    } else {
      continue;
    }
    if (value.find(',') == std::string::npos) return {args};
    std::vector<std::string> names;
    std::size_t from = 0;
    for (;;) {
      const std::size_t comma = value.find(',', from);
      names.push_back(value.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    if (names.size() > kMaxSideBySide || std::find(names.begin(), names.end(), "") != names.end())
      throw Error(fmt::format("--algorithm {}: hcube animate puts 2 algorithms side by side (A,B), got {}", value,
                              names.size()));
    std::vector<std::vector<std::string>> runs;
    for (const std::string& name : names) {
      std::vector<std::string> one = args;
      if (separate) {
        one[i + 1] = name;
      } else {
        one[i] = "--algorithm=" + name;
      }
      runs.push_back(std::move(one));
    }
    return runs;
  }
  return {args};
}

void run_animate(std::vector<std::string> args) {
  check_animated_command(args);
  const std::string command = args.front();
  const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
  const std::string page = take_output(args);
  const bool asks_help = std::find_if(args.begin(), args.end(), [](const std::string& a) {
                           return a == "--help" || a == "-h";
                         }) != args.end();
  if (page.empty() && !asks_help) throw Error("hcube animate writes a page: give --output page.html");
  if (!asks_help && (page.size() < 5 || page.substr(page.size() - 5) != ".html"))
    throw Error(fmt::format("--output {}: the page must end in .html", page));
  if (!asks_help) check_output(page, "--output");  // before the command runs
  const Animation a = animate(args);
  if (!a.help.empty()) {
    std::cout << a.help;
    return;
  }
  write_text_atomically(page, a.html, page);
  if (json) {
    nlohmann::json j{{"command", "animate"}, {"animated", command},     {"page", page},
                     {"steps", a.steps},     {"routing_cycles", a.routing_cycles}, {"nodes", a.nodes},
                     {"verified", a.verified}, {"page_bytes", a.html.size()}};
    if (a.machines.size() > 1) {
      j["machines"] = nlohmann::json::array();
      for (const auto& m : a.machines)
        j["machines"].push_back({{"algorithm", m.algorithm}, {"steps", m.steps}, {"routing_cycles", m.routing_cycles},
                                 {"element_hops", m.element_hops}});
    }
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::string runs;
  for (const auto& m : a.machines)
    if (a.machines.size() > 1)
      runs += fmt::format("{}algorithm {}: {} routing cycles", runs.empty() ? "; " : ", ", m.algorithm, m.routing_cycles);
  std::cout << fmt::format("wrote {}: {} steps ({} routing cycles) of hcube {} on {} nodes{}; open it in a browser "
                           "(Space plays, arrows step)\n",
                           printable_text(page), a.steps, a.routing_cycles, command, a.nodes, runs);
}

// The run of `args` with --trace --json, in this process: the command's JSON
// result, or its --help text.
struct Traced {
  nlohmann::json run;
  std::string help;
};
Traced run_traced(std::vector<std::string> args) {
  const std::string command = args.front();
  nlohmann::json run;
  bool ran = false;
  CLI::App inner{"hcube"};
  inner.require_subcommand(1);
  const ResultSink sink = [&](const nlohmann::json& result) {
    run = result;
    ran = true;
  };
  // Only the commands the page draws: their library (hcube_cli_animate) is all the Python binding compiles.
  add_aapc(inner, sink);
  add_multi_aapc(inner, sink);
  add_permute(inner, sink);
  add_redistribute(inner, sink);
  add_scatter(inner, sink);
  check_numbers(inner);
  std::vector<std::string> argv = args;
  argv.push_back("--trace");
  argv.push_back("--json");
  std::reverse(argv.begin(), argv.end());  // CLI11 takes a vector of arguments in reverse order
  try {
    inner.parse(argv);
  } catch (const CLI::CallForHelp&) {
    return {nlohmann::json(), fmt::format("hcube animate {} takes every flag of hcube {}, with --output naming the "
                                          "page (.html) and --algorithm A,B two runs side by side:\n\n",
                                          command, command) +
                                  inner.get_subcommand(command)->help()};
  } catch (const CLI::ParseError& e) {
    throw Error(fmt::format("hcube animate {}: {}", command, parse_error_text(inner, e, args)));
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.find("--trace prints every word") != std::string::npos) throw animation_too_large(what);
    throw;
  }
  if (!ran) throw Error(fmt::format("hcube animate {}: the command gave no result to draw", command));
  return {std::move(run), ""};
}

}  // namespace

Animation animate(std::vector<std::string> args) {
  check_animated_command(args);
  const std::string command = args.front();
  // The run is traced as JSON whatever the caller's flags say.
  args.erase(std::remove_if(args.begin(), args.end(),
                            [](const std::string& a) { return a == "--json" || a == "--trace"; }),
             args.end());
  Animation a;
  a.command = command;
  const std::vector<std::vector<std::string>> runs = side_by_side(args);
  nlohmann::json machines = nlohmann::json::array();
  a.verified = true;
  for (const auto& one : runs) {
    Traced t = run_traced(one);
    if (!t.help.empty()) {
      a.help = std::move(t.help);
      return a;
    }
    Animation::Machine m;
    const bool verified = t.run.value("verified", false);
    machines.push_back(machine_data(command, t.run, one, m));
    t.run = nlohmann::json();  // the full trace is no longer needed: d = 8 holds ~130 states of 2^16 words
    a.steps = std::max(a.steps, m.steps);
    if (a.machines.empty()) a.routing_cycles = m.routing_cycles;
    a.nodes = machines.back()["N"].get<std::size_t>();
    a.verified = a.verified && verified;
    a.machines.push_back(std::move(m));
  }
  nlohmann::json data = {{"machines", std::move(machines)}};
  data["title"] = data["machines"][0]["title"];
  data["subtitle"] = data["machines"][0]["subtitle"];
  if (runs.size() > 1) {
    std::vector<std::string> shown(args.begin() + 1, args.end());
    data["subtitle"] = fmt::format("hcube animate {} {}  |  {} runs side by side, stepping together", command,
                                   fmt::join(shown, " "), runs.size());
  }
  a.html = animation_page(data);
  return a;
}

void add_animate(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "animate",
      "write a self-contained HTML page that animates a run: hcube animate (aapc|multi-aapc|permute|redistribute|scatter) "
      "<that command's flags> --output page.html (cubes up to d = 8 as node-by-address tables, drawn as cubes up to "
      "d = 5; --algorithm A,B: two runs side by side; docs/teaching.md)");
  cmd->prefix_command();
  cmd->allow_extras();
  cmd->callback([cmd] { run_animate(cmd->remaining()); });
}

}  // namespace hcube::cli

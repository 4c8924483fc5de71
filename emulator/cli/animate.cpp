// hcube animate COMMAND [its flags] --output page.html: runs the command in
// this process with --trace --json, then writes the states it recorded into a
// self-contained teaching page (animate_page.cpp). What the page shows is what
// ran: the frames are the emulator's states, verified step by step.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "animate_page.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "hcube/cli/animate.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/output_file.hpp"

namespace hcube::cli {
namespace {

// The largest cube the page draws: 2^5 = 32 nodes (four cubes of eight).
constexpr unsigned kMaxAnimatedDims = 5;

// A run too large to draw, and what to use instead.
Error too_large(const std::string& detail) {
  return Error(fmt::format("hcube animate draws cubes of at most d = {} ({} nodes), grids of as many nodes, and small "
                           "memories: {}. Use --trace or the schedule as JSON (hcube schedule --json) instead",
                           kMaxAnimatedDims, 1u << kMaxAnimatedDims, detail));
}
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

// A step's label in the paper's words. For one AAPC a group is the d exchange
// steps that route a set of addresses together (sec. 5, Table 8), so cycle c
// is step c mod d + 1 of group c div d + 1 (d = 0: no groups).
std::string label(const nlohmann::json& step, std::size_t cycles, std::size_t d) {
  const std::string name = step["step"].get<std::string>();
  if (name.rfind("routing cycle ", 0) == 0) {
    const std::size_t c = std::stoul(name.substr(14));
    std::string text = fmt::format("routing cycle {} of {}", c, cycles);
    if (d != 0) text += fmt::format(" (step {} of group {})", c % d + 1, c / d + 1);
    if (step.contains("round")) text += fmt::format(" (round {})", step["round"].get<std::size_t>());
    if (step.contains("after_aapc")) text += fmt::format(" (ends AAPC {})", step["after_aapc"].get<std::size_t>());
    return text;
  }
  return name;
}

// Refuses, before anything else, a missing command or one the page cannot draw.
void check_animated_command(const std::vector<std::string>& args) {
  if (args.empty())
    throw Error(fmt::format("hcube animate needs a command: {} (then its flags and --output page.html)",
                            fmt::join(kAnimated, ", ")));
  if (std::find(kAnimated.begin(), kAnimated.end(), args.front()) == kAnimated.end())
    throw Error(fmt::format("hcube animate {}: allowed commands {}", args.front(), fmt::join(kAnimated, ", ")));
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
    std::cout << nlohmann::json{{"command", "animate"}, {"animated", command},     {"page", page},
                                {"steps", a.steps}, {"routing_cycles", a.routing_cycles}, {"nodes", a.nodes},
                                {"verified", a.verified}}
                     .dump(2)
              << "\n";
    return;
  }
  std::cout << fmt::format("wrote {}: {} steps ({} routing cycles) of hcube {} on {} nodes; open it in a browser "
                           "(Space plays, arrows step)\n",
                           printable_text(page), a.steps, a.routing_cycles, command, a.nodes);
}

}  // namespace

Animation animate(std::vector<std::string> args) {
  check_animated_command(args);
  const std::string command = args.front();
  // The run is traced as JSON whatever the caller's flags say.
  args.erase(std::remove_if(args.begin(), args.end(),
                            [](const std::string& a) { return a == "--json" || a == "--trace"; }),
             args.end());
  // The command runs here with --trace --json and hands its result over as data.
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
  bool help = false;
  try {
    inner.parse(argv);
  } catch (const CLI::CallForHelp&) {
    help = true;
  } catch (const CLI::ParseError& e) {
    throw Error(fmt::format("hcube animate {}: {}", command, parse_error_text(inner, e, args)));
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.find("--trace prints every word") != std::string::npos) throw too_large(what);
    throw;
  }
  if (!help && !ran) throw Error(fmt::format("hcube animate {}: the command gave no result to draw", command));
  if (help) {
    Animation a;
    a.command = command;
    a.help = fmt::format("hcube animate {} takes every flag of hcube {}, with --output naming the page (.html):\n\n",
                         command, command) +
             inner.get_subcommand(command)->help();
    return a;
  }
  // redistribute records its states apart from its message trace, and only for
  // machines of at most kMaxTraceWords words.
  if (command == "redistribute" && !run.contains("states"))
    throw too_large(fmt::format("this redistribution needs 2^{} nodes of 2^{} words", run["n"].get<unsigned>(),
                                run["m"].get<unsigned>()));
  const nlohmann::json& trace = command == "redistribute" ? run.at("states") : run.at("trace");
  const std::size_t nodes = trace.at(0).at("state").size();
  if (nodes > (std::size_t{1} << kMaxAnimatedDims)) throw too_large(fmt::format("this run has {} nodes", nodes));
  std::size_t cycles = 0;
  // A grid's routing cycles (hcube scatter) are steps of messages along its links.
  const bool grid = command == "scatter" && run.contains("grid");
  for (const auto& step : trace) cycles += step.contains("exchanges") || (grid && step.contains("messages")) ? 1 : 0;
  const std::size_t d = command == "aapc" && run.contains("d") ? run["d"].get<std::size_t>() : 0;
  nlohmann::json data = {{"steps", nlohmann::json::array()}};
  for (const auto& step : trace) {
    nlohmann::json s = {{"label", label(step, cycles, d)}, {"state", step["state"]}};
    if (step.contains("exchanges")) s["exchanges"] = step["exchanges"];
    if (step.contains("messages")) s["messages"] = step["messages"];
    for (const char* key : {"moves", "round"})
      if (step.contains(key)) s[key] = step[key];
    data["steps"].push_back(std::move(s));
  }
  if (grid) {
    // The grid and where each word ends: the output area (the input stays put,
    // so the value is held twice at the end).
    data["grid"] = run["grid"];
    data["grid"]["input_words"] = nodes * run["packet_words"].get<std::size_t>();
    const nlohmann::json& last = trace.back().at("state");
    const auto O = run["output_first_word"].get<std::size_t>(), words = nodes * run["packet_words"].get<std::size_t>();
    nlohmann::json home = nlohmann::json::array();
    for (std::size_t j = 0; j < nodes; ++j)
      for (std::size_t w = O; w < O + words; ++w) home.push_back({last[j][w], j});
    data["home"] = std::move(home);
  }
  if (command == "redistribute") {
    // The router copies: the sources keep their data, so a value's home is where
    // the destinations' regions hold it at the end (words [O, O + D) of nodes
    // first .. first + Q - 1).
    const nlohmann::json& last = trace.back().at("state");
    const auto first = run["first_destination_node"].get<std::size_t>(), S = run["source_words"].get<std::size_t>(),
               O = run["first_destination_word"].get<std::size_t>();
    const auto Q = run["output_shape"][0].get<std::size_t>(), D = run["output_shape"][1].get<std::size_t>();
    nlohmann::json home = nlohmann::json::array();
    for (std::size_t q = 0; q < Q; ++q)
      for (std::size_t a = O; a < O + D; ++a) home.push_back({last[first + q][a], first + q});
    data["home"] = std::move(home);
    // The words a redistribution uses: the rest is drawn blank.
    data["regions"] = {{"source_nodes", run["P"]}, {"source_words", S},
                       {"first_destination_node", first}, {"destination_nodes", Q}, {"first_destination_word", O},
                       {"destination_words", D}};
  }
  std::vector<std::string> shown(args.begin() + 1, args.end());
  data["title"] = fmt::format("hcube {}: {}", command,
                              run.contains("permutation") ? run["permutation"].get<std::string>()
                              : command == "redistribute"
                                  ? fmt::format("cyclic({}) on {} sources to cyclic({}) on {} destinations, {} schedule",
                                                run["x"].get<std::uint64_t>(), run["P"].get<std::uint64_t>(),
                                                run["K"].get<std::uint64_t>() * run["x"].get<std::uint64_t>(),
                                                run["Q"].get<std::uint64_t>(), run["schedule"].get<std::string>())
                                  : std::string());
  data["subtitle"] = fmt::format(
      "hcube animate {} {}  |  {} nodes, {} words a node, {} routing cycles{}{}, verified: {}", command,
      fmt::join(shown, " "), nodes, trace.at(0).at("state").at(0).size(), cycles,
      run.contains("algorithm") ? ", algorithm " + run["algorithm"].get<std::string>() : std::string(),
      run.contains("formula") ? ", " + run["formula"].get<std::string>() : std::string(),
      run.value("verified", false) ? "yes" : "no");
  Animation a;
  a.command = command;
  a.html = animation_page(data);
  a.steps = trace.size();
  a.routing_cycles = cycles;
  a.nodes = nodes;
  a.verified = run.value("verified", false);
  return a;
}

void add_animate(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "animate",
      "write a self-contained HTML page that animates a run: hcube animate (aapc|multi-aapc|permute|redistribute|scatter) "
      "<that command's flags> --output page.html (cubes up to d = 5, grids up to 32 nodes; docs/teaching.md)");
  cmd->prefix_command();
  cmd->allow_extras();
  cmd->callback([cmd] { run_animate(cmd->remaining()); });
}

}  // namespace hcube::cli

// hcube animate COMMAND [its flags] --output page.html: runs the command in
// this process with --trace --json, then writes the states it recorded into a
// self-contained teaching page (animate_page.cpp, emulator/cli/page/). What the
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

#include "animate_page.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "hcube/cli/animate.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/output_file.hpp"

namespace hcube::cli {
namespace {

// The largest machine the page draws: 2^8 = 256 nodes of 256 words, the node
// by address table of Johnsson & Ho's Tables 1 and 3 at 256 x 256 cells (the
// cube itself is drawn up to d = 5, the page's script decides).
constexpr unsigned kMaxAnimatedDims = 8;
constexpr std::size_t kMaxAnimatedNodes = std::size_t{1} << kMaxAnimatedDims;
// At most two runs side by side (--algorithm 1,4).
constexpr std::size_t kMaxSideBySide = 2;

// A run too large to draw, and what to use instead.
Error too_large(const std::string& detail) {
  return Error(fmt::format("hcube animate draws cubes of at most d = {} ({} nodes, {} words), grids of as many nodes, "
                           "and small memories: {}. Use --trace or the schedule as JSON (hcube schedule --json) instead",
                           kMaxAnimatedDims, kMaxAnimatedNodes, kMaxAnimatedWords, detail));
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
    if (what.find("--trace prints every word") != std::string::npos) throw too_large(what);
    throw;
  }
  if (!ran) throw Error(fmt::format("hcube animate {}: the command gave no result to draw", command));
  return {std::move(run), ""};
}

// Every distinct word of a run as a small number: the page's states are
// arrays of these, and each step only the cells it changed (d = 8: 2^16
// words a state, ~130 states).
class WordIds {
 public:
  std::uint32_t id(const nlohmann::json& v) {
    if (v.is_number_unsigned()) {
      const auto [it, added] = unsigned_.try_emplace(v.get<std::uint64_t>(), next());
      if (added) values_.push_back(v);
      return it->second;
    }
    const auto [it, added] = other_.try_emplace(v.dump(), next());
    if (added) values_.push_back(v);
    return it->second;
  }
  nlohmann::json take_values() { return std::move(values_); }

 private:
  std::uint32_t next() const { return static_cast<std::uint32_t>(values_.size()); }
  std::unordered_map<std::uint64_t, std::uint32_t> unsigned_;
  std::unordered_map<std::string, std::uint32_t> other_;
  nlohmann::json values_ = nlohmann::json::array();
};

std::string bits(std::uint64_t v, std::size_t width) {
  std::string s;
  for (std::size_t b = width; b-- > 0;) s += (v >> b) & 1 ? '1' : '0';
  return s.empty() ? "0" : s;
}

// Where the paper that defines the command's schedule explains it.
std::string source(const std::string& command, const nlohmann::json& run) {
  const std::string alg = run.value("algorithm", std::string());
  if (command == "aapc") {
    if (alg == "1") return "Johnsson & Ho 1992, sec. 3.1, Algorithm 1";
    if (alg == "2") return "Johnsson & Ho 1992, sec. 3.2, Algorithm 2 (Table 5)";
    if (alg == "3") return "Johnsson & Ho 1992, sec. 3.3, Algorithm 3";
    return "Johnsson & Ho 1992, sec. 3.5, Algorithm " + alg;
  }
  if (command == "multi-aapc") return "Johnsson & Ho 1992, sec. 4 (multiple AAPCs)";
  if (command == "permute")
    return alg == "Edelman" ? "Edelman's optimal transpose and bit reversal"
                            : "Ho & Johnsson 1988, sec. 4.3, algorithm " + alg;
  if (command == "redistribute")
    return run.value("schedule", std::string()) == "circulant"
               ? "Park, Prasanna & Raghavendra 1998, sec. 3.3 and 4: the generalized circulant schedule"
               : "Park, Prasanna & Raghavendra 1998, sec. 2.3 and Table 5: the " + run.value("schedule", std::string()) +
                     " schedule, a baseline they compare with";
  if (run.contains("grid")) return "the all-to-all scatter lecture notes, algorithm " + alg;
  return "the all-to-all scatter lecture notes, algorithm " + alg + " on the cube";
}

// Why a cycle of one AAPC moves the words it moves, in the words of the
// paper's section for the algorithm.
std::string why_cycle(const std::string& alg, std::size_t d, std::size_t c) {
  if (alg == "1")
    return fmt::format("Algorithm 1 schedules d = {} complement pairs of addresses (u, u-bar) together: pair u "
                       "crosses dimensions u, u+1, ..., u+d-1 (mod d) in d consecutive cycles, so every link is busy "
                       "while the group lasts (sec. 3.1, Table 4).",
                       d);
  if (alg == "2")
    return "Algorithm 2 sends complement pair u across dimension r in cycle (u + r) mod K/2: every link busy in every "
           "cycle, at the price of a span of K/2 (sec. 3.2, Table 5).";
  if (alg == "3") return "Algorithm 3 blocks the complement pairs so that every link is busy in every cycle (sec. 3.3).";
  return fmt::format("Algorithm 4 schedules the d addresses of a full necklace (rotations of one bit string) "
                     "together: each crosses the dimensions of its one bits, rotated, so the d links of every node "
                     "are all busy (Lemma 2); cyclic addresses go as complement pairs, the last c of them with a "
                     "(d-c)-necklace (sec. 3.5.2). This is cycle {} of group {}; every word's span is at most d.",
                     c % d + 1, c / d + 1);
}

// A sentence or two for step `s` of a run, from the plan that ran it: which
// dimensions, which addresses, how many words, and what the step achieves.
std::string narrate(const std::string& command, const nlohmann::json& run, const nlohmann::json& step,
                    std::size_t moved, std::size_t cycles_so_far, std::size_t cycles, std::size_t N, std::size_t K,
                    bool last) {
  const std::string name = step["step"].get<std::string>();
  const std::size_t d = run.value("d", std::size_t{0}), m_bits = run.value("m", std::size_t{0});
  const std::string alg = run.value("algorithm", std::string());
  const bool aapc = command == "aapc" || (command == "scatter" && !run.contains("grid"));
  std::string text;
  if (name == "initial") {
    if (aapc)
      text = fmt::format("Node j holds at address i the word (j|i); the permutation {} sends one word from every node "
                         "to every node, an all-to-all personalized communication (AAPC) on {} nodes of {} words. "
                         "Each word is coloured, and numbered, by the node it must reach (Johnsson & Ho 1992, sec. 2.2).",
                         run.value("formula", std::string("(j|i) -> (i|j)")), N, K);
    else if (command == "multi-aapc")
      text = fmt::format("{} AAPCs on different node dimensions, {}, run together with one pre- and one "
                         "post-alignment (Johnsson & Ho 1992, sec. 2.3 and 4). Each word is coloured by the node it "
                         "must reach.",
                         run.value("axes", std::size_t{0}), run.value("formula", std::string()));
    else if (command == "permute")
      text = fmt::format("A stable dimension permutation ({}): address bits move between the node address and the "
                         "local address, here with {} (Ho & Johnsson 1988). Each word is coloured by the node it "
                         "must reach.",
                         run.value("formula", std::string()), alg);
    else if (command == "redistribute")
      text = "A block-cyclic redistribution: the sources' words go to the destinations' layout through the router, "
             "one message a node a step (Park, Prasanna & Raghavendra 1998). Each word is coloured by the "
             "destination that keeps it.";
    else
      text = fmt::format("An all-to-all scatter on {}: every node sends one packet to every other node ({}).",
                         run.value("topology", std::string("the grid")), source(command, run));
  } else if (name == "pre-alignment") {
    text = fmt::format("Phase 1, local alignment: every node j rotates its memory by its own address, (j|i) -> "
                       "(j|j xor i), so that the word for node i sits at address j xor i, its relative address; then "
                       "all nodes exchange the same local address in each cycle, without indirect addressing "
                       "(Johnsson & Ho 1992, sec. 2.2). {} words change place; no link is used.",
                       moved);
    if (command == "multi-aapc")
      text += " The alignments of the AAPCs on different node bits are independent and are done at once (Lemma 1).";
    if (command == "aapc" && d == 3 && K == 8)
      text += " The table is now the paper's Table 1: node j holds at address i the word (j|j xor i).";
  } else if (name == "post-alignment") {
    text = fmt::format("Phase 3, local realignment, the same operation as phase 1: node i moves the word from node j "
                       "from address j xor i to address j, so that (j|i) has become (i|j) (Johnsson & Ho 1992, sec. "
                       "2.2). {} words change place; no link is used.",
                       moved);
  } else if (step.contains("exchanges")) {
    const std::size_t c = cycles_so_far - 1;
    std::vector<std::string> per_dim;
    std::vector<bool> busy(64, false);
    std::size_t dims_busy = 0;
    for (std::size_t dim = 0; dim < 64; ++dim) {
      std::vector<std::string> addrs;
      for (const auto& e : step["exchanges"]) {
        if (e["dim"].get<std::size_t>() != dim) continue;
        const auto a = e["addr"].get<std::uint64_t>(), b = e["peer_addr"].get<std::uint64_t>();
        addrs.push_back(a == b ? bits(a, m_bits) : bits(a, m_bits) + "->" + bits(b, m_bits));
      }
      if (addrs.empty()) continue;
      ++dims_busy;
      per_dim.push_back(fmt::format("dimension {}: address {}", dim, fmt::join(addrs, ", ")));
    }
    std::size_t n = 0;
    while ((std::size_t{1} << n) < N) ++n;
    text = fmt::format("Routing cycle {} of {}: {}. {} words cross {} of {} dimensions ({} of {} links busy).", c,
                       cycles, fmt::join(per_dim, "; "), moved, dims_busy, n, dims_busy * N / 2, n * N / 2);
    if (aapc) {
      text += " A word crosses dimension k when bit k of its relative address is 1; the exchange corrects that bit "
              "of its node address (phase 2, (j|i) -> (j xor i|i), sec. 2.2). ";
      text += command == "aapc" ? why_cycle(alg, d, c) : fmt::format("({})", source(command, run));
    } else {
      text += fmt::format(" ({})", source(command, run));
    }
  } else if (step.contains("messages")) {
    std::size_t elements = 0;
    for (const auto& msg : step["messages"]) elements += msg["elements"].get<std::size_t>();
    const std::size_t msgs = step["messages"].size();
    if (msgs == 0)
      text = fmt::format("Router step: no messages; the schedule leaves this step idle ({}).", source(command, run));
    else if (run.contains("grid"))
      text = fmt::format("Cycle {} of {}: {} messages along links, {} elements, each node sending on its links at "
                         "once ({}).",
                         cycles_so_far, cycles, msgs, elements, source(command, run));
    else
      text = fmt::format("Router step: {} messages of {} elements in all, each node sending at most one and "
                         "receiving at most one, so no two messages contend ({}).",
                         msgs, elements, source(command, run));
  } else if (name == "pack" || name == "unpack") {
    text = fmt::format("Local step ({}): {}; {} words change place, no link is used ({}).", name,
                       name == "pack" ? "each source orders its blocks by the step that sends them, so that every "
                                        "message is one contiguous run"
                                      : "each destination puts the blocks it received in cyclic(Kx) order",
                       moved, source(command, run));
  } else {
    text = fmt::format("{}: {} words change place.", name, moved);
  }
  if (last && command == "aapc" && d > 0 && K >= 2) {
    const std::size_t alg1 = d * ((K + 2 * d - 1) / (2 * d)), optimal = K / 2;
    text += fmt::format(" Done: {} routing cycles with Algorithm {}. Algorithm 1 schedules d complement pairs in "
                        "each group of d cycles and needs d * ceil(K/2d) = {}; Algorithms 2, 3 and 4 need K/2 = {}, "
                        "one cycle for every complement pair, which is optimal, and Algorithm 4 alone also keeps the "
                        "span at d (Table 6, sec. 3.5).",
                        cycles, alg, alg1, optimal);
  } else if (last && run.contains("bound")) {
    text += fmt::format(" Done: {} routing cycles; the bound is {} ({}).", cycles, run["bound"].dump(),
                        run.value("bound_source", std::string("the paper")));
  }
  return text;
}

// One run as the page draws it: the states as word ids (the first in full,
// then each step's changed cells as [cell, id, ...]), labels, narration, and
// what the command adds (grid, homes, regions).
nlohmann::json machine_data(const std::string& command, const nlohmann::json& run,
                            const std::vector<std::string>& args, Animation::Machine& summary) {
  // redistribute records its states apart from its message trace, and only for
  // machines of at most kMaxTraceWords words.
  if (command == "redistribute" && !run.contains("states"))
    throw too_large(fmt::format("this redistribution needs 2^{} nodes of 2^{} words", run["n"].get<unsigned>(),
                                run["m"].get<unsigned>()));
  const nlohmann::json& trace = command == "redistribute" ? run.at("states") : run.at("trace");
  const std::size_t nodes = trace.at(0).at("state").size(), K = trace.at(0).at("state").at(0).size();
  if (nodes > kMaxAnimatedNodes || nodes * K > kMaxAnimatedWords)
    throw too_large(fmt::format("this run has {} nodes of {} words", nodes, K));
  std::size_t cycles = 0;
  // A grid's routing cycles (hcube scatter) are steps of messages along its links.
  const bool grid = command == "scatter" && run.contains("grid");
  for (const auto& step : trace) cycles += step.contains("exchanges") || (grid && step.contains("messages")) ? 1 : 0;
  const std::size_t d = command == "aapc" && run.contains("d") ? run["d"].get<std::size_t>() : 0;
  WordIds ids;
  std::vector<std::uint32_t> before(nodes * K), now(nodes * K);
  nlohmann::json data = {{"N", nodes}, {"K", K}, {"steps", nlohmann::json::array()}};
  std::size_t so_far = 0;
  for (std::size_t s = 0; s < trace.size(); ++s) {
    const nlohmann::json& step = trace[s];
    const nlohmann::json& state = step.at("state");
    for (std::size_t j = 0; j < nodes; ++j)
      for (std::size_t a = 0; a < K; ++a) now[j * K + a] = ids.id(state[j][a]);
    nlohmann::json changes = nlohmann::json::array();
    std::size_t moved = 0;
    if (s == 0) {
      data["initial"] = now;
    } else {
      for (std::size_t c = 0; c < now.size(); ++c)
        if (now[c] != before[c]) {
          changes.push_back(c);
          changes.push_back(now[c]);
          ++moved;
        }
    }
    so_far += step.contains("exchanges") || (grid && step.contains("messages")) ? 1 : 0;
    nlohmann::json out = {{"label", label(step, cycles, d)},
                          {"narration", narrate(command, run, step, moved, so_far, cycles, nodes, K,
                                                s + 1 == trace.size())}};
    if (s > 0) out["changes"] = std::move(changes);
    if (step.contains("exchanges")) out["exchanges"] = step["exchanges"];
    if (step.contains("messages")) out["messages"] = step["messages"];
    for (const char* key : {"moves", "round"})
      if (step.contains(key)) out[key] = step[key];
    data["steps"].push_back(std::move(out));
    std::swap(before, now);
  }
  const nlohmann::json& last = trace.back().at("state");
  if (grid) {
    // The grid and where each word ends: the output area (the input stays put,
    // so the value is held twice at the end).
    data["grid"] = run["grid"];
    data["grid"]["input_words"] = nodes * run["packet_words"].get<std::size_t>();
    const auto O = run["output_first_word"].get<std::size_t>(), words = nodes * run["packet_words"].get<std::size_t>();
    nlohmann::json home = nlohmann::json::array();
    for (std::size_t j = 0; j < nodes; ++j)
      for (std::size_t w = O; w < O + words; ++w) home.push_back({ids.id(last[j][w]), j});
    data["home"] = std::move(home);
  }
  if (command == "redistribute") {
    // The router copies: the sources keep their data, so a value's home is where
    // the destinations' regions hold it at the end (words [O, O + D) of nodes
    // first .. first + Q - 1).
    const auto first = run["first_destination_node"].get<std::size_t>(), S = run["source_words"].get<std::size_t>(),
               O = run["first_destination_word"].get<std::size_t>();
    const auto Q = run["output_shape"][0].get<std::size_t>(), D = run["output_shape"][1].get<std::size_t>();
    nlohmann::json home = nlohmann::json::array();
    for (std::size_t q = 0; q < Q; ++q)
      for (std::size_t a = O; a < O + D; ++a) home.push_back({ids.id(last[first + q][a]), first + q});
    data["home"] = std::move(home);
    // The words a redistribution uses: the rest is drawn blank.
    data["regions"] = {{"source_nodes", run["P"]}, {"source_words", S},
                       {"first_destination_node", first}, {"destination_nodes", Q}, {"first_destination_word", O},
                       {"destination_words", D}};
  }
  data["values"] = ids.take_values();
  std::vector<std::string> shown(args.begin() + 1, args.end());
  const std::string alg = run.contains("algorithm") && run["algorithm"].is_string() ? run["algorithm"].get<std::string>()
                                                                                      : std::string();
  data["algorithm"] = alg;
  data["cycles"] = cycles;
  data["element_hops"] = run.value("element_hops", std::uint64_t{0});
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
      fmt::join(shown, " "), nodes, K, cycles, alg.empty() ? std::string() : ", algorithm " + alg,
      run.contains("formula") && run["formula"].is_string() ? ", " + run["formula"].get<std::string>() : std::string(),
      run.value("verified", false) ? "yes" : "no");
  summary = {alg, trace.size(), cycles, run.value("element_hops", std::uint64_t{0})};
  return data;
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

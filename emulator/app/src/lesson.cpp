// The lesson a teaching page tells of a run (hcube animate, hcube.animate):
// its states as small word ids, each step's label in the paper's words, and
// the narration of every step read off the plan that ran it, citing the
// paper's section (Johnsson & Ho 1992; Ho & Johnsson 1988; Park, Prasanna &
// Raghavendra 1998; the lecture notes' scatter).
#include "hcube/app/lesson.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "hcube/core/error.hpp"

namespace hcube::app {


// A run too large to draw, and what to use instead.
Error animation_too_large(const std::string& detail) {
  return Error(fmt::format("hcube animate draws cubes of at most d = {} ({} nodes, {} words), grids of as many nodes, "
                           "and small memories: {}. Use --trace or the schedule as JSON (hcube schedule --json) instead",
                           kMaxAnimatedDims, kMaxAnimatedNodes, kMaxAnimatedWords, detail));
}
namespace {

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
           "cycle (sec. 3.2, Table 5). The d - 1 pairs that wrap around the end move one member in the first cycles "
           "and the other in the last, so no word waits across the wrap.";
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
                        "one cycle for every complement pair, which is optimal, and keep every word's span at d: "
                        "Algorithm 4 by its necklaces (sec. 3.5), Algorithms 2 and 3 by the pairs they wrap (Table 6 "
                        "says K/2 and d + K/2 mod d).",
                        cycles, alg, alg1, optimal);
  } else if (last && run.contains("bound")) {
    text += fmt::format(" Done: {} routing cycles; the bound is {} ({}).", cycles, run["bound"].dump(),
                        run.value("bound_source", std::string("the paper")));
  }
  return text;
}

}  // namespace

// One run as the page draws it: the states as word ids (the first in full,
// then each step's changed cells as [cell, id, ...]), labels, narration, and
// what the command adds (grid, homes, regions).
nlohmann::json machine_data(const std::string& command, const nlohmann::json& run,
                            const std::vector<std::string>& args, AnimatedMachine& summary) {
  // redistribute records its states apart from its message trace, and only for
  // machines of at most kMaxTraceWords words.
  if (command == "redistribute" && !run.contains("states"))
    throw animation_too_large(fmt::format("this redistribution needs 2^{} nodes of 2^{} words", run["n"].get<unsigned>(),
                                run["m"].get<unsigned>()));
  const nlohmann::json& trace = command == "redistribute" ? run.at("states") : run.at("trace");
  const std::size_t nodes = trace.at(0).at("state").size(), K = trace.at(0).at("state").at(0).size();
  if (nodes > kMaxAnimatedNodes || nodes * K > kMaxAnimatedWords)
    throw animation_too_large(fmt::format("this run has {} nodes of {} words", nodes, K));
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


}  // namespace hcube::app

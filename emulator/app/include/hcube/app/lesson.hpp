// The lesson a teaching page tells of a run (emulator/app/src/lesson.cpp),
// and the page itself (animate_page.cpp; its HTML, CSS and script are
// emulator/app/page/, embedded at build time).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hcube/app/run.hpp"
#include "hcube/core/error.hpp"

namespace hcube::app {

// The largest machine the page draws: 2^8 = 256 nodes of 256 words, the node
// by address table of Johnsson & Ho's Tables 1 and 3 at 256 x 256 cells (the
// cube itself is drawn up to d = 5, the page's script decides).
inline constexpr unsigned kMaxAnimatedDims = 8;
inline constexpr std::size_t kMaxAnimatedNodes = std::size_t{1} << kMaxAnimatedDims;
// At most two runs side by side (--algorithm 1,4).
inline constexpr std::size_t kMaxSideBySide = 2;

// A run too large to draw, and what to use instead.
Error animation_too_large(const std::string& detail);

// What the page says of one run beside its table.
struct AnimatedMachine {
  std::string algorithm;
  std::size_t steps = 0, routing_cycles = 0;
  std::uint64_t element_hops = 0;
};

// One run of `command` (its --trace --json result `run`, made from `args`) as
// the page draws it: the states as word ids (the first in full, then each
// step's changed cells), labels, narration, and what the command adds (grid,
// homes, regions); `summary` gets its counts.
nlohmann::json machine_data(const std::string& command, const nlohmann::json& run,
                            const std::vector<std::string>& args, AnimatedMachine& summary);

// One self-contained page replaying `data`: {"title", "subtitle", "machines":
// [one run, or two drawn side by side]}. A machine is {"title", "subtitle",
// "algorithm", "cycles", "element_hops", "N" (nodes), "K" (words a node),
// "values" (each distinct word once; the states hold indices into it),
// "initial" (the first state: N * K ids, node-major), "steps": [{"label",
// "narration" (what the step does, from the plan, citing the paper),
// "changes" (every step after the first: [cell, id, ...], cell = node * K +
// address), "exchanges" (routing cycles only), "messages" (router steps and
// grid cycles: src_node, dst_node, elements), "moves" (a grid cycle's copies:
// [src_node, src_word, dst_node, dst_word]), "round" (a grid cycle's)}], for
// a redistribution or a scatter "home" ([id, node] pairs: where each word
// ends), for a redistribution "regions" (the words it uses), and for a NEWS
// grid "grid" ({kind: ring|torus|mesh, z1, z2, directed_links}: a ring drawn
// as a circle, the others as grids)}.
std::string animation_page(const nlohmann::json& data);

}  // namespace hcube::app

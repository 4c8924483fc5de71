// The HTML of `hcube animate` (animate_page.cpp; the page is emulator/cli/page/).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace hcube::cli {

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

}  // namespace hcube::cli

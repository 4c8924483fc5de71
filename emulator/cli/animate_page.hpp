// The HTML of `hcube animate` (animate_page.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace hcube::cli {

// One self-contained page replaying `data`: {"title", "subtitle", "steps": [{"label",
// "state" (rows of elements, one a node), "exchanges" (routing cycles only),
// "messages" (router steps and grid cycles: src_node, dst_node, elements),
// "moves" (a grid cycle's copies: [src_node, src_word, dst_node, dst_word]),
// "round" (a grid cycle's)}], for a redistribution or a scatter "home"
// ([value, node] pairs: where each word ends), for a redistribution "regions"
// (the words it uses), and for a NEWS grid "grid" ({kind: ring|torus|mesh,
// z1, z2, directed_links}: a ring drawn as a circle, the others as grids)}.
std::string animation_page(const nlohmann::json& data);

}  // namespace hcube::cli

// The HTML of `hcube animate` (animate_page.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace hcube::cli {

// One self-contained page replaying `data`: {"title", "subtitle", "steps": [{"label",
// "state" (rows of elements, one a node), "exchanges" (routing cycles only),
// "messages" (router steps only: src_node, dst_node, elements)}], and for a
// redistribution "home" ([value, node] pairs: where each word ends) and
// "regions" (the words it uses)}.
std::string animation_page(const nlohmann::json& data);

}  // namespace hcube::cli

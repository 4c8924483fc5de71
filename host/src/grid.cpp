#include "hcube/host/grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <tuple>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

std::optional<std::uint64_t> GridTopology::neighbour(std::uint64_t node, unsigned dim, int dir) const {
  const std::uint64_t z = side(dim), c = coord(node, dim);
  std::uint64_t to = 0;
  if (dir > 0) {
    if (c + 1 == z && !wraps()) return std::nullopt;
    to = (c + 1) % z;
  } else {
    if (c == 0 && !wraps()) return std::nullopt;
    to = (c + z - 1) % z;
  }
  return dim == 0 ? this->node(to, y_of(node)) : this->node(x_of(node), to);
}

std::uint64_t GridTopology::directed_links() const {
  std::uint64_t links = 0;
  for (unsigned dim = 0; dim < dims(); ++dim) {
    const std::uint64_t z = side(dim), edges = wraps() ? z : z - 1;
    links += 2 * edges * (nodes() / z);
  }
  return links;
}

std::string to_string(const GridTopology& t) {
  switch (t.kind) {
    case GridKind::ring: return fmt::format("ring:{}", t.z1);
    case GridKind::torus: return fmt::format("torus:{}x{}", t.z1, t.z2);
    case GridKind::mesh: break;
  }
  return fmt::format("mesh:{}x{}", t.z1, t.z2);
}

GridTopology parse_grid_topology(const std::string& text) {
  const std::string forms = "allowed ring:z, torus:z1xz2 or mesh:z1xz2";
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos)
    throw Error(fmt::format("topology '{}' malformed: {}", printable_input(text), forms));
  const std::string kind = text.substr(0, colon), sizes = text.substr(colon + 1);
  GridTopology t;
  if (kind == "ring") {
    t.kind = GridKind::ring;
  } else if (kind == "torus") {
    t.kind = GridKind::torus;
  } else if (kind == "mesh") {
    t.kind = GridKind::mesh;
  } else {
    throw Error(fmt::format("topology '{}' unknown: {}", printable_input(text), forms));
  }
  const auto side = [&](const std::string& s, const char* name) {
    std::uint64_t z = 0;
    try {
      z = parse_uint(s, "side");
    } catch (const Error&) {
      throw Error(fmt::format("topology '{}': {} '{}' is not a whole number: {}", printable_input(text), name,
                              printable_input(s), forms));
    }
    if (z < 2 || z > kMaxGridSide)
      throw Error(fmt::format("topology '{}': {} = {} out of range: allowed 2..{}", printable_input(text), name, z,
                              kMaxGridSide));
    return z;
  };
  if (t.kind == GridKind::ring) {
    t.z1 = side(sizes, "z");
    t.z2 = 1;
  } else {
    const std::size_t x = sizes.find('x');
    if (x == std::string::npos)
      throw Error(fmt::format("topology '{}' malformed: {} needs two sides, e.g. {}:4x4", printable_input(text), kind,
                              kind));
    t.z1 = side(sizes.substr(0, x), "z1");
    t.z2 = side(sizes.substr(x + 1), "z2");
  }
  if (t.nodes() > kMaxGridNodes)
    throw Error(fmt::format("topology '{}' has {} nodes: allowed at most {}", printable_input(text), t.nodes(),
                            kMaxGridNodes));
  return t;
}

void GridCycle::add(std::uint64_t node, std::uint32_t dim, std::int32_t dir,
                    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& blocks) {
  if (blocks.empty()) return;
  messages.push_back(GridMessage{node, dim, dir, from.size(), blocks.size()});
  for (const auto& [f, t] : blocks) {
    from.push_back(f);
    to.push_back(t);
  }
}

std::string to_string(Duplex d) { return d == Duplex::half ? "half" : "full"; }

namespace {

const char* direction_name(unsigned dim, int dir) {
  static const char* const names[2][2] = {{"X-", "X+"}, {"Y-", "Y+"}};
  return names[dim][dir > 0 ? 1 : 0];
}

// The edge a message crosses: along dim, edge e joins coordinates e and e + 1 (mod z).
std::uint64_t edge_of(const GridTopology& t, std::uint64_t node, unsigned dim, int dir) {
  const std::uint64_t z = t.side(dim), c = t.coord(node, dim);
  const std::uint64_t e = dir > 0 ? c : (c + z - 1) % z;
  // Numbered per line of the dimension: the other coordinate picks the line.
  return dim == 0 ? e + z * t.y_of(node) : e + z * t.x_of(node);
}

}  // namespace

GridCycleUse check_grid_cycle(const GridTopology& t, std::uint64_t node_blocks, const GridCycle& cycle,
                              const GridRules& rules, std::size_t index) {
  const auto fail = [&](std::size_t i, const std::string& why) -> Error {
    const GridMessage& m = cycle.messages[i];
    const std::string what =
        m.dir == 0 ? fmt::format("copy within node {}", m.node)
                   : fmt::format("node {} {}", m.node, direction_name(std::min<unsigned>(m.dim, 1), m.dir));
    return Error(fmt::format("grid cycle {}, message {} ({}): {}", index, i, what, why));
  };
  const std::uint64_t N = t.nodes();
  if (cycle.from.size() != cycle.to.size())
    throw Error(fmt::format("grid cycle {}: {} sender entries and {} receiver entries: expected as many", index,
                            cycle.from.size(), cycle.to.size()));
  GridCycleUse use;
  // (directed link) -> message, (edge, dim) -> direction, node -> sends / receives.
  std::vector<std::tuple<unsigned, std::uint64_t, int, std::size_t>> links;  // dim, edge, dir, message
  std::vector<std::pair<std::uint64_t, std::size_t>> senders, receivers;
  struct Touch {
    std::uint64_t node, block;
    bool write;
    std::size_t msg;
  };
  std::vector<Touch> touches;
  touches.reserve(2 * cycle.from.size());
  for (std::size_t i = 0; i < cycle.messages.size(); ++i) {
    const GridMessage& m = cycle.messages[i];
    if (m.node >= N) throw fail(i, fmt::format("node {} out of range: allowed 0..{}", m.node, N - 1));
    if (m.dir != 0 && m.dir != 1 && m.dir != -1)
      throw fail(i, fmt::format("direction {} out of range: allowed -1, +1, or 0 for a copy within the node", m.dir));
    if (m.dim >= t.dims())
      throw fail(i, fmt::format("dimension {} out of range: {}", m.dim, allowed_indices(t.dims(), "dims")));
    if (m.blocks == 0 || m.first > cycle.from.size() || m.blocks > cycle.from.size() - m.first)
      throw fail(i, fmt::format("blocks {}..{} outside the cycle's {} entries: allowed 1 or more inside them", m.first,
                                m.first + m.blocks, cycle.from.size()));
    std::uint64_t receiver = m.node;
    if (m.dir != 0) {
      const std::optional<std::uint64_t> to = t.neighbour(m.node, m.dim, m.dir);
      if (!to)
        throw fail(i, fmt::format("no link {} from node {}: it is on the border of {}", direction_name(m.dim, m.dir),
                                  m.node, to_string(t)));
      receiver = *to;
      links.emplace_back(m.dim, edge_of(t, m.node, m.dim, m.dir), m.dir, i);
      senders.emplace_back(m.node, i);
      receivers.emplace_back(receiver, i);
      use.link_blocks += m.blocks;
      use.max_message = std::max(use.max_message, m.blocks);
    } else {
      if (m.dim != 0) throw fail(i, fmt::format("a copy within a node names dimension {}: expected 0", m.dim));
      use.local_blocks += m.blocks;
    }
    for (std::uint64_t e = m.first; e < m.first + m.blocks; ++e) {
      if (cycle.from[e] >= node_blocks || cycle.to[e] >= node_blocks)
        throw fail(i, fmt::format("block {} -> {} out of range: allowed 0..{}", cycle.from[e], cycle.to[e],
                                  node_blocks - 1));
      touches.push_back({m.node, cycle.from[e], false, i});
      touches.push_back({receiver, cycle.to[e], true, i});
    }
  }
  // Each directed link once; with half duplex each edge one way.
  std::sort(links.begin(), links.end());
  for (std::size_t k = 1; k < links.size(); ++k) {
    const auto& [d0, e0, r0, m0] = links[k - 1];
    const auto& [d1, e1, r1, m1] = links[k];
    if (d0 != d1 || e0 != e1) continue;
    if (r0 == r1) throw fail(m1, fmt::format("its link also carries message {}: one message a link per cycle", m0));
    if (rules.duplex == Duplex::half)
      throw fail(m1, fmt::format("its edge also carries message {} the other way: links are half duplex", m0));
  }
  use.links_used = links.size();
  if (rules.ports == PortModel::one_port)
    for (auto* side : {&senders, &receivers}) {
      std::sort(side->begin(), side->end());
      for (std::size_t k = 1; k < side->size(); ++k)
        if ((*side)[k].first == (*side)[k - 1].first)
          throw fail((*side)[k].second,
                     fmt::format("node {} also {} message {}: one-port, one message sent and one received a node",
                                 (*side)[k].first, side == &senders ? "sends" : "receives", (*side)[k - 1].second));
    }
  // No block written twice, none both read and written.
  std::sort(touches.begin(), touches.end(), [](const Touch& a, const Touch& b) {
    return std::tie(a.node, a.block, a.write) < std::tie(b.node, b.block, b.write);
  });
  for (std::size_t k = 1; k < touches.size(); ++k) {
    const Touch& a = touches[k - 1];
    const Touch& b = touches[k];
    if (a.node != b.node || a.block != b.block || !b.write) continue;
    throw fail(b.msg, fmt::format("writes block {} of node {} that message {} also {}", b.block, b.node, a.msg,
                                  a.write ? "writes" : "reads"));
  }
  return use;
}

std::vector<unsigned char> reference_grid_cycle(const std::vector<unsigned char>& state, std::uint64_t node_blocks,
                                                std::size_t block_bytes, const GridTopology& t,
                                                const GridCycle& cycle) {
  std::vector<unsigned char> out = state;
  for (const GridMessage& m : cycle.messages) {
    const std::uint64_t receiver = m.dir == 0 ? m.node : t.neighbour(m.node, m.dim, m.dir).value();
    for (std::uint64_t e = m.first; e < m.first + m.blocks; ++e)
      std::memcpy(&out[(receiver * node_blocks + cycle.to[e]) * block_bytes],
                  &state[(m.node * node_blocks + cycle.from[e]) * block_bytes], block_bytes);
  }
  return out;
}

unsigned grid_cube_dims(const GridTopology& t) {
  unsigned dims = 0;
  for (unsigned d = 0; d < t.dims(); ++d) {
    const std::uint64_t z = t.side(d);
    if ((z & (z - 1)) != 0)
      throw Error(fmt::format("{} embeds in the cube only with sides that are powers of two: {} = {} is not",
                              to_string(t), d == 0 ? (t.kind == GridKind::ring ? "z" : "z1") : "z2", z));
    dims += static_cast<unsigned>(__builtin_ctzll(z));
  }
  return dims;
}

std::uint64_t grid_cube_node(const GridTopology& t, std::uint64_t node) {
  const unsigned a = static_cast<unsigned>(__builtin_ctzll(t.z1));
  return gray_encode(t.x_of(node)) | (gray_encode(t.y_of(node)) << a);
}

std::vector<BlockRouteStep> embed_grid_cycle(const GridTopology& t, const GridCycle& cycle,
                                             std::uint64_t block_words) {
  grid_cube_dims(t);  // sides powers of two
  // Step 0: the copies within nodes; steps 1..4: X-, X+, Y-, Y+.
  std::vector<BlockRouteStep> steps(5);
  for (BlockRouteStep& s : steps) s.block_words = block_words;
  for (std::size_t i = 0; i < cycle.messages.size(); ++i) {
    const GridMessage& m = cycle.messages[i];
    const std::uint64_t receiver = m.dir == 0 ? m.node : t.neighbour(m.node, m.dim, m.dir).value();
    const std::uint64_t src = grid_cube_node(t, m.node), dst = grid_cube_node(t, receiver);
    if (m.dir != 0 && popcount(src ^ dst) != 1)
      throw Error(fmt::format("grid cycle message {}: grid nodes {} -> {} are cube nodes {} -> {}, {} dimensions "
                              "apart: the embedding must have dilation 1",
                              i, m.node, receiver, src, dst, popcount(src ^ dst)));
    BlockRouteStep& s = steps[m.dir == 0 ? 0 : 1 + 2 * m.dim + (m.dir > 0 ? 1 : 0)];
    s.messages.push_back(BlockMessage{src, dst, s.from.size(), m.blocks, m.blocks});
    s.from.insert(s.from.end(), cycle.from.begin() + static_cast<std::ptrdiff_t>(m.first),
                  cycle.from.begin() + static_cast<std::ptrdiff_t>(m.first + m.blocks));
    s.to.insert(s.to.end(), cycle.to.begin() + static_cast<std::ptrdiff_t>(m.first),
                cycle.to.begin() + static_cast<std::ptrdiff_t>(m.first + m.blocks));
  }
  steps.erase(std::remove_if(steps.begin(), steps.end(), [](const BlockRouteStep& s) { return s.messages.empty(); }),
              steps.end());
  return steps;
}

}  // namespace hcube

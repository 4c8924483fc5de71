// The NEWS grid beside the cube (the CM-2 had both): rings T(z), tori
// T(z1, z2) and meshes M(z1, z2) of any sides z >= 2, each node a local
// memory of blocks (packets of mu words). A grid routing cycle moves blocks
// along grid links, node to neighbour, in one step; it is data, checked
// before anything moves (check_grid_cycle), as the cube's cycles are.
// The lecture notes' all-to-all scatter algorithms are plans of such cycles
// (host/grid_scatter.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hcube/host/cycle.hpp"
#include "hcube/host/router_step.hpp"

namespace hcube {

enum class GridKind { ring, torus, mesh };

// Node (x, y) is node x + z1 y; X is dimension 0, Y dimension 1. Along a
// wrapping dimension, edge e joins e and e + 1 mod z (z edges, also for
// z = 2: T(2) has two edges between its nodes); a mesh side has z - 1.
struct GridTopology {
  GridKind kind = GridKind::ring;
  std::uint64_t z1 = 2;  // X side
  std::uint64_t z2 = 1;  // Y side (1 for a ring)

  unsigned dims() const { return kind == GridKind::ring ? 1 : 2; }
  std::uint64_t nodes() const { return z1 * z2; }
  std::uint64_t side(unsigned dim) const { return dim == 0 ? z1 : z2; }
  bool wraps() const { return kind != GridKind::mesh; }
  std::uint64_t node(std::uint64_t x, std::uint64_t y) const { return x + z1 * y; }
  std::uint64_t x_of(std::uint64_t node) const { return node % z1; }
  std::uint64_t y_of(std::uint64_t node) const { return node / z1; }
  // Coordinate `dim` of a node.
  std::uint64_t coord(std::uint64_t node, unsigned dim) const { return dim == 0 ? x_of(node) : y_of(node); }
  // The node one step from `node` along `dim` in direction dir (+1 or -1);
  // none past a mesh's border.
  std::optional<std::uint64_t> neighbour(std::uint64_t node, unsigned dim, int dir) const;
  // The directed links: per node and dimension, + and - where they exist.
  std::uint64_t directed_links() const;
};

// Sides are limited so that node numbers and plan sizes stay far from overflow;
// what a plan may hold is limited further by its size (grid_scatter.hpp).
inline constexpr std::uint64_t kMaxGridSide = std::uint64_t{1} << 16;
inline constexpr std::uint64_t kMaxGridNodes = std::uint64_t{1} << 20;

// "ring:8", "torus:4x4", "mesh:4x8".
std::string to_string(const GridTopology& t);
// Parses the same; throws hcube::Error naming the text and the allowed forms and ranges.
GridTopology parse_grid_topology(const std::string& text);

// One message of a grid cycle: blocks from node `node` over one link to its
// neighbour (dir = +1 or -1 along dim), or, with dir = 0, a copy within the
// node itself (no link). Its blocks are entries [first, first + blocks) of the
// cycle's tables: from[e] at the sender, to[e] at the receiver. Several blocks
// on one link in one cycle are one combined message (one startup).
struct GridMessage {
  std::uint64_t node = 0;
  std::uint32_t dim = 0;
  std::int32_t dir = 0;
  std::uint64_t first = 0;
  std::uint64_t blocks = 0;
};

struct GridCycle {
  std::vector<GridMessage> messages;
  std::vector<std::uint64_t> from, to;

  // Appends a message of the given (sender block, receiver block) pairs.
  void add(std::uint64_t node, std::uint32_t dim, std::int32_t dir,
           const std::vector<std::pair<std::uint64_t, std::uint64_t>>& blocks);
};

enum class Duplex {
  half,  // an edge carries words one way per cycle
  full,  // both ways at once
};
std::string to_string(Duplex d);

struct GridRules {
  PortModel ports = PortModel::all_port;  // one_port: a node sends at most one message and receives at most one
  Duplex duplex = Duplex::full;
};

// What a legal cycle moves.
struct GridCycleUse {
  std::uint64_t link_blocks = 0;   // blocks that cross a link (each crosses one)
  std::uint64_t local_blocks = 0;  // blocks copied within a node
  std::uint64_t links_used = 0;    // directed links that carry a message
  std::uint64_t max_message = 0;   // blocks in the largest message on a link
};

// Checks a cycle on a grid whose nodes hold `node_blocks` blocks each, and
// returns its counts: nodes, directions and blocks in range; each message on
// a link that exists; each directed link used by one message at most; one
// direction per edge (half duplex); one message sent and one received a node
// (one-port; copies within a node are not sent); no block written twice and
// none both read and written (so every message sees the state before the
// cycle and one launch moves them all). Throws hcube::Error "grid cycle
// <index>, message <i> ...: <reason>".
GridCycleUse check_grid_cycle(const GridTopology& t, std::uint64_t node_blocks, const GridCycle& cycle,
                              const GridRules& rules, std::size_t index = 0);

// The reference of one cycle, from its definition: every block of every
// message copied from the state before the cycle. `state` holds the nodes'
// memories one after the other, node_blocks blocks of block_bytes each.
std::vector<unsigned char> reference_grid_cycle(const std::vector<unsigned char>& state, std::uint64_t node_blocks,
                                                std::size_t block_bytes, const GridTopology& t,
                                                const GridCycle& cycle);

// --- The grid in the cube (the CM-2's NEWS grid on its cube wires) -------------

// Sides that are powers of two embed in the cube of log2 z1 + log2 z2
// dimensions by the binary-reflected Gray code, node (x, y) at cube node
// G(x) + 2^log2(z1) G(y): every grid link, wrap-around ones included, is one
// cube edge (dilation 1). Throws hcube::Error naming a side that is not a
// power of two.
unsigned grid_cube_dims(const GridTopology& t);
std::uint64_t grid_cube_node(const GridTopology& t, std::uint64_t node);

// One grid cycle as router steps of block messages on that cube, each message
// between neighbours: a step per link direction (X+, X-, Y+, Y-) and one for
// the copies within nodes, so each node sends and receives one message a step.
// Every link message's ends are checked to differ in exactly one cube
// dimension (throws hcube::Error otherwise). Blocks of block_words words.
std::vector<BlockRouteStep> embed_grid_cycle(const GridTopology& t, const GridCycle& cycle,
                                             std::uint64_t block_words);

}  // namespace hcube

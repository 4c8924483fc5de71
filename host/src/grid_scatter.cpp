#include "hcube/host/grid_scatter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <tuple>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/io/input_file.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

namespace {

const std::vector<std::pair<ScatterAlgorithm, const char*>>& algorithm_names() {
  static const std::vector<std::pair<ScatterAlgorithm, const char*>> names = {
      {ScatterAlgorithm::pipeline, "pipeline"}, {ScatterAlgorithm::bidirectional, "bidirectional"},
      {ScatterAlgorithm::product, "product"},   {ScatterAlgorithm::dex, "dex"},
      {ScatterAlgorithm::bex, "bex"},           {ScatterAlgorithm::sex, "sex"},
      {ScatterAlgorithm::qex, "qex"},           {ScatterAlgorithm::idex, "idex"}};
  return names;
}

bool power_of_two(std::uint64_t z) { return z != 0 && (z & (z - 1)) == 0; }
unsigned log2_exact(std::uint64_t z) { return static_cast<unsigned>(__builtin_ctzll(z)); }
std::uint64_t top_power(std::uint64_t t) { return t == 0 ? 1 : std::uint64_t{1} << (63 - __builtin_clzll(t)); }

}  // namespace

ScatterAlgorithm parse_scatter_algorithm(const std::string& s) {
  for (const auto& [a, name] : algorithm_names())
    if (s == name) return a;
  throw Error(fmt::format("scatter algorithm '{}' unknown: allowed {}", printable_input(s), scatter_algorithm_names()));
}

std::string to_string(ScatterAlgorithm a) {
  for (const auto& [b, name] : algorithm_names())
    if (a == b) return name;
  return "?";
}

std::string scatter_algorithm_names() {
  std::string list;
  for (const auto& [a, name] : algorithm_names()) list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

std::string to_string(Switching s) { return s == Switching::wormhole ? "wormhole" : "store-and-forward"; }

ScatterTopology parse_scatter_topology(const std::string& text) {
  ScatterTopology t;
  if (text.rfind("cube:", 0) == 0) {
    std::uint64_t d = 0;
    try {
      d = parse_uint(text.substr(5), "d");
    } catch (const Error&) {
      throw Error(fmt::format("topology '{}': d is not a whole number: allowed cube:d with d = 1..32",
                              printable_input(text)));
    }
    if (d < 1 || d > 32)
      throw Error(fmt::format("topology '{}': d = {} out of range: allowed 1..32", printable_input(text), d));
    t.cube = true;
    t.d = static_cast<unsigned>(d);
    return t;
  }
  if (text.find(':') == std::string::npos || text.rfind("ring:", 0) == 0 || text.rfind("torus:", 0) == 0 ||
      text.rfind("mesh:", 0) == 0) {
    try {
      t.grid = parse_grid_topology(text);
    } catch (const Error& e) {
      // The grid's parser names its forms; the cube is one more.
      std::string what = e.what();
      const std::string forms = "allowed ring:z, torus:z1xz2 or mesh:z1xz2";
      if (const std::size_t at = what.find(forms); at != std::string::npos)
        what.replace(at, forms.size(), "allowed ring:z, torus:z1xz2, mesh:z1xz2 or cube:d");
      throw Error(what);
    }
    return t;
  }
  throw Error(fmt::format("topology '{}' unknown: allowed ring:z, torus:z1xz2, mesh:z1xz2 or cube:d",
                          printable_input(text)));
}

std::string to_string(const ScatterTopology& t) { return t.cube ? fmt::format("cube:{}", t.d) : to_string(t.grid); }

std::string scatter_algorithms_for(const ScatterTopology& t) {
  if (t.cube) return "sex, dex";
  switch (t.grid.kind) {
    case GridKind::ring: return "pipeline, bidirectional, dex (z a multiple of 4)";
    case GridKind::torus: return "product, dex or idex (square, z a multiple of 4)";
    case GridKind::mesh: break;
  }
  return "dex, bex (sides powers of two), qex (square, sides powers of two), idex (square, z a multiple of 4), product";
}

void check_scatter_algorithm(const ScatterTopology& t, ScatterAlgorithm a) {
  const auto refuse = [&](const std::string& why) {
    return Error(fmt::format("check_scatter_algorithm::a {} does not run on {}: {}; allowed there: {}", to_string(a),
                             to_string(t), why, scatter_algorithms_for(t)));
  };
  if (t.cube) {
    if (a == ScatterAlgorithm::sex || a == ScatterAlgorithm::dex) return;
    if (a == ScatterAlgorithm::bex) throw refuse("BEX simulates SEX on a mesh; on the cube it is sex");
    throw refuse("it is a grid algorithm");
  }
  const GridTopology& g = t.grid;
  // The interleaved DEX runs the cycle DEX of z = 4t along every row and column.
  const auto square_4t = [&] {
    if (g.z1 != g.z2 || g.z1 % 4 != 0)
      throw refuse(fmt::format("it interleaves the cycle DEX of z = 4t along rows and columns, so the grid must be "
                               "square with z a multiple of 4, and {}x{} is not",
                               g.z1, g.z2));
  };
  switch (a) {
    case ScatterAlgorithm::pipeline:
    case ScatterAlgorithm::bidirectional:
      if (g.kind == GridKind::ring) return;
      throw refuse("the notes' ring pipelines run on rings (ring:z)");
    case ScatterAlgorithm::product:
      if (g.kind != GridKind::ring) return;
      throw refuse("the Cartesian product pipelines along the rows and columns of a torus or mesh (torus:z1xz2, "
                   "mesh:z1xz2)");
    case ScatterAlgorithm::dex:
      if (g.kind == GridKind::ring) {
        // Notes sec. 12: the cycle's DEX folds T(z) into four quadrants of t nodes.
        if (g.z1 % 4 != 0)
          throw refuse(fmt::format("the notes' cycle DEX needs z = 4t, and z = {} is not a multiple of 4", g.z1));
        return;
      }
      // On a torus DEX is the interleaved one; a mesh's dex is the binary one (idex there).
      if (g.kind == GridKind::torus) return square_4t();
      [[fallthrough]];
    case ScatterAlgorithm::bex:
      if (g.kind != GridKind::mesh)
        throw refuse("the notes run DEX and BEX on wormhole meshes (mesh:z1xz2)");
      if (!power_of_two(g.z1) || !power_of_two(g.z2))
        throw refuse(fmt::format("it works on the nodes' binary addresses, so both sides must be powers of two, and "
                                 "{} is not",
                                 power_of_two(g.z1) ? g.z2 : g.z1));
      return;
    case ScatterAlgorithm::sex: throw refuse("SEX is the cube's standard exchange (cube:d)");
    case ScatterAlgorithm::idex:
      if (g.kind == GridKind::ring) throw refuse("on a ring the cycle's DEX is dex");
      return square_4t();
    case ScatterAlgorithm::qex:
      if (g.kind != GridKind::mesh) throw refuse("the notes run QEX on wormhole meshes (mesh:2^kx2^k)");
      if (g.z1 != g.z2 || !power_of_two(g.z1))
        throw refuse(fmt::format("it splits M(2^k, 2^k) into quarters, so the mesh must be square with sides powers of "
                                 "two, and {}x{} is not",
                                 g.z1, g.z2));
      return;
  }
}

std::size_t GridSchedule::round_of(std::size_t cycle) const {
  return static_cast<std::size_t>(std::upper_bound(round_ends.begin(), round_ends.end(), cycle) - round_ends.begin());
}

double scatter_plan_entries(const GridTopology& t, ScatterAlgorithm a) {
  const double z1 = static_cast<double>(t.z1), z2 = static_cast<double>(t.z2), N = z1 * z2;
  switch (a) {
    case ScatterAlgorithm::pipeline: return N * z1 * (z1 - 1) / 2 + N;
    case ScatterAlgorithm::bidirectional: {
      const double cp = std::floor(z1 / 2), cm = std::floor((z1 - 1) / 2);
      return N * (cp * (cp + 1) / 2 + cm * (cm + 1) / 2) + N;
    }
    case ScatterAlgorithm::product: return N * z2 * z1 * (z1 - 1) / 2 + N * z1 * z2 * (z2 - 1) / 2 + 2 * N;
    case ScatterAlgorithm::idex:
    case ScatterAlgorithm::dex:
      // A ring's 2t^2 rounds each cross all 2z directed links once.
      if (t.kind == GridKind::ring) return z1 * z1 * z1 / 4 + N;
      // On a torus every packet takes the short way round each side: z^2/4 links from a node over a side.
      if (t.kind == GridKind::torus) return N * (z2 * z1 * z1 / 4 + z1 * z2 * z2 / 4) + N;
      // Over all ordered pairs of coordinates |x - x'| sums to z (z^2 - 1) / 3.
      return z2 * z2 * z1 * (z1 * z1 - 1) / 3 + z1 * z1 * z2 * (z2 * z2 - 1) / 3 + N;
    case ScatterAlgorithm::bex: {
      const double phases = std::log2(z1) + std::log2(z2);
      return N * N / 2 * ((z1 - 1) + (z2 - 1)) + N * N / 2 * phases;
    }
    case ScatterAlgorithm::qex:
      // A phase on quarters of side h: every node sends N/4 packets over h, h and 2h links, keeps N/4.
      return N * N * (z1 - 1) + N * N / 4 * std::log2(z1);
    case ScatterAlgorithm::sex: break;
  }
  return 0;
}

namespace {

// --- building blocks -----------------------------------------------------------

// The node `steps` steps from `node` along dim, backwards for steps < 0 (wrapping).
std::uint64_t shifted(const GridTopology& t, std::uint64_t node, unsigned dim, long long steps) {
  const long long z = static_cast<long long>(t.side(dim));
  const long long c = (static_cast<long long>(t.coord(node, dim)) + steps % z + z) % z;
  return dim == 0 ? t.node(static_cast<std::uint64_t>(c), t.y_of(node))
                  : t.node(t.x_of(node), static_cast<std::uint64_t>(c));
}

using BlockPairs = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

// One direction of a store-and-forward pipeline (notes sec. 2): each node has,
// for every offset k = 1..count along (dim, dir), a group of `group` packets
// for the node k steps on. Round r: every node forwards the groups that started
// r - 1 steps back, for offsets r..count; the receiver takes group r (its own)
// to its final place and keeps the rest in a transit buffer, the two buffers
// taking turns so that no cycle reads and writes one.
struct Lane {
  unsigned dim = 0;
  int dir = 1;
  std::uint64_t count = 0;
  std::uint64_t group = 1;
  // (origin, offset k, packet e) -> (block at the origin, block at the receiver origin + k dir)
  std::function<std::pair<std::uint64_t, std::uint64_t>(std::uint64_t, std::uint64_t, std::uint64_t)> place;
  std::uint64_t buffer[2] = {0, 0};

  std::uint64_t buffer_blocks() const { return count > 1 ? (count - 1) * group : 0; }
};

// Lanes running side by side (one round each at a time), after copies within
// every node in round 1 (`local(node)`: its (from, to) pairs). On a mesh a
// lane has no wrap-around: a group whose origin or destination lies past the
// border does not exist, and a node with none sends nothing.
void pipeline_phase(GridSchedule& s, std::vector<Lane> lanes, const std::function<BlockPairs(std::uint64_t)>& local,
                    std::uint64_t buffers_from) {
  const GridTopology& t = s.topology;
  std::uint64_t rounds = 0;
  for (Lane& lane : lanes) {
    lane.buffer[0] = buffers_from;
    lane.buffer[1] = buffers_from + lane.buffer_blocks();
    buffers_from += 2 * lane.buffer_blocks();
    rounds = std::max(rounds, lane.count);
  }
  for (std::uint64_t r = 1; r <= rounds; ++r) {
    GridCycle c;
    if (r == 1 && local)
      for (std::uint64_t node = 0; node < t.nodes(); ++node) c.add(node, 0, 0, local(node));
    for (const Lane& lane : lanes) {
      if (lane.count < r) continue;
      for (std::uint64_t node = 0; node < t.nodes(); ++node) {
        const std::uint64_t origin = shifted(t, node, lane.dim, -lane.dir * static_cast<long long>(r - 1));
        const long long at = static_cast<long long>(t.coord(node, lane.dim)), z = static_cast<long long>(t.side(lane.dim));
        const auto inside = [&](std::uint64_t steps) {  // the coordinate `steps` on from the origin, on a mesh
          const long long coord = at + lane.dir * (static_cast<long long>(steps) - static_cast<long long>(r - 1));
          return t.wraps() || (coord >= 0 && coord < z);
        };
        if (!inside(0)) continue;
        BlockPairs blocks;
        for (std::uint64_t k = r; k <= lane.count; ++k)
          for (std::uint64_t e = 0; e < lane.group && inside(k); ++e) {
            const auto [at_origin, at_receiver] = lane.place(origin, k, e);
            const std::uint64_t from = r == 1 ? at_origin : lane.buffer[(r - 1) % 2] + (k - r) * lane.group + e;
            const std::uint64_t to = k == r ? at_receiver : lane.buffer[r % 2] + (k - r - 1) * lane.group + e;
            blocks.emplace_back(from, to);
          }
        if (!blocks.empty()) c.add(node, lane.dim, lane.dir, blocks);
      }
    }
    s.cycles.push_back(std::move(c));
    s.round_ends.push_back(s.cycles.size());
  }
}

// A wormhole message (notes sec. 7, 11): blocks from node src to node dst
// along the XY path (X first, then Y; a mesh has no wrap-around).
// On a ring, ring_dir (+1 or -1) sends it that way round instead (notes
// sec. 12: a micro-permutation's cycles wind once round the ring each way).
struct Worm {
  std::uint64_t src = 0, dst = 0;
  BlockPairs blocks;  // (block at src, block at dst)
  int ring_dir = 0;
  int ring_dir_y = 0;  // Y's way round on a torus where it differs from X's (0: ring_dir's)
};

struct Hop {
  std::uint64_t node;
  unsigned dim;
  int dir;
};

// X-, X+, Y-, Y+.
unsigned direction_index(const Hop& h) { return 2 * h.dim + (h.dir > 0 ? 1 : 0); }

std::vector<Hop> xy_path(const GridTopology& t, std::uint64_t src, std::uint64_t dst, int ring_dir = 0,
                         int ring_dir_y = 0) {
  std::vector<Hop> path;
  std::uint64_t at = src;
  for (unsigned dim = 0; dim < t.dims(); ++dim)
    while (t.coord(at, dim) != t.coord(dst, dim)) {
      const int way = dim == 1 && ring_dir_y != 0 ? ring_dir_y : ring_dir;
      const int dir = way != 0 ? way : t.coord(dst, dim) > t.coord(at, dim) ? 1 : -1;
      path.push_back(Hop{at, dim, dir});
      at = *t.neighbour(at, dim, dir);
    }
  return path;
}

// Node p's packets q that stay home in a wormhole phase: those whose address
// agrees with p's on `mask`, copied from block `from` + q to `to` + q.
std::function<BlockPairs(std::uint64_t)> staying_packets(std::uint64_t N, std::uint64_t mask, std::uint64_t from,
                                                         std::uint64_t to) {
  return [N, mask, from, to](std::uint64_t p) {
    BlockPairs stay;
    for (std::uint64_t q = 0; q < N; ++q)
      if (((p ^ q) & mask) == 0) stay.emplace_back(from + q, to + q);
    return stay;
  };
}

// One contention-free wormhole round, run as one store-and-forward hop a
// cycle: a packet in transit waits in its node's slot for the direction it
// came in by (slot_base + (2 dim + [dir > 0]) slot_blocks). No directed link
// carries two messages in the round, so no slot holds two at once. The
// copies within nodes (`local`) go in the first cycle.
void wormhole_round(GridSchedule& s, const std::vector<Worm>& worms, const std::function<BlockPairs(std::uint64_t)>& local,
                    std::uint64_t slot_base, std::uint64_t slot_blocks) {
  const GridTopology& t = s.topology;
  std::vector<std::vector<Hop>> paths;
  std::vector<std::size_t> used(4 * t.nodes(), worms.size());  // directed link -> the message on it
  std::size_t length = 0;
  if (s.one_port_rounds) {
    std::vector<int> sends(t.nodes(), 0), receives(t.nodes(), 0);
    for (const Worm& w : worms)
      if (++sends[w.src] > 1 || ++receives[w.dst] > 1)
        throw Error(fmt::format("{} plan: wormhole round {} is not one-port: node {} sends or node {} receives twice",
                                s.algorithm, s.rounds(), w.src, w.dst));
  }
  for (std::size_t w = 0; w < worms.size(); ++w) {
    paths.push_back(xy_path(t, worms[w].src, worms[w].dst, worms[w].ring_dir, worms[w].ring_dir_y));
    for (const Hop& h : paths.back()) {
      std::size_t& on = used[4 * h.node + direction_index(h)];
      if (on != worms.size())
        throw Error(fmt::format("{} plan: wormhole round {} is not contention-free: messages {} and {} share the link "
                                "from node {}",
                                s.algorithm, s.rounds(), on, w, h.node));
      on = w;
    }
    length = std::max(length, paths.back().size());
  }
  // Past the check above no directed link carries two messages of the round.
  if (s.one_port_rounds) s.congestion.push_back(length == 0 ? 0 : 1);
  const auto slot = [&](const Hop& h) { return slot_base + direction_index(h) * slot_blocks; };
  for (std::size_t hop = 0; hop < length; ++hop) {
    GridCycle c;
    if (hop == 0 && local)
      for (std::uint64_t node = 0; node < t.nodes(); ++node) c.add(node, 0, 0, local(node));
    for (std::size_t w = 0; w < worms.size(); ++w) {
      const std::vector<Hop>& path = paths[w];
      if (hop >= path.size()) continue;
      BlockPairs blocks;
      for (std::size_t b = 0; b < worms[w].blocks.size(); ++b) {
        const std::uint64_t from = hop == 0 ? worms[w].blocks[b].first : slot(path[hop - 1]) + b;
        const std::uint64_t to = hop + 1 == path.size() ? worms[w].blocks[b].second : slot(path[hop]) + b;
        blocks.emplace_back(from, to);
      }
      c.add(path[hop].node, path[hop].dim, path[hop].dir, blocks);
    }
    s.cycles.push_back(std::move(c));
  }
  s.round_ends.push_back(s.cycles.size());
}

// The worst number of messages of one permutation on a directed link, XY routed.
std::uint64_t congestion(const GridTopology& t, const std::function<std::uint64_t(std::uint64_t)>& to) {
  std::vector<std::uint64_t> load(4 * t.nodes(), 0);
  std::uint64_t worst = 0;
  for (std::uint64_t p = 0; p < t.nodes(); ++p)
    for (const Hop& h : xy_path(t, p, to(p))) worst = std::max(worst, ++load[4 * h.node + direction_index(h)]);
  return worst;
}

// --- the algorithms ----------------------------------------------------------

void build_ring_pipelines(GridSchedule& s, bool both_ways) {
  const GridTopology& t = s.topology;
  const std::uint64_t z = t.z1, N = z, out = N;
  std::vector<Lane> lanes;
  Lane right;
  right.count = both_ways ? z / 2 : z - 1;
  right.place = [z, out](std::uint64_t o, std::uint64_t k, std::uint64_t) { return std::pair{(o + k) % z, out + o}; };
  lanes.push_back(right);
  if (both_ways && (z - 1) / 2 > 0) {
    Lane left;
    left.dir = -1;
    left.count = (z - 1) / 2;
    left.place = [z, out](std::uint64_t o, std::uint64_t k, std::uint64_t) { return std::pair{(o + z - k) % z, out + o}; };
    lanes.push_back(left);
  }
  std::uint64_t buffers = 0;
  for (const Lane& l : lanes) buffers += 2 * l.buffer_blocks();
  s.node_blocks = 2 * N + buffers;
  pipeline_phase(s, lanes, [out](std::uint64_t node) { return BlockPairs{{node, out + node}}; }, 2 * N);
}

void build_product(GridSchedule& s) {
  const GridTopology& t = s.topology;
  const std::uint64_t z1 = t.z1, z2 = t.z2, N = t.nodes(), out = N, mid = 2 * N;
  // A torus pipelines one way round (notes sec. 5); a mesh, "analogous ...
  // similar", both ways along each path at once (all-port, full duplex), so
  // its rounds and largest messages are the torus's.
  const std::vector<int> dirs = t.wraps() ? std::vector<int>{1} : std::vector<int>{1, -1};
  std::vector<Lane> rows, columns;
  std::uint64_t row_buffers = 0, column_buffers = 0;
  for (const int dir : dirs) {
    // Row phase: node (x, y) pipelines along X, for each destination column x'
    // the z2 packets of its rows; the receiver keeps them at mid + x + z1 y'
    // (from column x, for row y').
    Lane row;
    row.dim = 0;
    row.dir = dir;
    row.count = z1 - 1;
    row.group = z2;
    row.place = [t, mid, dir](std::uint64_t o, std::uint64_t k, std::uint64_t e) {
      const std::uint64_t x = t.x_of(o), to_x = (x + t.z1 + dir * static_cast<long long>(k)) % t.z1;
      return std::pair{t.node(to_x, e), mid + x + t.z1 * e};
    };
    row_buffers += 2 * row.buffer_blocks();
    rows.push_back(row);
    // Column phase: node (x', y) pipelines along Y, for each destination row y''
    // the z1 packets from the columns of row y; they end at out + (x, y).
    Lane column;
    column.dim = 1;
    column.dir = dir;
    column.count = z2 - 1;
    column.group = z1;
    column.place = [t, mid, out, dir](std::uint64_t o, std::uint64_t k, std::uint64_t e) {
      const std::uint64_t y = t.y_of(o), to_y = (y + t.z2 + dir * static_cast<long long>(k)) % t.z2;
      return std::pair{mid + e + t.z1 * to_y, out + t.node(e, y)};
    };
    column_buffers += 2 * column.buffer_blocks();
    columns.push_back(column);
  }
  s.node_blocks = 3 * N + std::max(row_buffers, column_buffers);
  pipeline_phase(
      s, rows,
      [&](std::uint64_t node) {
        BlockPairs own;  // the node's own column: straight into mid
        for (std::uint64_t y = 0; y < z2; ++y) own.emplace_back(t.node(t.x_of(node), y), mid + t.x_of(node) + z1 * y);
        return own;
      },
      3 * N);
  pipeline_phase(
      s, columns,
      [&](std::uint64_t node) {
        BlockPairs own;  // the packets for this very node, from every column of its row
        for (std::uint64_t x = 0; x < z1; ++x) own.emplace_back(mid + x + z1 * t.y_of(node), out + t.node(x, t.y_of(node)));
        return own;
      },
      3 * N);
}

void build_dex(GridSchedule& s) {
  const GridTopology& t = s.topology;
  const std::uint64_t N = t.nodes(), out = N, slots = 2 * N, a = log2_exact(t.z1);
  s.node_blocks = 2 * N + 4;
  for (std::uint64_t perm = 1; perm < N; ++perm) {
    s.congestion.push_back(congestion(t, [perm](std::uint64_t p) { return p ^ perm; }));
    // XY routing of p -> p xor perm loads a link of the X segments with
    // cx = top power of its X part messages of one row, and a link of the Y
    // segments with cy of one column: round r takes the nodes with
    // (x mod cx) xor (y mod cy) = r, which separates both.
    const std::uint64_t cx = top_power(perm & (t.z1 - 1)), cy = top_power(perm >> a), c = std::max(cx, cy);
    for (std::uint64_t r = 0; r < c; ++r) {
      std::vector<Worm> worms;
      for (std::uint64_t p = 0; p < N; ++p)
        if (((t.x_of(p) % cx) ^ (t.y_of(p) % cy)) == r) worms.push_back(Worm{p, p ^ perm, {{p ^ perm, out + p}}});
      std::function<BlockPairs(std::uint64_t)> own;  // the node's own packet, in the very first cycle
      if (perm == 1 && r == 0) own = [out](std::uint64_t node) { return BlockPairs{{node, out + node}}; };
      wormhole_round(s, worms, own, slots, 1);
    }
  }
}

void build_bex(GridSchedule& s) {
  const GridTopology& t = s.topology;
  const std::uint64_t N = t.nodes(), half = N / 2;
  const unsigned a = log2_exact(t.z1), b = log2_exact(t.z2);
  // Recursive halving, alternately X and Y from the top bit of each axis.
  std::vector<std::pair<unsigned, unsigned>> phases;  // (axis, bit of that axis)
  for (int i = static_cast<int>(a) - 1, j = static_cast<int>(b) - 1; i >= 0 || j >= 0; --i, --j) {
    if (i >= 0) phases.emplace_back(0, static_cast<unsigned>(i));
    if (j >= 0) phases.emplace_back(1, static_cast<unsigned>(j));
  }
  // Phase k reads area k and writes area k + 1: the input, two scratch areas in turn, the output.
  const std::size_t h = phases.size();
  const auto area = [&](std::size_t k) { return k == 0 ? 0 : k == h ? N : (2 + (k - 1) % 2) * N; };
  s.node_blocks = 4 * N + 4 * half;
  for (std::size_t k = 0; k < h; ++k) {
    const auto [axis, j] = phases[k];
    const std::uint64_t beta = bit(axis == 0 ? j : a + j), reach = bit(j), from = area(k), to = area(k + 1);
    // SEX's round on cube bit beta (digest sec. 1): node p sends the packets
    // at q with bit beta of p xor q set to p xor beta, where they land at q
    // xor beta, and keeps the others at q. On the mesh the partner is 2^j
    // away: a link in the middle carries 2^j messages, so 2^j rounds, round r
    // taking the nodes whose coordinate is r mod 2^j.
    for (std::uint64_t r = 0; r < reach; ++r) {
      std::vector<Worm> worms;
      for (std::uint64_t p = 0; p < N; ++p) {
        if (t.coord(p, axis) % reach != r) continue;
        Worm w{p, p ^ beta, {}};
        for (std::uint64_t q = 0; q < N; ++q)
          if (((p ^ q) & beta) != 0) w.blocks.emplace_back(from + q, to + (q ^ beta));
        worms.push_back(std::move(w));
      }
      // The packets that stay, in the phase's first cycle.
      const std::function<BlockPairs(std::uint64_t)> kept =
          r == 0 ? staying_packets(N, beta, from, to) : std::function<BlockPairs(std::uint64_t)>{};
      wormhole_round(s, worms, kept, 4 * N, half);
    }
  }
}

using RingCycle = std::vector<std::uint64_t>;  // c0 -> c1 -> ... -> c0

// The cycle DEX's micro-permutations on T(z), z = 4t, in the notes' order,
// each as its closed cycles of transfers (pi_3 split in two at t = 1).
std::vector<std::vector<RingCycle>> ring_micro_permutations(std::uint64_t z) {
  const std::uint64_t t = z / 4;
  const auto u = [](std::uint64_t a) { return a; };
  const auto uy = [t](std::uint64_t a) { return 2 * t - 1 - a; };
  const auto uxy = [t](std::uint64_t a) { return 2 * t + a; };
  const auto ux = [t](std::uint64_t a) { return 4 * t - 1 - a; };
  std::vector<std::vector<RingCycle>> perms;
  for (std::uint64_t i = 0; i < t; ++i)
    for (std::uint64_t j = 0; j < t; ++j) {
      if (i == j) continue;
      perms.push_back({{u(i), u(j), uxy(i), uxy(j)}, {ux(i), ux(j), uy(i), uy(j)}});  // pi_1(u_i, u_j)
      perms.push_back({{u(i), ux(j), uxy(i), uy(j)}, {u(j), uy(i), uxy(j), ux(i)}});  // pi_2(u_i, u_j)
    }
  for (std::uint64_t i = 0; i < t; ++i) {
    const std::uint64_t j = (i + 1) % t;
    const RingCycle forth{u(i), ux(i), uxy(i), uy(i)}, back{u(j), uy(j), uxy(j), ux(j)};  // pi_3(u_i)
    if (t == 1) {
      perms.push_back({forth});
      perms.push_back({back});
    } else {
      perms.push_back({forth, back});
    }
    perms.push_back({{u(i), uxy(i)}, {ux(i), uy(i)}});  // pi_4(u_i)
  }
  return perms;
}

// One transfer of a micro-permutation along one side: `dir` +1 or -1 winds
// that way round, 0 goes straight (a mesh's path).
struct Transfer {
  std::uint64_t from = 0, to = 0;
  int dir = 0;
};

// A micro-permutation's transfers, its first cycle winding the way that goes
// once round and the others alternately the other way; throws unless each
// cycle winds exactly once (what makes it contention-free).
std::vector<Transfer> ring_transfers(const std::vector<RingCycle>& cycles, std::uint64_t z, const std::string& where) {
  const auto winding = [z](const RingCycle& c, int dir) {
    std::uint64_t links = 0;
    for (std::size_t k = 0; k < c.size(); ++k) {
      const std::uint64_t from = c[k], to = c[(k + 1) % c.size()];
      links += dir > 0 ? (to + z - from) % z : (from + z - to) % z;
    }
    return links;
  };
  std::vector<Transfer> moves;
  int dir = winding(cycles[0], 1) == z ? 1 : -1;
  for (const RingCycle& c : cycles) {
    if (winding(c, dir) != z)
      throw Error(fmt::format("dex plan on {}: a micro-permutation's cycle from node {} does not wind once round", where,
                              c[0]));
    for (std::size_t k = 0; k < c.size(); ++k) moves.push_back(Transfer{c[k], c[(k + 1) % c.size()], dir});
    dir = -dir;
  }
  return moves;
}

// DEX on the cycle T(z), z = 4t (notes sec. 12). Node k sits at angle
// (2k+1) pi/z, so quadrant I holds u_a = a (a = 0..t-1) and its mirror images
// are u^y = 2t-1-a, u^xy = 2t+a, u^x = 4t-1-a (quadrants II, III, IV).
// Each micro-permutation is two closed cycles of transfers; each cycle winds
// once round the ring, the first one way and the second the other, so every
// directed link carries one packet (contention-free) and every node sends one
// and receives one (one-port). The notes' lemma: 2t^2 rounds, which needs
// t >= 2: at t = 1 pi_3's u_j is u_i, its two cycles share four nodes, and
// they run as two rounds (3 in all, each node's z - 1 packets one a round).
void build_ring_dex(GridSchedule& s) {
  const std::uint64_t z = s.topology.z1, N = z, out = N;
  s.node_blocks = 2 * N + 4;
  bool first_round = true;
  for (const std::vector<RingCycle>& perm : ring_micro_permutations(z)) {
    std::vector<Worm> worms;
    for (const Transfer& m : ring_transfers(perm, z, to_string(s.topology)))
      worms.push_back(Worm{m.from, m.to, {{m.to, out + m.from}}, m.dir});
    std::function<BlockPairs(std::uint64_t)> own;  // the node's own packet, in the very first cycle
    if (first_round) own = [out](std::uint64_t node) { return BlockPairs{{node, out + node}}; };
    first_round = false;
    wormhole_round(s, worms, own, 2 * N, 1);
  }
}

// The directed links of a side of z nodes a transfer crosses, as 2 edge +
// [dir > 0] (edge e joins e and e + 1 mod z).
std::vector<std::uint64_t> side_links(std::uint64_t z, const Transfer& m) {
  std::vector<std::uint64_t> links;
  const int dir = m.dir != 0 ? m.dir : m.to > m.from ? 1 : -1;
  for (std::uint64_t c = m.from; c != m.to;) {
    const std::uint64_t next = dir > 0 ? (c + 1) % z : (c + z - 1) % z;
    links.push_back(2 * (dir > 0 ? c : next) + (dir > 0 ? 1 : 0));
    c = next;
  }
  return links;
}

// A piece of one side's schedule: a one-port, contention-free set of
// transfers along a row or a column (a micro-permutation, a part of one, or a
// node keeping its own coordinate).
struct SidePiece {
  std::vector<Transfer> moves;
  std::vector<std::uint64_t> links;
  std::size_t layer = 0, slot = 0, layer_size = 1;  // its micro-permutation's layer (below); none for x -> x
};

// Layers of the cycle DEX's micro-permutations (in ring_micro_permutations'
// order) whose quadruples of mirror images (orbits) are disjoint: pi_1 and
// pi_2 of the pairs of one round-robin matching of the t orbits, one layer
// per (pi_1 or pi_2, which of the pair is u_i); pi_3's pairs {i, i+1} by i's
// parity (i = t-1 apart for odd t); all pi_4. Returns (layer, slot in it).
std::vector<std::pair<std::size_t, std::size_t>> micro_layers(std::uint64_t t) {
  std::vector<std::size_t> layer;
  if (t == 1) {
    layer = {0, 1, 2};
  } else {
    const std::uint64_t even = t + t % 2, m_count = even - 1;  // round-robin on an even count (a dummy orbit for odd t)
    std::vector<std::uint64_t> matching(t * t, 0);
    for (std::uint64_t m = 0; m < m_count; ++m)
      for (std::uint64_t k = 0; k < even / 2; ++k) {
        const std::uint64_t a = k == 0 ? even - 1 : (m + k) % m_count, b = k == 0 ? m : (m + m_count - k) % m_count;
        if (a < t && b < t) matching[a * t + b] = matching[b * t + a] = m;
      }
    for (std::uint64_t i = 0; i < t; ++i)
      for (std::uint64_t j = 0; j < t; ++j)
        if (i != j)
          for (std::size_t type = 0; type < 2; ++type) layer.push_back(4 * matching[i * t + j] + 2 * (i > j) + type);
    const std::size_t base = 4 * m_count;
    for (std::uint64_t i = 0; i < t; ++i) {
      layer.push_back(base + (i % 2 == 1 ? 1 : t % 2 == 1 && i == t - 1 ? 2 : 0));  // pi_3(u_i)
      layer.push_back(base + 3);                                                   // pi_4(u_i)
    }
  }
  std::vector<std::size_t> filled(*std::max_element(layer.begin(), layer.end()) + 1, 0);
  std::vector<std::pair<std::size_t, std::size_t>> at;
  for (const std::size_t l : layer) at.emplace_back(l, filled[l]++);
  return at;
}

// The pieces of a side of z = 4t nodes: on a ring the cycle DEX's
// micro-permutations as they are; on a path (no wrap-around) each transfer
// goes straight, and a micro-permutation splits, first fit, into parts no two
// of whose transfers share a directed link; then z pieces x -> x. Every
// ordered pair of coordinates, equal ones included, is in exactly one piece.
std::vector<SidePiece> side_pieces(std::uint64_t z, bool wraps, bool split_directions, const std::string& where) {
  std::vector<SidePiece> pieces;
  const std::vector<std::vector<RingCycle>> perms = ring_micro_permutations(z);
  const std::vector<std::pair<std::size_t, std::size_t>> layers = micro_layers(z / 4);
  std::vector<std::size_t> layer_size(perms.size(), 0);
  for (const auto& [l, slot] : layers) layer_size[l] = std::max(layer_size[l], slot + 1);
  for (std::size_t k = 0; k < perms.size(); ++k) {
    const std::vector<RingCycle>& perm = perms[k];
    std::vector<SidePiece> parts;
    for (Transfer m : ring_transfers(perm, z, where)) {
      if (!wraps) m.dir = 0;
      const std::vector<std::uint64_t> links = side_links(z, m);
      auto part = std::find_if(parts.begin(), parts.end(), [&](const SidePiece& p) {
        if (split_directions && p.moves.front().dir != m.dir) return false;
        return std::none_of(links.begin(), links.end(), [&](std::uint64_t l) {
          return std::find(p.links.begin(), p.links.end(), l) != p.links.end();
        });
      });
      if (part == parts.end())
        part = parts.insert(parts.end(), SidePiece{{}, {}, layers[k].first, layers[k].second, layer_size[layers[k].first]});
      part->moves.push_back(m);
      part->links.insert(part->links.end(), links.begin(), links.end());
    }
    pieces.insert(pieces.end(), parts.begin(), parts.end());
  }
  for (std::uint64_t x = 0; x < z; ++x) pieces.push_back(SidePiece{{Transfer{x, x, 0}}, {}});
  return pieces;
}

// The interleaved DEX on T(z, z) and M(z, z), z = 4t (notes sec. 12, the
// figure lost; hcube's design). A block pairs a row piece h with a column
// piece v: node (x, y) sends to (h(x), v(y)), X first along row y by h's
// transfer, then along column h(x) by v's. A block is one-port and
// contention-free by itself (row y carries h once, column x' carries v
// once). Every ordered pair of nodes is in exactly one block (pairs of
// coordinates are in exactly one piece a side), the node itself in none
// (its own packet is a copy). A round is blocks that share no sender, no
// receiver and no directed link, packed first fit (two orders, below), so
// that horizontal and vertical micro-permutations run in the same round on
// disjoint rows and columns.
void build_interleaved_dex(GridSchedule& s) {
  const GridTopology& t = s.topology;
  const std::uint64_t z = t.z1, N = t.nodes(), out = N;
  s.node_blocks = 2 * N + 4;
  struct Block {
    std::size_t h = 0, v = 0;
    std::vector<std::uint64_t> sends, receives, links;  // links: row y's 2z y + l, column x's 2z^2 + 2z x + l
  };
  // The rounds of one set of pieces (below): whole micro-permutations, and on a torus with t odd,
  // where no layer of them covers all t orbits, also their one-direction parts (two parts of one
  // row can then share a round); the fewer rounds kept.
  std::vector<Block> blocks;
  std::vector<SidePiece> pieces;
  const auto plan_rounds = [&](bool split) {
    pieces = side_pieces(z, t.wraps(), split, to_string(t));
    blocks.clear();
    for (std::size_t h = 0; h < pieces.size(); ++h)
      for (std::size_t v = 0; v < pieces.size(); ++v) {
        const SidePiece &row = pieces[h], &column = pieces[v];
        if (row.links.empty() && column.links.empty()) continue;  // the node itself
        Block b{h, v, {}, {}, {}};
        for (const Transfer& mx : row.moves)
          for (const Transfer& my : column.moves) {
            b.sends.push_back(t.node(mx.from, my.from));
            b.receives.push_back(t.node(mx.to, my.to));
          }
        for (const Transfer& my : column.moves)
          for (const std::uint64_t l : row.links) b.links.push_back(2 * z * my.from + l);
        for (const Transfer& mx : row.moves)
          for (const std::uint64_t l : column.links) b.links.push_back(2 * z * z + 2 * z * mx.to + l);
        blocks.push_back(std::move(b));
      }
    // First fit in a given order: each round takes every block, in order, that
    // shares nothing with those it already holds.
    const auto pack = [&](const std::vector<std::size_t>& order) {
      std::vector<std::vector<std::size_t>> rounds;
      std::vector<bool> placed(blocks.size(), false);
      for (std::size_t left = blocks.size(); left > 0;) {
        std::vector<bool> sending(N, false), receiving(N, false), busy(4 * z * z, false);
        const auto free = [](const std::vector<bool>& used, const std::vector<std::uint64_t>& ids) {
          return std::none_of(ids.begin(), ids.end(), [&](std::uint64_t i) { return used[i]; });
        };
        rounds.emplace_back();
        for (const std::size_t k : order) {
          const Block& b = blocks[k];
          if (placed[k] || !free(sending, b.sends) || !free(receiving, b.receives) || !free(busy, b.links)) continue;
          for (const std::uint64_t i : b.sends) sending[i] = true;
          for (const std::uint64_t i : b.receives) receiving[i] = true;
          for (const std::uint64_t i : b.links) busy[i] = true;
          placed[k] = true;
          --left;
          rounds.back().push_back(k);
        }
      }
      return rounds;
  };
  // Two orders, the fewer rounds kept. Latin: the blocks of two micro-permutations
  // layer by layer, layer pair (A, B) in diagonals (A's slot s with B's s + d),
  // so that a diagonal of two full layers is a round with every link busy;
  // then the blocks that keep a coordinate. By links: the most links first.
  std::vector<std::size_t> latin(blocks.size()), by_links(blocks.size());
  std::iota(latin.begin(), latin.end(), std::size_t{0});
  std::iota(by_links.begin(), by_links.end(), std::size_t{0});
  const auto latin_key = [&](std::size_t k) {
    const SidePiece &h = pieces[blocks[k].h], &v = pieces[blocks[k].v];
    const std::size_t m = std::max(h.layer_size, v.layer_size), still = h.links.empty() || v.links.empty();
    return still ? std::tuple(still, ~blocks[k].links.size(), std::size_t{0}, std::size_t{0}, std::size_t{0})
                 : std::tuple(still, h.layer, v.layer, (v.slot + m - h.slot % m) % m, h.slot);
  };
  std::stable_sort(latin.begin(), latin.end(), [&](std::size_t a, std::size_t b) { return latin_key(a) < latin_key(b); });
  std::stable_sort(by_links.begin(), by_links.end(),
                   [&](std::size_t a, std::size_t b) { return blocks[a].links.size() > blocks[b].links.size(); });
  std::vector<std::vector<std::size_t>> rounds = pack(latin), other = pack(by_links);
  if (other.size() < rounds.size()) rounds = std::move(other);
  return rounds;
  };
  std::vector<std::vector<std::size_t>> rounds = plan_rounds(false);
  if (t.wraps() && (z / 4) % 2 == 1) {
    const std::vector<SidePiece> whole = pieces;
    const std::vector<Block> whole_blocks = blocks;
    std::vector<std::vector<std::size_t>> split = plan_rounds(true);
    if (split.size() < rounds.size()) {
      rounds = std::move(split);
    } else {
      pieces = whole;
      blocks = whole_blocks;
    }
  }
  bool first_round = true;
  for (const std::vector<std::size_t>& round : rounds) {
    std::vector<Worm> worms;
    for (const std::size_t k : round)
      for (const Transfer& mx : pieces[blocks[k].h].moves)
        for (const Transfer& my : pieces[blocks[k].v].moves) {
          const std::uint64_t from = t.node(mx.from, my.from), to = t.node(mx.to, my.to);
          worms.push_back(Worm{from, to, {{to, out + from}}, mx.dir, my.dir});
        }
    std::function<BlockPairs(std::uint64_t)> own;  // the node's own packet, in the very first cycle
    if (first_round) own = [out](std::uint64_t node) { return BlockPairs{{node, out + node}}; };
    first_round = false;
    wormhole_round(s, worms, own, 2 * N, 1);
  }
}

// QEX on M(2^k, 2^k) (notes sec. 8): the mesh splits recursively into
// quarters, a phase a split. In the phase on quarters of side h the four
// nodes p, p ^ X, p ^ Y, p ^ X ^ Y (X, Y: bit log2 h of the x and y
// coordinates) are corners of a square; step s takes the nodes on the s-th
// wrapped diagonal of every quarter ((y - x) mod h = s: one a row and one a
// column of each quarter, so no two squares share a link) and exchanges in 3
// rounds: along X, along Y, across. As in SEX's memory form (digest sec. 1)
// node p sends to p ^ delta the N/4 packets at blocks q with (p ^ q) & (X | Y)
// = delta, which land at q ^ delta, and keeps the N/4 with none of those bits.
// The lost figure's diagonals are read as wrapped ones: 2^l steps a phase cover
// every node once, as the notes' step count requires.
void build_qex(GridSchedule& s) {
  const GridTopology& t = s.topology;
  const std::uint64_t N = t.nodes(), z = t.z1, quarter = N / 4;
  const unsigned k = log2_exact(z);
  // Phase f reads area f and writes area f + 1: the input, two scratch areas in turn, the output.
  const auto area = [&](unsigned f) { return f == 0 ? 0 : f == k ? N : (2 + (f - 1) % 2) * N; };
  s.node_blocks = 4 * N + 4 * quarter;
  for (unsigned f = 0; f < k; ++f) {
    const std::uint64_t h = z >> (f + 1), X = h, Y = h * z, mask = X | Y, from = area(f), to = area(f + 1);
    for (std::uint64_t step = 0; step < h; ++step)
      for (const std::uint64_t delta : {X, Y, X | Y}) {
        std::vector<Worm> worms;
        for (std::uint64_t p = 0; p < N; ++p) {
          if ((t.y_of(p) + h - t.x_of(p) % h) % h != step) continue;
          Worm w{p, p ^ delta, {}};
          for (std::uint64_t q = 0; q < N; ++q)
            if (((p ^ q) & mask) == delta) w.blocks.emplace_back(from + q, to + (q ^ delta));
          worms.push_back(std::move(w));
        }
        // The packets that stay, in the phase's first cycle.
        const std::function<BlockPairs(std::uint64_t)> kept =
            step == 0 && delta == X ? staying_packets(N, mask, from, to) : std::function<BlockPairs(std::uint64_t)>{};
        wormhole_round(s, worms, kept, 4 * N, quarter);
      }
  }
}

// The largest grid of t's shape whose plan fits, for the message that refuses t.
std::string largest_fitting(const GridTopology& t, ScatterAlgorithm a) {
  const bool ring_dex =
      (a == ScatterAlgorithm::dex && t.kind != GridKind::mesh) || a == ScatterAlgorithm::idex;  // z = 4t
  const bool pow2 = !ring_dex && (a == ScatterAlgorithm::dex || a == ScatterAlgorithm::bex || a == ScatterAlgorithm::qex);
  GridTopology g = t, best = t;
  bool found = false;
  for (std::uint64_t z = ring_dex ? 4 : 2; z <= kMaxGridSide; z = pow2 ? 2 * z : ring_dex ? z + 4 : z + 1) {
    g.z1 = z;
    g.z2 = t.kind == GridKind::ring ? 1 : z;
    if (scatter_plan_entries(g, a) > static_cast<double>(kMaxScatterPlanEntries)) break;
    best = g;
    found = true;
  }
  return found ? to_string(best) : std::string("none");
}

}  // namespace

GridSchedule make_grid_scatter(const GridTopology& t, ScatterAlgorithm a, std::uint64_t packet_words) {
  ScatterTopology st;
  st.grid = t;
  check_scatter_algorithm(st, a);
  if (packet_words < 1 || packet_words > kMaxPacketWords)
    throw Error(fmt::format("packets of {} words out of range: allowed 1..{}", packet_words, kMaxPacketWords));
  const double entries = scatter_plan_entries(t, a);
  if (entries > static_cast<double>(kMaxScatterPlanEntries))
    throw Error(fmt::format("{} on {}: its plan moves {:.0f} blocks, allowed at most {} (the largest {} it runs: {})",
                            to_string(a), to_string(t), entries, kMaxScatterPlanEntries,
                            t.kind == GridKind::ring ? "ring" : "square " + std::string(t.kind == GridKind::torus ? "torus" : "mesh"),
                            largest_fitting(t, a)));
  GridSchedule s;
  s.algorithm = to_string(a);
  s.topology = t;
  s.packet_words = packet_words;
  s.output_block = t.nodes();
  switch (a) {
    case ScatterAlgorithm::pipeline:
      s.rules = GridRules{PortModel::one_port, Duplex::half};
      build_ring_pipelines(s, false);
      break;
    case ScatterAlgorithm::bidirectional:
      s.rules = GridRules{PortModel::all_port, Duplex::full};
      build_ring_pipelines(s, true);
      break;
    case ScatterAlgorithm::product:
      s.rules = t.wraps() ? GridRules{PortModel::one_port, Duplex::half} : GridRules{PortModel::all_port, Duplex::full};
      build_product(s);
      break;
    case ScatterAlgorithm::dex:
    case ScatterAlgorithm::idex:
      s.rules = GridRules{PortModel::all_port, Duplex::full};
      s.switching = Switching::wormhole;
      s.one_port_rounds = a == ScatterAlgorithm::idex || t.kind != GridKind::mesh;
      if (t.kind == GridKind::ring)
        build_ring_dex(s);
      else if (a == ScatterAlgorithm::idex || t.kind == GridKind::torus)
        build_interleaved_dex(s);
      else
        build_dex(s);  // a mesh's binary DEX
      break;
    case ScatterAlgorithm::qex:
      s.rules = GridRules{PortModel::all_port, Duplex::full};
      s.switching = Switching::wormhole;
      s.one_port_rounds = true;
      build_qex(s);
      break;
    case ScatterAlgorithm::bex:
      s.rules = GridRules{PortModel::all_port, Duplex::full};
      s.switching = Switching::wormhole;
      build_bex(s);
      break;
    case ScatterAlgorithm::sex: break;  // refused above
  }
  const double words = static_cast<double>(t.nodes()) * static_cast<double>(s.node_blocks) * static_cast<double>(packet_words);
  if (words > static_cast<double>(kMaxScatterWords))
    throw Error(fmt::format("{} on {} with packets of {} words holds {} nodes x {} words: allowed at most {} words in "
                            "all (packets of at most {} words here)",
                            to_string(a), to_string(t), packet_words, t.nodes(), s.words_per_node(), kMaxScatterWords,
                            std::max<std::uint64_t>(1, kMaxScatterWords / (t.nodes() * s.node_blocks))));
  for (std::size_t c = 0; c < s.cycles.size(); ++c) check_grid_cycle(t, s.node_blocks, s.cycles[c], s.rules, c);
  return s;
}

ScatterCost scatter_cost(const GridSchedule& s) {
  ScatterCost cost;
  cost.rounds = cost.startups = s.rounds();
  cost.cycles = s.cycles.size();
  std::size_t c = 0;
  for (const std::size_t end : s.round_ends) {
    std::uint64_t largest = 0;
    const std::size_t first = c;
    for (; c < end; ++c) {
      const GridCycleUse use = check_grid_cycle(s.topology, s.node_blocks, s.cycles[c], s.rules, c);
      largest = std::max(largest, use.max_message);
      cost.element_hops += use.link_blocks;
    }
    cost.element_units += largest;
    if (s.switching == Switching::wormhole) cost.hop_units += end - first;
  }
  return cost;
}

std::optional<ScatterFormula> scatter_formula(const GridTopology& t, ScatterAlgorithm a) {
  const std::uint64_t z1 = t.z1, z2 = t.z2, N = t.nodes();
  ScatterFormula f;
  switch (a) {
    case ScatterAlgorithm::pipeline:
      f.rounds = z1 - 1;
      f.element_units = z1 * (z1 - 1) / 2;
      f.text = "(t_s + mu t_m z/2)(z-1)";
      break;
    case ScatterAlgorithm::bidirectional: {
      const std::uint64_t r = z1 / 2;
      f.rounds = r;
      f.element_units = r * (r + 1) / 2;
      if (z1 % 2 == 1) {
        f.text = "sum_{i=1}^{(z-1)/2} (t_s + mu t_m ((z+1)/2 - i)) = t_s (z-1)/2 + mu t_m (z^2-1)/8 (the notes print "
                 "z^2/8)";
      } else {
        f.text = "hcube for even z: z/2 packets right, z/2-1 left: t_s z/2 + mu t_m z(z+2)/8";
        f.from_notes = false;
      }
      break;
    }
    case ScatterAlgorithm::product:
      f.rounds = (z1 - 1) + (z2 - 1);
      f.element_units = z2 * z1 * (z1 - 1) / 2 + z1 * z2 * (z2 - 1) / 2;
      if (!t.wraps()) {
        f.text = "hcube for a mesh (the notes: 'analogous ... similar'): both ways along each path at once, all-port, "
                 "full duplex, the torus's terms: t_s (z1+z2-2) + mu t_m z1 z2 (z1+z2-2)/2";
        f.from_notes = false;
      } else if (z1 == z2) {
        f.text = "(2 t_s + mu t_m z^2)(z-1)";
      } else {
        f.text = "hcube for z1 != z2: t_s (z1+z2-2) + mu t_m z1 z2 (z1+z2-2)/2";
        f.from_notes = false;
      }
      break;
    case ScatterAlgorithm::bex:
      f.rounds = (z1 - 1) + (z2 - 1);
      f.element_units = f.rounds * N / 2;
      f.hop_units = (z1 * z1 - 1) / 3 + (z2 * z2 - 1) / 3;
      f.text = "(z1+z2-2)(t_s + N/2 mu t_m) + ((z1^2-1) + (z2^2-1))/3 t_d; the notes print sqrt(N) t_s + 2N t_d/3 + "
               "N sqrt(N) mu t_m for z1 = z2, t_s's coefficient is 2 sqrt(N)";
      f.from_notes = false;
      break;
    case ScatterAlgorithm::idex: return std::nullopt;
    case ScatterAlgorithm::dex: {
      if (t.kind != GridKind::ring) return std::nullopt;
      // Notes sec. 12: 2t^2 rounds of one packet a message (the printed
      // "2[z/2]^2" is OCR damage: 2t^2 = z^2/8 is what the micro-permutations
      // count, 2t(t-1) of pi_1, pi_2 and 2t of pi_3, pi_4). t_d: each round's
      // longest path, from the quadrant positions a, b (hcube's).
      const std::uint64_t q = z1 / 4;
      if (q == 1) {
        f.rounds = 3;
        f.hop_units = 4;  // pi_3's two cycles of single hops, then pi_4's half-way paths
        f.text = "hcube for z = 4: the notes' 2t^2 needs t >= 2; pi_3 runs as two rounds, 3 = z - 1 in all";
        f.from_notes = false;
      } else {
        f.rounds = 2 * q * q;
        const auto longest = [q](std::uint64_t d) { return std::max(d, 2 * q - d); };
        for (std::uint64_t i = 0; i < q; ++i) {
          for (std::uint64_t j = 0; j < q; ++j)
            if (i != j) f.hop_units += longest(i > j ? i - j : j - i) + longest(i + j + 1);  // pi_1, pi_2
          f.hop_units += std::max(longest(2 * i + 1), longest(2 * ((i + 1) % q) + 1)) + 2 * q;  // pi_3, pi_4
        }
        f.text = "2t^2 = z^2/8 rounds, one packet a message (notes' lemma); t_d: each round's longest path (hcube's)";
      }
      f.element_units = f.rounds;
      break;
    }
    case ScatterAlgorithm::qex:
      // 3 rounds a micro-AAS, 2^l steps a phase (notes sec. 8): 3(z - 1) rounds of N/4 packets, paths h, h, 2h.
      f.rounds = 3 * (z1 - 1);
      f.element_units = f.rounds * N / 4;
      f.hop_units = 4 * (N - 1) / 3;
      f.text = "hcube's count of the notes' description: 3 rounds a micro-AAS, 2^l steps a phase on quarters of side "
               "2^l: 3(z-1)(t_s + N/4 mu t_m) + 4(N-1)/3 t_d";
      f.from_notes = false;
      break;
    case ScatterAlgorithm::sex: return std::nullopt;
  }
  f.startups = f.rounds;
  return f;
}

double bisection_bound(const GridTopology& t) {
  const std::uint64_t big = std::max(t.z1, t.z2), rest = std::min(t.z1, t.z2);
  const double cut = static_cast<double>(big / 2) * static_cast<double>((big + 1) / 2) * static_cast<double>(rest);
  return t.kind == GridKind::mesh ? cut : cut / 2;
}

bool interleaved_dex(const GridTopology& t, ScatterAlgorithm a) {
  return a == ScatterAlgorithm::idex || (a == ScatterAlgorithm::dex && t.kind == GridKind::torus);
}

double wormhole_cube_bound(unsigned d) { return (std::ldexp(1.0, static_cast<int>(d)) - 1) / 2; }

std::uint64_t max_congestion(const GridSchedule& s) {
  return s.congestion.empty() ? 0 : *std::max_element(s.congestion.begin(), s.congestion.end());
}

CubeScatterPlan make_cube_scatter(ScatterAlgorithm a, unsigned d, std::uint64_t mu) {
  ScatterTopology t;
  t.cube = true;
  t.d = d;
  check_scatter_algorithm(t, a);
  if (mu < 1 || mu > kMaxPacketWords || !power_of_two(mu))
    throw Error(fmt::format("packets of {} words on cube:{}: a node's memory is 2^m words, so packets are powers of "
                            "two, 1..{}",
                            mu, d, kMaxPacketWords));
  const unsigned m = d + log2_exact(mu);
  check_aapc_dimensions(d, d, m);
  const ExchangeBaseline b = a == ScatterAlgorithm::sex ? ExchangeBaseline::standard : ExchangeBaseline::direct;
  Schedule sch = make_exchange_baseline(b, d, d, m);
  ScheduleStats stats = check_schedule(sch);
  const Geometry geo{d, m};
  std::vector<unsigned> to_aapc(m), back(m);
  for (unsigned k = 0; k < m; ++k) {
    to_aapc[k] = k < m - d ? k + d : k - (m - d);
    back[to_aapc[k]] = k;
  }
  const AddressMap destination = [d, m](std::uint64_t g) {
    const std::uint64_t i = g >> m, local = g & low_mask(m), j = local >> (m - d), e = local & low_mask(m - d);
    return (j << m) | (i << (m - d)) | e;
  };
  return CubeScatterPlan{std::move(sch),
                         std::move(stats),
                         AffineMap::permute_bits(geo, to_aapc),
                         AffineMap::permute_bits(geo, back),
                         destination,
                         baseline_cost(b, d)};
}

// --- scatter schedules as data ----------------------------------------------------

std::vector<ScatterRoute> scatter_routes(const ScatterTopology& t, std::uint64_t src, std::uint64_t dst) {
  std::vector<ScatterRoute> routes;
  if (t.cube) {  // e-cube: the differing dimensions, lowest first
    ScatterRoute r;
    std::uint64_t at = src;
    for (unsigned k = 0; k < t.d; ++k)
      if (((at ^ dst) >> k) & 1) {
        r.links.push_back(t.d * at + k);
        at ^= std::uint64_t{1} << k;
      }
    routes.push_back(std::move(r));
    return routes;
  }
  // A mesh routes XY only; a ring or torus also winds either way round (as ring dex's worms do).
  const std::vector<int> dirs = t.grid.wraps() ? std::vector<int>{0, 1, -1} : std::vector<int>{0};
  for (const int dir : dirs) {
    ScatterRoute r{dir, {}};
    for (const Hop& h : xy_path(t.grid, src, dst, dir)) r.links.push_back(4 * h.node + direction_index(h));
    if (std::none_of(routes.begin(), routes.end(), [&](const ScatterRoute& o) { return o.links == r.links; }))
      routes.push_back(std::move(r));
  }
  return routes;
}

namespace {

std::uint64_t scatter_nodes(const ScatterTopology& t) { return t.cube ? std::uint64_t{1} << t.d : t.grid.nodes(); }

}  // namespace

void check_scatter_rounds(const ScatterRounds& s) {
  const std::uint64_t N = scatter_nodes(s.topology);
  if (N > kMaxScatterRoundNodes)
    throw Error(fmt::format("scatter schedule topology {}: {} nodes, allowed at most {}", to_string(s.topology), N,
                            kMaxScatterRoundNodes));
  std::vector<std::uint64_t> round_of(N * N, 0);  // per ordered pair: its round + 1
  for (std::size_t r = 0; r < s.rounds.size(); ++r) {
    // An empty round is a wasted one (and would hold none of the first cycle's own copies).
    if (s.rounds[r].empty()) throw Error(fmt::format("scatter schedule round {} is empty: allowed 1 .. {} packets", r, N * (N - 1)));
    std::vector<bool> link((s.topology.cube ? s.topology.d : 4) * N, false), sends(N, false), receives(N, false);
    for (const ScatterPacket& p : s.rounds[r]) {
      const auto where = [&] { return fmt::format("scatter schedule round {} packet {} -> {}", r, p.src, p.dst); };
      if (p.src >= N || p.dst >= N || p.src == p.dst)
        throw Error(fmt::format("{}: nodes out of range: allowed two distinct nodes 0 .. {}", where(), N - 1));
      const std::vector<ScatterRoute> routes = scatter_routes(s.topology, p.src, p.dst);
      const auto route = std::find_if(routes.begin(), routes.end(), [&](const ScatterRoute& x) { return x.dir == p.dir; });
      if (route == routes.end())
        throw Error(fmt::format("{}: dir {} not a route of {}: allowed {}", where(), p.dir, to_string(s.topology),
                                s.topology.cube || !s.topology.grid.wraps() ? "0" : "-1, 0, 1"));
      if (round_of[p.src * N + p.dst] != 0)
        throw Error(fmt::format("{}: sent twice (also in round {}): allowed once", where(), round_of[p.src * N + p.dst] - 1));
      round_of[p.src * N + p.dst] = r + 1;
      for (const std::uint64_t l : route->links) {
        if (link[l]) throw Error(fmt::format("{}: its link {} carries two packets: allowed one a round", where(), l));
        link[l] = true;
      }
      if (s.ports == PortModel::one_port && (sends[p.src] || receives[p.dst]))
        throw Error(fmt::format("{}: one-port allows each node one send and one receive a round", where()));
      sends[p.src] = receives[p.dst] = true;
    }
  }
  for (std::uint64_t a = 0; a < N; ++a)
    for (std::uint64_t b = 0; b < N; ++b)
      if (a != b && round_of[a * N + b] == 0)
        throw Error(fmt::format("scatter schedule: packet {} -> {} is never sent: allowed every pair once", a, b));
}

nlohmann::json to_json(const ScatterRounds& s) {
  nlohmann::json rounds = nlohmann::json::array();
  for (const std::vector<ScatterPacket>& r : s.rounds) {
    nlohmann::json round = nlohmann::json::array();
    for (const ScatterPacket& p : r) round.push_back({p.src, p.dst, p.dir});
    rounds.push_back(std::move(round));
  }
  return {{"format", "hcube-scatter/1"}, {"topology", to_string(s.topology)}, {"port_model", to_string(s.ports)},
          {"rounds", std::move(rounds)}};
}

ScatterRounds scatter_rounds_from_json(const nlohmann::json& j, const std::string& what) {
  const auto field = [&](const char* key) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(key)) throw Error(fmt::format("{}: \"{}\" missing: allowed a hcube-scatter/1 object", what, key));
    return j.at(key);
  };
  const nlohmann::json& format = field("format");
  if (!format.is_string() || format.get<std::string>() != "hcube-scatter/1")
    throw Error(fmt::format("{}: format {} unknown: allowed \"hcube-scatter/1\"", what, printable_input(format.dump())));
  const auto text = [&](const char* key) {
    const nlohmann::json& v = field(key);
    if (!v.is_string()) throw Error(fmt::format("{}: {} {} is not a string", what, key, printable_input(v.dump())));
    return v.get<std::string>();
  };
  ScatterRounds s;
  try {
    s.topology = parse_scatter_topology(text("topology"));
    s.ports = parse_port_model(text("port_model"));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", what, e.what()));
  }
  const nlohmann::json& rounds = field("rounds");
  if (!rounds.is_array()) throw Error(fmt::format("{}: rounds is not an array: allowed [[[src, dst, dir], ...], ...]", what));
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    if (!rounds[r].is_array()) throw Error(fmt::format("{}: round {} is not an array of [src, dst, dir]", what, r));
    std::vector<ScatterPacket>& out = s.rounds.emplace_back();
    for (const nlohmann::json& p : rounds[r]) {
      if (!p.is_array() || p.size() != 3 || !p[0].is_number_unsigned() || !p[1].is_number_unsigned() ||
          !p[2].is_number_integer() || p[2].get<long long>() < -1 || p[2].get<long long>() > 1)
        throw Error(fmt::format("{}: round {} packet {}: allowed [src, dst, dir] with nodes >= 0 and dir -1, 0 or 1", what,
                                r, printable_input(p.dump())));
      out.push_back({p[0].get<std::uint64_t>(), p[1].get<std::uint64_t>(), p[2].get<int>()});
    }
  }
  try {
    check_scatter_rounds(s);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", what, e.what()));
  }
  return s;
}

void save_scatter_rounds(const std::string& path, const ScatterRounds& s) {
  write_text_atomically(path, to_json(s).dump() + "\n", "scatter schedule file " + path);
}

ScatterRounds load_scatter_rounds(const std::string& path) {
  // 64 nodes' 4032 packets of a few bytes each: a file past this is no scatter schedule.
  constexpr std::size_t kMaxBytes = std::size_t{1} << 20;
  InputFile file(path, "scatter schedule file " + path);
  std::string text;
  char buf[4096];
  for (std::size_t got; (got = file.read_some(buf, sizeof buf)) != 0;) {
    text.append(buf, got);
    if (text.size() > kMaxBytes)
      throw Error(fmt::format("scatter schedule file {}: more than {} bytes: allowed at most that", path, kMaxBytes));
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw Error(fmt::format("scatter schedule file {}: not JSON", path));
  return scatter_rounds_from_json(j, path);
}

GridSchedule grid_scatter_from_rounds(const ScatterRounds& r) {
  if (r.topology.cube)
    throw Error(fmt::format("scatter schedule on {}: the wormhole rounds run on grids: allowed ring, torus, mesh",
                            to_string(r.topology)));
  check_scatter_rounds(r);
  GridSchedule s;
  s.algorithm = "sat";
  s.topology = r.topology.grid;
  s.output_block = r.topology.grid.nodes();
  s.rules = GridRules{PortModel::all_port, Duplex::full};
  s.switching = Switching::wormhole;
  s.one_port_rounds = r.ports == PortModel::one_port;
  const std::uint64_t N = s.topology.nodes(), out = N;
  s.node_blocks = 2 * N + 4;  // input, output, one transit slot per incoming direction (as dex)
  for (std::size_t k = 0; k < r.rounds.size(); ++k) {
    std::vector<Worm> worms;
    for (const ScatterPacket& p : r.rounds[k]) worms.push_back(Worm{p.src, p.dst, {{p.dst, out + p.src}}, p.dir});
    std::function<BlockPairs(std::uint64_t)> own;  // the node's own packet, in the very first cycle
    if (k == 0) own = [out](std::uint64_t node) { return BlockPairs{{node, out + node}}; };
    wormhole_round(s, worms, own, 2 * N, 1);
    if (!s.one_port_rounds) s.congestion.push_back(1);  // wormhole_round refuses a shared link
  }
  for (std::size_t c = 0; c < s.cycles.size(); ++c) check_grid_cycle(s.topology, s.node_blocks, s.cycles[c], s.rules, c);
  return s;
}

CubeScatterSchedule cube_scatter_from_rounds(const ScatterRounds& r, std::uint64_t packet_words) {
  if (!r.topology.cube)
    throw Error(fmt::format("scatter schedule on {}: the cube's wormhole rounds run on cube:d only",
                            to_string(r.topology)));
  check_scatter_rounds(r);
  const unsigned d = r.topology.d;
  const std::uint64_t N = bit(d), out = N, transit = 2 * N;
  CubeScatterSchedule s;
  s.d = d;
  s.packet_words = packet_words;
  s.node_blocks = 2 * N + d;
  // One block a message: its (sender block, receiver block).
  const auto add = [&](BlockRouteStep& step, std::uint64_t from_node, std::uint64_t to_node, std::uint64_t from,
                       std::uint64_t to) {
    step.messages.push_back(BlockMessage{from_node, to_node, step.from.size(), 1, 1});
    step.from.push_back(from);
    step.to.push_back(to);
  };
  for (std::size_t k = 0; k < r.rounds.size(); ++k) {
    std::vector<std::vector<unsigned>> routes;  // e-cube: the differing dimensions, lowest first
    std::size_t length = 0;
    for (const ScatterPacket& p : r.rounds[k]) {
      routes.emplace_back();
      for (unsigned b = 0; b < d; ++b)
        if (((p.src ^ p.dst) >> b) & 1) routes.back().push_back(b);
      length = std::max(length, routes.back().size());
    }
    for (std::size_t hop = 0; hop < length; ++hop) {
      std::vector<BlockRouteStep> by_dim(d);
      for (std::size_t i = 0; i < routes.size(); ++i) {
        const std::vector<unsigned>& route = routes[i];
        if (hop >= route.size()) continue;
        const ScatterPacket& p = r.rounds[k][i];
        std::uint64_t at = p.src;
        for (std::size_t h = 0; h < hop; ++h) at ^= bit(route[h]);
        const unsigned dim = route[hop];
        add(by_dim[dim], at, at ^ bit(dim), hop == 0 ? p.dst : transit + route[hop - 1],
            hop + 1 == route.size() ? out + p.src : transit + dim);
      }
      std::vector<BlockRouteStep> cycle;
      if (k == 0 && hop == 0) {
        cycle.emplace_back();
        for (std::uint64_t v = 0; v < N; ++v) add(cycle.back(), v, v, v, out + v);
      }
      for (BlockRouteStep& step : by_dim)
        if (!step.messages.empty()) cycle.push_back(std::move(step));
      for (BlockRouteStep& step : cycle) step.block_words = packet_words;
      s.cycles.push_back(std::move(cycle));
    }
    s.round_ends.push_back(s.cycles.size());
  }
  return s;
}

}  // namespace hcube

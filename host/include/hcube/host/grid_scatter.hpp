// The all-to-all scatter on the NEWS grid (lecture notes, digest sec. 2-5, 7,
// 11-12): every node holds one packet of mu words for every node; after the
// scatter node j holds, at position i, the packet node i had for it.
//
// Each plan is a list of grid routing cycles (host/grid.hpp) on nodes whose
// memories hold, in blocks of mu words: the input (blocks 0..N-1, block j the
// packet for node j), the output (blocks N..2N-1, block i the packet from node
// i), and the buffers the algorithm needs (packets in transit, intermediate
// areas). The input is only read, except by BEX, which passes its areas on.
//
//   pipeline       T(z), one-port, half duplex, combining, store and forward:
//                  node s sends right the packets for s+1..s+z-1; round k
//                  forwards z-k of them. z-1 rounds, (t_s + mu t_m z/2)(z-1).
//   bidirectional  T(z), all-port, full duplex: the same both ways, ceil((z-1)/2)
//                  packets right and floor((z-1)/2) left; floor(z/2) rounds.
//   product        T(z1, z2): a pipeline along every row (z2 packets for each
//                  destination column), then along every column (z1 packets a
//                  destination): (z1-1)+(z2-1) rounds; T(z,z): (2 t_s + mu t_m z^2)(z-1).
//                  On M(z1, z2) both ways along each path at once (all-port,
//                  full duplex): the same rounds and messages.
//   dex            M(2^a, 2^b), wormhole, non-combining: permutation p -> p xor t
//                  for t = 1..N-1 with XY routing, each split into as many
//                  contention-free rounds as its worst link congestion.
//   dex (ring)     T(z), z = 4t, wormhole, one-port, non-combining (notes
//                  sec. 12): one micro-permutation a round on mirror-image
//                  quadruples, pi_1, pi_2 per ordered pair of quadrant-I
//                  nodes, pi_3, pi_4 per node; 2t^2 contention-free rounds.
//   idex           T(z, z), M(z, z), z = 4t, wormhole, one-port, non-combining
//                  (dex on a torus): blocks pairing a row piece of the cycle
//                  DEX with a column piece, XY routed, packed into rounds with
//                  no shared sender, receiver or directed link.
//   qex            M(2^k, 2^k), wormhole, combining (notes sec. 8): phases on
//                  quarters of side 2^l = 2^(k-1)..1, each 2^l steps of
//                  3-round micro-AAS among the four corners; 3(2^k - 1) rounds.
//   bex            M(2^a, 2^b), wormhole, combining: SEX on the mesh's binary
//                  addresses, halving alternately in X and Y from the top bit;
//                  the phase on bit j of an axis is 2^j contention-free rounds
//                  of paths 2^j long.
// A wormhole round runs as store-and-forward hops, one cycle a hop, the packets
// in transit kept in a slot per incoming direction; it is costed as one round.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hcube/host/affine_map.hpp"
#include "hcube/host/exchange_baselines.hpp"
#include "hcube/host/grid.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/host/router_step.hpp"

namespace hcube {

enum class ScatterAlgorithm { pipeline, bidirectional, product, dex, bex, sex, qex, idex };
ScatterAlgorithm parse_scatter_algorithm(const std::string& s);
std::string to_string(ScatterAlgorithm a);
std::string scatter_algorithm_names();  // "pipeline, bidirectional, product, dex, bex, sex, qex, idex"

// --topology: a grid, or the cube of d dimensions ("cube:d").
struct ScatterTopology {
  bool cube = false;
  unsigned d = 0;     // cube:d
  GridTopology grid;  // otherwise
};
ScatterTopology parse_scatter_topology(const std::string& text);
std::string to_string(const ScatterTopology& t);

// The algorithms a topology runs, for messages and help.
std::string scatter_algorithms_for(const ScatterTopology& t);
// Throws hcube::Error, naming what is allowed, unless `a` runs on `t` (pipeline
// and bidirectional on rings, dex on rings of z = 4t, product on tori and meshes, dex
// and bex on meshes with sides powers of two, qex on square ones, idex on
// square tori and meshes of z = 4t, dex on such tori, sex and dex on cubes).
void check_scatter_algorithm(const ScatterTopology& t, ScatterAlgorithm a);

enum class Switching { store_and_forward, wormhole };
std::string to_string(Switching s);

struct GridSchedule {
  std::string algorithm;
  GridTopology topology;
  std::uint64_t packet_words = 1;  // mu: a block
  std::uint64_t node_blocks = 0;   // each node's memory, in blocks
  std::uint64_t output_block = 0;  // the output area's first block (N)
  GridRules rules;
  Switching switching = Switching::store_and_forward;
  std::vector<GridCycle> cycles;
  // Round r is cycles [round_ends[r-1], round_ends[r]) (from 0 for r = 0):
  // one cycle a store-and-forward round, one a hop for a wormhole round.
  std::vector<std::size_t> round_ends;
  // dex: each permutation's worst link congestion under XY routing, before it
  // is split into contention-free rounds (t = 1..N-1).
  // dex on a ring, qex: each round's most messages on one directed link, counted
  // from the round's worm paths (1: contention-free).
  std::vector<std::uint64_t> congestion;
  // The notes' one-port wormhole model (ring dex, qex): per round each node
  // injects at most one message and consumes at most one, checked by the
  // planner; the hop cycles that emulate a round pass packets through routers
  // under `rules` (all-port).
  bool one_port_rounds = false;

  std::uint64_t words_per_node() const { return node_blocks * packet_words; }
  std::size_t rounds() const { return round_ends.size(); }
  std::size_t round_of(std::size_t cycle) const;
};

// Entries (blocks moved, over links or within nodes) the plan of `a` on `t`
// holds, from closed forms, so that a plan too large is refused before it is
// built; and the most hcube builds.
double scatter_plan_entries(const GridTopology& t, ScatterAlgorithm a);
inline constexpr std::uint64_t kMaxScatterPlanEntries = std::uint64_t{1} << 22;
inline constexpr std::uint64_t kMaxPacketWords = std::uint64_t{1} << 24;
// The words of all nodes' memories (input, output and buffers): a run holds a
// few host copies of them besides the machine.
inline constexpr std::uint64_t kMaxScatterWords = std::uint64_t{1} << 26;

// Throws hcube::Error for an algorithm the topology does not run, mu = 0 or
// too large, a plan larger than kMaxScatterPlanEntries (naming the largest
// grid of that shape that fits) or memories larger than kMaxScatterWords;
// then the plan, every cycle checked.
GridSchedule make_grid_scatter(const GridTopology& t, ScatterAlgorithm a, std::uint64_t packet_words);

// The notes' cost model: t = startups t_s + element_units mu t_m + hop_units t_d.
struct ScatterCost {
  std::uint64_t rounds = 0;
  std::uint64_t startups = 0;
  std::uint64_t element_units = 0;  // per round, the largest message in packets
  std::uint64_t hop_units = 0;      // per wormhole round, its longest path (0 for store and forward)
  std::uint64_t cycles = 0;
  std::uint64_t element_hops = 0;   // packets times links crossed, over the whole run
};
// What the plan does, counted from its checked cycles.
ScatterCost scatter_cost(const GridSchedule& s);

// The notes' formula for the same terms, where they give one; `from_notes`
// false where hcube derived it (bidirectional for even z, product on a mesh
// or unequal sides, bex, qex, dex on ring:4). None where the notes give no formula (dex on a mesh).
struct ScatterFormula {
  std::uint64_t rounds = 0, startups = 0, element_units = 0, hop_units = 0;
  std::string text;  // the formula, e.g. "(t_s + mu t_m z/2)(z-1)"
  bool from_notes = true;
};
std::optional<ScatterFormula> scatter_formula(const GridTopology& t, ScatterAlgorithm a);

// The bisection lower bound on the mu t_m term (notes, sec. 4): for T(z1, z2)
// with z1 >= z2, (1/2) floor(z1/2) ceil(z1/2) z2 (a ring: z2 = 1); a mesh has
// one cut instead of two, so its bound is twice that (derived "similarly").
double bisection_bound(const GridTopology& t);

// The wormhole hypercube's lower bound on the mu t_m term (notes, digest sec.
// 6): N(N-1) packets over n/2 links on average, on n N arcs: (2^d - 1)/2.
double wormhole_cube_bound(unsigned d);

// The interleaved DEX: idex on T(z, z) or M(z, z), and dex on a torus (the
// only DEX there). Its runs also report the one-port bound, N - 1 rounds.
bool interleaved_dex(const GridTopology& t, ScatterAlgorithm a);

// dex: the worst congestion of any of its permutations, max(z1, z2)/2 in the
// notes; ring dex and qex: of any round (1).
std::uint64_t max_congestion(const GridSchedule& s);

// The scatter on cube:d by the notes' SEX or DEX (host/exchange_baselines.hpp),
// on d node bits and m = d + log2(mu) memory bits, packet j held in words
// j mu .. j mu + mu - 1: the AAPC pairs the node bits with the low d memory
// bits, so the memory bits rotate before (f) and back after (g), folded into
// its alignments. `destination` is the definition, word e of node i's packet
// j to word e of node j's packet i. Throws hcube::Error for mu not a power
// of two, or sizes the AAPC does not take.
struct CubeScatterPlan {
  Schedule schedule;
  ScheduleStats stats;
  AffineMap f, g;
  AddressMap destination;
  BaselineCost cost;
};
CubeScatterPlan make_cube_scatter(ScatterAlgorithm a, unsigned d, std::uint64_t packet_words);

// --- scatter schedules as data (hcube synthesize scatter, hcube scatter --schedule) ---

// A direct, non-combining packet: node src's packet for dst, routed as hcube's
// wormhole rounds route (xy_path: X then Y; on a ring or torus `dir` +1 or -1
// winds that way round, 0 takes the coordinates' order; on the cube dimension
// order, lowest first, dir 0).
struct ScatterPacket {
  std::uint64_t src = 0, dst = 0;
  int dir = 0;
};
// The file "hcube-scatter/1": the topology, the port model and the rounds.
// A directed link carries at most one packet a round; one-port: each node
// also sends at most one and receives at most one.
struct ScatterRounds {
  ScatterTopology topology;
  PortModel ports = PortModel::one_port;
  std::vector<std::vector<ScatterPacket>> rounds;
};
// The packets the model lets src's packet for dst take: per dir allowed, its
// directed links (grid: 4 node + 2 dim + [dir > 0]; cube: d node + dim), the
// distinct routes only.
struct ScatterRoute {
  int dir = 0;
  std::vector<std::uint64_t> links;
};
std::vector<ScatterRoute> scatter_routes(const ScatterTopology& t, std::uint64_t src, std::uint64_t dst);
// The most nodes a scatter schedule file (and hcube synthesize scatter) takes.
inline constexpr std::uint64_t kMaxScatterRoundNodes = 64;
// Throws hcube::Error, one line naming the value and its range, unless every
// ordered pair of distinct nodes goes exactly once, on a route of the model,
// with no link (and one-port: no sender or receiver) used twice in a round.
void check_scatter_rounds(const ScatterRounds& s);
nlohmann::json to_json(const ScatterRounds& s);
ScatterRounds scatter_rounds_from_json(const nlohmann::json& j, const std::string& what);
void save_scatter_rounds(const std::string& path, const ScatterRounds& s);
ScatterRounds load_scatter_rounds(const std::string& path);  // checked
// The rounds on a grid as wormhole rounds (the planners' machinery), every
// cycle checked: hcube scatter --schedule runs and verifies it.
GridSchedule grid_scatter_from_rounds(const ScatterRounds& s);

// The rounds on cube:d as wormhole rounds of the cube machine. A node's memory is N input
// blocks of mu words (its packet for node j at block j), N output blocks (from node i at
// N + i) and one transit block a dimension it receives on (2N + k). Hop cycle h of a round
// moves every packet with more than h dimensions to go one dimension along its e-cube route:
// a block router step a dimension (one launch each, as a node reads one transit block while
// it writes another), and in the first cycle the nodes' own packets copied in a step of
// their own.
struct CubeScatterSchedule {
  unsigned d = 0;
  std::uint64_t packet_words = 1;
  std::uint64_t node_blocks = 0;  // 2N + d
  std::vector<std::vector<BlockRouteStep>> cycles;
  std::vector<std::size_t> round_ends;  // as GridSchedule's
};
CubeScatterSchedule cube_scatter_from_rounds(const ScatterRounds& s, std::uint64_t packet_words);

}  // namespace hcube

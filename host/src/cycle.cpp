#include "hcube/host/cycle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <sstream>

#include "hcube/host/affine_map.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

std::string to_string(PortModel p) { return p == PortModel::all_port ? "all" : "one"; }

PortModel parse_port_model(const std::string& s) {
  if (s == "all" || s == "all-port") return PortModel::all_port;
  if (s == "one" || s == "one-port") return PortModel::one_port;
  throw Error(fmt::format("port model '{}' unknown: allowed all, one", printable_input(s)));
}

std::string to_string(const Exchange& e) {
  const std::string map = e.offset_map ? fmt::format(", map {}", e.offset_map) : "";
  if (e.addr == e.peer_addr) return fmt::format("{{dim {}, addr {}{}}}", e.dim, e.addr, map);
  return fmt::format("{{dim {}, addr {}, peer_addr {}{}}}", e.dim, e.addr, e.peer_addr, map);
}

std::vector<std::uint64_t> offset_tables(const OffsetMaps& maps, unsigned& bytes) {
  std::vector<std::uint64_t> all;
  bytes = 0;
  for (const NodeOffsetMap& m : maps) {
    const std::vector<std::uint64_t> t = byte_tables(m, bytes);
    all.insert(all.end(), t.begin(), t.end());
  }
  return all;
}

std::uint64_t apply_offset(const NodeOffsetMap& map, std::uint64_t node) {
  std::uint64_t r = 0;
  for (unsigned k = 0; k < map.size(); ++k)
    if (test_bit(node, k)) r ^= map[k];
  return r;
}

void check_offset_maps(const Geometry& geo, const OffsetMaps& maps) {
  for (std::size_t i = 0; i < maps.size(); ++i) {
    if (maps[i].size() != geo.n)
      throw Error(fmt::format("offset map {} has {} columns: expected n = {}", i + 1, maps[i].size(), geo.n));
    for (unsigned k = 0; k < geo.n; ++k)
      if (maps[i][k] >= geo.words_per_node())
        throw Error(fmt::format("offset map {} column {} = {} out of range: allowed 0..{}", i + 1, k, maps[i][k],
                                geo.words_per_node() - 1));
  }
}

namespace {

// Is there a node j with bits k1 = b1, k2 = b2 and M j = v (M by columns)?
bool solvable(const NodeOffsetMap& M, unsigned k1, bool b1, unsigned k2, bool b2, std::uint64_t v) {
  std::vector<std::uint64_t> free_cols;
  for (unsigned k = 0; k < M.size(); ++k) {
    if (k == k1 || k == k2) continue;
    free_cols.push_back(M[k]);
  }
  if (b1 && k1 < M.size()) v ^= M[k1];
  if (b2 && k2 < M.size() && k2 != k1) v ^= M[k2];
  const unsigned rank = gf2_rank(free_cols);
  free_cols.push_back(v);
  return gf2_rank(free_cols) == rank;
}

// Do exchanges x and y touch one word on some node? Node j touches
// (bit dim of j ? peer_addr : addr) xor L(j) for each exchange.
bool clash(const Exchange& x, const Exchange& y, const OffsetMaps& maps, unsigned n) {
  NodeOffsetMap M(n, 0);
  for (const Exchange* e : {&x, &y})
    if (e->offset_map)
      for (unsigned k = 0; k < n; ++k) M[k] ^= maps[e->offset_map - 1][k];
  for (int bx = 0; bx < 2; ++bx)
    for (int by = 0; by < 2; ++by) {
      if (x.dim == y.dim && bx != by) continue;
      const std::uint64_t v = (bx ? x.peer_addr : x.addr) ^ (by ? y.peer_addr : y.addr);
      if (solvable(M, x.dim, bx != 0, y.dim, by != 0, v)) return true;
    }
  return false;
}

}  // namespace

std::optional<CycleViolation> find_violation(const Geometry& geo, const Cycle& cycle, const PortRules& rules,
                                             const OffsetMaps& maps) {
  const std::uint64_t K = geo.words_per_node();
  if (rules.channel_width == 0) return CycleViolation{0, "channel width 0: allowed at least 1"};
  std::map<std::uint32_t, unsigned> per_dim;
  // Which exchange holds a local address, on which side of its dimension.
  struct Use {
    std::size_t entry;
    std::uint32_t dim;
    int side;  // 0: nodes with bit dim clear, 1: set, 2: both (direct exchange)
  };
  // Keyed by (offset map, address): exchanges under one map touch one word on
  // a node exactly when direct ones would (the node's offset is added to both),
  // so only exchanges under different maps need the exact test.
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<Use>> uses;
  // Exchanges under different maps can only meet where their addresses agree
  // outside the bits some map's columns touch: indexed by that part, so the
  // exact test runs on those alone (A1' parts: one map each, thousands a cycle).
  std::uint64_t varying = 0;
  for (const NodeOffsetMap& m : maps)
    for (std::uint64_t col : m) varying |= col;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_fixed_bits;
  for (std::size_t e = 0; e < cycle.size(); ++e) {
    const Exchange& x = cycle[e];
    if (x.dim >= geo.n)
      return CycleViolation{e, fmt::format("dim {} out of range: {}", x.dim, allowed_indices(geo.n, "n"))};
    if (x.addr >= K) return CycleViolation{e, fmt::format("addr {} out of range: allowed 0..{}", x.addr, K - 1)};
    if (x.peer_addr >= K)
      return CycleViolation{e, fmt::format("peer_addr {} out of range: allowed 0..{}", x.peer_addr, K - 1)};
    if (rules.model == PortModel::one_port && x.dim != cycle.front().dim)
      return CycleViolation{e, fmt::format("one-port cycle uses dim {} after dim {}: one dimension per cycle", x.dim,
                                           cycle.front().dim)};
    if (++per_dim[x.dim] > rules.channel_width)
      return CycleViolation{e, fmt::format("dim {} carries {} exchanges: channel width allows {}", x.dim,
                                           per_dim[x.dim], rules.channel_width)};
    if (x.offset_map > maps.size())
      return CycleViolation{e, fmt::format("offset map {} undefined: the schedule has {}", x.offset_map, maps.size())};
    // Node-dependent addresses under another map: tested exactly.
    const std::uint64_t keys[2] = {x.addr & ~varying, x.peer_addr & ~varying};
    std::vector<std::size_t> near = by_fixed_bits[keys[0]];
    if (keys[1] != keys[0]) {
      const auto& more = by_fixed_bits[keys[1]];
      near.insert(near.end(), more.begin(), more.end());
      std::sort(near.begin(), near.end());
    }
    for (const std::size_t f : near)
      if (cycle[f].offset_map != x.offset_map && clash(cycle[f], x, maps, geo.n))
        return CycleViolation{e, fmt::format("a local word is also used by exchange {} {} on some node", f,
                                             to_string(cycle[f]))};
    by_fixed_bits[keys[0]].push_back(e);
    if (keys[1] != keys[0]) by_fixed_bits[keys[1]].push_back(e);
    const std::pair<std::uint64_t, int> touched[2] = {{x.addr, x.addr == x.peer_addr ? 2 : 0}, {x.peer_addr, 1}};
    for (int s = 0; s < (x.addr == x.peer_addr ? 1 : 2); ++s) {
      const auto [addr, side] = touched[s];
      for (const Use& u : uses[{x.offset_map, addr}]) {
        // Two uses of one address meet on some node unless they sit on
        // opposite sides of the same dimension.
        const bool disjoint = u.dim == x.dim && u.side != 2 && side != 2 && u.side != side;
        if (!disjoint)
          return CycleViolation{e, fmt::format("local word {}{} already used by exchange {} {}", addr,
                                               x.offset_map ? fmt::format(" (xor map {}'s node offset)", x.offset_map)
                                                            : std::string(),
                                               u.entry,
                                               to_string(cycle[u.entry]))};
      }
      uses[{x.offset_map, addr}].push_back(Use{e, x.dim, side});
    }
  }
  return std::nullopt;
}

void check_cycle(const Geometry& geo, const Cycle& cycle, const PortRules& rules, std::size_t index,
                 const OffsetMaps& maps) {
  if (auto v = find_violation(geo, cycle, rules, maps)) {
    const std::string which = v->entry < cycle.size() ? " " + to_string(cycle[v->entry]) : std::string();
    throw Error(fmt::format("cycle {}, exchange {}{}: {}", index, v->entry, which, v->reason));
  }
}

Exchange parse_exchange(const std::string& text) {
  const std::vector<std::uint64_t> f = parse_uint_fields(text, ':', "exchange");
  if (f.size() != 2 && f.size() != 3)
    throw Error(fmt::format("exchange '{}' malformed: expected dim:addr or dim:addr:peer_addr", printable_input(text)));
  if (f[0] > 63)
    throw Error(fmt::format("exchange '{}': dim {} out of range: allowed 0..63", printable_input(text), f[0]));
  return Exchange{static_cast<std::uint32_t>(f[0]), f[1], f.size() == 3 ? f[2] : f[1]};
}

Cycle half_memory_cycle(const Geometry& geo, PortRules& rules) {
  Cycle c;
  std::uint64_t width = 1;
  for (unsigned k = 0; k < geo.n; ++k) {
    std::uint64_t on_k = 0;
    for (std::uint64_t a = k; a < geo.words_per_node() / 2; a += geo.n, ++on_k) c.push_back(direct_exchange(k, a));
    width = std::max(width, on_k);
  }
  rules.model = PortModel::all_port;
  rules.channel_width = static_cast<unsigned>(width);
  return c;
}

Cycle parse_cycle(const std::string& text) {
  Cycle c;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) c.push_back(parse_exchange(item));
  if (c.empty())
    throw Error(fmt::format("cycle '{}' is empty: expected dim:addr[,dim:addr...]", printable_input(text)));
  return c;
}

CycleUse cycle_use(const Geometry& geo, const Exchange* exchanges, std::size_t count) {
  std::uint64_t dims = 0;
  for (std::size_t e = 0; e < count; ++e) dims |= bit(exchanges[e].dim);
  CycleUse u;
  u.dims_used = popcount(dims);
  // Every exchange swaps one word each way over all 2^(n-1) links of its dimension.
  u.element_hops = count * geo.nodes();
  u.links_used = u.dims_used * geo.nodes();
  return u;
}

}  // namespace hcube

#include "hcube/host/cycle.hpp"

#include <fmt/format.h>

#include <map>
#include <sstream>

#include "hcube/host/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

std::string to_string(PortModel p) { return p == PortModel::all_port ? "all" : "one"; }

PortModel parse_port_model(const std::string& s) {
  if (s == "all" || s == "all-port") return PortModel::all_port;
  if (s == "one" || s == "one-port") return PortModel::one_port;
  throw Error(fmt::format("port model '{}' unknown: allowed all, one", s));
}

std::string to_string(const Exchange& e) {
  if (e.addr == e.peer_addr) return fmt::format("{{dim {}, addr {}}}", e.dim, e.addr);
  return fmt::format("{{dim {}, addr {}, peer_addr {}}}", e.dim, e.addr, e.peer_addr);
}

std::optional<CycleViolation> find_violation(const Geometry& geo, const Cycle& cycle, const PortRules& rules) {
  const std::uint64_t K = geo.words_per_node();
  if (rules.channel_width == 0) return CycleViolation{0, "channel width 0: allowed at least 1"};
  std::map<std::uint32_t, unsigned> per_dim;
  // Which exchange holds a local address, on which side of its dimension.
  struct Use {
    std::size_t entry;
    std::uint32_t dim;
    int side;  // 0: nodes with bit dim clear, 1: set, 2: both (direct exchange)
  };
  std::map<std::uint64_t, std::vector<Use>> uses;
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
    const std::pair<std::uint64_t, int> touched[2] = {{x.addr, x.addr == x.peer_addr ? 2 : 0}, {x.peer_addr, 1}};
    for (int s = 0; s < (x.addr == x.peer_addr ? 1 : 2); ++s) {
      const auto [addr, side] = touched[s];
      for (const Use& u : uses[addr]) {
        // Two uses of one address meet on some node unless they sit on
        // opposite sides of the same dimension.
        const bool disjoint = u.dim == x.dim && u.side != 2 && side != 2 && u.side != side;
        if (!disjoint)
          return CycleViolation{e, fmt::format("local word {} already used by exchange {} {}", addr, u.entry,
                                               to_string(cycle[u.entry]))};
      }
      uses[addr].push_back(Use{e, x.dim, side});
    }
  }
  return std::nullopt;
}

void check_cycle(const Geometry& geo, const Cycle& cycle, const PortRules& rules, std::size_t index) {
  if (auto v = find_violation(geo, cycle, rules)) {
    const std::string which = v->entry < cycle.size() ? " " + to_string(cycle[v->entry]) : std::string();
    throw Error(fmt::format("cycle {}, exchange {}{}: {}", index, v->entry, which, v->reason));
  }
}

Exchange parse_exchange(const std::string& text) {
  const std::vector<std::uint64_t> f = parse_uint_fields(text, ':', "exchange");
  if (f.size() != 2 && f.size() != 3)
    throw Error(fmt::format("exchange '{}' malformed: expected dim:addr or dim:addr:peer_addr", text));
  if (f[0] > 63) throw Error(fmt::format("exchange '{}': dim {} out of range: allowed 0..63", text, f[0]));
  return Exchange{static_cast<std::uint32_t>(f[0]), f[1], f.size() == 3 ? f[2] : f[1]};
}

Cycle parse_cycle(const std::string& text) {
  Cycle c;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) c.push_back(parse_exchange(item));
  if (c.empty()) throw Error(fmt::format("cycle '{}' is empty: expected dim:addr[,dim:addr...]", text));
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

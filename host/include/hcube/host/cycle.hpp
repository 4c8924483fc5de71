// One synchronous routing cycle: a set of exchanges run by one kernel launch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hcube/core/exchange.hpp"
#include "hcube/host/geometry.hpp"

namespace hcube {

// A linear map over GF(2) from node addresses to memory addresses: column k
// is what node bit k adds (n columns, each below K).
using NodeOffsetMap = std::vector<std::uint64_t>;


using Cycle = std::vector<Exchange>;
using OffsetMaps = std::vector<NodeOffsetMap>;

// L(j) for an offset map.
std::uint64_t apply_offset(const NodeOffsetMap& map, std::uint64_t node);
// Every map's byte tables (byte_tables), one block of `bytes` x 256 entries a
// map, `bytes` the most any map needs: how a backend stages a cycle's maps.
std::vector<std::uint64_t> offset_tables(const OffsetMaps& maps, unsigned& bytes);

enum class PortModel {
  all_port,  // every dimension may carry up to b exchanges in one cycle
  one_port,  // one dimension per cycle, up to b exchanges on it
};

struct PortRules {
  PortModel model = PortModel::all_port;
  unsigned channel_width = 1;  // b: exchanges one dimension may carry per cycle
};

std::string to_string(PortModel p);
PortModel parse_port_model(const std::string& s);  // "all" | "one"; throws hcube::Error

// What is wrong with a cycle: the offending entry and a one-line reason.
struct CycleViolation {
  std::size_t entry = 0;
  std::string reason;
};

// The first rule the cycle breaks, or nothing when it is legal: dimensions
// and addresses in range, channel width and port model respected, and no
// local word taking part in two exchanges on any node. Exchanges with offset
// maps are checked exactly: two exchanges clash iff a linear system over
// GF(2) for the node address has a solution.
std::optional<CycleViolation> find_violation(const Geometry& geo, const Cycle& cycle, const PortRules& rules,
                                             const OffsetMaps& maps = {});

// Throws hcube::Error "cycle <index>, exchange <entry> ...: <reason>".
void check_cycle(const Geometry& geo, const Cycle& cycle, const PortRules& rules, std::size_t index = 0,
                 const OffsetMaps& maps = {});

// Throws hcube::Error unless every map has n columns below K.
void check_offset_maps(const Geometry& geo, const OffsetMaps& maps);

std::string to_string(const Exchange& e);

// Parses "dim:addr" or "dim:addr:peer_addr"; throws hcube::Error naming the text.
Exchange parse_exchange(const std::string& text);
// Parses a comma-separated list of exchanges.
Cycle parse_cycle(const std::string& text);

// The widest direct-addressed all-port cycle: dimension k exchanges the local
// addresses a < K/2 with a mod n = k, so half of every node's words cross a
// link (a block transfer of sec. 5). `rules` becomes all-port with the
// channel width that needs, ceil(K / 2n).
Cycle half_memory_cycle(const Geometry& geo, PortRules& rules);

// Counts of one cycle as the papers count them.
struct CycleUse {
  std::uint64_t element_hops = 0;   // words that cross a link
  std::uint64_t links_used = 0;     // directed links (of n * 2^n) that carry a word
  std::uint64_t dims_used = 0;
};
CycleUse cycle_use(const Geometry& geo, const Exchange* exchanges, std::size_t count);
inline CycleUse cycle_use(const Geometry& geo, const Cycle& cycle) { return cycle_use(geo, cycle.data(), cycle.size()); }

}  // namespace hcube

#include "hcube/host/schedule.hpp"
#include "hcube/host/schedule_json.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <istream>
#include <limits>
#include <sstream>
#include <streambuf>
#include <unordered_set>

#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/host/aapc_build.hpp"
#include "hcube/host/bit_permutation_tiling.hpp"
#include "hcube/host/system/host_memory.hpp"
#include "hcube/host/io/input_file.hpp"

namespace hcube {

std::string to_string(AlignmentKind k) {
  switch (k) {
    case AlignmentKind::none: return "none";
    case AlignmentKind::xor_align: return "xor-align";
    case AlignmentKind::concurrent: return "concurrent";
  }
  return "none";
}

AlignmentKind parse_alignment_kind(const std::string& s) {
  if (s == "none") return AlignmentKind::none;
  if (s == "xor-align") return AlignmentKind::xor_align;
  if (s == "concurrent") return AlignmentKind::concurrent;
  throw Error(fmt::format("alignment '{}' unknown: allowed xor-align, concurrent, none", printable_input(s)));
}

std::vector<unsigned> Schedule::axis_widths() const {
  return axis_dims.empty() ? std::vector<unsigned>(axes, d) : axis_dims;
}

void Schedule::reserve(std::size_t cycles, std::size_t exchanges) {
  offsets_.reserve(cycles + 1);
  exchanges_.reserve(exchanges);
}

Schedule Schedule::header() const {
  Schedule h;
  h.algorithm = algorithm;
  h.d = d;
  h.n = n;
  h.m = m;
  h.rules = rules;
  h.pre = pre;
  h.post = post;
  h.blocked = blocked;
  h.lines = lines;
  h.axes = axes;
  h.axis_dims = axis_dims;
  h.axis_order = axis_order;
  h.rotated_rows = rotated_rows;
  h.rotated_by_bit = rotated_by_bit;
  h.offset_maps = offset_maps;
  h.perm = perm;
  return h;
}

Schedule Schedule::cycles_between(std::size_t first, std::size_t last) const {
  Schedule part = header();
  part.pre = part.post = AlignmentKind::none;
  part.offset_maps.clear();
  std::vector<std::uint32_t> renumber(offset_maps.size() + 1, 0);
  for (std::size_t c = first; c < last; ++c) {
    for (std::size_t e = 0; e < cycle_size(c); ++e) {
      Exchange x = cycle_begin(c)[e];
      if (x.offset_map != 0 && renumber[x.offset_map] == 0) {
        part.offset_maps.push_back(offset_maps.at(x.offset_map - 1));
        renumber[x.offset_map] = static_cast<std::uint32_t>(part.offset_maps.size());
      }
      x.offset_map = renumber[x.offset_map];
      part.add(x);
    }
    part.end_cycle();
  }
  return part;
}

void Schedule::repeat_with_high_bits(unsigned shift, std::uint64_t copies) {
  const std::size_t cycles0 = cycles(), exchanges0 = exchanges_.size();
  reserve(cycles0 * copies, exchanges0 * copies);
  for (std::uint64_t h = 1; h < copies; ++h) {
    for (std::size_t e = 0; e < exchanges0; ++e) {
      Exchange x = exchanges_[e];
      x.addr |= h << shift;
      x.peer_addr |= h << shift;
      exchanges_.push_back(x);
    }
    for (std::size_t c = 1; c <= cycles0; ++c) offsets_.push_back(offsets_[c] + h * exchanges0);
  }
}

namespace {

void check_shape(const Schedule& s) {
  if (s.d < 1) throw Error(fmt::format("schedule d = {} out of range: allowed d >= 1", s.d));
  if (s.d > s.n) throw Error(fmt::format("schedule d = {} exceeds its processor dimensions n = {}: allowed d <= n", s.d, s.n));
  if (s.d > s.m) throw Error(fmt::format("schedule d = {} exceeds its memory dimensions m = {}: allowed d <= m", s.d, s.m));
  if (s.n + s.m > kMaxAddressBits)
    throw Error(fmt::format("schedule n + m = {} out of range: allowed at most {}", s.n + s.m, kMaxAddressBits));
  if (s.rules.channel_width < 1) throw Error("schedule channel width 0: allowed at least 1");
  if (s.axes < 1 || (s.axis_dims.empty() && s.axes * s.d > s.n))
    throw Error(fmt::format("schedule has {} axes of d = {} bits on n = {} processor dimensions: allowed 1..{} axes",
                            s.axes, s.d, s.n, s.n / s.d));
  if (!s.axis_dims.empty()) {
    std::uint64_t bits = 0;
    for (unsigned w : s.axis_dims) bits += w;
    if (bits > s.n)
      throw Error(fmt::format("schedule axes of orders {} need {} processor dimensions: n = {}",
                              fmt::join(s.axis_dims, ","), bits, s.n));
    if (s.axis_dims.size() != s.axes)
      throw Error(fmt::format("schedule lists {} axis orders for {} axes: counts must match", s.axis_dims.size(),
                              s.axes));
    for (unsigned w : s.axis_dims)
      if (w < 1 || w > s.d)
        throw Error(fmt::format("schedule axis order {} out of range: allowed 1..d = {}", w, s.d));
  }
  if (!s.axis_order.empty()) {
    std::vector<bool> seen(s.axes, false);
    if (s.axis_order.size() != s.axes)
      throw Error(fmt::format("schedule lists {} axes in axis_order for {} axes: expected a permutation of 0..{}",
                              s.axis_order.size(), s.axes, s.axes - 1));
    for (unsigned u : s.axis_order) {
      if (u >= s.axes || seen[u])
        throw Error(fmt::format("schedule axis_order {}: expected a permutation of 0..{}",
                                fmt::join(s.axis_order, ","), s.axes - 1));
      seen[u] = true;
    }
  }
  if (s.pre != AlignmentKind::concurrent && s.post != AlignmentKind::concurrent && s.rotated_rows != 0)
    throw Error(fmt::format("schedule rotated_rows = {} applies to concurrent alignments only: with pre = {} and "
                            "post = {}, allowed 0 (or left out)",
                            s.rotated_rows, to_string(s.pre), to_string(s.post)));
  if (s.pre == AlignmentKind::concurrent || s.post == AlignmentKind::concurrent) {
    if (s.m < 2 * s.d)
      throw Error(fmt::format("concurrent alignment needs a spare memory axis: m = {} below 2d = {}", s.m, 2 * s.d));
    const std::uint64_t rows = bit(s.m - s.d - 1);
    if (s.rotated_rows > rows)
      throw Error(fmt::format("schedule rotated_rows = {} out of range: allowed 0..{}", s.rotated_rows, rows));
    if (s.rotated_by_bit && s.rotated_rows % s.d != 0)
      throw Error(fmt::format("schedule rotated_rows = {} with rotated_by_bit: allowed multiples of d = {} (a block "
                              "of rows a bit)",
                              s.rotated_rows, s.d));
  } else if (s.rotated_by_bit) {
    throw Error(fmt::format("schedule rotated_by_bit applies to concurrent alignments only: with pre = {} and post = "
                            "{}, allowed false (or left out)",
                            to_string(s.pre), to_string(s.post)));
  }
  check_offset_maps(s.geometry(), s.offset_maps);
  if (!s.perm.empty()) {
    if (s.perm.size() != s.n + s.m)
      throw Error(fmt::format("schedule perm lists {} bits: expected n + m = {} (bit 0 the lowest local address bit)",
                              s.perm.size(), s.n + s.m));
    check_bit_permutation(s.perm, "schedule perm");
  }
}

[[noreturn]] void fail_at(const Schedule& s, std::size_t c, std::size_t e, const std::string& why) {
  throw Error(fmt::format("cycle {}, exchange {} {}: {}", c, e, to_string(s.cycle_begin(c)[e]), why));
}

}  // namespace

bool uses_offset_maps(const Schedule& s) {
  if (s.offset_maps.empty()) return false;
  for (std::size_t c = 0; c < s.cycles(); ++c)
    for (std::size_t e = 0; e < s.cycle_size(c); ++e)
      if (s.cycle_begin(c)[e].offset_map != 0) return true;
  return false;
}

ScheduleStats check_schedule(const Schedule& s) {
  check_shape(s);
  const Geometry geo = s.geometry();
  const std::uint64_t K = geo.words_per_node();
  // A single AAPC without node-dependent addresses is checked for completeness
  // too; sequences are checked for legality here and against the reference
  // permutation when they run.
  const bool aapc = (s.pre == AlignmentKind::xor_align || s.post == AlignmentKind::xor_align) && s.axes == 1 &&
                    !uses_offset_maps(s) && s.perm.empty();
  const std::uint64_t rel_mask = low_mask(s.d);
  constexpr std::uint32_t kNever = std::numeric_limits<std::uint32_t>::max();

  ScheduleStats st;
  st.cycles = s.cycles();
  st.exchanges = s.exchanges();
  st.element_hops = st.exchanges * geo.nodes();
  st.exchanges_per_cycle.resize(s.cycles());
  // A small file may declare a huge m: the per-address records are made for
  // each of the K addresses only when that is cheap or the schedule is dense
  // (at least K/4 exchanges), else for each address its exchanges name. An AAPC crosses
  // every address a once in each dimension of its relative address,
  // sum_a popcount(a mod 2^d) = K d / 2 exchanges in all, so a sparse one is
  // incomplete before anything is made.
  const bool dense = K <= (std::uint64_t{1} << 16) || K / 4 <= st.exchanges;
  if (aapc && !dense)
    throw Error(fmt::format("schedule incomplete: an AAPC of d = {} on K = 2^{} words a node (m = {}) needs K d / 2 = {} "
                            "exchanges, the schedule holds {}",
                            s.d, geo.m, geo.m, K / 2 * s.d, st.exchanges));
  // A sparse schedule's records: the addresses its exchanges name, sorted.
  std::vector<std::uint64_t> named;
  if (!dense) {
    named.reserve(2 * st.exchanges);
    for (std::size_t c = 0; c < s.cycles(); ++c)
      for (std::size_t e = 0; e < s.cycle_size(c); ++e) {
        named.push_back(s.cycle_begin(c)[e].addr);
        named.push_back(s.cycle_begin(c)[e].peer_addr);
      }
    std::sort(named.begin(), named.end());
    named.erase(std::unique(named.begin(), named.end()), named.end());
  }
  const std::uint64_t slots = dense ? K : named.size();
  // Only for an address already checked to be below K.
  const auto slot = [&](std::uint64_t a) -> std::uint64_t {
    return dense ? a : static_cast<std::uint64_t>(std::lower_bound(named.begin(), named.end(), a) - named.begin());
  };
  check_host_memory(slots * (2 * sizeof(std::uint32_t) + (aapc ? 2 : 1) * sizeof(std::uint64_t)),
                    fmt::format("checking a schedule of m = {} (K = 2^{} words a node)", geo.m, geo.m));
  std::vector<std::uint32_t> first(slots, kNever), last(slots, 0);
  std::vector<std::uint64_t> crossed(aapc ? K : 0, 0);
  std::vector<std::uint64_t> used(slots, ~std::uint64_t{0});  // (cycle << 32 | entry) of the last use
  std::vector<unsigned> per_dim(geo.n, 0);

  for (std::size_t c = 0; c < s.cycles(); ++c) {
    const Exchange* ex = s.cycle_begin(c);
    const std::size_t size = s.cycle_size(c);
    st.exchanges_per_cycle[c] = static_cast<std::uint32_t>(size);
    bool direct = true;
    for (std::size_t e = 0; e < size; ++e) direct = direct && ex[e].addr == ex[e].peer_addr && ex[e].offset_map == 0;
    if (!direct) check_cycle(geo, s.cycle(c), s.rules, c, s.offset_maps);  // the general checker names any clash
    for (std::size_t e = 0; e < size; ++e) {
      const Exchange& x = ex[e];
      if (x.dim >= geo.n || x.addr >= K || x.peer_addr >= K) check_cycle(geo, s.cycle(c), s.rules, c, s.offset_maps);
      if (++per_dim[x.dim] > s.rules.channel_width ||
          (s.rules.model == PortModel::one_port && x.dim != ex[0].dim))
        check_cycle(geo, s.cycle(c), s.rules, c, s.offset_maps);
      const std::uint64_t at = slot(x.addr);
      if (direct) {
        if ((used[at] >> 32) == c) check_cycle(geo, s.cycle(c), s.rules, c, s.offset_maps);
        used[at] = (std::uint64_t{c} << 32) | e;
      }
      for (std::uint64_t i : {at, x.peer_addr == x.addr ? at : slot(x.peer_addr)}) {
        first[i] = std::min(first[i], static_cast<std::uint32_t>(c));
        last[i] = static_cast<std::uint32_t>(c);
      }
      if (!aapc) continue;
      if (!direct) fail_at(s, c, e, "an AAPC schedule runs direct exchanges only (peer_addr = addr)");
      if (x.dim >= s.d) fail_at(s, c, e, fmt::format("dim {} outside the AAPC's dimensions 0..{}", x.dim, s.d - 1));
      const std::uint64_t rel = x.addr & rel_mask;
      if (!test_bit(rel, x.dim))
        fail_at(s, c, e, fmt::format("address {} (relative address {}) must not cross dimension {}", x.addr, rel, x.dim));
      if (test_bit(crossed[x.addr], x.dim))
        fail_at(s, c, e, fmt::format("address {} crosses dimension {} a second time", x.addr, x.dim));
      crossed[x.addr] |= bit(x.dim);
    }
    for (std::size_t e = 0; e < size; ++e) per_dim[ex[e].dim] = 0;
  }
  if (aapc)
    for (std::uint64_t a = 0; a < K; ++a)
      if (crossed[a] != (a & rel_mask)) {
        const std::uint64_t missing = (a & rel_mask) & ~crossed[a];
        throw Error(fmt::format("schedule incomplete: address {} never crosses dimension {}", a,
                                static_cast<unsigned>(__builtin_ctzll(missing))));
      }

  st.min_span = std::numeric_limits<unsigned>::max();
  for (std::uint64_t i = 0; i < slots; ++i) {
    if (first[i] == kNever) continue;
    const unsigned span = last[i] - first[i] + 1;
    st.max_span = std::max(st.max_span, span);
    st.min_span = std::min(st.min_span, span);
  }
  if (st.max_span == 0) st.min_span = 0;

  // In transit: +w at an interval's first cycle, -w after its last (w = 2 for
  // a pair). An address is in transit from its first exchange to its last;
  // Table 6 counts the complement pairs scheduled together, so a pair counts
  // while either member is (over the gap, if any, between two members that
  // move at separate times, as Algorithm 2's wrapping pairs do, it does not).
  std::vector<std::int64_t> delta(s.cycles() + 1, 0);
  const auto count = [&](std::uint32_t f, std::uint32_t l, std::int64_t w) {
    delta[f] += w;
    delta[l + 1] -= w;
  };
  for (std::uint64_t a = 0; a < slots; ++a) {
    const std::uint64_t b = aapc ? a ^ rel_mask : a;  // an AAPC's records are dense: slot = address
    if (b < a) continue;
    const std::int64_t w = b == a ? 1 : 2;
    std::uint64_t x = a, y = b;  // x moves first (or alone)
    if (first[x] == kNever || (first[y] != kNever && first[y] < first[x])) std::swap(x, y);
    if (first[x] == kNever) continue;
    if (first[y] == kNever || last[x] + 1 >= first[y]) {
      count(first[x], first[y] == kNever ? last[x] : std::max(last[x], last[y]), w);
    } else {
      count(first[x], last[x], w);
      count(first[y], last[y], w);
    }
  }
  std::int64_t now = 0;
  st.min_in_transit = s.cycles() == 0 ? 0 : std::numeric_limits<std::uint64_t>::max();
  for (std::size_t c = 0; c < s.cycles(); ++c) {
    now += delta[c];
    st.min_in_transit = std::min(st.min_in_transit, static_cast<std::uint64_t>(now));
    st.max_in_transit = std::max(st.max_in_transit, static_cast<std::uint64_t>(now));
  }

  const double capacity = static_cast<double>(s.d) * s.rules.channel_width;
  double sum = 0;
  st.min_channel_use = s.cycles() == 0 ? 0 : 1e300;
  for (std::uint32_t n_ex : st.exchanges_per_cycle) {
    const double use = n_ex / capacity;
    sum += use;
    st.min_channel_use = std::min(st.min_channel_use, use);
  }
  st.mean_channel_use = s.cycles() == 0 ? 0 : sum / static_cast<double>(s.cycles());

  // Block transfers (sec. 5): cycle c joins block c mod T_max; an address moves
  // within T_max consecutive cycles, so it appears at most once per block.
  const std::uint64_t T = st.max_span;
  if (T > 0) {
    std::vector<std::uint32_t> load(T * geo.n, 0);
    for (std::size_t c = 0; c < s.cycles(); ++c)
      for (std::size_t e = 0; e < s.cycle_size(c); ++e) {
        const std::uint32_t v = ++load[(c % T) * geo.n + s.cycle_begin(c)[e].dim];
        st.max_block_size = std::max<std::uint64_t>(st.max_block_size, v);
      }
    st.block_transfers = std::min<std::uint64_t>(T, s.cycles());
  }
  return st;
}

nlohmann::ordered_json to_json(const Schedule& s) {
  nlohmann::ordered_json cycles = nlohmann::ordered_json::array();
  for (std::size_t c = 0; c < s.cycles(); ++c) {
    nlohmann::ordered_json cyc = nlohmann::ordered_json::array();
    for (std::size_t e = 0; e < s.cycle_size(c); ++e) {
      const Exchange& x = s.cycle_begin(c)[e];
      nlohmann::ordered_json j = {{"dim", x.dim}, {"addr", x.addr}};
      if (x.peer_addr != x.addr) j["peer_addr"] = x.peer_addr;
      if (x.offset_map != 0) j["map"] = x.offset_map;
      cyc.push_back(std::move(j));
    }
    cycles.push_back(std::move(cyc));
  }
  nlohmann::ordered_json j = {{"format", "hcube-schedule/1"},
                      {"algorithm", s.algorithm},
                      {"d", s.d},
                      {"n", s.n},
                      {"m", s.m},
                      {"channel_width", s.rules.channel_width},
                      {"port_model", to_string(s.rules.model)},
                      {"pre", to_string(s.pre)},
                      {"post", to_string(s.post)},
                      {"blocked", s.blocked}};
  if (!s.lines.empty()) j["lines"] = s.lines;
  if (s.axes != 1) j["axes"] = s.axes;
  if (!s.axis_dims.empty()) j["axis_dims"] = s.axis_dims;
  if (!s.axis_order.empty()) j["axis_order"] = s.axis_order;
  if (s.pre == AlignmentKind::concurrent || s.post == AlignmentKind::concurrent) j["rotated_rows"] = s.rotated_rows;
  if (s.rotated_by_bit) j["rotated_by_bit"] = true;
  if (!s.offset_maps.empty()) j["offset_maps"] = s.offset_maps;
  if (!s.perm.empty()) j["perm"] = s.perm;
  j["cycles"] = std::move(cycles);
  return j;
}

namespace {

std::uint64_t get_uint(const nlohmann::json& obj, const char* key, const std::string& where, bool required,
                       std::uint64_t fallback) {
  if (!obj.contains(key)) {
    if (required) throw Error(fmt::format("{}: '{}' is missing", where, key));
    return fallback;
  }
  const nlohmann::json& v = obj.at(key);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<long long>() >= 0))
    throw Error(fmt::format("{}: '{}' is {}, expected a non-negative integer", where, key, v.dump()));
  return v.get<std::uint64_t>();
}

std::string get_string(const nlohmann::json& obj, const char* key, const std::string& where, const char* fallback) {
  if (!obj.contains(key)) return fallback;
  if (!obj.at(key).is_string()) throw Error(fmt::format("{}: '{}' is {}, expected a string", where, key, obj.at(key).dump()));
  return obj.at(key).get<std::string>();
}

unsigned small(std::uint64_t v, const char* key, const std::string& where) {
  if (v > 64) throw Error(fmt::format("{}: '{}' = {} out of range: allowed 0..64", where, key, v));
  return static_cast<unsigned>(v);
}

}  // namespace

// Everything but the cycles, which stay for the caller to add; 'cycles' must be an array.
Schedule schedule_header_from_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object()) throw Error(fmt::format("{}: expected a JSON object with \"format\": \"hcube-schedule/1\"", what));
  const std::string format = get_string(j, "format", what, "");
  if (format != "hcube-schedule/1")
    throw Error(fmt::format("{}: format '{}' unknown: allowed hcube-schedule/1", what, printable_input(format)));
  static const char* const known[] = {"format", "algorithm", "d", "n", "m", "channel_width", "port_model", "pre",
                                      "post", "blocked", "lines", "axes", "axis_dims", "axis_order", "rotated_rows",
                                      "rotated_by_bit", "offset_maps", "perm", "cycles"};
  for (const auto& [key, value] : j.items())
    if (std::find(std::begin(known), std::end(known), key) == std::end(known))
      throw Error(fmt::format("{}: unknown field '{}' (a typo?): allowed format, algorithm, d, n, m, channel_width, "
                              "port_model, pre, post, blocked, lines, axes, axis_dims, axis_order, rotated_rows, "
                              "rotated_by_bit, offset_maps, perm, cycles",
                              what, printable_input(key)));
  Schedule s;
  s.algorithm = get_string(j, "algorithm", what, "custom");
  s.d = small(get_uint(j, "d", what, true, 0), "d", what);
  s.n = small(get_uint(j, "n", what, false, s.d), "n", what);
  s.m = small(get_uint(j, "m", what, false, s.d), "m", what);
  const std::uint64_t b = get_uint(j, "channel_width", what, false, 1);
  if (b < 1 || b > std::numeric_limits<unsigned>::max())
    throw Error(fmt::format("{}: 'channel_width' = {} out of range: allowed at least 1", what, b));
  s.rules.channel_width = static_cast<unsigned>(b);
  // The named values' errors name the file and the field, as the others do.
  const auto named = [&](const char* key, const char* fallback, auto parse) {
    const std::string value = get_string(j, key, what, fallback);
    try {
      return parse(value);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: '{}': {}", what, key, e.what()));
    }
  };
  s.rules.model = named("port_model", "all", parse_port_model);
  s.pre = named("pre", "xor-align", parse_alignment_kind);
  s.post = named("post", "xor-align", parse_alignment_kind);
  if (j.contains("blocked")) {
    if (!j["blocked"].is_boolean()) throw Error(fmt::format("{}: 'blocked' must be true or false", what));
    s.blocked = j["blocked"].get<bool>();
  }
  s.lines = get_string(j, "lines", what, "");
  s.axes = small(get_uint(j, "axes", what, false, 1), "axes", what);
  if (j.contains("axis_dims")) {
    if (!j["axis_dims"].is_array()) throw Error(fmt::format("{}: 'axis_dims' must be an array of axis orders", what));
    for (const nlohmann::json& w : j["axis_dims"]) {
      if (!w.is_number_unsigned() || w.get<std::uint64_t>() > 64)
        throw Error(fmt::format("{}: 'axis_dims' entry {} out of range: allowed 1..64", what, w.dump()));
      s.axis_dims.push_back(w.get<unsigned>());
    }
  }
  if (j.contains("axis_order")) {
    if (!j["axis_order"].is_array())
      throw Error(fmt::format("{}: 'axis_order' must be an array of axis numbers", what));
    for (const nlohmann::json& u : j["axis_order"]) {
      if (!u.is_number_unsigned() || u.get<std::uint64_t>() > 64)
        throw Error(fmt::format("{}: 'axis_order' entry {} out of range: allowed 0..axes-1", what, u.dump()));
      s.axis_order.push_back(u.get<unsigned>());
    }
  }
  s.rotated_rows = get_uint(j, "rotated_rows", what, false, 0);
  if (j.contains("rotated_by_bit")) {
    if (!j["rotated_by_bit"].is_boolean()) throw Error(fmt::format("{}: 'rotated_by_bit' must be true or false", what));
    s.rotated_by_bit = j["rotated_by_bit"].get<bool>();
  }
  if (j.contains("offset_maps")) {
    const nlohmann::json& maps = j["offset_maps"];
    if (!maps.is_array()) throw Error(fmt::format("{}: 'offset_maps' must be an array of arrays of columns", what));
    for (std::size_t i = 0; i < maps.size(); ++i) {
      if (!maps[i].is_array()) throw Error(fmt::format("{}: offset map {} is not an array of columns", what, i + 1));
      NodeOffsetMap m;
      for (const nlohmann::json& col : maps[i]) {
        if (!col.is_number_unsigned()) throw Error(fmt::format("{}: offset map {} has a column that is not a non-negative integer", what, i + 1));
        m.push_back(col.get<std::uint64_t>());
      }
      s.offset_maps.push_back(std::move(m));
    }
  }
  if (j.contains("perm")) {  // its length and that it is a permutation: check_shape
    if (!j["perm"].is_array())
      throw Error(fmt::format("{}: 'perm' must be an array of bit positions p0,...,p(n+m-1)", what));
    if (j["perm"].size() > kMaxAddressBits)
      throw Error(fmt::format("{}: 'perm' lists {} bits: allowed n + m, at most {}", what, j["perm"].size(),
                              kMaxAddressBits));
    for (const nlohmann::json& p : j["perm"]) {
      if (!p.is_number_unsigned() || p.get<std::uint64_t>() >= kMaxAddressBits)
        throw Error(fmt::format("{}: 'perm' entry {} out of range: allowed 0..n+m-1 (at most {})", what, p.dump(),
                                kMaxAddressBits - 1));
      s.perm.push_back(p.get<unsigned>());
    }
  }
  if (!j.contains("cycles") || !j["cycles"].is_array())
    throw Error(fmt::format("{}: 'cycles' is missing or not an array of cycles", what));
  return s;
}

namespace {

std::string entry_where(const std::string& what, std::size_t c, std::size_t e) {
  return fmt::format("{}: cycle {}, entry {}", what, c, e);
}

[[noreturn]] void fail_not_a_cycle(const std::string& what, std::size_t c) {
  throw Error(fmt::format("{}: cycle {} is not an array of exchanges", what, c));
}

[[noreturn]] void fail_not_an_exchange(const std::string& where) {
  throw Error(where + ": expected an object {\"dim\": k, \"addr\": a}");
}

// One entry of a cycle; its map is checked against the header's offset maps
// once the whole file is read (check_maps).
Exchange exchange_from_json(const nlohmann::json& x, const std::string& where) {
  if (!x.is_object()) fail_not_an_exchange(where);
  const std::uint64_t dim = get_uint(x, "dim", where, true, 0);
  if (dim > 63) throw Error(fmt::format("{}: 'dim' = {} out of range: allowed 0..63", where, dim));
  const std::uint64_t addr = get_uint(x, "addr", where, true, 0);
  const std::uint64_t map = get_uint(x, "map", where, false, 0);
  if (map > std::numeric_limits<std::uint32_t>::max())  // beyond any offset map; check_maps names the range
    throw Error(fmt::format("{}: 'map' = {} out of range: allowed 0 or an offset map's number", where, map));
  return Exchange{static_cast<std::uint32_t>(dim), addr, get_uint(x, "peer_addr", where, false, addr),
                  static_cast<std::uint32_t>(map)};
}

void check_maps(const Schedule& s, const std::string& what) {
  for (std::size_t c = 0; c < s.cycles(); ++c)
    for (std::size_t e = 0; e < s.cycle_size(c); ++e)
      if (s.cycle_begin(c)[e].offset_map > s.offset_maps.size())
        throw Error(fmt::format("{}: 'map' = {} out of range: allowed 0..{}", entry_where(what, c, e),
                                s.cycle_begin(c)[e].offset_map, s.offset_maps.size()));
}

}  // namespace

Schedule schedule_from_json(const nlohmann::json& j, const std::string& what) {
  Schedule s = schedule_header_from_json(j, what);
  const nlohmann::json& cycles = j["cycles"];
  for (std::size_t c = 0; c < cycles.size(); ++c) {
    if (!cycles[c].is_array()) fail_not_a_cycle(what, c);
    for (std::size_t e = 0; e < cycles[c].size(); ++e) s.add(exchange_from_json(cycles[c][e], entry_where(what, c, e)));
    s.end_cycle();
  }
  check_maps(s, what);
  return s;
}

namespace {

// What a schedule file may be: the most exchanges a schedule holds (the
// builders' limit, kMaxScheduleExchanges = 2^27, 3 GiB in memory) at up to
// 128 bytes each, the longest compact entry with room for spacing: 16 GiB.
constexpr std::uint64_t kMaxScheduleFileBytes = kMaxScheduleExchanges * 128;
// No value of the format is longer (a 64-bit number, a name): a longer string or number is no schedule.
constexpr std::uint64_t kMaxTokenBytes = 4096;
// The format nests four deep: {"cycles": [[{"dim": ...}]]}, {"offset_maps": [[...]]}.
constexpr int kMaxDepth = 4;

// The bytes of a file for the JSON parser, read as far as the parse goes:
// refused past kMaxScheduleFileBytes and at a string or bare token longer
// than kMaxTokenBytes (tracked here, as the parser holds a token whole before
// it looks at it: at most a buffer past it), each silence of a stream bounded
// by InputFile.
class BoundedJsonBuf : public std::streambuf {
 public:
  explicit BoundedJsonBuf(InputFile& file) : file_(file) {}

 protected:
  int_type underflow() override {
    // The parser took the last buffer whole without failing: a token too long in it is refused now
    // (not as it was read, so that bytes the parser refuses first, /dev/zero's, get its message).
    if (too_long_ != 0)
      throw Error(fmt::format("{}: a string or number of more than {} bytes at byte {}: no value of a schedule is "
                              "that long",
                              file_.path(), kMaxTokenBytes, too_long_));
    const std::size_t got = file_.read_some(buf_, sizeof buf_);
    if (got == 0) return traits_type::eof();
    if (read_ + got > kMaxScheduleFileBytes)
      throw Error(fmt::format("{}: more than {} bytes: a schedule file holds at most {} exchanges (the most hcube "
                              "builds) of at most 128 bytes each",
                              file_.path(), kMaxScheduleFileBytes, kMaxScheduleExchanges));
    for (std::size_t i = 0; i < got; ++i) track(buf_[i], read_ + i);
    read_ += got;
    setg(buf_, buf_, buf_ + got);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  void track(char c, std::uint64_t at) {
    if (in_string_) {
      if (escape_) escape_ = false;
      else if (c == '\\') escape_ = true;
      else if (c == '"') in_string_ = false;
    } else if (c == '"') {
      in_string_ = true;
      token_ = 0;
    }
    const bool separator = !in_string_ && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '{' ||
                                           c == '}' || c == '[' || c == ']' || c == ',' || c == ':' || c == '"');
    token_ = separator ? 0 : token_ + 1;
    if (token_ > kMaxTokenBytes && too_long_ == 0) too_long_ = at + 1 - kMaxTokenBytes;
  }

  InputFile& file_;
  char buf_[1 << 16];
  std::uint64_t read_ = 0, token_ = 0;
  std::uint64_t too_long_ = 0;  // where the first token too long began (1-based), 0: none yet
  bool in_string_ = false, escape_ = false;
};

// nlohmann's tree-building parser with one change: a number given to a key
// that is no unsigned integer (1e26, 2.0, 18446744073709551616) is refused
// with its text as written, which the tree would hold as a double and print
// as 1e+26. No field of a schedule holds a fraction.
class ScheduleSax : public nlohmann::detail::json_sax_dom_callback_parser<nlohmann::json> {
 public:
  using Base = nlohmann::detail::json_sax_dom_callback_parser<nlohmann::json>;
  // `where(depth)`: the place of a value at that depth (1: the header), for messages.
  ScheduleSax(nlohmann::json& tree, const nlohmann::json::parser_callback_t& on_event,
              std::function<std::string(std::size_t)> where)
      : Base(tree, on_event), where_(std::move(where)) {}
  bool start_object(std::size_t n) {
    in_object_.push_back(true);
    return Base::start_object(n);
  }
  bool end_object() {
    in_object_.pop_back();
    return Base::end_object();
  }
  bool start_array(std::size_t n) {
    in_object_.push_back(false);
    return Base::start_array(n);
  }
  bool end_array() {
    in_object_.pop_back();
    return Base::end_array();
  }
  bool key(std::string& k) {
    key_ = k;
    return Base::key(k);
  }
  bool number_float(double v, const std::string& text) {
    if (!in_object_.empty() && in_object_.back())
      throw Error(fmt::format("{}: '{}' is {}, expected a non-negative integer", where_(in_object_.size()),
                              printable_input(key_), printable_input(text)));
    return Base::number_float(v, text);
  }

 private:
  std::function<std::string(std::size_t)> where_;
  std::vector<bool> in_object_;  // per open container: an object (else an array)
  std::string key_;
};

// Parses one JSON document into a schedule, refusing text after it, a key
// repeated in an object (nlohmann keeps the last silently; each object's keys
// in a hash set) and nesting deeper than the format's. The cycles' exchanges
// go into the schedule as they are parsed, not into a JSON tree, so a file
// costs the schedule it holds. `input` is a string or a stream: a stream is
// read only as far as the parse goes, so garbage fails at once.
template <class Input>
Schedule parse_document(Input&& input, const std::string& what) {
  std::vector<std::unordered_set<std::string>> keys;  // the keys seen in each open object
  std::string top_key;                                // the root object's key being read
  bool root_object = false, cycles_array = false;
  Schedule cycles;  // the exchanges, as they come
  std::size_t entry = 0;
  const auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if ((event == E::object_start || event == E::array_start) && depth >= kMaxDepth)
      throw Error(fmt::format("{}: JSON nested deeper than a schedule's {} levels ({{\"cycles\": [[{{\"dim\": ...}}]]}})",
                              what, kMaxDepth));
    if (event == E::object_start) {
      keys.emplace_back();
      if (depth == 0) root_object = true;
    }
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty()) {
      std::string key = parsed.get<std::string>();
      if (!keys.back().insert(key).second)
        throw Error(fmt::format("{}: duplicate key \"{}\" in one object", what, printable_input(key)));
      if (depth == 1) top_key = std::move(key);
    }
    if (depth == 1 && event == E::array_start) cycles_array = root_object && top_key == "cycles";
    if (depth == 1 && event == E::object_start) cycles_array = false;
    if (!cycles_array || top_key != "cycles" || depth < 2) return true;
    // Inside "cycles": depth 2 a cycle, depth 3 an exchange.
    const std::size_t c = cycles.cycles();
    if (depth == 2) {
      if (event == E::array_start) entry = 0;
      if (event == E::value || event == E::object_start) fail_not_a_cycle(what, c);
      if (event != E::array_end) return true;
      cycles.end_cycle();
      return false;  // its exchanges are in `cycles`
    }
    if (depth == 3) {
      if (event == E::value || event == E::array_start) fail_not_an_exchange(entry_where(what, c, entry));
      if (event != E::object_end) return true;
      const std::uint64_t held = cycles.exchanges();
      if (held == kMaxScheduleExchanges)
        throw Error(fmt::format("{}: more than {} exchanges: allowed at most {} (the most hcube builds)", what,
                                kMaxScheduleExchanges, kMaxScheduleExchanges));
      if (held >= (std::uint64_t{1} << 20) && (held & (held - 1)) == 0)  // the list about to double
        check_host_memory(2 * held * sizeof(Exchange), fmt::format("{}: {} exchanges", what, 2 * held));
      cycles.add(exchange_from_json(parsed, entry_where(what, c, entry)));
      ++entry;
      return false;
    }
    return true;
  };
  nlohmann::json j;
  // An exchange is an object four deep: {"cycles": [[{...}]]}.
  ScheduleSax sax(j, callback, [&](std::size_t depth) {
    return depth == 4 && cycles_array ? entry_where(what, cycles.cycles(), entry) : what;
  });
  try {
    nlohmann::json::sax_parse(std::forward<Input>(input), &sax);  // strict: nothing but spaces may follow
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON at byte {}", what, e.byte));
  } catch (const nlohmann::json::exception& e) {
    // The parser reports a number too large for a double (1e999) as
    // out_of_range, not parse_error. Its message (the token escaped, one line)
    // after the "[json.exception.out_of_range.406] " prefix.
    const std::string why = e.what();
    const std::size_t end = why.find("] ");
    throw Error(fmt::format("{}: not valid JSON: {}", what,
                            why.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? why.substr(end + 2) : why));
  }
  Schedule s = schedule_header_from_json(j, what);
  s.take_cycles(std::move(cycles));
  check_maps(s, what);
  return s;
}

}  // namespace

Schedule parse_schedule(const std::string& text, const std::string& what) { return parse_document(text, what); }

Schedule load_schedule(const std::string& path, ScheduleStats* stats) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(fmt::format("cannot open schedule file {}: {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw Error(fmt::format("schedule file {} is a directory", path));
  // Read as the .npy reader reads: a FIFO or pipe in order, each silence bounded.
  InputFile file(path, "schedule file " + path);
  BoundedJsonBuf buf(file);
  std::istream in(&buf);
  Schedule s = parse_document(in, path);
  try {
    const ScheduleStats st_ = check_schedule(s);
    if (stats != nullptr) *stats = st_;
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  return s;
}

void save_schedule(const std::string& path, const Schedule& s) {
  write_text_atomically(path, to_json(s).dump() + "\n", "schedule file " + path);
}

}  // namespace hcube

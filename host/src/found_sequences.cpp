#include "found_sequences.hpp"

#include <fmt/format.h>

#include <string>
#include <map>
#include <numeric>

#include "hcube/core/error.hpp"
#include "hcube/host/embedded_file.hpp"
#include "hcube/host/schedule_json.hpp"

namespace hcube::found {

// The synthesizer's schedules (hcube synthesize multi-aapc, host/data/found/), built in.
extern const EmbeddedFile kFiles[];
extern const std::size_t kFileCount;

struct Sequence {
  std::vector<unsigned> widths;  // the axes' orders
  Schedule schedule;             // in Lemma 1's aligned frame
};

namespace {

// Each file read once, on first need, and checked as hcube run checks a schedule file.
const std::vector<Sequence>& found_sequences() {
  static const std::vector<Sequence> all = [] {
    std::vector<Sequence> v;
    for (std::size_t i = 0; i < kFileCount; ++i) {
      const std::string what = fmt::format("synthesized schedule {}", kFiles[i].name);
      Schedule s = schedule_from_json(nlohmann::json::parse(kFiles[i].text()), what);
      check_schedule(s);
      std::vector<unsigned> widths = s.axis_widths();
      v.push_back(Sequence{std::move(widths), std::move(s)});
    }
    return v;
  }();
  return all;
}

std::vector<unsigned> axis_offsets(const std::vector<unsigned>& widths) {
  std::vector<unsigned> offset(widths.size(), 0);
  for (std::size_t u = 1; u < widths.size(); ++u) offset[u] = offset[u - 1] + widths[u - 1];
  return offset;
}

}  // namespace

const Sequence* sequence(const std::vector<unsigned>& widths, unsigned m) {
  for (const Sequence& s : found_sequences())
    if (s.widths == widths && s.schedule.m == m) return &s;
  return nullptr;
}

std::size_t cycles(const Sequence& s) { return s.schedule.cycles(); }

void append(Schedule& seq, const Sequence& s, const std::vector<unsigned>& axes, const std::vector<unsigned>& widths) {
  const Schedule& found = s.schedule;
  if (axes.size() != s.widths.size() || seq.m != found.m)
    throw Error(fmt::format("internal: a found sequence of {} axes and m = {} placed on {} axes, m = {}",
                            s.widths.size(), found.m, axes.size(), seq.m));
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] >= widths.size() || widths[axes[i]] != s.widths[i])
      throw Error(fmt::format("internal: found axis {} of order {} placed on axis {}", i, s.widths[i], axes[i]));
  const std::vector<unsigned> to = axis_offsets(widths);
  const unsigned n = std::accumulate(widths.begin(), widths.end(), 0u);
  // Where each of the found cube's node bits lies on this cube.
  std::vector<unsigned> place;
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (unsigned b = 0; b < s.widths[i]; ++b) place.push_back(to[axes[i]] + b);
  std::map<NodeOffsetMap, std::uint32_t> index;  // identical maps shared
  for (std::size_t c = 0; c < found.cycles(); ++c) {
    for (std::size_t x = 0; x < found.cycle_size(c); ++x) {
      const Exchange& e = found.cycle_begin(c)[x];
      // Lemma 1's frame: bit b of every axis the block does not touch adds memory bit b.
      NodeOffsetMap map(n, 0);
      for (unsigned u = 0; u < widths.size(); ++u)
        for (unsigned b = 0; b < widths[u]; ++b) map[to[u] + b] = bit(b);
      for (std::size_t k = 0; k < place.size(); ++k)
        map[place[k]] = e.offset_map == 0 ? 0 : found.offset_maps[e.offset_map - 1][k];
      auto [it, fresh] = index.try_emplace(map, 0);
      if (fresh) {
        seq.offset_maps.push_back(map);
        it->second = static_cast<std::uint32_t>(seq.offset_maps.size());
      }
      seq.add(Exchange{place[e.dim], e.addr, e.peer_addr, it->second});
    }
    seq.end_cycle();
  }
}

}  // namespace hcube::found

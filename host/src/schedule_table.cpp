// A schedule as the papers print it: a row per routing cycle, the address
// each dimension carries (Johnsson & Ho 1992, Table 5), Algorithm 4's mixed
// block as Table 7 lays it out, and the counts beside the paper's.
#include "hcube/host/schedule_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "hcube/core/bits.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_build.hpp"
#include "hcube/host/necklace.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {
namespace {

// Addresses in binary (m bits, the low d the relative address) while that stays short.
std::string format_address(std::uint64_t a, unsigned m) {
  return m <= 12 ? fmt::format("{:0{}b}", a, std::max(1u, m)) : fmt::format("{}", a);
}

// Algorithm 4's mixed block in the layout of the paper's Table 7: a row per
// necklace member (member j the seed rotated by j) and one for the pairs, the
// dimension each crosses in the block's time steps ('-': idle).
std::string mixed_block_table(const Schedule& s) {
  const std::optional<Alg4MixedBlock> mb =
      alg4_mixed_block_of(s.d, s.lines.empty() ? LineDrawing::diagonal : parse_line_drawing(s.lines));
  if (!mb) return {};
  const unsigned d = s.d;
  const auto step_of = [&](std::uint64_t addr, unsigned t) {
    for (std::size_t e = 0; e < s.cycle_size(mb->first_cycle + t); ++e)
      if (s.cycle_begin(mb->first_cycle + t)[e].addr == addr) return std::to_string(s.cycle_begin(mb->first_cycle + t)[e].dim);
    return std::string("-");
  };
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  for (unsigned j = 0; j < d; ++j) {
    const std::uint64_t member = rotate_left(mb->seed, j, d);
    std::vector<std::string> cells;
    for (unsigned t = 0; t < d; ++t) cells.push_back(step_of(member, t));
    rows.emplace_back(format_address(member, s.m), std::move(cells));
  }
  for (const std::uint64_t low : mb->pair_lows) {
    const std::uint64_t high = low ^ low_mask(d);
    std::vector<std::string> cells;
    for (unsigned t = 0; t < d; ++t) {
      const std::string a = step_of(low, t);
      cells.push_back(a != "-" ? a : step_of(high, t));
    }
    rows.emplace_back(fmt::format("({},{})", format_address(low, s.m), format_address(high, s.m)), std::move(cells));
  }
  std::size_t w = 7;
  for (const auto& row : rows) w = std::max(w, row.first.size());
  std::string out = fmt::format("\nmixed block (cycles {}..{}, {} lines), by address as in the paper's Table 7:\n",
                                mb->first_cycle, mb->first_cycle + d - 1, s.lines.empty() ? "diagonal" : s.lines);
  out += fmt::format("{:<{}} | time step\n{:<{}} |", "address", w, "", w);
  for (unsigned t = 0; t < d; ++t) out += fmt::format(" {:>2}", t);
  out += "\n";
  for (const auto& [name, cells] : rows) {
    out += fmt::format("{:<{}} |", name, w);
    for (const std::string& c : cells) out += fmt::format(" {:>2}", c);
    out += "\n";
  }
  return out;
}

}  // namespace

// The paper's Table 5 layout: a row per cycle, the address each dimension carries.
std::string schedule_table(const Schedule& s, const ScheduleStats& st, bool all) {
  unsigned dims = s.d;
  for (std::size_t c = 0; c < s.cycles(); ++c)
    for (std::size_t e = 0; e < s.cycle_size(c); ++e) dims = std::max(dims, s.cycle_begin(c)[e].dim + 1);
  std::vector<std::size_t> rows;
  const bool cut = !all && s.cycles() > kTableAll;
  for (std::size_t c = 0; c < s.cycles(); ++c)
    if (!cut || c < kTableHead || c >= s.cycles() - kTableTail) rows.push_back(c);

  const auto cells_of = [&](std::size_t c) {
    std::vector<std::string> cells(dims);
    for (std::size_t e = 0; e < s.cycle_size(c); ++e) {
      const Exchange& x = s.cycle_begin(c)[e];
      std::string& cell = cells[x.dim];
      if (!cell.empty()) cell += ",";
      cell += format_address(x.addr, s.m);
      if (x.peer_addr != x.addr) cell += ":" + format_address(x.peer_addr, s.m);
    }
    for (std::string& cell : cells)
      if (cell.empty()) cell = "-";
    return cells;
  };
  const std::size_t cycle_w = std::max<std::size_t>(5, fmt::format("{}", s.cycles()).size());
  std::vector<std::size_t> width(dims);
  for (unsigned k = 0; k < dims; ++k) width[k] = fmt::format("dim {}", k).size();
  std::vector<std::vector<std::string>> table;
  for (std::size_t c : rows) {
    table.push_back(cells_of(c));
    for (unsigned k = 0; k < dims; ++k) width[k] = std::max(width[k], table.back()[k].size());
  }

  std::string out = describe_schedule(s) + "\n";
  out += fmt::format("pre-alignment: {}, post-alignment: {}; {}\n\n", to_string(s.pre), to_string(s.post),
                     s.m > 12     ? std::string("addresses in decimal")
                     : s.m == s.d ? std::string("addresses in binary")
                                  : fmt::format("addresses in binary, the low {} bits the relative address", s.d));
  out += fmt::format("{:>{}}", "cycle", cycle_w);
  for (unsigned k = 0; k < dims; ++k) out += fmt::format(" | {:>{}}", fmt::format("dim {}", k), width[k]);
  out += "\n" + std::string(cycle_w + 1, '-');
  for (unsigned k = 0; k < dims; ++k) out += "+" + std::string(width[k] + 2, '-');
  out += "\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (cut && r == kTableHead)
      out += fmt::format("{:>{}}   ... {} cycles omitted (--all shows them) ...\n", "", cycle_w,
                         s.cycles() - kTableHead - kTableTail);
    out += fmt::format("{:>{}}", rows[r], cycle_w);
    for (unsigned k = 0; k < dims; ++k) out += fmt::format(" | {:>{}}", table[r][k], width[k]);
    out += "\n";
  }

  // The summary, beside the paper's counts where they apply.
  const std::optional<CycleBound> bound = cycle_bound(s);
  const std::optional<AapcMethod> method = aapc_method_of(s);
  const bool plain = bound && !s.blocked && s.rules.channel_width == 1 && method && paper_algorithm(*method);
  if (plain && method == AapcMethod::alg4) out += mixed_block_table(s);
  const auto line = [](const char* what, const std::string& value, const std::string& paper,
                        const char* label = "paper") {
    return fmt::format("{:<16} {:>10}{}\n", what, value, paper.empty() ? "" : fmt::format("   {}: {}", label, paper));
  };
  out += "\n";
  out += line("cycles", std::to_string(st.cycles),
              bound ? fmt::format("{} ({})", bound->cycles, bound->source) : std::string(),
              bound && !bound->from_paper ? "bound" : "paper");
  out += line("exchanges", std::to_string(st.exchanges), "");
  out += line("max span", std::to_string(st.max_span),
              plain ? fmt::format("{} (Table 6, Theorem 1)", bound->paper.max_span) : std::string());
  out += fmt::format("{:<16} min {:.3f}, mean {:.3f} (exchanges per cycle / d b)\n", "channel use", st.min_channel_use,
                     st.mean_channel_use);
  out += line("block transfers", std::to_string(st.block_transfers),
              plain ? fmt::format("{} (Lemma 4)", bound->paper.block_transfers) : std::string());
  out += line("max block size", std::to_string(st.max_block_size),
              plain ? std::to_string(bound->paper.max_block_size) : std::string());
  // Table 6 gives the addresses in transit for Algorithms 1-3 (Algorithm 2 in
  // Table 5's pair order holds its d - 1 wrapped pairs throughout: docs/aapc.md).
  out += line("in transit", fmt::format("{} .. {}", st.min_in_transit, st.max_in_transit),
              plain && bound->paper.max_in_transit != 0
                  ? fmt::format("{} .. {} (Table 6)", bound->paper.min_in_transit, bound->paper.max_in_transit)
                  : std::string());
  return out;
}

}  // namespace hcube

// hcube schedule | aapc | run: one all-to-all personalized communication
// (Johnsson & Ho 1992) as a schedule of routing cycles, printed or saved
// (schedule), built and run (aapc), or loaded from a file and run (run). Every
// run is verified bit for bit against the permutation it realises, written
// straight from its formula.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "distributed.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_build.hpp"
#include "hcube/host/multi_aapc_plan.hpp"
#include "hcube/host/necklace.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/edelman.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/exchange_baselines.hpp"
#include "hcube/host/host_memory.hpp"
#include "hcube/host/parse.hpp"
#include "ranks.hpp"

namespace hcube::cli {
namespace {

constexpr long long kUnset = kUnsetSize;
// schedule --format table: longer schedules show their head and tail unless --all.
constexpr std::size_t kTableAll = 64, kTableHead = 32, kTableTail = 8;

// --- building a schedule -----------------------------------------------------

// The flags that choose a schedule (schedule, aapc).
struct ScheduleFlags {
  std::string algorithm = "4";
  long long d = kUnset;
  long long n = kUnset;  // unset: d
  long long m = kUnset;  // unset: d
  std::string width = "1";
  bool blocked = false;
  std::string lines = "diagonal";
  bool unaligned = false;  // Edelman's schedule with indirect addressing
};

void add_schedule_flags(CLI::App& cmd, ScheduleFlags& f) {
  choices(cmd.add_option("-a,--algorithm", f.algorithm,
                         "Johnsson & Ho's Algorithm 1, 2, 3 or 4 (4: K/2 cycles, every word within d consecutive "
                         "cycles), edelman (Edelman's optimal schedule table), or the baselines sex (standard "
                         "exchange, one-port, combining) and dex (direct exchange, e-cube)"),
          {"1", "2", "3", "4", "edelman", "sex", "dex"})
      ->capture_default_str();
  cmd.add_flag("--unaligned", f.unaligned,
               "edelman: no alignment, node k using location w xor k (indirect addressing, as on the CM-2) instead "
               "of the pre-alignment and direct addressing");
  cmd.add_option("-d,--dims", f.d, "AAPC dimensions d: 2^d nodes, each sending one word to every other")->required();
  cmd.add_option("-n,--nodes-dims", f.n,
                 "machine processor dimensions n >= d (default d): 2^(n-d) independent AAPCs in subcubes");
  cmd.add_option("-m,--mem-dims", f.m,
                 "machine memory dimensions m >= d (default d): K = 2^m words, the AAPC repeated 2^(m-d) times");
  cmd.add_option("-b,--channel-width", f.width,
                 "words a link carries per cycle: b >= 1, or cm2 (b = 2, the CM-2's two links per node pair)")
      ->capture_default_str();
  cmd.add_flag("--blocked", f.blocked,
               "group the cycles into block transfers (sec. 5): one cycle each, as wide as its largest block");
  choices(cmd.add_option("--lines", f.lines,
                         "Algorithm 4's line drawing: diagonal (hcube's closed form), type1 (the paper's, Table 7 "
                         "left) or greedy (type2, Table 7 right)"),
          {"diagonal", "type1", "greedy"})
      ->capture_default_str();
}

unsigned parse_channel_width(const std::string& text) {
  if (text == "cm2") return kCm2ChannelWidth;
  const std::uint64_t b = parse_uint(text, "--channel-width");
  check_channel_width(b);
  return static_cast<unsigned>(b);
}

// The flags as the library's request; every field is checked when it is built.
AapcRequest aapc_request(const ScheduleFlags& f) {
  AapcRequest r;
  r.method = parse_aapc_method(f.algorithm);
  r.d = f.d;
  if (f.n != kUnset) r.n = f.n;
  if (f.m != kUnset) r.m = f.m;
  r.channel_width = parse_channel_width(f.width);
  r.blocked = f.blocked;
  r.lines = parse_line_drawing(f.lines);
  r.unaligned = f.unaligned;
  return r;
}

// --- schedule --------------------------------------------------------------

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
  // Table 6 gives the addresses in transit for Algorithms 1-3; Algorithm 2's
  // most counts its d - 1 wrapped pairs as in transit throughout (docs/aapc.md).
  out += line("in transit", fmt::format("{} .. {}", st.min_in_transit, st.max_in_transit),
              plain && bound->paper.max_in_transit != 0
                  ? fmt::format("{} .. {} (Table 6)", bound->paper.min_in_transit, bound->paper.max_in_transit)
                  : std::string());
  return out;
}

// The fields aapc and run report, before machine_json's: the job's and the paper's count.
nlohmann::json aapc_json(const std::string& command, const Job& job, const Counters& counters, double seconds) {
  nlohmann::json j = job_json(command, job, counters, seconds);
  const std::optional<CycleBound> bound = cycle_bound(job.schedule);
  j["bound"] = bound ? nlohmann::json(bound->cycles) : nlohmann::json(nullptr);
  j["bound_source"] = bound ? nlohmann::json(bound->source) : nlohmann::json(nullptr);
  j["bound_from_paper"] = bound ? nlohmann::json(bound->from_paper) : nlohmann::json(nullptr);
  const std::optional<AapcMethod> method = aapc_method_of(job.schedule);
  if (method && is_baseline(*method)) {
    // The notes' cost: t = startups t_s + element_units mu t_m + hop_units t_d.
    const BaselineCost c = baseline_cost(parse_exchange_baseline(job.schedule.algorithm), job.schedule.d);
    j["rounds"] = c.rounds;
    j["model"] = {{"startups", c.startups}, {"element_units", c.element_units}, {"hop_units", c.hop_units}};
  }
  return j;
}

std::string job_summary(const Job& job, const Counters& counters, double seconds) {
  const Schedule& sch = job.schedule;
  const std::optional<CycleBound> bound = cycle_bound(sch);
  const std::uint64_t aligns = counters.alignments;
  return fmt::format(
      "{}{}\n{}: {}\n{} routing cycles{}, max span {}, channel use min {:.3f} mean {:.3f}, + {} alignment{} in {:.6f} "
      "s",
      bound ? "AAPC, " : "", describe_schedule(sch), job.permutation, job.formula, job.stats.cycles,
      !bound                ? std::string()
      : bound->from_paper ? fmt::format(" (paper: {})", bound->cycles)
                          : fmt::format(" (bound: {}, {})", bound->cycles, bound->source), job.stats.max_span, job.stats.min_channel_use,
      job.stats.mean_channel_use, aligns, aligns == 1 ? "" : "s", seconds);
}

}  // namespace

void add_schedule(CLI::App& app) {
  struct Flags {
    ScheduleFlags schedule;
    std::string format = "table";
    bool json = false;
    bool all = false;
    std::string output;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("schedule",
                                 "print or save an AAPC schedule (Johnsson & Ho): its routing cycles, checked, "
                                 "with its counts beside the paper's");
  add_schedule_flags(*cmd, f->schedule);
  CLI::Option* format_option =
      choices(cmd->add_option("--format", f->format, "table (the paper's Table 5 layout) or json (the schedule file)"),
              {"table", "json"})
          ->capture_default_str();
  cmd->add_flag("--json", f->json, "the same as --format json");
  cmd->add_flag("--all", f->all, fmt::format("print every cycle of a table longer than {}", kTableAll));
  output_flag(cmd->add_option("-o,--output", f->output, "write the schedule file (hcube-schedule/1, docs/schedule-format.md)"));
  cmd->callback([f, format_flag = format_option] {
    // Two flags that ask for different formats: neither wins silently.
    if (f->json && format_flag->count() > 0 && f->format != "json")
      throw Error(fmt::format("--json and --format {} disagree: --json is --format json; give one of them",
                              printable_input(f->format)));
    const std::string format = f->json ? "json" : f->format;
    if (format != "table" && format != "json")
      throw Error(fmt::format("format '{}' unknown: allowed table, json", format));
    const AapcRequest request = aapc_request(f->schedule);
    const AapcOptions o = check_aapc_request(request);
    const std::uint64_t exchanges = aapc_schedule_exchanges(o.d, o.m);
    const MemoryNeed tables = schedule_tables(exchanges, o.m);
    // The file or --format json is built as one JSON document: about 200 bytes an exchange (measured), 256 counted.
    const bool as_json = format == "json" || !f->output.empty();
    check_host_memory(tables.bytes + (as_json ? exchanges * 256 : 0),
                      fmt::format("hcube schedule --dims {} (m = {}): {}{}", o.d, o.m, tables.what,
                                  as_json ? " and its JSON" : ""));
    const BuiltSchedule b = build_aapc_schedule(request);
    const Schedule& s = b.schedule;
    if (!f->output.empty()) save_schedule(f->output, s);
    if (format == "table") {
      std::cout << schedule_table(s, b.stats, f->all);
      if (!f->output.empty()) fmt::print("wrote {}\n", printable_text(f->output));
    } else if (f->output.empty()) {
      std::cout << to_json(s).dump() << "\n";
    } else {
      // The file holds the schedule; stdout a one-line summary object.
      const nlohmann::json summary = {{"command", "schedule"},
                                      {"output", f->output},
                                      {"format", "hcube-schedule/1"},
                                      {"algorithm", s.algorithm},
                                      {"d", s.d},
                                      {"n", s.n},
                                      {"m", s.m},
                                      {"channel_width", s.rules.channel_width},
                                      {"blocked", s.blocked},
                                      {"cycles", b.stats.cycles},
                                      {"exchanges", b.stats.exchanges}};
      std::cout << summary.dump() << "\n";
    }
  });
}

void add_aapc(CLI::App& app, const ResultSink& sink) {
  struct Flags {
    ScheduleFlags schedule;
    MachineFlags machine;
    IoFlags io;
    std::string permutation = "transpose";
  };
  auto f = std::make_shared<Flags>();
  f->io.sink = sink;
  auto* cmd = app.add_subcommand(
      "aapc",
      "run one all-to-all personalized communication (Johnsson & Ho): pre-alignment, one launch per routing cycle, "
      "post-alignment, verified against the permutation");
  add_schedule_flags(*cmd, f->schedule);
  add_backend_flags(*cmd, f->machine);
  add_launch_flag(*cmd, f->machine.launch);
  add_io_flags(*cmd, f->io);
  choices(cmd->add_option("-p,--permutation", f->permutation, "the permutation the AAPC realises"),
          split_names(aapc_permutation_names()))
      ->capture_default_str();
  cmd->callback([f] {
    const IoFlags& io = f->io;
    const AapcRequest request = aapc_request(f->schedule);
    const AapcOptions o = check_aapc_request(request);  // every flag is checked before anything is built
    const AapcPermutation perm = parse_aapc_permutation(f->permutation);
    check_trace_size(io, o.n, o.m);
    MachineFlags mf = f->machine;
    mf.n = o.n;
    mf.m = o.m;
    check_fits_before_planning("hcube aapc", mf, {schedule_tables(aapc_schedule_exchanges(o.d, o.m), o.m)});
    BuiltSchedule b = build_aapc_schedule(request);
    PermutationPlan plan = plan_aapc_permutation(perm, b.schedule.geometry(), o.d);
    const Job job{std::move(b.schedule),       std::move(b.stats), std::move(plan.f),      std::move(plan.g),
                  std::move(plan.destination), to_string(perm),    std::move(plan.formula), {}, {}, 0, {},
                  std::move(plan.destination_form)};
    if (distributed()) {
      run_job_across_ranks(
          mf, io, job, [&](const Counters& k, double seconds) { return aapc_json("aapc", job, k, seconds); },
          [&](const Counters& k, double seconds) { return job_summary(job, k, seconds); });
      return;
    }
    const std::shared_ptr<NpyInput> input = open_input(io.input);
    check_job_fits("hcube aapc", mf, input.get(), job, io.trace);
    Session s = open_session(mf, io, input, io.trace);
    const double seconds = run_job(s, io, job);
    const Counters& k = s.machine->counters();
    finish_run(s, io, aapc_json("aapc", job, k, seconds), job_summary(job, k, seconds));
  });
}

void add_run(CLI::App& app) {
  struct Flags {
    MachineFlags machine;
    IoFlags io;
    std::string schedule;
    long long d = kUnset;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd =
      app.add_subcommand("run", "run a schedule file (hcube-schedule/1): its alignments and routing cycles, verified");
  input_flag(cmd->add_option("-s,--schedule", f->schedule, "the schedule file, e.g. from `hcube schedule --output`"))
      ->required();
  cmd->add_option("-d,--dims", f->d, "the AAPC dimensions d the file must be for (default: the file's)");
  add_backend_flags(*cmd, f->machine);
  add_launch_flag(*cmd, f->machine.launch);
  add_io_flags(*cmd, f->io);
  cmd->callback([f] {
    const IoFlags& io = f->io;
    ScheduleStats stats;
    Schedule sch = load_schedule(f->schedule, &stats);  // checked: nothing runs on a bad file
    if (f->d != kUnset && f->d != static_cast<long long>(sch.d))
      throw Error(fmt::format("schedule file {} is for d = {}, --dims asks for {}", f->schedule, sch.d, f->d));
    check_trace_size(io, sch.n, sch.m);
    const Geometry geo = sch.geometry();
    // The result is checked against what the header names (the transpose, the
    // generalized shuffle), written from its formula; a file that names
    // nothing runs unverified and says so.
    std::optional<NamedPermutation> named = named_permutation(sch);
    const AffineMap id(geo);
    Job job{std::move(sch), std::move(stats), id, id, {}, "as-scheduled",
            "(the file names no permutation: not verified)", {}, {}, 0, {}};
    if (named) {
      job.destination = std::move(named->destination);
      job.permutation = std::move(named->name);
      job.formula = std::move(named->formula);
      job.destination_form = std::move(named->destination_form);
    }
    MachineFlags mf = f->machine;
    mf.n = geo.n;
    mf.m = geo.m;
    if (distributed()) {
      run_job_across_ranks(
          mf, io, job,
          [&](const Counters& k, double seconds) {
            nlohmann::json j = aapc_json("run", job, k, seconds);
            j["schedule"] = f->schedule;
            return j;
          },
          [&](const Counters& k, double seconds) { return job_summary(job, k, seconds); }, named.has_value());
      return;
    }
    const std::shared_ptr<NpyInput> input = open_input(io.input);
    check_job_fits("hcube run", mf, input.get(), job, io.trace);
    Session s = open_session(mf, io, input, io.trace);
    const double seconds = run_job(s, io, job);
    const Counters& k = s.machine->counters();
    nlohmann::json j = aapc_json("run", job, k, seconds);
    j["schedule"] = f->schedule;
    finish_run(s, io, std::move(j), job_summary(job, k, seconds), named.has_value());
  });
}

}  // namespace hcube::cli

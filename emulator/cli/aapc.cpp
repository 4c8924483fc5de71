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
#include "hcube/app/distributed.hpp"
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
#include "hcube/host/system/host_memory.hpp"
#include "hcube/host/parse.hpp"
#include "hcube/host/schedule_table.hpp"
#include "hcube/app/ranks.hpp"

namespace hcube::cli {
namespace {

constexpr long long kUnset = kUnsetSize;

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
  std::string pairs = "split";
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
  choices(cmd.add_option("--pair-order", f.pairs,
                         "Algorithms 2 and 3's pairs: split (span d, 2d in transit) or table5 (Table 5's order)"),
          {"split", "table5"})->capture_default_str();
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
  r.pairs = parse_pair_order(f.pairs);
  r.unaligned = f.unaligned;
  return r;
}

// --- schedule --------------------------------------------------------------

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
    // The plan builds the schedule and checks it, once.
    std::shared_ptr<NpyInput> input;
    AapcPlan plan({request, perm, PlanTarget{plan_type(mf, io, input), parse_backend_choice(mf.backend)}});
    run_plan("hcube aapc", mf, io, input, plan,
             [](const Job& job, const Counters& k, double seconds) { return aapc_json("aapc", job, k, seconds); },
             job_summary);
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
    std::shared_ptr<NpyInput> input;
    const ElementType type = plan_type(f->machine, io, input);
    // Checked as it is loaded: nothing runs on a bad file.
    SchedulePlan plan({f->schedule, f->d != kUnset ? std::optional<long long>(f->d) : std::nullopt,
                       PlanTarget{type, parse_backend_choice(f->machine.backend)}});
    check_trace_size(io, plan.geometry().n, plan.geometry().m);
    const PlanFields fields = [&](const Job& job, const Counters& k, double seconds) {
      nlohmann::json j = aapc_json("run", job, k, seconds);
      j["schedule"] = f->schedule;
      return j;
    };
    run_plan("hcube run", f->machine, io, input, plan, fields, job_summary);
  });
}

}  // namespace hcube::cli

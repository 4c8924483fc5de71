// hcube multi-aapc: a sequence of s AAPCs (Johnsson & Ho 1992, sec. 2.3 and
// 4.1), the generalized shuffle (a_s, ..., a_1 | a_0) -> (a_(s-1), ..., a_0 | a_s),
// run as one schedule between Lemma 1's single pre- and post-alignment,
// pipelined (Corollary 2) or AAPC after AAPC, and verified bit for bit
// against the shuffle written from its formula.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "hcube/app/distributed.hpp"
#include "hcube/app/ranks.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_sequence.hpp"
#include "hcube/host/concurrent_aapc.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/multi_aapc_plan.hpp"
#include "hcube/host/parse.hpp"

namespace hcube::cli {
namespace {

constexpr long long kUnset = kUnsetSize;

struct Flags {
  MachineFlags machine;
  IoFlags io;
  long long axes = kUnset;
  std::string dims;     // "d" or "d_1,d_2,..." (non-increasing)
  long long m = kUnset;  // unset: d (2d for Algorithm 5)
  std::string algorithm = "4";
  bool sequential = false;
  std::string order;  // empty: 0, 1, ..., s-1
  std::string lines = "diagonal";
  std::string layout = "compact";
  std::string save;  // --save-schedule
  long long rotated_rows = kUnsetSize;
  bool figure = false;
};

// The flags as the library's request (checked by plan_multi_aapc).
MultiAapcRequest request_of(const Flags& f) {
  MultiAapcRequest r;
  r.axes = f.axes;
  r.dims = f.dims;
  r.m = f.m;
  r.algorithm = f.algorithm;
  r.sequential = f.sequential;
  r.order = f.order;
  r.lines = parse_line_drawing(f.lines);
  r.layout = parse_rotation_layout(f.layout);
  if (f.rotated_rows != kUnsetSize) r.rotated_rows = f.rotated_rows;
  return r;
}

}  // namespace

void add_multi_aapc(CLI::App& app, const ResultSink& sink) {
  auto f = std::make_shared<Flags>();
  f->io.sink = sink;
  auto* cmd = app.add_subcommand(
      "multi-aapc",
      "run s AAPCs in sequence (Johnsson & Ho, sec. 2.3, 4): the generalized shuffle (a_s,...,a_1|a_0) -> "
      "(a_(s-1),...,a_0|a_s) between one pre- and one post-alignment (Lemma 1; Algorithm 5's rotated sets add one on "
      "each side), pipelined (Corollary 2), one after another, on axes of different orders (sec. 4.1), or concurrently "
      "(Algorithm 5, Theorem 2), verified");
  cmd->add_option("-s,--axes", f->axes, "number of AAPCs s: processor axes a_1..a_s of d bits each, n = s d");
  cmd->add_option("-d,--dims", f->dims,
                  "dimensions d of each axis (and of the memory axis a_0); or each axis' order, non-increasing, "
                  "e.g. 3,2,2 (Algorithms 1, 3, 4, sec. 4.1)")
      ->required();
  cmd->add_option("-m,--mem-dims", f->m,
                  "machine memory dimensions m >= d (default d; 2d for Algorithm 5): K = 2^m words per node");
  choices(cmd->add_option("-a,--algorithm", f->algorithm,
                          "the single-AAPC algorithm pipelined, 1, 3 or 4, or 5: multiple concurrent AAPCs (sec. "
                          "4.2), which needs m >= 2d"),
          {"1", "3", "4", "5"})
      ->capture_default_str();
  cmd->add_flag("--sequential", f->sequential, "run the AAPCs one after another instead of pipelined");
  cmd->add_option("--order", f->order,
                  "the axes in the order they exchange with the memory axis, a permutation of 0..s-1 "
                  "(axis u = node bits u d .. u d + d - 1, a_(u+1)); default 0,1,...,s-1");
  choices(cmd->add_option("--lines", f->lines, "Algorithm 4's line drawing: diagonal, type1 (the paper's) or greedy"),
          {"diagonal", "type1", "greedy"})
      ->capture_default_str();
  choices(cmd->add_option("--layout", f->layout,
                          "Algorithm 5: where data sets start on later axes: compact (one per axis, R+1 columns; "
                          "runs skewed or pipelines instead when that is fewer cycles), paper (Figure 4: pairs of "
                          "sets on axes s-2, s-4, ..., run as asked) or skewed (pairs skewed bit by bit, rows "
                          "rotated in one bit each)"),
          {"compact", "paper", "skewed"})
      ->capture_default_str();
  cmd->add_option("--rotated-rows", f->rotated_rows,
                  "Algorithm 5: rows of 2^d complement pairs that start on later axes (default: the count with the "
                  "fewest cycles)");
  cmd->add_flag("--figure", f->figure, "Algorithm 5: print the plan as Figure 4's table (a column = d cycles)");
  output_flag(cmd->add_option("--save-schedule", f->save,
                              "also write the schedule file (hcube-schedule/1 with its offset maps, axis orders and "
                              "alignments), which `hcube run --schedule` runs again"));
  add_backend_flags(*cmd, f->machine);
  add_launch_flag(*cmd, f->machine.launch);
  add_io_flags(*cmd, f->io);
  cmd->callback([f] {
    const IoFlags& io = f->io;
    const MultiAapcRequest request = request_of(*f);
    {
      // The sizes first: Algorithm 5's concurrent design alone can take seconds.
      const MultiAapcDesign sizes = multi_aapc_sizes(request);
      MachineFlags sized = f->machine;
      sized.n = sizes.n;
      sized.m = sizes.m;
      check_fits_before_planning("hcube multi-aapc", sized,
                                 {schedule_tables(multi_aapc_schedule_exchanges(sizes.n, sizes.dims[0], sizes.m), sizes.m)});
    }
    const MultiAapcDesign p = plan_multi_aapc(request);  // every flag is checked before anything is built
    const AapcSequenceOptions& o = p.options;
    const unsigned s_axes = o.axes, d = o.d;
    check_trace_size(io, p.n, p.m);
    std::shared_ptr<NpyInput> input;
    // The plan builds the schedule and its reference, and checks the schedule, once.
    MultiAapcPlan plan({request, PlanTarget{plan_type(f->machine, io, input), parse_backend_choice(f->machine.backend)}},
                       p);
    const Job& job = *plan.job();
    if (!f->save.empty() && prints_results()) save_schedule(f->save, job.schedule);  // under mpirun, rank 0 writes it
    const std::vector<unsigned>& order = p.order;

    const std::uint64_t cycles = job.stats.cycles;

    const std::string note = multi_aapc_note(p, cycles);
    const std::string schedule_kind = p.kind == MultiAapcKind::concurrent ? "concurrent" : o.pipelined ? "pipelined" : "sequential";

    // The run's fields and summary from its counters, on one process or across ranks.
    const PlanFields fields = [&](const Job&, const Counters& counters, double seconds) {
      nlohmann::json j = job_json("multi-aapc", job, counters, seconds);
      j["algorithm"] = p.algorithm;
      j["axes"] = s_axes;
      j["axis_dims"] = p.dims;
      j["schedule"] = schedule_kind;
      j["pipelined"] = o.pipelined && p.kind != MultiAapcKind::concurrent;
      j["order"] = order;
      j["alignments"] = counters.alignments;
      j["bound"] = p.bound;
      j["bound_source"] = p.bound_source;
      j["bound_from_paper"] = p.bound_from_paper;
      j["note"] = note.empty() ? nlohmann::json(nullptr) : nlohmann::json(note);
      if (p.kind == MultiAapcKind::concurrent) {
        // The skewed layout has no data sets or columns (null), but rotated pairs.
        const bool columns = p.design.layout != RotationLayout::skewed;
        j["layout"] = to_string(p.design.layout);
        j["rotated_rows"] = p.design.rotated_rows;
        j["rotated_pairs"] = p.design.rotated_pairs;
        j["rotated_data_sets"] = rotated_data_sets(p.design.plan);
        j["data_sets"] = columns ? nlohmann::json(p.design.plan.rows.size()) : nlohmann::json(nullptr);
        j["columns"] = columns ? nlohmann::json(p.design.plan.columns) : nlohmann::json(nullptr);
        if (f->figure && columns) j["figure"] = plan_chart(p.design.plan);
      }
      return j;
    };
    const PlanSummary summary_of = [&](const Job&, const Counters& counters, double seconds) {
      const std::uint64_t aligns = counters.alignments;
      std::string summary = fmt::format(
          "multi-aapc: s = {} AAPC{} of d = {}, Algorithm {}{}, {}, axis order {}, on n = {}, m = {} (K = {})\n{}: {}\n",
          s_axes, s_axes == 1 ? "" : "s", p.kind == MultiAapcKind::unequal ? join_uints(p.dims, ",") : std::to_string(d),
          p.algorithm, job.schedule.lines.empty() ? "" : " (" + job.schedule.lines + " lines)", schedule_kind,
          join_uints(order, ","), p.n, p.m, bit(p.m), job.permutation, job.formula);
      summary += concurrent_plan_text(p, f->figure);
      if (f->figure && (p.kind != MultiAapcKind::concurrent || p.design.layout == RotationLayout::skewed))
        summary += "(--figure shows Algorithm 5's plan in columns of d cycles: this run has none)\n";
      if (!note.empty()) summary += "note: " + note + "\n";
      // Pipelined AAPCs overlap: a cycle can use more than one axis' d dimensions.
      const auto& per_cycle = job.stats.exchanges_per_cycle;
      const std::uint64_t busy_min = per_cycle.empty() ? 0 : *std::min_element(per_cycle.begin(), per_cycle.end());
      const double busy_mean = cycles == 0 ? 0.0 : static_cast<double>(job.stats.exchanges) / static_cast<double>(cycles);
      summary += fmt::format(
          "{} routing cycles ({}: {}, {}), max span {}, dimensions busy per cycle min {} mean {:.2f} of n = {}, + {} "
          "alignment{} in {:.6f} s",
          cycles, p.bound_from_paper ? "paper" : "derived", p.bound, p.bound_source, job.stats.max_span, busy_min, busy_mean, p.n, aligns, aligns == 1 ? "" : "s",
          seconds);
      return summary;
    };
    run_plan("hcube multi-aapc", f->machine, io, input, plan, fields, summary_of);
  });
}

}  // namespace hcube::cli

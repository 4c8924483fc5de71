// What every client of the plans shares when it runs one for a person (the
// command line, the Python binding's in-process commands, the ranks of an MPI
// job): the machine from text options, data in and out (.npy or address
// labels), the memory a run needs checked before it starts, a plan's
// execution verified and traced, and its report as JSON or prose.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hcube/emulator/json.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/measure.hpp"
#include "hcube/host/sdp_planner.hpp"
#include "hcube/emulator/npy.hpp"
#include "hcube/emulator/verified_run.hpp"
#include "hcube/plans.hpp"
#include "hcube/host/affine_map.hpp"
#include "hcube/host/parse.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/host/schedule.hpp"
#include "hcube/host/schedule_json.hpp"

namespace hcube::app {

// Where a command's JSON result goes instead of standard output: hcube
// animate takes the run as data this way.
using ResultSink = std::function<void(const nlohmann::json&)>;

// -n and -m left out: taken from --input's shape, else 4 (resolve_machine).
inline constexpr long long kUnsetDims = std::numeric_limits<long long>::min();
inline constexpr long long kDefaultDims = 4;

struct MachineFlags {
  long long n = kUnsetDims;
  long long m = kUnsetDims;
  std::string type;  // empty: from --input, else uint32
  std::string backend = "auto";
  long long tile_dims = kUnsetDims;  // tile_dims() turns it into MachineOptions'
  std::string launch = "per-cycle";  // --launch, on the commands that run routing cycles
};

// A flag whose value kUnsetDims means left out: nothing, or the value given
// (a given -1 is a value the library refuses, never its default).
inline std::optional<long long> given(long long flag) {
  return flag == kUnsetDims ? std::nullopt : std::optional<long long>(flag);
}
// --tile-dims as MachineOptions takes it for a machine of n processor
// dimensions: -1 (the default) when left out, else the value given, checked
// (check_tile_dims): a given -1 is out of range, not the default.
long long tile_dims(long long flag, unsigned n);
// The same before n is known (bench, sweep: the library checks the rest).
long long tile_dims(long long flag);

struct IoFlags {
  std::string input;
  std::string output;
  bool json = false;
  bool trace = false;
  ResultSink sink;  // set: emit hands the JSON result here and prints nothing
};

// --input opened once, its header read and checked (null for no input): a
// pipe's header cannot be read twice, so the one opened object gives n and m
// (resolve_machine) and then the data (open_session).
std::shared_ptr<NpyInput> open_input(const std::string& path);
// Settles -n and -m before a command uses them. A flag given stays (open_session
// checks it against the file); one left out comes from `input`'s shape
// (2^n, 2^m), or for a flat (2^(n+m),) input from the other flag, else is 4.
// `data_dims` >= 0: the input holds 2^data_dims nodes' data inside a larger
// cube (permute --subcube-dims), so its shape gives m but not n.
void resolve_machine(MachineFlags& mf, const NpyInput* input, long long data_dims = -1);

// Refuses, before any planning or allocation, a machine of -n, -m and --type
// larger than its backend holds (check_machine_fits).
void check_machine_size(const MachineFlags& mf);
// Refuses, before anything is read or allocated, a run whose real footprint
// does not fit: the machine of -n, -m (of --type, else `input`'s type) and
// `parts` beside it (check_run_fits); a stream read whole (`needs_words`)
// adds its host copy. `run` names the command ("hcube permute --fused").
void check_fits(const std::string& run, const MachineFlags& mf, const NpyInput* input, std::vector<MemoryNeed> parts,
                bool needs_words = false);
// What a schedule of `exchanges` exchanges on K = 2^m words a node holds on
// the host, with the tables check_schedule makes beside it: a closed form,
// known before the schedule is built.
MemoryNeed schedule_tables(std::uint64_t exchanges, unsigned m);
// check_fits before any planning: the machine of -n, -m (the share of one
// rank under mpirun) of --type (else uint32) and `parts` beside it, from
// closed forms, so that a size that cannot run is refused before minutes of
// planning. The check with the input's type and the plan's own parts follows
// once they exist.
void check_fits_before_planning(const std::string& run, MachineFlags mf, std::vector<MemoryNeed> parts);
// check_fits for a plan's run: the scratch it needs beside the data.
void check_plan_fits(const std::string& run, const MachineFlags& mf, const NpyInput* input, const Plan& plan,
                     bool needs_words, const char* why = "its scratch copy (an alignment that copies)");
// The machine's scratch copy, when `needed` (a step that copies through it).
std::vector<MemoryNeed> scratch_copy(bool needed, const MachineFlags& mf, const NpyInput* input,
                                     const char* why = "its scratch copy");

// The machine the flags describe, of element type `type` (--launch checked here).
MachineOptions machine_options(const MachineFlags& mf, ElementType type);
// The element type of a run: --type, which --input's dtype must match, else
// --input's dtype, else uint32. Throws naming the file when they disagree.
ElementType element_type(const MachineFlags& mf, std::optional<ElementType> input, const std::string& input_path);
// The same for an opened input (null: none).
ElementType run_type(const MachineFlags& mf, const NpyInput* input);

// A verified run (hcube/emulator/verified_run.hpp) and, with --trace --json,
// the states it recorded.
struct RunSession : hcube::Session {
  nlohmann::json trace = nlohmann::json::array();
};
// The machine with --input's data (its dtype, unless --type disagrees) or the
// address labels. Nothing is printed until the machine exists, so a bad flag
// prints only its error. `input`: --input already opened (open_input), else
// it is opened here. A regular file is read into the machine in pieces and
// read again to verify; a stream is read into the machine a chunk at a time
// and verified by its fingerprint, unless `needs_words` (a trace, a router
// step's reference computed from the words): then it is read whole first.
// `labels`: LabelMode::windows for a run that execute_plan takes (it repeats the
// run per window of labels where the type cannot hold every address).
RunSession open_run_session(const MachineFlags& mf, const IoFlags& io, std::shared_ptr<NpyInput> input = nullptr,
                            bool needs_words = false, LabelMode labels = LabelMode::whole);
// Says which backend auto chose and, with --trace, shows the initial state.
void begin_trace(RunSession& s, const IoFlags& io);
// With --trace: the state `words` after step `name` ("initial": before any),
// appended to `trace` (--json) or printed as a node x address table.
void trace_state(const IoFlags& io, nlohmann::json& trace, const Geometry& geo, ElementType type,
                 const std::vector<unsigned char>& words, const std::string& name);

// The teaching view of a job's --trace: each cell shows where its word started,
// "node.addr", and '*' marks the words the step moved. Needs no words: it
// follows the steps' destinations. `on` false: prints nothing.
class OriginView {
 public:
  OriginView(const Geometry& geo, bool on);
  void advance(const AddressMap& dest, const std::string& title);

 private:
  static constexpr std::size_t kWord = sizeof(std::uint64_t);
  std::uint64_t at(const std::vector<unsigned char>& v, std::uint64_t g) const;
  // Prints `state` (the current one when empty), marking words that differ from the current one.
  void print(const std::string& title, const std::vector<unsigned char>& state);

  Geometry geo_;
  bool on_;
  std::vector<unsigned char> origin_;
};

// hcube::run_step, then with --trace the state recorded (--json) or printed.
void run_traced_step(RunSession& s, const IoFlags& io, const std::string& name, const AddressMap& dest,
                     const std::function<void(Machine&)>& step);
void run_traced_step(RunSession& s, const IoFlags& io, const std::string& name, const ReferenceStep& reference,
                     const std::function<void(Machine&)>& step);

// The state as JSON rows of elements (complex elements as [re, im]).
nlohmann::json state_json(const Geometry& geo, ElementType type, const std::vector<unsigned char>& data);
// The same for `nodes` rows of `words` words, one after the other (a grid's memories).
nlohmann::json state_json(std::uint64_t nodes, std::uint64_t words, ElementType type,
                          const std::vector<unsigned char>& data);

// Prints the machine state as a node x address table (nodes in binary).
std::string format_memory(const Geometry& geo, ElementType type, const std::vector<unsigned char>& data,
                          const std::string& title);

// Writes --output if asked: shape (2^n, K), atomically.
void write_output(const IoFlags& io, const Machine& machine);

// The JSON fields every run reports: geometry, backend, counters.
nlohmann::json machine_json(const RunSession& s);
// The same for any machine: the global geometry, the backend (a rank's, for a
// distributed machine) and the counters.
nlohmann::json machine_json(const std::string& backend_note, const Geometry& geo, ElementType type,
                            const Backend& backend, unsigned tile_dims, const Counters& counters);

// "3, 3, 3" (or with another separator): lists of dimensions in messages.
std::string join_uints(const std::vector<unsigned>& values, const char* separator = ", ");

// Hands `j` to io.sink, or prints it (with --json), or runs `prose` to print text.
void emit(const IoFlags& io, const nlohmann::json& j, const std::function<void()>& prose);

// Ends a verified run: writes --output, then prints `j` with machine_json,
// "verified" and the trace added (--json), or `summary`, the backend, the
// verification and the counters (prose).
// verified = false: a run nothing could check (hcube run of a file that names no permutation).
// `routed_on`: the cube the routing ran on when it is not the data's machine
// (the extended cube of permute --subcube-dims).
void finish_run(RunSession& s, const IoFlags& io, nlohmann::json j, const std::string& summary, bool verified = true,
                const std::optional<Geometry>& routed_on = std::nullopt);
// finish_run's report for any machine: `j` complete (--json), or the summary
// "on `machine_text`", the verification and the counters.
void report_run(const IoFlags& io, const nlohmann::json& j, const std::string& summary, bool verified,
                const std::string& machine_text, const Counters& counters);

// A one-line progress bar on a terminal's stderr, cleared when the run ends
// (or fails, before the error is printed).
class ProgressBar {
 public:
  // `label` names the work ("routing"), `unit` what is counted ("cycles").
  explicit ProgressBar(bool on, std::string label = "routing", std::string unit = "cycles")
      : on_(on), label_(std::move(label)), unit_(std::move(unit)) {}
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar() {
    if (shown_ == 0) return;
    std::fprintf(stderr, "\r%*s\r", static_cast<int>(shown_), "");
    std::fflush(stderr);
  }

  Machine::Progress callback() {
    if (!on_) return {};
    return [this](std::size_t done, std::size_t total) { draw(done, total); };
  }

  // `note` follows the counts ("d = 12, Algorithm 4").
  void draw(std::size_t done, std::size_t total, const std::string& note = "") {
    if (!on_) return;
    const std::size_t pct = total == 0 ? 100 : 100 * done / total;
    if (pct == last_pct_ && done != total) return;
    last_pct_ = pct;
    constexpr std::size_t kBar = 30;
    const std::size_t fill = pct * kBar / 100;
    const std::string text = fmt::format("{} [{}{}] {:>3}%  {}/{} {}{}{}", label_, std::string(fill, '#'),
                                         std::string(kBar - fill, ' '), pct, done, total, unit_,
                                         note.empty() ? "" : "  ", note);
    shown_ = std::max(shown_, text.size());
    std::fprintf(stderr, "\r%s", text.c_str());
    std::fflush(stderr);
  }

 private:
  bool on_;
  std::string label_, unit_;
  std::size_t last_pct_ = std::numeric_limits<std::size_t>::max();
  std::size_t shown_ = 0;
};

// --- running a schedule (aapc, run, multi-aapc) ------------------------------

// --trace prints every word after every step.
inline constexpr std::uint64_t kMaxTraceWords = 4096;
// The most words a machine hcube animate draws may hold: d = 8, 2^8 nodes of
// 2^8 words, Johnsson & Ho's node by address table (Tables 1 and 3) at
// 256 x 256. A command traced for the page (its result handed to a sink, not
// printed) records this many.
inline constexpr std::uint64_t kMaxAnimatedWords = 65536;

// Refuses --trace on machines of more than kMaxTraceWords words (kMaxAnimatedWords for hcube animate).
void check_trace_size(const IoFlags& io, unsigned n, unsigned m);

nlohmann::json exchanges_json(const Cycle& cycle);

// hcube::execute_verified with a progress bar on a terminal, or with --trace
// step by step: each state recorded (--json) or shown as where every word started.
double execute_plan(RunSession& s, const IoFlags& io, Plan& plan);
// hcube::run_verified with a progress bar on a terminal.
double run_verified(RunSession& s, const IoFlags& io, const Job& job,
                    const std::function<double(const Machine::Progress&)>& run);

// The fields aapc, run and multi-aapc report about their job, before
// machine_json's (the callers add their bound).
nlohmann::json job_json(const std::string& command, const Job& job, const Counters& counters, double seconds);

// aapc's and run's report of an AAPC schedule's run: job_json's fields with the
// paper's count (and a baseline's modelled cost), and its prose summary.
nlohmann::json aapc_json(const std::string& command, const Job& job, const Counters& counters, double seconds);
std::string job_summary(const Job& job, const Counters& counters, double seconds);

// One process's redistribution: the machine loaded with the sources (the
// labels, `file` read through a small cache, or the stream `opened` as it
// arrives, then known by its fingerprint), the plan executed, every destination checked,
// `output` (empty: none) written as the destinations' memories. With
// `record_states` on a machine of at most kMaxTraceWords words, every state
// (for hcube animate).
struct RedistributionRun {
  std::unique_ptr<Machine> machine;
  RedistributionReport report;
  bool streamed = false;  // checked against the stream's fingerprint
  bool recorded = false;
  nlohmann::json states = nlohmann::json::array();
};
RedistributionRun run_redistribution(RedistributePlan& plan, ElementType type, BackendChoice backend,
                                     long long tile_dims, NpyInput* opened,
                                     const std::shared_ptr<const NpyFile>& file, bool record_states,
                                     const std::string& output);

// permute's report (Ho & Johnsson 1988): " on a subcube of a cube of n = ..."
// for the extended cube; the permutation's cycle analysis; the paper's count
// beside hcube's (SdpPaperCount) as --json fields; a plan's memory as "K", "2K".
std::string subcube_text(const SdpProblem& r);
nlohmann::json analysis_json(const SdpProblem& r);
void add_paper_json(nlohmann::json& j, const SdpCandidate& k);
std::string memory_text(const SdpProblem& r, const SdpPlan& plan);

// redistribute's report (Park, Prasanna & Raghavendra 1998): its JSON from the
// plan, the run's report and the backend; the schedule's messages, every block
// of every step, as JSON (--trace --json) and as lines (--trace).
struct RedistributionReportContext {
  const RedistributePlan& plan;
  ElementType type;
  bool overlap;
  double ts, tc;  // the cost model's start-up and element times
  double schedule_seconds;
};
nlohmann::json redistribution_json(const RedistributionReportContext& c, const RedistributionReport& rep,
                                   const Backend& backend);
nlohmann::json redistribution_trace(const RedistSchedule& sch);
std::string redistribution_steps_text(const RedistSchedule& sch);

// The wisdom this process's plans read (hcube info, hcube bench): its file,
// whether it is used, and its values or why not.
nlohmann::json wisdom_json();
// hcube bench's JSON fields of a result.
nlohmann::json bench_json(const BenchResult& r);
// What `hcube bench` prints in prose; `idle`: the same run before a busy neighbour started (or none).
std::string bench_text(const BenchResult& r, const BenchResult* idle);

}  // namespace hcube::app

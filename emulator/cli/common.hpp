// What every hcube command's flags share: the machine's and the data's flags,
// their checks as they are parsed, and the one-line error of a bad command
// line. Everything past the flags is the app library's (hcube/app/run.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hcube/app/ranks.hpp"
#include "hcube/app/distributed.hpp"
#include "hcube/app/run.hpp"

namespace hcube::cli {

// The commands parse into the app library's types and run through it.
using namespace hcube::app;

// Declares a flag's allowed values, which --help shows as {a,b,c}. Any other
// value still reaches the command, whose own parse rejects it in one line.
CLI::Option* choices(CLI::Option* opt, const std::vector<std::string>& values);
// Checks an output flag's path as the flags are parsed, so that a path that
// cannot be written fails before any work (hcube::check_output). `dash`: "-"
// means standard output and is not checked.
CLI::Option* output_flag(CLI::Option* opt, bool dash = false);
// An input file's flag: an empty path is refused as the flags are parsed
// (-i "" would otherwise mean no input at all).
CLI::Option* input_flag(CLI::Option* opt);
// Refuses, on every numeric flag of `app` and its commands, an empty value,
// NaN, infinity and a negative number: no flag of hcube takes one.
void check_numbers(CLI::App& app);
// "a, b, c" (the library's *_names() lists) as {"a", "b", "c"}.
std::vector<std::string> split_names(const std::string& list);
// --backend's values.
const std::vector<std::string>& backend_names();

// The one-line text (without "hcube: error: ") for a parse error of `app` on
// `args` (the words after the program's name): an unknown command or flag gets
// the nearest spelling (edit distance <= 2, or the one name it begins).
std::string parse_error_text(CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args);

void add_machine_flags(CLI::App& cmd, MachineFlags& f, const char* dims_help = "processor dimensions n (2^n nodes)");
// The machine flags other than the geometry: --type, --backend, --tile-dims
// (for commands that take n and m from elsewhere).
void add_backend_flags(CLI::App& cmd, MachineFlags& f);
// --launch per-cycle|persistent (LaunchMode), on every command that runs routing cycles.
void add_launch_flag(CLI::App& cmd, std::string& launch);
// `input_gives_dims`: the command takes -n, -m from --input (resolve_machine).
void add_io_flags(CLI::App& cmd, IoFlags& f, bool input_gives_dims = false);


// --- a plan's run --------------------------------------------------------------

// The element type a plan is made for: --type, else --input's dtype, else
// uint32. On one process `input` gets --input opened (its header read once);
// under mpirun each rank opens its rows itself (app/distributed.hpp).
ElementType plan_type(const MachineFlags& mf, const IoFlags& io, std::shared_ptr<NpyInput>& input);
// The command's JSON fields and its summary from the plan's job, the counters and the seconds.
using PlanFields = std::function<nlohmann::json(const Job&, const Counters&, double seconds)>;
using PlanSummary = std::function<std::string(const Job&, const Counters&, double seconds)>;
// Runs the plan (made for plan_type) on the machine of its geometry: its
// footprint checked, the data loaded, the execution verified (and traced with
// --trace) on one process or across ranks, --output written, the report
// printed. `routed_on`: the cube the routing ran on when it is not the data's.
void run_plan(const std::string& what, MachineFlags mf, const IoFlags& io, const std::shared_ptr<NpyInput>& input,
              Plan& plan, const PlanFields& fields, const PlanSummary& summary,
              const std::optional<Geometry>& routed_on = std::nullopt,
              const char* scratch_why = "its scratch copy (an alignment that copies)");

}  // namespace hcube::cli

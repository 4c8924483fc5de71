#include "hcube/app/run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>

#include "hcube/emulator/npy.hpp"
#include "hcube/host/aapc_build.hpp"
#include "hcube/host/block_cyclic.hpp"
#include "hcube/host/sdp_planner.hpp"
#include "hcube/host/exchange_baselines.hpp"
#include "hcube/emulator/wisdom.hpp"
#include "hcube/version.hpp"
#include "hcube/emulator/schedule_run.hpp"
#include "hcube/emulator/units.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/app/ranks.hpp"

namespace hcube::app {

std::shared_ptr<NpyInput> open_input(const std::string& path) {
  return path.empty() ? nullptr : std::make_shared<NpyInput>(path);
}

void resolve_machine(MachineFlags& mf, const NpyInput* input, long long data_dims) {
  const bool n_set = mf.n != kUnsetDims, m_set = mf.m != kUnsetDims;
  if (input != nullptr && !(n_set && m_set)) {
    // The header alone: open_session reads the data once the geometry is known.
    std::optional<long long> n = n_set ? std::optional<long long>(mf.n) : std::nullopt;
    std::optional<long long> m = m_set ? std::optional<long long>(mf.m) : std::nullopt;
    machine_dims_from_shape(input->shape(), input->path(), n, m, data_dims);
    if (n) mf.n = *n;
    if (m) mf.m = *m;
  }
  if (mf.n == kUnsetDims) mf.n = kDefaultDims;
  if (mf.m == kUnsetDims) mf.m = kDefaultDims;
}

void check_machine_size(const MachineFlags& mf) {
  const ElementType type = mf.type.empty() ? ElementType::u32 : parse_element_type(mf.type);
  check_machine_fits(make_geometry(mf.n, mf.m), type, *make_backend(parse_backend_choice(mf.backend)));
}

ElementType run_type(const MachineFlags& mf, const NpyInput* input) {
  return input != nullptr ? element_type(mf, input->type(), input->path()) : element_type(mf, std::nullopt, "");
}

void check_fits(const std::string& run, const MachineFlags& mf, const NpyInput* input, std::vector<MemoryNeed> parts,
                bool needs_words) {
  const ElementType type = run_type(mf, input);
  const Geometry geo = make_geometry(mf.n, mf.m);
  const std::unique_ptr<Backend> backend = make_backend(parse_backend_choice(mf.backend));
  check_machine_fits(geo, type, *backend);
  if (input != nullptr && !input->regular() && needs_words)
    parts.push_back({"the input stream read whole", input->data_bytes(), false});
  check_run_fits(run, geo, type, *backend, parts);
}

MemoryNeed schedule_tables(std::uint64_t exchanges, unsigned m) {
  // The exchanges, and check_schedule's first, last, crossed and used slots per address.
  const std::uint64_t per_address = 2 * sizeof(std::uint32_t) + 2 * sizeof(std::uint64_t);
  const std::uint64_t words = m < 64 ? std::uint64_t{1} << m : ~std::uint64_t{0};
  const std::uint64_t limit = ~std::uint64_t{0};
  const std::uint64_t a = exchanges > limit / sizeof(Exchange) ? limit : exchanges * sizeof(Exchange);
  const std::uint64_t b = words > limit / per_address ? limit : words * per_address;
  return {"the schedule's tables", a > limit - b ? limit : a + b, false};
}

void check_fits_before_planning(const std::string& run, MachineFlags mf, std::vector<MemoryNeed> parts) {
  // Under mpirun each rank holds 2^(n - r) of the nodes (r > n is refused by the machine itself).
  const unsigned r = rank_dims();
  if (r == 0 || mf.n < static_cast<long long>(r)) return check_fits(run, mf, nullptr, std::move(parts));
  const long long n = mf.n;
  mf.n -= static_cast<long long>(r);
  try {
    check_fits(run, mf, nullptr, std::move(parts));
  } catch (const Error& e) {
    throw Error(fmt::format("{} ranks each hold 2^{} of the 2^{} nodes: {}", 1u << r, mf.n, n, e.what()));
  }
}

void check_plan_fits(const std::string& run, const MachineFlags& mf, const NpyInput* input, const Plan& plan,
                     bool needs_words, const char* why) {
  std::vector<MemoryNeed> parts;
  if (plan.scratch_bytes() > 0) parts.push_back({why, plan.scratch_bytes(), true});
  check_fits(run, mf, input, std::move(parts), needs_words);
}

std::vector<MemoryNeed> scratch_copy(bool needed, const MachineFlags& mf, const NpyInput* input, const char* why) {
  if (!needed) return {};
  return {{why, make_geometry(mf.n, mf.m).total_words() * info(run_type(mf, input)).bytes, true}};
}

long long tile_dims(long long flag, unsigned n) {
  if (flag == kUnsetDims) return -1;
  check_tile_dims(n, flag);
  return flag;
}

long long tile_dims(long long flag) {
  if (flag == kUnsetDims) return -1;
  if (flag < 0)
    throw Error(fmt::format("tile dimensions t = {} out of range: allowed 0..n (the cube's processor dimensions)", flag));
  return flag;
}

MachineOptions machine_options(const MachineFlags& mf, ElementType type) {
  const Geometry geo = make_geometry(mf.n, mf.m);
  return MachineOptions{mf.n, mf.m, type, parse_backend_choice(mf.backend), tile_dims(mf.tile_dims, geo.n),
                        parse_launch_mode(mf.launch)};
}

ElementType element_type(const MachineFlags& mf, std::optional<ElementType> input, const std::string& input_path) {
  if (mf.type.empty()) return input.value_or(ElementType::u32);
  const ElementType type = parse_element_type(mf.type);
  if (input && *input != type)
    throw Error(fmt::format("{} holds {} but --type asks for {}: drop --type or convert the file", input_path,
                            info(*input).name, info(type).name));
  return type;
}

RunSession open_run_session(const MachineFlags& mf, const IoFlags& io, std::shared_ptr<NpyInput> input,
                            bool needs_words, LabelMode labels) {
  if (!input) input = open_input(io.input);
  const BackendChoice backend = parse_backend_choice(mf.backend);
  RunSession s;
  if (!input) {
    static_cast<hcube::Session&>(s) =
        hcube::open_session(machine_options(mf, element_type(mf, std::nullopt, io.input)), {}, labels);
    return s;
  }
  const ElementType type = element_type(mf, input->type(), io.input);
  const Geometry geo = make_geometry(mf.n, mf.m);
  const MachineOptions options = machine_options(mf, type);
  check_machine_shape(input->type(), input->shape(), io.input, geo.n, geo.m, type);
  if (std::shared_ptr<const NpyFile> file = input->file()) {
    // A regular file is read in pieces into the machine and stays the reference: no host copy.
    static_cast<hcube::Session&>(s) = hcube::open_session(options, std::move(file));
  } else if (!needs_words) {
    static_cast<hcube::Session&>(s) = hcube::open_session(options, *input);
  } else {
    check_machine_fits(geo, type, *make_backend(backend));  // before the words are held
    static_cast<hcube::Session&>(s) = hcube::open_session(options, input->read_all());
  }
  return s;
}

void trace_state(const IoFlags& io, nlohmann::json& trace, const Geometry& geo, ElementType type,
                 const std::vector<unsigned char>& words, const std::string& name) {
  if (io.json)
    trace.push_back({{"step", name}, {"state", state_json(geo, type, words)}});
  else
    std::cout << format_memory(geo, type, words, name == "initial" ? "initial state" : "after " + name) << "\n";
}

void begin_trace(RunSession& s, const IoFlags& io) {
  if (!io.json && !s.backend_note.empty()) std::cout << "backend " << s.backend_note << "\n";
  if (io.trace) trace_state(io, s.trace, s.machine->geometry(), s.machine->type(), expected_words(s), "initial");
}

namespace {

// With --trace: the state after a step, as JSON or a printed table.
void record_step(RunSession& s, const IoFlags& io, const std::string& name) {
  if (io.trace) trace_state(io, s.trace, s.machine->geometry(), s.machine->type(), expected_words(s), name);
}

}  // namespace

void run_traced_step(RunSession& s, const IoFlags& io, const std::string& name, const AddressMap& dest,
              const std::function<void(Machine&)>& step) {
  hcube::run_step(s, name, dest, step);
  record_step(s, io, name);
}

void run_traced_step(RunSession& s, const IoFlags& io, const std::string& name, const ReferenceStep& reference,
              const std::function<void(Machine&)>& step) {
  hcube::run_step(s, name, reference, step);
  record_step(s, io, name);
}

nlohmann::json state_json(const Geometry& geo, ElementType type, const std::vector<unsigned char>& data) {
  return state_json(geo.nodes(), geo.words_per_node(), type, data);
}

nlohmann::json state_json(std::uint64_t nodes, std::uint64_t words, ElementType type,
                          const std::vector<unsigned char>& data) {
  const std::size_t wb = info(type).bytes;
  nlohmann::json rows = nlohmann::json::array();
  for (std::uint64_t j = 0; j < nodes; ++j) {
    nlohmann::json row = nlohmann::json::array();
    for (std::uint64_t a = 0; a < words; ++a) row.push_back(element_json(type, &data[(j * words + a) * wb]));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string format_memory(const Geometry& geo, ElementType type, const std::vector<unsigned char>& data,
                          const std::string& title) {
  const std::size_t wb = info(type).bytes;
  std::vector<std::string> cells(geo.total_words());
  std::size_t width = 1;
  for (std::uint64_t g = 0; g < cells.size(); ++g) {
    cells[g] = format_element(type, &data[g * wb]);
    width = std::max(width, cells[g].size());
  }
  const std::size_t node_w = std::max<std::size_t>(4, geo.n);
  std::string s = title + "\n" + fmt::format("{:>{}} |", "node", node_w);
  for (std::uint64_t a = 0; a < geo.words_per_node(); ++a) s += fmt::format(" {:>{}}", a, width);
  s += "\n" + std::string(node_w + 2 + geo.words_per_node() * (width + 1), '-') + "\n";
  for (std::uint64_t j = 0; j < geo.nodes(); ++j) {
    std::string node = geo.n == 0 ? "-" : fmt::format("{:0{}b}", j, geo.n);
    s += fmt::format("{:>{}} |", node, node_w);
    for (std::uint64_t a = 0; a < geo.words_per_node(); ++a) s += fmt::format(" {:>{}}", cells[geo.global(j, a)], width);
    s += "\n";
  }
  return s;
}

void write_output(const IoFlags& io, const Machine& machine) {
  if (io.output.empty()) return;
  NpyWriter out(io.output, machine.type(), {machine.geometry().nodes(), machine.geometry().words_per_node()});
  const std::size_t wb = machine.word_bytes();
  if (out.seekable()) {
    // Each run straight to its place in the file: no host copy of the data.
    machine.store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) { out.write_at(g * wb, src, words * wb); });
  } else {
    // A FIFO or device takes the words in order: a tile at a time, not a host copy of the data.
    machine.store_in_order([&](std::uint64_t, std::uint64_t words, const void* src) { out.write(src, words * wb); });
  }
  out.commit();
}

nlohmann::json machine_json(const std::string& backend_note, const Geometry& geo, ElementType type,
                            const Backend& backend, unsigned tile_dims, const Counters& counters) {
  return {
      {"backend_note", backend_note},
      {"n", geo.n},
      {"m", geo.m},
      {"nodes", geo.nodes()},
      {"K", geo.words_per_node()},
      {"type", info(type).name},
      {"bytes", geo.total_words() * info(type).bytes},
      {"backend", to_string(backend.kind())},
      {"device", backend.device_name()},
      {"tile_dims", tile_dims},
      {"counters", to_json(counters)},
  };
}

nlohmann::json machine_json(const RunSession& s) {
  const Machine& machine = *s.machine;
  nlohmann::json j = machine_json(s.backend_note, machine.geometry(), machine.type(), machine.backend(),
                                  machine.layout().t, machine.counters());
  j["launch"] = to_string(machine.launch_mode());
  return j;
}

void emit(const IoFlags& io, const nlohmann::json& j, const std::function<void()>& prose) {
  if (io.sink)
    io.sink(j);
  else if (io.json)
    std::cout << j.dump(2) << "\n";
  else
    prose();
}

void finish_run(RunSession& s, const IoFlags& io, nlohmann::json j, const std::string& summary, bool verified,
                const std::optional<Geometry>& routed_on) {
  write_output(io, *s.machine);
  const Machine& mach = *s.machine;
  j.update(machine_json(s));
  j["verified"] = verified;
  // A stream is read once: its result is checked against its fingerprint, not its words read again.
  if (verified) j["verified_by"] = s.fingerprint ? "fingerprint" : "words";
  // Labels wider than the type: the run was repeated and checked once per window of address bits.
  if (verified && s.windows.size() > 1) j["label_windows"] = s.windows.size();
  if (io.trace) j["trace"] = s.trace;
  report_run(io, j, summary, verified,
             fmt::format("{} backend ({}), {}", to_string(mach.backend().kind()), mach.backend().device_name(),
                         routed_on ? fmt::format("routed on the {}, the data on its subcube of n = {}",
                                                 describe(*routed_on), mach.geometry().n)
                                   : describe(mach.geometry())),
             mach.counters());
}

void report_run(const IoFlags& io, const nlohmann::json& j, const std::string& summary, bool verified,
                const std::string& machine_text, const Counters& counters) {
  emit(io, j, [&] {
    fmt::print("{} on {}\n", summary, machine_text);
    const bool by_fingerprint = j.value("verified_by", "") == "fingerprint";
    const std::uint64_t windows = j.value("label_windows", std::uint64_t{0});
    fmt::print("verified against the reference: {}\n{}",
               !verified        ? "no (the schedule names no permutation to check it against)"
               : by_fingerprint ? "yes (the input, a stream read once, by the fingerprint of its words)"
               : windows > 1    ? fmt::format("yes (labels wider than the type: the run repeated for each of {} "
                                              "windows of address bits, each checked)",
                                              windows)
                                : "yes",
               counters.to_text());
    if (!io.output.empty()) fmt::print("wrote {}\n", printable_text(io.output));
  });
}


// --- running a schedule ------------------------------------------------------

void check_trace_size(const IoFlags& io, unsigned n, unsigned m) {
  // A result handed to a sink (hcube animate) is not printed: its page holds up to d = 8.
  const std::uint64_t limit = io.sink ? kMaxAnimatedWords : kMaxTraceWords;
  if (io.trace && bit(n + m) > limit)
    throw Error(
        fmt::format("--trace prints every word: 2^(n+m) = {} words for n = {}, m = {}, allowed at most {}; "
                    "`hcube schedule` prints the schedule alone",
                    bit(n + m), n, m, limit));
}

nlohmann::json exchanges_json(const Cycle& cycle) {
  nlohmann::json j = nlohmann::json::array();
  for (const Exchange& e : cycle) {
    j.push_back({{"dim", e.dim}, {"addr", e.addr}, {"peer_addr", e.peer_addr}});
    if (e.offset_map != 0) j.back()["map"] = e.offset_map;
  }
  return j;
}

OriginView::OriginView(const Geometry& geo, bool on) : geo_(geo), on_(on) {
  if (!on_) return;
  origin_.resize(geo.total_words() * kWord);
  for (std::uint64_t g = 0; g < geo.total_words(); ++g) std::memcpy(&origin_[g * kWord], &g, kWord);
  std::cout << "Each cell is node.addr of the word's starting place; * marks a word the step moved.\n\n";
  print("initial state", {});
}

void OriginView::advance(const AddressMap& dest, const std::string& title) {
  if (!on_) return;
  std::vector<unsigned char> next = reference_permute(origin_, kWord, geo_.total_words(), dest);
  print(title, next);
  origin_ = std::move(next);
}

std::uint64_t OriginView::at(const std::vector<unsigned char>& v, std::uint64_t g) const {
  std::uint64_t o = 0;
  std::memcpy(&o, &v[g * kWord], kWord);
  return o;
}

void OriginView::print(const std::string& title, const std::vector<unsigned char>& state) {
  const std::vector<unsigned char>& now = state.empty() ? origin_ : state;
  const std::uint64_t total = geo_.total_words(), K = geo_.words_per_node();
  std::vector<std::string> cells(total);
  std::size_t width = 1;
  for (std::uint64_t g = 0; g < total; ++g) {
    const std::uint64_t o = at(now, g);
    cells[g] = fmt::format("{}.{}", geo_.node_of(o), geo_.local_of(o));
    width = std::max(width, cells[g].size());
  }
  const std::size_t node_w = std::max<std::size_t>(4, fmt::format("{}", geo_.nodes() - 1).size());
  std::string out = title + "\n" + fmt::format("{:>{}} |", "node", node_w);
  for (std::uint64_t a = 0; a < K; ++a) out += fmt::format(" {:>{}} ", a, width);
  out += "\n" + std::string(node_w + 1, '-') + "+" + std::string(K * (width + 2), '-') + "\n";
  for (std::uint64_t j = 0; j < geo_.nodes(); ++j) {
    out += fmt::format("{:>{}} |", j, node_w);
    for (std::uint64_t a = 0; a < K; ++a) {
      const std::uint64_t g = geo_.global(j, a);
      out += fmt::format(" {:>{}}{}", cells[g], width, !state.empty() && at(now, g) != at(origin_, g) ? '*' : ' ');
    }
    out += "\n";
  }
  std::cout << out << "\n";
}

double run_verified(RunSession& s, const IoFlags& io, const Job& job,
                    const std::function<double(const Machine::Progress&)>& run) {
  ProgressBar bar(!io.json && ::isatty(2) == 1);
  return hcube::run_verified(s, job, run, bar.callback());
}

double execute_plan(RunSession& s, const IoFlags& io, Plan& plan) {
  // A plan of one step traces its states as tables; a schedule's prose trace
  // is the teaching view of where every word started.
  // Refused before the initial state is shown.
  if (io.trace && plan.job() != nullptr && !plan.job()->untraceable.empty()) throw Error(plan.job()->untraceable);
  const bool one_step = plan.job() != nullptr && !plan.job()->one_step.empty();
  IoFlags step_io = io;
  step_io.trace = io.trace && (io.json || one_step);
  begin_trace(s, step_io);
  if (!io.trace) {
    ProgressBar bar(!io.json && ::isatty(2) == 1);
    return execute_verified(s, plan, RunOptions{false, {}, bar.callback()});
  }
  // A traced run draws no bar: it reports every step instead, as JSON or as
  // the teaching view of where every word started.
  std::optional<OriginView> view;
  if (!io.json && !one_step) view.emplace(s.machine->geometry(), true);
  const StepObserver observe = [&](hcube::Session&, const TraceStep& t) {
    if (view) {
      view->advance(t.destination, t.title);
      return;
    }
    record_step(s, step_io, t.name);
    if (t.cycle != nullptr) s.trace.back()["exchanges"] = exchanges_json(*t.cycle);
    if (t.after_aapc != 0) s.trace.back()["after_aapc"] = t.after_aapc;
  };
  return execute_verified(s, plan, RunOptions{true, observe, {}});
}

nlohmann::json job_json(const std::string& command, const Job& job, const Counters& counters, double seconds) {
  const Schedule& sch = job.schedule;
  const ScheduleStats& st = job.stats;
  return {
      {"command", command},
      {"algorithm", sch.algorithm},
      {"d", sch.d},
      {"cycles", st.cycles},
      {"launches", counters.kernel_launches},
      {"exchanges", st.exchanges},
      {"element_hops", st.element_hops},
      {"max_span", st.max_span},
      {"min_channel_use", st.min_channel_use},
      {"mean_channel_use", st.mean_channel_use},
      {"block_transfers", st.block_transfers},
      {"max_block_size", st.max_block_size},
      {"min_in_transit", st.min_in_transit},
      {"max_in_transit", st.max_in_transit},
      {"seconds", seconds},
      {"permutation", job.permutation},
      {"formula", job.formula},
      {"lines", sch.lines.empty() ? nlohmann::json(nullptr) : nlohmann::json(sch.lines)},
      {"channel_width", sch.rules.channel_width},
      {"port_model", to_string(sch.rules.model)},
      {"blocked", sch.blocked},
      {"pre", to_string(sch.pre)},
      {"post", to_string(sch.post)},
  };
}

std::string join_uints(const std::vector<unsigned>& values, const char* separator) {
  std::string text;
  for (unsigned v : values) text += (text.empty() ? "" : separator) + std::to_string(v);
  return text;
}

RedistributionRun run_redistribution(RedistributePlan& plan, ElementType type, BackendChoice backend,
                                     long long tile_dims, NpyInput* opened,
                                     const std::shared_ptr<const NpyFile>& file, bool record_states,
                                     const std::string& output) {
  const RedistributionPlacement& pl = plan.placement();
  const Redistribution& r = pl.r;
  const std::size_t wb = info(type).bytes;
  // The machine first: it checks its own size before the host copies below are made.
  RedistributionRun run;
  run.machine = std::make_unique<Machine>(pl.machine(type, backend, tile_dims));
  Machine& mach = *run.machine;
  // Element g of the array: the file's (read through a small cache), or its
  // label. The machine is loaded and checked from this, so no copy of the
  // array or image of the machine is held beside it.
  const RedistElement element = input_elements(file, type);
  std::optional<InputFingerprint> streamed;
  if (opened != nullptr && !file)
    streamed = load_sources(mach, pl, *opened);
  else
    load_sources(mach, pl, element);
  // --trace --json on a small machine: every state, for hcube animate (the
  // reads then fall inside rep.seconds).
  nlohmann::json& states = run.states;
  const bool record = record_states && mach.geometry().total_words() <= kMaxTraceWords;
  run.recorded = record;
  const auto snapshot = [&](const std::string& name, const RedistStep* step) {
    nlohmann::json entry = {{"step", name}, {"state", state_json(mach.geometry(), type, mach.read())}};
    if (step != nullptr) {
      nlohmann::json msgs = nlohmann::json::array();
      for (const RedistMessage& m : *step)
        msgs.push_back({{"src_node", pl.source_node(m.src)}, {"dst_node", pl.destination_node(m.dst)},
                        {"elements", m.blocks.size() * r.unit()}});
      entry["messages"] = std::move(msgs);
    }
    states.push_back(std::move(entry));
  };
  if (record) snapshot("initial", nullptr);
  run.report = plan.execute_traced(mach, record ? RedistStepDone(snapshot) : nullptr);
  mach.release_scratch();  // the unpack's: a check after the run needs no scratch
  if (streamed)
    verify_redistribution(mach, pl, *streamed);
  else
    verify_redistribution(mach, pl, element);
  run.streamed = streamed.has_value();
  if (!output.empty()) {
    NpyWriter out(output, type, {receivers(r), pl.dest_words});
    store_destinations(mach, pl, [&](std::uint64_t, std::uint64_t words, const unsigned char* src) {
      out.write(src, words * wb);
    });
    out.commit();
  }

  return run;
}

// --- permute's report ----------------------------------------------------------

std::string subcube_text(const SdpProblem& r) {
  return r.machine_n > r.perm.n ? fmt::format(" on a subcube of a cube of n = {} (the extended cube)", r.machine_n)
                                : std::string();
}

nlohmann::json analysis_json(const SdpProblem& r) {
  nlohmann::json cycles = nlohmann::json::array();
  for (const ShuffleCycle& c : r.analysis.cycles) cycles.push_back({{"bits", c.bits}, {"kind", to_string(c.kind)}});
  const DimensionPermutationAnalysis& a = r.analysis;
  return {{"cycles", cycles},          {"sigma", a.sigma},         {"sigma_p", a.sigma_p},
          {"sigma_s", a.sigma_s},    {"beta", a.beta},           {"real_cycles", a.real_cycles},
          {"odd_real_cycles", a.odd_real_cycles}, {"separable", a.separable}};
}

// The paper's count beside hcube's (SdpPaperCount), as --json fields.
void add_paper_json(nlohmann::json& j, const SdpCandidate& k) {
  if (!k.paper) return;
  j["paper_element_transfers"] = k.paper->element_transfers;
  j["paper_startups"] = k.paper->startups;
  if (k.paper->bound > 0) j["element_transfers_bound"] = k.paper->bound;
  j["paper_note"] = k.paper->note;
}

std::string memory_text(const SdpProblem& r, const SdpPlan& plan) {
  const std::uint64_t times = memory_words(plan) / bit(r.perm.m);
  return times == 1 ? "K" : fmt::format("{}K", times);
}

// --- redistribute's report ------------------------------------------------------

std::string redistribution_steps_text(const RedistSchedule& sch) {
  std::string text;
  for (std::size_t t = 0; t < sch.steps.size(); ++t) {
    text += fmt::format("  step {}:", t);
    for (const RedistMessage& m : sch.steps[t]) text += fmt::format(" {}->{} [{}]", m.src, m.dst, fmt::join(m.blocks, ","));
    text += "\n";
  }
  return text;
}

nlohmann::json redistribution_trace(const RedistSchedule& sch) {
  nlohmann::json steps = nlohmann::json::array();
  for (std::size_t t = 0; t < sch.steps.size(); ++t) {
    nlohmann::json msgs = nlohmann::json::array();
    for (const RedistMessage& m : sch.steps[t])
      msgs.push_back({{"src", m.src}, {"dst", m.dst}, {"blocks", m.blocks.to_vector()}});
    steps.push_back({{"step", t}, {"messages", msgs}});
  }
  return steps;
}

nlohmann::json redistribution_json(const RedistributionReportContext& c, const RedistributionReport& rep,
                                 const Backend& backend) {
  const RedistributionPlacement& pl = c.plan.placement();
  const RedistSchedule& sch = c.plan.schedule();
  const Redistribution& r = pl.r;
  const RedistributionParams p = redistribution_params(r);
  const ElementType type = c.type;
  const double tc = c.tc;
  const RedistStats& st = rep.stats;
  return {{"command", "redistribute"},
          {"P", r.P},
          {"Q", r.Q},
          {"reverse", r.reverse},
          {"K", r.dest_block() % r.x == 0 ? nlohmann::json(r.dest_block() / r.x) : nlohmann::json(nullptr)},
          {"x", r.x},
          {"y", r.dest_block()},
          {"unit", r.unit()},
          {"N", r.N},
          {"schedule", sch.name},
          {"overlap", c.overlap},
          {"case", p.lemma_case == 0 ? nlohmann::json(nullptr) : nlohmann::json(p.lemma_case)},
          {"superblock_blocks", p.L},
          {"steps", st.steps},
          {"lower_bound_steps", st.partners},
          {"message_sizes", st.message_sizes},
          {"max_message", st.max_message},
          {"contention", st.contention},
          {"ts", c.ts},
          {"tc", tc},
          {"tau", tc},  // the old name of "tc"
          {"modelled_cost", st.modelled_cost(c.ts, tc)},
          {"schedule_seconds", c.schedule_seconds},
          {"router_program_bytes", redistribution_program_bytes(r)},
          {"launches", rep.launches},
          {"n", pl.n},
          {"m", pl.m},
          {"output_shape", {receivers(r), pl.dest_words}},
          {"source_words", pl.source_words},
          {"first_destination_word", pl.dest_offset()},
          {"first_destination_node", pl.destination_node(0)},
          {"type", info(type).name},
          {"backend", to_string(backend.kind())},
          {"device", backend.device_name()},
          {"verified", true},
          {"verified_by", "words"},  // a stream's run: "fingerprint"
          {"seconds", rep.seconds}};
}

nlohmann::json wisdom_json() {
  const WisdomInUse& u = wisdom_in_use();
  nlohmann::json j = {{"path", u.path}, {"in_use", u.wisdom.has_value()}};
  if (u.wisdom) {
    j["cpu"] = u.wisdom->cpu.model;
    j["created"] = u.wisdom->created;
    j["values"] = u.wisdom->values;
  } else {
    j["why_not"] = u.why_not;
  }
  return j;
}

std::string bench_text(const BenchResult& r, const BenchResult* idle) {
  const auto q = static_cast<unsigned>(r.request.log2_words);
  const ElementType type = r.request.type;
  const double spec = r.spec_bytes_per_second, throughput = r.throughput();
  const std::vector<double> run_ratios = r.run_ratios();
  const auto [low, high] = std::minmax_element(run_ratios.begin(), run_ratios.end());
  std::string out;
  out += fmt::format(
      "bench {}: {}\n2^{} {} words ({}), n = {}, m = {}, {} backend ({})\n"
      "median of {}: {:.6f} s, {} bytes read + written: {:.2f} GB/s\n"
      "{} of the same {} in this process, alternated with those runs: {:.6f} s, {:.2f} GB/s read + written\n"
      "ratio to {}: {:.1f}%{}, run by run {:.1f}% .. {:.1f}%\n",
      to_string(r.request.op), r.what, q, info(type).name, format_bytes(r.data_bytes), r.n, r.m, r.backend, r.device, r.request.repeat,
      r.time.seconds, r.bytes_moved, throughput / 1e9, r.gpu ? "a device copy kernel" : "memcpy",
      format_bytes(r.data_bytes), r.time.roofline_seconds, r.roofline() / 1e9, r.gpu ? "the copy kernel" : "memcpy",
      100 * r.ratio(),
      spec > 0 ? fmt::format(" ({:.1f}% of the stated {:.0f} GB/s)", 100 * throughput / spec, spec / 1e9) : "",
      100 * *low, 100 * *high);
  if (r.cycles > 0)
    out += fmt::format("{} routing cycle(s) a run, launched {}: {:.2f} us a cycle\n", r.cycles, to_string(r.request.launch),
               1e6 * r.time.seconds / static_cast<double>(r.cycles));
  if (r.check_seconds > 0) out += fmt::format("host checks, made once before the timed runs: {:.6f} s\n", r.check_seconds);
  if (r.direct_time)
    out += fmt::format("the same table with direct addresses and its 2 alignments: {:.6f} s, {:.1f}% of memcpy; unaligned "
               "throughput / direct = {:.2f}\n",
               r.direct_time->seconds,
               100 * ratio_to_memcpy(r.direct_bytes_moved, r.direct_time->seconds, r.data_bytes,
                                     r.direct_time->roofline_seconds),
               *r.ratio_to_direct());
  if (r.fftw_time)
    out += fmt::format("FFTW's transform of the same points ({} thread(s), {}), alternated with hcube's: {:.6f} s against "
               "hcube's {:.6f} s; ratio to FFTW (FFTW's time / hcube's) {:.3f}; max relative error {:.2g}\n",
               r.fftw_threads, r.request.fftw_plan, r.fftw_time->roofline_seconds, r.fftw_time->seconds,
               *r.ratio_to_fftw(), r.fft_error);
  if (idle)
    out += fmt::format("beside a busy process (the figures above); idle, the same run just before: {:.6f} s, {:.1f}% of "
               "memcpy; busy / idle = {:.2f}\n",
               idle->time.seconds, 100 * idle->ratio(), r.time.seconds / idle->time.seconds);
  return out;
}

nlohmann::json bench_json(const BenchResult& r) {
  const auto q = static_cast<unsigned>(r.request.log2_words);
  const ElementType type = r.request.type;
  const double spec = r.spec_bytes_per_second, throughput = r.throughput();
  nlohmann::json j = {{"command", "bench"},
                              {"op", to_string(r.request.op)},
                              {"words", bit(q)},
                              {"type", info(type).name},
                              {"n", r.n},
                              {"m", r.m},
                              {"bytes_moved", r.bytes_moved},
                              {"seconds", r.time.seconds},
                              {"memcpy_seconds", r.time.roofline_seconds},
                              {"throughput_bytes_per_second", throughput},
                              {"memcpy_bytes_per_second", r.roofline()},
                              {"ratio_to_memcpy", r.ratio()},
                              {"ratio_to_memcpy_runs", r.run_ratios()},
                              {"repeat", r.request.repeat},
                              {"backend", r.backend},
                              {"device", r.device},
                              {"version", version()},
                              {"roofline", r.gpu ? "copy kernel" : "memcpy"},
                              {"spec_bytes_per_second", spec > 0 ? nlohmann::json(spec) : nlohmann::json(nullptr)},
                              {"ratio_to_spec", spec > 0 ? nlohmann::json(throughput / spec) : nlohmann::json(nullptr)},
                              {"check_seconds", r.check_seconds},
                              {"what", r.what}};
  if (r.request.op == BenchOp::redistribute)
    for (const auto& [name, v] : {std::pair{"P", r.request.P}, {"Q", r.request.Q}, {"K", r.request.K}, {"x", r.request.x}})
      j[name] = v;
  if (r.request.op == BenchOp::aapc) j["algorithm"] = r.request.algorithm;
  j["launch"] = to_string(r.request.launch);
  if (r.cycles > 0) {
    j["cycles"] = r.cycles;
    j["seconds_per_cycle"] = r.time.seconds / static_cast<double>(r.cycles);
  }
  const LaunchStats& ls = r.launch_stats;
  j["launch_stats"] = {{"graphs_instantiated", ls.graphs_instantiated},
                       {"graphs_updated", ls.graphs_updated},
                       {"graphs_replayed", ls.graphs_replayed},
                       {"persistent_launches", ls.persistent_launches}};
  if (r.direct_time) {
    j["direct_seconds"] = r.direct_time->seconds;
    j["direct_bytes_moved"] = r.direct_bytes_moved;
    j["direct_ratio_to_memcpy"] =
        ratio_to_memcpy(r.direct_bytes_moved, r.direct_time->seconds, r.data_bytes, r.direct_time->roofline_seconds);
    j["ratio_to_direct"] = *r.ratio_to_direct();
  }
  if (r.request.op == BenchOp::fft) {
    j["points_log2"] = r.request.log2_words;
    j["nodes_log2"] = r.n;
    j["fftw_plan"] = r.request.fftw_plan;
    j["max_relative_error"] = r.fft_error;
  }
  // One process's baseline; across ranks the caller adds fftw3-mpi's.
  if (r.fftw_time) {
    j["fftw_threads"] = r.fftw_threads;
    j["fftw_seconds"] = r.fftw_time->roofline_seconds;
    j["ratio_to_fftw"] = *r.ratio_to_fftw();
  }
  if (!r.gpu && (r.request.op == BenchOp::fused_transpose || r.request.op == BenchOp::fused_bit_reversal ||
                  r.request.op == BenchOp::fused_permute)) {
    // The tile the CPU's block-transposing passes use: this host's wisdom, else the default.
    j["tile_bytes"] = fused_tile_bytes(info(type).bytes);
    j["wisdom"] = wisdom_json();
  }
  if (r.request.op == BenchOp::fused_permute) {
    j["perm"] = r.request.perm;
    if (r.request.perm == "random") j["seed"] = r.request.seed;
    j["to"] = r.to;
  }
  return j;
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

}  // namespace hcube::app

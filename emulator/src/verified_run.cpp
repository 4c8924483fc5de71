#include "hcube/emulator/verified_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "hcube/emulator/schedule_run.hpp"
#include "hcube/core/error.hpp"
#include "hcube/plans.hpp"

namespace hcube {

std::string backend_note(BackendChoice choice, const Backend& backend) {
  if (choice != BackendChoice::automatic) return {};
  if (backend.kind() == BackendKind::cuda) return "auto chose cuda: a GPU is present";
  std::string why;
  cuda_device_count(&why);
  return "auto chose cpu: " + why;
}

namespace {

// The machine and how auto chose its backend, with nothing loaded yet.
Session new_session(const MachineOptions& options) {
  Session s;
  s.machine = std::make_unique<Machine>(options);
  s.backend_note = backend_note(options.backend, s.machine->backend());
  return s;
}

// The input words of a cube of `total` words of `type` a chunk at a time, in
// order: f(first global address, words, bytes), from `source` or the labels g.
template <class F>
void for_each_input_chunk(ElementType type, std::uint64_t total, const NpyFile* source, F&& f) {
  const std::size_t wb = info(type).bytes;
  // 2^16 words: with the places and the gathered words, about 1.5 MiB held (u32).
  const std::uint64_t chunk = std::uint64_t{1} << 16;
  std::vector<unsigned char> buf(static_cast<std::size_t>(std::min(total, chunk) * wb));
  for (std::uint64_t g = 0; g < total; g += chunk) {
    const std::uint64_t words = std::min(chunk, total - g);
    if (source != nullptr) {
      source->read(g * wb, buf.data(), words * wb);
    } else {
      for (std::uint64_t k = 0; k < words; ++k) write_label(type, g + k, &buf[k * wb]);
    }
    f(g, words, buf.data());
  }
}

template <class F>
void for_each_input_chunk(const Session& s, F&& f) {
  for_each_input_chunk(s.machine->type(), s.machine->geometry().total_words(), s.source.get(), f);
}

}  // namespace

Session open_session(const MachineOptions& options, std::shared_ptr<const NpyFile> source) {
  Session s = new_session(options);
  const std::size_t wb = s.machine->word_bytes();
  s.machine->load_runs([&](std::uint64_t g, std::uint64_t words, void* dst) { source->read(g * wb, dst, words * wb); });
  s.source = std::move(source);
  s.placed = [](std::uint64_t g) { return g; };
  return s;
}

Session open_session(const MachineOptions& options, NpyInput& stream) {
  {
    const Geometry geo = make_geometry(options.n, options.m);
    check_machine_shape(stream.type(), stream.shape(), stream.path(), geo.n, geo.m, options.type);
  }
  Session s = new_session(options);
  Machine& mach = *s.machine;
  const Geometry& geo = mach.geometry();
  const std::size_t wb = mach.word_bytes();
  auto fp = std::make_shared<InputFingerprint>(geo.total_words());
  std::vector<std::uint64_t> places;
  // Each chunk to its words' places as it arrives (1 MiB: whole words of any type).
  stream.read_body([&](std::uint64_t offset, const unsigned char* bytes, std::size_t count) {
    const std::uint64_t g0 = offset / wb, words = count / wb;
    places.resize(words);
    for (std::uint64_t k = 0; k < words; ++k) {
      places[k] = g0 + k;
      fp->add(g0 + k, bytes + k * wb, wb);
    }
    mach.scatter(places.data(), words, bytes);
  });
  s.fingerprint = std::move(fp);
  s.placed = [](std::uint64_t g) { return g; };
  return s;
}

namespace {

// The labels of the session's current window (all of the address where it has none) loaded, and
// the reference back to "label g at g".
void start_labels(Session& s) {
  const unsigned q = s.machine->geometry().address_bits();
  if (s.windows.empty())
    s.machine->load_labels();
  else
    s.machine->load_labels(s.windows[s.window].map(q));
  s.placed = [](std::uint64_t g) { return g; };
  s.placed_form = AffineAddressMap::identity(q);
}

std::string windows_need_a_form(const Session& s) {
  const Geometry& geo = s.machine->geometry();
  return fmt::format("labels of n + m = {} address bits do not fit {} ({} bits): they are checked a window of bits "
                     "at a time, which needs each step's closed form, and this step has none: load data of your "
                     "own rather than labels, or use a type whose labels hold {} bits",
                     geo.address_bits(), info(s.machine->type()).name, info(s.machine->type()).label_bits,
                     geo.address_bits());
}

}  // namespace

Session open_session(const MachineOptions& options, std::vector<unsigned char> data, LabelMode labels,
                     unsigned window_bits) {
  // Labels the type cannot hold are refused before the machine is allocated.
  // (A bad n or m is left to the machine's own check, which names it.)
  if (data.empty() && labels == LabelMode::whole && options.n >= 0 && options.m >= 0 && options.n + options.m <= 64)
    check_labels_fit(Geometry{static_cast<unsigned>(options.n), static_cast<unsigned>(options.m)}, options.type);
  Session s = new_session(options);
  if (!data.empty()) {
    s.machine->load(data.data(), data.size());
    s.expected = std::move(data);
  } else {
    const Geometry& geo = s.machine->geometry();
    const unsigned width = window_bits != 0 ? window_bits : info(options.type).label_bits;
    if (labels == LabelMode::windows && width < geo.address_bits()) s.windows = label_windows(geo, options.type, width);
    start_labels(s);
  }
  return s;
}

const std::vector<unsigned char>& expected_words(Session& s) {
  if (!s.expected.empty() || !s.placed) return s.expected;
  if (!s.windows.empty()) throw Error(windows_need_a_form(s));
  if (s.fingerprint)
    throw Error("the input was a stream, read once and known by its fingerprint: its words are not held "
                "(a command that shows or computes the words reads a stream whole)");
  const std::size_t wb = s.machine->word_bytes();
  s.expected.resize(s.machine->bytes());
  for_each_input_chunk(s, [&](std::uint64_t g, std::uint64_t words, const unsigned char* bytes) {
    for (std::uint64_t k = 0; k < words; ++k) std::memcpy(&s.expected[s.placed(g + k) * wb], bytes + k * wb, wb);
  });
  s.placed = nullptr;
  s.placed_form.reset();
  s.source = nullptr;
  return s.expected;
}

void advance_reference(Session& s, const AddressMap& dest, const std::optional<AffineAddressMap>& form) {
  if (s.expected.empty() && s.placed) {
    // Each step verifies, so `placed` is evaluated for every word after every
    // step: a chain of N maps would make N steps cost N^2 words. A closed form
    // is one map; otherwise the places are tabled while the table is small.
    if (s.placed_form && form) {
      s.placed_form = s.placed_form->then(*form);
      s.placed = [placed = *s.placed_form](std::uint64_t g) { return placed(g); };
      return;
    }
    s.placed_form.reset();
    constexpr std::uint64_t kMaxTabledWords = std::uint64_t{1} << 22;  // 32 MiB of places
    const std::uint64_t total = s.machine->geometry().total_words();
    if (total > kMaxTabledWords) {
      s.placed = [before = std::move(s.placed), dest](std::uint64_t g) { return dest(before(g)); };
      return;
    }
    auto table = std::make_shared<std::vector<std::uint64_t>>(total);
    for (std::uint64_t g = 0; g < total; ++g) (*table)[g] = dest(s.placed(g));
    s.placed = [table](std::uint64_t g) { return (*table)[g]; };
    return;
  }
  const Machine& mach = *s.machine;
  s.expected = reference_permute(s.expected, mach.word_bytes(), mach.geometry().total_words(), dest);
}

void verify_share(const Machine& machine, const Geometry& geo, std::uint64_t base, const AddressMap& placed,
                  const NpyFile* source, const std::string& what, const InputFingerprint* fingerprint) {
  const Layout& layout = machine.layout();
  const std::size_t wb = machine.word_bytes();
  const std::uint64_t total = geo.total_words(), held = machine.geometry().total_words();
  const auto failure = [&](std::uint64_t g, const unsigned char* got, const std::string& reference) {
    return Error(fmt::format("verification of {} failed: word {} of node {} holds {}, the reference has {}", what,
                             geo.local_of(g), geo.node_of(g), format_element(machine.type(), got), reference));
  };
  if (fingerprint != nullptr) {
    // Each chunk of input words g: the words at their places placed(g), hashed
    // with g, must sum to what the input's words summed to as they arrived.
    if (base != 0 || held != total) throw Error("internal: a fingerprint checks a whole machine, not a share");
    const std::uint64_t chunk = fingerprint->chunk_words;
    std::vector<std::uint64_t> places;
    std::vector<unsigned char> got;
    for (std::uint64_t g0 = 0, c = 0; g0 < total; g0 += chunk, ++c) {
      const std::uint64_t words = std::min(chunk, total - g0);
      places.resize(words);
      for (std::uint64_t k = 0; k < words; ++k) {
        places[k] = placed(g0 + k);
        if (places[k] >= total)
          throw Error(
              fmt::format("verification of {}: the reference places word {} outside the machine", what, g0 + k));
      }
      got.resize(words * wb);
      machine.gather(places.data(), words, got.data());
      std::uint64_t sum = 0;
      for (std::uint64_t k = 0; k < words; ++k) sum += fingerprint->hash(g0 + k, &got[k * wb], wb);
      if (sum != fingerprint->sums[c])
        throw Error(fmt::format("verification of {} failed: the words at the reference places of input words {}..{} "
                                "are not the input's (their fingerprint differs)",
                                what, g0, g0 + words - 1));
    }
    return;
  }
  if (source != nullptr) {
    // The file's words, read again in order, each against the machine's word
    // at the place the reference gives it (when that place is here), gathered
    // a chunk at a time.
    std::vector<std::uint64_t> places, from;
    std::vector<unsigned char> got;
    for_each_input_chunk(machine.type(), total, source, [&](std::uint64_t g0, std::uint64_t words,
                                                            const unsigned char* bytes) {
      places.clear();
      from.clear();
      for (std::uint64_t k = 0; k < words; ++k) {
        const std::uint64_t p = placed(g0 + k);
        if (p >= total)
          throw Error(
              fmt::format("verification of {}: the reference places word {} outside the machine", what, g0 + k));
        if (p < base || p - base >= held) continue;
        places.push_back(p - base);
        from.push_back(k);
      }
      got.resize(places.size() * wb);
      machine.gather(places.data(), places.size(), got.data());
      for (std::size_t i = 0; i < places.size(); ++i) {
        const unsigned char* word = &got[i * wb];
        const unsigned char* want = bytes + from[i] * wb;
        if (!std::equal(word, word + wb, want))
          throw failure(base + places[i], word, format_element(machine.type(), want));
      }
    });
    return;
  }
  // Labelled data: the word here must be the one label whose place is here.
  machine.scan_storage([&](std::uint64_t first, std::uint64_t words, const unsigned char* data) {
    for (std::uint64_t k = 0; k < words; ++k) {
      const std::uint64_t g = base + machine.geometry().global(layout.node_at(first + k), layout.local_at(first + k));
      const unsigned char* got = data + k * wb;
      std::uint64_t label = 0;
      try {
        label = read_label(machine.type(), got);
      } catch (const Error&) {
        throw failure(g, got, "a label");
      }
      if (label >= total) throw failure(g, got, fmt::format("a label below {}", total));
      const std::uint64_t home = placed(label);
      if (home != g)
        throw failure(g, got,
                      fmt::format("another label ({} belongs at word {} of node {})",
                                  format_element(machine.type(), got), geo.local_of(home), geo.node_of(home)));
    }
  });
}

namespace {

// The word at g must hold label_at(g), counted on the backend; `what` names the check in the error.
void check_label_values(const Machine& machine, const Geometry& geo, std::uint64_t base,
                        const AffineAddressMap& label_at, const std::string& what) {
  const Machine::LabelCheck check = machine.count_label_mismatches(label_at, base);
  if (check.mismatches == 0) return;
  std::vector<unsigned char> got(machine.word_bytes()), want(machine.word_bytes());
  machine.gather(&check.first, 1, got.data(), "verify");
  const std::uint64_t g = base + check.first;
  write_label(machine.type(), label_at(g), want.data());
  throw Error(fmt::format("verification of {} failed: word {} of node {} holds {}, the reference has {} ({} of {} words "
                          "differ)",
                          what, geo.local_of(g), geo.node_of(g), format_element(machine.type(), got.data()),
                          format_element(machine.type(), want.data()), check.mismatches,
                          machine.geometry().total_words()));
}

// Labels in windows: the word at g must hold window k of the address it came from, source(g).
// The error names the window where there are several.
void check_window(const Machine& machine, const AffineAddressMap& source, const std::vector<LabelWindow>& windows,
                  std::size_t k, const std::string& what) {
  const Geometry& geo = machine.geometry();
  const LabelWindow& w = windows[k];
  check_label_values(machine, geo, 0, source.then(w.map(geo.address_bits())),
                     windows.size() <= 1 ? what
                                         : fmt::format("{} (labels: address bits {}..{})", what, w.lo, w.lo + w.width - 1));
}

}  // namespace

void verify_labels(const Machine& machine, const Geometry& geo, std::uint64_t base, const AffineAddressMap& placed,
                   const std::string& what) {
  // Label x belongs at placed(x): the word at g must be the label placed^-1(g).
  check_label_values(machine, geo, base, placed.inverse(), what);
}

void verify_in_windows(Machine& machine, const AffineAddressMap& destination,
                       const std::function<void(std::size_t window)>& run, const std::string& what, unsigned width) {
  const Geometry& geo = machine.geometry();
  const std::vector<LabelWindow> windows = label_windows(geo, machine.type(), width);
  // The word now at g came from destination^-1(g): it must hold that address's window.
  const AffineAddressMap source = destination.inverse();
  for (std::size_t k = 0; k < windows.size(); ++k) {
    machine.load_labels(windows[k].map(geo.address_bits()));
    run(k);
    check_window(machine, source, windows, k, what);
  }
}

void verify(Session& s, const std::string& what) {
  const Machine& machine = *s.machine;
  const Geometry& geo = machine.geometry();
  const Layout& layout = machine.layout();
  const std::size_t wb = machine.word_bytes();
  if (s.expected.empty() && s.placed && s.source == nullptr && s.placed_form) {
    if (s.windows.empty()) {
      verify_labels(machine, geo, 0, *s.placed_form, what);
      return;
    }
    check_window(machine, s.placed_form->inverse(), s.windows, s.window, what);
    return;
  }
  if (!s.windows.empty()) throw Error(windows_need_a_form(s));
  if (s.expected.empty() && s.placed) {
    verify_share(machine, geo, 0, s.placed, s.source.get(), what, s.fingerprint.get());
    return;
  }
  machine.scan_storage([&](std::uint64_t first, std::uint64_t words, const unsigned char* data) {
    for (std::uint64_t k = 0; k < words; ++k) {
      const std::uint64_t g = geo.global(layout.node_at(first + k), layout.local_at(first + k));
      const unsigned char* got = data + k * wb;
      if (!std::equal(got, got + wb, &s.expected[g * wb]))
        throw Error(fmt::format("verification of {} failed: word {} of node {} holds {}, the reference has {}", what,
                                geo.local_of(g), geo.node_of(g), format_element(machine.type(), got),
                                format_element(machine.type(), &s.expected[g * wb])));
    }
  });
}

void run_step(Session& s, const std::string& name, const AddressMap& dest, const std::function<void(Machine&)>& step) {
  step(*s.machine);
  advance_reference(s, dest);
  verify(s, name);
}

void run_step(Session& s, const std::string& name, const ReferenceStep& reference,
              const std::function<void(Machine&)>& step) {
  std::vector<unsigned char> next = reference(expected_words(s));
  step(*s.machine);
  s.expected = std::move(next);
  verify(s, name);
}

std::string alignment_text(AlignmentKind kind, const AffineMap& code, bool before) {
  const std::string xor_text = "(j|i) -> (j|i xor j)";
  if (kind == AlignmentKind::none) return code.describe();
  if (code.is_identity()) return xor_text;
  return before ? "i -> f(i): " + code.describe() + ", then " + xor_text
                : xor_text + ", then i -> g(i): " + code.describe();
}

std::string exchanges_text(const Cycle& cycle) {
  std::string text;
  for (const Exchange& x : cycle) {
    text += fmt::format("{}dim {}: addr {}", text.empty() ? "" : "; ", x.dim, x.addr);
    if (x.peer_addr != x.addr) text += fmt::format(", peer {}", x.peer_addr);
    if (x.offset_map != 0) text += fmt::format(" (map {})", x.offset_map);
  }
  return text.empty() ? "no exchanges" : text;
}

namespace {

// The run step by step, each step verified against its own reference and shown to the observer.
double run_traced(Session& s, const Job& job, const StepObserver& observer) {
  Machine& mach = *s.machine;
  const Schedule& sch = job.schedule;
  for_each_job_step(job, mach.geometry(), [&](const TraceStep& t, const AlignmentStep* align) {
    run_step(s, t.name, t.destination, [&](Machine& m) {
      if (align != nullptr)
        m.align(*align);
      else
        m.run_cycle(*t.cycle, sch.rules, sch.offset_maps);
    });
    if (observer) observer(s, t);
  });
  const Counters& k = mach.counters();
  return k.phase_seconds("routing") + k.phase_seconds("alignment");
}

}  // namespace

void for_each_job_step(const Job& job, const Geometry& geo, const JobStepVisitor& visit) {
  const Schedule& sch = job.schedule;
  const std::vector<AlignmentStep> pre = schedule_pre_alignment(sch, job.f);
  for (std::size_t k = 0; k < pre.size(); ++k)
    visit(TraceStep{k == 0 ? "pre-alignment" : fmt::format("pre-alignment {}", k + 1),
                    k == 0 ? "after the pre-alignment " +
                                 (job.pre_text.empty() ? alignment_text(sch.pre, job.f, true) : job.pre_text)
                           : "after the pre-alignment of the rotated rows (local addresses " +
                                 fmt::format("{}..{}", pre[k].lo, pre[k].end() - 1) + ")",
                    alignment_destination(pre[k]), nullptr, 0},
          &pre[k]);
  for (std::size_t c = 0; c < sch.cycles(); ++c) {
    const Cycle cycle = sch.cycle(c);
    std::string title = fmt::format("after routing cycle {} of {}: {}", c, sch.cycles(), exchanges_text(cycle));
    // The last cycle of an AAPC of a sequential sequence: its end is marked.
    const std::size_t aapc = job.aapc_cycles != 0 && (c + 1) % job.aapc_cycles == 0 ? (c + 1) / job.aapc_cycles : 0;
    if (aapc != 0) {
      title += fmt::format("\nafter AAPC {} of {}", aapc, sch.cycles() / job.aapc_cycles);
      if (aapc <= job.aapc_notes.size()) title += ": " + job.aapc_notes[aapc - 1];
    }
    visit(TraceStep{fmt::format("routing cycle {}", c), title, cycle_destination(geo, cycle, sch.offset_maps), &cycle,
                    aapc},
          nullptr);
  }
  const std::vector<AlignmentStep> post = schedule_post_alignment(sch, job.g);
  for (std::size_t k = 0; k < post.size(); ++k)
    visit(TraceStep{k + 1 == post.size() ? "post-alignment" : fmt::format("post-alignment {}", k + 1),
                    k + 1 == post.size()
                        ? "after the post-alignment " +
                              (job.post_text.empty() ? alignment_text(sch.post, job.g, false) : job.post_text)
                        : "after the post-alignment of the rotated rows (local addresses " +
                              fmt::format("{}..{}", post[k].lo, post[k].end() - 1) + ")",
                    alignment_destination(post[k]), nullptr, 0},
          &post[k]);
}

namespace {

// The whole result against job.destination; a job without one leaves the
// session with no reference (nothing names what the data should be).
void check_result(Session& s, const Job& job) {
  if (!job.destination) {
    s.expected.clear();
    s.placed = nullptr;
    s.placed_form.reset();
    return;
  }
  advance_reference(s, job.destination, job.destination_form);
  verify(s, fmt::format("the {} {}", job.permutation, job.formula));
}

}  // namespace

double run_verified(Session& s, const Job& job, const std::function<double(const Machine::Progress&)>& run,
                    const Machine::Progress& progress) {
  const double seconds = run(progress);
  check_result(s, job);
  return seconds;
}

namespace {

// Labels in windows (Session::windows): the run once for each window but the first, each
// checked against the whole run's closed form; then window 0 reloaded for the counted run, so
// the counts and phases are one run's, and the other windows' runs and checks are time spent
// verifying ("verify"). Window 0 last leaves the labels' low bits in the result (--output).
void check_other_windows(Session& s, const Job& job, const std::function<void()>& execute) {
  if (s.windows.size() < 2) return;
  if (!job.destination_form) throw Error(windows_need_a_form(s));
  Machine& mach = *s.machine;
  const Counters counted = mach.counters();
  const auto start = std::chrono::steady_clock::now();
  for (s.window = 1; s.window < s.windows.size(); ++s.window) {
    start_labels(s);
    execute();
    check_result(s, job);
  }
  s.window = 0;
  start_labels(s);
  Counters verifying;
  verifying.add_phase("verify", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  mach.reset_counters();
  mach.add_counters(counted);
  mach.add_counters(verifying);
}

}  // namespace

double execute_verified(Session& s, Plan& plan, const RunOptions& options) {
  const Job* job = plan.job();
  if (job == nullptr) throw Error("this plan checks its own result: it has no job for an observer to follow");
  // The runs that check the whole result at once take the other label windows first.
  if (!job->one_step.empty() || !options.trace) check_other_windows(s, *job, [&] { plan.execute(*s.machine); });
  if (!job->one_step.empty()) {
    // One step, verified against the whole run's destination as it is taken
    // (its words compared, traced or not).
    const auto start = std::chrono::steady_clock::now();
    plan.execute(*s.machine);
    advance_reference(s, job->destination, job->destination_form);  // labels then checked where they are
    verify(s, job->one_step);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.trace && options.observer)
      options.observer(s, TraceStep{job->one_step, "after the " + job->one_step, job->destination, nullptr, 0});
    return seconds;
  }
  if (!options.trace)
    return run_verified(
        s, *job,
        [&](const Machine::Progress& progress) {
          const auto start = std::chrono::steady_clock::now();
          plan.execute(*s.machine, progress);
          return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        },
        options.progress);
  if (!job->untraceable.empty()) throw Error(job->untraceable);
  // A traced run advances the reference step by step: the whole result is
  // then checked against the formula from a copy of the start (traces are small).
  std::vector<unsigned char> initial = expected_words(s);
  const double seconds = run_traced(s, *job, options.observer);
  s.expected = std::move(initial);
  check_result(s, *job);
  return seconds;
}

}  // namespace hcube

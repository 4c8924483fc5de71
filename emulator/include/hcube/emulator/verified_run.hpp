// A verified run: a machine, its data, and the reference state it must reach,
// computed independently of the code under test (the permutation from its
// address formula). Every step can be checked bit for bit and observed as
// data (a trace); the command line, the teaching page, the tests and the
// Python binding all run through here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hcube/emulator/fingerprint.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/npy.hpp"
#include "hcube/host/affine_map.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/host/schedule.hpp"

namespace hcube {

class Plan;

// A machine with its data loaded and the reference state. Labelled data needs
// no host copy: the reference is where each label now belongs, so a run's
// peak memory stays near the data size (the words are made only when a step
// must show or compute them: a trace, the router step).
struct Session {
  std::unique_ptr<Machine> machine;
  std::vector<unsigned char> expected;  // the reference state, when held as words
  AddressMap placed;                    // expected empty: input word g belongs at global address placed(g)
  // placed's closed form, while every step so far had one: labelled data is
  // then checked on the backend (Machine::count_label_mismatches), not copied out.
  std::optional<AffineAddressMap> placed_form;
  // Where the input words are, when not held: the input file, or (a stream's)
  // only their fingerprint, else the labels g.
  std::shared_ptr<const NpyFile> source;
  std::shared_ptr<const InputFingerprint> fingerprint;
  std::string backend_note;             // how BackendChoice::automatic chose
  // Labels of more address bits than the type holds (n + m = 34 for uint32), opened with
  // LabelMode::windows: a window of the address bits at a time (label_windows), the current one
  // loaded. execute_verified runs the plan once more for each other window and checks it.
  std::vector<LabelWindow> windows;
  std::size_t window = 0;
};

// Address labels whose values the type cannot all hold: an error (whole), or windows of the
// address bits (windows), which only a caller that repeats its run per window may ask for
// (execute_verified does; a step by step command would check the low bits alone).
enum class LabelMode { whole, windows };

// How BackendChoice::automatic chose `backend`, in words (empty for an explicit choice).
std::string backend_note(BackendChoice choice, const Backend& backend);

// `data` in the user's order (2^n x K words; empty: the address labels).
// `window_bits` (LabelMode::windows): windows of at most that many bits, even where the type
// holds every label (0: the type's label bits; a test's narrow windows on a small machine).
Session open_session(const MachineOptions& options, std::vector<unsigned char> data = {},
                     LabelMode labels = LabelMode::whole, unsigned window_bits = 0);
// The machine loaded from a .npy file in pieces; the file stays the reference,
// read again to verify, so no host copy of the data is made.
Session open_session(const MachineOptions& options, std::shared_ptr<const NpyFile> source);

// The machine loaded from a stream (a pipe, a FIFO) in order, a chunk at a
// time, so no host copy of the data is held: a stream cannot be read again,
// so the reference is the input's fingerprint and verify() checks against it.
// The input's shape and type are checked against the machine first.
Session open_session(const MachineOptions& options, NpyInput& stream);

// The reference state as words (made from the labels' places on first use);
// a session holding only a stream's fingerprint has none and throws.
const std::vector<unsigned char>& expected_words(Session& s);
// Advances the reference by a permutation: the word at global address g moves
// to dest(g); `form`, when given, is dest's closed form (the same map).
void advance_reference(Session& s, const AddressMap& dest, const std::optional<AffineAddressMap>& form = std::nullopt);
// Compares the machine with the reference, chunk by chunk, or for labelled
// data whose reference has a closed form on the backend in one pass; throws
// hcube::Error naming the first word that differs.
void verify(Session& s, const std::string& what);
// The same check of labelled or file data (the input word g belongs at global
// address placed(g); `source` null: the labels g) on a machine that holds the
// words [base, base + its words) of a cube of geometry `geo`: base 0 and the
// machine's own geometry for a whole machine, a rank's share of a distributed one.
// `fingerprint` (a whole machine only): the input is known by its fingerprint.
void verify_share(const Machine& machine, const Geometry& geo, std::uint64_t base, const AddressMap& placed,
                  const NpyFile* source, const std::string& what, const InputFingerprint* fingerprint = nullptr);

// Checks a data-oblivious run (its words move the same way whatever they
// hold: a schedule, a permutation) that sends the word at g to destination(g),
// on the backend against the closed form: once per label window of the
// machine (label_windows, `width` 0: as wide as the type allows), labels
// loaded, run(window index), counted against the window of the source
// address. The windows cover every address bit, so a word misplaced in any
// bit fails one of them. Throws naming the window and the first wrong word.
void verify_in_windows(Machine& machine, const AffineAddressMap& destination,
                       const std::function<void(std::size_t window)>& run, const std::string& what,
                       unsigned width = 0);

using ReferenceStep = std::function<std::vector<unsigned char>(const std::vector<unsigned char>&)>;
// Runs one step on the machine, advances the reference by the same step and
// verifies the two bit for bit. A permutation step given by its destination
// formula; any other step by a function of the whole state.
void run_step(Session& s, const std::string& name, const AddressMap& dest, const std::function<void(Machine&)>& step);
void run_step(Session& s, const std::string& name, const ReferenceStep& reference,
              const std::function<void(Machine&)>& step);

// What a plan's execution does and what it must produce (Plan::job): its
// schedule, step by step, and its reference, the destination formula.
struct Job {
  Schedule schedule;
  ScheduleStats stats;
  // The permutation's code conversions, folded into the alignments (set for the schedule's geometry).
  AffineMap f{Geometry{}}, g{Geometry{}};
  AddressMap destination;   // where the whole run sends every word: the reference (empty: not verified)
  std::string permutation;  // its name
  std::string formula;
  // A trace's words for the alignments (empty: alignment_text's description).
  std::string pre_text, post_text;
  // A sequential sequence of AAPCs: each AAPC's cycles, its end marked
  // "after AAPC t of s" with aapc_notes[t - 1] (0: no marks).
  std::size_t aapc_cycles = 0;
  std::vector<std::string> aapc_notes;
  // destination's closed form, when it has one: labelled data is then verified
  // on the backend (Session::placed_form).
  std::optional<AffineAddressMap> destination_form = std::nullopt;
  // A plan that is one step, not a schedule (a fused permutation): a traced
  // run shows it as one step of this name.
  std::string one_step;
  // Why a traced run cannot follow the plan step by step (empty: it can).
  std::string untraceable;
};

// One step of a traced run, after it ran and was verified: the state is
// expected_words(session).
struct TraceStep {
  std::string name;         // "pre-alignment", "routing cycle 3", "post-alignment"
  std::string title;        // the step in words, for a printed trace
  AddressMap destination;   // where the step sent every word
  const Cycle* cycle = nullptr;  // the routing cycle's exchanges (null for alignments)
  std::size_t after_aapc = 0;    // > 0: this cycle ends AAPC after_aapc of a sequential sequence
};
using StepObserver = std::function<void(Session&, const TraceStep&)>;

// The job's schedule as a traced run takes it, step by step: its pre-alignments,
// cycles and post-alignments, each named and described (TraceStep) with the
// alignment (`align`) or the cycle (`step.cycle`, run with the schedule's rules and
// offset maps) that makes it. On one machine (execute_verified) or across ranks.
using JobStepVisitor = std::function<void(const TraceStep& step, const AlignmentStep* align)>;
void for_each_job_step(const Job& job, const Geometry& geo, const JobStepVisitor& visit);

struct RunOptions {
  // Step by step, each step verified against its own reference and shown to the observer.
  bool trace = false;
  StepObserver observer;
  Machine::Progress progress;  // untraced runs: called now and then
};

// A plan executed on the session's machine and observed: verified against
// its job's destination applied to the initial state, and with options.trace
// run step by step, each step verified and shown to options.observer.
// Returns the seconds the data motion took. Throws for a plan with no job.
double execute_verified(Session& s, Plan& plan, const RunOptions& options = {});
// The same for any way of running it: `run` moves the data on s.machine (with
// the progress callback) and returns its seconds; the result is verified
// against job.destination.
double run_verified(Session& s, const Job& job, const std::function<double(const Machine::Progress&)>& run,
                    const Machine::Progress& progress = {});

// What an alignment does, in the paper's notation; f (before the xor) or g
// (after it) is a permutation's code conversion.
std::string alignment_text(AlignmentKind kind, const AffineMap& code, bool before);
// "dim k: addr a; ...", with ", peer a'" and " (map i)" where they apply.
std::string exchanges_text(const Cycle& cycle);


}  // namespace hcube

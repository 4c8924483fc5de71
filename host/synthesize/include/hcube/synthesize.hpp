// Schedule synthesis: the fewest routing cycles of an AAPC, a sequence of AAPCs
// (Johnsson & Ho 1992, sec. 2.3, Corollary 2) or a permutation of the address
// bits (hcube permute's, Ho & Johnsson 1988) on hcube's machine, found
// by a SAT solver (CaDiCaL, linked as a library) and written as a schedule
// (hcube-schedule/1) that check_schedule accepts and `hcube run` verifies.
// Apart from hcube_host and not installed: only the program and the tests link
// CaDiCaL, so a consumer of the installed library needs no SAT solver.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hcube/host/grid_scatter.hpp"
#include "hcube/host/multi_aapc_plan.hpp"
#include "hcube/host/schedule.hpp"

namespace hcube {

// What a user asks (the flags of hcube synthesize), checked by synthesize().
struct SynthesisRequest {
  std::string pattern = "aapc";        // "aapc", "multi-aapc", "permute" or "scatter"
  std::string dims;                    // aapc: d; multi-aapc: d (with axes) or d_1,d_2,... (non-increasing); permute: n
  long long axes = kUnsetSize;         // multi-aapc: s
  long long m = kUnsetSize;            // memory bits (default: d, the first axis' order; permute: n)
  std::string perm;                    // permute: the address bits' permutation, as hcube permute's --perm
  long long max_cycles = kUnsetSize;   // the most cycles tried (unset: until found or out of time)
  double time_limit = 0;               // seconds for the whole search; 0: none
  std::string port_model;              // "all" or "one"; empty: the pattern's (scatter one, else all)
  std::string topology;                // scatter: ring:z, torus:AxB, mesh:AxB or cube:d (hcube scatter's)
};

// One solver call: T cycles, on the full machine model or the restricted one
// searched first (words keep their addresses and take shortest paths; for an
// AAPC also no offset maps), before it, for AAPCs on equal axes with m >= d, the
// restricted schedules the translations (c, ..., c) keep, and what it answered.
struct SynthesisRun {
  std::uint64_t cycles = 0;
  std::string model;   // "symmetric", "restricted" or "full"
  std::string status;  // "SAT", "UNSAT", "UNKNOWN" (out of time)
  double seconds = 0;
};

struct SynthesisResult {
  std::string pattern;
  std::vector<unsigned> widths;  // the axes' orders (one for an AAPC; none for a permutation)
  std::vector<unsigned> perm;    // permute: source address bit i goes to bit perm[i]
  unsigned n = 0, m = 0;
  std::string port_model;        // as asked, or the pattern's default
  Schedule schedule;             // checked (check_schedule) and simulated against its target (not scatter)
  ScatterRounds scatter;         // scatter: the rounds, checked (check_scatter_rounds)
  std::uint64_t cycles = 0;
  bool optimal = false;          // cycles - 1 is proven impossible
  std::uint64_t lower_bound = 0; // no schedule of the machine takes fewer cycles
  std::string lower_bound_proof; // "distance", "channels" or "unsat" (the solver, full model); scatter:
                                 // "bisection", "one-port", "links", "ports" or "unsat"
  std::uint64_t distance_bound = 0;  // the farthest word's distance in dimensions (2 for one that only changes address)
  std::uint64_t channel_bound = 0;   // the busiest dimension's words (or all words' crossings) over what it carries a cycle
  std::uint64_t unsat_at = 0;        // the largest T the full model proved impossible (0: none tried)
  std::uint64_t variables = 0, clauses = 0;
  std::vector<SynthesisRun> runs;
  double seconds = 0;
};

// Whether this build links CaDiCaL; its name and version ("CaDiCaL 1.5.3") or why not.
bool synthesis_available();
std::string synthesis_solver();
// Searches T = lower bound, lower bound + 1, ... (incrementally, one solver),
// each T first on the restricted model, then on the full one; throws
// hcube::Error, one line naming the value and its allowed range, on a bad
// request, and when no schedule is found within max_cycles or time_limit.
SynthesisResult synthesize(const SynthesisRequest& r);
// Writes the result's file: hcube-scatter/1 for a scatter, hcube-schedule/1 otherwise.
void save_synthesis(const std::string& path, const SynthesisResult& r);
// The result in a line: cycles (rounds), optimal, the lower bound and its proof.
std::string synthesis_summary(const SynthesisResult& r);
// The result as `hcube synthesize --json` prints it (docs/synthesize.md), less command and output.
nlohmann::json to_json(const SynthesisResult& r);

}  // namespace hcube

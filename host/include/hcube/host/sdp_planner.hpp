// Planning a stable dimension permutation (Ho & Johnsson 1988): every
// algorithm the port model allows, built or with the condition that keeps it
// out, each priced by the paper's cost model (sec. 4.6), and the choice: the
// lowest modelled time, or the algorithm the user names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/sdp_schedules.hpp"

namespace hcube {

// a3_a1: A3 with each processor transposition by A1 on its 2-cube (sec. 4.3.2);
// a4_prime, a6_prime: A4 and A6 built on A1' (sec. 4.6).
enum class SdpAlgorithm { automatic, a1, a1_prime, a2, a3, a4, a5, a6, edelman, a3_a1, a6_prime, a4_prime, a3_pipelined };
// "auto", "A1", "A1'", "A2", "A3", "A4", "A5", "A6", "Edelman", "A3-A1", "A6'", "A4'", "A3-pipelined"; throws naming the allowed ones.
SdpAlgorithm parse_sdp_algorithm(const std::string& s);
std::string to_string(SdpAlgorithm a);
std::string sdp_algorithm_names();  // "auto, A1, A1', A2, A3, A4, A5, A6, Edelman, A3-A1, A6', A4', A3-pipelined"

enum class PortModelChoice { one, all };
PortModelChoice parse_ports(const std::string& s);  // "one" | "all"
std::string to_string(PortModelChoice p);

// The model's parameters (sec. 4.6): t_c per word sent, tau per start-up
// (packet of at most B words; B = -1: K, no limit).
struct SdpCost {
  PortModelChoice ports = PortModelChoice::one;
  double t_c = 1.0;
  double tau = 0.0;
  std::optional<long long> packet;  // B; unset: K
  long long gamma = 0;    // A5's piece order (sec. 4.3); 0: the largest divisor of every real cycle order
  SdpEffort effort = SdpEffort::estimate;  // the n-port algorithms' dealing search
};
// Throws naming the value unless t_c, tau are finite and >= 0, B >= 1 (or -1)
// and 0 <= gamma <= 64.
void check_sdp_cost(const SdpCost& c);
std::uint64_t packet_words(const SdpCost& c, unsigned m);

// The permutation on the data's cube, its analysis and Theorem 1's (or
// Corollary 4's) bound. With subcube_dims k < n the data fills the first k
// processor dimensions of an n-cube (the extended cube, sec. 4).
struct SdpProblem {
  DimensionPermutation perm;          // on the data's n = k (or n) and m
  DimensionPermutationAnalysis analysis;
  DimensionPermutationBound bound;
  unsigned machine_n = 0;             // > perm.n in the extended cube
  SdpCost cost;
};
// perm_text: as parse_dimension_permutation. Every size is checked, and the
// schedules' size bounded, before anything is planned.
SdpProblem analyse_sdp(const std::string& perm_text, long long n, long long m, const SdpCost& cost,
                       std::optional<long long> subcube_dims = std::nullopt);

// The paper's count for an algorithm (sec. 4.3, Table 3, Table 4) beside
// hcube's: Theorem 2 and Table 3 give A3, A4, A5 and A6 in words on the
// busiest link (element transfers) and start-ups, with the data split into
// fractional parts. `bound` is the fewest element transfers any schedule made
// of the algorithm's exchanges can have at this K (docs/sdp.md, "The paper's
// counts"): the data goes in whole units of W words (closed under the pivots);
// each unit makes S_i exchanges of W/2 words on the sigma_i dimensions of real
// cycle i (A4, A6: sigma_i + 1; A5: sigma_i + mu_i), at most one a cycle, so
// some dimension of cycle i carries ceil(U S_i / sigma_i) W/2 words, and a
// cycle with a_c active units carries ceil(a_c / sigma_p) W/2 on its busiest.
struct SdpPaperCount {
  double element_transfers = 0;  // the paper's t_c term, in words
  double startups = 0;           // the paper's tau coefficient
  std::uint64_t bound = 0;       // 0: none derived (A3)
  std::string note;              // empty when hcube's count is within a word of the paper's
};

struct SdpCandidate {
  SdpAlgorithm algorithm = SdpAlgorithm::a1;
  PortModelChoice ports = PortModelChoice::one;  // the port model its schedule needs
  std::optional<SdpPlan> plan;
  std::string why_not;  // when plan is empty: the condition that fails
  SdpModel model;
  // For A1, A1' and A3-pipelined (n-port), A3 and A3-A1 (one-port), A4, A5, A6, A4' and A6' on a
  // separable permutation filling the cube.
  std::optional<SdpPaperCount> paper;
};

// The lower bound of SdpPaperCount: U units of W words, steps[i] exchanges of
// each unit on the sizes[i] dimensions of cycle i, at most one a cycle, in
// `cycles` cycles: max(max_i ceil(U steps_i / sizes_i), min over the cycles'
// active units a_c (sum U sum_i steps_i, each <= U) of sum_c ceil(a_c / sum_i sizes_i)) W/2.
std::uint64_t sdp_transfer_bound(std::uint64_t units, std::uint64_t unit_words, const std::vector<std::uint64_t>& steps,
                                 const std::vector<std::uint64_t>& sizes, std::uint64_t cycles);
// Every algorithm the ports allow, in a fixed order.
std::vector<SdpCandidate> sdp_candidates(const SdpProblem& p);
// The lowest modelled time among those that apply, or the named algorithm
// (its form for the ports asked when it has one). Throws with every reason
// when none applies.
const SdpCandidate& choose_sdp(const std::vector<SdpCandidate>& all, SdpAlgorithm algorithm, PortModelChoice ports);

// Theorem 1's start-ups in sequence (one-port: sigma_p exchanges of K/2 words at least).
std::uint64_t lower_bound_cycles(const SdpProblem& p);
// Words a node needs: the plan's machine's K (2K for A1'), twice that when the
// final local reordering is no involution (it then runs through scratch).
std::uint64_t memory_words(const SdpPlan& plan);
// A plan whose machine the data fills and with no alignment after its cycles
// runs as one schedule between alignments (traceable); the others through
// run_sdp_plan on a machine of their own geometry.
bool runs_as_schedule(const SdpPlan& plan);

// "0,1,2": the permutation as PermutePlan::Options::perm lists it.
std::string perm_text(const DimensionPermutation& p);
// "(real: 3->4) (mixed: 0->5->1)".
std::string cycles_text(const DimensionPermutationAnalysis& a);

}  // namespace hcube

// Building one AAPC schedule from a user's choice (Johnsson & Ho 1992):
// Algorithms 1-4, Edelman's table, or the lecture notes' SEX/DEX baselines,
// then blocked (sec. 5) or widened (sec. 6); the paper's cycle count beside it.
// The command line and the library's AapcPlan both build through here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "hcube/host/aapc.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/host/schedule.hpp"

namespace hcube {

// Every way hcube builds one AAPC schedule. The schedule file keeps the
// spelling of to_string ("1".."4", "edelman", "sex", "dex").
enum class AapcMethod { alg1, alg2, alg3, alg4, edelman, sex, dex };
// "1".."4", "edelman", "sex", "dex"; throws naming the allowed ones.
AapcMethod parse_aapc_method(const std::string& s);
std::string to_string(AapcMethod m);
// The method a schedule was built with; none for other schedules ("custom", multi-AAPC).
std::optional<AapcMethod> aapc_method_of(const Schedule& s);
// Algorithms 1-4 (the paper's), as AapcAlgorithm; none for the others.
std::optional<AapcAlgorithm> paper_algorithm(AapcMethod m);
bool is_baseline(AapcMethod m);  // sex, dex

// A schedule request as a user states it: signed, unset sizes < 0, so that
// values from a command line or a binding are checked as given.
struct AapcRequest {
  AapcMethod method = AapcMethod::alg4;
  long long d = -1;
  std::optional<long long> n;  // unset: d
  std::optional<long long> m;  // unset: d
  long long channel_width = 1;  // b >= 1 words a link carries per cycle (kCm2ChannelWidth: the CM-2)
  bool blocked = false;
  LineDrawing lines = LineDrawing::diagonal;
  PairOrder pairs = PairOrder::split;  // Algorithms 2 and 3: table5 is Table 5's order (span up to K/2)
  bool unaligned = false;  // edelman only: node k uses location w xor k, no alignment
};

// A schedule holds K/2 cycles of d exchanges in host memory, 24 bytes each: 3 GiB at most.
inline constexpr std::uint64_t kMaxScheduleExchanges = std::uint64_t{1} << 27;

// Checks every field (one-line errors naming the field) before
// anything is built; returns the sizes with n and m defaulted.
AapcOptions check_aapc_request(const AapcRequest& r);
// Refuses a channel width outside 1..2^32 - 1 (a cycle's width is 32 bits), naming it and that range.
void check_channel_width(std::uint64_t b);
std::string channel_width_range();
// The exchanges of an AAPC schedule of d dimensions on K = 2^m words, before
// it is built: K/2 cycles of d exchanges (Alg. 1 pads its last group with idle channels only).
inline std::uint64_t aapc_schedule_exchanges(unsigned d, unsigned m) {
  return (std::uint64_t{1} << (m - 1)) * static_cast<std::uint64_t>(d);
}

struct BuiltSchedule {
  Schedule schedule;
  ScheduleStats stats;
};
// The schedule, checked (check_schedule).
BuiltSchedule build_aapc_schedule(const AapcRequest& r);

// The paper's cycle count for a schedule of its algorithms: Table 6 for the
// plain schedule, Lemma 4's block transfers for a blocked one, Lemma 5 for a
// channel width b > 1; Edelman's K/2; the notes' rounds for SEX/DEX. None for
// other schedules.
struct CycleBound {
  std::uint64_t cycles = 0;
  std::string source;
  AapcBounds paper;
  // The number is the paper's own (not hcube's count from the notes' rounds):
  // only such a number is printed as "paper".
  bool from_paper = true;
};
std::optional<CycleBound> cycle_bound(const Schedule& s);

// One AAPC between xor alignments: its run is the transpose (j|i) -> (i|j).
bool plain_aapc(const Schedule& s);

// What a schedule's header says its run realises, computed from the header
// alone and never from its cycles (so that running the file checks it): the
// bit permutation of its `perm`, the transpose for one AAPC (aligned, or
// Edelman's unaligned table), the generalized shuffle for a sequence of AAPCs. None for a schedule that names
// nothing it realises ("custom" ones without alignments).
struct NamedPermutation {
  AddressMap destination;
  std::string name, formula;
  AffineAddressMap destination_form = {};  // its closed form: the transpose and the shuffles move bits
};
std::optional<NamedPermutation> named_permutation(const Schedule& s);

// "Algorithm 4 (diagonal lines), d = 3 on n = 3, m = 3 (K = 8), channel width 1".
std::string describe_schedule(const Schedule& s);

}  // namespace hcube

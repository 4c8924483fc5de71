// Planning a sequence of s AAPCs (Johnsson & Ho 1992, sec. 2.3 and 4): the
// generalized shuffle (a_s, ..., a_1 | a_0) -> (a_(s-1), ..., a_0 | a_s)
// between Lemma 1's single pre- and post-alignment, pipelined (Corollary 2),
// one after another, on axes of unequal orders (sec. 4.1), or concurrently
// (Algorithm 5, Theorem 2). The command line and MultiAapcPlan plan through here.
#pragma once

#include <cstdint>
#include <optional>
#include <limits>
#include <string>
#include <vector>

#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_sequence.hpp"
#include "hcube/host/concurrent_aapc.hpp"
#include "hcube/host/reference.hpp"
#include "hcube/host/schedule.hpp"

namespace hcube {

inline constexpr long long kUnsetSize = std::numeric_limits<long long>::min();

// The request as a user states it (the flags of hcube multi-aapc).
struct MultiAapcRequest {
  long long axes = kUnsetSize;  // s; unset with a list of orders in dims
  std::string dims;             // "d" or "d_1,d_2,..." (non-increasing)
  long long m = kUnsetSize;     // unset: d (2d for Algorithm 5)
  std::string algorithm = "4";  // 1, 3, 4 pipelined or sequential; 5 concurrent
  bool sequential = false;
  std::string order;            // empty: 0, 1, ..., s-1
  LineDrawing lines = LineDrawing::diagonal;
  RotationLayout layout = RotationLayout::compact;
  std::optional<long long> rotated_rows;  // Algorithm 5: unset, the count with the fewest cycles
};

enum class MultiAapcKind { sequence, unequal, concurrent };

struct MultiAapcDesign {
  MultiAapcKind kind = MultiAapcKind::sequence;
  std::string algorithm;        // "1", "3", "4", "5"
  AapcSequenceOptions options;  // sequence and unequal (options.dims set)
  ConcurrentOptions concurrent;
  ConcurrentDesign design;
  std::vector<unsigned> dims;   // each axis' order
  std::vector<unsigned> order;  // the axes in the order they exchange with the memory axis
  unsigned n = 0, m = 0;
  std::uint64_t bound = 0;
  std::string bound_source;
  bool bound_from_paper = true;  // false: hcube's derivation (unequal orders), not a number the paper prints
  std::string note;  // why Algorithm 5 pipelines instead, when it does
};

// Checks every field before anything is built (one-line errors naming the field).
MultiAapcDesign plan_multi_aapc(const MultiAapcRequest& r);
// The first part of plan_multi_aapc: every size flag checked, and the
// algorithm, the axes' orders, n and m set; nothing planned (Algorithm 5's
// concurrent design can take seconds), so a size can be refused before it.
MultiAapcDesign multi_aapc_sizes(const MultiAapcRequest& r);
// About how many exchanges the schedule of AAPCs over n processor dimensions
// (axes of order at most d) on K = 2^m words holds, before it is built: K/2
// cycles of d exchanges per AAPC, one AAPC more for Alg. 5's rotated sets.
inline std::uint64_t multi_aapc_schedule_exchanges(unsigned n, unsigned d, unsigned m) {
  return (std::uint64_t{1} << (m - 1)) * (std::uint64_t{n} + d);
}
Schedule make_multi_aapc_schedule(const MultiAapcDesign& p);
// The generalized shuffle, written from its formula: the reference.
AddressMap multi_aapc_destination(const MultiAapcDesign& p);
// Why the run took more cycles than the bound, when it did (empty otherwise).
std::string multi_aapc_note(const MultiAapcDesign& p, std::uint64_t cycles);
// Algorithm 5's plan in words, and with `figure` Figure 4's table where the plan has columns;
// empty when the run pipelines.
std::string concurrent_plan_text(const MultiAapcDesign& p, bool figure);

// The machine's axes as the paper names them after the AAPCs of `order` up to
// `steps`: "(a_2,a_1|a_0)".
std::string shuffle_state(const std::vector<unsigned>& order, std::size_t steps);

}  // namespace hcube

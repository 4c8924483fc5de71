// Block-cyclic redistribution between processor sets (Park, Prasanna and
// Raghavendra 1998): an array of N elements in blocks of x, laid out cyclic(x)
// on P source processors, goes to cyclic(Kx) on Q destination processors, in
// steps where each processor sends at most one message and receives at most
// one. A schedule is data: per step, who sends which blocks to whom.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace hcube {

// R_x(P, K, Q) on N elements: the paper writes R_x(P, K, Q). `reverse` runs it
// backwards, cyclic(Kx) on Q to cyclic(x) on P (the paper's redistribution
// undone): the same pairs exchange the same blocks, so every schedule of the
// forward problem, each message turned around, is one of the reverse.
//
// The general problem, cyclic(x) on P to cyclic(y) on Q for any x and y, sets
// y (K is then 0, or y / x when x divides y). Its pieces are units of
// u = gcd(x, y) elements: a source block is a = x/u units, a destination
// block b = y/u, and unit i belongs to source block i div a and destination
// block i div b. For y = K x the unit is the paper's block (a = 1, b = K).
struct Redistribution {
  std::uint64_t P = 0, K = 0, Q = 0, x = 0, N = 0;
  bool reverse = false;
  std::uint64_t y = 0;  // the destination block, elements; 0: K x
  std::uint64_t dest_block() const { return y != 0 ? y : K * x; }
  std::uint64_t unit() const;                                     // gcd(x, dest_block())
  std::uint64_t source_units() const { return x / unit(); }       // a
  std::uint64_t dest_units() const { return dest_block() / unit(); }  // b
  std::uint64_t blocks() const { return N / unit(); }            // units in the array
};

// Throws hcube::Error naming the bad value and the allowed range: P, Q, x at
// least 1; K at least 1, or with y either 0 or y / x; N a positive multiple
// of the unit gcd(x, y) (x for the paper's problem); the sizes within 2^40.
void check_redistribution(const Redistribution& r);
// "R_x(P, K, Q)" for the paper's problem, "cyclic(x) on P -> cyclic(y) on Q" otherwise.
std::string describe(const Redistribution& r);

// Where global unit i lives: processor and local unit index (its elements
// are local addresses local_block * unit .. + unit - 1). For the paper's
// problem a unit is a block of x.
struct BlockPlace {
  std::uint64_t proc = 0, local_block = 0;
};
// cyclic(x) on P: block i on source i mod P, local block i div P; in units,
// source block c = i div a on source c mod P, local unit (c div P) a + i mod a.
BlockPlace source_place(const Redistribution& r, std::uint64_t i);
// cyclic(Kx) on Q: block i in big block i div K, on destination (i div K) mod Q,
// local block ((i div K) div Q) K + i mod K (in units: b for K).
BlockPlace destination_place(const Redistribution& r, std::uint64_t i);
// The sides in r's direction: the senders hold the array before (cyclic(x) on
// P forward, cyclic(Kx) on Q in reverse), the receivers after. A message's
// src is a sender's index, its dst a receiver's.
std::uint64_t senders(const Redistribution& r);
std::uint64_t receivers(const Redistribution& r);
BlockPlace send_place(const Redistribution& r, std::uint64_t i);
BlockPlace receive_place(const Redistribution& r, std::uint64_t i);

// Theorem 2's parameters and Lemma 1's case, for the paper's problem (x
// dividing y: K = y / x). The general problem has only the superblock: L =
// lcm(a P, b Q) units, Ls = L / P, Ld = L / Q, and lemma_case 0.
struct RedistributionParams {
  std::uint64_t G1 = 0, K1 = 0, P1 = 0, G2 = 0, Q1 = 0, P2 = 0, G = 0;
  std::uint64_t L = 0;   // superblock: lcm(P, KQ) blocks
  std::uint64_t Ls = 0;  // L / P: a source's local blocks a superblock (K1 Q1)
  std::uint64_t Ld = 0;  // L / Q
  std::uint64_t n = 0;  // n K1 - m P1 = 1 (extended Euclid), 0 <= n < P1
  std::int64_t m = 0;   // -1 when P1 = 1
  int lemma_case = 0;  // 1: G > K (not all-to-all); 2: K a multiple of G; 3: G < K, G does not divide K; 0: general
  std::uint64_t steps = 0;  // the circulant schedule's steps for P <= Q: Ls if G > K, else Q
};
RedistributionParams redistribution_params(const Redistribution& r);

// Eq. 17 and 18 (P <= Q): step i = i1 Q1 + i2 of the unfolded superblock
// (0 <= i < Ls), source j: its destination and the local block it sends.
std::uint64_t circulant_destination(const RedistributionParams& p, std::uint64_t Q, std::uint64_t i, std::uint64_t j);
std::uint64_t circulant_local_block(const RedistributionParams& p, std::uint64_t i, std::uint64_t j);

// The global blocks a message carries, in ascending order: `pattern` (blocks
// below `period`, ascending) and its copies every `period` blocks, those below
// `end`. A pair's blocks repeat with the superblock (L = lcm(P, KQ) blocks:
// both layouts repeat with it, sec. 3), so a message costs one superblock's
// blocks however many superblocks the array holds.
class MessageBlocks {
 public:
  MessageBlocks() = default;
  // Blocks `pattern` and pattern + period, + 2 period, ... below `end`.
  MessageBlocks(std::vector<std::uint64_t> pattern, std::uint64_t period, std::uint64_t end);
  std::uint64_t size() const;
  bool empty() const { return size() == 0; }
  std::uint64_t operator[](std::uint64_t k) const {
    return pattern_[k % pattern_.size()] + k / pattern_.size() * period_;
  }
  std::uint64_t front() const { return (*this)[0]; }
  const std::vector<std::uint64_t>& pattern() const { return pattern_; }
  std::uint64_t period() const { return period_; }
  std::uint64_t end_block() const { return end_; }
  std::vector<std::uint64_t> to_vector() const;  // every block: for a trace

  class iterator {
   public:
    using value_type = std::uint64_t;
    using difference_type = std::ptrdiff_t;
    using reference = std::uint64_t;
    using pointer = void;
    using iterator_category = std::input_iterator_tag;
    iterator(const MessageBlocks* m, std::uint64_t k) : m_(m), k_(k) {}
    std::uint64_t operator*() const { return (*m_)[k_]; }
    iterator& operator++() { ++k_; return *this; }
    iterator operator++(int) { iterator old = *this; ++k_; return old; }
    bool operator==(const iterator& o) const { return k_ == o.k_; }
    bool operator!=(const iterator& o) const { return k_ != o.k_; }
   private:
    const MessageBlocks* m_;
    std::uint64_t k_;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size()}; }

 private:
  std::vector<std::uint64_t> pattern_;
  std::uint64_t period_ = 1, end_ = 0;
};

// One message of a step: every block is sent whole, in ascending order.
struct RedistMessage {
  std::uint64_t src = 0, dst = 0;
  MessageBlocks blocks;  // global block indices
};
using RedistStep = std::vector<RedistMessage>;

struct RedistSchedule {
  std::string name;  // circulant | caterpillar | bipartite-stepwise | bipartite-greedy
  std::vector<RedistStep> steps;
};

// The paper's circulant schedule (sec. 4) for P <= Q, with the all-to-all
// folding. Where the paper gives none it takes the fewest steps any schedule
// can (Delta), contention-free: for P > Q, where the paper's rows repeat, and
// for the general cyclic(x) -> cyclic(y), an edge colouring of the pair graph
// that gives every step messages of one size (the paper's equal messages) when
// colouring each size apart still takes Delta steps, else any colouring; and
// for y dividing x, the paper's schedule of the mirrored problem (cyclic(y)
// on Q to cyclic(x) on P) turned around.
RedistSchedule circulant_schedule(const Redistribution& r);
// Caterpillar (ScaLAPACK's REDIST): max(P, Q) steps; in step t source s sends
// to destination (T - 1 - t - s) mod T, T = max(P, Q), its whole message.
RedistSchedule caterpillar_schedule(const Redistribution& r);
// Bipartite matching (Desprez et al.): the multigraph of (source, destination)
// pairs with blocks between them, a message an edge. Stepwise: an edge colouring
// with Delta colours (Koenig's theorem; Delta = the most partners any processor
// has, which every schedule needs), the fewest steps. Greedy: each step a
// matching built from the largest remaining messages first, the least transfer
// cost (sum of each step's largest message) this heuristic finds.
RedistSchedule bipartite_stepwise_schedule(const Redistribution& r);
RedistSchedule bipartite_greedy_schedule(const Redistribution& r);

const std::vector<std::string>& redistribution_schedule_names();
// By name; throws hcube::Error listing the names.
RedistSchedule make_redistribution_schedule(const Redistribution& r, const std::string& name);

// What a schedule does, checked: every block sent exactly once, from its sender
// to its receiver (send_place, receive_place), no processor sends twice in a step. Throws hcube::Error
// naming the step and block that break a rule. Every message repeats with the
// problem's superblock (period L, end N/x), so its first superblock decides.
struct RedistStats {
  std::uint64_t steps = 0;
  std::vector<std::uint64_t> message_sizes;  // per step, the largest message, in elements
  std::uint64_t max_message = 0;             // elements
  std::uint64_t contention = 0;              // receivers hit by two messages in one step, summed over steps
  std::uint64_t partners = 0;                // Delta: the most partners any processor has (a lower bound on steps)
  // Sum over steps of T_s + (largest message) tau_d.
  double modelled_cost(double ts, double tau) const;
};
RedistStats check_redistribution_schedule(const Redistribution& r, const RedistSchedule& s);

}  // namespace hcube

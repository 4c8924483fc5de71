// The machine of machine.hpp spread over 2^r MPI ranks (docs/distributed.md):
// rank R holds the nodes whose top r bits are R, 2^(n-r) nodes x K words, in
// an ordinary local Machine on its own backend. The primitives take the global
// machine's steps (cycles, schedules, alignments), checked on every rank as the
// single machine checks them, and run them on the local share: an exchange
// along a node dimension below n - r and every alignment stay inside the rank;
// an exchange along a rank dimension sends exactly the words that cross it,
// at most one message per partner rank per cycle: a schedule's cycles run in
// rounds (host/exchange_rounds.hpp), each round's crossing words in one
// message per partner.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "hcube/emulator/counters.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/host/affine_map.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/host/schedule.hpp"

namespace hcube::mpi {

// What crossed between ranks, per rank.
struct RankTraffic {
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t messages_sent = 0;
};

class DistributedMachine {
 public:
  // `options` describe the global machine; comm's size must be 2^r with r <= n
  // (throws hcube::Error, alike on every rank, otherwise). Collective.
  DistributedMachine(const MachineOptions& options, MPI_Comm comm);
  ~DistributedMachine();
  DistributedMachine(const DistributedMachine&) = delete;
  DistributedMachine& operator=(const DistributedMachine&) = delete;

  const Geometry& geometry() const { return geo_; }  // the global machine's
  Machine& local() { return *local_; }
  const Machine& local() const { return *local_; }
  MPI_Comm comm() const { return comm_; }
  // Where the words that cross between ranks wait for MPI: "host memory" (a
  // CPU rank: the machine's own), "device memory (CUDA-aware MPI)" or "pinned
  // host memory" (a CUDA rank whose MPI takes no device pointers: the words
  // copied through page-locked buffers, cudaMemcpyAsync).
  std::string transport() const;
  int rank() const { return rank_; }
  int ranks() const { return 1 << r_; }
  unsigned rank_dims() const { return r_; }
  // The global address of this rank's first word: its words are [first_word, first_word + local words).
  std::uint64_t first_word() const { return std::uint64_t(rank_) << (geo_.n - r_ + geo_.m); }
  std::uint64_t first_node() const { return std::uint64_t(rank_) << (geo_.n - r_); }

  // Copy-in of this rank's share, by global address (Machine::load_runs):
  // the labels g, or runs that `read_run` reads from the caller's source.
  void load_labels();
  void load_runs(const Machine::UserRunReader& read_run);
  // Copy-out of this rank's share, runs by global address.
  void store_runs(const Machine::UserRunWriter& write_run) const;

  // One routing cycle that passed check_cycle on the global geometry (and
  // maps check_offset_maps). Collective.
  void run_checked_cycle(const Cycle& cycle, const OffsetMaps& maps = {});
  // Every cycle of a schedule that passed check_schedule. Collective. The
  // exchanges run in the rounds of exchange_rounds (with r rank dimensions
  // an AAPC takes r + 1), each round's crossing words in one message per
  // partner rank (several where they fill more than a quarter of the share);
  // with HCUBE_MPI_CYCLE_MESSAGES=1 in the environment, cycle by cycle, one
  // message per partner rank per cycle. The result and the counters are the same.
  void run_checked_cycles(const Schedule& schedule);
  // Whether run_checked_cycles sends one message per partner rank per cycle (HCUBE_MPI_CYCLE_MESSAGES=1).
  bool cycle_messages() const { return cycle_messages_; }
  // A global alignment step (checked as Machine::align checks it), run on
  // this rank's nodes alone: the node bits it reads above the share are constant here.
  void align(const AlignmentStep& step);
  // A global alignment's map, checked as align checks it, on this rank's
  // nodes (the local machine's geometry): the node bits above them are constant here.
  AffineMap share_map(const AffineMap& map) const;
  // Machine::permute_address_bits on the global address (bit i of an address
  // goes to bit to[i]): a local pass that gathers the words bound for each
  // partner rank into one contiguous chunk, one message per partner
  // (MPI_Alltoallv: an MPI_Alltoall when every rank bit comes from a local
  // bit), and a local pass that puts the bits received in their places
  // (Machine::read_permuted, load_permuted); one local pass when every word
  // stays on its rank. Collective.
  void permute_address_bits(const std::vector<unsigned>& to);

  // Machine::route and Machine::route_blocks on the global machine, with the
  // same checks (check_router_step with its contention policy,
  // check_block_route) made by every rank on the whole step: the messages
  // between this rank's nodes run on the local machine, as one launch, while
  // the words of the others cross in one message per partner rank (the router
  // steps' words to and from each rank aggregated; no step reads a word any
  // writes, so the order is free). Counted as one machine counts the steps
  // (each rank the messages it sends and the contention at its nodes).
  // Return the global step's report. Collective.
  RouterStepReport route(const RouterStep& step, const RouterLimits& limits);
  RouterStepReport route_blocks(const std::vector<BlockRouteStep>& steps);

  // The global machine's counters, reduced over the ranks onto every rank:
  // event counts (cycles, alignments, launches) as one machine counts them,
  // words and bytes summed, phase times the slowest rank's. Collective.
  Counters counters() const;
  // This rank's traffic to other ranks; all_traffic() gathers every rank's (collective).
  const RankTraffic& traffic() const { return traffic_; }
  std::vector<RankTraffic> all_traffic() const;

 private:
  // One cycle: `maps` the global offset maps, `local_maps` their columns on the share's node bits.
  void run_on_share(const Exchange* exchanges, std::size_t count, const OffsetMaps& maps, const OffsetMaps& local_maps);
  // A schedule's cycles in the rounds of exchange_rounds.
  void run_in_rounds(const Schedule& schedule, const OffsetMaps& local_maps);
  // An exchange along a node dimension of the share, its offset map's columns above the share folded into its addresses.
  Exchange inside_share(Exchange x, const OffsetMaps& maps) const;
  // A cycle's words and links across rank dimensions on this rank, added to the local machine's by counters().
  void count_crossing(std::uint64_t dims, std::size_t exchanges);
  // Words to and from one partner rank: the local addresses (in the share's
  // numbering) of the words sent, in order, and of the places the words
  // received land at. Or, where `exchanges` is not empty, the words of
  // exchanges along a rank dimension (their maps' columns above the share
  // folded into their addresses), swapped: node by node, the `addr` side's on
  // the rank whose bit is clear, the `peer_addr` side's (`upper`) on the other.
  struct Transfer {
    int rank = 0;
    std::vector<std::uint64_t> send, receive;
    Cycle exchanges;
    bool upper = false;
  };

  // One message each way per transfer that has words (MPI_Isend/MPI_Irecv,
  // all at once): the words sent are gathered first, `meanwhile` runs while
  // they are in flight, the words received are scattered last.
  void exchange(std::vector<Transfer>& transfers, const std::function<void()>& meanwhile);
  // permute_address_bits on a CPU rank: MPI reads each partner's chunk (the
  // words whose A bits name it) straight out of the storage through a
  // datatype, so one local pass (after the exchange) remains of the two.
  void exchange_chunks_from_storage(const std::vector<unsigned>& to, const std::vector<unsigned>& A,
                                    const std::vector<unsigned>& B, const std::vector<int>& send_to,
                                    const std::vector<int>& receive_from);
  // The rank that holds a global node.
  int rank_of(std::uint64_t node) const { return static_cast<int>(node >> (geo_.n - r_)); }
  // Before every exchange between ranks: the fault HCUBE_DEBUG_RANK asks this
  // rank for, at its first exchange (docs/distributed.md, Failures).
  void before_exchange();
  // The cycle's exchanges along rank dimensions: one message each way per
  // partner rank, `meanwhile` run while they are in flight.
  void exchange_between_ranks(const Cycle& across, const OffsetMaps& maps, const std::function<void()>& meanwhile);

  Geometry geo_;
  unsigned r_ = 0;
  int rank_ = 0;
  MPI_Comm comm_;
  std::unique_ptr<Machine> local_;
  // Per cycle: the words and links the cross-rank exchanges used on this rank,
  // added to the local machine's counts of the same cycle by counters().
  std::vector<std::uint64_t> remote_links_per_cycle_;
  std::uint64_t remote_hops_ = 0;
  RankTraffic traffic_;
  bool exchanged_ = false;  // before_exchange ran once
  bool cycle_messages_ = false;
  MPI_Datatype word_ = MPI_DATATYPE_NULL;  // one word of the machine's type, for every message
  std::vector<Transfer> transfers_;        // a cycle's, kept with their capacity for the next
  OffsetMaps crossing_maps_;               // the share's columns of the maps of transfers_' exchanges
  // The words out and in of an exchange or of permute_address_bits, kept for
  // the next call (fresh pages cost more than the copy into them): in the
  // local machine's own memory when MPI takes it (device_buffers_: the CPU,
  // or CUDA under a CUDA-aware MPI), else page-locked host memory.
  bool device_buffers_ = true;
  Buffer send_buffer_, receive_buffer_;
  Buffer staging_;  // on the backend: the exchanges' words on their way to and from page-locked buffers
  // `b` holding at least `bytes` (made anew when smaller): where MPI reads and
  // writes (the backend's memory or page-locked host memory), or the backend's.
  Buffer& sized(Buffer& b, std::uint64_t bytes);
  Buffer& sized_on_backend(Buffer& b, std::uint64_t bytes);
  // A transfer's exchange words into the buffer MPI sends from (`out`), at
  // word `at`, or out of the one it received into.
  void move_exchange_words(const Transfer& t, Buffer& packed, std::uint64_t at, bool out);
};

// The alignment a rank runs on its share: the same map on the low `local_n`
// node bits, with the node bits above them fixed at `high` folded into its
// constant (i -> M i xor C_low j_low xor (C_high high xor c)).
AffineMap restrict_to_share(const AffineMap& map, unsigned local_n, std::uint64_t high);

}  // namespace hcube::mpi

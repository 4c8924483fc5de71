// A block-cyclic redistribution (host/block_cyclic.hpp) run on the machine's
// router: the sources hold the array cyclic(x), each packs its blocks in send
// order (one local permutation of x-word blocks over the source region), every
// communication step is one router step (one launch) in which each message is
// a contiguous run, and each destination unpacks what it received into
// cyclic(Kx) order (one local permutation over the destination region).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hcube/emulator/element_type.hpp"
#include "hcube/emulator/fingerprint.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/npy.hpp"
#include "hcube/host/block_cyclic.hpp"

namespace hcube {

// Where the redistribution sits on the cube. A sender's source region is words
// [0, S), a receiver's destination region words [O, O + D): S holds the
// largest sender's share, D the largest receiver's (its local blocks up to the
// last one, holes included). The senders (senders(r): P, or Q in reverse) are
// nodes 0..; the receivers follow them, or start at node 0 with `overlap`
// (then a node can be both, and O = S); apart, no node is both and the
// regions share the words from O = 0, so K covers max(S, D) instead of S + D.
struct RedistributionPlacement {
  Redistribution r;
  bool overlap = false;
  std::uint64_t source_words = 0;  // S
  std::uint64_t dest_words = 0;    // D
  unsigned n = 0, m = 0;           // 2^n nodes, K = 2^m >= O + D and >= S words a node
  std::uint64_t dest_offset() const { return overlap ? source_words : 0; }  // O
  std::uint64_t source_node(std::uint64_t j) const { return j; }
  std::uint64_t destination_node(std::uint64_t q) const { return overlap ? q : senders(r) + q; }
  // The machine it runs on. A message is a run of a node's words, so unless
  // tile_dims says otherwise the layout is row-major (t = 0), where a block is
  // contiguous (the CPU copies it at once, a GPU warp reads it coalesced).
  MachineOptions machine(ElementType type, BackendChoice backend, long long tile_dims = -1) const {
    MachineOptions o{n, m, type, backend, tile_dims < 0 ? 0 : tile_dims};
    o.sparse = true;
    return o;
  }
};

// Checks the problem and that the cube it needs is addressable; the machine
// (and its memory) is checked when it is made.
RedistributionPlacement place_redistribution(const Redistribution& r, bool overlap);

// The machine's initial contents in the user's order (node-major, 2^n x K
// words of `word_bytes`): the array `data` (N elements, global order) laid out
// cyclic(x) on the sources, zeros elsewhere.
std::vector<unsigned char> source_image(const RedistributionPlacement& pl, const void* data, std::size_t word_bytes);
// The destinations' local memories (Q rows of D words; holes zero) computed
// directly from the layouts' formulas: the reference.
std::vector<unsigned char> expected_destinations(const RedistributionPlacement& pl, const void* data,
                                                 std::size_t word_bytes);
// The same rows read from a machine image in the user's order.
std::vector<unsigned char> destination_rows(const RedistributionPlacement& pl, const std::vector<unsigned char>& image,
                                            std::size_t word_bytes);

// Checks the destinations' memories (Q rows of D words, destination_rows)
// against the layout cyclic(Kx) written from its closed form, independently
// of the planner's destination_place: element g of `data` (N elements in
// global order) belongs to big block b = g div Kx, on destination b mod Q at
// local word (b div Q) Kx + g mod Kx; every other word of a row is a hole and
// must be zero. Throws hcube::Error naming the first word that differs.
void verify_redistribution(const RedistributionPlacement& pl, const std::vector<unsigned char>& rows, const void* data,
                           ElementType type);

// The same checks and data paths on the machine itself, chunk by chunk of its
// storage, so that a run holds no image of the machine: `element(g, out)`
// writes element g (< N) of the array in the machine's type.
using RedistElement = std::function<void(std::uint64_t g, unsigned char* out)>;
// Host memory the schedule and the direct run's tables take beside the
// machine: they describe one superblock (the whole array when it is shorter),
// about 80 bytes a block and 224 a message, messages counted at their most,
// min(blocks, P Q) (measured: docs/performance.md).
std::uint64_t redistribution_program_bytes(const Redistribution& r);

// The sources' regions hold the array in cyclic(x) (source_image) and the
// destination regions are zeroed; the machine's padding to 2^n x 2^m is
// touched only on a small machine (zeroed whole, for traces), so on the CPU
// backend a large one's padding never becomes resident. The checks and
// copies below read the destination regions alone.
void load_sources(Machine& mach, const RedistributionPlacement& pl, const RedistElement& element);
// The same for a run of one node's row, words [g, g + words) of the whole
// cube by global address (a share of a distributed machine loads its runs so).
void source_run(const RedistributionPlacement& pl, const RedistElement& element, std::size_t word_bytes,
                std::uint64_t g, std::uint64_t words, unsigned char* out);
// verify_redistribution of the machine's destination regions.
void verify_redistribution(const Machine& mach, const RedistributionPlacement& pl, const RedistElement& element);
// The same checks of the destination words in a share of the cube: `share`
// holds the nodes from `first_node` on. Returns the elements met; the shares'
// sums must be N (check_destination_elements).
std::uint64_t verify_destination_share(const Machine& share, std::uint64_t first_node, const RedistributionPlacement& pl,
                                       const RedistElement& element);
void check_destination_elements(const RedistributionPlacement& pl, std::uint64_t elements);
// The same from a stream (a pipe: N elements of the machine's type), in order
// a chunk at a time, each element to its sender's place: nothing but the
// machine holds the array. A stream cannot be read again, so the elements'
// fingerprint is returned for the check.
InputFingerprint load_sources(Machine& mach, const RedistributionPlacement& pl, NpyInput& stream);
// The same against a stream's fingerprint: the elements the layout places
// in each chunk of g hash to what the input's did.
void verify_redistribution(const Machine& mach, const RedistributionPlacement& pl, const InputFingerprint& input);
// The destination rows as the machine holds them, handed over in runs:
// destination words [w, w + words) of the Q x D rows, for an output written
// at its offsets without a copy of the rows.
using DestinationRunWriter = std::function<void(std::uint64_t w, std::uint64_t words, const unsigned char* src)>;
void store_destinations(const Machine& mach, const RedistributionPlacement& pl, const DestinationRunWriter& write);
// The destination words in a run of the machine's words [g, g + words) of
// one node's row (global addresses), handed to `write` (store_destinations' pieces).
void destination_runs(const RedistributionPlacement& pl, std::size_t word_bytes, std::uint64_t g, std::uint64_t words,
                      const unsigned char* src, const DestinationRunWriter& write);
// destination_rows read from the machine (store_destinations into one vector).
std::vector<unsigned char> destination_rows(const Machine& mach, const RedistributionPlacement& pl);

struct RedistributionReport {
  RedistStats stats;            // of the schedule: steps, message sizes, contention
  std::uint64_t launches = 0;   // router steps, plus pack (2) and unpack (2) when staged
  double seconds = 0;           // the whole run on the machine
};

// Runs schedule `s` (checked first) on `mach`, whose geometry is pl's and
// whose source regions hold the data (source_image). Throws hcube::Error for
// a schedule that breaks a rule, before anything moves.
// Without `after_step`, each router step moves its messages' blocks straight
// from the senders' places to the receivers' (Machine::route_blocks), and the
// source regions keep their order. With it, the run is staged as the paper
// describes it, so a trace can read the machine between the stages: the pack
// (the source regions put in send order), the router steps, the unpack; and
// `after_step(name, step)` is called after the pack ("pack", null), each
// router step ("communication step t", the schedule's step t) and the unpack
// ("unpack", null). The destination regions end the same either way.
using RedistStepDone = std::function<void(const std::string& name, const RedistStep* step)>;
// The direct run's router steps: each message's blocks straight from their
// places at the sender to theirs at the receiver (Machine::route_blocks).
std::vector<BlockRouteStep> redistribution_block_steps(const RedistributionPlacement& pl, const RedistSchedule& s);
RedistributionReport run_redistribution(Machine& mach, const RedistributionPlacement& pl, const RedistSchedule& s,
                                        const RedistStepDone& after_step = {});

}  // namespace hcube

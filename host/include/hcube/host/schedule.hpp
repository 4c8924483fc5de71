// A schedule is data: an ordered list of routing cycles (each a list of
// exchanges in aligned coordinates) plus the alignments around them. It can
// be printed, saved, loaded and checked without any data on a machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hcube/host/cycle.hpp"
#include "hcube/host/geometry.hpp"

namespace hcube {

// What runs before and after the cycles.
enum class AlignmentKind {
  none,       // the cycles alone
  xor_align,  // (j|i) -> (j|i xor j) on the d AAPC dimensions (Johnsson & Ho, sec. 2.2.1)
  concurrent, // Algorithm 5's (host/concurrent_aapc.hpp): xor-align plus the spare memory axis, rotated rows apart
};
std::string to_string(AlignmentKind k);
AlignmentKind parse_alignment_kind(const std::string& s);

class Schedule {
 public:
  std::string algorithm;  // "1", "2", "3", "4", ...
  unsigned d = 0;         // cube dimensions in the AAPC: processor dims 0..d-1, memory dims 0..d-1
  unsigned n = 0;         // machine's processor dimensions (n >= d: independent AAPCs in subcubes)
  unsigned m = 0;         // machine's memory dimensions (m >= d: the AAPC repeated 2^(m-d) times)
  PortRules rules;        // port model and channel width b
  AlignmentKind pre = AlignmentKind::xor_align;
  AlignmentKind post = AlignmentKind::xor_align;
  bool blocked = false;   // each cycle is one block transfer
  std::string lines;      // Alg. 4's line drawing: "diagonal" or "greedy" (empty otherwise)
  unsigned axes = 1;      // s: AAPCs on processor axes 0..s-1 of d bits each (sec. 2.3)
  // The axes' orders when they differ (sec. 4.1): axis u is the next axis_dims[u]
  // node bits and exchanges with memory bits 0..axis_dims[u]-1. Empty: d each.
  std::vector<unsigned> axis_dims;
  // A sequence of AAPCs: the axes in the order they exchange with the memory
  // axis (a permutation of 0..axes-1). Empty: 0, 1, ..., axes-1.
  std::vector<unsigned> axis_order;
  // Algorithm 5: the local rows (address >> (d + 1)) 0..rotated_rows-1 hold the
  // data sets that start on a later axis through the spare memory axis.
  std::uint64_t rotated_rows = 0;
  // ... as d equal blocks, block b rotated in bit b only (the skewed layout).
  bool rotated_by_bit = false;
  OffsetMaps offset_maps; // node-dependent addresses of exchanges with offset_map > 0
  // The whole run (alignments and cycles) realises this permutation of the n + m address
  // bits (source bit i to bit perm[i], as hcube permute's --perm): verified against it, and
  // not checked as an AAPC. Empty: the header's AAPC or sequence names the target.
  std::vector<unsigned> perm;

  Geometry geometry() const { return Geometry{n, m}; }
  // axis_dims, or d for each of the `axes` axes.
  std::vector<unsigned> axis_widths() const;
  std::size_t cycles() const { return offsets_.size() - 1; }
  std::size_t exchanges() const { return exchanges_.size(); }
  const Exchange* cycle_begin(std::size_t c) const { return exchanges_.data() + offsets_[c]; }
  std::size_t cycle_size(std::size_t c) const { return offsets_[c + 1] - offsets_[c]; }
  Cycle cycle(std::size_t c) const { return Cycle(cycle_begin(c), cycle_begin(c) + cycle_size(c)); }

  // Appends an exchange to the last cycle / closes it and opens the next.
  void add(const Exchange& e) { exchanges_.push_back(e); }
  void end_cycle() { offsets_.push_back(exchanges_.size()); }
  void reserve(std::size_t cycles, std::size_t exchanges);
  // The same description (algorithm, sizes, rules, alignments) with no cycles.
  Schedule header() const;
  // Cycles [first, last) as a schedule of their own, run between other work: no alignments, and
  // only the offset maps its exchanges name (renumbered), since a launch stages every map.
  Schedule cycles_between(std::size_t first, std::size_t last) const;
  // Appends copies of all cycles with h << shift or-ed into every address, h = 1 .. copies-1.
  void repeat_with_high_bits(unsigned shift, std::uint64_t copies);
  // Replaces the cycles with `other`'s (a reader collects them apart from the header).
  void take_cycles(Schedule&& other) {
    exchanges_ = std::move(other.exchanges_);
    offsets_ = std::move(other.offsets_);
  }

 private:
  std::vector<Exchange> exchanges_;
  std::vector<std::size_t> offsets_{0};
};

// What a checked schedule does, computed from the schedule alone.
struct ScheduleStats {
  std::uint64_t cycles = 0;
  std::uint64_t exchanges = 0;
  std::uint64_t element_hops = 0;      // exchanges * 2^n: one word per node per exchange
  unsigned max_span = 0;               // over local addresses that move: last - first cycle + 1
  unsigned min_span = 0;
  double min_channel_use = 0;          // per cycle: exchanges / (d * b), the AAPC subcube's capacity
  double mean_channel_use = 0;
  std::vector<std::uint32_t> exchanges_per_cycle;
  // Blocking (sec. 5): cycles grouped by index mod max_span into block transfers.
  std::uint64_t block_transfers = 0;
  std::uint64_t max_block_size = 0;    // most words one channel carries in one block transfer
  // Table 6's "local memory addresses in transit": per cycle, the addresses
  // whose exchanges have begun and not ended (for an AAPC, both members of a
  // complement pair while either is: from the pair's first exchange to its
  // last unless the members move at separate times), fewest and most.
  std::uint64_t min_in_transit = 0;
  std::uint64_t max_in_transit = 0;
};

// Checks every cycle (ranges, port model, channel width, no word in two
// exchanges), and with an xor alignment that the cycles realise the AAPC:
// every address a crosses exactly the dimensions of its relative bits a mod 2^d,
// once each. Throws hcube::Error naming the cycle and entry, or the address.
ScheduleStats check_schedule(const Schedule& s);
// Whether any exchange names an offset map: maps that none uses change no
// word, so a schedule with only those is still a plain AAPC (and verified as one).
bool uses_offset_maps(const Schedule& s);

// The schedule file format "hcube-schedule/1" (docs/schedule-format.md):
// to_json and schedule_from_json in hcube/host/schedule_json.hpp.
// The text of a schedule file, parsed (not checked): `what` names it in errors.
// One JSON object: text after it and a key repeated in an object are errors.
Schedule parse_schedule(const std::string& text, const std::string& what);
// Reads, parses and checks a schedule file, reading no further than the parse
// goes (a device or a stream of garbage fails at its first bad byte), a FIFO
// or pipe as the .npy reader reads one (hcube/host/io/input_file.hpp: each
// silence bounded); a file of more than 16 GiB, a string or number of more than
// 4096 bytes or nesting deeper than the format's four levels is refused as it
// is read. `stats`, when given, receives check_schedule's counts.
Schedule load_schedule(const std::string& path, ScheduleStats* stats = nullptr);
void save_schedule(const std::string& path, const Schedule& s);

}  // namespace hcube

// hcube tune: the CPU backend's tunings measured on this host and kept as
// wisdom (wisdom.hpp), as FFTW's planner and HPTT's MEASURE do. Each key's
// candidates are timed against memcpy, beyond this host's L3, by the
// operations the key steers: the fused passes' tiles per word size and their
// prefetch distance (a transpose and a bit reversal), a routing cycle's
// prefetch distance, the alignment's regions, and from which size the stores
// stream (the fused passes with and without streaming stores at sizes around
// the L3). Keys are tuned in turn, each with the values already chosen.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hcube/emulator/wisdom.hpp"

namespace hcube {

struct TuneRequest {
  bool quick = false;         // fewer candidates and one timed run each (a few seconds)
  long long log2_bytes = -1;  // the data's size, 2^B bytes; -1: beyond the L3, at least 4 x its size
  double budget_seconds = 60;  // the measuring stops at this, keeping what it has
};

struct TuneTrial {
  std::string key;                       // the wisdom key, e.g. "fused.tile_bytes.4"
  std::uint64_t value = 0;               // the candidate
  std::uint64_t log2_bytes = 0;          // the data it was timed on, 2^B bytes
  std::map<std::string, double> ratios;  // each operation's ratio to memcpy (bench's --op name)
  double score() const;                  // their geometric mean
};

// From which size the stores stream, out of the fused passes timed at sizes
// 2^log2_bytes[i] with streaming stores (score streamed[i]) and without
// (plain[i]): the smallest size from which no larger one was clearly better
// plain, where streaming was clearly better at one; `standard` where it fits
// the same measurements; 2^62 (never) where streaming never was. "Clearly": by
// `margin` (1.05), the noise of a shared host.
std::uint64_t choose_streaming_bytes(const std::vector<std::uint64_t>& log2_bytes, const std::vector<double>& streamed,
                                     const std::vector<double>& plain, std::uint64_t standard, double margin);

struct TuneResult {
  Wisdom wisdom;                  // the values chosen, for this host
  std::vector<TuneTrial> trials;  // every candidate, in the order timed
  std::uint64_t log2_bytes = 0;
  double seconds = 0;
  bool out_of_time = false;  // the budget ran out: keys without a trial keep their defaults
};

// Progress: the trial about to run (index, total, what).
using TuneProgress = std::function<void(std::size_t, std::size_t, const std::string&)>;

// Throws hcube::Error for a bad request (log2_bytes outside 16..34, budget <= 0).
TuneResult run_tune(const TuneRequest& r, const TuneProgress& progress = {});
// What `hcube tune` prints: the host, every trial's ratios (the chosen marked), the values.
std::string describe(const TuneResult& r);

}  // namespace hcube

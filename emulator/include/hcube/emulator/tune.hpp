// hcube tune: the CPU backend's tunings measured on this host and kept as
// wisdom (wisdom.hpp), as FFTW's planner and HPTT's MEASURE do. For each word
// size, the fused passes (a transpose and a bit reversal, the operations
// whose tiles are tuned) are timed against memcpy at a size beyond this
// host's L3 for each candidate tile size; the best mean ratio is kept.
#pragma once

#include <cstdint>
#include <functional>
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
  std::string key;              // the wisdom key, e.g. "fused.tile_bytes.4"
  std::uint64_t value = 0;      // the candidate
  double transpose_ratio = 0;   // ratio to memcpy of the fused transpose
  double reversal_ratio = 0;    // of the fused bit reversal
  double score() const;         // their geometric mean
};

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

}  // namespace hcube

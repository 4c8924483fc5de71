// Runs a stable-dimension-permutation plan (host/sdp_schedules.hpp) on the data
// of a machine: the cycles, then the node-dependent alignments, then the local
// reordering. A plan that needs more machine than the data fills (A1''s empty
// storage dimension, the extended cube's unused processor dimensions) runs on
// a machine of its own geometry holding the data at the plan's embedding, the
// other words zero; the result is copied back and that machine's counters are
// added to the data machine's.
#pragma once

#include "hcube/emulator/machine.hpp"
#include "hcube/host/sdp_schedules.hpp"

namespace hcube {

struct SdpRunResult {
  double seconds = 0;  // the cycles and alignments, not the copies in and out of the larger machine
  Counters counters;   // of the machine the plan ran on
};

SdpRunResult run_sdp_plan(Machine& data, const SdpPlan& plan, const Machine::Progress& progress = {});

// The machine address of data address g in a plan's embedding: data bit i at
// machine bit embed[i] (embed empty: g itself).
std::uint64_t embedded_address(const std::vector<unsigned>& embed, std::uint64_t g);

// What a run of the plan needs beside the data's machine (`data_bytes`): a
// scratch copy when a local step copies, and a plan on a larger machine that
// machine (and its scratch) too.
std::uint64_t sdp_scratch_bytes(const SdpPlan& plan, std::uint64_t data_bytes, std::size_t word_bytes);

}  // namespace hcube

// What a machine did, counted per run: the quantities the papers reason about
// (routing cycles, element-hops, channel use) and what the hardware saw
// (launches, bytes, wall time per phase).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hcube {

struct PhaseTime {
  std::string name;  // copy-in, routing, alignment, router, copy-out
  double seconds = 0;
  std::uint64_t calls = 0;
};

struct Counters {
  std::uint64_t routing_cycles = 0;
  std::uint64_t alignments = 0;
  std::uint64_t router_steps = 0;
  std::uint64_t kernel_launches = 0;
  std::uint64_t element_hops = 0;       // words moved across a link
  std::uint64_t bytes_read = 0;         // by the data-motion kernels (copy-in/out excluded)
  std::uint64_t bytes_written = 0;
  std::uint64_t router_contention = 0;  // receivers hit twice, summed over router steps
  std::uint64_t links_total = 0;        // n * 2^n directed links
  std::vector<std::uint64_t> links_used_per_cycle;
  std::vector<PhaseTime> phases;

  void add_phase(const std::string& name, double seconds);
  // Adds what another machine did for this one's data (a plan run on a larger
  // machine, host/sdp_schedules.hpp): the counts add up, the link count is the larger.
  void add(const Counters& other);
  double phase_seconds(const std::string& name) const;
  // Mean fraction of the directed links busy per routing cycle (0 without cycles).
  double mean_channel_use() const;

  // As JSON: to_json(counters) in hcube/emulator/json.hpp.
  std::string to_text() const;
};

}  // namespace hcube

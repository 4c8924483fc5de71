// After a parser accepts an input and its checker passes, the fuzz targets of
// the CLI's primitives do what the CLI does next, on a machine small enough to
// run thousands of times a second: run it on the CPU backend and verify the
// result bit for bit against the host reference (hcube/emulator/verified_run.hpp).
// A failed verification is a finding (the checker passed something the
// machine gets wrong, or the machine and the reference disagree); any other
// hcube::Error is an expected rejection.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_common.hpp"
#include "hcube/emulator/element_type.hpp"
#include "hcube/emulator/verified_run.hpp"

namespace hcube::fuzz {

// Machines of at most 2^10 words are run.
constexpr unsigned kMaxRunBits = 10;

// A CPU machine for geo; the element type and the tile width vary with `salt`
// (any number taken from the input) so that every kernel instance is reached.
inline MachineOptions small_machine(const Geometry& geo, std::size_t salt) {
  const auto& types = all_element_types();
  return MachineOptions{geo.n, geo.m, types[salt % types.size()].type, BackendChoice::cpu,
                        static_cast<long long>((salt / types.size()) % (geo.n + 1))};
}

template <class F>
void run_verified_or_rejected(F&& f) {
  try {
    f();
    static const bool verbose = std::getenv("HCUBE_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "ran and verified\n");
  } catch (const Error& e) {
    check_message(e);
    if (std::string(e.what()).find("verification of") != std::string::npos)
      finding(std::string("the machine disagrees with the reference: ") + e.what());
  }
}

}  // namespace hcube::fuzz

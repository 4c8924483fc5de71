// What every fuzz target holds a parser to: an input is accepted, or rejected
// with hcube::Error whose message is one non-empty line (the CLI prints it as
// "hcube: error: <message>"). Anything else is a finding: another exception
// type (libFuzzer reports it as a deadly signal: the CLI's main would
// terminate), a crash, a hang, a sanitizer report, or a broken invariant
// (finding() aborts so that libFuzzer saves the input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hcube/core/error.hpp"

namespace hcube::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "hcube fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// HCUBE_FUZZ_VERBOSE=1 prints every rejection (to see what a corpus reaches).
inline void check_message(const Error& e) {
  const std::string m = e.what();
  static const bool verbose = std::getenv("HCUBE_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "rejected: %s\n", m.c_str());
  if (m.empty()) finding("hcube::Error with an empty message");
  if (m.find('\n') != std::string::npos || m.find('\r') != std::string::npos)
    finding("hcube::Error message spans more than one line: " + m);
}

// Runs f(); true when it returned, false when it threw hcube::Error (checked).
template <class F>
bool accepted(F&& f) {
  try {
    f();
    return true;
  } catch (const Error& e) {
    check_message(e);
    return false;
  }
}

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// The machine size most targets take from their first two bytes: byte % 32,
// so that 'A'..'Z' (and 'a'..'z') mean 1..26 and seeds stay readable.
inline unsigned small_dims(std::uint8_t b) { return b % 32u; }

}  // namespace hcube::fuzz

#define HCUBE_FUZZ_EXPECT(cond, what) \
  do {                                \
    if (!(cond)) ::hcube::fuzz::finding(what); \
  } while (0)

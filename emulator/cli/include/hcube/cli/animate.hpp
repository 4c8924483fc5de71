// The teaching page of `hcube animate`, as a library call: the command line
// and the Python binding (hcube.animate) both build their page here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hcube/app/lesson.hpp"

namespace hcube::cli {

// The most words a machine hcube animate draws may hold (d = 8).
using app::kMaxAnimatedWords;

struct Animation {
  std::string command;  // the command drawn: aapc, multi-aapc, permute, redistribute or scatter
  std::string html;     // the self-contained page
  std::size_t steps = 0, routing_cycles = 0, nodes = 0;  // the longest run's steps; the first run's cycles
  bool verified = false;                                 // every run verified
  std::string help;  // --help asked: its text, and no page
  // Each run drawn: one, or two side by side (--algorithm A,B).
  using Machine = app::AnimatedMachine;
  std::vector<Machine> machines;
};

// Runs `args` -- a command hcube animate draws, then that command's flags, as
// on the command line without --output -- with --trace --json in this
// process, and builds the page of the states it recorded; --algorithm A,B
// runs it twice and draws the two side by side. Throws hcube::Error with
// hcube animate's one-line message.
Animation animate(std::vector<std::string> args);

}  // namespace hcube::cli

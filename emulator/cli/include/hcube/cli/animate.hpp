// The teaching page of `hcube animate`, as a library call: the command line
// and the Python binding (hcube.animate) both build their page here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hcube::cli {

struct Animation {
  std::string command;  // the command drawn: aapc, multi-aapc, permute or redistribute
  std::string html;     // the self-contained page
  std::size_t steps = 0, routing_cycles = 0, nodes = 0;
  bool verified = false;
  std::string help;  // --help asked: its text, and no page
};

// Runs `args` -- a command hcube animate draws, then that command's flags, as
// on the command line without --output -- with --trace --json in this
// process, and builds the page of the states it recorded. Throws hcube::Error
// with hcube animate's one-line message.
Animation animate(std::vector<std::string> args);

}  // namespace hcube::cli

// The one exception type the library throws for bad input: its message is a
// single line naming the bad value and the allowed range, ready for the CLI.
#pragma once

#include <stdexcept>
#include <string>

namespace hcube {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Raised when a buffer cannot be allocated on the chosen backend.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

}  // namespace hcube

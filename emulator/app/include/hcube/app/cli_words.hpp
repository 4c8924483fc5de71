// The library's errors name its own parameters (PermutePlan::Options::fused,
// AapcRequest::m, ...); the command line names the flags that set them.
#pragma once

#include <string>

namespace hcube::app {

// `message` with each parameter the library names replaced by its flag
// (--fused, --mem-dims), so that hcube's errors speak of what its user typed.
std::string cli_words(const std::string& message);

}  // namespace hcube::app

// The library's version: what `hcube --version` prints after "hcube ".
// hcube/config.hpp (generated) gives it at compile time as well:
// HCUBE_VERSION, HCUBE_VERSION_MAJOR/MINOR/PATCH, and HCUBE_HAVE_CUDA.
#pragma once

#include "hcube/config.hpp"

namespace hcube {

const char* version();

}  // namespace hcube

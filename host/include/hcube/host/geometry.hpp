// The address model's checks and names (hcube/core/geometry.hpp holds the
// model itself, which kernels include).
#pragma once

#include <string>

#include "hcube/core/geometry.hpp"

namespace hcube {

// Throws hcube::Error naming n, m and the allowed range when they are unusable.
Geometry make_geometry(long long n, long long m);

std::string describe(const Geometry& g);

}  // namespace hcube

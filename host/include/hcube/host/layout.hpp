// Choosing a layout (hcube/core/layout.hpp holds the layout itself, which
// kernels include).
#pragma once

#include "hcube/core/layout.hpp"

namespace hcube {

// Throws hcube::Error when t is outside 0..n; t = -1 asks for the default.
Layout make_layout(const Geometry& geo, long long t = -1);
// Throws hcube::Error unless 0 <= t <= n: a tile width given (not the default -1).
void check_tile_dims(unsigned n, long long t);

}  // namespace hcube

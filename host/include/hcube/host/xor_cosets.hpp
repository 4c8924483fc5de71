// Planning the xor alignment's coset units (hcube/core/xor_cosets.hpp holds
// the unit descriptor that kernels read).
#pragma once

#include <cstdint>

#include "hcube/core/xor_cosets.hpp"
#include "hcube/host/affine_map.hpp"
#include "hcube/host/layout.hpp"

namespace hcube {

// The units for this map on this layout; usable only for a pure xor map.
XorCosets plan_xor_cosets(const AffineTables& map, const Layout& layout);

}  // namespace hcube

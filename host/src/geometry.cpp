#include "hcube/host/geometry.hpp"

#include <fmt/format.h>

#include "hcube/core/error.hpp"
#include "hcube/host/layout.hpp"

namespace hcube {

Geometry make_geometry(long long n, long long m) {
  if (n < 0 || n > static_cast<long long>(kMaxAddressBits))
    throw Error(fmt::format("processor dimensions n = {} out of range: allowed 0..{}", n, kMaxAddressBits));
  if (m < 0 || m > static_cast<long long>(kMaxAddressBits))
    throw Error(fmt::format("memory dimensions m = {} out of range: allowed 0..{}", m, kMaxAddressBits));
  if (n + m > static_cast<long long>(kMaxAddressBits))
    throw Error(fmt::format("n + m = {} + {} = {} address bits: allowed at most {}", n, m, n + m, kMaxAddressBits));
  return Geometry{static_cast<unsigned>(n), static_cast<unsigned>(m)};
}

std::string describe(const Geometry& g) {
  return fmt::format("{}-cube: {} nodes x {} words (n = {}, m = {})", g.n, g.nodes(), g.words_per_node(), g.n, g.m);
}

void check_tile_dims(unsigned n, long long t) {
  if (t < 0 || t > static_cast<long long>(n))
    throw Error(fmt::format("tile dimensions t = {} out of range: allowed 0..{} (n)", t, n));
}

Layout make_layout(const Geometry& geo, long long t) {
  if (t == -1) return Layout{geo, geo.n < kDefaultTileDims ? geo.n : kDefaultTileDims};
  check_tile_dims(geo.n, t);
  return Layout{geo, static_cast<unsigned>(t)};
}

}  // namespace hcube

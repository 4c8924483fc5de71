#include "hcube/version.hpp"

namespace hcube {

const char* version() { return HCUBE_VERSION; }

}  // namespace hcube

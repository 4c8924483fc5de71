// Human-readable quantities for messages and tables.
#pragma once

#include <cstdint>
#include <string>

namespace hcube {

std::string format_bytes(std::uint64_t bytes);  // "8.0 GiB"

}  // namespace hcube

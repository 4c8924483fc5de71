// A data file built into the library (cmake/EmbedFiles.cmake), read where a
// file on disk could be missing or stale: the planner's synthesized schedules.
#pragma once

#include <cstddef>
#include <string_view>

namespace hcube {

struct EmbeddedFile {
  const char* name;  // the file's name, without its folder
  const unsigned char* bytes;
  std::size_t size;

  std::string_view text() const { return {reinterpret_cast<const char*>(bytes), size}; }
};

}  // namespace hcube

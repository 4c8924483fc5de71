#include "hcube/host/host_memory.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>

#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

namespace {

// HCUBE_MEMORY_LIMIT: bytes, or with a K, M, G or T suffix (powers of 1024).
std::uint64_t memory_limit() {
  const char* text = std::getenv("HCUBE_MEMORY_LIMIT");
  if (text == nullptr || *text == '\0') return std::numeric_limits<std::uint64_t>::max();
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  unsigned shift = 0;
  if (end != text && *end != '\0' && end[1] == '\0') {
    const char* const units = "KMGT";
    const char* u = std::strchr(units, std::toupper(static_cast<unsigned char>(*end)));
    if (u != nullptr) {
      shift = 10 * static_cast<unsigned>(u - units + 1);
      ++end;
    }
  }
  if (end == text || *end != '\0' || errno != 0 || text[0] == '-' || (shift != 0 && v >> (64 - shift) != 0))
    throw Error(fmt::format("HCUBE_MEMORY_LIMIT = '{}' out of range: allowed bytes, or a number with K, M, G or T",
                            printable_input(text)));
  return static_cast<std::uint64_t>(v) << shift;
}

}  // namespace

std::uint64_t host_memory_available() {
  const std::uint64_t limit = memory_limit();
  return std::min(limit, system_memory_available());
}

std::uint64_t system_memory_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                               : std::numeric_limits<std::uint64_t>::max();
}

void check_host_memory(std::uint64_t bytes, const std::string& what) {
  const std::uint64_t avail = host_memory_available();
  if (bytes > avail)
    throw Error(fmt::format("{} needs {:.3g} GiB of host memory: {:.3g} GiB available", what,
                            static_cast<double>(bytes) / (1 << 30), static_cast<double>(avail) / (1 << 30)));
}

}  // namespace hcube

#include "hcube/host/host_memory.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <limits>

#include "hcube/core/error.hpp"

namespace hcube {

std::uint64_t host_memory_available() {
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

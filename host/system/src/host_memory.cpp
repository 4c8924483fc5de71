#include "hcube/host/system/host_memory.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
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
  const std::optional<std::uint64_t> v = parse_byte_size(text);
  if (!v)
    throw Error(fmt::format("HCUBE_MEMORY_LIMIT = '{}' out of range: allowed bytes, or a number with K, M, G or T",
                            printable_input(text)));
  return *v;
}

constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

// A number from the first word of a file: kNoLimit when it is absent or "max".
std::uint64_t read_bytes(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return kNoLimit;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(word.c_str(), &end, 10);
  return end != word.c_str() && *end == '\0' ? static_cast<std::uint64_t>(v) : kNoLimit;
}

// What the process's cgroup still lets it take: cgroup v2's memory.max less
// memory.current, or v1's memory.limit_in_bytes less memory.usage_in_bytes
// (v1 writes "no limit" as a number near 2^63, which the least ignores).
std::uint64_t cgroup_available() {
  std::ifstream self("/proc/self/cgroup");
  std::string line;
  std::uint64_t least = kNoLimit;
  while (std::getline(self, line)) {
    const std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), dir = line.substr(b + 1);
    if (controllers.empty())
      least = std::min(least, cgroup_memory_available("/sys/fs/cgroup", dir, "memory.max", "memory.current"));
    else if (("," + controllers + ",").find(",memory,") != std::string::npos)
      least = std::min(least, cgroup_memory_available("/sys/fs/cgroup/memory", dir, "memory.limit_in_bytes",
                                                      "memory.usage_in_bytes"));
  }
  return least;
}

// What `ulimit -v` (RLIMIT_AS) leaves of this process's address space.
std::uint64_t address_space_available() {
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return kNoLimit;
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  statm >> pages;
  const long page = sysconf(_SC_PAGESIZE);
  const std::uint64_t used = pages * static_cast<std::uint64_t>(page > 0 ? page : 4096);
  const auto limit = static_cast<std::uint64_t>(rl.rlim_cur);
  return limit > used ? limit - used : 0;
}

}  // namespace

std::optional<std::uint64_t> parse_byte_size(const std::string& text) {
  const char* const s = text.c_str();
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  unsigned shift = 0;
  if (end != s && *end != '\0' && end[1] == '\0') {
    const char* const units = "KMGT";
    const char* u = std::strchr(units, std::toupper(static_cast<unsigned char>(*end)));
    if (u != nullptr) {
      shift = 10 * static_cast<unsigned>(u - units + 1);
      ++end;
    }
  }
  if (end == s || *end != '\0' || errno != 0 || s[0] == '-' || (shift != 0 && v >> (64 - shift) != 0))
    return std::nullopt;
  return static_cast<std::uint64_t>(v) << shift;
}

std::uint64_t cgroup_memory_available(const std::string& root, std::string dir, const char* limit_file,
                                      const char* usage_file) {
  std::uint64_t least = kNoLimit;
  for (;;) {
    const std::string base = root + (dir == "/" ? std::string() : dir);
    const std::uint64_t limit = read_bytes(base + "/" + limit_file);
    if (limit != kNoLimit) {
      const std::uint64_t usage = read_bytes(base + "/" + usage_file);
      least = std::min(least, usage == kNoLimit ? limit : limit > usage ? limit - usage : 0);
    }
    if (dir.empty() || dir == "/") return least;
    const std::size_t slash = dir.rfind('/');
    dir = slash == 0 || slash == std::string::npos ? "/" : dir.substr(0, slash);
  }
}

std::uint64_t host_memory_available() {
  const std::uint64_t limit = memory_limit();
  return std::min(limit, system_memory_available());
}

std::uint64_t system_memory_available() {
  return std::min({physical_memory_available(), cgroup_available(), address_space_available()});
}

std::uint64_t physical_memory_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : kNoLimit;
}

void check_host_memory(std::uint64_t bytes, const std::string& what) {
  const std::uint64_t avail = host_memory_available();
  if (bytes > avail)
    throw Error(fmt::format("{} needs {:.3g} GiB of host memory: {:.3g} GiB available", what,
                            static_cast<double>(bytes) / (1 << 30), static_cast<double>(avail) / (1 << 30)));
}

}  // namespace hcube

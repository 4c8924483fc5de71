// How much host memory a request may take: checked before any allocation a
// flag or a file's header sizes, so a small bad input is refused at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace hcube {

// The least of physical memory available (MemAvailable from /proc/meminfo,
// else the free physical pages), what the process's cgroup still allows
// (memory.max less memory.current up the cgroup tree; v1: memory.limit_in_bytes
// less memory.usage_in_bytes), what RLIMIT_AS (`ulimit -v`) leaves of the
// address space, and HCUBE_MEMORY_LIMIT (bytes, or with a K, M, G or T
// suffix) when that is set: a cap on what hcube takes, which tests also use to
// stand for a smaller machine.
std::uint64_t host_memory_available();
// The same without HCUBE_MEMORY_LIMIT.
std::uint64_t system_memory_available();
// What a cgroup hierarchy mounted at `root` lets a process in its group `dir`
// (as /proc/self/cgroup names it) still take: `limit_file` less `usage_file`,
// the least from `dir` up to the root; no limit where no file says one.
std::uint64_t cgroup_memory_available(const std::string& root, std::string dir, const char* limit_file,
                                      const char* usage_file);
// A size written as bytes, or a number with a K, M, G or T suffix (powers of
// 1024), as HCUBE_MEMORY_LIMIT and the kernel's cache sizes are; empty when the
// text is no such size or it passes 64 bits.
std::optional<std::uint64_t> parse_byte_size(const std::string& text);
// Physical memory alone: MemAvailable, else the free pages, else no limit.
std::uint64_t physical_memory_available();

// Throws hcube::Error "<what> needs <bytes> of host memory: <available>
// available" when `bytes` exceeds host_memory_available().
void check_host_memory(std::uint64_t bytes, const std::string& what);

}  // namespace hcube

// Wisdom, as FFTW keeps it: the CPU backend's tunings measured on this host by
// `hcube tune` (tile sizes, prefetch distances, regions, when stores stream), saved in a file
// and read by every process that makes a plan, so that the sizes fit this
// host's caches rather than the machine the defaults were chosen on. Without
// wisdom, or with wisdom made on another CPU, the defaults (backends/cpu/tuning.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace hcube {

// The host the wisdom is for: the CPU's model name and its cache sizes.
struct HostCpu {
  std::string model;          // /proc/cpuinfo's "model name" ("unknown" where there is none)
  std::uint64_t l2_bytes = 0;  // a core's, as sysfs gives it for cpu0 (else sysconf); 0 unknown
  std::uint64_t l3_bytes = 0;
};
HostCpu host_cpu();

struct Wisdom {
  HostCpu cpu;                                  // where it was measured
  std::string created;                          // UTC, ISO 8601
  std::map<std::string, std::uint64_t> values;  // e.g. "fused.tile_bytes.4"
};

// The wisdom file: $HCUBE_WISDOM, else $XDG_CACHE_HOME/hcube/wisdom.json, else
// $HOME/.cache/hcube/wisdom.json.
std::string wisdom_path();

// What the process uses, loaded once from wisdom_path(): where from, and why
// none is used where none is ("no wisdom file", "made on another CPU: ...", a
// file that does not parse). A file that does not parse is ignored, not fatal:
// wisdom is a cache of measurements, made again by `hcube tune`.
struct WisdomInUse {
  std::string path;
  std::optional<Wisdom> wisdom;  // empty: the defaults
  std::string why_not;           // when empty
};
const WisdomInUse& wisdom_in_use();

// A tuned value, or `fallback` where the wisdom in use has none. Values set by
// override_wisdom_value (hcube tune trying candidates) come first.
std::uint64_t tuned_value(const std::string& key, std::uint64_t fallback);
void override_wisdom_value(const std::string& key, std::optional<std::uint64_t> value);

// Reads and checks a wisdom file; throws hcube::Error naming the file and what is wrong.
Wisdom read_wisdom(const std::string& path);
// Writes it (the directory made where missing), replacing the file whole.
void write_wisdom(const Wisdom& w, const std::string& path);

// The keys of the CPU launchers' other settings (backends/cpu/tuning.hpp's Knobs).
namespace wisdom_key {
inline constexpr const char* streaming_bytes = "stream.min_bytes";  // stores stream from this size; 2^62: never
inline constexpr const char* prefetch_runs = "fused.prefetch_runs";  // the fused passes' reads, runs ahead
inline constexpr const char* prefetch_rows = "cycle.prefetch_rows";  // a routing cycle's rows, exchanges ahead
inline constexpr const char* align_region_bytes = "align.region_bytes";  // an alignment unit's two regions
}  // namespace wisdom_key
// A key's allowed values (a wisdom file with another is refused): low..high, powers of two only where so said.
struct WisdomRange {
  std::uint64_t low = 1, high = 1;
  bool power_of_two = false;
};
// The range of a key hcube reads; empty for a key it does not know (kept, unused).
std::optional<WisdomRange> wisdom_range(const std::string& key);

// The tile size of the CPU's fused passes where they write by block
// transposes, for words of `word_bytes` (4, 8, 16): wisdom's, else the default.
std::uint64_t fused_tile_bytes(std::size_t word_bytes);
std::string fused_tile_key(std::size_t word_bytes);  // "fused.tile_bytes.<word bytes>"

}  // namespace hcube

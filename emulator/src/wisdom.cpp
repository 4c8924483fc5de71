#include "hcube/emulator/wisdom.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hcube/core/error.hpp"
#include "hcube/host/system/host_memory.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/host/parse.hpp"
#include "hcube/backends/cpu/tuning.hpp"

namespace hcube {
namespace {

constexpr const char* kFormat = "hcube-wisdom/1";
// A wisdom file is a few hundred bytes: anything past this is not one.
constexpr std::uintmax_t kMaxWisdomBytes = 1 << 20;

// A cache level's size as the kernel reports it for cpu0 (sysfs: the instance this CPU sees,
// 32 MiB where the package's CCXs hold 384 MiB together), else sysconf's, else 0.
std::uint64_t cache_bytes(unsigned level, int sysconf_name) {
  for (unsigned index = 0; index < 8; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
    std::ifstream lv(dir + "level"), type(dir + "type"), size(dir + "size");
    unsigned l = 0;
    std::string t, sz;
    if (!(lv >> l) || !(type >> t) || !(size >> sz)) continue;
    if (l != level || t == "Instruction") continue;
    if (const std::optional<std::uint64_t> v = parse_byte_size(sz)) return *v;
  }
  const long v = ::sysconf(sysconf_name);
  return v > 0 ? static_cast<std::uint64_t>(v) : 0;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::mutex& overrides_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, std::uint64_t>& overrides() {
  static std::map<std::string, std::uint64_t> o;
  return o;
}

std::string describe(const HostCpu& c) {
  return fmt::format("{}, L2 {} KiB, L3 {} KiB", c.model, c.l2_bytes >> 10, c.l3_bytes >> 10);
}

}  // namespace

HostCpu host_cpu() {
  HostCpu c;
  c.model = "unknown";
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string v = line.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    if (!v.empty()) c.model = v;
    break;
  }
  c.l2_bytes = cache_bytes(2, _SC_LEVEL2_CACHE_SIZE);
  c.l3_bytes = cache_bytes(3, _SC_LEVEL3_CACHE_SIZE);
  return c;
}

std::string wisdom_path() {
  if (const std::string p = env("HCUBE_WISDOM"); !p.empty()) return p;
  if (const std::string x = env("XDG_CACHE_HOME"); !x.empty()) return x + "/hcube/wisdom.json";
  const std::string home = env("HOME");
  return (home.empty() ? std::string(".") : home) + "/.cache/hcube/wisdom.json";
}

Wisdom read_wisdom(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(fmt::format("wisdom file {}: {}", printable_input(path), ec.message()));
  if (size > kMaxWisdomBytes)
    throw Error(fmt::format("wisdom file {} holds {} bytes: allowed at most {}", printable_input(path), size,
                            kMaxWisdomBytes));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  const auto bad = [&](const std::string& why) {
    return Error(fmt::format("wisdom file {}: {} (hcube tune writes it again)", printable_input(path), why));
  };
  if (j.is_discarded() || !j.is_object()) throw bad("not a JSON object");
  if (j.value("format", "") != kFormat) throw bad(fmt::format("format is not \"{}\"", kFormat));
  Wisdom w;
  const nlohmann::json cpu = j.value("cpu", nlohmann::json::object());
  if (!cpu.is_object() || !cpu.contains("model") || !cpu["model"].is_string()) throw bad("no cpu.model");
  w.cpu.model = cpu["model"];
  w.cpu.l2_bytes = cpu.value("l2_bytes", std::uint64_t{0});
  w.cpu.l3_bytes = cpu.value("l3_bytes", std::uint64_t{0});
  w.created = j.value("created", "");
  const nlohmann::json values = j.value("values", nlohmann::json::object());
  if (!values.is_object()) throw bad("values is not an object");
  for (const auto& [key, v] : values.items()) {
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0)
      throw bad(fmt::format("values.{} is not a positive integer", printable_input(key)));
    const std::uint64_t x = v.get<std::uint64_t>();
    // Values outside what the launchers can use: no file makes another.
    if (const std::optional<WisdomRange> range = wisdom_range(key)) {
      const bool power = (x & (x - 1)) == 0;
      if (x < range->low || x > range->high || (range->power_of_two && !power))
        throw bad(fmt::format("values.{} = {}: allowed {} from {} to {}", printable_input(key), x,
                              range->power_of_two ? "a power of two" : "an integer", range->low, range->high));
    }
    w.values[key] = x;
  }
  return w;
}

void write_wisdom(const Wisdom& w, const std::string& path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("wisdom file {}: cannot make its directory: {}", printable_input(path), ec.message()));
  nlohmann::ordered_json j = {{"format", kFormat},
                              {"cpu", {{"model", w.cpu.model}, {"l2_bytes", w.cpu.l2_bytes}, {"l3_bytes", w.cpu.l3_bytes}}},
                              {"created", w.created},
                              {"values", w.values}};
  write_text_atomically(path, j.dump(2) + "\n", "wisdom file");
}

const WisdomInUse& wisdom_in_use() {
  static const WisdomInUse in_use = [] {
    WisdomInUse u;
    u.path = wisdom_path();
    std::error_code ec;
    if (!std::filesystem::exists(u.path, ec)) {
      u.why_not = "no wisdom file (hcube tune makes one)";
      return u;
    }
    try {
      Wisdom w = read_wisdom(u.path);
      const HostCpu here = host_cpu();
      // Tile sizes follow the caches: another CPU's are no guide here.
      if (w.cpu.model != here.model || w.cpu.l2_bytes != here.l2_bytes || w.cpu.l3_bytes != here.l3_bytes)
        u.why_not = fmt::format("made on another CPU ({}), this is {}: run hcube tune", describe(w.cpu), describe(here));
      else
        u.wisdom = std::move(w);
    } catch (const Error& e) {
      u.why_not = e.what();
    }
    return u;
  }();
  return in_use;
}

std::uint64_t tuned_value(const std::string& key, std::uint64_t fallback) {
  {
    const std::lock_guard<std::mutex> lock(overrides_mutex());
    const auto it = overrides().find(key);
    if (it != overrides().end()) return it->second;
  }
  const WisdomInUse& u = wisdom_in_use();
  if (!u.wisdom) return fallback;
  const auto it = u.wisdom->values.find(key);
  return it == u.wisdom->values.end() ? fallback : it->second;
}

void override_wisdom_value(const std::string& key, std::optional<std::uint64_t> value) {
  const std::lock_guard<std::mutex> lock(overrides_mutex());
  if (value)
    overrides()[key] = *value;
  else
    overrides().erase(key);
}

std::optional<WisdomRange> wisdom_range(const std::string& key) {
  // A tile or a region: a page up to the largest L2 there is.
  if (key.rfind("fused.tile_bytes.", 0) == 0 || key == wisdom_key::align_region_bytes)
    return WisdomRange{std::uint64_t{1} << 12, std::uint64_t{1} << 24, true};
  if (key == wisdom_key::streaming_bytes) return WisdomRange{std::uint64_t{1} << 16, std::uint64_t{1} << 62, true};
  if (key == wisdom_key::prefetch_runs || key == wisdom_key::prefetch_rows) return WisdomRange{1, 64, false};
  return std::nullopt;
}

std::string fused_tile_key(std::size_t word_bytes) { return fmt::format("fused.tile_bytes.{}", word_bytes); }

std::uint64_t fused_tile_bytes(std::size_t word_bytes) {
  return tuned_value(fused_tile_key(word_bytes), kernels::cpu::tuning::block_tile_bytes(word_bytes));
}

}  // namespace hcube

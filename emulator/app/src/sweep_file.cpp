#include "hcube/app/sweep_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube::app {

nlohmann::json sweep_json(const SweepResult& sweep) {
  nlohmann::json j = {{"command", "sweep"},
                      {"backend", sweep.backend},
                      {"launch", to_string(sweep.request.launch)},
                      {"device", sweep.device},
                      {"version", sweep.version},
                      {"type", info(sweep.request.type).name},
                      {"repeat", sweep.request.repeat},
                      {"rows", nlohmann::json::array()}};
  for (const SweepRow& r : sweep.rows)
    j["rows"].push_back({{"d", r.d},
                         {"algorithm", r.algorithm},
                         {"words", r.words},
                         {"cycles", r.cycles},
                         {"seconds", r.seconds},
                         {"bytes_moved", r.bytes_moved},
                         {"throughput_bytes_per_second", r.throughput()},
                         {"memcpy_seconds", r.memcpy_seconds},
                         {"ratio_to_memcpy", r.ratio()},
                         {"verified", r.verified},
                         {"element_hops", r.element_hops},
                         {"seconds_per_cycle", r.seconds_per_cycle()},
                         {"cycles_per_second", r.cycles_per_second()},
                         {"element_hops_per_second", r.element_hops_per_second()},
                         {"memcpy_bytes", r.memcpy_bytes}});
  return j;
}

namespace {

// Rows of older files lack the later fields: their copy moved the whole data, their hops were not recorded.
SweepRow row_of(const nlohmann::json& j, std::size_t word_bytes) {
  SweepRow r;
  r.d = j.at("d").get<unsigned>();
  r.algorithm = j.at("algorithm").get<std::string>();
  r.words = j.at("words").get<std::uint64_t>();
  r.cycles = j.at("cycles").get<std::uint64_t>();
  r.seconds = j.at("seconds").get<double>();
  r.bytes_moved = j.at("bytes_moved").get<std::uint64_t>();
  r.memcpy_seconds = j.at("memcpy_seconds").get<double>();
  r.data_bytes = r.words * word_bytes;
  const auto verified = j.find("verified");  // null in older files where d was too large to check
  r.verified = verified != j.end() && verified->is_boolean() && verified->get<bool>();
  r.element_hops = j.value("element_hops", std::uint64_t{0});
  r.memcpy_bytes = j.value("memcpy_bytes", r.data_bytes);
  if (r.seconds <= 0 || r.memcpy_seconds <= 0) throw Error("seconds and memcpy_seconds must be above 0");
  return r;
}

}  // namespace

SweepResult load_sweep_json(const std::string& path) {
  const auto bad = [&](const std::string& what) {
    return Error(fmt::format("--from {}: {}", printable_text(path), what));
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) throw bad("cannot be read");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw bad("not JSON (write it with hcube sweep --json)");
  if (!j.is_object() || j.value("command", "") != "sweep")
    throw bad("not the JSON of hcube sweep (its \"command\" is not \"sweep\")");
  SweepResult s;
  try {
    s.backend = j.at("backend").get<std::string>();
    s.device = j.at("device").get<std::string>();
    s.version = j.value("version", "");
    s.request.type = parse_element_type(j.at("type").get<std::string>());
    s.request.repeat = j.at("repeat").get<long long>();
    s.request.launch = parse_launch_mode(j.value("launch", "per-cycle"));
    if (!j.at("rows").is_array() || j.at("rows").empty()) throw Error("\"rows\" is not a list of rows");
  } catch (const std::exception& e) {
    throw bad(printable_text(e.what()));
  }
  s.request.algorithms.clear();
  const std::size_t wb = info(s.request.type).bytes;
  for (std::size_t i = 0; i < j["rows"].size(); ++i) {
    try {
      s.rows.push_back(row_of(j["rows"][i], wb));
    } catch (const std::exception& e) {
      throw bad(fmt::format("row {}: {}", i, printable_text(e.what())));
    }
    const std::string& a = s.rows.back().algorithm;
    if (std::find(s.request.algorithms.begin(), s.request.algorithms.end(), a) == s.request.algorithms.end())
      s.request.algorithms.push_back(a);
  }
  const auto [lo, hi] = std::minmax_element(s.rows.begin(), s.rows.end(),
                                            [](const SweepRow& a, const SweepRow& b) { return a.d < b.d; });
  s.request.from = lo->d;
  s.request.to = hi->d;
  return s;
}

}  // namespace hcube::app

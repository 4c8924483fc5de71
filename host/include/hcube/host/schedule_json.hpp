// A schedule as JSON, the file format "hcube-schedule/1"
// (docs/schedule-format.md). Apart from schedule.hpp so that the library's
// public headers need no JSON library.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "hcube/host/schedule.hpp"

namespace hcube {

// Keys in the documented order, "format" first.
nlohmann::ordered_json to_json(const Schedule& s);
// Throws hcube::Error naming `what`, the cycle and the entry of anything malformed.
Schedule schedule_from_json(const nlohmann::json& j, const std::string& what);
// The same without the cycles (a reader adds them): 'cycles' must be an array.
Schedule schedule_header_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace hcube

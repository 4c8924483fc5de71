// The machine's results as JSON (the program's --json, Python's counters).
// Apart from the types they describe so that the library's public headers
// need no JSON library.
#pragma once

#include <nlohmann/json.hpp>

#include "hcube/emulator/counters.hpp"
#include "hcube/emulator/element_type.hpp"
#include "hcube/emulator/tune.hpp"

namespace hcube {

nlohmann::json to_json(const Counters& c);
// One element: a number, or [re, im] for complex types.
nlohmann::json element_json(ElementType t, const void* src);
// hcube tune's result (docs/cli.md): the host, the values chosen, every trial.
nlohmann::json to_json(const TuneResult& r);

}  // namespace hcube

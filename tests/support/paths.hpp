// Where a test finds the hcube program and its data. The environment may name
// them elsewhere than the build did: a build carried to another machine
// (scripts/gpu_bundle.sh) runs from a directory the build never knew.
#pragma once

#include <cstdlib>
#include <string>

namespace hcube::test {

inline std::string from_env(const char* name, const char* built) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : built;
}

// A file under tests/data: $HCUBE_TEST_DATA_DIR, else the source tree's.
inline std::string data_file(const std::string& name) {
  return from_env("HCUBE_TEST_DATA_DIR", HCUBE_TEST_DATA_DIR) + "/" + name;
}

#ifdef HCUBE_BINARY
// The hcube program: $HCUBE_BINARY, else the one this build made.
inline std::string hcube_binary() { return from_env("HCUBE_BINARY", HCUBE_BINARY); }
#endif

}  // namespace hcube::test

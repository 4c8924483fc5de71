// The .npy reader: the whole input is a file's bytes. parse_npy (in memory)
// and read_npy (the same bytes through a file) must agree; an accepted array
// must hold exactly its shape's bytes and survive encode_npy and parse_npy
// unchanged.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_common.hpp"
#include "hcube/emulator/npy.hpp"

namespace {

using namespace hcube;
using namespace hcube::fuzz;

const std::string& scratch_path() {
  static const std::string path = [] {
    std::string p = (std::filesystem::temp_directory_path() / ("hcube_fuzz_npy_" + std::to_string(::getpid()) + ".npy")).string();
    std::atexit([] { std::remove(scratch_path().c_str()); });
    return p;
  }();
  return path;
}

bool same(const NpyArray& a, const NpyArray& b) { return a.type == b.type && a.shape == b.shape && a.data == b.data; }

// The message after "<what>: ".
std::string after(const std::string& message, const std::string& what) {
  if (message.compare(0, what.size() + 2, what + ": ") != 0) finding("message does not start with '" + what + ": ': " + message);
  return message.substr(what.size() + 2);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string what = "input";
  NpyArray parsed{}, read{};
  std::string parse_error, read_error;
  try {
    parsed = parse_npy(data, size, what);
  } catch (const Error& e) {
    check_message(e);
    parse_error = after(e.what(), what);
  }

  const std::string& path = scratch_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) finding("cannot write the scratch file " + path);
  }
  try {
    read = read_npy(path);
  } catch (const Error& e) {
    check_message(e);
    read_error = after(e.what(), path);
  }
  HCUBE_FUZZ_EXPECT(parse_error == read_error,
                    "parse_npy and read_npy disagree: '" + parse_error + "' vs '" + read_error + "'");
  if (!parse_error.empty()) return 0;
  HCUBE_FUZZ_EXPECT(same(parsed, read), "parse_npy and read_npy return different arrays");

  const std::uint64_t bytes = parsed.elements() * info(parsed.type).bytes;
  HCUBE_FUZZ_EXPECT(parsed.data.size() == bytes, "the data size disagrees with the shape");
  const std::vector<unsigned char> again = encode_npy(parsed.type, parsed.shape, parsed.data.data(), parsed.data.size());
  HCUBE_FUZZ_EXPECT(same(parse_npy(again.data(), again.size(), "re-encoded"), parsed),
                    "encode_npy then parse_npy changes the array");
  accepted([&] { check_machine_array(parsed, what, 2, 3, parsed.type); });
  return 0;
}

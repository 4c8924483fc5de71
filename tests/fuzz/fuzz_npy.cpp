// The .npy reader: the whole input is a file's bytes. parse_npy (in memory)
// and read_npy (the same bytes through a file) must agree; an accepted array
// must hold exactly its shape's bytes and survive encode_npy and parse_npy
// unchanged.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "fuzz_common.hpp"
#include "hcube/emulator/npy.hpp"

namespace {

using namespace hcube;
using namespace hcube::fuzz;

// The file read_npy reads: an in-memory file (memfd) where there is one, so
// that each input costs no disk I/O (rewriting a file on ext4 flushes it), else
// a temporary file.
struct Scratch {
  int fd = -1;
  std::string path;
  Scratch() {
    fd = ::memfd_create("hcube_fuzz_npy", MFD_CLOEXEC);
    if (fd >= 0) {
      path = "/proc/self/fd/" + std::to_string(fd);
    } else {
      const std::string name = "hcube_fuzz_npy_" + std::to_string(::getpid()) + ".npy";
      path = (std::filesystem::temp_directory_path() / name).string();
      fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (fd < 0) finding("cannot create the scratch file " + path);
      ::unlink(path.c_str());
      path = "/proc/self/fd/" + std::to_string(fd);
    }
  }
  void write(const std::uint8_t* data, std::size_t size) const {
    if (::ftruncate(fd, 0) != 0) finding("cannot truncate the scratch file");
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) finding("cannot write the scratch file");
      done += static_cast<std::size_t>(n);
    }
  }
};

bool same(const NpyArray& a, const NpyArray& b) { return a.type == b.type && a.shape == b.shape && a.data == b.data; }

// The message after "<what>: ".
std::string after(const std::string& message, const std::string& what) {
  if (message.compare(0, what.size() + 2, what + ": ") != 0)
    finding("message does not start with '" + what + ": ': " + message);
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

  static const Scratch scratch;
  scratch.write(data, size);
  const std::string& path = scratch.path;
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
  const std::vector<unsigned char> again =
      encode_npy(parsed.type, parsed.shape, parsed.data.data(), parsed.data.size());
  HCUBE_FUZZ_EXPECT(same(parse_npy(again.data(), again.size(), "re-encoded"), parsed),
                    "encode_npy then parse_npy changes the array");
  accepted([&] { check_machine_array(parsed, what, 2, 3, parsed.type); });
  // A power-of-two shape (2^n, 2^m), or (2^q,) split as n = q / 2, fits its machine.
  const auto log2_exact = [](std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0 ? __builtin_ctzll(v) : -1; };
  int n = -1, m = -1;
  if (parsed.shape.size() == 2) {
    n = log2_exact(parsed.shape[0]);
    m = log2_exact(parsed.shape[1]);
  } else if (parsed.shape.size() == 1 && log2_exact(parsed.shape[0]) >= 0) {
    n = log2_exact(parsed.shape[0]) / 2;
    m = log2_exact(parsed.shape[0]) - n;
  }
  if (n >= 0 && m >= 0 && n + m < 64 &&
      !accepted([&] { check_machine_array(parsed, what, unsigned(n), unsigned(m), parsed.type); }))
    finding("check_machine_array rejects a shape that fits its machine");
  return 0;
}

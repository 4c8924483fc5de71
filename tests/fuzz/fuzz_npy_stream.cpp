// The .npy reader on a stream that goes on past the input: the input's bytes,
// then up to 1 MiB of filler, through a pipe of one page. Whatever length the
// input's bytes 8-11 claim (up to 4 GiB), a stream refused for its preamble
// (not a .npy, an unknown version, a header past NumPy's 10000 bytes) must be
// refused having taken at most its first twelve bytes: the writer, held back
// by the one-page pipe, can then have written no more than those and a page.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "fuzz_common.hpp"
#include "hcube/emulator/npy.hpp"

namespace {

using namespace hcube;
using namespace hcube::fuzz;

constexpr std::size_t kPage = 4096;                 // the pipe's capacity, and the writer's largest write
constexpr std::size_t kFiller = std::size_t{1} << 20;  // what follows the input
constexpr std::size_t kPreamble = 12;               // magic, version, and a 4-byte header length

// Whether `message` ("<path>: <why>") refuses the preamble. Only its start
// counts: a later error may quote header text that holds these words.
bool preamble_refusal(const std::string& message, const std::string& path) {
  if (message.rfind(path + ": ", 0) != 0) finding("message does not start with '" + path + ": ': " + message);
  const std::string why = message.substr(path.size() + 2);
  for (const char* start : {"not a .npy file", "unsupported .npy format version", "the .npy header claims",
                            "truncated .npy file"})
    if (why.rfind(start, 0) == 0) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool setup = [] {
    std::signal(SIGPIPE, SIG_IGN);           // the reader closes the pipe early: a write then fails
    ::setenv("HCUBE_INPUT_WAIT", "2", 1);    // the writer never falls silent for long
    return true;
  }();
  (void)setup;
  int fd[2];
  if (::pipe2(fd, O_CLOEXEC) != 0) finding("pipe2 failed");
  ::fcntl(fd[1], F_SETPIPE_SZ, static_cast<int>(kPage));  // at least a page; the bound below allows for more
  const long capacity = ::fcntl(fd[1], F_GETPIPE_SZ);
  std::atomic<std::size_t> written{0};
  std::thread writer([&] {
    const std::vector<std::uint8_t> filler(kPage, 0x5a);
    std::size_t at = 0;
    const std::size_t total = size + kFiller;
    while (at < total) {
      const std::uint8_t* p = at < size ? data + at : filler.data();
      const std::size_t n = std::min(kPage, at < size ? size - at : total - at);
      const ssize_t w = ::write(fd[1], p, n);
      if (w <= 0) break;
      at += static_cast<std::size_t>(w);
      written.store(at);
    }
    ::close(fd[1]);
  });

  std::string error;
  std::size_t written_at_refusal = 0;
  const std::string path = "/proc/self/fd/" + std::to_string(fd[0]);
  try {
    (void)read_npy(path);
  } catch (const Error& e) {
    written_at_refusal = written.load();
    check_message(e);
    error = e.what();
  }
  ::close(fd[0]);  // the writer's next write fails: it stops
  writer.join();
  if (!error.empty() && preamble_refusal(error, path))
    HCUBE_FUZZ_EXPECT(written_at_refusal <= kPreamble + static_cast<std::size_t>(capacity) + kPage,
                      "a stream refused for its preamble was read past its first bytes: " +
                          std::to_string(written_at_refusal) + " bytes written for '" + error + "'");
  return 0;
}

#include "hcube/host/io/input_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/magic.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

double input_wait_seconds() {
  constexpr double kDefault = 5;
  const char* text = std::getenv("HCUBE_INPUT_WAIT");
  if (text == nullptr || *text == '\0') return kDefault;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v > 0) || v > 86400)
    throw Error(fmt::format("HCUBE_INPUT_WAIT = '{}' out of range: allowed seconds in (0, 86400]", printable_input(text)));
  return v;
}

InputFile::InputFile(const std::string& path, const std::string& what)
    : path_(path), what_(what), wait_ms_(input_wait_seconds() * 1000) {
  if (path.empty()) throw Error(fmt::format("{}: an empty path names no file", what));
  // O_NONBLOCK: opening a FIFO does not wait for a writer; reads poll instead.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) throw Error(fmt::format("{}: cannot open: {}", what, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw Error(fmt::format("{}: cannot read: {}", what, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw Error(fmt::format("{}: cannot read: Is a directory", what));
  }
  regular_ = S_ISREG(st.st_mode);
  // A named FIFO reads as ended until a writer opens it; an anonymous pipe
  // (`cat x | hcube`, on pipefs) was made with its writer, so its end is the end.
  struct statfs fs {};
  fifo_ = S_ISFIFO(st.st_mode) && !(::fstatfs(fd_, &fs) == 0 && fs.f_type == PIPEFS_MAGIC);
  if (regular_) size_ = static_cast<std::uint64_t>(st.st_size);
  last_data_ = std::chrono::steady_clock::now();
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

int InputFile::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

std::size_t InputFile::read_some(void* p, std::size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd_, p, n);
    if (got > 0) {
      writer_seen_ = true;
      last_data_ = std::chrono::steady_clock::now();
      return static_cast<std::size_t>(got);
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
      throw Error(fmt::format("{}: cannot read: {}", what_, std::strerror(errno)));
    // A FIFO reads as ended until a writer opens it; once one has, the end is the end.
    if (got == 0 && !(fifo_ && !writer_seen_)) return 0;
    if (got < 0) writer_seen_ = true;  // EAGAIN: a writer holds it open
    const double left =
        wait_ms_ - std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - last_data_).count();
    if (left <= 0)
      throw Error(fmt::format("{}: {} {:g} s (HCUBE_INPUT_WAIT sets the wait in seconds)", what_,
                              writer_seen_ ? "no data arrived for" : "nothing wrote to the FIFO for", wait_ms_ / 1000));
    if (got == 0) {
      // No writer yet: poll() would report the hang-up at once, so look again shortly.
      ::poll(nullptr, 0, static_cast<int>(std::min(left, 10.0)) + 1);
      continue;
    }
    pollfd pfd{fd_, POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(left) + 1) < 0 && errno != EINTR)
      throw Error(fmt::format("{}: cannot read: {}", what_, std::strerror(errno)));
  }
}

}  // namespace hcube

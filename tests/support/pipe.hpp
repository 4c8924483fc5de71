// A pipe for tests of stream inputs: the bytes a thread writes into it, read
// through the path of its read end as `cat file | hcube` would give them.
#pragma once

#include <unistd.h>

#include <csignal>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace hcube::test {

// `bytes` through a pipe, as `cat file |` gives them: the path of its read
// end, written by a thread that close() joins.
class Pipe {
 public:
  explicit Pipe(std::vector<unsigned char> bytes) : bytes_(std::move(bytes)) {
    std::signal(SIGPIPE, SIG_IGN);
    if (::pipe(fd_) != 0) throw std::runtime_error("pipe failed");
    writer_ = std::thread([this] {
      for (std::size_t at = 0; at < bytes_.size();) {
        const ssize_t w = ::write(fd_[1], bytes_.data() + at, bytes_.size() - at);
        if (w <= 0) break;
        at += static_cast<std::size_t>(w);
      }
      ::close(fd_[1]);
    });
  }
  ~Pipe() {
    ::close(fd_[0]);
    writer_.join();
  }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_[0]); }

 private:
  std::vector<unsigned char> bytes_;
  int fd_[2] = {-1, -1};
  std::thread writer_;
};

}  // namespace hcube::test

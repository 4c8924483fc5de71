// Reading an input file of any kind without hanging or growing without
// bound: a regular file (its length known before anything is read) or a
// stream (a pipe, FIFO or device) read in order, each silence waited through
// for at most HCUBE_INPUT_WAIT seconds (default 5) since it was opened or
// since its last byte -- one bound for a FIFO's writer to open it and for its
// data, not one for each read. The .npy reader and the schedule reader share it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace hcube {

class InputFile {
 public:
  // Opens `path` for reading (a FIFO without waiting for its writer). Throws
  // hcube::Error "<what>: cannot open: ..." or "... is a directory"; an empty
  // path is refused.
  InputFile(const std::string& path, const std::string& what);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  bool regular() const { return regular_; }
  // A regular file's length when opened.
  std::uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Up to n bytes, 0 at the end of the file; throws naming `what` when a
  // stream stays silent longer than the wait or a read fails.
  std::size_t read_some(void* p, std::size_t n);
  // Hands the open descriptor over (its new owner closes it).
  int release();

 private:
  std::string path_, what_;
  double wait_ms_;
  int fd_ = -1;
  bool regular_ = false;
  bool fifo_ = false;  // a named FIFO (not an anonymous pipe)
  bool writer_seen_ = false;  // a byte arrived, or a read found a writer holding the FIFO open
  std::uint64_t size_ = 0;
  std::chrono::steady_clock::time_point last_data_;
};

// The seconds a silent stream is waited for: HCUBE_INPUT_WAIT, else 5.
double input_wait_seconds();

}  // namespace hcube

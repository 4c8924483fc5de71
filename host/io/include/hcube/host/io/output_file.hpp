// Writing an output file safely: a regular file appears whole or not at all
// (a temporary beside it, renamed over it); a device or FIFO is written into,
// never replaced; a symlink is followed to its target; a read-only target is
// refused. The checks can run before any work (check_output), so a bad -o
// fails in a second, not after the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace hcube {

// Where output for a path goes, after following symlinks.
struct OutputTarget {
  std::string path;        // the file written (a symlink's final target)
  bool in_place = false;   // an existing character device or FIFO: written into, not replaced
};

// Checks that `path` can be written without writing anything: its directory
// exists and is writable, it is not a directory, socket, block device or a
// read-only file. Throws hcube::Error naming `what` (the flag or file) and why.
OutputTarget check_output(const std::string& path, const std::string& what);

// One output being written. Regular files go to a temporary ".hcube-XXXXXX"
// beside the target (short, so a name near NAME_MAX still works) that commit()
// renames over it; destroying an uncommitted file removes the temporary, and
// so does SIGINT/SIGTERM/SIGHUP once remove_temporaries_on_signals() ran.
class OutputFile {
 public:
  OutputFile(const std::string& path, const std::string& what);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const void* data, std::size_t bytes);
  // At a byte offset of the file (pwrite), for a target that is seekable():
  // a regular file, not a device or FIFO written in place.
  void write_at(std::uint64_t offset, const void* data, std::size_t bytes);
  bool seekable() const { return !target_.in_place; }
  // The file being written: the temporary until commit() (other processes
  // may write their parts into it at offsets: MPI ranks' rows), else the target.
  const std::string& written_path() const { return tmp_.empty() ? target_.path : tmp_; }
  // Flushes to disk, then makes the file visible at its path (regular files).
  void commit();

 private:
  [[noreturn]] void fail(const std::string& step);
  void discard() noexcept;

  OutputTarget target_;
  std::string what_;
  std::string tmp_;  // empty when writing in place
  int fd_ = -1;
  int slot_ = -1;    // the signal handler's record of tmp_
};

// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove every
// temporary an OutputFile holds, then end the process as the signal would.
// For programs (the CLI); a library caller keeps its own handlers.
void remove_temporaries_on_signals();

// Writes `text` through an OutputFile. Throws hcube::Error naming `what`.
void write_text_atomically(const std::string& path, const std::string& text, const std::string& what);

}  // namespace hcube

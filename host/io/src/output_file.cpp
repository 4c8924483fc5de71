#include "hcube/host/io/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>

#include "hcube/core/error.hpp"

namespace hcube {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

std::string dir_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Follows symlinks (even a dangling last one: the file is made where it points).
std::string follow_links(std::string path, const std::string& what) {
  const std::string given = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::array<char, PATH_MAX> buf{};
    const ssize_t len = ::readlink(path.c_str(), buf.data(), buf.size() - 1);
    if (len < 0) throw Error(fmt::format("{}: cannot read the symlink {}: {}", what, path, errno_text(errno)));
    const std::string link(buf.data(), static_cast<std::size_t>(len));
    path = link[0] == '/' ? link : dir_of(path) + "/" + link;
  }
  throw Error(fmt::format("{}: {}: too many levels of symlinks (a loop?): allowed at most 40, as the kernel allows",
                          what, given));
}

// The permissions a new file gets from open(..., 0666): the umask read
// without changing it (umask() would race other threads).
mode_t new_file_mode() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(0666 & ~std::stoul(line.substr(6), nullptr, 8));
  return 0644;
}

// Temporaries the signal handler removes: fixed storage, as a handler may
// neither allocate nor lock. A slot is claimed (g_used), its path copied, and
// only then marked ready: a signal in between must not unlink half a path.
constexpr int kSlots = 16;
char g_tmp[kSlots][PATH_MAX];
std::atomic<bool> g_used[kSlots];
std::atomic<bool> g_ready[kSlots];
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler reads these flags");

int remember(const std::string& tmp) {
  if (tmp.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_used[i].compare_exchange_strong(expected, true)) continue;
    std::memcpy(g_tmp[i], tmp.c_str(), tmp.size() + 1);
    g_ready[i].store(true);
    return i;
  }
  return -1;  // more than kSlots at once: still removed by the destructor, not on a signal
}

void forget(int slot) {
  if (slot < 0) return;
  g_ready[slot].store(false);
  g_used[slot].store(false);
}

extern "C" void remove_temporaries(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_ready[i].load()) ::unlink(g_tmp[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

OutputTarget check_output(const std::string& path, const std::string& what) {
  if (path.empty()) throw Error(fmt::format("{}: the output path is empty", what));
  OutputTarget t{follow_links(path, what), false};
  const std::string shown = t.path == path ? path : path + " (-> " + t.path + ")";
  struct stat st {};
  if (::stat(t.path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(fmt::format("{}: {} is a directory, not a file", what, shown));
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      // Written into: replacing /dev/null or a pipe's FIFO with a file would break them.
      if (::access(t.path.c_str(), W_OK) != 0)
        throw Error(fmt::format("{}: cannot write {}: {}", what, shown, errno_text(errno)));
      t.in_place = true;
      return t;
    }
    if (!S_ISREG(st.st_mode))
      throw Error(fmt::format("{}: {} is neither a regular file, a character device nor a FIFO", what, shown));
    // Root may write anything, so the mode bits are asked too: a read-only file is kept.
    if ((st.st_mode & 0222) == 0 || ::access(t.path.c_str(), W_OK) != 0)
      throw Error(fmt::format("{}: {} is read-only; remove it or choose another name", what, shown));
  } else if (errno != ENOENT) {
    throw Error(fmt::format("{}: cannot use {}: {}", what, shown, errno_text(errno)));
  }
  const std::string dir = dir_of(t.path);
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode))
    throw Error(fmt::format("{}: the directory {} of {} does not exist", what, dir, shown));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(fmt::format("{}: cannot create files in {}: {}", what, dir, errno_text(errno)));
  return t;
}

OutputFile::OutputFile(const std::string& path, const std::string& what)
    : target_(check_output(path, what)), what_(what) {
  if (target_.in_place) {
    // O_NONBLOCK: a FIFO nobody reads fails (ENXIO) instead of hanging the run.
    fd_ = ::open(target_.path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      const int err = errno;
      throw Error(fmt::format("{}: cannot write {}: {}", what_, target_.path,
                              err == ENXIO ? "nothing reads the FIFO" : errno_text(err)));
    }
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    return;
  }
  // The temporary's name goes on the signal handler's list before the file
  // is made (O_EXCL, a fresh name while one exists): a signal in between, on
  // any of the process's threads, finds it listed. Listed after mkstemp, it
  // was left behind by a SIGTERM in that window.
  static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device random;
  int err = EEXIST;
  for (int tries = 0; tries < 100 && fd_ < 0 && err == EEXIST; ++tries) {
    std::string name = dir_of(target_.path) + "/.hcube-";
    for (int i = 0; i < 6; ++i) name += kChars[random() % (sizeof kChars - 1)];
    const int slot = remember(name);
    fd_ = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    err = errno;
    if (fd_ < 0) {
      forget(slot);
      continue;
    }
    tmp_ = name;
    slot_ = slot;
  }
  if (fd_ < 0)
    throw Error(fmt::format("{}: cannot create a temporary in {}: {}", what_, dir_of(target_.path), errno_text(err)));
  // Made 0600: give the file what a replaced file had, or what a new one would get.
  struct stat st {};
  const mode_t mode = ::stat(target_.path.c_str(), &st) == 0 ? (st.st_mode & 07777) : new_file_mode();
  if (::fchmod(fd_, mode) != 0) fail("set the permissions of");
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  forget(slot_);
  slot_ = -1;
  tmp_.clear();
}

void OutputFile::fail(const std::string& step) {
  const int err = errno;
  discard();
  throw Error(fmt::format("{}: cannot {} {}: {}", what_, step, target_.path, errno_text(err)));
}

void OutputFile::write(const void* data, std::size_t bytes) {
  if (fd_ < 0) throw Error(fmt::format("{}: {} is already closed", what_, target_.path));
  const auto* p = static_cast<const unsigned char*>(data);
  while (bytes > 0) {
    const ssize_t done = ::write(fd_, p, bytes);
    if (done < 0 && errno == EINTR) continue;
    if (done < 0) fail("write");
    p += done;
    bytes -= static_cast<std::size_t>(done);
  }
}

void OutputFile::write_at(std::uint64_t offset, const void* data, std::size_t bytes) {
  if (fd_ < 0) throw Error(fmt::format("{}: {} is already closed", what_, target_.path));
  if (!seekable()) throw Error(fmt::format("{}: {} is written in order, not at offsets", what_, target_.path));
  const auto* p = static_cast<const unsigned char*>(data);
  while (bytes > 0) {
    const ssize_t done = ::pwrite(fd_, p, bytes, static_cast<off_t>(offset));
    if (done < 0 && errno == EINTR) continue;
    if (done < 0) fail("write");
    p += done;
    offset += static_cast<std::uint64_t>(done);
    bytes -= static_cast<std::size_t>(done);
  }
}

void OutputFile::commit() {
  if (fd_ < 0) throw Error(fmt::format("{}: {} is already closed", what_, target_.path));
  if (target_.in_place) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("close");
    return;
  }
  // The data must be on disk before the rename makes it visible, or a crash could expose an empty file.
  if (::fsync(fd_) != 0) fail("sync");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close");
  if (std::rename(tmp_.c_str(), target_.path.c_str()) != 0) fail("rename a temporary over");
  forget(slot_);
  slot_ = -1;
  tmp_.clear();
}

void remove_temporaries_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = remove_temporaries;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

void write_text_atomically(const std::string& path, const std::string& text, const std::string& what) {
  OutputFile out(path, what);
  out.write(text.data(), text.size());
  out.commit();
}

}  // namespace hcube

// What the tests of the hcube program share: running the real binary with
// stdout and stderr captured, a temporary directory per test, .npy helpers,
// and the primitives written straight from their definitions (not with the
// emulator's own reference code). Each test executable is one translation
// unit; everything here is inline.
#pragma once

#include <sstream>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>

#include "paths.hpp"
#include <vector>

#include <sys/stat.h>

#include "hcube/emulator/npy.hpp"

extern char** environ;

namespace hcube::test {

namespace fs = std::filesystem;
using nlohmann::json;
using Args = std::vector<std::string>;
using Words = std::vector<std::uint64_t>;

struct Result {
  int code = -1;  // exit status, or -signal when killed
  std::string out, err;
  // The child's peak resident memory (ru_maxrss). posix_spawn shares this
  // process's memory until exec, so it is at least this process's own peak:
  // a test measuring a child must not hold large buffers itself.
  long peak_kib = 0;
  bool started = true;  // false: the program could not be started (err says why)
};

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Whether this build runs under AddressSanitizer, whose shadow memory and
// quarantine make resident sizes meaningless (memory measurements skip).
inline bool instrumented() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

// Whether two files hold the same bytes, compared a piece at a time: a test
// measuring a child's memory must not hold large buffers itself (Result::peak_kib).
inline bool same_files(const fs::path& a, const fs::path& b) {
  std::ifstream x(a, std::ios::binary), y(b, std::ios::binary);
  if (!x || !y) return false;
  std::vector<char> p(1 << 16), q(1 << 16);
  for (;;) {
    x.read(p.data(), static_cast<std::streamsize>(p.size()));
    y.read(q.data(), static_cast<std::streamsize>(q.size()));
    if (x.gcount() != y.gcount()) return false;
    if (x.gcount() == 0) return true;
    if (!std::equal(p.begin(), p.begin() + x.gcount(), q.begin())) return false;
  }
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

inline std::string fixture(const std::string& name) { return data_file(name); }

// The machine state of 2^n nodes x 2^m words, global address g = node * K + local.
struct Cube {
  unsigned n, m;
  std::uint64_t nodes() const { return std::uint64_t{1} << n; }
  std::uint64_t K() const { return std::uint64_t{1} << m; }
  std::uint64_t total() const { return nodes() * K(); }
  std::uint64_t g(std::uint64_t node, std::uint64_t local) const { return node * K() + local; }
  std::vector<std::uint64_t> shape() const { return {nodes(), K()}; }
};

inline Words random_words(std::uint64_t count) {
  std::mt19937_64 rng(0x5eed);
  Words w(count);
  for (auto& x : w) x = rng();
  return w;
}

inline Words labels(const Cube& c) {
  Words w(c.total());
  for (std::uint64_t g = 0; g < w.size(); ++g) w[g] = g;
  return w;
}

inline void write_u64(const fs::path& path, const std::vector<std::uint64_t>& shape, const Words& w) {
  hcube::write_npy(path.string(), hcube::ElementType::u64, shape, w.data(), w.size() * sizeof(std::uint64_t));
}

// Reads --output, which is always (2^n, 2^m) whatever the input's shape.
inline Words read_u64(const fs::path& path, const Cube& c) {
  const hcube::NpyArray a = hcube::read_npy(path.string());
  EXPECT_EQ(a.type, hcube::ElementType::u64);
  EXPECT_EQ(a.shape, c.shape());
  Words w(a.data.size() / sizeof(std::uint64_t));
  std::memcpy(w.data(), a.data.data(), w.size() * sizeof(std::uint64_t));
  return w;
}

// One exchange, by definition: every node j with bit `dim` clear swaps its
// word `addr` with word `peer` of node j xor 2^dim. The exchanges of a legal
// cycle touch disjoint words, so applying them one after another is the cycle.
inline void exchange(Words& w, const Cube& c, unsigned dim, std::uint64_t addr, std::uint64_t peer) {
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    if (((j >> dim) & 1) == 0) std::swap(w[c.g(j, addr)], w[c.g(j ^ (std::uint64_t{1} << dim), peer)]);
}

// A local alignment: node j moves its word i to address dest(j, i).
inline Words align(const Words& w, const Cube& c,
                   const std::function<std::uint64_t(std::uint64_t, std::uint64_t)>& dest) {
  Words out(w.size());
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    for (std::uint64_t i = 0; i < c.K(); ++i) out[c.g(j, dest(j, i))] = w[c.g(j, i)];
  return out;
}

// A state as the JSON rows of a trace: numbers, or [re, im] for complex types,
// whose labels carry the address negated in the imaginary part.
inline json state_json(const Words& w, const Cube& c, bool complex) {
  json rows = json::array();
  for (std::uint64_t j = 0; j < c.nodes(); ++j) {
    json row = json::array();
    for (std::uint64_t i = 0; i < c.K(); ++i) {
      const std::uint64_t v = w[c.g(j, i)];
      row.push_back(complex ? json::array({static_cast<double>(v), -static_cast<double>(v)}) : json(v));
    }
    rows.push_back(row);
  }
  return rows;
}

inline constexpr const char* kTypes[] = {"uint32", "int32", "uint64", "float", "double", "complex64", "complex128"};

// Runs a program (argv[0] a path) with stdout and stderr sent to the files
// `out` and `err`; its exit status, both streams and its peak memory.
// `in`: the file standard input is opened from (a FIFO: the open waits for its writer); empty: this process's.
inline Result run_program(std::vector<std::string> argv, const fs::path& out, const fs::path& err,
                          const fs::path& in = {}) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!in.empty()) posix_spawn_file_actions_addopen(&actions, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> pointers;
  for (std::string& s : argv) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  Result r;
  if (rc != 0) {
    r.started = false;
    r.err = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return r;
  }
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  r.peak_kib = usage.ru_maxrss;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

// Every test gets its own temporary directory for inputs, outputs and the
// captured streams.
class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "hcube_cli_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path path(const std::string& name) const { return dir_ / name; }

  // Runs hcube with stdout and stderr sent to files, so that neither stream
  // can fill a pipe and stall the child, and the two stay separate.
  Result run(const Args& args) const {
    Args argv{hcube_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    const Result r = run_program(argv, path(".stdout"), path(".stderr"));
    if (!r.started) ADD_FAILURE() << r.err;
    return r;
  }

  // Runs hcube with `bytes`, then the file `from` (copied a piece at a time so
  // that this process holds nothing large), then `filler` repeated to
  // `filler_bytes`, on its standard input through a pipe, as `cat from | hcube
  // args` would: the writer stops quietly when hcube closes the pipe early.
  Result run_piped(const Args& args, const std::string& bytes, const fs::path& from = {},
                   const std::string& filler = {}, std::uint64_t filler_bytes = 0) const {
    const fs::path fifo = path(".stdin");
    fs::remove(fifo);
    if (::mkfifo(fifo.c_str(), 0600) != 0) {
      ADD_FAILURE() << "mkfifo: " << std::strerror(errno);
      return {};
    }
    std::signal(SIGPIPE, SIG_IGN);
    std::thread writer([&] {
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);  // waits for the child's stdin
      if (fd < 0) return;
      const auto put = [&](const char* p, std::size_t n) {
        while (n > 0) {
          const ssize_t w = ::write(fd, p, n);
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) return false;
          p += w;
          n -= static_cast<std::size_t>(w);
        }
        return true;
      };
      bool open = put(bytes.data(), bytes.size());
      if (!from.empty()) {
        std::ifstream file(from, std::ios::binary);
        std::vector<char> buf(1 << 16);
        while (open && file.read(buf.data(), static_cast<std::streamsize>(buf.size())).gcount() > 0)
          open = put(buf.data(), static_cast<std::size_t>(file.gcount()));
      }
      for (std::uint64_t sent = 0; open && !filler.empty() && sent < filler_bytes; sent += filler.size())
        open = put(filler.data(), filler.size());
      ::close(fd);
    });
    Args argv{hcube_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    const Result r = run_program(argv, path(".stdout"), path(".stderr"), fifo);
    writer.join();
    if (!r.started) ADD_FAILURE() << r.err;
    return r;
  }

  // Runs a command that must succeed, and returns its stdout.
  std::string ok(const Args& args) const {
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << "stderr: " << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
  }

  // Runs a command that must succeed with --json, and returns the object.
  json ok_json(Args args) const {
    args.push_back("--json");
    const std::string out = ok(args);
    json j = json::parse(out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON: " << out;
    return j;
  }

  // A rejected command: a normal non-zero exit, nothing on stdout, exactly one
  // line "hcube: error: ..." on stderr naming every string in `mentions`, and
  // (for the commands that take --output) no output file, not even a partial one.
  void expect_error(Args args, const std::vector<std::string>& mentions) const {
    SCOPED_TRACE("hcube " + ::testing::PrintToString(args));
    const std::string output = output_name(args[0]);
    if (!output.empty()) {
      args.push_back("--output");
      args.push_back(path(output).string());
    }
    const Result r = run(args);
    EXPECT_GT(r.code, 0);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("hcube: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.back(), '\n');
    for (const std::string& s : mentions) EXPECT_TRUE(contains(r.err, s)) << "no '" << s << "' in: " << r.err;
    if (output.empty()) return;
    for (const auto& entry : fs::directory_iterator(dir_))
      EXPECT_FALSE(contains(entry.path().filename().string(), output)) << "left behind: " << entry.path();
  }

  // The --output file a command writes: a state (.npy) or a schedule (.json).
  static std::string output_name(const std::string& command) {
    for (const char* c : {"cycle", "align", "route", "aapc", "run", "redistribute", "scatter"})
      if (command == c) return "out.npy";
    return command == "schedule" ? "out.json" : "";
  }

  fs::path dir_;
};

// The rows of the prose table printed after the line holding `title`: node -> cells.
inline std::vector<std::vector<std::string>> table_after(const std::string& out, const std::string& title) {
  std::vector<std::vector<std::string>> rows;
  const std::size_t at = out.find(title);
  if (at == std::string::npos) return rows;
  std::istringstream in(out.substr(at));
  std::string line;
  std::getline(in, line);  // the title
  std::getline(in, line);  // node | 0 1 ...
  std::getline(in, line);  // -----+------
  while (std::getline(in, line) && !line.empty()) {
    std::istringstream cells(line.substr(line.find('|') + 1));
    std::vector<std::string> row;
    for (std::string cell; cells >> cell;) row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace hcube::test

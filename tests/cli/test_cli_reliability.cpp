// A hostile user's small bad inputs: nothing written where it must
// not be, no unbounded work, one line of error, and every refusal fast and
// small. Special files are made in the test's own directory; real device
// files are only ever read.
#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include "cli_harness.hpp"

namespace {

using namespace hcube::test;

// A refusal costs no more than this: it must not read or allocate what the input claims
// (gigabytes). Under AddressSanitizer, whose redzones and quarantine of freed
// memory inflate every resident size, the bound is four times as large.
const long kSmallKib = (instrumented() ? 4 : 1) * 100 * 1024;

class CliReliability : public Cli {
 protected:
  // expect_error, plus the bound on the refused run's memory.
  void expect_small_error(const Args& args, const std::vector<std::string>& mentions) const {
    expect_error(args, mentions);
    const Result r = run(args);
    EXPECT_LT(r.peak_kib, kSmallKib) << "hcube " << ::testing::PrintToString(args) << " peaked at " << r.peak_kib
                                     << " KiB";
  }

  std::string read(const fs::path& p) const {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  // A .npy of a 4 x 4 machine, written by hcube itself.
  fs::path small_npy() const {
    const fs::path p = path("state.npy");
    ok({"aapc", "-d", "2", "--output", p.string()});
    return p;
  }
};

// -o is checked as the flags are parsed: a bad one fails before the run, with
// nothing on stdout (the run would have printed its result).
TEST_F(CliReliability, OutputIsCheckedBeforeTheRun) {
  expect_small_error({"aapc", "-d", "3", "-o", path("missing/out.npy").string()}, {"--output", "missing", "does not exist"});
  expect_small_error({"aapc", "-d", "3", "-o", dir_.string()}, {"--output", "is a directory"});
  expect_small_error({"schedule", "-d", "3", "-o", path("nowhere/s.json").string()}, {"--output", "does not exist"});
  expect_small_error({"multi-aapc", "-s", "2", "-m", "2", "--save-schedule", path("nowhere/s.json").string()},
                     {"--save-schedule", "does not exist"});
  expect_small_error({"fft", "-P", "4", "-n", "2", "-o", path("nowhere/x.npy").string()}, {"--output"});
  expect_small_error({"sweep", "--dims-from", "2", "--dims-to", "2", "--csv", path("nowhere/x.csv").string()},
                     {"--csv", "does not exist"});
}

TEST_F(CliReliability, ReadOnlyOutputIsRefusedAndKept) {
  const fs::path keep = path("keep.npy");
  std::ofstream(keep) << "precious";
  fs::permissions(keep, fs::perms::owner_read);
  expect_small_error({"aapc", "-d", "3", "-o", keep.string()}, {"read-only", "keep.npy"});
  EXPECT_EQ(read(keep), "precious");
}

TEST_F(CliReliability, SymlinkOutputWritesItsTarget) {
  const fs::path target = path("target.npy"), link = path("link.npy");
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  ok({"aapc", "-d", "2", "-o", link.string()});
  EXPECT_TRUE(fs::is_symlink(link));
  const std::string written = read(target);
  ASSERT_GT(written.size(), 6u);
  EXPECT_EQ(written.substr(1, 5), "NUMPY");
}

// A FIFO is written into, never replaced; with no reader the run fails at once instead of hanging.
TEST_F(CliReliability, FifoOutputIsWrittenIntoOrRefused) {
  const fs::path fifo = path("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const Result lonely = run({"aapc", "-d", "2", "-o", fifo.string()});
  EXPECT_NE(lonely.code, 0);
  EXPECT_TRUE(contains(lonely.err, "nothing reads the FIFO")) << lonely.err;
  EXPECT_TRUE(fs::is_fifo(fifo));

  std::string got;
  std::thread reader([&] { got = read(fifo); });  // opens, blocking until hcube opens it to write
  // hcube may open the FIFO before the reader has: try until a run gets through.
  Result r;
  for (int tries = 0; tries < 50; ++tries) {
    r = run({"aapc", "-d", "2", "-o", fifo.string()});
    if (r.code == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (r.code != 0) std::ofstream(fifo.string()) << "";  // release the reader
  reader.join();
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(got.substr(1, 5), "NUMPY");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

// The temporary beside the output has a short name of its own, so a name of NAME_MAX bytes works.
TEST_F(CliReliability, OutputNameOfNameMaxBytesWorks) {
  const long name_max = ::pathconf(dir_.c_str(), _PC_NAME_MAX);
  const std::string name = std::string(static_cast<std::size_t>(name_max) - 4, 'x') + ".npy";
  ok({"aapc", "-d", "2", "-o", path(name).string()});
  EXPECT_TRUE(fs::is_regular_file(path(name)));
}

// An input is read as far as its header says, no further: a zero device
// fails at its first bytes, a sparse file of 3 GiB behind a (4, 4) header is
// refused from its length alone, a longer stream at its first extra byte.
TEST_F(CliReliability, InputIsReadOnlyAsFarAsItsHeaderSays) {
  expect_small_error({"aapc", "-d", "2", "-i", "/dev/zero"}, {"/dev/zero", "not a .npy file"});
  const fs::path sparse = path("sparse.npy");
  fs::copy_file(small_npy(), sparse);
  fs::resize_file(sparse, std::uintmax_t{3} << 30);
  expect_small_error({"aapc", "-d", "2", "-i", sparse.string()}, {"trailing data", "needs only 64"});
  expect_small_error({"permute", "--perm", "transpose", "-i", sparse.string()}, {"trailing data"});  // n, m from its header

  // A FIFO is waited on for its writer, then read; a stream that goes on past the data is refused.
  // hcube may close the FIFO before the writer is done: a write then fails, it must not kill the test.
  std::signal(SIGPIPE, SIG_IGN);
  const fs::path fifo = path("in.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string bytes = read(small_npy());
  for (int copies : {1, 2}) {
    std::thread writer([&] {
      std::ofstream out(fifo, std::ios::binary);
      for (int c = 0; c < copies; ++c) out << bytes;
    });
    const Result r = run({"aapc", "-d", "2", "-n", "2", "-m", "2", "-i", fifo.string(), "--json"});
    writer.join();
    if (copies == 1) {
      EXPECT_EQ(r.code, 0) << r.err;
      EXPECT_TRUE(contains(r.out, "\"verified\": true")) << r.out;
    } else {
      EXPECT_NE(r.code, 0);
      EXPECT_TRUE(contains(r.err, "trailing data")) << r.err;
    }
  }
}

// The preamble and header NumPy would write for `shape` (Python's repr) of
// `descr`, with no data after it.
std::string npy_header(const std::string& descr, const std::string& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  dict.append(64 - (10 + dict.size() + 1) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\0';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

// A header is read only once its length is checked: a version-2 header that
// claims 1 GiB (in a sparse file) is refused as NumPy refuses it, unread.
TEST_F(CliReliability, HugeHeaderIsRefusedBeforeItIsRead) {
  const fs::path p = path("hdr.npy");
  {
    std::ofstream out(p, std::ios::binary);
    out << "\x93NUMPY" << '\x02' << '\0';
    const std::uint32_t len = std::uint32_t{1} << 30;
    out.write(reinterpret_cast<const char*>(&len), 4);
  }
  fs::resize_file(p, (std::uintmax_t{1} << 30) + 4096);
  expect_small_error({"aapc", "-d", "2", "-i", p.string()}, {"hdr.npy", "claims 1073741824 bytes", "at most 10000"});
}

// A file that is not a .npy is refused at its first bytes, before the header
// length its bytes 8-11 claim (up to 4 GiB) is read, whatever it comes from:
// a pipe going on for hundreds of MB, an archive, a sparse file, a character device.
TEST_F(CliReliability, NonNpyIsRefusedAtItsFirstBytes) {
  std::string noise(1 << 16, '\0');
  std::mt19937 rng(7);
  for (char& c : noise) c = static_cast<char>(rng());
  const std::string claims_4gib = std::string("\x12\x34\x56\x78\x9a\xbc\x01\x00", 8) + "\xff\xff\xff\xff";
  const std::string zip = std::string("PK\x03\x04\x14\x00\x00\x00", 8) + "\xff\xff\xff\x7f";
  const std::string bad_version = std::string("\x93NUMPY\x09\x09", 8) + "\xff\xff\xff\xff";
  const struct {
    std::string head, mention;
  } cases[] = {{claims_4gib, "not a .npy file"}, {zip, "50 4b 03 04 14 00"}, {bad_version, "format version 9.9"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.mention);
    const auto start = std::chrono::steady_clock::now();
    const Result r = run_piped({"aapc", "-d", "2", "--backend", "cpu", "-i", "/dev/stdin"}, c.head, {}, noise,
                               std::uint64_t{300} << 20);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(contains(r.err, c.mention)) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_LT(r.peak_kib, kSmallKib) << "peaked at " << r.peak_kib << " KiB";
    EXPECT_LT(seconds, 2.0);
  }

  const fs::path sparse = path("noise.npy");
  std::ofstream(sparse, std::ios::binary) << claims_4gib;
  fs::resize_file(sparse, std::uintmax_t{4} << 30);
  expect_small_error({"aapc", "-d", "2", "-i", sparse.string()}, {"noise.npy", "not a .npy file", "12 34 56 78 9a bc"});
  expect_small_error({"permute", "--perm", "transpose", "-i", sparse.string()}, {"not a .npy file"});
  // Read only: a real device, at its first six bytes.
  expect_small_error({"aapc", "-d", "2", "-i", "/dev/urandom"}, {"/dev/urandom", "not a .npy file"});
}

// A stream whose header claims a large shape is held only as far as it has
// arrived (or in the machine itself, which its pages fill as words arrive):
// a short one is refused at its end, small and fast.
TEST_F(CliReliability, ShortStreamIsRefusedHavingHeldOnlyWhatArrived) {
  const std::string tail(1000, '\x01');
  const struct {
    Args args;
    std::string header;
  } cases[] = {
      {{"aapc", "-d", "13"}, npy_header("<u4", "(8192, 8192)")},                       // 256 MiB
      {{"permute", "--perm", "transpose"}, npy_header("<u4", "(8192, 8192)")},         // n, m from the stream
      {{"fft", "-P", "24", "-n", "2"}, npy_header("<c16", "(16777216,)")},             // 256 MiB of points
      {{"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1"}, npy_header("<u8", "(33554432,)")},
  };
  for (const auto& c : cases) {
    Args args = c.args;
    for (const char* a : {"--backend", "cpu", "-i", "/dev/stdin"}) args.push_back(a);
    SCOPED_TRACE(::testing::PrintToString(args));
    const auto start = std::chrono::steady_clock::now();
    const Result r = run_piped(args, c.header + tail);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GT(r.code, 0);
    EXPECT_TRUE(contains(r.err, "truncated data")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_LT(r.peak_kib, kSmallKib) << "peaked at " << r.peak_kib << " KiB";
    EXPECT_LT(seconds, 1.0);
  }
}

// n and m from a pipe's shape: its header is read once and the open stream
// handed on, so its body is still there to load (a second open would read
// the data as the header). The results are checked against the permutation
// computed here.
TEST_F(CliReliability, DimsComeFromAPipesShape) {
  const Cube c{3, 3};
  const Words in = random_words(c.total());
  const fs::path file = path("in.npy"), out = path("out.npy");
  write_u64(file, c.shape(), in);
  const std::string bytes = read(file);
  Result r = run_piped({"permute", "--perm", "transpose", "-i", "/dev/stdin", "-o", out.string()}, bytes);
  ASSERT_EQ(r.code, 0) << r.err;
  Words want(c.total());
  for (std::uint64_t j = 0; j < c.nodes(); ++j)
    for (std::uint64_t i = 0; i < c.K(); ++i) want[c.g(i, j)] = in[c.g(j, i)];
  EXPECT_EQ(read_u64(out, c), want);

  r = run_piped({"cycle", "--cycle", "0:1,2:3", "-i", "/dev/stdin", "-o", out.string(), "--json"}, bytes);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"verified_by\": \"fingerprint\"")) << r.out;
  want = in;
  exchange(want, c, 0, 1, 1);
  exchange(want, c, 2, 3, 3);
  EXPECT_EQ(read_u64(out, c), want);

  r = run_piped({"align", "--xor-proc", "0,1,2", "--xor-mem", "0,1,2", "-i", "/dev/stdin", "-o", out.string()}, bytes);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_u64(out, c), align(in, c, [](std::uint64_t j, std::uint64_t i) { return i ^ j; }));
}

// Sizes come from the flags or a file's header and are checked before any allocation or planning.
TEST_F(CliReliability, SizesAreCheckedBeforeAllocationOrPlanning) {
  expect_small_error({"permute", "--perm", "transpose", "-n", "20", "-m", "20"}, {"n + m = 20 + 20", "allowed n + m <="});
  expect_small_error({"compare", "--perm", "transpose", "-n", "20", "-m", "20"}, {"n + m = 20 + 20"});
  expect_small_error({"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "--N", "68719476736", "--type",
                      "uint64"},
                     {"N = 68719476736", "needs 1.0 TiB"});
  // A schedule of a hundred bytes whose header declares m = 40.
  const std::string s = ok({"schedule", "-d", "2", "--json"});
  json j = json::parse(s);
  j["m"] = 40;
  const fs::path huge = path("huge.json");
  std::ofstream(huge) << j.dump();
  expect_small_error({"run", "--schedule", huge.string()}, {"huge.json", "m = 40", "needs"});
}

// An environment variable set for the commands a test runs, unset after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

// The up-front check counts each command's real footprint, not the machine
// alone: fft and the fused pass hold a scratch copy beside the machine (fft
// -P 30 -n 2 was accepted with 16 GiB of data, needing 32). HCUBE_MEMORY_LIMIT
// stands for a smaller machine, so nothing here depends on this one's memory.
TEST_F(CliReliability, EachCommandsFootprintIsCheckedBeforeTheRun) {
  const ScopedEnv limit("HCUBE_MEMORY_LIMIT", "24M");
  expect_small_error({"fft", "-P", "20", "-n", "2", "--backend", "cpu"},
                     {"hcube fft -P 20 -n 2 needs 32.0 MiB", "the machine 16.0 MiB + its scratch copy 16.0 MiB",
                      "24.0 MiB available"});
  expect_small_error({"permute", "--perm", "bit-reversal", "-n", "11", "-m", "11", "--fused", "--backend", "cpu"},
                     {"hcube permute --fused needs 32.0 MiB", "scratch copy", "24.0 MiB available"});
  // The machine alone fits: 16 MiB of u32 words swapped in place.
  const Result r = run({"cycle", "-n", "11", "-m", "11", "--cycle", "0:1", "--backend", "cpu"});
  EXPECT_EQ(r.code, 0) << r.err;
}

// A redistribution counts its machine and the router program of one
// superblock, estimated within a small factor of what it takes; the issue's
// own example was refused from a stale estimate of 96 bytes an element
// (here 2^22 elements: "needs 384 MiB" of a 100 MiB limit).
TEST_F(CliReliability, ARedistributionCountsItsMachineAndOneSuperblock) {
  {
    const ScopedEnv limit("HCUBE_MEMORY_LIMIT", "100M");
    const json j = ok_json({"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "--N", "4194304", "--type",
                            "uint64", "--backend", "cpu"});
    EXPECT_EQ(j["verified"], true);
    EXPECT_LT(j["router_program_bytes"].get<std::uint64_t>(), 4096u);  // a superblock of 2 blocks
    // 997 x 1000 processors: a superblock of 997000 blocks, each pair of processors a message: 289 MiB.
    expect_small_error({"redistribute", "--P", "997", "--Q", "1000", "--K", "1", "--x", "1", "--backend", "cpu"},
                       {"router program of one superblock", "100.0 MiB available"});
  }
  // The estimate against the peak of a run whose program dwarfs its data (251 x 241 processors, 60491 blocks).
  if (instrumented()) GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine make resident sizes meaningless";
  const long base = run({"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "--backend", "cpu"}).peak_kib;
  const Result r = run({"redistribute", "--P", "251", "--Q", "241", "--K", "1", "--x", "1", "--type", "uint64",
                        "--backend", "cpu", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  const double estimate = static_cast<double>(j["router_program_bytes"].get<std::uint64_t>()) / 1024;
  const double data = static_cast<double>(j["N"].get<std::uint64_t>()) * 8 / 1024;  // sources and destinations
  const double program = static_cast<double>(r.peak_kib - base) - 2 * data;
  EXPECT_GT(program, estimate / 2) << "peak " << r.peak_kib << " KiB, baseline " << base;
  EXPECT_LT(program, estimate * 2) << "peak " << r.peak_kib << " KiB, baseline " << base;
}

// What a schedule file can cover is checked before its per-address records
// are made: a 300-byte AAPC declaring m = 26 holds 4 of the 2^26 exchanges it
// needs, and is refused at once, small (it took 3 s and 1.5 GB).
TEST_F(CliReliability, AScheduleIsCheckedAgainstWhatItCanCover) {
  json j = json::parse(ok({"schedule", "-d", "2", "--json"}));
  j["m"] = 26;
  const fs::path p = path("m26.json");
  std::ofstream(p) << j.dump();
  ASSERT_LT(fs::file_size(p), 400u);
  const auto start = std::chrono::steady_clock::now();
  expect_small_error({"run", "--schedule", p.string()}, {"m26.json", "m = 26", "needs K d / 2 = 67108864", "holds 4"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

// A schedule file is read as the .npy reader reads an input: bounded in its
// size, its strings and numbers, its nesting and its silences, its keys
// checked in linear time, a read error naming the file.
TEST_F(CliReliability, ScheduleFilesAreBounded) {
  // A string that never ends, on a pipe: refused at its 4097th byte (it grew to 2.6 GB).
  Result r = run_piped({"run", "--schedule", "/dev/stdin"}, "{\"format\": \"", {}, std::string(1 << 16, 'a'),
                       std::uint64_t{400} << 20);
  EXPECT_GT(r.code, 0);
  EXPECT_TRUE(contains(r.err, "more than 4096 bytes")) << r.err;
  EXPECT_LT(r.peak_kib, kSmallKib);
  // 10 MB of '[' (757 MB before): the format nests four deep.
  const fs::path deep = path("deep.json");
  std::ofstream(deep) << std::string(10 << 20, '[');
  expect_small_error({"run", "--schedule", deep.string()}, {"deep.json", "nested deeper", "4 levels"});
  // 160000 keys and the last one repeated: the check is linear, about 0.3 s (80000 took 5.4 s before, 4 times
  // as many would take 4 times as long again); the bound leaves room for a loaded machine.
  std::string keys = ok({"schedule", "-d", "2", "--json"});
  keys.pop_back();  // the newline
  keys.pop_back();  // the closing brace
  keys += ", \"x\": {";
  for (int k = 0; k < 160000; ++k) keys += "\"k" + std::to_string(k) + "\": 1, ";
  keys += "\"k0\": 2}}";
  const fs::path many = path("keys.json");
  std::ofstream(many) << keys;
  keys.clear();
  keys.shrink_to_fit();  // a spawned child's peak starts from this process's
  const auto start = std::chrono::steady_clock::now();
  r = run({"run", "--schedule", many.string()});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 3.0);
  EXPECT_TRUE(contains(r.err, "keys.json: duplicate key \"k0\"")) << r.err;
  EXPECT_LT(r.peak_kib, kSmallKib);
  // A FIFO whose writer opens it and says nothing: refused after HCUBE_INPUT_WAIT, as an input .npy is (it hung).
  const fs::path fifo = path("s.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);  // returns once hcube has opened it
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    ::close(fd);
  });
  ::setenv("HCUBE_INPUT_WAIT", "0.3", 1);
  const auto fifo_start = std::chrono::steady_clock::now();
  r = run({"run", "--schedule", fifo.string()});
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - fifo_start).count();
  ::unsetenv("HCUBE_INPUT_WAIT");
  writer.join();
  EXPECT_TRUE(contains(r.err, "no data arrived for 0.3 s")) << r.err;
  EXPECT_LT(waited, 1.0);
  // A file that fails to read names itself (it was "basic_filebuf::underflow error reading the file").
  expect_small_error({"run", "--schedule", "/proc/self/mem"}, {"/proc/self/mem", "cannot read"});
}

TEST_F(CliReliability, ScheduleFilesAreReadSafely) {
  expect_small_error({"run", "--schedule", dir_.string()}, {"is a directory"});
  expect_small_error({"run", "--schedule", "/dev/zero"}, {"/dev/zero", "not valid JSON at byte 1"});
  std::string text = ok({"schedule", "-d", "2", "--json"});
  text.insert(1, "\"d\": 2, ");  // the same key twice in one object: JSON leaves it open, nlohmann keeps the last
  const fs::path dup = path("dup.json");
  std::ofstream(dup) << text;
  expect_small_error({"run", "--schedule", dup.string()}, {"dup.json", "duplicate key \"d\""});
}

// No hcube flag takes an empty, infinite or NaN number, and none a negative one.
TEST_F(CliReliability, NumbersThatMakeNoSenseAreRefused) {
  expect_small_error({"permute", "--perm", "transpose", "--tau", "nan"}, {"--tau", "nan"});
  expect_small_error({"permute", "--perm", "transpose", "--ts", "inf"}, {"--ts", "inf"});
  expect_small_error({"permute", "--perm", "transpose", "--tc", "-1"}, {"--tc -1"});
  expect_small_error({"aapc", "-d", "3", "--tile-dims", "-5"}, {"t = -5", "allowed 0..3"});
  expect_small_error({"cycle", "-n", "3", "-m", "3", "--tile-dims", "-4", "--cycle", "0:0"}, {"t = -4"});
  expect_small_error({"aapc", "-d", "3", "-n", "-3"}, {"n = -3"});
  expect_small_error({"cycle", "-n", "", "--cycle", "0:0"}, {"--dims", "empty value"});
  expect_small_error({"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "--ts", "nan"}, {"--ts", "nan"});
  expect_small_error({"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "--dims", "-3"}, {"--dims -3"});
  expect_small_error({"fft", "-P", "4", "-n", "2", "--seed", "-1"}, {"--seed", "-1"});
  // -1 is a value like any other, never "the default": each gets its flag's range error.
  expect_small_error({"aapc", "-d", "3", "-n", "-1"}, {"n = -1"});
  expect_small_error({"aapc", "-d", "3", "-m", "-1"}, {"m = -1"});
  expect_small_error({"aapc", "-d", "3", "--tile-dims", "-1"}, {"t = -1", "allowed 0..3"});
  expect_small_error({"cycle", "-n", "3", "-m", "3", "--tile-dims", "-1", "--cycle", "0:0"}, {"t = -1"});
  expect_small_error({"fft", "-P", "4", "-n", "2", "--tile-dims", "-1"}, {"t = -1", "allowed 0..2"});
  expect_small_error({"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "--tile-dims", "-1"}, {"t = -1"});
  expect_small_error({"bench", "--op", "aapc", "-w", "8", "--tile-dims", "-1"}, {"t = -1"});
  expect_small_error({"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "--dims", "-1"}, {"--dims -1"});
  expect_small_error({"multi-aapc", "-s", "2", "-d", "2", "-m", "5", "-a", "5", "--rotated-rows", "-1"},
                     {"--rotated-rows -1"});
  expect_small_error({"permute", "--perm", "transpose", "--subcube-dims", "-1"}, {"--subcube-dims -1"});
  expect_small_error({"permute", "--perm", "transpose", "--packet", "-1"}, {"--packet -1"});
  // A number past 64 bits is named as given, not as the clamped 9223372036854775807.
  expect_small_error({"aapc", "-d", "99999999999999999999"}, {"--dims", "99999999999999999999 out of range"});
  expect_small_error({"fft", "-P", "4", "-n", "2", "--seed", "99999999999999999999"}, {"99999999999999999999"});
}

// An empty path is no file: refused as the flags are parsed (-i "" ran on the labels).
TEST_F(CliReliability, EmptyPathsAreRefused) {
  expect_small_error({"aapc", "-d", "3", "-i", ""}, {"--input", "empty path"});
  expect_small_error({"cycle", "--cycle", "0:0", "-i", ""}, {"--input", "empty path"});
  expect_small_error({"fft", "-P", "4", "-n", "2", "-i", ""}, {"--input", "empty path"});
  expect_small_error({"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "-i", ""},
                     {"--input", "empty path"});
  expect_small_error({"run", "--schedule", ""}, {"--schedule", "empty path"});
  expect_small_error({"aapc", "-d", "3", "-o", ""}, {"--output", "empty"});
  expect_small_error({"multi-aapc", "-s", "2", "-d", "2", "--save-schedule", ""}, {"--save-schedule", "empty"});
}

// A flag before the command is named when it is not hcube's own.
TEST_F(CliReliability, AnUnknownFlagBeforeTheCommandIsNamed) {
  expect_small_error({"--frobnicate"}, {"unknown flag '--frobnicate' for hcube"});
  expect_small_error({"--verison"}, {"unknown flag '--verison'", "did you mean --version?"});
  expect_small_error({"--frobnicate", "aapc", "-d", "2"}, {"unknown flag '--frobnicate'"});
}

// A silent FIFO input costs HCUBE_INPUT_WAIT in all, whatever its writer
// does: never opened, or opened and closed without a byte (30 s, then 60 s).
TEST_F(CliReliability, ASilentFifoInputIsRefusedWithinTheWait) {
  const ScopedEnv wait("HCUBE_INPUT_WAIT", "0.3");
  const fs::path fifo = path("in.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const bool writer_opens : {false, true}) {
    SCOPED_TRACE(writer_opens ? "the writer opens it and closes it" : "nothing opens it");
    std::thread writer([&] {
      if (!writer_opens) return;
      const int fd = ::open(fifo.c_str(), O_WRONLY);  // returns once hcube has opened it
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ::close(fd);
    });
    const auto start = std::chrono::steady_clock::now();
    const Result r = run({"aapc", "-d", "2", "-i", fifo.string()});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    writer.join();
    EXPECT_GT(r.code, 0);
    EXPECT_TRUE(contains(r.err, writer_opens ? "holds 0 bytes" : "nothing wrote to the FIFO for 0.3 s")) << r.err;
    EXPECT_LT(seconds, 1.0);
  }
}

// sweep --plot falls back to /tmp when TMPDIR is missing (it aborted), and
// the plot's name never reaches gnuplot's script: a name made to run a shell
// command through gnuplot's system() is only a name.
TEST_F(CliReliability, SweepPlotsSafely) {
  const Args sweep{"sweep", "--dims-from", "2", "--dims-to", "2", "--repeat", "1", "--backend", "cpu", "--plot"};
  {
    const ScopedEnv missing("TMPDIR", path("no/such/dir").string());
    Args args = sweep;
    args.push_back(path("plot.svg").string());
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_GT(fs::file_size(path("plot.svg")), 0u);
  }
  // A name holds no '/': the command touches a file in the working directory of hcube and gnuplot.
  const fs::path pwned = fs::current_path() / "hcube-test-pwned";
  fs::remove(pwned);
  for (const std::string& name : {std::string("a'; system('touch hcube-test-pwned'); b='.svg"),
                                  std::string("$(touch hcube-test-pwned).svg"), std::string("`touch hcube-test-pwned`.svg")}) {
    Args args = sweep;
    args.push_back(path(name).string());
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(path(name))) << "the plot goes to the name given, as it is";
    EXPECT_FALSE(fs::exists(pwned)) << "a shell command ran from the name " << name;
    fs::remove(pwned);
  }
}

// -o onto a character device (a null device made here with mknod) writes
// into it and leaves it a device.
TEST_F(CliReliability, OutputOntoADeviceNodeKeepsTheNode) {
  const fs::path node = path("null.npy");
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here (" << std::strerror(errno)
                 << "); FifoOutputIsWrittenIntoOrRefused covers writing in place";
  ok({"aapc", "-d", "2", "-o", node.string()});
  struct stat st {};
  ASSERT_EQ(::lstat(node.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 3) << "no temporary beside it";
}

// An output directory that exists but cannot be written is refused before
// the run. As root, permissions do not stop a write: the directory is made
// immutable instead (chattr +i), which stops root too.
TEST_F(CliReliability, AnUnwritableOutputDirectoryIsRefusedFirst) {
  const fs::path locked = path("locked");
  fs::create_directory(locked);
  bool immutable = false;
  if (::geteuid() == 0) {
    const int fd = ::open(locked.c_str(), O_RDONLY | O_DIRECTORY);
    int flags = 0;
    immutable = fd >= 0 && ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 &&
                (flags |= FS_IMMUTABLE_FL, ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0);
    if (fd >= 0) ::close(fd);
    if (!immutable)
      GTEST_SKIP() << "running as root on a file system without chattr +i: no directory here stops root's writes";
  } else {
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  }
  expect_small_error({"aapc", "-d", "8", "-o", (locked / "out.npy").string()}, {"--output", "locked"});
  if (immutable) {
    const int fd = ::open(locked.c_str(), O_RDONLY | O_DIRECTORY);
    int flags = 0;
    if (fd >= 0 && ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
      flags &= ~FS_IMMUTABLE_FL;
      ::ioctl(fd, FS_IOC_SETFLAGS, &flags);
    }
    if (fd >= 0) ::close(fd);
  } else {
    fs::permissions(locked, fs::perms::owner_all);
  }
  EXPECT_TRUE(fs::is_empty(locked));
}

// SIGTERM while hcube writes its output removes the temporary: the run is
// watched with inotify and stopped as soon as the temporary appears.
TEST_F(CliReliability, SigtermWhileWritingLeavesNoTemporary) {
  const int watch = ::inotify_init1(IN_CLOEXEC);
  ASSERT_GE(watch, 0) << std::strerror(errno);
  ASSERT_GE(::inotify_add_watch(watch, dir_.c_str(), IN_CREATE), 0) << std::strerror(errno);
  std::vector<std::string> argv{hcube_binary(), "aapc", "-d", "11", "--backend", "cpu", "-o", path("out.npy").string()};
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  ASSERT_EQ(::posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  // The first file the run makes in the directory is its temporary.
  bool killed = false;
  alignas(inotify_event) char events[4096];
  pollfd p{watch, POLLIN, 0};
  while (!killed && ::poll(&p, 1, 10000) > 0) {
    const ssize_t got = ::read(watch, events, sizeof events);
    for (char* e = events; got > 0 && e < events + got; e += sizeof(inotify_event) + reinterpret_cast<inotify_event*>(e)->len) {
      const inotify_event* ev = reinterpret_cast<inotify_event*>(e);
      if (ev->len > 0 && std::string(ev->name).rfind(".hcube-", 0) == 0 && !killed) {
        ::kill(pid, SIGTERM);
        killed = true;
      }
    }
  }
  ::close(watch);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(killed) << "no temporary appeared: the output was not written through one";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_NE(entry.path().filename().string().rfind(".hcube-", 0), 0u) << "left behind: " << entry.path();
  EXPECT_FALSE(fs::exists(path("out.npy")));
}

// Runs hcube with standard output on `out_fd` and standard error to a file,
// SIGPIPE at its default as a shell leaves it (this test process ignores it,
// and an ignored signal would be inherited). Never reads `out_fd` back.
Result run_onto(const std::vector<std::string>& args, int out_fd, const fs::path& err) {
  std::vector<std::string> argv{hcube_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  Result r;
  const int rc = ::posix_spawn(&pid, pointers[0], &actions, &attr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << argv[0] << ": " << std::strerror(rc);
    return r;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  r.err = read_text(err);
  return r;
}

void expect_one_error_line(const Result& r, const std::vector<std::string>& mentions) {
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("hcube: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const std::string& m : mentions) EXPECT_TRUE(contains(r.err, m)) << "no '" << m << "' in: " << r.err;
}

// A write to standard output that fails (a full disk, as a file at its size
// limit gives it: RLIMIT_FSIZE, made in the test's directory, no device file)
// is an error and exit 1, never exit 0 with the data lost, whatever the command printed.
TEST_F(CliReliability, AFailedWriteOfStandardOutputIsAnError) {
  constexpr rlim_t kCap = 4096;  // room for the one-line error on stderr, none past it on stdout
  const fs::path full_path = path("full");
  std::ofstream(full_path) << std::string(kCap, 'x');
  const int full = ::open(full_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  ASSERT_GE(full, 0) << std::strerror(errno);
  // The children inherit the cap and the ignored SIGXFSZ: a write past it fails with EFBIG.
  struct rlimit before {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  struct rlimit cap = before;
  cap.rlim_cur = std::min<rlim_t>(kCap, before.rlim_max);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &cap), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  const std::vector<std::vector<std::string>> commands = {
      {"schedule", "--dims", "8", "--format", "json"},
      {"schedule", "--dims", "3"},
      {"info", "--json"},
      {"aapc", "-d", "3", "--json", "--backend", "cpu"},
      {"sweep", "--dims-from", "2", "--dims-to", "2", "--algorithms", "4", "--csv", "-"},
      {"--help"},
  };
  std::vector<Result> results;
  for (const auto& args : commands) results.push_back(run_onto(args, full, path("err")));
  std::signal(SIGXFSZ, old_handler);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &before), 0);
  ::close(full);
  for (std::size_t i = 0; i < commands.size(); ++i) {
    SCOPED_TRACE(::testing::PrintToString(commands[i]));
    expect_one_error_line(results[i], {"cannot write standard output", "File too large"});
  }
}

// A reader that quits (`hcube ... | head -c 1`, a FIFO's reader) makes hcube
// say so and exit 1, not die of SIGPIPE without a word.
TEST_F(CliReliability, AReaderThatQuitsIsAnErrorNotASilentDeath) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ::close(fds[0]);  // nobody will read
  expect_one_error_line(run_onto({"schedule", "--dims", "8", "--format", "json"}, fds[1], path("err")),
                        {"cannot write standard output", "Broken pipe"});
  ::close(fds[1]);

  // --output onto a FIFO whose reader takes one byte and quits: 256 KiB cannot fit its buffer.
  const fs::path fifo = path("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // open before hcube is
  ASSERT_GE(reader, 0) << std::strerror(errno);
  std::thread quitter([&] {
    pollfd p{reader, POLLIN, 0};
    char byte = 0;
    if (::poll(&p, 1, 10000) > 0 && ::read(reader, &byte, 1) < 0) ADD_FAILURE() << std::strerror(errno);
    ::close(reader);
  });
  const int sink = ::open(path("stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(sink, 0) << std::strerror(errno);
  const Result r = run_onto({"aapc", "-d", "8", "--backend", "cpu", "-o", fifo.string()}, sink, path("err"));
  ::close(sink);
  quitter.join();
  expect_one_error_line(r, {fifo.string(), "Broken pipe"});
  EXPECT_TRUE(fs::is_fifo(fifo));
}

// The footprint is checked before any schedule or plan is built, from closed
// forms: sizes that took seconds to minutes of planning before their refusal
// (aapc --dims 17..20, multi-aapc of 2 axes of 12 and 16, scatter on cube:22
// and cube:24) are refused at once, naming the value and the range.
TEST_F(CliReliability, SizesAreRefusedBeforeAnyPlanIsBuilt) {
  const ScopedEnv limit("HCUBE_MEMORY_LIMIT", "4G");
  const struct {
    Args args;
    std::vector<std::string> mentions;
  } cases[] = {
      {{"aapc", "--dims", "17"}, {"n + m = 17 + 17", "allowed n + m <= 30"}},
      {{"aapc", "--dims", "18"}, {"n + m = 18 + 18"}},
      {{"aapc", "--dims", "20"}, {"n + m = 20 + 20", "allowed n + m <= 30"}},
      {{"multi-aapc", "--axes", "2", "--dims", "12", "--mem-dims", "12"}, {"n + m = 24 + 12", "allowed n + m <= 30"}},
      {{"multi-aapc", "--axes", "2", "--dims", "16", "--mem-dims", "16"}, {"n + m = 32 + 16"}},
      // Before Algorithm 5's concurrent design too, which took 3 s here.
      {{"multi-aapc", "--axes", "2", "--dims", "10", "--algorithm", "5"}, {"n + m = 20 + 20"}},
      {{"scatter", "--topology", "cube:22"}, {"n + m = 22 + 22", "allowed n + m <= 30"}},
      {{"scatter", "--topology", "cube:24"}, {"n + m = 24 + 24"}},
  };
  for (const auto& c : cases) {
    Args args = c.args;
    for (const char* a : {"--backend", "cpu"}) args.push_back(a);
    const auto start = std::chrono::steady_clock::now();
    expect_small_error(args, c.mentions);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 4.0)
        << ::testing::PrintToString(args);  // two runs
  }
  // The schedule alone, with no machine, is held on the host: its tables are counted.
  {
    const ScopedEnv small("HCUBE_MEMORY_LIMIT", "1M");
    expect_small_error({"schedule", "--dims", "16"}, {"hcube schedule --dims 16", "needs", "available"});
  }
  // As JSON (a file, or --format json) it is one document of about 200 bytes an exchange: 2^15 x 16 of them here.
  const ScopedEnv some("HCUBE_MEMORY_LIMIT", "64M");
  EXPECT_EQ(run({"schedule", "--dims", "16"}).code, 0);
  expect_small_error({"schedule", "--dims", "16", "--format", "json"}, {"the schedule's tables and its JSON", "available"});
}

// `ulimit -v` is memory hcube cannot take: counted as available memory, so a
// cube past it is refused with the range, not "allocation of ... failed".
TEST_F(CliReliability, AddressSpaceLimitIsCountedAsAvailableMemory) {
  if (instrumented()) GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v";
  const Result r = run_program({"/bin/sh", "-c", "ulimit -v 4000000 && exec \"$0\" aapc --dims 16 --backend cpu",
                                hcube_binary()},
                               path("out"), path("err"));
  ASSERT_TRUE(r.started) << r.err;
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "n + m = 16 + 16")) << r.err;
  EXPECT_TRUE(contains(r.err, "allowed n + m <=")) << r.err;
  EXPECT_FALSE(contains(r.err, "allocation of")) << r.err;
}

// User text is printed through one sanitizer: a newline in a file name keeps
// the error on one line, an ESC sequence in a name or in a schedule file's
// "algorithm" reaches the terminal escaped, in errors and in prose alike.
TEST_F(CliReliability, ControlCharactersInUserTextArePrintedEscaped) {
  expect_small_error({"aapc", "-d", "2", "-i", path("in\nput.npy").string()}, {"in\\nput.npy", "cannot open"});
  const Result wrote = run({"aapc", "-d", "2", "-o", path("x\x1b[2Jy.npy").string()});
  EXPECT_EQ(wrote.code, 0) << wrote.err;
  EXPECT_FALSE(contains(wrote.out, "\x1b")) << wrote.out;
  EXPECT_TRUE(contains(wrote.out, "x\\x1b[2Jy.npy")) << wrote.out;

  json j = json::parse(ok({"schedule", "-d", "2", "--json"}));
  j["algorithm"] = "\x1b[31mmine";
  const fs::path file = path("mine.json");
  std::ofstream(file) << j.dump();
  const Result r = run({"run", "--schedule", file.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "\x1b")) << r.out;
  EXPECT_TRUE(contains(r.out, "schedule '\\x1b[31mmine'")) << r.out;
}

// A number is echoed as the user wrote it and its range is the true one:
// no hex or exponent read as a count, no digits called "not an integer".
TEST_F(CliReliability, NumbersAreEchoedAsWrittenWithTheirTrueRange) {
  expect_small_error({"aapc", "-d", "0x10"}, {"--dims", "'0x10'", "whole number in decimal"});
  expect_small_error({"aapc", "-d", "1e26"}, {"--dims", "'1e26'", "whole number in decimal"});
  expect_small_error({"aapc", "-d", "3", "-b", "1099511627776"},
                     {"b = 1099511627776", "allowed 1..4294967295, or cm2"});
  expect_small_error({"permute", "--perm", "random:99999999999999999999999", "-n", "2", "-m", "2"},
                     {"99999999999999999999999 out of range", "at most 18446744073709551615"});
  // In a schedule file too: as the file writes it, not as the double it parses to.
  std::string text = ok({"schedule", "-d", "2", "--json"});
  const std::size_t d = text.find(R"("d":2)");
  ASSERT_NE(d, std::string::npos) << text;
  for (const std::string& written : {std::string("1e26"), std::string("18446744073709551616")}) {
    std::string file = text;
    file.replace(d, 5, R"("d":)" + written);
    std::ofstream(path("d.json")) << file;
    expect_small_error({"run", "--schedule", path("d.json").string()}, {"'d' is " + written + ", expected"});
  }
}

// Two flags asking for different formats are refused, not settled silently.
TEST_F(CliReliability, ScheduleJsonAndFormatTableConflict) {
  expect_small_error({"schedule", "-d", "3", "--json", "--format", "table"}, {"--json", "--format table", "disagree"});
  EXPECT_NO_THROW(json::parse(ok({"schedule", "-d", "3", "--json", "--format", "json"})));
}

// A symlink loop as --output is named, with the path.
TEST_F(CliReliability, ASymlinkLoopOutputNamesThePath) {
  const fs::path a = path("loop-a.npy"), b = path("loop-b.npy");
  fs::create_symlink(b, a);
  fs::create_symlink(a, b);
  expect_small_error({"aapc", "-d", "2", "-o", a.string()}, {a.string(), "too many levels of symlinks"});
}

// rotated_rows belongs to concurrent alignments: with xor ones it is refused,
// and an offset map no exchange uses changes no word, so it does not switch
// the transpose's verification off.
TEST_F(CliReliability, ScheduleFileFieldsThatDoNothingAreRefusedOrHarmless) {
  const json plain = json::parse(ok({"schedule", "-d", "2", "--json"}));
  json rotated = plain;
  rotated["rotated_rows"] = 1;
  const fs::path r = path("rotated.json");
  std::ofstream(r) << rotated.dump();
  expect_small_error({"run", "--schedule", r.string()}, {"rotated_rows = 1", "concurrent alignments only", "allowed 0"});

  json mapped = plain;
  mapped["offset_maps"] = json::array({json::array({1, 2})});
  const fs::path m = path("mapped.json");
  std::ofstream(m) << mapped.dump();
  const json j = ok_json({"run", "--schedule", m.string()});
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["permutation"], "transpose");
}

// Exit codes (docs/cli.md): 0 success, 1 bad input or a failed check, 2 a
// command line of the wrong shape; `hcube <unknown> --help` is an unknown command.
TEST_F(CliReliability, ExitCodesAreTheDocumentedOnes) {
  const struct {
    Args args;
    int code;
  } cases[] = {
      {{"aapc", "-d", "0"}, 1},
      {{"aapc", "-d", "3", "-o", path("missing/out.npy").string()}, 1},
      {{"aapc", "-d", "abc"}, 1},
      {{"permute", "--perm", "transpose", "--ports", "two"}, 1},
      {{}, 2},
      {{"permut"}, 2},
      {{"aapc", "--frobnicate"}, 2},
      {{"aapc"}, 2},
      {{"nosuch", "--help"}, 2},
      {{"aapc", "--help"}, 0},
      {{"--version"}, 0},
  };
  for (const auto& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.code, c.code) << ::testing::PrintToString(c.args) << ": " << r.err;
    if (c.code != 0) {
      EXPECT_EQ(r.out, "") << ::testing::PrintToString(c.args);
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
  EXPECT_TRUE(contains(run({"nosuch", "--help"}).err, "unknown command 'nosuch'"));
}

// N --cycle flags cost about N: each step's reference is one table, not a chain
// of every step before it (N = 5000 took 6.6 s). Eight times the flags must
// take well under the 64 times a quadratic cost would.
TEST_F(CliReliability, ManyCycleFlagsTakeLinearTime) {
  const auto seconds = [&](int flags) {
    Args args{"cycle", "-n", "4", "-m", "4", "--backend", "cpu"};
    for (int i = 0; i < flags; ++i) {
      args.push_back("--cycle");
      args.push_back("0:" + std::to_string(i % 16));
    }
    const auto start = std::chrono::steady_clock::now();
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  seconds(100);  // warm the page cache
  const double few = seconds(500), many = seconds(4000);
  EXPECT_LT(many, 16 * few + 0.5) << few << " s for 500 flags, " << many << " s for 4000";
}

}  // namespace

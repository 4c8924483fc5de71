// A hostile user's small bad inputs (issue 21): nothing written where it must
// not be, no unbounded work, one line of error, and every refusal fast and
// small. Special files are made in the test's own directory; real device
// files are only ever read.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <thread>

#include "cli_harness.hpp"

namespace {

using namespace hcube::test;

// A refusal costs no more than this: it must not read or allocate what the input claims.
constexpr long kSmallKib = 100 * 1024;

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

// Sizes come from the flags or a file's header and are checked before any allocation or planning.
TEST_F(CliReliability, SizesAreCheckedBeforeAllocationOrPlanning) {
  expect_small_error({"permute", "--perm", "transpose", "-n", "20", "-m", "20"}, {"n + m = 20 + 20", "allowed n + m <="});
  expect_small_error({"compare", "--perm", "transpose", "-n", "20", "-m", "20"}, {"n + m = 20 + 20"});
  expect_small_error({"redistribute", "--P", "2", "--Q", "2", "--K", "1", "--x", "1", "--N", "68719476736", "--type",
                      "uint64"},
                     {"N = 68719476736", "host memory"});
  // A schedule of a hundred bytes whose header declares m = 40.
  const std::string s = ok({"schedule", "-d", "2", "--json"});
  json j = json::parse(s);
  j["m"] = 40;
  const fs::path huge = path("huge.json");
  std::ofstream(huge) << j.dump();
  expect_small_error({"run", "--schedule", huge.string()}, {"huge.json", "m = 40", "host memory"});
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
}

}  // namespace

// hcube bench as a user runs it: the JSON contract of issue 6 (op, words,
// bytes_moved, seconds, memcpy_seconds, ratio_to_memcpy, backend), the bytes
// each operation must move, and bad input. No time is asserted: only that the
// figures are consistent with one another.
#include "cli_harness.hpp"

namespace {

using namespace hcube::test;

class CliBench : public Cli {};

TEST_F(CliBench, EveryOperationReportsItsBytesAndTheRoofline) {
  const std::uint64_t words = 1u << 12;
  for (const char* op : {"memcpy", "cycle", "alignment", "aapc", "fused-transpose", "fused-bit-reversal",
                         "gather-bit-reversal"}) {
    SCOPED_TRACE(op);
    const json j = ok_json({"bench", "--op", op, "--log2-words", "12", "--repeat", "3"});
    for (const char* key : {"op", "words", "bytes_moved", "seconds", "memcpy_seconds", "ratio_to_memcpy", "backend"})
      EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["op"], op);
    EXPECT_EQ(j["words"], words);
    EXPECT_GT(j["seconds"].get<double>(), 0.0);
    EXPECT_GT(j["memcpy_seconds"].get<double>(), 0.0);
    // The ratio is the two throughputs' quotient, as printed.
    const double ratio = (j["bytes_moved"].get<double>() / j["seconds"].get<double>()) /
                         (2.0 * 4 * words / j["memcpy_seconds"].get<double>());
    EXPECT_NEAR(j["ratio_to_memcpy"].get<double>(), ratio, 1e-9 * ratio);
    const std::string name = op;
    const std::uint64_t all = 2 * 4 * words;  // every word read and written once
    if (name == "memcpy" || name.rfind("fused", 0) == 0) {
      EXPECT_EQ(j["bytes_moved"], all);
    }
    if (name == "cycle") {
      EXPECT_EQ(j["bytes_moved"], all / 2);  // half of every node's words cross a link
    }
    if (name == "aapc") {
      EXPECT_GT(j["bytes_moved"].get<std::uint64_t>(), all);  // alignments and cycles
    }
  }
  EXPECT_TRUE(contains(ok({"bench", "--op", "fused-bit-reversal", "-w", "10"}), "ratio to memcpy"));
}

TEST_F(CliBench, BadInput) {
  expect_error({"bench", "--op", "teleport"}, {"'teleport' unknown", "memcpy, cycle"});
  expect_error({"bench", "--op", "cycle", "--log2-words", "40"}, {"--log2-words 40 out of range", "2..34"});
  expect_error({"bench", "--op", "cycle", "--repeat", "0"}, {"--repeat 0 out of range"});
  expect_error({"bench", "--op", "aapc", "--log2-words", "11"}, {"must be even"});
  expect_error({"bench", "--op", "gather-bit-reversal", "--backend", "cuda"}, {"CPU baseline"});
}

}  // namespace

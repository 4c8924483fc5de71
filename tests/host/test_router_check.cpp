// The router-step checker: ranges, message length, one message per sender,
// contention (reported or rejected), and words both read and written.
#include <gtest/gtest.h>

#include "hcube/core/error.hpp"
#include "hcube/host/router_step.hpp"

namespace hcube {
namespace {

const Geometry kGeo{3, 4};

std::string error_of(const RouterStep& s, RouterLimits lim) {
  try {
    check_router_step(kGeo, s, lim);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(RouterCheck, CountsWordsHopsAndContention) {
  const RouterStep s = {{0, 0, 7, 8, 4}, {1, 0, 7, 12, 2}, {2, 0, 3, 8, 1}};
  const RouterStepReport r = check_router_step(kGeo, s, {4, ContentionPolicy::report});
  EXPECT_EQ(r.words, 7u);
  EXPECT_EQ(r.element_hops, 4u * 3 + 2u * 2 + 1u * 1);  // words x Hamming distance
  EXPECT_EQ(r.contention, 1u);                          // node 7 receives twice
  EXPECT_EQ(r.max_message, 4u);
}

TEST(RouterCheck, ContentionRejectedByPolicy) {
  const RouterStep s = {{0, 0, 7, 8, 1}, {1, 0, 7, 9, 1}};
  EXPECT_EQ(error_of(s, {1, ContentionPolicy::reject}),
            "router message 1 {node 1 words 0..0 -> node 7 words 9..9}: node contention: node 7 also receives "
            "message 0");
  EXPECT_EQ(error_of(s, {1, ContentionPolicy::report}), "");
}

TEST(RouterCheck, ThreeMessagesToOneReceiverCountOnce) {
  const RouterStep s = {{0, 0, 7, 8, 1}, {1, 0, 7, 9, 1}, {2, 0, 7, 10, 1}};
  EXPECT_EQ(check_router_step(kGeo, s, {1, ContentionPolicy::report}).contention, 1u);
}

TEST(RouterCheck, RulesAreNamed) {
  const RouterLimits lim{4, ContentionPolicy::report};
  EXPECT_NE(error_of({{8, 0, 0, 0, 1}}, lim).find("source node 8 out of range: allowed 0..7"), std::string::npos);
  EXPECT_NE(error_of({{0, 0, 9, 0, 1}}, lim).find("destination node 9 out of range"), std::string::npos);
  EXPECT_NE(error_of({{0, 0, 1, 0, 5}}, lim).find("length 5 out of range: allowed 1..4 (B)"), std::string::npos);
  EXPECT_NE(error_of({{0, 0, 1, 0, 0}}, lim).find("length 0 out of range"), std::string::npos);
  EXPECT_NE(error_of({{0, 14, 1, 0, 4}}, lim).find("source words 14..17 out of range: allowed 0..15"),
            std::string::npos);
  EXPECT_NE(error_of({{0, 0, 1, 13, 4}}, lim).find("destination words 13..16"), std::string::npos);
  EXPECT_NE(error_of({{0, 0, 1, 0, 1}, {0, 4, 2, 0, 1}}, lim).find("node 0 already sends message 0"),
            std::string::npos);
}

TEST(RouterCheck, AWordReadAndWrittenInOneStepIsRejected) {
  const RouterLimits lim{4, ContentionPolicy::report};
  // Message 1 writes words 2..3 of node 0, which message 0 reads.
  EXPECT_NE(error_of({{0, 0, 1, 0, 4}, {1, 8, 0, 2, 2}}, lim).find("that message 0 also reads"), std::string::npos);
  // Two messages writing one word: data would be lost.
  EXPECT_NE(error_of({{0, 0, 5, 0, 2}, {1, 0, 5, 1, 2}}, lim).find("also writes"), std::string::npos);
  // Reading one word twice is fine (no node sends twice here).
  EXPECT_EQ(error_of({{0, 0, 1, 4, 2}, {1, 0, 2, 4, 2}}, lim), "");
  // A message from a node to itself between disjoint ranges is fine.
  EXPECT_EQ(error_of({{3, 0, 3, 4, 4}}, lim), "");
}

// Found by tests/fuzz (message): a newline in --message split the one-line error message.
TEST(RouterCheck, MalformedMessagesAreQuotedOnOneLine) {
  try {
    parse_message("0:1\n:2:3");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "message '0:1\\n:2:3' malformed: field '1\\n' is not a non-negative integer");
  }
  try {
    parse_message("0:1:2\r");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "message '0:1:2\\r' malformed: field '2\\r' is not a non-negative integer");
  }
  try {
    parse_contention_policy("reject\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "contention policy 'reject\\n' unknown: allowed report, reject");
  }
}

TEST(RouterCheck, ParsesMessages) {
  const Message m = parse_message("1:2:3:4:5");
  EXPECT_EQ(m.src_node, 1u);
  EXPECT_EQ(m.length, 5u);
  EXPECT_EQ(parse_message("1:2:3:4").length, 1u);
  EXPECT_THROW(parse_message("1:2:3"), Error);
  EXPECT_THROW(parse_message("a:2:3:4"), Error);
  EXPECT_THROW(parse_contention_policy("ignore"), Error);
}

}  // namespace
}  // namespace hcube

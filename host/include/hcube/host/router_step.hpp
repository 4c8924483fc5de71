// One step of the CM-2's general router: every node sends at most one message
// of up to B consecutive local words to any node and receives at most one.
// A step reads from one set of words and writes another (like a send field
// and a receive field), so all messages of a step see the state before it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hcube/core/message.hpp"
#include "hcube/host/geometry.hpp"

namespace hcube {

using RouterStep = std::vector<Message>;

enum class ContentionPolicy {
  report,  // count receivers hit by more than one message and deliver all
  reject,  // refuse a step in which a receiver is hit twice
};

struct RouterLimits {
  std::uint64_t max_message = 1;  // B: words per message
  ContentionPolicy contention = ContentionPolicy::report;
};

struct RouterStepReport {
  std::uint64_t contention = 0;      // receivers hit by more than one message
  std::uint64_t words = 0;           // words delivered
  std::uint64_t element_hops = 0;    // words times links crossed (e-cube distance)
  std::uint64_t max_message = 0;     // longest message, in words
};

// Checks the step (ranges, message length, one message sent per node, no word
// both read and written or written twice, contention by policy) and returns
// its counts. Throws hcube::Error naming the message and the rule it breaks.
RouterStepReport check_router_step(const Geometry& geo, const RouterStep& step, const RouterLimits& limits);

// A router step of block messages (core/message.hpp): the blocks of block_words
// words from local word src_lo at the senders and dst_lo at the receivers.
struct BlockRouteStep {
  std::vector<BlockMessage> messages;
  std::vector<std::uint64_t> from, to;  // the messages' period entries, sender and receiver blocks
  std::uint64_t src_lo = 0, dst_lo = 0, block_words = 1;
  std::uint64_t from_step = 0, to_step = 0;  // blocks a period advances at the sender, the receiver
};

// Checks block steps as check_router_step checks a step (nodes and words in
// range, one message sent and one received per node a step), that they share
// one block shape (src_lo, dst_lo, block_words, from_step, to_step) and that no
// node writes, in any step, words inside the span it reads from in any step, so
// the steps may run in one launch. Returns their counts, summed. Each message's
// blocks must be distinct, which the caller's schedule proves
// (check_redistribution_schedule).
RouterStepReport check_block_route(const Geometry& geo, const std::vector<BlockRouteStep>& steps);

std::string to_string(const Message& msg);
// Parses "src_node:src_addr:dst_node:dst_addr[:length]" (length 1 by default).
Message parse_message(const std::string& text);
ContentionPolicy parse_contention_policy(const std::string& s);  // "report" | "reject"

}  // namespace hcube

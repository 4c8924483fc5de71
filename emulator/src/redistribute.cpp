#include "hcube/emulator/redistribute.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/geometry.hpp"

namespace hcube {
namespace {

unsigned ceil_log2(std::uint64_t v) {
  unsigned b = 0;
  while (bit(b) < v) ++b;
  return b;
}

// Blocks a source holds: those i < N/x with i mod P = j.
std::uint64_t source_blocks(const Redistribution& r, std::uint64_t j) {
  return r.blocks() > j ? (r.blocks() - j + r.P - 1) / r.P : 0;
}

}  // namespace

RedistributionPlacement place_redistribution(const Redistribution& r, bool overlap) {
  check_redistribution(r);
  RedistributionPlacement pl;
  pl.r = r;
  pl.overlap = overlap;
  pl.source_words = source_blocks(r, 0) * r.x;
  // The highest destination local block + 1: local blocks grow with i div KQ,
  // so the highest lies among the last KQ blocks.
  std::uint64_t slots = 0;
  for (std::uint64_t i = r.blocks() > r.K * r.Q ? r.blocks() - r.K * r.Q : 0; i < r.blocks(); ++i)
    slots = std::max(slots, destination_place(r, i).local_block + 1);
  pl.dest_words = slots * r.x;
  const std::uint64_t nodes = overlap ? std::max(r.P, r.Q) : r.P + r.Q;
  pl.n = ceil_log2(nodes);
  pl.m = ceil_log2(pl.source_words + pl.dest_words);
  if (pl.n + pl.m > kMaxAddressBits)
    throw Error(fmt::format("R_{}({}, {}, {}) on N = {} needs 2^{} nodes of 2^{} words: allowed n + m <= {}", r.x, r.P,
                            r.K, r.Q, r.N, pl.n, pl.m, kMaxAddressBits));
  return pl;
}

std::vector<unsigned char> source_image(const RedistributionPlacement& pl, const void* data, std::size_t wb) {
  const Redistribution& r = pl.r;
  const std::uint64_t K = bit(pl.m);
  std::vector<unsigned char> image(bit(pl.n) * K * wb, 0);
  const auto* in = static_cast<const unsigned char*>(data);
  for (std::uint64_t i = 0; i < r.blocks(); ++i) {
    const BlockPlace s = source_place(r, i);
    std::memcpy(&image[(pl.source_node(s.proc) * K + s.local_block * r.x) * wb], in + i * r.x * wb, r.x * wb);
  }
  return image;
}

std::vector<unsigned char> expected_destinations(const RedistributionPlacement& pl, const void* data,
                                                 std::size_t wb) {
  const Redistribution& r = pl.r;
  std::vector<unsigned char> rows(r.Q * pl.dest_words * wb, 0);
  const auto* in = static_cast<const unsigned char*>(data);
  for (std::uint64_t i = 0; i < r.blocks(); ++i) {
    const BlockPlace d = destination_place(r, i);
    std::memcpy(&rows[(d.proc * pl.dest_words + d.local_block * r.x) * wb], in + i * r.x * wb, r.x * wb);
  }
  return rows;
}

std::vector<unsigned char> destination_rows(const RedistributionPlacement& pl, const std::vector<unsigned char>& image,
                                            std::size_t wb) {
  const Redistribution& r = pl.r;
  const std::uint64_t K = bit(pl.m);
  std::vector<unsigned char> rows(r.Q * pl.dest_words * wb);
  for (std::uint64_t q = 0; q < r.Q; ++q)
    std::memcpy(&rows[q * pl.dest_words * wb], &image[(pl.destination_node(q) * K + pl.source_words) * wb],
                pl.dest_words * wb);
  return rows;
}

void verify_redistribution(const RedistributionPlacement& pl, const std::vector<unsigned char>& rows, const void* data,
                           ElementType type) {
  const Redistribution& r = pl.r;
  const std::size_t wb = info(type).bytes;
  const std::uint64_t D = pl.dest_words, big = r.K * r.x;
  if (rows.size() != r.Q * D * wb)
    throw Error(fmt::format("verification failed: {} bytes of destination rows, expected {} x {} words", rows.size(),
                            r.Q, D));
  const auto* in = static_cast<const unsigned char*>(data);
  std::vector<bool> filled(r.Q * D, false);
  const auto fail = [&](std::uint64_t w, const std::string& want) {
    throw Error(fmt::format("verification failed: destination {} word {} holds {}, the layout cyclic(Kx) has {}", w / D,
                            w % D, format_element(type, &rows[w * wb]), want));
  };
  for (std::uint64_t g = 0; g < r.N; ++g) {
    const std::uint64_t b = g / big, w = (b % r.Q) * D + (b / r.Q) * big + g % big;
    if (w >= r.Q * D) fail(r.Q * D - 1, fmt::format("element {} past the row's end", g));
    filled[w] = true;
    if (!std::equal(&rows[w * wb], &rows[w * wb] + wb, in + g * wb)) fail(w, format_element(type, in + g * wb));
  }
  for (std::uint64_t w = 0; w < r.Q * D; ++w)
    if (!filled[w] && std::any_of(&rows[w * wb], &rows[w * wb] + wb, [](unsigned char c) { return c != 0; }))
      fail(w, "a hole (zero)");
}

RedistributionReport run_redistribution(Machine& mach, const RedistributionPlacement& pl, const RedistSchedule& s,
                                        const RedistStepDone& after_step) {
  const Redistribution& r = pl.r;
  const Geometry& geo = mach.geometry();
  if (geo.n != pl.n || geo.m != pl.m)
    throw Error(fmt::format("redistribution placed on n = {}, m = {}: the machine has n = {}, m = {}", pl.n, pl.m,
                            geo.n, geo.m));
  RedistributionReport rep;
  rep.stats = check_redistribution_schedule(r, s);
  const std::uint64_t S = pl.source_words, x = r.x;

  // Send order: each source's messages step by step; the router step's messages.
  // Pack and unpack permute blocks of x words: the source region's SB blocks on
  // the P sources, the destination region's DB slots on the Q destinations.
  const std::uint64_t SB = S / x, DB = pl.dest_words / x;
  std::vector<std::uint64_t> pack(r.P * SB), unpack(r.Q * DB);
  for (std::uint64_t j = 0; j < r.P; ++j)
    for (std::uint64_t f = 0; f < SB; ++f) pack[j * SB + f] = f;
  std::vector<std::uint64_t> sent(r.P, 0), received(r.Q, 0);  // blocks so far
  std::vector<std::uint64_t> slot_from(r.Q * DB, ~std::uint64_t{0});  // receive position per slot
  std::vector<RouterStep> steps(s.steps.size());
  std::uint64_t longest = 1;
  for (std::size_t t = 0; t < s.steps.size(); ++t)
    for (const RedistMessage& msg : s.steps[t]) {
      const std::uint64_t src = pl.source_node(msg.src), dst = pl.destination_node(msg.dst);
      const std::uint64_t len = msg.blocks.size() * x;
      steps[t].push_back(Message{src, sent[msg.src] * x, dst, S + received[msg.dst] * x, len});
      longest = std::max(longest, len);
      for (const std::uint64_t b : msg.blocks) {
        // A source sends all its blocks, so positions past its count keep their own.
        pack[msg.src * SB + sent[msg.src]++] = source_place(r, b).local_block;
        slot_from[msg.dst * DB + destination_place(r, b).local_block] = received[msg.dst]++;
      }
    }
  // Unpack: slot f takes the block received at slot_from; slots no block fills
  // (a partial superblock's holes) take the receive positions nothing reached.
  for (std::uint64_t q = 0; q < r.Q; ++q) {
    std::uint64_t spare = received[q];
    for (std::uint64_t f = 0; f < DB; ++f) {
      const std::uint64_t from = slot_from[q * DB + f];
      unpack[q * DB + f] = from == ~std::uint64_t{0} ? spare++ : from;
    }
  }
  const RouterLimits limits{longest, ContentionPolicy::reject};
  const std::uint64_t before = mach.counters().kernel_launches;
  const auto start = std::chrono::steady_clock::now();
  const auto done = [&](const std::string& name, const RedistStep* step) {
    if (after_step) after_step(name, step);
  };
  mach.permute_local(pack, Machine::LocalRegion{pl.source_node(0), r.P, 0, x});
  done("pack", nullptr);
  for (std::size_t t = 0; t < steps.size(); ++t) {
    mach.route(steps[t], limits);
    done(fmt::format("communication step {}", t), &s.steps[t]);
  }
  mach.permute_local(unpack, Machine::LocalRegion{pl.destination_node(0), r.Q, S, x});
  done("unpack", nullptr);
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rep.launches = mach.counters().kernel_launches - before;
  return rep;
}

}  // namespace hcube

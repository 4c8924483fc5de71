#include "hcube/emulator/redistribute.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/geometry.hpp"

namespace hcube {
namespace {

// The local units a layout's processors reach: the highest local unit + 1.
// Local units grow with i div (procs x block units), so the highest lies among
// the last procs x block units of the array.
std::uint64_t local_units(const Redistribution& r, std::uint64_t span,
                          BlockPlace (*place)(const Redistribution&, std::uint64_t)) {
  std::uint64_t slots = 0;
  for (std::uint64_t i = r.blocks() > span ? r.blocks() - span : 0; i < r.blocks(); ++i)
    slots = std::max(slots, place(r, i).local_block + 1);
  return slots;
}

// A block-cyclic layout, cyclic(block) on `procs` processors, read backwards
// from its definition (element g in block b = g div block, on processor
// b mod procs at local word (b div procs) block + g mod block): the element
// at a processor's local word. Written apart from source_place and
// destination_place, so that the checks do not replay the planner.
struct CyclicLayout {
  std::uint64_t block = 1, procs = 1;
  std::uint64_t element(std::uint64_t proc, std::uint64_t local) const {
    return ((local / block) * procs + proc) * block + local % block;
  }
  std::string name() const { return fmt::format("cyclic({}) on {}", block, procs); }
};
// cyclic(x) on P, or cyclic(y) on Q (y = Kx for the paper's problem), as the direction puts them.
CyclicLayout sender_layout(const Redistribution& r) {
  return r.reverse ? CyclicLayout{r.dest_block(), r.Q} : CyclicLayout{r.x, r.P};
}
CyclicLayout receiver_layout(const Redistribution& r) {
  return r.reverse ? CyclicLayout{r.x, r.P} : CyclicLayout{r.dest_block(), r.Q};
}

}  // namespace

RedistributionPlacement place_redistribution(const Redistribution& r, bool overlap) {
  check_redistribution(r);
  RedistributionPlacement pl;
  pl.r = r;
  pl.overlap = overlap;
  const std::uint64_t small = local_units(r, r.source_units() * r.P, source_place),
                      big = local_units(r, r.dest_units() * r.Q, destination_place);
  pl.source_words = (r.reverse ? big : small) * r.unit();
  pl.dest_words = (r.reverse ? small : big) * r.unit();
  const std::uint64_t nodes = overlap ? std::max(r.P, r.Q) : r.P + r.Q;
  pl.n = ceil_log2(nodes);
  pl.m = ceil_log2(std::max(pl.source_words, pl.dest_offset() + pl.dest_words));
  if (pl.n + pl.m > kMaxAddressBits)
    throw Error(fmt::format("{} on N = {} needs 2^{} nodes of 2^{} words: allowed n + m <= {}", describe(r), r.N,
                            pl.n, pl.m, kMaxAddressBits));
  return pl;
}

std::uint64_t redistribution_program_bytes(const Redistribution& r) {
  constexpr std::uint64_t kBytesPerBlock = 80, kBytesPerMessage = 224;
  const std::uint64_t blocks = std::min(redistribution_params(r).L, std::max<std::uint64_t>(1, r.blocks()));
  const std::uint64_t messages = std::min(blocks, senders(r) * receivers(r));
  return blocks * kBytesPerBlock + messages * kBytesPerMessage;
}

std::vector<unsigned char> source_image(const RedistributionPlacement& pl, const void* data, std::size_t wb) {
  const Redistribution& r = pl.r;
  const std::uint64_t K = bit(pl.m);
  std::vector<unsigned char> image(bit(pl.n) * K * wb, 0);
  const auto* in = static_cast<const unsigned char*>(data);
  for (std::uint64_t i = 0; i < r.blocks(); ++i) {
    const BlockPlace s = send_place(r, i);
    const std::uint64_t u = r.unit();
    std::memcpy(&image[(pl.source_node(s.proc) * K + s.local_block * u) * wb], in + i * u * wb, u * wb);
  }
  return image;
}

std::vector<unsigned char> expected_destinations(const RedistributionPlacement& pl, const void* data,
                                                 std::size_t wb) {
  const Redistribution& r = pl.r;
  std::vector<unsigned char> rows(receivers(r) * pl.dest_words * wb, 0);
  const auto* in = static_cast<const unsigned char*>(data);
  for (std::uint64_t i = 0; i < r.blocks(); ++i) {
    const BlockPlace d = receive_place(r, i);
    const std::uint64_t u = r.unit();
    std::memcpy(&rows[(d.proc * pl.dest_words + d.local_block * u) * wb], in + i * u * wb, u * wb);
  }
  return rows;
}

std::vector<unsigned char> destination_rows(const RedistributionPlacement& pl, const std::vector<unsigned char>& image,
                                            std::size_t wb) {
  const Redistribution& r = pl.r;
  const std::uint64_t K = bit(pl.m);
  std::vector<unsigned char> rows(receivers(r) * pl.dest_words * wb);
  for (std::uint64_t q = 0; q < receivers(r); ++q)
    std::memcpy(&rows[q * pl.dest_words * wb], &image[(pl.destination_node(q) * K + pl.dest_offset()) * wb],
                pl.dest_words * wb);
  return rows;
}

namespace {

// The check of verify_redistribution, one destination word w = q D + o at a
// time in any order: the receivers' layout read backwards (CyclicLayout) names
// the element g that belongs there; g >= N is a hole. Each w names a
// different g, so counting the elements met proves that every element was checked.
class DestinationCheck {
 public:
  // Element g compared with element(g), or (`input` given) hashed into its
  // chunk's sum, which finish() compares with the input's fingerprint.
  DestinationCheck(const RedistributionPlacement& pl, ElementType type, const RedistElement& element,
                   const InputFingerprint* input = nullptr)
      : pl_(pl), layout_(receiver_layout(pl.r)), type_(type), element_(element), input_(input),
        want_(info(type).bytes), sums_(input != nullptr ? input->sums.size() : 0, 0) {}

  void word(std::uint64_t w, const unsigned char* got) {
    const std::uint64_t g = layout_.element(w / pl_.dest_words, w % pl_.dest_words);
    const std::size_t wb = want_.size();
    if (g < pl_.r.N && input_ != nullptr) {
      ++elements_;
      sums_[g / input_->chunk_words] += input_->hash(g, got, wb);
    } else if (g < pl_.r.N) {
      ++elements_;
      element_(g, want_.data());
      if (!std::equal(got, got + wb, want_.data())) fail(w, got, format_element(type_, want_.data()));
    } else if (std::any_of(got, got + wb, [](unsigned char c) { return c != 0; })) {
      fail(w, got, "a hole (zero)");
    }
  }

  std::uint64_t elements() const { return elements_; }

  void finish() const {
    check_destination_elements(pl_, elements_);
    if (input_ == nullptr) return;
    for (std::size_t c = 0; c < sums_.size(); ++c)
      if (sums_[c] != input_->sums[c])
        throw Error(fmt::format("verification failed: the destination words the layout {} gives elements {}..{} "
                                "are not the input's (their fingerprint differs)",
                                layout_.name(), c * input_->chunk_words,
                                std::min(pl_.r.N, (c + 1) * input_->chunk_words) - 1));
  }

 private:
  [[noreturn]] void fail(std::uint64_t w, const unsigned char* got, const std::string& want) const {
    throw Error(fmt::format("verification failed: destination {} word {} holds {}, the layout {} has {}",
                            w / pl_.dest_words, w % pl_.dest_words, format_element(type_, got), layout_.name(), want));
  }

  const RedistributionPlacement& pl_;
  CyclicLayout layout_;
  ElementType type_;
  RedistElement element_;
  const InputFingerprint* input_;
  std::vector<unsigned char> want_;
  std::vector<std::uint64_t> sums_;
  std::uint64_t elements_ = 0;
};

// Destination word w = q D + o held at (node, local), or none outside the destination regions.
std::optional<std::uint64_t> destination_word(const RedistributionPlacement& pl, std::uint64_t node,
                                              std::uint64_t local) {
  const std::uint64_t first = pl.destination_node(0), O = pl.dest_offset();
  if (node < first || node - first >= receivers(pl.r) || local < O || local - O >= pl.dest_words) return std::nullopt;
  return (node - first) * pl.dest_words + (local - O);
}

}  // namespace

void verify_redistribution(const RedistributionPlacement& pl, const std::vector<unsigned char>& rows, const void* data,
                           ElementType type) {
  const Redistribution& r = pl.r;
  const std::size_t wb = info(type).bytes;
  if (rows.size() != receivers(r) * pl.dest_words * wb)
    throw Error(fmt::format("verification failed: {} bytes of destination rows, expected {} x {} words", rows.size(),
                            receivers(r), pl.dest_words));
  const auto* in = static_cast<const unsigned char*>(data);
  const RedistElement element = [&](std::uint64_t g, unsigned char* out) { std::memcpy(out, in + g * wb, wb); };
  DestinationCheck check(pl, type, element);
  for (std::uint64_t w = 0; w < receivers(r) * pl.dest_words; ++w) check.word(w, &rows[w * wb]);
  check_destination_elements(pl, check.elements());
}

std::uint64_t verify_destination_share(const Machine& share, std::uint64_t first_node, const RedistributionPlacement& pl,
                                       const RedistElement& element) {
  const Layout& layout = share.layout();
  const std::size_t wb = share.word_bytes();
  DestinationCheck check(pl, share.type(), element);
  share.scan_storage([&](std::uint64_t first, std::uint64_t words, const unsigned char* data) {
    for (std::uint64_t s = first; s < first + words; ++s)
      if (const auto w = destination_word(pl, first_node + layout.node_at(s), layout.local_at(s)))
        check.word(*w, data + (s - first) * wb);
  });
  return check.elements();
}

void check_destination_elements(const RedistributionPlacement& pl, std::uint64_t elements) {
  if (elements != pl.r.N)
    throw Error(fmt::format("verification failed: {} x {} destination words hold {} of the N = {} elements of "
                            "{}: the rows are too short",
                            receivers(pl.r), pl.dest_words, elements, pl.r.N, receiver_layout(pl.r).name()));
}

namespace {

// Words a region is moved in: a chunk of global addresses gathered or scattered at once.
constexpr std::uint64_t kRegionChunk = std::uint64_t{1} << 16;

// f(w, words, global addresses) for the words [lo, lo + words_a_row) of `rows`
// nodes from first_node, row by row, in chunks: w counts the region's words in order.
template <class F>
void for_each_region_chunk(const Geometry& geo, std::uint64_t first_node, std::uint64_t rows, std::uint64_t lo,
                           std::uint64_t words_a_row, F&& f) {
  std::vector<std::uint64_t> global;
  for (std::uint64_t q = 0; q < rows; ++q)
    for (std::uint64_t o = 0; o < words_a_row; o += kRegionChunk) {
      const std::uint64_t words = std::min(kRegionChunk, words_a_row - o);
      global.resize(words);
      for (std::uint64_t k = 0; k < words; ++k) global[k] = geo.global(first_node + q, lo + o + k);
      f(q * words_a_row + o, words, global.data());
    }
}

}  // namespace

namespace {

void verify_regions(const Machine& mach, const RedistributionPlacement& pl, DestinationCheck& check) {
  const std::size_t wb = mach.word_bytes();
  // The destination regions alone, as they are stored: the padding of the 2^n x 2^m machine is never read.
  store_destinations(mach, pl, [&](std::uint64_t w0, std::uint64_t words, const unsigned char* got) {
    for (std::uint64_t k = 0; k < words; ++k) check.word(w0 + k, got + k * wb);
  });
  check.finish();
}

}  // namespace

void verify_redistribution(const Machine& mach, const RedistributionPlacement& pl, const RedistElement& element) {
  DestinationCheck check(pl, mach.type(), element);
  verify_regions(mach, pl, check);
}

void verify_redistribution(const Machine& mach, const RedistributionPlacement& pl, const InputFingerprint& input) {
  DestinationCheck check(pl, mach.type(), nullptr, &input);
  verify_regions(mach, pl, check);
}

void store_destinations(const Machine& mach, const RedistributionPlacement& pl, const DestinationRunWriter& write) {
  const std::size_t wb = mach.word_bytes();
  // In order w = 0, 1, ..., so a FIFO output needs no seek; the padding is never read.
  std::vector<unsigned char> run;
  for_each_region_chunk(mach.geometry(), pl.destination_node(0), receivers(pl.r), pl.dest_offset(), pl.dest_words,
                        [&](std::uint64_t w0, std::uint64_t words, const std::uint64_t* global) {
                          run.resize(words * wb);
                          mach.gather(global, words, run.data());
                          write(w0, words, run.data());
                        });
}

void destination_runs(const RedistributionPlacement& pl, std::size_t wb, std::uint64_t g, std::uint64_t words,
                      const unsigned char* src, const DestinationRunWriter& write) {
  const Geometry geo{pl.n, pl.m};
  const std::uint64_t node = geo.node_of(g), local = geo.local_of(g), first = pl.destination_node(0);
  const std::uint64_t O = pl.dest_offset(), D = pl.dest_words;
  // The words of this row in the destination region [O, O + D).
  const std::uint64_t lo = std::max(local, O), hi = std::min(local + words, O + D);
  if (node >= first && node - first < receivers(pl.r) && lo < hi)
    write((node - first) * D + (lo - O), hi - lo, src + (lo - local) * wb);
}

std::vector<unsigned char> destination_rows(const Machine& mach, const RedistributionPlacement& pl) {
  const std::size_t wb = mach.word_bytes();
  std::vector<unsigned char> rows(receivers(pl.r) * pl.dest_words * wb);
  store_destinations(mach, pl, [&](std::uint64_t w, std::uint64_t words, const unsigned char* src) {
    std::memcpy(&rows[w * wb], src, words * wb);
  });
  return rows;
}

namespace {

// Zeroes a small machine whole (its trace shows every word); says whether it did.
bool zero_small_machine(Machine& mach) {
  constexpr std::uint64_t kZeroedWhole = std::uint64_t{1} << 16;
  if (mach.geometry().total_words() > kZeroedWhole) return false;
  const std::size_t wb = mach.word_bytes();
  mach.load_runs([&](std::uint64_t, std::uint64_t words, void* dst) { std::memset(dst, 0, words * wb); });
  return true;
}

// Zeroes the destination regions (their holes, words past N, stay zero) and,
// when `sources` (a stream filled the elements' words), the sources' words
// that hold no element. A large machine's padding to 2^n x 2^m nodes and
// words is never touched and, on the CPU backend, never becomes resident.
void zero_regions(Machine& mach, const RedistributionPlacement& pl, bool sources) {
  const Geometry& geo = mach.geometry();
  const std::size_t wb = mach.word_bytes();
  std::vector<unsigned char> zeros;
  const auto zero = [&](std::uint64_t, std::uint64_t words, const std::uint64_t* global) {
    zeros.assign(words * wb, 0);
    mach.scatter(global, words, zeros.data());
  };
  for_each_region_chunk(geo, pl.destination_node(0), receivers(pl.r), pl.dest_offset(), pl.dest_words, zero);
  if (!sources) return;
  // The sources' words that hold no element (past N), and only those: the elements are in place.
  const CyclicLayout layout = sender_layout(pl.r);
  std::vector<std::uint64_t> holes;
  for_each_region_chunk(geo, pl.source_node(0), senders(pl.r), 0, pl.source_words,
                        [&](std::uint64_t w0, std::uint64_t words, const std::uint64_t* global) {
                          holes.clear();
                          for (std::uint64_t k = 0; k < words; ++k) {
                            const std::uint64_t w = w0 + k;
                            if (layout.element(w / pl.source_words, w % pl.source_words) >= pl.r.N)
                              holes.push_back(global[k]);
                          }
                          zero(0, holes.size(), holes.data());
                        });
}

}  // namespace

InputFingerprint load_sources(Machine& mach, const RedistributionPlacement& pl, NpyInput& stream) {
  const Redistribution& r = pl.r;
  const Geometry& geo = mach.geometry();
  const std::size_t wb = mach.word_bytes();
  if (stream.shape() != std::vector<std::uint64_t>{r.N} || stream.type() != mach.type())
    throw Error(fmt::format("{}: the stream holds {} {}: the redistribution needs N = {} elements of {}",
                            stream.path(), stream.data_bytes() / info(stream.type()).bytes, info(stream.type()).name,
                            r.N, info(mach.type()).name));
  const bool zeroed = zero_small_machine(mach);
  InputFingerprint fp(r.N);
  const CyclicLayout layout = sender_layout(r);
  std::vector<std::uint64_t> global;
  // Element g, as it arrives, to its sender's place by the layout read forwards.
  stream.read_body([&](std::uint64_t offset, const unsigned char* bytes, std::size_t count) {
    const std::uint64_t g0 = offset / wb, words = count / wb;
    global.resize(words);
    for (std::uint64_t k = 0; k < words; ++k) {
      const std::uint64_t g = g0 + k, b = g / layout.block;
      global[k] = geo.global(pl.source_node(b % layout.procs), (b / layout.procs) * layout.block + g % layout.block);
      fp.add(g, bytes + k * wb, wb);
    }
    mach.scatter(global.data(), words, bytes);
  });
  // Only now, with every element arrived (a short stream holds no more than
  // it brought), the rest of the regions zeroed: the destinations and the
  // sources' words past N.
  if (!zeroed) zero_regions(mach, pl, true);
  return fp;
}

void load_sources(Machine& mach, const RedistributionPlacement& pl, const RedistElement& element) {
  const Redistribution& r = pl.r;
  const Geometry& geo = mach.geometry();
  const std::size_t wb = mach.word_bytes();
  if (!zero_small_machine(mach)) zero_regions(mach, pl, false);
  std::vector<unsigned char> buf;
  const CyclicLayout layout = sender_layout(r);
  for_each_region_chunk(geo, pl.source_node(0), senders(r), 0, pl.source_words,
                        [&](std::uint64_t w0, std::uint64_t words, const std::uint64_t* global) {
                          buf.assign(words * wb, 0);
                          for (std::uint64_t k = 0; k < words; ++k) {
                            const std::uint64_t w = w0 + k;
                            const std::uint64_t g = layout.element(w / pl.source_words, w % pl.source_words);
                            if (g < r.N) element(g, &buf[k * wb]);
                          }
                          mach.scatter(global, words, buf.data());
                        });
}

void source_run(const RedistributionPlacement& pl, const RedistElement& element, std::size_t wb, std::uint64_t g0,
                std::uint64_t words, unsigned char* out) {
  const Redistribution& r = pl.r;
  const Geometry geo{pl.n, pl.m};
  std::memset(out, 0, words * wb);
  const std::uint64_t node = geo.node_of(g0), local0 = geo.local_of(g0);
  if (node < pl.source_node(0) || node - pl.source_node(0) >= senders(r)) return;
  const std::uint64_t j = node - pl.source_node(0);
  const CyclicLayout layout = sender_layout(r);
  for (std::uint64_t local = local0; local < std::min(local0 + words, pl.source_words); ++local) {
    const std::uint64_t g = layout.element(j, local);
    if (g < r.N) element(g, out + (local - local0) * wb);
  }
}

// The direct run's steps: each message moves its blocks straight from their
// places at the sender to their places at the receiver (route_blocks, the
// pack and unpack done on the fly), so every element is read and written
// once and the sources keep their order. A block b + uL lies uL/P blocks
// after b at its sender and uL/Q after it at its receiver, so a message's
// first superblock describes it. No step reads what any writes: all run in
// one launch.
std::vector<BlockRouteStep> redistribution_block_steps(const RedistributionPlacement& pl, const RedistSchedule& s) {
  const Redistribution& r = pl.r;
  const std::uint64_t L = redistribution_params(r).L;
  std::vector<BlockRouteStep> steps;
  for (const RedistStep& step : s.steps) {
    BlockRouteStep& bs = steps.emplace_back();
    bs.dst_lo = pl.dest_offset();
    bs.block_words = r.unit();
    bs.from_step = L / senders(r);
    bs.to_step = L / receivers(r);
    for (const RedistMessage& msg : step) {
      const std::vector<std::uint64_t>& pattern = msg.blocks.pattern();
      bs.messages.push_back(BlockMessage{pl.source_node(msg.src), pl.destination_node(msg.dst), bs.from.size(),
                                         pattern.size(), msg.blocks.size()});
      for (const std::uint64_t b : pattern) {
        bs.from.push_back(send_place(r, b).local_block);
        bs.to.push_back(receive_place(r, b).local_block);
      }
    }
  }
  return steps;
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
  const std::uint64_t S = pl.source_words, x = r.unit();
  const std::uint64_t before = mach.counters().kernel_launches;
  double seconds = 0;  // the machine's work only, not the tables' making
  const auto timed = [&](const auto& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const std::uint64_t P = senders(r), Q = receivers(r), L = redistribution_params(r).L;
  if (!after_step) {
    const std::vector<BlockRouteStep> block_steps = redistribution_block_steps(pl, s);
    timed([&] { mach.route_blocks(block_steps); });
    rep.seconds = seconds;
    rep.launches = mach.counters().kernel_launches - before;
    return rep;
  }

  // Send order: each sender's messages step by step, each message's blocks in
  // ascending order; the receivers take them in the same order. Pack and
  // unpack permute blocks of x words over the senders' SB and the receivers'
  // DB local blocks. Both layouts repeat every superblock of L blocks (a
  // sender holds L / P of them, a receiver L / Q) and so does every message,
  // so a node's table is one superblock's: local block u Ls + p is sent at
  // base(p) + u step(p), step(p) being its message's blocks a superblock.
  const std::uint64_t SB = S / x, DB = pl.dest_words / x;
  // Less than a superblock of data: one (partial) superblock, its blocks only.
  const std::uint64_t send_period = std::min(L / P, SB), receive_period = std::min(L / Q, DB);
  BlockTable pack = BlockTable::periodic(P, send_period, true, true);
  BlockTable unpack = BlockTable::periodic(Q, receive_period, true, true);
  std::vector<RouterStep> steps(s.steps.size());
  std::uint64_t longest = 1;
  for (std::size_t t = 0; t < s.steps.size(); ++t)
    for (const RedistMessage& msg : s.steps[t]) {
      const std::uint64_t blocks = msg.blocks.size(), per = msg.blocks.pattern().size();
      std::uint64_t& sent = pack.valid(msg.src);
      std::uint64_t& received = unpack.valid(msg.dst);
      steps[t].push_back(Message{pl.source_node(msg.src), sent * x, pl.destination_node(msg.dst),
                                 pl.dest_offset() + received * x, blocks * x});
      longest = std::max(longest, blocks * x);
      for (std::uint64_t i = 0; i < per; ++i) {
        const std::uint64_t b = msg.blocks.pattern()[i];
        const std::uint64_t from = send_place(r, b).local_block, to = receive_place(r, b).local_block;
        pack.base(msg.src, from) = sent + i;
        pack.step(msg.src, from) = per;
        unpack.base(msg.dst, to) = received + i;
        unpack.step(msg.dst, to) = per;
      }
      sent += blocks;
      received += blocks;
    }
  const RouterLimits limits{longest, ContentionPolicy::reject};
  // The pack scatters each sender's blocks to their send positions; a sender's
  // blocks past its count (valid) keep their places.
  timed([&] {
    mach.permute_local(pack, SB, Machine::LocalRegion{pl.source_node(0), P, 0, x}, Machine::LocalDirection::scatter);
  });
  after_step("pack", nullptr);
  for (std::size_t t = 0; t < steps.size(); ++t) {
    timed([&] { mach.route(steps[t], limits); });
    after_step(fmt::format("communication step {}", t), &s.steps[t]);
  }
  // The unpack gathers into slot f the block received into its position; the
  // slots past a receiver's count are the holes of a partial superblock, which
  // take the receive positions nothing reached (zero): their own.
  timed([&] {
    mach.permute_local(unpack, DB, Machine::LocalRegion{pl.destination_node(0), Q, pl.dest_offset(), x},
                       Machine::LocalDirection::gather);
  });
  after_step("unpack", nullptr);
  rep.seconds = seconds;
  rep.launches = mach.counters().kernel_launches - before;
  return rep;
}

}  // namespace hcube

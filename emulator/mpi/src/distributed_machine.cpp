#include "hcube/mpi/distributed_machine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <climits>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>

#include "hcube/core/error.hpp"
#include "hcube/emulator/element_type.hpp"
#include "hcube/host/exchange_rounds.hpp"
#include "hcube/mpi/world.hpp"

namespace hcube::mpi {
namespace {

using Clock = std::chrono::steady_clock;

// The maps on the share's node bits alone: the columns of the bits above it
// are constant on a rank and folded into the exchanges' addresses instead.
OffsetMaps share_maps(const OffsetMaps& maps, unsigned local_n) {
  OffsetMaps out;
  for (const NodeOffsetMap& m : maps) out.emplace_back(m.begin(), m.begin() + std::min<std::size_t>(local_n, m.size()));
  return out;
}

// HCUBE_DEBUG_RANK=R:exit, R:kill or R:sleep:S: what rank `rank` does at its first exchange.
struct DebugFault {
  bool exit = false, kill = false;
  double sleep = 0;
};
DebugFault debug_fault(int rank) {
  const char* v = std::getenv("HCUBE_DEBUG_RANK");
  if (v == nullptr) return {};
  const std::string text(v);
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || std::atoi(text.substr(0, colon).c_str()) != rank) return {};
  const std::string what = text.substr(colon + 1);
  if (what == "exit") return {true, false, 0};
  if (what == "kill") return {false, true, 0};
  if (what.rfind("sleep:", 0) == 0) return {false, false, std::atof(what.c_str() + 6)};
  return {};
}

}  // namespace

AffineMap restrict_to_share(const AffineMap& map, unsigned local_n, std::uint64_t high) {
  const Geometry& geo = map.geometry();
  const std::vector<std::uint64_t>& node = map.node_columns();
  std::uint64_t constant = map.constant();
  for (unsigned k = local_n; k < geo.n; ++k)
    if ((high >> (k - local_n)) & 1) constant ^= node[k];
  return AffineMap::from_columns(make_geometry(local_n, geo.m), map.mem_columns(),
                                 std::vector<std::uint64_t>(node.begin(), node.begin() + local_n), constant);
}

DistributedMachine::DistributedMachine(const MachineOptions& options, MPI_Comm comm)
    : geo_(make_geometry(options.n, options.m)), comm_(comm) {
  int size = 1;
  MPI_Comm_size(comm_, &size);
  MPI_Comm_rank(comm_, &rank_);
  if ((size & (size - 1)) != 0)
    throw Error(fmt::format("{} ranks: a distributed machine needs 2^r of them", size));
  while ((1 << r_) < size) ++r_;
  if (r_ > geo_.n)
    throw Error(fmt::format("{} ranks hold the top {} node dimensions: allowed n >= {}, got n = {}", size, r_, r_,
                            geo_.n));
  MachineOptions share = options;
  share.n = geo_.n - r_;
  // A tile never spans more nodes than the share holds; the layout changes no result.
  if (share.tile_dims > share.n) share.tile_dims = share.n;
  local_ = std::make_unique<Machine>(share);
  device_buffers_ = local_->backend().kind() == BackendKind::cpu || cuda_aware();
  const char* per_cycle = std::getenv("HCUBE_MPI_CYCLE_MESSAGES");
  cycle_messages_ = per_cycle != nullptr && std::string(per_cycle) == "1";
  // Ranks that split messages differently would wait for messages never sent.
  int modes[2] = {cycle_messages_ ? 1 : 0, cycle_messages_ ? 1 : 0};
  allreduce(&modes[0], 1, MPI_INT, MPI_MIN, comm_);
  allreduce(&modes[1], 1, MPI_INT, MPI_MAX, comm_);
  if (modes[0] != modes[1])
    throw Error("HCUBE_MPI_CYCLE_MESSAGES differs between ranks: set it alike on every rank (mpirun -x)");
  MPI_Type_contiguous(static_cast<int>(local_->word_bytes()), MPI_BYTE, &word_);
  MPI_Type_commit(&word_);
}

DistributedMachine::~DistributedMachine() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Type_free(&word_);
}

std::string DistributedMachine::transport() const {
  if (local_->backend().kind() == BackendKind::cpu) return "host memory";
  return device_buffers_ ? "device memory (CUDA-aware MPI)" : "pinned host memory";
}

Buffer& DistributedMachine::sized(Buffer& b, std::uint64_t bytes) {
  if (b.bytes() < bytes || !b) {
    b = Buffer();  // the old one goes first
    Backend& backend = local_->backend();
    b = device_buffers_ ? backend.allocate(bytes) : backend.allocate_pinned(bytes);
  }
  return b;
}

Buffer& DistributedMachine::sized_on_backend(Buffer& b, std::uint64_t bytes) {
  if (b.bytes() < bytes || !b) {
    b = Buffer();
    b = local_->backend().allocate(bytes);
  }
  return b;
}

void DistributedMachine::load_labels() {
  check_labels_fit(geo_, local_->type());
  const ElementType type = local_->type();
  const std::size_t wb = local_->word_bytes();
  const std::uint64_t base = first_word();
  local_->load_runs([&](std::uint64_t g, std::uint64_t words, void* dst) {
    for (std::uint64_t k = 0; k < words; ++k)
      write_label(type, base + g + k, static_cast<unsigned char*>(dst) + k * wb);
  });
}

void DistributedMachine::load_runs(const Machine::UserRunReader& read_run) {
  const std::uint64_t base = first_word();
  local_->load_runs([&](std::uint64_t g, std::uint64_t words, void* dst) { read_run(base + g, words, dst); });
}

void DistributedMachine::store_runs(const Machine::UserRunWriter& write_run) const {
  const std::uint64_t base = first_word();
  local_->store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) { write_run(base + g, words, src); });
}

void DistributedMachine::run_checked_cycle(const Cycle& cycle, const OffsetMaps& maps) {
  run_on_share(cycle.data(), cycle.size(), maps, share_maps(maps, geo_.n - r_));
}

void DistributedMachine::run_checked_cycles(const Schedule& s) {
  if (s.n != geo_.n || s.m != geo_.m)
    throw Error(fmt::format("schedule is for n = {}, m = {}: the machine has n = {}, m = {}", s.n, s.m, geo_.n,
                            geo_.m));
  const OffsetMaps local_maps = share_maps(s.offset_maps, geo_.n - r_);
  if (cycle_messages_) {
    for (std::size_t c = 0; c < s.cycles(); ++c)
      run_on_share(s.cycle_begin(c), s.cycle_size(c), s.offset_maps, local_maps);
    return;
  }
  run_in_rounds(s, local_maps);
}

Exchange DistributedMachine::inside_share(Exchange x, const OffsetMaps& maps) const {
  // Both ends are on this rank, where the map's columns above the share add one constant.
  if (x.offset_map != 0) {
    const std::uint64_t high = apply_offset(maps[x.offset_map - 1], first_node());
    x.addr ^= high;
    x.peer_addr ^= high;
  }
  return x;
}

void DistributedMachine::count_crossing(std::uint64_t dims, std::size_t exchanges) {
  const std::uint64_t nodes = bit(geo_.n - r_);
  remote_links_per_cycle_.push_back(popcount(dims) * nodes);
  remote_hops_ += exchanges * nodes;
}

void DistributedMachine::run_on_share(const Exchange* exchanges, std::size_t count, const OffsetMaps& maps,
                                      const OffsetMaps& local_maps) {
  const unsigned local_n = geo_.n - r_;
  Cycle inside, across;
  std::uint64_t across_dims = 0;
  for (std::size_t e = 0; e < count; ++e) {
    if (exchanges[e].dim >= local_n) {
      across.push_back(exchanges[e]);
      across_dims |= bit(exchanges[e].dim);
    } else {
      inside.push_back(inside_share(exchanges[e], maps));
    }
  }
  // One launch for the exchanges inside the rank (the local machine counts
  // this cycle) while the words that cross to other ranks are in flight: no
  // word is in two exchanges of a cycle, so the two touch different words.
  exchange_between_ranks(across, maps, [&] { local_->run_checked_cycle(inside, local_maps); });
  count_crossing(across_dims, across.size());
}

void DistributedMachine::run_in_rounds(const Schedule& s, const OffsetMaps& local_maps) {
  const unsigned local_n = geo_.n - r_;
  const std::uint64_t nodes = bit(local_n);
  const ExchangeRounds plan = exchange_rounds(s, local_n);
  std::vector<std::vector<std::size_t>> by_round(plan.rounds);  // exchange indices, in the schedule's order
  std::vector<std::size_t> cycle_of(s.exchanges());
  const Exchange* all = s.exchanges() == 0 ? nullptr : s.cycle_begin(0);
  // The cycles are counted as one machine counts them: the local machine its
  // part of each, the crossing words and links here.
  Counters counted;
  for (std::size_t c = 0, i = 0; c < s.cycles(); ++c) {
    Cycle inside;
    std::uint64_t across_dims = 0;
    std::size_t across = 0;
    for (std::size_t e = 0; e < s.cycle_size(c); ++e, ++i) {
      cycle_of[i] = c;
      by_round[plan.round[i]].push_back(i);
      if (all[i].dim >= local_n) {
        across_dims |= bit(all[i].dim);
        ++across;
      } else {
        inside.push_back(all[i]);
      }
    }
    const CycleUse use = cycle_use(local_->geometry(), inside);
    ++counted.routing_cycles;
    counted.element_hops += use.element_hops;
    counted.links_used_per_cycle.push_back(use.links_used);
    count_crossing(across_dims, across);
  }
  counted.bytes_read = counted.bytes_written = counted.element_hops * local_->word_bytes();
  // A message holds the crossing words of as many of a round's exchanges as a
  // quarter of the share (send and receive buffers beside the machine), at least one exchange's.
  const std::uint64_t most =
      std::max<std::uint64_t>(nodes, std::min<std::uint64_t>(local_->geometry().total_words() / 4, INT_MAX));
  const Schedule header = [&] {
    Schedule h;
    h.n = local_n;
    h.m = geo_.m;
    h.offset_maps = local_maps;
    return h;
  }();
  Cycle crossing;
  for (const std::vector<std::size_t>& round : by_round) {
    // The round's exchanges inside the rank, cycle by cycle, in one batch of launches.
    Schedule parts = header;
    crossing.clear();
    std::size_t open = s.cycles();
    for (const std::size_t i : round) {
      if (all[i].dim >= local_n) {
        crossing.push_back(all[i]);
        continue;
      }
      if (cycle_of[i] != open) {
        if (open != s.cycles()) parts.end_cycle();
        open = cycle_of[i];
      }
      parts.add(inside_share(all[i], s.offset_maps));
    }
    if (open != s.cycles()) parts.end_cycle();
    if (parts.cycles() > 0) local_->run_cycle_parts(parts);
    // Then its crossing exchanges: no other exchange of the round touches their words.
    for (std::size_t first = 0; first < crossing.size();) {
      std::size_t last = first + 1;
      while (last < crossing.size() && (last + 1 - first) * nodes <= most) ++last;
      const Cycle chunk(crossing.begin() + static_cast<std::ptrdiff_t>(first),
                        crossing.begin() + static_cast<std::ptrdiff_t>(last));
      exchange_between_ranks(chunk, s.offset_maps, [] {});
      first = last;
    }
  }
  local_->add_counters(counted);
}

void DistributedMachine::before_exchange() {
  if (exchanged_) return;
  exchanged_ = true;
  const DebugFault fault = debug_fault(rank_);
  if (fault.exit) {
    std::fprintf(stderr, "hcube: rank %d exits at its first exchange (HCUBE_DEBUG_RANK)\n", rank_);
    std::fflush(stderr);
    std::_Exit(3);
  }
  if (fault.kill) {
    std::fprintf(stderr, "hcube: rank %d kills itself at its first exchange (HCUBE_DEBUG_RANK)\n", rank_);
    std::fflush(stderr);
    std::raise(SIGKILL);
  }
  if (fault.sleep > 0) std::this_thread::sleep_for(std::chrono::duration<double>(fault.sleep));
}

void DistributedMachine::exchange(std::vector<Transfer>& transfers, const std::function<void()>& meanwhile) {
  const std::size_t wb = local_->word_bytes();
  std::uint64_t out_words = 0, in_words = 0;
  const unsigned local_n = geo_.n - r_;
  const auto sent = [&](const Transfer& t) -> std::uint64_t {
    return t.exchanges.empty() ? t.send.size() : std::uint64_t{t.exchanges.size()} << local_n;
  };
  // Exchange words land where the words sent were.
  const auto received = [&](const Transfer& t) {
    return t.exchanges.empty() ? std::uint64_t{t.receive.size()} : sent(t);
  };
  for (const Transfer& t : transfers) {
    for (const std::uint64_t words : {sent(t), received(t)})
      if (words > static_cast<std::uint64_t>(INT_MAX))
        throw Error(fmt::format("{} words cross between ranks {} and {} at once: more than one MPI message holds ({})",
                                words, rank_, t.rank, INT_MAX));
    out_words += sent(t);
    in_words += received(t);
  }
  if (out_words == 0 && in_words == 0) {
    meanwhile();
    return;
  }
  before_exchange();
  Buffer& packed_out = sized(send_buffer_, out_words * wb);
  Buffer& packed_in = sized(receive_buffer_, in_words * wb);
  auto* out_bytes = static_cast<unsigned char*>(packed_out.data());
  auto* in_bytes = static_cast<unsigned char*>(packed_in.data());
  const MPI_Datatype word = word_;
  std::vector<MPI_Request> requests;
  std::uint64_t out_at = 0, in_at = 0;
  for (const Transfer& t : transfers) {
    const std::uint64_t in = received(t), out = sent(t);
    if (in > 0) {
      requests.emplace_back();
      MPI_Irecv(in_bytes + in_at * wb, static_cast<int>(in), word, t.rank, 0, comm_, &requests.back());
      in_at += in;
    }
    if (out > 0) {
      if (!t.exchanges.empty())
        move_exchange_words(t, packed_out, out_at, true);
      else if (device_buffers_)
        local_->gather(t.send.data(), t.send.size(), packed_out, out_at, "pack");
      else
        local_->gather(t.send.data(), t.send.size(), out_bytes + out_at * wb, "pack");
      requests.emplace_back();
      MPI_Isend(out_bytes + out_at * wb, static_cast<int>(out), word, t.rank, 0, comm_, &requests.back());
      out_at += out;
      traffic_.bytes_sent += out * wb;
      ++traffic_.messages_sent;
    }
  }
  meanwhile();
  const auto start = Clock::now();
  wait_all(static_cast<int>(requests.size()), requests.data());
  Counters waited;
  waited.add_phase("ranks", std::chrono::duration<double>(Clock::now() - start).count());
  local_->add_counters(waited);
  in_at = 0;
  for (const Transfer& t : transfers) {
    const std::uint64_t in = received(t);
    if (in == 0) continue;
    if (!t.exchanges.empty())
      move_exchange_words(t, packed_in, in_at, false);
    else if (device_buffers_)
      local_->scatter(t.receive.data(), t.receive.size(), packed_in, in_at, "pack");
    else
      local_->scatter(t.receive.data(), t.receive.size(), in_bytes + in_at * wb, "pack");
    in_at += in;
    traffic_.bytes_received += in * wb;
  }
}

void DistributedMachine::move_exchange_words(const Transfer& t, Buffer& packed, std::uint64_t at, bool out) {
  const std::size_t count = t.exchanges.size();
  const Machine::LocalDirection way = out ? Machine::LocalDirection::gather : Machine::LocalDirection::scatter;
  if (device_buffers_) {
    local_->exchange_words(t.exchanges.data(), count, t.upper, crossing_maps_, packed, at, way, "pack");
    return;
  }
  // Through the backend's staging buffer to and from the page-locked one (DMA copies).
  const std::size_t wb = local_->word_bytes();
  const std::uint64_t bytes = (std::uint64_t{count} << (geo_.n - r_)) * wb;
  Buffer& staged = sized_on_backend(staging_, bytes);
  auto* host = static_cast<unsigned char*>(packed.data()) + at * wb;
  if (!out) local_->backend().write_storage(host, staged, 0, bytes);
  local_->exchange_words(t.exchanges.data(), count, t.upper, crossing_maps_, staged, 0, way, "pack");
  if (out) local_->backend().read_storage(staged, 0, host, bytes);
}

void DistributedMachine::exchange_between_ranks(const Cycle& across, const OffsetMaps& maps,
                                                const std::function<void()>& meanwhile) {
  const unsigned local_n = geo_.n - r_;
  crossing_maps_ = share_maps(maps, local_n);
  // One transfer a rank dimension, kept from cycle to cycle with the capacity of its list.
  transfers_.resize(r_);
  for (unsigned b = 0; b < r_; ++b) {
    Transfer& t = transfers_[b];
    t.exchanges.clear();
    t.rank = rank_ ^ (1 << b);
    // The rank with the bit clear holds the exchanges' `addr` side. Both ranks
    // pack the words exchange by exchange, node by node: word k of one
    // message is the partner of word k of the other.
    t.upper = ((rank_ >> b) & 1) != 0;
    for (const Exchange& x : across)
      if (x.dim == local_n + b) t.exchanges.push_back(inside_share(x, maps));
  }
  exchange(transfers_, meanwhile);
}

RouterStepReport DistributedMachine::route(const RouterStep& step, const RouterLimits& limits) {
  const RouterStepReport rep = check_router_step(geo_, step, limits);
  const std::uint64_t K = geo_.words_per_node(), first = first_node();
  const std::size_t wb = local_->word_bytes();
  RouterStep inside;
  std::vector<Transfer> transfers(static_cast<std::size_t>(ranks()));
  for (int p = 0; p < ranks(); ++p) transfers[p].rank = p;
  Counters crossing;                       // what this rank's messages to other ranks count
  std::map<std::uint64_t, unsigned> hits;  // messages received by each node of this rank
  for (const Message& m : step) {
    const int from = rank_of(m.src_node), to = rank_of(m.dst_node);
    if (to == rank_) ++hits[m.dst_node];
    if (from == rank_ && to == rank_) {
      inside.push_back(Message{m.src_node - first, m.src_addr, m.dst_node - first, m.dst_addr, m.length});
    } else if (from == rank_) {
      for (std::uint64_t k = 0; k < m.length; ++k) transfers[to].send.push_back((m.src_node - first) * K + m.src_addr + k);
      crossing.element_hops += m.length * popcount(m.src_node ^ m.dst_node);
      crossing.bytes_read += m.length * wb;
      crossing.bytes_written += m.length * wb;
    } else if (to == rank_) {
      for (std::uint64_t k = 0; k < m.length; ++k)
        transfers[from].receive.push_back((m.dst_node - first) * K + m.dst_addr + k);
    }
  }
  RouterStepReport here;
  exchange(transfers, [&] { here = local_->route(inside, limits); });
  // Contention at this rank's nodes, of which the local machine counted the messages between them.
  for (const auto& hit : hits)
    if (hit.second > 1) ++crossing.router_contention;
  crossing.router_contention -= here.contention;
  local_->add_counters(crossing);
  return rep;
}

RouterStepReport DistributedMachine::route_blocks(const std::vector<BlockRouteStep>& steps) {
  const RouterStepReport rep = check_block_route(geo_, steps);
  if (steps.empty()) return rep;
  const std::uint64_t K = geo_.words_per_node(), first = first_node();
  const std::size_t wb = local_->word_bytes();
  std::vector<Transfer> transfers(static_cast<std::size_t>(ranks()));
  for (int p = 0; p < ranks(); ++p) transfers[p].rank = p;
  Counters crossing;
  // The local addresses of a message's words on one side: block f of the message is
  // block table[first + f mod per] + (f div per) period of that side.
  const auto words_of = [&](const BlockRouteStep& s, const BlockMessage& m, bool sender, std::vector<std::uint64_t>& out) {
    const std::vector<std::uint64_t>& table = sender ? s.from : s.to;
    const std::uint64_t node = (sender ? m.src_node : m.dst_node) - first, period = sender ? s.from_step : s.to_step;
    const std::uint64_t lo = sender ? s.src_lo : s.dst_lo, bw = s.block_words;
    for (std::uint64_t f = 0; f < m.blocks; ++f) {
      const std::uint64_t block = table[m.first + f % m.per] + (f / m.per) * period;
      for (std::uint64_t w = 0; w < bw; ++w) out.push_back(node * K + lo + block * bw + w);
    }
  };
  std::vector<BlockRouteStep> inside;
  for (const BlockRouteStep& s : steps) {
    BlockRouteStep& here = inside.emplace_back(s);
    here.messages.clear();
    for (const BlockMessage& m : s.messages) {
      const int from = rank_of(m.src_node), to = rank_of(m.dst_node);
      if (from == rank_ && to == rank_) {
        BlockMessage local = m;
        local.src_node -= first;
        local.dst_node -= first;
        here.messages.push_back(local);
      } else if (from == rank_) {
        words_of(s, m, true, transfers[to].send);
        const std::uint64_t words = m.blocks * s.block_words;
        crossing.element_hops += words * popcount(m.src_node ^ m.dst_node);
        crossing.bytes_read += words * wb;
        crossing.bytes_written += words * wb;
      } else if (to == rank_) {
        words_of(s, m, false, transfers[from].receive);
      }
    }
  }
  // Every rank runs the local launch, so that each counts the steps as one machine does.
  exchange(transfers, [&] { local_->route_blocks(inside); });
  local_->add_counters(crossing);
  return rep;
}

AffineMap DistributedMachine::share_map(const AffineMap& map) const {
  const Geometry& g = map.geometry();
  if (g.n != geo_.n || g.m != geo_.m)
    throw Error(fmt::format("alignment is for n = {}, m = {}: the machine has n = {}, m = {}", g.n, g.m, geo_.n,
                            geo_.m));
  return restrict_to_share(map, geo_.n - r_, static_cast<std::uint64_t>(rank_));
}

void DistributedMachine::align(const AlignmentStep& step) {
  local_->align(AlignmentStep(share_map(step.map), step.lo, step.hi));
}

void DistributedMachine::permute_address_bits(const std::vector<unsigned>& to) {
  check_address_permutation(geo_, to);
  const unsigned q = geo_.address_bits(), l = q - r_;  // l local address bits, the rank's r above them
  // Local bits that go to local bits (kept, in the order of their targets),
  // local bits that name the target rank (A), rank bits that become local (B).
  std::vector<unsigned> kept, A, B;
  for (unsigned i = 0; i < q; ++i) {
    if (i < l && to[i] < l) kept.push_back(i);
    if (i < l && to[i] >= l) A.push_back(i);
    if (i >= l && to[i] < l) B.push_back(i);
  }
  const auto by_target = [&](unsigned a, unsigned b) { return to[a] < to[b]; };
  std::sort(kept.begin(), kept.end(), by_target);
  std::sort(A.begin(), A.end(), by_target);
  const unsigned s = static_cast<unsigned>(A.size()), low = l - s;  // 2^s chunks of 2^low words
  // First pass: kept bits to the bottom in their targets' order, A on top, so chunk c goes to one rank.
  std::vector<unsigned> first(l), second(l);
  for (unsigned p = 0; p < low; ++p) first[kept[p]] = p;
  for (unsigned k = 0; k < s; ++k) first[A[k]] = low + k;
  // Second pass: the kept bits to their targets, the chunk's index (B's bits of the source rank) to theirs.
  for (unsigned p = 0; p < low; ++p) second[p] = to[kept[p]];
  for (unsigned k = 0; k < s; ++k) second[low + k] = to[B[k]];
  const auto identity = [](const std::vector<unsigned>& v) {
    for (unsigned i = 0; i < v.size(); ++i)
      if (v[i] != i) return false;
    return true;
  };
  // The rank bits that stay rank bits fix part of every partner's rank.
  const auto rank = static_cast<std::uint64_t>(rank_);
  std::uint64_t fixed_target = 0, fixed_source = 0;  // of the ranks this one sends to and receives from
  for (unsigned i = l; i < q; ++i)
    if (to[i] >= l) {
      fixed_target |= ((rank >> (i - l)) & 1) << (to[i] - l);
      fixed_source |= ((rank >> (to[i] - l)) & 1) << (i - l);
    }
  std::vector<int> send_to(bit(s)), receive_from(bit(s));
  for (std::uint64_t c = 0; c < bit(s); ++c) {
    // The rank chunk c goes to; the rank whose chunk lands at index c here (B's bits are c's).
    std::uint64_t target = fixed_target, source = fixed_source;
    for (unsigned k = 0; k < s; ++k) target |= ((c >> k) & 1) << (to[A[k]] - l);
    for (unsigned k = 0; k < s; ++k) source |= ((c >> k) & 1) << (B[k] - l);
    send_to[c] = static_cast<int>(target);
    receive_from[c] = static_cast<int>(source);
  }
  const std::size_t wb = local_->word_bytes();
  const std::uint64_t chunk = bit(low);
  if (chunk > static_cast<std::uint64_t>(INT_MAX))
    throw Error(fmt::format("{} words go to each partner rank: more than one MPI message holds ({})", chunk, INT_MAX));
  if (s == 0 && send_to[0] == rank_) {  // every word stays on this rank: one local pass
    const std::vector<unsigned> local_to(to.begin(), to.begin() + l);
    if (!identity(local_to)) local_->permute_address_bits(local_to);
    return;
  }
  before_exchange();
  if (local_->backend().kind() == BackendKind::cpu) {
    exchange_chunks_from_storage(to, A, B, send_to, receive_from);
    return;
  }
  {
    Buffer& out = sized(send_buffer_, local_->bytes());
    Buffer& in = sized(receive_buffer_, local_->bytes());
    // Straight into the buffer MPI sends from where it is the machine's own memory.
    if (device_buffers_)
      local_->read_permuted(first, out);
    else
      local_->read_permuted(first, out.data(), local_->bytes());
    MPI_Datatype block;
    MPI_Type_contiguous(static_cast<int>(chunk), word_, &block);
    MPI_Type_commit(&block);
    std::vector<int> send_counts(ranks(), 0), send_at(ranks(), 0), receive_counts(ranks(), 0), receive_at(ranks(), 0);
    for (std::uint64_t c = 0; c < bit(s); ++c) {
      send_counts[send_to[c]] = 1;
      send_at[send_to[c]] = static_cast<int>(c);
      receive_counts[receive_from[c]] = 1;
      receive_at[receive_from[c]] = static_cast<int>(c);
    }
    const auto start = Clock::now();
    alltoallv(out.data(), send_counts.data(), send_at.data(), in.data(), receive_counts.data(), receive_at.data(),
              block, comm_);
    Counters waited;
    waited.add_phase("ranks", std::chrono::duration<double>(Clock::now() - start).count());
    local_->add_counters(waited);
    MPI_Type_free(&block);
    if (device_buffers_)
      local_->load_permuted(second, in);
    else
      local_->load_permuted(second, in.data(), local_->bytes());
    for (std::uint64_t c = 0; c < bit(s); ++c) {
      if (send_to[c] != rank_) {
        traffic_.bytes_sent += chunk * wb;
        ++traffic_.messages_sent;
      }
      if (receive_from[c] != rank_) traffic_.bytes_received += chunk * wb;
    }
  }
}

void DistributedMachine::exchange_chunks_from_storage(const std::vector<unsigned>& to, const std::vector<unsigned>& A,
                                                      const std::vector<unsigned>& B, const std::vector<int>& send_to,
                                                      const std::vector<int>& receive_from) {
  const Layout& layout = local_->layout();
  const unsigned l = layout.geo.address_bits(), s = static_cast<unsigned>(A.size()), low = l - s;
  const std::size_t wb = local_->word_bytes();
  const std::uint64_t chunk = bit(low);
  // Chunk c: the words whose A bits are c's, in storage order. Its storage
  // bits without A's, from the lowest, are the bits of a word's place in the
  // message; each goes where its address bit goes.
  std::vector<unsigned> address_of(l), a_storage;
  for (unsigned i = 0; i < l; ++i) address_of[layout.storage_bit(i)] = i;
  for (const unsigned a : A) a_storage.push_back(layout.storage_bit(a));
  std::vector<unsigned> sorted = a_storage;
  std::sort(sorted.begin(), sorted.end());
  std::vector<unsigned> second(l);
  unsigned v = 0;
  for (unsigned bit_at = 0; bit_at < l; ++bit_at)
    if (!std::binary_search(sorted.begin(), sorted.end(), bit_at)) second[v++] = to[address_of[bit_at]];
  for (unsigned k = 0; k < s; ++k) second[low + k] = to[B[k]];
  // A chunk is runs of the storage bits below the lowest A bit, repeated over
  // the bits between A bits. Runs of 256 bytes or more are copied into a send
  // buffer, each chunk sent as soon as it is there: a contiguous message is one
  // copy for Open MPI's shared memory (CMA), a datatype's is two through its
  // buffers. Shorter runs are read by a datatype (hvectors whose stride skips
  // the A bit).
  const unsigned run_bits = sorted.empty() ? l : sorted[0];
  const std::uint64_t run = bit(run_bits);
  unsigned char* packed =
      run * wb >= 256 ? static_cast<unsigned char*>(sized(send_buffer_, local_->bytes()).data()) : nullptr;
  MPI_Datatype chunk_type = MPI_DATATYPE_NULL;
  if (packed == nullptr) {
    MPI_Type_contiguous(static_cast<int>(run), word_, &chunk_type);
    for (std::size_t k = 0; k < sorted.size(); ++k) {
      const unsigned next = k + 1 < sorted.size() ? sorted[k + 1] : l;
      MPI_Datatype outer;
      MPI_Type_create_hvector(static_cast<int>(bit(next - sorted[k] - 1)), 1,
                              static_cast<MPI_Aint>(bit(sorted[k] + 1) * wb), chunk_type, &outer);
      MPI_Type_free(&chunk_type);
      chunk_type = outer;
    }
    MPI_Type_commit(&chunk_type);
  }
  Buffer& in = sized(receive_buffer_, local_->bytes());
  const auto* storage = static_cast<const unsigned char*>(local_->storage_data());
  auto* received = static_cast<unsigned char*>(in.data());
  const auto chunk_start = [&](std::uint64_t c) {  // the chunk's first word: its A bits set as c's
    std::uint64_t first = 0;
    for (unsigned k = 0; k < s; ++k) first |= ((c >> k) & 1) << a_storage[k];
    return first;
  };
  // Chunk c's words to `dst`, run by run.
  const auto copy_chunk = [&](std::uint64_t c, unsigned char* dst) {
    const std::uint64_t first = chunk_start(c);
    for (std::uint64_t k = 0; k < chunk; k += run) {
      std::uint64_t from = k;
      for (const unsigned a : sorted) from = insert_zero_bit(from, a);
      std::memcpy(dst + k * wb, storage + ((first | from) * wb), run * wb);
    }
  };
  // Partners in the order rank xor 1, xor 2, ..., as a pairwise exchange
  // takes them, so that the ranks do not all send to one rank first.
  std::vector<std::uint64_t> sends(bit(s)), receives(bit(s));
  std::iota(sends.begin(), sends.end(), 0);
  std::iota(receives.begin(), receives.end(), 0);
  std::sort(sends.begin(), sends.end(), [&](auto a, auto b) { return (send_to[a] ^ rank_) < (send_to[b] ^ rank_); });
  std::sort(receives.begin(), receives.end(),
            [&](auto a, auto b) { return (receive_from[a] ^ rank_) < (receive_from[b] ^ rank_); });
  std::vector<MPI_Request> requests;
  const auto start = Clock::now();
  for (const std::uint64_t c : receives) {
    if (receive_from[c] == rank_) continue;
    requests.emplace_back();
    MPI_Irecv(received + c * chunk * wb, static_cast<int>(chunk), word_, receive_from[c], 1, comm_, &requests.back());
    traffic_.bytes_received += chunk * wb;
  }
  for (const std::uint64_t c : sends) {
    if (send_to[c] == rank_) continue;
    requests.emplace_back();
    if (packed != nullptr) {
      copy_chunk(c, packed + c * chunk * wb);
      MPI_Isend(packed + c * chunk * wb, static_cast<int>(chunk), word_, send_to[c], 1, comm_, &requests.back());
    } else {
      MPI_Isend(storage + chunk_start(c) * wb, 1, chunk_type, send_to[c], 1, comm_, &requests.back());
    }
    traffic_.bytes_sent += chunk * wb;
    ++traffic_.messages_sent;
  }
  // The chunk this rank keeps (if one) lands at the index of its own rank bits, copied while the messages travel.
  const auto kept = std::find(send_to.begin(), send_to.end(), rank_);
  if (kept != send_to.end()) {
    const auto at = static_cast<std::uint64_t>(std::find(receive_from.begin(), receive_from.end(), rank_) -
                                               receive_from.begin());
    copy_chunk(static_cast<std::uint64_t>(kept - send_to.begin()), received + at * chunk * wb);
  }
  wait_all(static_cast<int>(requests.size()), requests.data());
  Counters waited;
  waited.add_phase("ranks", std::chrono::duration<double>(Clock::now() - start).count());
  local_->add_counters(waited);
  if (chunk_type != MPI_DATATYPE_NULL) MPI_Type_free(&chunk_type);
  local_->load_permuted(second, in);
}

Counters DistributedMachine::counters() const {
  Counters c = local_->counters();
  const std::size_t wb = local_->word_bytes();
  if (c.links_used_per_cycle.size() != remote_links_per_cycle_.size())
    throw Error("internal: the local machine ran cycles the distributed machine did not count");
  for (std::size_t i = 0; i < remote_links_per_cycle_.size(); ++i)
    c.links_used_per_cycle[i] += remote_links_per_cycle_[i];
  c.element_hops += remote_hops_;
  c.bytes_read += remote_hops_ * wb;
  c.bytes_written += remote_hops_ * wb;
  // Words, bytes and links add up over the shares; events happen once on every rank alike.
  unsigned long long sums[4] = {c.element_hops, c.bytes_read, c.bytes_written, c.router_contention};
  allreduce(sums, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm_);
  c.element_hops = sums[0];
  c.bytes_read = sums[1];
  c.bytes_written = sums[2];
  c.router_contention = sums[3];
  std::vector<unsigned long long> links(c.links_used_per_cycle.begin(), c.links_used_per_cycle.end());
  allreduce(links.data(), static_cast<int>(links.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm_);
  c.links_used_per_cycle.assign(links.begin(), links.end());
  c.links_total = std::uint64_t{geo_.n} * geo_.nodes();
  // Phase times: the slowest rank's, over rank 0's list of phases.
  std::string names;
  for (const PhaseTime& p : c.phases) names += p.name + '\n';
  unsigned long long length = names.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm_);
  names.resize(length);
  MPI_Bcast(names.data(), static_cast<int>(length), MPI_CHAR, 0, comm_);
  std::vector<PhaseTime> phases;
  for (std::size_t start = 0, end; (end = names.find('\n', start)) != std::string::npos; start = end + 1) {
    PhaseTime p{names.substr(start, end - start), 0, 0};
    for (const PhaseTime& q : c.phases)
      if (q.name == p.name) p = q;
    phases.push_back(p);
  }
  std::vector<double> seconds;
  for (const PhaseTime& p : phases) seconds.push_back(p.seconds);
  allreduce(seconds.data(), static_cast<int>(seconds.size()), MPI_DOUBLE, MPI_MAX, comm_);
  for (std::size_t i = 0; i < phases.size(); ++i) phases[i].seconds = seconds[i];
  c.phases = std::move(phases);
  return c;
}

std::vector<RankTraffic> DistributedMachine::all_traffic() const {
  const unsigned long long mine[3] = {traffic_.bytes_sent, traffic_.bytes_received, traffic_.messages_sent};
  std::vector<unsigned long long> all(3 * static_cast<std::size_t>(ranks()));
  MPI_Allgather(mine, 3, MPI_UNSIGNED_LONG_LONG, all.data(), 3, MPI_UNSIGNED_LONG_LONG, comm_);
  std::vector<RankTraffic> out;
  for (int r = 0; r < ranks(); ++r) out.push_back({all[3 * r], all[3 * r + 1], all[3 * r + 2]});
  return out;
}

}  // namespace hcube::mpi

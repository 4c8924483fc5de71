#include "hcube/emulator/grid_machine.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/emulator/units.hpp"

namespace hcube {
namespace {

using Clock = std::chrono::steady_clock;

// The storage of N nodes of W words: each node from a stride of 2^ceil(log2 W).
std::uint64_t storage_words(const GridTopology& t, std::uint64_t words) { return t.nodes() * bit(ceil_log2(words)); }

}  // namespace

void check_grid_machine_fits(const GridTopology& t, std::uint64_t words_per_node, ElementType type,
                             const Backend& backend) {
  if (words_per_node == 0 || words_per_node > (std::uint64_t{1} << 40))
    throw Error(fmt::format("{} words a node out of range: allowed 1..2^40", words_per_node));
  const std::size_t wb = info(type).bytes;
  const double need = static_cast<double>(storage_words(t, words_per_node)) * static_cast<double>(wb);
  const std::uint64_t avail = backend.available_bytes();
  if (need > static_cast<double>(avail))
    throw Error(fmt::format("{} with {} {} words a node needs {}: the {} backend has {} available", to_string(t),
                            words_per_node, info(type).name, format_bytes(static_cast<std::uint64_t>(need)),
                            to_string(backend.kind()), format_bytes(avail)));
}

GridMachine::GridMachine(const GridTopology& t, std::uint64_t words_per_node, ElementType type, BackendChoice backend)
    : GridMachine(t, words_per_node, type, make_backend(backend)) {}

GridMachine::GridMachine(const GridTopology& t, std::uint64_t words_per_node, ElementType type,
                         std::unique_ptr<Backend> backend)
    : topology_(t), words_(words_per_node), type_(type), backend_(std::move(backend)) {
  check_grid_machine_fits(t, words_per_node, type, *backend_);
  layout_ = Layout{Geometry{ceil_log2(t.nodes()), ceil_log2(words_per_node)}, 0};
  storage_ = backend_->allocate(storage_words(t, words_per_node) * word_bytes());
  // Zeroed, so that buffers read before they are written hold no garbage.
  const std::vector<unsigned char> zero(storage_.bytes(), 0);
  backend_->write_storage(zero.data(), storage_, 0, zero.size());
  counters_.links_total = t.directed_links();
}

void GridMachine::load(const void* data, std::uint64_t n_bytes) {
  if (n_bytes != bytes())
    throw Error(fmt::format("input holds {} bytes: {} nodes of {} {} words need {}", n_bytes, topology_.nodes(), words_,
                            info(type_).name, bytes()));
  const auto start = Clock::now();
  const std::size_t row = words_ * word_bytes(), stride = layout_.index(1, 0) * word_bytes();
  std::vector<unsigned char> padded(storage_.bytes(), 0);
  for (std::uint64_t j = 0; j < topology_.nodes(); ++j)
    std::memcpy(&padded[j * stride], static_cast<const unsigned char*>(data) + j * row, row);
  backend_->write_storage(padded.data(), storage_, 0, padded.size());
  counters_.add_phase("copy-in", std::chrono::duration<double>(Clock::now() - start).count());
}

std::vector<unsigned char> GridMachine::read() const {
  std::vector<unsigned char> padded(storage_.bytes());
  backend_->read_storage(storage_, 0, padded.data(), padded.size());
  const std::size_t row = words_ * word_bytes(), stride = layout_.index(1, 0) * word_bytes();
  std::vector<unsigned char> out(bytes());
  for (std::uint64_t j = 0; j < topology_.nodes(); ++j) std::memcpy(&out[j * row], &padded[j * stride], row);
  return out;
}

GridCycleUse GridMachine::run_cycle(const GridCycle& cycle, const GridRules& rules, std::uint64_t block_words) {
  if (block_words == 0 || words_ % block_words != 0)
    throw Error(fmt::format("blocks of {} words do not divide the {} words of a node", block_words, words_));
  const GridCycleUse use =
      check_grid_cycle(topology_, words_ / block_words, cycle, rules, counters_.routing_cycles);
  BlockRouteStep step;
  step.block_words = block_words;
  step.from = cycle.from;
  step.to = cycle.to;
  for (const GridMessage& m : cycle.messages) {
    const std::uint64_t receiver = m.dir == 0 ? m.node : *topology_.neighbour(m.node, m.dim, m.dir);
    step.messages.push_back(BlockMessage{m.node, receiver, m.first, m.blocks, m.blocks});
  }
  const auto start = Clock::now();
  backend_->route_blocks(storage_, layout_, word_bytes(), step);
  backend_->synchronize();
  ++counters_.kernel_launches;
  counters_.add_phase("routing", std::chrono::duration<double>(Clock::now() - start).count());
  ++counters_.routing_cycles;
  counters_.element_hops += use.link_blocks * block_words;
  counters_.links_used_per_cycle.push_back(use.links_used);
  const std::uint64_t moved = (use.link_blocks + use.local_blocks) * block_words * word_bytes();
  counters_.bytes_read += moved;
  counters_.bytes_written += moved;
  return use;
}

}  // namespace hcube

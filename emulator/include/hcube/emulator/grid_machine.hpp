// The NEWS grid as a machine (host/grid.hpp): z1 z2 nodes, each a local
// memory of W words, held by a backend. Its one primitive is the grid routing
// cycle: checked on the host (check_grid_cycle), then one launch of the block
// router's kernel body (kernels/block_router.hpp), since a cycle is a set of
// block copies that read and write apart; counted as the cube's cycles are.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hcube/emulator/backend.hpp"
#include "hcube/emulator/counters.hpp"
#include "hcube/emulator/element_type.hpp"
#include "hcube/host/grid.hpp"
#include "hcube/host/layout.hpp"

namespace hcube {

// Throws hcube::Error, naming the bytes and what the backend has, when a grid
// machine of this size does not fit; allocates nothing.
void check_grid_machine_fits(const GridTopology& t, std::uint64_t words_per_node, ElementType type,
                             const Backend& backend);

class GridMachine {
 public:
  GridMachine(const GridTopology& t, std::uint64_t words_per_node, ElementType type, BackendChoice backend);
  GridMachine(const GridTopology& t, std::uint64_t words_per_node, ElementType type, std::unique_ptr<Backend> backend);

  const GridTopology& topology() const { return topology_; }
  std::uint64_t words_per_node() const { return words_; }
  ElementType type() const { return type_; }
  std::size_t word_bytes() const { return info(type_).bytes; }
  // The nodes' memories one after the other, N x W words.
  std::uint64_t bytes() const { return topology_.nodes() * words_ * word_bytes(); }
  Backend& backend() { return *backend_; }
  const Backend& backend() const { return *backend_; }

  // Copy-in and copy-out of the N x W words, node after node.
  void load(const void* data, std::uint64_t bytes);
  std::vector<unsigned char> read() const;

  // One routing cycle of blocks of block_words words (which must divide W):
  // checked against the grid and `rules`, then one launch. Returns its counts.
  GridCycleUse run_cycle(const GridCycle& cycle, const GridRules& rules, std::uint64_t block_words);

  const Counters& counters() const { return counters_; }

 private:
  GridTopology topology_;
  std::uint64_t words_;
  ElementType type_;
  std::unique_ptr<Backend> backend_;
  // Each node's words from a power-of-two stride, as the router body addresses them.
  Layout layout_;
  Buffer storage_;
  Counters counters_;
};

}  // namespace hcube

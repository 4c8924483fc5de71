// The emulated SIMD hypercube: 2^n nodes of K = 2^m words held by a backend,
// running the three primitives (routing cycle, local alignment, router step)
// and counting what each one did. Every primitive is checked on the host
// before anything moves, and is one kernel launch.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "hcube/emulator/backend.hpp"
#include "hcube/emulator/counters.hpp"
#include "hcube/emulator/element_type.hpp"
#include "hcube/host/affine_map.hpp"
#include "hcube/host/cycle.hpp"
#include "hcube/host/geometry.hpp"
#include "hcube/host/layout.hpp"
#include "hcube/host/router_step.hpp"
#include "hcube/host/schedule.hpp"

namespace hcube {

struct MachineOptions {
  long long n = 0;
  long long m = 0;
  ElementType type = ElementType::u32;
  BackendChoice backend = BackendChoice::automatic;
  long long tile_dims = -1;  // -1: the default tile width
  LaunchMode launch = LaunchMode::per_cycle;  // how batches of routing cycles are launched
  // Most words are padding no step touches (a redistribution's regions in a
  // 2^n x 2^m cube): the storage is allocated so that untouched words cost no
  // host memory (Backend::allocate's `sparse`).
  bool sparse = false;
};

// Largest q with 2^q words of word_bytes each in `bytes`.
unsigned largest_fitting_bits(std::uint64_t bytes, std::size_t word_bytes);
// Throws hcube::Error, naming n + m and the largest that fits, when a machine
// of `geo` and `type` exceeds what `backend` has available. Allocates nothing:
// plans call it before they build anything sized by the machine.
void check_machine_fits(const Geometry& geo, ElementType type, const Backend& backend);

// A part of a run's memory beside its machine: what it is, its bytes, and
// whether it lives where the machine does (the backend's memory: a scratch
// copy) or in host memory (a host copy of the points, a plan's tables).
struct MemoryNeed {
  std::string what;
  std::uint64_t bytes = 0;
  bool on_backend = true;
};
// Refuses, before anything is allocated, a run whose machine and `parts`
// exceed what is available: the backend's memory for the machine and the
// parts on it, host memory for the host parts (the same memory on the CPU
// backend, so there they add up). One line naming the total, each part and
// what is available. `run` names the run ("hcube fft").
void check_run_fits(const std::string& run, const Geometry& geo, ElementType type, const Backend& backend,
                    const std::vector<MemoryNeed>& parts);

// Throws hcube::Error unless `type` holds every address label of a machine of `geo`.
void check_labels_fit(const Geometry& geo, ElementType type);

// Address bits [lo, lo + width) of the global address, as label bits [0, width):
// a type's labels hold fewer bits than a large machine's address (u32 32, f32
// 24; n + m = 34 has 34), so a data-oblivious run is checked once per window.
struct LabelWindow {
  unsigned lo = 0, width = 0;
  AffineAddressMap map(unsigned address_bits) const;  // linear: bit lo + i goes to bit i
};
// Windows of at most `width` bits (0: all the type's label bits hold), lowest
// first, whose union is every address bit of `geo`: one window when the type
// holds every label. Throws when `width` exceeds the type's label bits.
std::vector<LabelWindow> label_windows(const Geometry& geo, ElementType type, unsigned width = 0);
// Throws hcube::Error unless `to` permutes the n + m address bits of `geo`
// (Machine::permute_address_bits and the distributed machine's check).
void check_address_permutation(const Geometry& geo, const std::vector<unsigned>& to);

class Machine {
 public:
  // Validates the geometry and the memory it needs before allocating.
  explicit Machine(const MachineOptions& options);
  Machine(const MachineOptions& options, std::unique_ptr<Backend> backend);
  // On memory the caller owns (caller-owned data, the library's plans): `data`
  // holds the machine's storage in the layout options.tile_dims gives (0: the
  // user's row-major A[node][local]) on `backend` (host memory for the CPU,
  // device memory for CUDA), `bytes` of it; `scratch`, if not null, `bytes`
  // more that the machine may use for steps that are no involution. Nothing
  // is copied; after settle() the data is back in `data`.
  Machine(const MachineOptions& options, std::shared_ptr<Backend> backend, void* data, std::uint64_t bytes,
          void* scratch = nullptr);

  const Geometry& geometry() const { return layout_.geo; }
  const Layout& layout() const { return layout_; }
  // The words in storage order (layout()), in the backend's memory: what a
  // distributed machine on the CPU hands MPI to read with a datatype, with no
  // pass to pack them. Valid until the next step that reallocates the storage.
  const void* storage_data() const { return storage_.data(); }
  ElementType type() const { return type_; }
  std::size_t word_bytes() const { return info(type_).bytes; }
  std::uint64_t bytes() const { return geometry().total_words() * word_bytes(); }
  Backend& backend() { return *backend_; }
  const Backend& backend() const { return *backend_; }

  // Copy-in from host memory in the user's order A[node][local]; `bytes` must match.
  void load(const void* data, std::uint64_t bytes);
  // Word g holds the label g (its global address); throws if the type cannot hold every label.
  // Written on the backend (Backend::fill_labels): no host copy of the data.
  void load_labels();
  // Word g holds the label label_at(g) (a LabelWindow's map: a window of the
  // address bits); throws unless the type holds every value label_at takes.
  void load_labels(const AffineAddressMap& label_at);
  // The words whose value is not the label `label_at(base + g)` at global
  // address g (base: where this machine's words start in a larger cube, a
  // rank's share), bit for bit, counted on the backend with no copy of the
  // data; `first`: the global address (without base) of the first such word
  // in storage order. label_at is affine on the cube's address bits. Phase "verify".
  struct LabelCheck {
    std::uint64_t mismatches = 0;
    std::uint64_t first = 0;
  };
  LabelCheck count_label_mismatches(const AffineAddressMap& label_at, std::uint64_t base = 0) const;
  // The data in storage order, chunk by chunk (layout() maps a storage index to
  // its node and local address): f(first storage index, words, their bytes).
  // Checks and statistics walk the data this way without a second copy of it.
  using ChunkVisitor = std::function<void(std::uint64_t first, std::uint64_t words, const unsigned char* data)>;
  void scan_storage(const ChunkVisitor& f) const;
  // Copy-out in the user's order.
  std::vector<unsigned char> read() const;
  void read(void* dst, std::uint64_t bytes) const;

  // Copy-in and copy-out through a small buffer, for data that is not in host
  // memory as a whole (a .npy file read and written in place): the machine
  // asks for or hands over runs of `words` user-order words starting at global
  // address g, each run within one node's row. At most about 2 MiB is held.
  using UserRunReader = std::function<void(std::uint64_t g, std::uint64_t words, void* dst)>;
  using UserRunWriter = std::function<void(std::uint64_t g, std::uint64_t words, const void* src)>;
  void load_runs(const UserRunReader& read_run);
  // Frees the scratch buffer the machine allocated for itself (a caller's is
  // kept); the next step that needs one allocates it again.
  void release_scratch();
  // store_runs hands over the runs of one tile (2^t nodes) before the next tile's.
  void store_runs(const UserRunWriter& write_run) const;
  // The same in the user's order, each run starting where the last ended, for
  // a target that cannot seek (a FIFO, a device): runs of a whole tile's 2^t
  // rows, gathered in a buffer of one tile (2^(t+m) words).
  void store_in_order(const UserRunWriter& write_run) const;
  // The words at global addresses global[0 .. count) packed into dst (count
  // words): one gather on the backend, so a check can read the places a
  // reference names chunk by chunk on any backend. Throws hcube::Error, before
  // reading anything, for an address outside the machine. The time goes to
  // counters' `phase`.
  void gather(const std::uint64_t* global, std::uint64_t count, void* dst, const char* phase = "copy-out") const;
  // The reverse: the packed words src[0 .. count) put at the distinct global
  // addresses global[0 .. count), one scatter on the backend (a distributed
  // machine's words from another rank). Throws hcube::Error, before writing
  // anything, for an address outside the machine.
  void scatter(const std::uint64_t* global, std::uint64_t count, const void* src, const char* phase = "copy-in");
  // The same with the packed words in a buffer of the machine's own memory
  // (backend().allocate(): device memory on CUDA), from word `at` on: a
  // distributed machine hands it to a CUDA-aware MPI with no copy through the host.
  void gather(const std::uint64_t* global, std::uint64_t count, Buffer& packed, std::uint64_t at,
              const char* phase) const;
  void scatter(const std::uint64_t* global, std::uint64_t count, const Buffer& packed, std::uint64_t at,
               const char* phase);

  // Which way a step moves words between the machine and a table or buffer.
  enum class LocalDirection { gather, scatter };

  // The words of exchanges along node dimensions above this machine's own (a
  // distributed machine's exchanges with another rank: the maps' columns
  // above the share folded into the addresses, `maps` the share's columns),
  // exchange by exchange, node by node: node j's word addr xor L(j), or
  // peer_addr xor L(j) with `upper`, at word at + e 2^n + j of `packed` (a
  // buffer of the machine's memory), gathered into it or scattered from it.
  // Throws hcube::Error, before moving anything, for an address outside a
  // node or a buffer too small.
  void exchange_words(const Exchange* exchanges, std::size_t count, bool upper, const OffsetMaps& maps, Buffer& packed,
                      std::uint64_t at, LocalDirection direction, const char* phase);

  // Primitive 1: checks the cycle against the port rules, then one launch.
  void run_cycle(const Cycle& cycle, const PortRules& rules = {}, const OffsetMaps& maps = {});
  // The same for a cycle that has passed check_cycle (and maps check_offset_maps) already.
  void run_checked_cycle(const Cycle& cycle, const OffsetMaps& maps = {});
  // Every cycle of a schedule, one launch each, after checking the whole
  // schedule once; `progress(done, total)` is called now and then.
  using Progress = std::function<void(std::size_t done, std::size_t total)>;
  ScheduleStats run_cycles(const Schedule& schedule, const Progress& progress = {});
  // Throws hcube::Error unless the schedule is for this machine's n and m.
  void check_geometry(const Schedule& schedule) const;
  // The same for a schedule that has passed check_schedule already.
  void run_checked_cycles(const Schedule& schedule, const Progress& progress = {});
  // The same for cycles that are parts of cycles counted elsewhere (a
  // distributed machine's, split at the words that cross between ranks): their
  // launches and time count here, their cycles, words and links do not.
  void run_cycle_parts(const Schedule& parts);
  // Primitive 2: in place for an involution (an xor map, a swap of bit
  // fields), through a scratch buffer otherwise.
  void align(const AffineMap& map);
  // The same on the local addresses [step.lo, step.hi) only (an involution).
  void align(const AlignmentStep& step);
  // The fused permutation of the address bits: source bit i of every global
  // address goes to bit to[i], in one launch through a scratch buffer (the
  // result, not an emulation of the routing). Throws unless `to` is a
  // permutation of 0 .. n+m-1.
  void permute_address_bits(const std::vector<unsigned>& to);
  // A local permutation of blocks by table, each node its own (no affine form
  // needed): on the region's nodes, the B = from.size() / nodes blocks of
  // `block_words` words from local address `lo` take as block f the block that
  // was block from[(j - first_node) B + f]; every other word stays. With the
  // defaults (every node, words one by one from 0), word (j, i) takes the word
  // at (j, from[j K + i]). Throws, before anything moves, unless the region
  // fits and every node's entries are a permutation of 0..B-1. Two launches
  // over the region (gather into scratch, copy back), counted in phase "local".
  struct LocalRegion {
    std::uint64_t first_node = 0;
    std::uint64_t nodes = 0;  // 0: to the last node
    std::uint64_t lo = 0;
    std::uint64_t block_words = 1;
  };
  void permute_local(const std::vector<std::uint64_t>& from, const LocalRegion& region);
  // The same by a block table (BlockTable: periodic or explicit) of `blocks`
  // entries a node: gather, block f takes block table(f); scatter, block f
  // goes to block table(f). Checked as above (a bit a block of one node's
  // region); the scratch is the region's words, unless the machine has one.
  void permute_local(const BlockTable& table, std::uint64_t blocks, const LocalRegion& region,
                     LocalDirection direction);
  // permute_address_bits(to) and read(dst) in one pass (into the scratch, then
  // a raw copy out), the machine left as it was; and load(src) followed by
  // permute_address_bits(to), a raw copy in and one pass. A distributed
  // machine's exchange of chunks between ranks (DistributedMachine) takes
  // no conversion of the layout this way. One launch each, phase "permute".
  void read_permuted(const std::vector<unsigned>& to, void* dst, std::uint64_t bytes);
  void load_permuted(const std::vector<unsigned>& to, const void* src, std::uint64_t bytes);
  // The same on a buffer of the machine's own memory (backend().allocate(),
  // bytes() of it): the pass writes into it, or reads from it, directly.
  void read_permuted(const std::vector<unsigned>& to, Buffer& dst);
  void load_permuted(const std::vector<unsigned>& to, const Buffer& src);
  void permute_local(const std::vector<std::uint64_t>& from) { permute_local(from, LocalRegion{}); }
  // Primitive 3: checks the step, then one launch; returns its counts.
  RouterStepReport route(const RouterStep& step, const RouterLimits& limits);
  // Router steps of block messages, each packed at its sender and unpacked at
  // its receiver on the fly (kernels/block_router.hpp): checks them
  // (check_block_route: no step writes what any reads), then runs them all in
  // one launch; counted as route() counts each step. Returns the sums.
  RouterStepReport route_blocks(const std::vector<BlockRouteStep>& steps);
  // The FFT's local compute step (kernels/fft.hpp): one radix-2 DIF butterfly
  // stage pairing the words whose local addresses differ in bit mem_bit, on
  // complex64 or complex128 data, each word's logical index given by `index`
  // ((node, local) -> index, make_tables of an affine map); the pair's indices
  // differ in index_bit. One launch, counted in phase "fft". Throws for other
  // element types and bits out of range.
  void fft_stage(unsigned mem_bit, unsigned index_bit, const AffineTables& index, bool inverse = false);
  // The DIF stages on index bits lo+h-1 .. lo at once, through the backend's
  // DFT library (Backend::fft_block): group_bits are the h local address bits
  // that hold them. Three launches (gather, transforms, scatter), phase "fft".
  void fft_block(unsigned lo, unsigned h, std::uint64_t group_bits, const AffineTables& index, bool inverse = false);
  // fft_block, then align(map): where the backend can, one pass that writes
  // the block's results at their aligned places (Backend::fft_block_aligned),
  // counted as the block and the alignment would be, its time in phase "fft".
  void fft_block_then_align(unsigned lo, unsigned h, std::uint64_t group_bits, const AffineTables& index, bool inverse,
                            const AffineMap& map);
  // "FFTW" or "cuFFT".
  std::string dft_library() const;

  // A step that is no involution runs from storage into scratch and swaps
  // the two: on caller-owned memory, settle() copies the data back into the
  // caller's buffer if it last landed in scratch (one launch), and returns
  // whether it had to.
  bool settle();
  // On caller-owned memory every primitive leaves the data in the caller's
  // buffer (settling after each step that swapped), so that the caller can
  // touch it between steps. A run that touches it only at the end (a plan)
  // turns this off and settles once.
  void set_settle_each_step(bool on) { settle_each_step_ = on; }
  // An asynchronous machine only enqueues its data motion on the backend's
  // stream and never waits for it: its phases count calls with no seconds
  // (the host's clock would time the enqueueing). Plan::execute_device times
  // the whole run by events instead. Copies with host memory still wait.
  void set_asynchronous(bool on) { asynchronous_ = on; }
  // The scratch buffer, made on first use (or the caller's).
  Buffer& scratch();

  // How run_cycles launches batches of cycles (MachineOptions::launch).
  LaunchMode launch_mode() const { return launch_; }
  void set_launch_mode(LaunchMode launch) { launch_ = launch; }

  const Counters& counters() const { return counters_; }
  void reset_counters();
  // Counts what another machine did with this machine's data (Counters::add).
  void add_counters(const Counters& other) { counters_.add(other); }

 private:
  void account_launch(const char* phase, double seconds);
  // The seconds since `start` once the backend has done the work enqueued since; 0, not waiting, when asynchronous.
  double finish(std::chrono::steady_clock::time_point start);
  void launch_cycles(const Schedule& schedule, const Progress& progress, bool count_cycles);
  // The region's node count, checked against the machine.
  std::uint64_t region_nodes(const LocalRegion& region) const;
  // route()'s and route_blocks()' counts: one launch of `steps` router steps.
  void count_router_steps(const RouterStepReport& rep, std::uint64_t steps, double seconds);
  // One fused pass src -> dst over the storage index bits, counted as permute_address_bits counts it.
  void permute_pass(const Buffer& src, Buffer& dst, const std::vector<unsigned>& storage_to);
  std::uint64_t scan_chunk_words() const;
  void check_complex(const char* what) const;
  void account_cycle(const CycleUse& use);
  // The storage indices of global addresses, each checked in range (`what` names the caller).
  std::vector<std::uint64_t> storage_indices(const std::uint64_t* global, std::uint64_t count, const char* what) const;

  Layout layout_;
  ElementType type_;
  std::shared_ptr<Backend> backend_;
  Buffer storage_;
  bool own_scratch_ = true;  // false: scratch_ is the caller's
  bool sparse_ = false;      // MachineOptions::sparse
  const void* home_ = nullptr;  // the caller's buffer, for settle()
  bool settle_each_step_ = false;
  bool asynchronous_ = false;
  LaunchMode launch_ = LaunchMode::per_cycle;
  Buffer scratch_;  // for alignments that are not involutions, made on first use
  mutable Counters counters_;
};

}  // namespace hcube

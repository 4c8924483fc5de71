#include "hcube/emulator/machine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <chrono>

#include "hcube/emulator/units.hpp"
#include "hcube/host/bit_permutation_tiling.hpp"
#include "hcube/host/system/host_memory.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {
namespace {

using Clock = std::chrono::steady_clock;

// Labelling and scanning go through a host buffer this large: small beside the
// data (peak memory stays near the data size) and large enough to stream.
constexpr std::uint64_t kScanChunkBytes = std::uint64_t{2} << 20;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}


}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  unsigned u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

// Not enough memory is OutOfMemory (an Error, so callers that catch Error are unchanged):
// the Python module raises MemoryError for it, as NumPy does.
void check_machine_fits(const Geometry& geo, ElementType type, const Backend& backend) {
  const std::size_t wb = info(type).bytes;
  const std::uint64_t need = geo.total_words() * wb;
  const std::uint64_t avail = backend.available_bytes();
  if (need > avail)
    throw OutOfMemory(fmt::format(
        "n + m = {} + {} needs 2^{} words of {} = {}: the {} backend has {} available, allowed n + m <= {} for {}",
        geo.n, geo.m, geo.address_bits(), info(type).name, format_bytes(need), to_string(backend.kind()),
        format_bytes(avail), largest_fitting_bits(avail, wb), info(type).name));
}

void check_run_fits(const std::string& run, const Geometry& geo, ElementType type, const Backend& backend,
                    const std::vector<MemoryNeed>& parts) {
  const std::uint64_t machine = geo.total_words() * info(type).bytes;
  const bool host_backend = backend.kind() == BackendKind::cpu;
  std::uint64_t on_backend = machine, on_host = 0;
  std::string backend_list = fmt::format("the machine {}", format_bytes(machine)), host_list;
  for (const MemoryNeed& p : parts) {
    if (p.bytes == 0) continue;
    const bool there = p.on_backend || host_backend;
    (there ? on_backend : on_host) += p.bytes;
    std::string& list = there ? backend_list : host_list;
    list += fmt::format("{}{} {}", list.empty() ? "" : " + ", p.what, format_bytes(p.bytes));
  }
  const std::uint64_t avail = backend.available_bytes();
  if (on_backend > avail)
    throw OutOfMemory(fmt::format("{} needs {} on the {} backend ({}): {} available", run, format_bytes(on_backend),
                            to_string(backend.kind()), backend_list, format_bytes(avail)));
  if (on_host > 0) {
    const std::uint64_t host = host_memory_available();
    if (on_host > host)
      throw OutOfMemory(fmt::format("{} needs {} of host memory beside its machine ({}): {} available", run,
                              format_bytes(on_host), host_list, format_bytes(host)));
  }
}

unsigned largest_fitting_bits(std::uint64_t bytes, std::size_t word_bytes) {
  unsigned q = 0;
  while (q < kMaxAddressBits && (bit(q + 1) <= bytes / word_bytes)) ++q;
  return q;
}

Machine::Machine(const MachineOptions& options) : Machine(options, make_backend(options.backend)) {}

Machine::Machine(const MachineOptions& options, std::unique_ptr<Backend> backend)
    : layout_(make_layout(make_geometry(options.n, options.m), options.tile_dims)),
      type_(options.type),
      backend_(std::move(backend)),
      launch_(options.launch) {
  const Geometry& geo = layout_.geo;
  check_machine_fits(geo, type_, *backend_);
  storage_ = backend_->allocate(bytes(), options.sparse);
  sparse_ = options.sparse;
  counters_.links_total = std::uint64_t{geo.n} * geo.nodes();
}

Machine::Machine(const MachineOptions& options, std::shared_ptr<Backend> backend, void* data, std::uint64_t n_bytes,
                 void* scratch)
    : layout_(make_layout(make_geometry(options.n, options.m), options.tile_dims < 0 ? 0 : options.tile_dims)),
      type_(options.type),
      backend_(std::move(backend)),
      launch_(options.launch) {
  if (n_bytes != bytes())
    throw Error(fmt::format("the caller's buffer holds {} bytes: a machine of 2^{} {} words needs {}", n_bytes,
                            geometry().address_bits(), info(type_).name, bytes()));
  if (data == nullptr) throw Error("the caller's buffer is a null pointer");
  storage_ = Buffer(data, n_bytes, [](void*) {});
  home_ = data;
  settle_each_step_ = true;
  if (scratch != nullptr) {
    scratch_ = Buffer(scratch, n_bytes, [](void*) {});
    own_scratch_ = false;
  }
  counters_.links_total = std::uint64_t{geometry().n} * geometry().nodes();
}

Buffer& Machine::scratch() {
  if (!scratch_) scratch_ = backend_->allocate(bytes(), sparse_);
  return scratch_;
}

bool Machine::settle() {
  if (home_ == nullptr || storage_.data() == home_) return false;
  const Geometry& geo = geometry();
  const kernels::BlockRegion all{0, geo.nodes(), 0, geo.words_per_node(), 1};
  const auto start = Clock::now();
  backend_->local_pass(storage_, scratch_, layout_, word_bytes(), nullptr, all, kernels::LocalPass::copy);
  std::swap(storage_, scratch_);
  account_launch("copy", finish(start));
  counters_.bytes_read += bytes();
  counters_.bytes_written += bytes();
  return true;
}

void Machine::reset_counters() {
  const std::uint64_t links = counters_.links_total;
  counters_ = Counters{};
  counters_.links_total = links;
}

double Machine::finish(Clock::time_point start) {
  if (asynchronous_) return 0;
  backend_->synchronize();
  return seconds_since(start);
}

void Machine::account_launch(const char* phase, double seconds) {
  ++counters_.kernel_launches;
  counters_.add_phase(phase, seconds);
}

void Machine::load(const void* data, std::uint64_t n_bytes) {
  if (n_bytes != bytes())
    throw Error(fmt::format("input holds {} bytes: a machine of {} {} words needs {}", n_bytes,
                            geometry().total_words(), info(type_).name, bytes()));
  const auto start = Clock::now();
  backend_->to_storage(data, storage_, layout_, word_bytes());
  backend_->synchronize();
  counters_.add_phase("copy-in", seconds_since(start));
}

namespace {

// The storage order inside a tile is word a of its 2^t nodes together (layout.hpp):
// a tile's columns [a, a + c) are one contiguous run of storage, which
// for_each_block visits with the matching user runs, row by row.
template <class F>
void for_each_block(const Layout& layout, std::uint64_t chunk_words, F&& f) {
  const Geometry& geo = layout.geo;
  const std::uint64_t rows = bit(layout.t), K = geo.words_per_node();
  const std::uint64_t cols = std::min(K, std::max<std::uint64_t>(1, chunk_words / rows));
  for (std::uint64_t tile = 0; tile < (geo.nodes() >> layout.t); ++tile)
    for (std::uint64_t a = 0; a < K; a += cols) f(tile * rows, a, rows, std::min(cols, K - a));
}

}  // namespace

void Machine::load_runs(const UserRunReader& read_run) {
  const auto start = Clock::now();
  const std::size_t wb = word_bytes();
  std::vector<unsigned char> rows_buf, tile_buf;
  for_each_block(layout_, scan_chunk_words(), [&](std::uint64_t node0, std::uint64_t a, std::uint64_t rows,
                                                  std::uint64_t cols) {
    rows_buf.resize(rows * cols * wb);
    tile_buf.resize(rows * cols * wb);
    for (std::uint64_t r = 0; r < rows; ++r) read_run(geometry().global(node0 + r, a), cols, &rows_buf[r * cols * wb]);
    for (std::uint64_t r = 0; r < rows; ++r)
      for (std::uint64_t c = 0; c < cols; ++c)
        std::memcpy(&tile_buf[(c * rows + r) * wb], &rows_buf[(r * cols + c) * wb], wb);
    backend_->write_storage(tile_buf.data(), storage_, layout_.index(node0, a) * wb, tile_buf.size());
  });
  backend_->synchronize();
  counters_.add_phase("copy-in", seconds_since(start));
}

void Machine::release_scratch() {
  if (own_scratch_) scratch_ = Buffer();
}

void Machine::store_runs(const UserRunWriter& write_run) const {
  const auto start = Clock::now();
  const std::size_t wb = word_bytes();
  std::vector<unsigned char> rows_buf, tile_buf;
  for_each_block(layout_, scan_chunk_words(), [&](std::uint64_t node0, std::uint64_t a, std::uint64_t rows,
                                                  std::uint64_t cols) {
    rows_buf.resize(rows * cols * wb);
    tile_buf.resize(rows * cols * wb);
    backend_->read_storage(storage_, layout_.index(node0, a) * wb, tile_buf.data(), tile_buf.size());
    for (std::uint64_t r = 0; r < rows; ++r)
      for (std::uint64_t c = 0; c < cols; ++c)
        std::memcpy(&rows_buf[(r * cols + c) * wb], &tile_buf[(c * rows + r) * wb], wb);
    for (std::uint64_t r = 0; r < rows; ++r) write_run(geometry().global(node0 + r, a), cols, &rows_buf[r * cols * wb]);
  });
  counters_.add_phase("copy-out", seconds_since(start));
}

void Machine::store_in_order(const UserRunWriter& write_run) const {
  const std::size_t wb = word_bytes();
  const std::uint64_t tile_words = geometry().words_per_node() << layout_.t;
  std::vector<unsigned char> tile(tile_words * wb);
  std::uint64_t base = 0;  // the global address of the tile being gathered
  store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) {
    if (g >= base + tile_words) {
      write_run(base, tile_words, tile.data());
      base += tile_words;
    }
    if (g < base || g + words > base + tile_words) throw Error("internal: store_runs left its tile");
    std::memcpy(&tile[(g - base) * wb], src, words * wb);
  });
  write_run(base, tile_words, tile.data());
}

std::vector<std::uint64_t> Machine::storage_indices(const std::uint64_t* global, std::uint64_t count,
                                                    const char* what) const {
  const Geometry& geo = geometry();
  std::vector<std::uint64_t> index(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    if (global[i] >= geo.total_words())
      throw Error(fmt::format("{}: global address {} is outside the machine's {} words", what, global[i],
                              geo.total_words()));
    index[i] = layout_.index(geo.node_of(global[i]), geo.local_of(global[i]));
  }
  return index;
}

void Machine::gather(const std::uint64_t* global, std::uint64_t count, void* dst, const char* phase) const {
  const std::vector<std::uint64_t> index = storage_indices(global, count, "gather");
  const auto start = Clock::now();
  backend_->gather_words(storage_, index.data(), count, word_bytes(), dst);
  counters_.add_phase(phase, seconds_since(start));
}

void Machine::scatter(const std::uint64_t* global, std::uint64_t count, const void* src, const char* phase) {
  const std::vector<std::uint64_t> index = storage_indices(global, count, "scatter");
  const auto start = Clock::now();
  backend_->scatter_words(storage_, index.data(), count, word_bytes(), src);
  backend_->synchronize();
  counters_.add_phase(phase, seconds_since(start));
}

void Machine::gather(const std::uint64_t* global, std::uint64_t count, Buffer& packed, std::uint64_t at,
                     const char* phase) const {
  if ((at + count) * word_bytes() > packed.bytes())
    throw Error(fmt::format("gather of {} words from word {} into a buffer of {} bytes", count, at, packed.bytes()));
  const std::vector<std::uint64_t> index = storage_indices(global, count, "gather");
  const auto start = Clock::now();
  backend_->gather_words_into(storage_, index.data(), count, word_bytes(), packed, at);
  counters_.add_phase(phase, seconds_since(start));
}

void Machine::scatter(const std::uint64_t* global, std::uint64_t count, const Buffer& packed, std::uint64_t at,
                      const char* phase) {
  if ((at + count) * word_bytes() > packed.bytes())
    throw Error(fmt::format("scatter of {} words from word {} of a buffer of {} bytes", count, at, packed.bytes()));
  const std::vector<std::uint64_t> index = storage_indices(global, count, "scatter");
  const auto start = Clock::now();
  backend_->scatter_words_from(storage_, index.data(), count, word_bytes(), packed, at);
  counters_.add_phase(phase, seconds_since(start));
}

namespace {

// Throws unless the exchanges' words, packed from word `at`, fit in `packed` and their addresses in a node.
void check_exchange_words(const Geometry& geo, const Exchange* exchanges, std::size_t count, const OffsetMaps& maps,
                          const Buffer& packed, std::uint64_t at, std::size_t wb, const char* what) {
  const std::uint64_t words = std::uint64_t{count} << geo.n;
  if ((at + words) * wb > packed.bytes())
    throw Error(fmt::format("{} of {} words from word {} of a buffer of {} bytes", what, words, at, packed.bytes()));
  for (std::size_t e = 0; e < count; ++e) {
    const Exchange& x = exchanges[e];
    if (x.addr >= geo.words_per_node() || x.peer_addr >= geo.words_per_node() || x.offset_map > maps.size())
      throw Error(fmt::format("{}: exchange {} (addresses {}, {}, map {}) is outside the machine's {} words a node "
                              "and {} maps", what, e, x.addr, x.peer_addr, x.offset_map, geo.words_per_node(),
                              maps.size()));
  }
}

}  // namespace

void Machine::exchange_words(const Exchange* exchanges, std::size_t count, bool upper, const OffsetMaps& maps,
                             Buffer& packed, std::uint64_t at, LocalDirection direction, const char* phase) {
  const bool gather = direction == LocalDirection::gather;
  check_exchange_words(geometry(), exchanges, count, maps, packed, at, word_bytes(), gather ? "gather" : "scatter");
  unsigned bytes = 0;
  const std::vector<std::uint64_t> tables = offset_tables(maps, bytes);
  const auto start = Clock::now();
  backend_->exchange_words(storage_, layout_, word_bytes(), exchanges, count, upper, tables, bytes, packed, at, gather);
  counters_.add_phase(phase, seconds_since(start));
}

void check_labels_fit(const Geometry& geo, ElementType type) {
  const ElementInfo& ti = info(type);
  if (geo.address_bits() > ti.label_bits)
    throw Error(fmt::format("labels need {} address bits but {} holds distinct integers up to 2^{}: allowed n + m <= {} "
                            "for labelled data of this type",
                            geo.address_bits(), ti.name, ti.label_bits, ti.label_bits));
}

namespace {

// The label the word at storage index s holds, label_at(base + g(s)), as a map
// of s: the storage index is a bit permutation of the global address
// (Layout::storage_bit), and base lies above the machine's address bits.
AffineAddressMap storage_labels(const Layout& layout, const AffineAddressMap& label_at, std::uint64_t base) {
  const unsigned q = layout.geo.address_bits();
  if (label_at.bits() < q || (q < 64 && (base & low_mask(q)) != 0) ||
      (label_at.bits() < 64 && (base >> label_at.bits()) != 0))
    throw Error(fmt::format("internal: labels of a {}-bit map for a machine of {} address bits at base {}",
                            label_at.bits(), q, base));
  AffineAddressMap r;
  r.columns.assign(q, 0);
  for (unsigned g = 0; g < q; ++g) r.columns[layout.storage_bit(g)] = label_at.columns[g];
  r.constant = label_at(base);
  return r;
}

}  // namespace

void Machine::load_labels() {
  check_labels_fit(geometry(), type_);
  load_labels(AffineAddressMap::identity(geometry().address_bits()));
}

void Machine::load_labels(const AffineAddressMap& label_at) {
  // Every value is an xor of the columns and the constant: their highest bit bounds them all.
  std::uint64_t any = label_at.constant;
  for (const std::uint64_t c : label_at.columns) any |= c;
  const ElementInfo& ti = info(type_);
  if (ti.label_bits < 64 && (any >> ti.label_bits) != 0)
    throw Error(fmt::format("labels reach bit {} but {} holds distinct integers up to 2^{}: a window of at most {} "
                            "address bits (label_windows)",
                            63 - __builtin_clzll(any), ti.name, ti.label_bits, ti.label_bits));
  const auto start = Clock::now();
  backend_->fill_labels(storage_, geometry().total_words(), type_, storage_labels(layout_, label_at, 0));
  counters_.add_phase("copy-in", finish(start));
}

AffineAddressMap LabelWindow::map(unsigned address_bits) const {
  AffineAddressMap r;
  r.columns.assign(address_bits, 0);
  for (unsigned i = 0; i < width && lo + i < address_bits; ++i) r.columns[lo + i] = bit(i);
  return r;
}

std::vector<LabelWindow> label_windows(const Geometry& geo, ElementType type, unsigned width) {
  const ElementInfo& ti = info(type);
  if (width > ti.label_bits)
    throw Error(fmt::format("label windows of {} bits but {} holds distinct integers up to 2^{}: allowed width <= {}",
                            width, ti.name, ti.label_bits, ti.label_bits));
  const unsigned w = width == 0 ? ti.label_bits : width, q = geo.address_bits();
  std::vector<LabelWindow> windows;
  for (unsigned lo = 0; lo < q; lo += w) windows.push_back(LabelWindow{lo, std::min(w, q - lo)});
  return windows;
}

Machine::LabelCheck Machine::count_label_mismatches(const AffineAddressMap& label_at, std::uint64_t base) const {
  const AffineAddressMap at_storage = storage_labels(layout_, label_at, base);
  const auto start = Clock::now();
  const kernels::LabelTally tally = backend_->tally_labels(storage_, geometry().total_words(), type_, at_storage);
  counters_.add_phase("verify", seconds_since(start));
  LabelCheck check{tally.mismatches, 0};
  if (tally.mismatches != 0) check.first = geometry().global(layout_.node_at(tally.first), layout_.local_at(tally.first));
  return check;
}

std::uint64_t Machine::scan_chunk_words() const {
  return std::min(geometry().total_words(), std::max<std::uint64_t>(1, kScanChunkBytes / word_bytes()));
}

void Machine::scan_storage(const ChunkVisitor& f) const {
  const auto start = Clock::now();
  const std::uint64_t chunk = scan_chunk_words(), wb = word_bytes();
  std::vector<unsigned char> host(chunk * wb);
  for (std::uint64_t first = 0; first < geometry().total_words(); first += chunk) {
    backend_->read_storage(storage_, first * wb, host.data(), host.size());
    f(first, chunk, host.data());
  }
  counters_.add_phase("copy-out", seconds_since(start));
}

std::vector<unsigned char> Machine::read() const {
  std::vector<unsigned char> out(bytes());
  read(out.data(), out.size());
  return out;
}

void Machine::read(void* dst, std::uint64_t n_bytes) const {
  if (n_bytes != bytes()) throw Error(fmt::format("output buffer holds {} bytes: expected {}", n_bytes, bytes()));
  const auto start = Clock::now();
  backend_->to_user(storage_, dst, layout_, word_bytes());
  backend_->synchronize();
  counters_.add_phase("copy-out", seconds_since(start));
}

void Machine::account_cycle(const CycleUse& use) {
  ++counters_.routing_cycles;
  counters_.element_hops += use.element_hops;
  counters_.links_used_per_cycle.push_back(use.links_used);
  // Each exchange reads and writes one word per node.
  counters_.bytes_read += use.element_hops * word_bytes();
  counters_.bytes_written += use.element_hops * word_bytes();
}

void Machine::run_cycle(const Cycle& cycle, const PortRules& rules, const OffsetMaps& maps) {
  check_offset_maps(geometry(), maps);
  check_cycle(geometry(), cycle, rules, counters_.routing_cycles, maps);
  run_checked_cycle(cycle, maps);
}

void Machine::run_checked_cycle(const Cycle& cycle, const OffsetMaps& maps) {
  unsigned bytes = 0;
  const std::vector<std::uint64_t> tables = offset_tables(maps, bytes);
  const auto start = Clock::now();
  backend_->exchange(storage_, layout_, word_bytes(), cycle.data(), cycle.size(), tables, bytes);
  account_launch("routing", finish(start));
  account_cycle(cycle_use(geometry(), cycle));
}

ScheduleStats Machine::run_cycles(const Schedule& s, const Progress& progress) {
  ScheduleStats stats = check_schedule(s);
  run_checked_cycles(s, progress);
  return stats;
}

void Machine::check_geometry(const Schedule& s) const {
  const Geometry& geo = geometry();
  if (s.n != geo.n || s.m != geo.m)
    throw Error(fmt::format("schedule is for n = {}, m = {}: the machine has n = {}, m = {}", s.n, s.m, geo.n, geo.m));
}

void Machine::run_checked_cycles(const Schedule& s, const Progress& progress) { launch_cycles(s, progress, true); }

void Machine::run_cycle_parts(const Schedule& parts) { launch_cycles(parts, {}, false); }

void Machine::launch_cycles(const Schedule& s, const Progress& progress, bool count_cycles) {
  check_geometry(s);
  const Geometry& geo = geometry();
  const std::size_t total = s.cycles(), every = std::max<std::size_t>(1, total / 100);
  unsigned bytes = 0;
  const std::vector<std::uint64_t> tables = offset_tables(s.offset_maps, bytes);
  // Batches of cycles, one submission each (a CUDA graph on the GPU): at most
  // the backend's batch, and with a progress report, about one a percent.
  const std::size_t most = backend_->cycles_per_batch(launch_);
  const std::size_t batch = progress ? std::clamp<std::size_t>(every, std::min<std::size_t>(64, most), most) : most;
  std::vector<std::size_t> ends;
  const auto start = Clock::now();
  for (std::size_t first = 0; first < total; first += batch) {
    const std::size_t last = std::min(total, first + batch);
    ends.clear();
    for (std::size_t c = first; c < last; ++c) {
      ends.push_back(static_cast<std::size_t>(s.cycle_begin(c) + s.cycle_size(c) - s.cycle_begin(first)));
      if (count_cycles) account_cycle(cycle_use(geo, s.cycle_begin(c), s.cycle_size(c)));
    }
    // The launches as they happened: a cycle each, or one persistent launch a batch.
    counters_.kernel_launches +=
        backend_->exchange_cycles(storage_, layout_, word_bytes(), s.cycle_begin(first), ends, tables, bytes, launch_);
    if (progress) progress(last, total);
  }
  counters_.add_phase("routing", finish(start));
}

void Machine::align(const AffineMap& map) { align(AlignmentStep(map)); }

void Machine::align(const AlignmentStep& step) {
  const Geometry& geo = geometry();
  const AffineMap& map = step.map;
  if (map.geometry().n != geo.n || map.geometry().m != geo.m)
    throw Error(fmt::format("alignment is for n = {}, m = {}: the machine has n = {}, m = {}", map.geometry().n,
                            map.geometry().m, geo.n, geo.m));
  if (gf2_rank(map.mem_columns()) != geo.m)
    throw Error("alignment is not a bijection: its memory-bit matrix M is singular");
  check_alignment_step(step);
  const AffineTables tables = make_tables(map);
  std::uint64_t moved = 0;
  const auto start = Clock::now();
  if (map.is_involution()) {
    // Pairs swap in place; a pure xor map moves the words of every node with a non-zero offset.
    backend_->align_in_place(storage_, layout_, word_bytes(), tables, step.lo, step.end());
    moved = (map.is_pure_xor() ? map.moving_nodes() : geo.nodes()) * (step.end() - step.lo);
  } else {
    scratch();
    backend_->align_copy(storage_, scratch_, layout_, word_bytes(), tables);
    std::swap(storage_, scratch_);
    moved = geo.total_words();
  }
  account_launch("alignment", finish(start));
  if (settle_each_step_) settle();
  ++counters_.alignments;
  counters_.bytes_read += moved * word_bytes();
  counters_.bytes_written += moved * word_bytes();
}

void check_address_permutation(const Geometry& geo, const std::vector<unsigned>& to) {
  const unsigned q = geo.address_bits();
  if (to.size() != q)
    throw Error(fmt::format("address bit permutation lists {} bits: expected n + m = {}", to.size(), q));
  check_bit_permutation(to, "address bit permutation");
}

void Machine::permute_pass(const Buffer& src, Buffer& dst, const std::vector<unsigned>& storage_to) {
  const auto start = Clock::now();
  backend_->permute_bits(src, dst, word_bytes(), storage_to);
  account_launch("permute", finish(start));
  counters_.bytes_read += bytes();
  counters_.bytes_written += bytes();
}

void Machine::permute_address_bits(const std::vector<unsigned>& to) {
  check_address_permutation(geometry(), to);
  // The storage index is itself a permutation of the address bits (layout.hpp),
  // so the fused pass permutes storage index bits.
  const unsigned q = geometry().address_bits();
  std::vector<unsigned> storage_to(q);
  for (unsigned g = 0; g < q; ++g) storage_to[layout_.storage_bit(g)] = layout_.storage_bit(to[g]);
  scratch();
  permute_pass(storage_, scratch_, storage_to);
  std::swap(storage_, scratch_);
  if (settle_each_step_) settle();
}

namespace {

// Storage bit storage_bit(g) holds address bit g, which goes to bit to[g] of the user's index.
std::vector<unsigned> storage_to_user(const Layout& layout, const std::vector<unsigned>& to) {
  std::vector<unsigned> storage_to(to.size());
  for (unsigned g = 0; g < to.size(); ++g) storage_to[layout.storage_bit(g)] = to[g];
  return storage_to;
}

// Bit p of the user's index is address bit p, which goes to address bit to[p], at its storage bit.
std::vector<unsigned> user_to_storage(const Layout& layout, const std::vector<unsigned>& to) {
  std::vector<unsigned> storage_to(to.size());
  for (unsigned p = 0; p < to.size(); ++p) storage_to[p] = layout.storage_bit(to[p]);
  return storage_to;
}

}  // namespace

void Machine::read_permuted(const std::vector<unsigned>& to, void* dst, std::uint64_t n_bytes) {
  if (n_bytes != bytes()) throw Error(fmt::format("output buffer holds {} bytes: expected {}", n_bytes, bytes()));
  check_address_permutation(geometry(), to);
  scratch();
  permute_pass(storage_, scratch_, storage_to_user(layout_, to));
  const auto out = Clock::now();
  backend_->read_storage(scratch_, 0, dst, n_bytes);
  backend_->synchronize();
  counters_.add_phase("copy-out", seconds_since(out));
}

void Machine::read_permuted(const std::vector<unsigned>& to, Buffer& dst) {
  if (dst.bytes() < bytes()) throw Error(fmt::format("output buffer holds {} bytes: expected {}", dst.bytes(), bytes()));
  check_address_permutation(geometry(), to);
  permute_pass(storage_, dst, storage_to_user(layout_, to));
}

void Machine::load_permuted(const std::vector<unsigned>& to, const void* src, std::uint64_t n_bytes) {
  if (n_bytes != bytes())
    throw Error(fmt::format("input holds {} bytes: a machine of {} {} words needs {}", n_bytes,
                            geometry().total_words(), info(type_).name, bytes()));
  check_address_permutation(geometry(), to);
  scratch();
  const auto in = Clock::now();
  backend_->write_storage(src, scratch_, 0, n_bytes);
  counters_.add_phase("copy-in", seconds_since(in));
  permute_pass(scratch_, storage_, user_to_storage(layout_, to));
  if (settle_each_step_) settle();
}

void Machine::load_permuted(const std::vector<unsigned>& to, const Buffer& src) {
  if (src.bytes() < bytes())
    throw Error(fmt::format("input holds {} bytes: a machine of {} {} words needs {}", src.bytes(),
                            geometry().total_words(), info(type_).name, bytes()));
  check_address_permutation(geometry(), to);
  permute_pass(src, storage_, user_to_storage(layout_, to));
  if (settle_each_step_) settle();
}

void Machine::permute_local(const std::vector<std::uint64_t>& from, const LocalRegion& region) {
  const std::uint64_t nodes = region_nodes(region);
  if (from.empty() || from.size() % nodes != 0)
    throw Error(fmt::format("local permutation table holds {} entries: expected a positive multiple of the {} nodes",
                            from.size(), nodes));
  permute_local(BlockTable::explicit_entries(from, nodes), from.size() / nodes, region, LocalDirection::gather);
}

std::uint64_t Machine::region_nodes(const LocalRegion& region) const {
  const Geometry& geo = geometry();
  if (region.first_node >= geo.nodes() || region.nodes > geo.nodes() - region.first_node)
    throw Error(fmt::format("local permutation of nodes {} + {}: {}", region.first_node, region.nodes,
                            allowed_indices(geo.nodes(), "nodes")));
  return region.nodes == 0 ? geo.nodes() - region.first_node : region.nodes;
}

void Machine::permute_local(const BlockTable& table, std::uint64_t blocks, const LocalRegion& region,
                            LocalDirection direction) {
  const std::uint64_t K = geometry().words_per_node(), lo = region.lo, block_words = region.block_words;
  const std::uint64_t nodes = region_nodes(region);
  if (block_words == 0 || lo > K || blocks > (K - lo) / block_words)
    throw Error(fmt::format("local permutation of {} blocks of {} words from address {}: the region must fit in K = {}",
                            blocks, block_words, lo, K));
  const std::uint64_t expected = (table.has_step ? 2 : 1) * nodes * table.period + (table.has_valid ? nodes : 0);
  if (table.nodes != nodes || table.period == 0 || table.words.size() != expected)
    throw Error(fmt::format("local permutation table of {} entries for {} nodes, period {}: expected {} for the {} "
                            "nodes of the region",
                            table.words.size(), table.nodes, table.period, expected, nodes));
  // Each node's entries must be a permutation of 0..blocks-1: a bit a block, reused node after node.
  std::vector<bool> seen(blocks);
  const kernels::BlockTableView entries = table.view(table.words.data());
  for (std::uint64_t k = 0; k < nodes; ++k) {
    std::fill(seen.begin(), seen.end(), false);
    for (std::uint64_t f = 0; f < blocks; ++f) {
      const std::uint64_t b = entries.at(k, f);
      if (b >= blocks)
        throw Error(fmt::format("local permutation: node {} block {} takes block {}: {}", region.first_node + k, f, b,
                                allowed_indices(blocks, "blocks")));
      if (seen[b])
        throw Error(fmt::format("local permutation is not a bijection: node {} takes block {} twice",
                                region.first_node + k, b));
      seen[b] = true;
    }
  }
  const kernels::BlockRegion r{region.first_node, nodes, lo, block_words, blocks};
  // The dense scratch holds the region's words only; a machine scratch already there serves.
  Buffer own;
  if (!scratch_) own = backend_->allocate(r.words() * word_bytes());
  Buffer& dense = scratch_ ? scratch_ : own;
  const auto start = Clock::now();
  backend_->local_pass(storage_, dense, layout_, word_bytes(), &table, r,
                       direction == LocalDirection::gather ? kernels::LocalPass::gather : kernels::LocalPass::scatter);
  backend_->local_pass(dense, storage_, layout_, word_bytes(), nullptr, r, kernels::LocalPass::store);
  account_launch("local", finish(start));
  ++counters_.kernel_launches;  // the store back
  const std::uint64_t moved = 2 * r.words() * word_bytes();
  counters_.bytes_read += moved;
  counters_.bytes_written += moved;
}

RouterStepReport Machine::route(const RouterStep& step, const RouterLimits& limits) {
  const RouterStepReport rep = check_router_step(geometry(), step, limits);
  const auto start = Clock::now();
  backend_->route(storage_, layout_, word_bytes(), step);
  count_router_steps(rep, 1, finish(start));
  return rep;
}

RouterStepReport Machine::route_blocks(const std::vector<BlockRouteStep>& steps) {
  const RouterStepReport rep = check_block_route(geometry(), steps);
  if (steps.empty()) return rep;
  // One launch of every step's messages (one block shape, checked), their entries one table.
  BlockRouteStep all = steps.front();
  all.messages.clear();
  all.from.clear();
  all.to.clear();
  for (const BlockRouteStep& s : steps) {
    for (BlockMessage m : s.messages) {
      m.first += all.from.size();
      all.messages.push_back(m);
    }
    all.from.insert(all.from.end(), s.from.begin(), s.from.end());
    all.to.insert(all.to.end(), s.to.begin(), s.to.end());
  }
  const auto start = Clock::now();
  backend_->route_blocks(storage_, layout_, word_bytes(), all);
  count_router_steps(rep, steps.size(), finish(start));
  return rep;
}

void Machine::count_router_steps(const RouterStepReport& rep, std::uint64_t steps, double seconds) {
  account_launch("router", seconds);
  counters_.router_steps += steps;
  counters_.router_contention += rep.contention;
  counters_.element_hops += rep.element_hops;
  counters_.bytes_read += rep.words * word_bytes();
  counters_.bytes_written += rep.words * word_bytes();
}

void Machine::check_complex(const char* what) const {
  if (type_ != ElementType::c64 && type_ != ElementType::c128)
    throw Error(fmt::format("{} run on complex64 or complex128 data: the machine holds {}", what, info(type_).name));
}

void Machine::fft_stage(unsigned mem_bit, unsigned index_bit, const AffineTables& index, bool inverse) {
  const Geometry& geo = geometry();
  check_complex("FFT stages");
  if (mem_bit >= geo.m)
    throw Error(fmt::format("FFT stage on memory bit {} out of range: {}", mem_bit, allowed_indices(geo.m, "m")));
  if (index_bit >= 63) throw Error(fmt::format("FFT stage on index bit {} out of range: allowed 0..62", index_bit));
  const auto start = Clock::now();
  backend_->fft_stage(storage_, layout_, word_bytes(), index, mem_bit, index_bit, inverse);
  account_launch("fft", finish(start));
  counters_.bytes_read += bytes();
  counters_.bytes_written += bytes();
}

void Machine::fft_block(unsigned lo, unsigned h, std::uint64_t group_bits, const AffineTables& index, bool inverse) {
  const Geometry& geo = geometry();
  check_complex("FFT blocks");
  if (h < 1 || h > geo.m || popcount(group_bits) != h || group_bits >= bit(geo.m))
    throw Error(fmt::format("FFT block of {} index bits on local bits {:#x}: allowed 1..m = {} distinct local bits", h,
                            group_bits, geo.m));
  if (lo + h > 63) throw Error(fmt::format("FFT block on index bits {}..{} out of range: allowed up to 62", lo, lo + h - 1));
  scratch();
  const auto start = Clock::now();
  backend_->fft_block(storage_, scratch_, layout_, word_bytes(), index, group_bits, lo, h, inverse);
  // Gather, the library's transforms, scatter.
  account_launch("fft", finish(start));
  counters_.kernel_launches += 2;
  counters_.bytes_read += 3 * bytes();
  counters_.bytes_written += 3 * bytes();
}

void Machine::fft_block_then_align(unsigned lo, unsigned h, std::uint64_t group_bits, const AffineTables& index,
                                   bool inverse, const AffineMap& map) {
  const Geometry& geo = geometry();
  check_complex("FFT blocks");
  // Arguments fft_block or align would refuse go to them, which throw.
  const bool valid = h >= 1 && h <= geo.m && popcount(group_bits) == h && group_bits < bit(geo.m) && lo + h <= 63 &&
                     map.geometry().n == geo.n && map.geometry().m == geo.m &&
                     gf2_rank(map.mem_columns()) == geo.m;
  if (valid) {
    scratch();
    const AffineTables tables = make_tables(map);
    const auto start = Clock::now();
    if (backend_->fft_block_aligned(storage_, scratch_, layout_, word_bytes(), index, group_bits, lo, h, inverse,
                                    tables)) {
      std::swap(storage_, scratch_);
      account_launch("fft", finish(start));
      // What fft_block and align count: the model's launches, the alignment's words.
      counters_.kernel_launches += 3;
      ++counters_.alignments;
      counters_.bytes_read += 4 * bytes();
      counters_.bytes_written += 4 * bytes();
      if (settle_each_step_) settle();
      return;
    }
  }
  fft_block(lo, h, group_bits, index, inverse);
  align(map);
}

std::string Machine::dft_library() const { return backend_->dft_library(); }

}  // namespace hcube

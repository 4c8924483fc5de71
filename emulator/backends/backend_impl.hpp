// One implementation of the Backend interface for every backend, written
// against a small launch-and-memory policy (Kokkos style): backends/cpu and
// backends/cuda supply only the policy, so the kernels are driven the same way.
//
// A Policy provides:
//   static constexpr BackendKind kind;
//   std::string device_name() const;  std::uint64_t available_bytes() const;
//   Buffer allocate(std::uint64_t bytes, bool sparse);
//   template <class Body> void launch(std::uint64_t count, const Body& body);
//   template <class TileBody> void launch_tiles(const TileBody& body);  // kernels/permute.hpp's two phases
//   BitPermutationTiling plan_tiles(const std::vector<unsigned>& to, std::size_t word_bytes,
//                                   const void* dst) const;  // the tiles launch_tiles runs best
//   template <class W> void launch_exchanges(const kernels::ExchangeBody<W>& body, std::uint64_t count);
//   template <class W> std::uint64_t launch_exchange_cycles(const kernels::ExchangeBody<W>& body,  // a batch of
//       const std::vector<std::size_t>& ends, LaunchMode launch);  // cycles, one submission; returns the launches
//   std::size_t cycles_per_batch(LaunchMode launch) const;  // the most cycles one exchange_cycles call should take
//   LaunchStats launch_stats() const;
//   template <class W> void fill_labels(W* mem, std::uint64_t words, const kernels::LabelOf<W>& of);
//   template <class W> kernels::LabelTally tally_labels(const W* mem, std::uint64_t words,
//                                                       const kernels::LabelOf<W>& of);
//   template <class W> void launch_block_router(const kernels::BlockRouterBody<W>& body, std::uint64_t messages);
//   template <class W> void launch_align_xor(const kernels::AlignXorBody<W>& body,  // over every word;
//                                             const AffineTables& host_map);     // the map, host side
//   const void* stage(int slot, const void* host, std::size_t bytes);  // small parameter arrays, 2 slots
//   std::uint64_t max_chunk_bytes() const;        // copy-in/out granularity
//   const void* readable(const void* host, std::uint64_t bytes);  // host data a kernel can read
//   void* writable(void* host, std::uint64_t bytes);              // where a kernel writes host-bound data
//   void publish(void* host, const void* written, std::uint64_t bytes);  // completes a writable()
//   void copy_to_host(void* host, const void* storage, std::uint64_t bytes);    // raw, synchronous
//   void copy_from_host(void* storage, const void* host, std::uint64_t bytes);  // raw, synchronous
//   void synchronize();
//   std::unique_ptr<StreamTimer> start_timer();  // on the backend's clock (null while capturing)
//   void copy(const kernels::CopyBody& body, std::uint64_t words);  // the roofline copy
//   double spec_bytes_per_second() const;  // 0: unknown
//   void batched_dft(void* rows, std::uint64_t count, unsigned log2_length, std::size_t word_bytes, bool inverse);
//                                                 // in place, unscaled; complex64 or complex128
//   static constexpr const char* dft_library;
//   std::uint64_t dft_plans_made() const;  // library plans made, each kept for reuse
//   void set_stream(CudaStream stream);  CudaStream stream() const;  // where work is enqueued (CUDA)
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "hcube/emulator/backend.hpp"
#include "hcube/host/bit_permutation_tiling.hpp"
#include "hcube/core/error.hpp"
#include "hcube/kernels/alignment.hpp"
#include "hcube/kernels/block_router.hpp"
#include "hcube/kernels/copy.hpp"
#include "hcube/kernels/exchange.hpp"
#include "hcube/kernels/fft.hpp"
#include "hcube/kernels/gather_words.hpp"
#include "hcube/kernels/local_gather.hpp"
#include "hcube/kernels/permute.hpp"
#include "hcube/kernels/relayout.hpp"
#include "hcube/kernels/router.hpp"
#include "hcube/kernels/word.hpp"

namespace hcube {

template <class Policy>
class BackendImpl final : public Backend {
 public:
  template <class... Args>
  explicit BackendImpl(Args&&... args) : policy_(std::forward<Args>(args)...) {}

  BackendKind kind() const override { return Policy::kind; }
  std::string device_name() const override { return policy_.device_name(); }
  std::uint64_t available_bytes() const override { return policy_.available_bytes(); }

  Buffer allocate(std::uint64_t bytes, bool sparse = false) override {
    const std::uint64_t avail = policy_.available_bytes();
    if (bytes > avail)
      throw OutOfMemory(fmt::format("{} backend cannot allocate {} bytes: {} bytes available", to_string(kind()),
                                    bytes, avail));
    return policy_.allocate(bytes, sparse);
  }

  void to_storage(const void* user, Buffer& storage, const Layout& layout, std::size_t wb) override {
    for_each_chunk(layout, wb, [&](const Layout& sub, std::uint64_t first, std::uint64_t words) {
      const void* src = policy_.readable(static_cast<const char*>(user) + first * wb, words * wb);
      kernels::dispatch_word(wb, [&](auto w) {
        using W = decltype(w);
        policy_.launch(words, kernels::RelayoutBody<W, kernels::Direction::to_storage>{
                                  static_cast<const W*>(src), static_cast<W*>(storage.data()) + first, sub});
      });
    });
  }

  void to_user(const Buffer& storage, void* user, const Layout& layout, std::size_t wb) override {
    for_each_chunk(layout, wb, [&](const Layout& sub, std::uint64_t first, std::uint64_t words) {
      char* host = static_cast<char*>(user) + first * wb;
      void* dst = policy_.writable(host, words * wb);
      kernels::dispatch_word(wb, [&](auto w) {
        using W = decltype(w);
        policy_.launch(words, kernels::RelayoutBody<W, kernels::Direction::to_user>{
                                  static_cast<const W*>(storage.data()) + first, static_cast<W*>(dst), sub});
      });
      policy_.publish(host, dst, words * wb);
    });
  }

  void read_storage(const Buffer& storage, std::uint64_t first, void* host, std::uint64_t bytes) override {
    check_range(storage, first, bytes);
    policy_.copy_to_host(host, static_cast<const char*>(storage.data()) + first, bytes);
  }

  void write_storage(const void* host, Buffer& storage, std::uint64_t first, std::uint64_t bytes) override {
    check_range(storage, first, bytes);
    policy_.copy_from_host(static_cast<char*>(storage.data()) + first, host, bytes);
  }

  void gather_words(const Buffer& storage, const std::uint64_t* index, std::uint64_t count, std::size_t wb,
                    void* host) override {
    if (count == 0) return;
    const auto* idx = static_cast<const std::uint64_t*>(policy_.stage(0, index, count * sizeof(std::uint64_t)));
    void* dst = policy_.writable(host, count * wb);
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      const kernels::GatherWordsBody<W> body{static_cast<const W*>(storage.data()), idx, static_cast<W*>(dst)};
      policy_.launch(count, body);
    });
    policy_.publish(host, dst, count * wb);
  }

  void scatter_words(Buffer& storage, const std::uint64_t* index, std::uint64_t count, std::size_t wb,
                     const void* host) override {
    if (count == 0) return;
    const auto* idx = static_cast<const std::uint64_t*>(policy_.stage(0, index, count * sizeof(std::uint64_t)));
    const void* src = policy_.readable(host, count * wb);
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      const kernels::ScatterWordsBody<W> body{static_cast<W*>(storage.data()), idx, static_cast<const W*>(src)};
      policy_.launch(count, body);
    });
  }

  void gather_words_into(const Buffer& storage, const std::uint64_t* index, std::uint64_t count, std::size_t wb,
                         Buffer& packed, std::uint64_t at) override {
    if (count == 0) return;
    const auto* idx = static_cast<const std::uint64_t*>(policy_.stage(0, index, count * sizeof(std::uint64_t)));
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      const kernels::GatherWordsBody<W> body{static_cast<const W*>(storage.data()), idx,
                                             static_cast<W*>(packed.data()) + at};
      policy_.launch(count, body);
    });
    policy_.synchronize();
  }

  void scatter_words_from(Buffer& storage, const std::uint64_t* index, std::uint64_t count, std::size_t wb,
                          const Buffer& packed, std::uint64_t at) override {
    if (count == 0) return;
    const auto* idx = static_cast<const std::uint64_t*>(policy_.stage(0, index, count * sizeof(std::uint64_t)));
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      const kernels::ScatterWordsBody<W> body{static_cast<W*>(storage.data()), idx,
                                              static_cast<const W*>(packed.data()) + at};
      policy_.launch(count, body);
    });
    policy_.synchronize();
  }

  void exchange_words(Buffer& storage, const Layout& layout, std::size_t wb, const Exchange* exchanges,
                      std::size_t count, bool upper, const std::vector<std::uint64_t>& offset_tables,
                      unsigned offset_bytes, Buffer& packed, std::uint64_t at, bool to_packed) override {
    if (count == 0) return;
    const auto* ex = static_cast<const Exchange*>(policy_.stage(0, exchanges, count * sizeof(Exchange)));
    const auto* tables = static_cast<const std::uint64_t*>(
        policy_.stage(1, offset_tables.data(), offset_tables.size() * sizeof(std::uint64_t)));
    const kernels::ExchangeWords words{layout, ex, tables, offset_bytes, upper};
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      auto* mem = static_cast<W*>(storage.data());
      auto* buffer = static_cast<W*>(packed.data()) + at;
      if (to_packed)
        policy_.launch(std::uint64_t{count} << layout.geo.n, kernels::GatherExchangeWordsBody<W>{words, mem, buffer});
      else
        policy_.launch(std::uint64_t{count} << layout.geo.n, kernels::ScatterExchangeWordsBody<W>{words, mem, buffer});
    });
    policy_.synchronize();
  }

  Buffer allocate_pinned(std::uint64_t bytes) override { return policy_.allocate_pinned(bytes); }

  void exchange(Buffer& storage, const Layout& layout, std::size_t wb, const Exchange* exchanges,
                std::size_t count, const std::vector<std::uint64_t>& offset_tables, unsigned offset_bytes) override {
    if (count == 0) return;
    const auto* ex = static_cast<const Exchange*>(policy_.stage(0, exchanges, count * sizeof(Exchange)));
    const auto* tables = static_cast<const std::uint64_t*>(
        policy_.stage(1, offset_tables.data(), offset_tables.size() * sizeof(std::uint64_t)));
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      const kernels::ExchangeBody<W> body{static_cast<W*>(storage.data()), layout, ex, tables, offset_bytes};
      policy_.launch_exchanges(body, count);
    });
  }

  std::uint64_t exchange_cycles(Buffer& storage, const Layout& layout, std::size_t wb, const Exchange* exchanges,
                                const std::vector<std::size_t>& ends, const std::vector<std::uint64_t>& offset_tables,
                                unsigned offset_bytes, LaunchMode launch) override {
    // Per cycle, every cycle counts as its launch (an empty one too, as the machine model counts it).
    if (ends.empty() || ends.back() == 0) return launch == LaunchMode::per_cycle ? ends.size() : 0;
    const auto* ex = static_cast<const Exchange*>(policy_.stage(0, exchanges, ends.back() * sizeof(Exchange)));
    const auto* tables = static_cast<const std::uint64_t*>(
        policy_.stage(1, offset_tables.data(), offset_tables.size() * sizeof(std::uint64_t)));
    std::uint64_t launches = 0;
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      launches = policy_.launch_exchange_cycles(
          kernels::ExchangeBody<W>{static_cast<W*>(storage.data()), layout, ex, tables, offset_bytes}, ends, launch);
    });
    return launches;
  }
  std::size_t cycles_per_batch(LaunchMode launch) const override { return policy_.cycles_per_batch(launch); }
  LaunchStats launch_stats() const override { return policy_.launch_stats(); }

  void fill_labels(Buffer& storage, std::uint64_t words, ElementType type, const AffineAddressMap& label) override {
    StagedMap map;
    stage_map(label, map);
    kernels::dispatch_word(info(type).bytes, [&](auto w) {
      using W = decltype(w);
      policy_.fill_labels(static_cast<W*>(storage.data()), words, kernels::LabelOf<W>{map.view, label_code(type)});
    });
  }
  kernels::LabelTally tally_labels(const Buffer& storage, std::uint64_t words, ElementType type,
                                   const AffineAddressMap& label) override {
    StagedMap map;
    stage_map(label, map);
    kernels::LabelTally tally;
    kernels::dispatch_word(info(type).bytes, [&](auto w) {
      using W = decltype(w);
      tally = policy_.tally_labels(static_cast<const W*>(storage.data()), words,
                                   kernels::LabelOf<W>{map.view, label_code(type)});
    });
    return tally;
  }

  void align_in_place(Buffer& storage, const Layout& layout, std::size_t wb, const AffineTables& map,
                      std::uint64_t lo, std::uint64_t hi) override {
    const kernels::AffineView view = stage_tables(map);
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      policy_.launch_align_xor(kernels::AlignXorBody<W>{static_cast<W*>(storage.data()), layout, view, lo, hi}, map);
    });
  }

  void align_copy(const Buffer& src, Buffer& dst, const Layout& layout, std::size_t wb,
                  const AffineTables& map) override {
    const kernels::AffineView view = stage_tables(map);
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      policy_.launch(layout.geo.total_words(), kernels::AlignCopyBody<W>{static_cast<const W*>(src.data()),
                                                                         static_cast<W*>(dst.data()), layout, view});
    });
  }

  void local_pass(const Buffer& src, Buffer& dst, const Layout& layout, std::size_t wb, const BlockTable* table,
                  const kernels::BlockRegion& region, kernels::LocalPass pass) override {
    kernels::BlockTableView view;
    if (table != nullptr && !table->words.empty())
      view = table->view(static_cast<const std::uint64_t*>(
          policy_.stage(0, table->words.data(), table->words.size() * sizeof(std::uint64_t))));
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      policy_.launch(region.words(), kernels::LocalGatherBody<W>{static_cast<const W*>(src.data()),
                                                                 static_cast<W*>(dst.data()), layout, view, region,
                                                                 pass});
    });
  }

  void permute_bits(const Buffer& src, Buffer& dst, std::size_t wb, const std::vector<unsigned>& to) override {
    const BitPermutationTiling plan = policy_.plan_tiles(to, wb, dst.data());
    const kernels::TilingView view{
        static_cast<const std::uint64_t*>(policy_.stage(0, plan.table.data(), plan.table.size() * sizeof(std::uint64_t))),
        plan.tile_bits, plan.run_bits, plan.outer_bits};
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      policy_.launch_tiles(
          kernels::BitPermuteTileBody<W>{static_cast<const W*>(src.data()), static_cast<W*>(dst.data()), view});
    });
  }

  void route(Buffer& storage, const Layout& layout, std::size_t wb, const RouterStep& step) override {
    if (step.empty()) return;
    std::uint64_t longest = 0;
    for (const Message& m : step) longest = std::max(longest, m.length);
    const auto* msgs = static_cast<const Message*>(policy_.stage(0, step.data(), step.size() * sizeof(Message)));
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      policy_.launch(step.size() * longest, kernels::RouterBody<W>{static_cast<W*>(storage.data()), layout, msgs, longest});
    });
  }

  void route_blocks(Buffer& storage, const Layout& layout, std::size_t wb, const BlockRouteStep& step) override {
    if (step.messages.empty()) return;
    std::uint64_t longest = 0;
    for (const BlockMessage& m : step.messages) longest = std::max(longest, m.blocks * step.block_words);
    // The messages in slot 0, their from and to entries one after the other in slot 1.
    std::vector<std::uint64_t> entries(step.from);
    entries.insert(entries.end(), step.to.begin(), step.to.end());
    const auto* table =
        static_cast<const std::uint64_t*>(policy_.stage(1, entries.data(), entries.size() * sizeof(std::uint64_t)));
    const kernels::BlockRouteView view{
        static_cast<const BlockMessage*>(policy_.stage(0, step.messages.data(), step.messages.size() * sizeof(BlockMessage))),
        table, table + step.from.size(), step.src_lo, step.dst_lo, step.block_words, step.from_step, step.to_step};
    kernels::dispatch_word(wb, [&](auto w) {
      using W = decltype(w);
      policy_.launch_block_router(kernels::BlockRouterBody<W>{static_cast<W*>(storage.data()), layout, view, longest},
                                  step.messages.size());
    });
  }

  void fft_stage(Buffer& storage, const Layout& layout, std::size_t wb, const AffineTables& index, unsigned mem_bit,
                 unsigned index_bit, bool inverse) override {
    const kernels::AffineView view = stage_tables(index);
    const auto run = [&](auto c) {
      using C = decltype(c);
      const kernels::FftStageBody<C> body{static_cast<C*>(storage.data()), layout, view, mem_bit + layout.t, index_bit,
                                          inverse ? 1.0 : -1.0};
      policy_.launch(body.count(), body);
    };
    dispatch_complex(wb, run);
  }

  void fft_block(Buffer& storage, Buffer& scratch, const Layout& layout, std::size_t wb, const AffineTables& index,
                 std::uint64_t group_bits, unsigned lo, unsigned h, bool inverse) override {
    const kernels::FftBlockShape shape{layout, stage_tables(index), group_bits, lo, h};
    const std::uint64_t words = layout.geo.total_words();
    const auto run = [&](auto c) {
      using C = decltype(c);
      if constexpr (Policy::kind == BackendKind::cpu)
        if (policy_.fft_block_chunks(static_cast<C*>(storage.data()), static_cast<C*>(nullptr), shape, inverse,
                                     nullptr))
          return;
      policy_.launch(words, kernels::FftGatherBody<C>{static_cast<const C*>(storage.data()),
                                                       static_cast<C*>(scratch.data()), shape});
      policy_.batched_dft(scratch.data(), words >> h, h, wb, inverse);
      policy_.launch(words, kernels::FftScatterBody<C>{static_cast<C*>(storage.data()),
                                                        static_cast<const C*>(scratch.data()), shape,
                                                        inverse ? 1.0 : -1.0});
    };
    dispatch_complex(wb, run);
  }

  // The CPU's chunks write anywhere at no extra cost; CUDA's launches do not fuse.
  bool fft_block_aligned(Buffer& storage, Buffer& scratch, const Layout& layout, std::size_t wb,
                         const AffineTables& index, std::uint64_t group_bits, unsigned lo, unsigned h, bool inverse,
                         const AffineTables& align) override {
    bool done = false;
    if constexpr (Policy::kind == BackendKind::cpu) {
      const kernels::FftBlockShape shape{layout, stage_tables(index), group_bits, lo, h};
      // Host tables: the CPU reads them in place (stage_tables' slots hold the index's).
      const kernels::AffineView to{align.mem.data(), align.node.data(), align.mem_bytes, align.node_bytes,
                                   align.constant};
      dispatch_complex(wb, [&](auto c) {
        using C = decltype(c);
        done = policy_.fft_block_chunks(static_cast<C*>(storage.data()), static_cast<C*>(scratch.data()), shape,
                                        inverse, &to);
      });
    }
    return done;
  }

  std::string dft_library() const override { return Policy::dft_library; }
  std::uint64_t dft_plans_made() const override { return policy_.dft_plans_made(); }

  void set_stream(CudaStream stream) override { policy_.set_stream(stream); }
  CudaStream stream() const override { return policy_.stream(); }
  bool capturing() const override {
    if constexpr (Policy::kind == BackendKind::cuda) return policy_.capturing();
    return false;
  }
  // A device and its streams are the GPU's alone: the CPU keeps Backend's defaults.
  void reset_stream() noexcept override {
    if constexpr (Policy::kind == BackendKind::cuda) policy_.reset_stream();
  }
  int cuda_device() const override {
    if constexpr (Policy::kind == BackendKind::cuda) return policy_.cuda_device();
    return -1;
  }
  int enter_device() override {
    if constexpr (Policy::kind == BackendKind::cuda) return policy_.enter_device();
    return -1;
  }
  void leave_device([[maybe_unused]] int previous) noexcept override {
    if constexpr (Policy::kind == BackendKind::cuda) policy_.leave_device(previous);
  }
  void check_device_buffer([[maybe_unused]] const void* p, [[maybe_unused]] std::uint64_t bytes,
                           [[maybe_unused]] const std::string& what) const override {
    if constexpr (Policy::kind == BackendKind::cuda) policy_.check_device_buffer(p, bytes, what);
  }

  std::unique_ptr<StreamTimer> start_timer() override { return policy_.start_timer(); }

  std::function<double()> copy_timer(std::uint64_t bytes) override {
    const std::uint64_t words = std::max<std::uint64_t>(1, bytes / sizeof(kernels::Word16));
    auto a = std::make_shared<Buffer>(allocate(words * sizeof(kernels::Word16)));
    auto b = std::make_shared<Buffer>(allocate(words * sizeof(kernels::Word16)));
    // Write the source once: on Linux a never-written page reads as the shared
    // zero page, which stays in cache and made memcpy look 1.6 times faster.
    const auto* from = static_cast<const kernels::Word16*>(b->data());
    policy_.copy(kernels::CopyBody{from, static_cast<kernels::Word16*>(a->data())}, words);
    return [this, a, b, words] {
      const kernels::CopyBody copy{static_cast<const kernels::Word16*>(a->data()),
                                   static_cast<kernels::Word16*>(b->data())};
      return timed([&] { policy_.copy(copy, words); });
    };
  }

  double spec_bytes_per_second() const override { return policy_.spec_bytes_per_second(); }

  void synchronize() override { policy_.synchronize(); }

 private:
  static void check_range(const Buffer& storage, std::uint64_t first, std::uint64_t bytes) {
    if (first > storage.bytes() || bytes > storage.bytes() - first)
      throw Error(fmt::format("internal: bytes {}..{} are outside a buffer of {} bytes", first, first + bytes,
                              storage.bytes()));
  }

  // Calls f with a Complex64 or Complex128 value, by word size.
  template <class F>
  static void dispatch_complex(std::size_t wb, F&& f) {
    if (wb == sizeof(kernels::Complex64))
      f(kernels::Complex64{});
    else if (wb == sizeof(kernels::Complex128))
      f(kernels::Complex128{});
    else
      throw Error("internal: FFT kernels run on complex64 or complex128 words only");
  }

  // An address map's byte tables, kept as long as the kernels may read them
  // from the host (the CPU stages nothing), and their view in slot 0.
  struct StagedMap {
    std::vector<std::uint64_t> tables;
    kernels::LinearView view;
  };
  void stage_map(const AffineAddressMap& map, StagedMap& out) {
    unsigned bytes = 0;
    out.tables = byte_tables(map.columns, bytes);
    out.view = kernels::LinearView{static_cast<const std::uint64_t*>(policy_.stage(
                                       0, out.tables.data(), out.tables.size() * sizeof(std::uint64_t))),
                                   bytes, map.constant};
  }

  kernels::AffineView stage_tables(const AffineTables& map) {
    return kernels::AffineView{
        static_cast<const std::uint64_t*>(policy_.stage(0, map.mem.data(), map.mem.size() * sizeof(std::uint64_t))),
        static_cast<const std::uint64_t*>(policy_.stage(1, map.node.data(), map.node.size() * sizeof(std::uint64_t))),
        map.mem_bytes, map.node_bytes, map.constant};
  }

  // Copy-in/out runs over subcubes of whole tiles, which are contiguous both in
  // the user's order and in storage, each at most max_chunk_bytes (or one tile).
  template <class F>
  void for_each_chunk(const Layout& layout, std::size_t wb, F&& f) {
    const Geometry& geo = layout.geo;
    unsigned sub_n = layout.t;
    while (sub_n < geo.n && (geo.words_per_node() << (sub_n + 1)) * wb <= policy_.max_chunk_bytes()) ++sub_n;
    const Layout sub{Geometry{sub_n, geo.m}, layout.t};
    const std::uint64_t words = sub.geo.total_words();
    for (std::uint64_t first = 0; first < geo.total_words(); first += words) f(sub, first, words);
  }

  Policy policy_;
};

}  // namespace hcube

// The CPU backend: kernels run on host memory through the OpenMP launcher.
#include <fftw3.h>
#include <fmt/format.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include "../backend_impl.hpp"
#include "hcube/emulator/wisdom.hpp"
#include "hcube/host/system/host_memory.hpp"
#include "hcube/backends/cpu/alignment.hpp"
#include "hcube/backends/cpu/block_router.hpp"
#include "hcube/backends/cpu/exchange.hpp"
#include "hcube/backends/cpu/exchange_words.hpp"
#include "hcube/backends/cpu/fft_block.hpp"
#include "hcube/backends/cpu/launch.hpp"
#include "hcube/backends/cpu/tuning.hpp"

namespace hcube {
namespace {

using namespace kernels::cpu::tuning;

// FFTW's planner and plan destruction may run on one thread at a time in the
// whole process (only execution is thread-safe): one lock for every CPU backend.
std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

// FFTW's threads library, started once per process before the first plan.
void start_fftw_threads() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (fftw_init_threads() == 0 || fftwf_init_threads() == 0)
      throw Error("FFTW's threads library could not start (fftw_init_threads returned 0)");
    // Planners outside this file (the reference transform, a user's own) then
    // take FFTW's lock too, so they cannot race ours.
    fftw_make_planner_thread_safe();
    fftwf_make_planner_thread_safe();
  });
}

// FFTW's double and single precision interfaces behind one name.
template <std::size_t WordBytes>
struct Fftw;
template <>
struct Fftw<16> {
  using Plan = fftw_plan;
  using Complex = fftw_complex;
  static constexpr const char* name = "complex128";
  static Plan plan_rows(int n, int howmany, Complex* in, int istride, int idist, Complex* out, int sign) {
    return fftw_plan_many_dft(1, &n, howmany, in, nullptr, istride, idist, out, nullptr, 1, n, sign, FFTW_ESTIMATE);
  }
  static void execute(Plan plan, Complex* in, Complex* out) { fftw_execute_dft(plan, in, out); }
  static void destroy(Plan plan) { fftw_destroy_plan(plan); }
  static int alignment_of(Complex* p) { return fftw_alignment_of(reinterpret_cast<double*>(p)); }
  static int planner_threads() { return fftw_planner_nthreads(); }
  static void plan_with_threads(int threads) { fftw_plan_with_nthreads(threads); }
};
template <>
struct Fftw<8> {
  using Plan = fftwf_plan;
  using Complex = fftwf_complex;
  static constexpr const char* name = "complex64";
  static Plan plan_rows(int n, int howmany, Complex* in, int istride, int idist, Complex* out, int sign) {
    return fftwf_plan_many_dft(1, &n, howmany, in, nullptr, istride, idist, out, nullptr, 1, n, sign, FFTW_ESTIMATE);
  }
  static void execute(Plan plan, Complex* in, Complex* out) { fftwf_execute_dft(plan, in, out); }
  static void destroy(Plan plan) { fftwf_destroy_plan(plan); }
  static int alignment_of(Complex* p) { return fftwf_alignment_of(reinterpret_cast<float*>(p)); }
  static int planner_threads() { return fftwf_planner_nthreads(); }
  static void plan_with_threads(int threads) { fftwf_plan_with_nthreads(threads); }
};

// FFTW plans for in-place batches of contiguous rows, made once per shape and
// kept until the backend dies: planning costs more than a small transform, and
// the new-array execute interface lets one plan serve any rows of the same
// alignment. Every plan is in place, so in-place-ness is not part of the key.
class FftwPlans {
 public:
  FftwPlans() = default;
  FftwPlans(const FftwPlans&) = delete;
  FftwPlans& operator=(const FftwPlans&) = delete;
  ~FftwPlans() {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    for (const auto& kv : doubles_) Fftw<16>::destroy(kv.second);
    for (const auto& kv : singles_) Fftw<8>::destroy(kv.second);
  }

  // howmany rows of 2^log2_length points from p, in place, unscaled.
  template <std::size_t WordBytes>
  void run(typename Fftw<WordBytes>::Complex* p, int howmany, unsigned log2_length, int sign) {
    // OMP_NUM_THREADS or omp_set_num_threads may change between calls: a plan
    // is made for a number of threads, so that number is part of its key.
    const int threads = std::max(1, omp_get_max_threads());
    Fftw<WordBytes>::execute(plan<WordBytes>(p, p, howmany, log2_length, 1, 1 << log2_length, sign, threads), p, p);
  }

  // The plan for howmany rows of 2^log2_length points, word u of row r at
  // in + istride u + idist r, into out's consecutive rows (out == in: in
  // place), unscaled, on `threads` threads; made on first use. Executing it
  // is thread-safe: with the new-array interface on arrays of the same
  // alignments, one plan serves every chunk of a block at once.
  template <std::size_t WordBytes>
  typename Fftw<WordBytes>::Plan plan(typename Fftw<WordBytes>::Complex* in, typename Fftw<WordBytes>::Complex* out,
                                      int howmany, unsigned log2_length, int istride, int idist, int sign,
                                      int threads) {
    using Api = Fftw<WordBytes>;
    const Key key{log2_length, howmany,     sign, Api::alignment_of(in), threads, istride, idist,
                  in == out ? -1 : Api::alignment_of(out)};
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    auto& plans = table<WordBytes>();
    const auto found = plans.find(key);
    if (found != plans.end()) return found->second;
    start_fftw_threads();
    // The thread count is planner-global state: set for this plan only,
    // so other planners in the process keep theirs.
    const int before = Api::planner_threads();
    Api::plan_with_threads(threads);
    // FFTW_ESTIMATE leaves the arrays untouched.
    typename Api::Plan made = Api::plan_rows(1 << log2_length, howmany, in, istride, idist, out, sign);
    Api::plan_with_threads(before);
    if (made == nullptr)
      throw Error(fmt::format("FFTW could not plan {} {} transforms of {} points on {} threads", howmany, Api::name,
                              1 << log2_length, threads));
    plans.emplace(key, made);
    ++made_;
    return made;
  }

  std::uint64_t made() const {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    return made_;
  }

 private:
  struct Key {
    unsigned log2_length;
    int howmany, sign, alignment, threads, istride, idist;
    int out_alignment;  // -1: in place
    bool operator<(const Key& o) const {
      return std::tie(log2_length, howmany, sign, alignment, threads, istride, idist, out_alignment) <
             std::tie(o.log2_length, o.howmany, o.sign, o.alignment, o.threads, o.istride, o.idist, o.out_alignment);
    }
  };
  template <std::size_t WordBytes>
  std::map<Key, typename Fftw<WordBytes>::Plan>& table() {
    if constexpr (WordBytes == 16)
      return doubles_;
    else
      return singles_;
  }

  std::map<Key, fftw_plan> doubles_;
  std::map<Key, fftwf_plan> singles_;
  std::uint64_t made_ = 0;
};

// The launchers' settings: this host's wisdom where `hcube tune` measured them, else the defaults.
kernels::cpu::tuning::Knobs knobs_from_wisdom() {
  kernels::cpu::tuning::Knobs k;
  k.streaming_bytes = tuned_value(wisdom_key::streaming_bytes, k.streaming_bytes);
  k.prefetch_runs = tuned_value(wisdom_key::prefetch_runs, k.prefetch_runs);
  k.prefetch_rows = tuned_value(wisdom_key::prefetch_rows, k.prefetch_rows);
  k.align_region_bytes = tuned_value(wisdom_key::align_region_bytes, k.align_region_bytes);
  return k;
}

struct CpuPolicy {
  static constexpr BackendKind kind = BackendKind::cpu;

  explicit CpuPolicy(std::uint64_t chunk_bytes) : chunk_bytes_(chunk_bytes), knobs_(knobs_from_wisdom()) {}

  std::string device_name() const {
    return fmt::format("host CPU, {} hardware threads", std::thread::hardware_concurrency());
  }
  std::uint64_t available_bytes() const { return host_memory_available(); }

  Buffer allocate(std::uint64_t bytes, bool sparse = false) {
    // Large buffers on transparent huge pages: a routing cycle, an alignment or a
    // tiled permutation touches many pages at once, and 4 KiB pages would thrash the TLB.
    const std::uint64_t align = bytes >= kHugePageBytes ? kHugePageBytes : kAlignment;
    const std::uint64_t rounded = (std::max<std::uint64_t>(bytes, 1) + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded);
    if (p == nullptr) throw OutOfMemory(fmt::format("cpu backend: allocation of {} bytes failed", bytes));
#ifdef MADV_HUGEPAGE
    if (align == kHugePageBytes && !sparse) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
    return Buffer(p, bytes, [](void* q) { std::free(q); });
  }

  template <class Body>
  void launch(std::uint64_t count, const Body& body) {
    kernels::cpu::launch(count, body);
  }
  // A distributed machine's exchange words go a tile's run at a time (backends/cpu/exchange_words.hpp).
  template <class W>
  void launch(std::uint64_t count, const kernels::GatherExchangeWordsBody<W>& body) {
    kernels::cpu::launch_exchange_words(count, body);
  }
  template <class W>
  void launch(std::uint64_t count, const kernels::ScatterExchangeWordsBody<W>& body) {
    kernels::cpu::launch_exchange_words(count, body);
  }
  template <class TileBody>
  void launch_tiles(const TileBody& body) {
    kernels::cpu::launch_tiles(body, knobs_);
  }
  // Tiles of 16 KiB (L1) for the gather; where the launcher writes by block transposes (a
  // transpose, a bit reversal), the size `hcube tune` measured on this host (wisdom), else
  // 64-128 KiB (tuning.hpp): longer runs serve memory better while the tile stays in L2.
  BitPermutationTiling plan_tiles(const std::vector<unsigned>& to, std::size_t wb, const void* dst) const {
    BitPermutationTiling l1 = plan_bit_permutation_tiling(to, max_tile_bits_for(wb, kL1TileBytes));
    const kernels::TilingView view{l1.table.data(), l1.tile_bits, l1.run_bits, l1.outer_bits};
    bool blocks = false;
    kernels::dispatch_word(wb, [&](auto w) {
      blocks = kernels::cpu::plan_lane_transpose<decltype(w)>(view, dst).usable;
    });
    return blocks ? plan_bit_permutation_tiling(to, max_tile_bits_for(wb, fused_tile_bytes(wb))) : l1;
  }
  // An in-place alignment in cache-line units (backends/cpu/alignment.hpp),
  // which reads the map through the body's (host) tables.
  template <class W>
  void launch_align_xor(const kernels::AlignXorBody<W>& body, const AffineTables&) {
    kernels::cpu::run_align_xor(body, knobs_);
  }
  // A routing cycle row by row (backends/cpu/exchange.hpp).
  template <class W>
  void launch_exchanges(const kernels::ExchangeBody<W>& body, std::uint64_t count) {
    kernels::cpu::run_exchanges(body, count, knobs_);
  }
  // Both launch modes run the batch as one schedule pass: cycle after cycle,
  // each its own parallel region (a persistent team waiting at a barrier would
  // gain nothing over that and stall when a thread loses its core), so the
  // launches are the cycles.
  template <class W>
  std::uint64_t launch_exchange_cycles(const kernels::ExchangeBody<W>& body, const std::vector<std::size_t>& ends,
                                       LaunchMode) {
    kernels::cpu::run_exchange_cycles(body, ends, knobs_);
    return ends.size();
  }
  std::size_t cycles_per_batch(LaunchMode) const { return std::numeric_limits<std::size_t>::max(); }
  LaunchStats launch_stats() const { return {}; }
  template <class W>
  void fill_labels(W* mem, std::uint64_t words, const kernels::LabelOf<W>& of) {
    kernels::cpu::launch(words, kernels::LabelFillBody<W>{mem, of});
  }
  template <class W>
  kernels::LabelTally tally_labels(const W* mem, std::uint64_t words, const kernels::LabelOf<W>& of) {
    return kernels::cpu::transform_reduce(words, kernels::LabelCheckBody<W>{mem, of}, kernels::LabelTally{},
                                          kernels::CombineTallies{});
  }
  // A block router step block by block (backends/cpu/block_router.hpp).
  template <class W>
  void launch_block_router(const kernels::BlockRouterBody<W>& body, std::uint64_t messages) {
    kernels::cpu::run_block_router(body, messages);
  }

  // Kernels read host memory directly: nothing is staged or copied.
  const void* stage(int, const void* host, std::size_t) { return host; }
  std::uint64_t max_chunk_bytes() const { return chunk_bytes_; }
  Buffer allocate_pinned(std::uint64_t bytes) { return allocate(bytes); }
  const void* readable(const void* host, std::uint64_t) { return host; }
  void* writable(void* host, std::uint64_t) { return host; }
  void publish(void*, const void*, std::uint64_t) {}
  void copy_to_host(void* host, const void* storage, std::uint64_t bytes) { std::memcpy(host, storage, bytes); }
  void copy_from_host(void* storage, const void* host, std::uint64_t bytes) { std::memcpy(storage, host, bytes); }
  void synchronize() {}

  // The work ran when its call returned: the steady clock between start and stop.
  std::unique_ptr<StreamTimer> start_timer() {
    struct HostTimer final : StreamTimer {
      std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), end = start;
      void stop() override { end = std::chrono::steady_clock::now(); }
      double seconds() override { return std::chrono::duration<double>(end - start).count(); }
    };
    return std::make_unique<HostTimer>();
  }
  // memcpy: what the C library does best, the roofline a host program meets.
  void copy(const kernels::CopyBody& body, std::uint64_t words) {
    std::memcpy(body.dst, body.src, words * sizeof(kernels::Word16));
  }
  double spec_bytes_per_second() const { return 0; }

  static constexpr const char* dft_library = "FFTW";

  // FFTW's advanced interface: `count` contiguous rows of 2^log2_length points,
  // in place, through plans kept for the backend's life.
  void batched_dft(void* rows, std::uint64_t count, unsigned log2_length, std::size_t word_bytes, bool inverse) {
    if (log2_length > 30)
      throw Error(fmt::format("FFTW transforms of 2^{} points: allowed up to 2^30 (FFTW takes an int length)", log2_length));
    const int sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD;
    // howmany is an int: whole chunks of rows.
    const std::uint64_t chunk = std::min<std::uint64_t>(count, std::uint64_t{1} << (30 - std::min(30u, log2_length)));
    for (std::uint64_t first = 0; first < count; first += chunk) {
      const int howmany = static_cast<int>(std::min(chunk, count - first));
      const std::uint64_t offset = first << log2_length;
      if (word_bytes == 16)
        dft_plans_.run<16>(static_cast<fftw_complex*>(rows) + offset, howmany, log2_length, sign);
      else
        dft_plans_.run<8>(static_cast<fftwf_complex*>(rows) + offset, howmany, log2_length, sign);
    }
  }
  std::uint64_t dft_plans_made() const { return dft_plans_.made(); }

  // A library block a cache-sized chunk of rows at a time, each thread with a
  // one-thread FFTW plan (backends/cpu/fft_block.hpp); false where the rows are
  // too long for that, leaving the block to the launches and FFTW's threads.
  // With `to` (an alignment's map) the results go to `out` where the map sends
  // each word, mem left as the library's input spent them.
  template <class C>
  bool fft_block_chunks(C* mem, C* out, const kernels::FftBlockShape& shape, bool inverse,
                        const kernels::AffineView* to) {
    namespace kc = kernels::cpu;
    if (shape.h > kc::kFftChunkRowBitsMax) return false;
    constexpr std::size_t wb = sizeof(C);
    using Api = Fftw<wb>;
    using Complex = typename Api::Complex;
    kc::FftChunks ch = kc::plan_fft_chunks(shape, kc::fft_chunk_bits(wb), to);
    constexpr std::uint64_t int_max = std::numeric_limits<int>::max();
    if (ch.istride > int_max || ch.idist > int_max) ch.direct = false;
    const kc::FftTwiddles twiddles(ch.lo > 0 ? shape.lo + shape.h : 0, inverse ? 1.0 : -1.0);
    const int sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD, howmany = 1 << ch.b, len = 1 << ch.h;
    // The plans, made before any thread runs (planning may throw): into a
    // 64-byte aligned buffer, from storage at either alignment of a word.
    const std::size_t bytes = (std::size_t{1} << (ch.b + ch.h)) * wb;
    std::unique_ptr<void, decltype(&std::free)> probe(std::aligned_alloc(64, (bytes + 63) / 64 * 64), &std::free);
    auto* buf = static_cast<Complex*>(probe.get());
    auto* at = reinterpret_cast<Complex*>(mem);
    const int aligned = Api::alignment_of(at);
    // A chunk starts at an odd word only when storage bit 0 numbers the chunks.
    const bool odd_starts = (ch.outer_mask & 1u) != 0 && Api::alignment_of(at + 1) != aligned;
    typename Api::Plan in_place = nullptr, from[2] = {nullptr, nullptr};
    if (ch.direct) {
      for (int k = 0; k < (odd_starts ? 2 : 1); ++k)
        from[k] = dft_plans_.plan<wb>(at + k, buf, howmany, ch.h, static_cast<int>(ch.istride),
                                      static_cast<int>(ch.idist), sign, 1);
    } else {
      in_place = dft_plans_.plan<wb>(buf, buf, howmany, ch.h, 1, len, sign, 1);
    }
    kc::run_fft_chunks(mem, to != nullptr ? out : mem, shape, to, ch, twiddles, [&](C* in, C* rows) {
      auto* dst = reinterpret_cast<Complex*>(rows);
      if (in == nullptr) {
        Api::execute(in_place, dst, dst);
      } else {
        auto* src = reinterpret_cast<Complex*>(in);
        Api::execute(from[Api::alignment_of(src) == aligned ? 0 : 1], src, dst);
      }
    });
    return true;
  }

  // Everything runs synchronously on the calling thread's OpenMP team: no stream.
  void set_stream(CudaStream) {}
  CudaStream stream() const { return nullptr; }

  std::uint64_t chunk_bytes_;
  kernels::cpu::tuning::Knobs knobs_;  // read once: a backend's launches keep one setting
  FftwPlans dft_plans_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(std::uint64_t chunk_bytes) {
  return std::make_unique<BackendImpl<CpuPolicy>>(chunk_bytes);
}

}  // namespace hcube

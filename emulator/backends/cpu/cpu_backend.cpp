// The CPU backend: kernels run on host memory through the OpenMP launcher.
#include <fftw3.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <thread>

#include "../backend_impl.hpp"
#include "hcube/kernels/cpu/alignment.hpp"
#include "hcube/kernels/cpu/exchange.hpp"
#include "hcube/kernels/cpu/launch.hpp"

namespace hcube {
namespace {

// Storage is aligned for 16-byte words and whole cache lines.
constexpr std::size_t kAlignment = 64;
// Buffers of at least this size are aligned to it and advised onto huge pages.
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
// The fused pass's tiles: one fits L1 (16 KiB of 32-48), or, where it is written
// by block transposes, L2 (64-128 KiB of 0.5-2 MiB a core): see CpuPolicy::plan_tiles.
constexpr std::size_t kL1TileBytes = 16 * 1024;
constexpr std::size_t block_tile_bytes(std::size_t word_bytes) {
  return word_bytes >= 16 ? 64 * 1024 : 128 * 1024;
}

std::uint64_t mem_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  // No /proc: fall back to physical pages.
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                               : std::numeric_limits<std::uint64_t>::max();
}

struct CpuPolicy {
  static constexpr BackendKind kind = BackendKind::cpu;

  explicit CpuPolicy(std::uint64_t chunk_bytes) : chunk_bytes_(chunk_bytes) {}

  std::string device_name() const {
    return fmt::format("host CPU, {} hardware threads", std::thread::hardware_concurrency());
  }
  std::uint64_t available_bytes() const { return mem_available_bytes(); }

  Buffer allocate(std::uint64_t bytes) {
    // Large buffers on transparent huge pages: a routing cycle, an alignment or a
    // tiled permutation touches many pages at once, and 4 KiB pages would thrash the TLB.
    const std::uint64_t align = bytes >= kHugePageBytes ? kHugePageBytes : kAlignment;
    const std::uint64_t rounded = (std::max<std::uint64_t>(bytes, 1) + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded);
    if (p == nullptr) throw OutOfMemory(fmt::format("cpu backend: allocation of {} bytes failed", bytes));
#ifdef MADV_HUGEPAGE
    if (align == kHugePageBytes) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
    return Buffer(p, bytes, [](void* q) { std::free(q); });
  }

  template <class Body>
  void launch(std::uint64_t count, const Body& body) {
    kernels::cpu::launch(count, body);
  }
  template <class TileBody>
  void launch_tiles(const TileBody& body) {
    kernels::cpu::launch_tiles(body);
  }
  // Tiles of 16 KiB (L1) for the gather; 64-128 KiB where the launcher writes by
  // block transposes (a transpose, a bit reversal): runs of 512 bytes of u32
  // instead of 256 serve the memory better, and the block transposes read the
  // buffer from L2. Against the last rule (64 KiB for a bit reversal, 16 KiB read
  // in place for a transpose), builds alternated, 1 GiB of data: transpose u32
  // 0.82 -> 1.08 of memcpy, u64 0.77 -> 0.96, complex128 0.69 -> 1.01; bit
  // reversal u32 0.88 -> 0.93, the others equal or better (docs/performance.md).
  // 256 KiB tiles fell to 0.33 for u32. 16-byte words take 64 KiB: on a Zen 4
  // host (8-way L1 and L2) 2^26 complex128 bit reversal 0.73-0.75 -> 0.81-0.84,
  // transpose 0.81-0.88 -> 0.85-0.87; on the host with a 48 KiB L1d before,
  // 64 KiB was as good.
  BitPermutationTiling plan_tiles(const std::vector<unsigned>& to, std::size_t wb, const void* dst) const {
    BitPermutationTiling l1 = plan_bit_permutation_tiling(to, max_tile_bits_for(wb, kL1TileBytes));
    const kernels::TilingView view{l1.table.data(), l1.tile_bits, l1.run_bits, l1.outer_bits};
    bool blocks = false;
    kernels::dispatch_word(wb, [&](auto w) {
      blocks = kernels::cpu::plan_lane_transpose<decltype(w)>(view, dst).usable;
    });
    return blocks ? plan_bit_permutation_tiling(to, max_tile_bits_for(wb, block_tile_bytes(wb))) : l1;
  }
  // An in-place alignment in cache-line units (kernels/cpu/alignment.hpp),
  // which reads the map through the body's (host) tables.
  template <class W>
  void launch_align_xor(const kernels::AlignXorBody<W>& body, const AffineTables&) {
    kernels::cpu::run_align_xor(body);
  }
  // A routing cycle row by row (kernels/cpu/exchange.hpp).
  template <class W>
  void launch_exchanges(const kernels::ExchangeBody<W>& body, std::uint64_t count) {
    kernels::cpu::run_exchanges(body, count);
  }

  // Kernels read host memory directly: nothing is staged or copied.
  const void* stage(int, const void* host, std::size_t) { return host; }
  std::uint64_t max_chunk_bytes() const { return chunk_bytes_; }
  const void* readable(const void* host, std::uint64_t) { return host; }
  void* writable(void* host, std::uint64_t) { return host; }
  void publish(void*, const void*, std::uint64_t) {}
  void copy_to_host(void* host, const void* storage, std::uint64_t bytes) { std::memcpy(host, storage, bytes); }
  void copy_from_host(void* storage, const void* host, std::uint64_t bytes) { std::memcpy(storage, host, bytes); }
  template <class F>
  void batch(std::size_t count, F&& launch) {
    for (std::size_t i = 0; i < count; ++i) launch(i);
  }
  void synchronize() {}

  double timed(const std::function<void()>& run) {
    const auto start = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  // memcpy: what the C library does best, the roofline a host program meets.
  void copy(const kernels::CopyBody& body, std::uint64_t words) {
    std::memcpy(body.dst, body.src, words * sizeof(kernels::Word16));
  }
  double spec_bytes_per_second() const { return 0; }

  static constexpr const char* dft_library = "FFTW";

  // FFTW's advanced interface: `count` contiguous rows of 2^log2_length points, in place.
  void batched_dft(void* rows, std::uint64_t count, unsigned log2_length, std::size_t word_bytes, bool inverse) {
    const int n = static_cast<int>(std::uint64_t{1} << log2_length);
    const int sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD;
    // howmany is an int: whole chunks of rows.
    const std::uint64_t chunk = std::min<std::uint64_t>(count, std::uint64_t{1} << (30 - std::min(30u, log2_length)));
    for (std::uint64_t first = 0; first < count; first += chunk) {
      const int howmany = static_cast<int>(std::min(chunk, count - first));
      const std::uint64_t offset = first << log2_length;
      if (word_bytes == 16) {
        auto* p = static_cast<fftw_complex*>(rows) + offset;
        fftw_plan plan = fftw_plan_many_dft(1, &n, howmany, p, nullptr, 1, n, p, nullptr, 1, n, sign, FFTW_ESTIMATE);
        if (plan == nullptr) throw Error("FFTW could not plan the local transforms");
        fftw_execute(plan);
        fftw_destroy_plan(plan);
      } else {
        auto* p = static_cast<fftwf_complex*>(rows) + offset;
        fftwf_plan plan = fftwf_plan_many_dft(1, &n, howmany, p, nullptr, 1, n, p, nullptr, 1, n, sign, FFTW_ESTIMATE);
        if (plan == nullptr) throw Error("FFTW could not plan the local transforms");
        fftwf_execute(plan);
        fftwf_destroy_plan(plan);
      }
    }
  }

  std::uint64_t chunk_bytes_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(std::uint64_t chunk_bytes) {
  return std::make_unique<BackendImpl<CpuPolicy>>(chunk_bytes);
}

}  // namespace hcube

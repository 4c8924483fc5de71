// Measurement: an operation timed against the backend's copy roofline in the
// same process (memcpy on the CPU, a copy kernel on the GPU), the runs
// alternated with roofline copies so that both medians see the same drift of
// a shared machine. hcube bench, hcube sweep and the programs under bench/
// measure through here (docs/performance.md).
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hcube/emulator/backend.hpp"
#include "hcube/emulator/element_type.hpp"
#include "hcube/emulator/machine.hpp"

namespace hcube {

double median(std::vector<double> values);
// The steady clock's seconds around f.
double seconds_of(const std::function<void()>& f);

// The two medians of `repeat` runs of an operation alternated with `repeat`
// roofline copies.
struct Alternated {
  double seconds = 0, roofline_seconds = 0;
  std::vector<std::pair<double, double>> runs;  // (operation, roofline) seconds, in the order taken
};
// One untimed warm-up of each first (first touch of every page, caches and
// tables filled) unless the caller has run the operation already.
Alternated alternate(long long repeat, const std::function<double()>& op, const std::function<double()>& roofline,
                     bool warm_up_op = true);

// The operation's throughput (bytes it read and wrote over its time) over the
// roofline's (the data read and written once over the copy's time).
double ratio_to_memcpy(std::uint64_t bytes_moved, double seconds, std::uint64_t data_bytes, double memcpy_time);

// --- hcube bench -------------------------------------------------------------

// --op small-cycles: this many routing cycles of one exchange each, a run
// (the cost of a cycle where launching is all it costs).
inline constexpr std::size_t kSmallCycles = 1024;

enum class BenchOp {
  memcpy,
  cycle,
  alignment,
  aapc,
  fused_transpose,
  fused_bit_reversal,
  gather_bit_reversal,
  redistribute,
  fused_permute,
  small_cycles,
  fft,  // the distributed FFT of 2^W complex128 points, timed against FFTW's transform as well
};
BenchOp parse_bench_op(const std::string& s);  // throws naming the allowed ones
std::string to_string(BenchOp op);
const std::vector<std::string>& bench_op_names();

struct BenchRequest {
  BenchOp op = BenchOp::memcpy;
  long long log2_words = 24;  // 2..34
  long long repeat = 5;       // 1..1000
  ElementType type = ElementType::u32;
  BackendChoice backend = BackendChoice::automatic;
  long long tile_dims = -1;
  LaunchMode launch = LaunchMode::per_cycle;  // how the batches of routing cycles are launched
  // --op redistribute: R_x(P, K, Q) on N = 2^log2_words elements (the R_4(28, 6, 36) by default).
  long long P = 28, Q = 36, K = 6, x = 4;
  // --op aapc: 1, 2, 3, 4, edelman or edelman-unaligned (which is also timed
  // against the aligned schedule: node-dependent addresses against direct ones).
  std::string algorithm = "4";
  // --op fused-permute: a --perm of hcube permute, or "random" (random:seed).
  std::string perm = "random";
  unsigned long long seed = 1;
  // --op fft: the nodes (2^n of 2^W points; -1: W / 2), and FFTW's planner for the
  // baseline (estimate or measure), which plans before the timing.
  long long nodes_log2 = -1;
  std::string fftw_plan = "estimate";
};

struct BenchResult {
  BenchRequest request;
  unsigned n = 0, m = 0;          // n = floor(q / 2) processor dimensions, the rest local
  std::uint64_t data_bytes = 0;   // 2^q words
  std::uint64_t bytes_moved = 0;  // read + written by one run
  Alternated time;
  double check_seconds = 0;  // the host's checks of a cycle or schedule, made once before the timed runs
  std::string what;          // the operation in words
  std::string backend, device;
  bool gpu = false;          // the roofline is a copy kernel (else memcpy)
  double spec_bytes_per_second = 0;
  std::vector<unsigned> to;  // --op fused-permute: where each address bit goes
  std::uint64_t cycles = 0;  // routing cycles one run takes (0: none)
  LaunchStats launch_stats;  // the backend's, after the timed runs
  // --op aapc --algorithm edelman-unaligned: the aligned (direct) schedule's
  // median and bytes, alternated with the same roofline in the same process.
  std::optional<Alternated> direct_time;
  std::uint64_t direct_bytes_moved = 0;
  std::optional<double> ratio_to_direct() const;  // throughput over the direct schedule's
  // --op fft: hcube's runs alternated with FFTW's transform of the same points on the
  // same threads (FFTW's median the roofline), and the result's error against FFTW's.
  std::optional<Alternated> fftw_time;
  int fftw_threads = 0;
  double fft_error = 0;
  std::optional<double> ratio_to_fftw() const;  // FFTW's median time over hcube's

  double throughput() const;  // bytes_moved / seconds
  double roofline() const;    // 2 data_bytes / roofline seconds
  double ratio() const;
  std::vector<double> run_ratios() const;  // each run's ratio to the copy taken right after it
};
// --op fft's nodes: BenchRequest::nodes_log2, else half the points' bits.
long long fft_nodes_log2(const BenchRequest& r);
// --op fft's point t, on one process and across ranks alike: two tones and a
// ramp, a signal with no symmetry that could hide a misplaced point.
std::complex<double> bench_fft_point(std::uint64_t t);
// A CPU-bound process beside the measurement (hcube bench --busy-neighbour):
// a child that spins until this object ends it (SIGKILL, then reaped), or
// until this process dies. Reproduces a shared machine's load on demand.
class BusyNeighbour {
 public:
  BusyNeighbour();  // throws hcube::Error when fork fails
  ~BusyNeighbour();
  BusyNeighbour(const BusyNeighbour&) = delete;
  BusyNeighbour& operator=(const BusyNeighbour&) = delete;
  int pid() const { return pid_; }

 private:
  int pid_ = -1;
};

// Throws hcube::Error naming a bad value and its range: the checks run_bench makes first.
void check_bench(const BenchRequest& r);
// Checks the request, then measures. Throws hcube::Error for bad values.
BenchResult run_bench(const BenchRequest& r);

// --- hcube sweep -------------------------------------------------------------

// The largest d a sweep takes: 2^(2d) words, 2^40 at d = 20, well inside the
// address arithmetic (kMaxAddressBits) and beyond any device's memory today.
inline constexpr long long kSweepMaxDims = 20;
// SweepRequest::to: the largest d whose run fits the backend's available memory.
inline constexpr long long kSweepLargestFitting = -1;
// The roofline copies at most this much: a copy's throughput plateaus long
// before it, and two buffers of the data's size would triple the memory a
// large d needs (d = 17 u32: 64 GiB + 8 GiB, not 192 GiB).
inline constexpr std::uint64_t kSweepCopyCapBytes = std::uint64_t{4} << 30;

struct SweepRequest {
  long long from = 4, to = 10;  // 1 <= from <= to <= kSweepMaxDims, or to = kSweepLargestFitting
  std::vector<std::string> algorithms{"1", "2", "3", "4", "edelman"};  // and "edelman-unaligned"
  long long repeat = 3;          // 1..100
  ElementType type = ElementType::u32;
  BackendChoice backend = BackendChoice::automatic;
  long long tile_dims = -1;
  LaunchMode launch = LaunchMode::per_cycle;
  // The label windows' width (0: as many bits as the type's labels hold): the
  // tests narrow it to check small machines in several windows.
  unsigned label_window_bits = 0;
};
// SweepRequest::to from text: an integer, or "max" (kSweepLargestFitting). Throws naming the text.
long long parse_sweep_to(const std::string& text);

// One (d, algorithm) point.
struct SweepRow {
  unsigned d = 0;
  std::string algorithm;
  std::uint64_t words = 0, data_bytes = 0, cycles = 0, bytes_moved = 0;
  std::uint64_t element_hops = 0;  // words moved across links by one run (the machine's counters)
  std::uint64_t memcpy_bytes = 0;  // what one roofline copy read (and wrote): min(data_bytes, kSweepCopyCapBytes)
  double seconds = 0, memcpy_seconds = 0;
  // Checked on the backend against the transpose's closed form, in label windows (verify_in_windows).
  bool verified = false;
  double throughput() const { return static_cast<double>(bytes_moved) / seconds; }
  double ratio() const { return ratio_to_memcpy(bytes_moved, seconds, memcpy_bytes, memcpy_seconds); }
  double seconds_per_cycle() const { return cycles == 0 ? 0 : seconds / static_cast<double>(cycles); }
  double cycles_per_second() const { return static_cast<double>(cycles) / seconds; }
  double element_hops_per_second() const { return static_cast<double>(element_hops) / seconds; }
};

struct SweepResult {
  SweepRequest request;  // to: the d reached (the largest that fits, for kSweepLargestFitting)
  std::vector<SweepRow> rows;
  std::string backend, device;  // what ran
  std::string version;          // hcube's version that ran it
};

// The backend memory one point at d needs: the machine, the roofline's two
// copy buffers, and a scratch copy of the machine when an algorithm's
// alignments are no involution (they go through one).
std::uint64_t sweep_bytes_needed(const SweepRequest& r, unsigned d);
// The largest d (<= kSweepMaxDims) whose point fits in `available` bytes; 0 when none does.
unsigned sweep_largest_fitting(const SweepRequest& r, std::uint64_t available);
// Throws naming the entry unless every algorithm is known and the range is allowed.
void check_sweep(const SweepRequest& r);
// The request with `to` resolved against `available` bytes (kSweepLargestFitting:
// the largest d that fits); throws OutOfMemory, naming d, the bytes it needs,
// those available and the largest d that fits, when a d of the range does not fit.
SweepRequest fit_sweep(const SweepRequest& r, std::uint64_t available);
// AAPC throughput and cycles vs d (n = m = d), every point verified on the
// backend against the transpose (verify_in_windows); a point that fails ends
// the sweep with an error. Every d's memory is checked before the first
// allocation. progress(done, total, note) before each point.
using SweepProgress = std::function<void(std::size_t done, std::size_t total, const std::string& note)>;
SweepResult run_sweep(const SweepRequest& r, const SweepProgress& progress = {});
// The rows as CSV, with the run's backend, device, version, type and repeat on every row.
std::string sweep_csv(const SweepResult& s);
// Several sweeps' rows under one header (hcube sweep --from: one file per launch mode).
std::string sweep_csv(const std::vector<SweepResult>& sweeps);

}  // namespace hcube

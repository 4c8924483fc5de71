// A distributed radix-2 FFT on the emulated cube: 2^q complex points, q = n + m,
// held in cyclic order (point x at node x mod 2^n, local address x >> n),
// transformed by local butterfly stages (Machine::fft_stage, one launch each)
// with AAPCs between them that bring the next node bits into local memory
// (Johnsson & Ho 1992, introduction); the same AAPCs, with the bit reversal
// folded into their alignments, deliver the result in natural or bit-reversed
// order. host/fft_plan.hpp plans it; docs/fft-staging.md explains it and how
// to stage an FFT of one's own through the library (FftStaging).
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hcube/emulator/machine.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/fft_plan.hpp"

namespace hcube {

// How the stages between two AAPCs run: all at once as a batched DFT of the
// local index bits through the backend's library (FFTW, cuFFT) with a gather
// and a twiddle scatter around it, or one radix-2 butterfly launch per stage.
enum class LocalTransform { library, radix2 };
LocalTransform parse_local_transform(const std::string& s);  // "library" | "radix-2"

// hcube fft's and DistributedFftPlan's sizes: 2^1 .. 2^30 points (the FFTW
// reference takes at most 2^30; its vectors live in host memory).
inline constexpr long long kMaxPointsLog2 = 30;
// Throws naming the values unless 1 <= points_log2 <= kMaxPointsLog2 and
// 0 <= nodes_log2 < points_log2 (two points a node at least).
void check_fft_sizes(long long points_log2, long long nodes_log2);

struct FftOptions {
  FftOrder order = FftOrder::natural;
  // exp(+2 pi i t k / N) instead of exp(-2 pi i t k / N), unscaled (FFTW's backward transform).
  bool inverse = false;
  AapcAlgorithm algorithm = AapcAlgorithm::alg4;  // the schedule of every AAPC
  LocalTransform local = LocalTransform::library;
};

struct FftReport {
  unsigned stages = 0;                 // butterfly stages: q (one launch each with radix-2)
  unsigned local_transforms = 0;       // library blocks of stages (3 launches each), 0 with radix-2
  std::string local_library;           // "FFTW", "cuFFT" or "radix-2"
  unsigned aapcs = 0;                  // AAPCs run
  std::vector<unsigned> aapc_dims;     // d of each
  bool single_alignment_pair = false;  // Lemma 1: the AAPCs ran as one sequence between one pre- and one post-alignment
  std::uint64_t alignments = 0;        // alignment launches
  std::uint64_t cycles = 0;            // routing cycles
  std::uint64_t launches = 0;          // every kernel launch: stages + alignments + cycles
  double seconds = 0;                  // wall time of the whole transform
};

// What an FFT's stages and data motion run on: one machine, or a cube spread
// over MPI ranks (hcube_mpi's DistributedFftMachine). Every call is the whole
// cube's step; `index` maps a global address to the logical index of the
// point there (the stages' twiddles), and every stage's bits are local.
class FftMachine {
 public:
  virtual ~FftMachine() = default;
  virtual const Geometry& geometry() const = 0;  // the whole cube's
  virtual ElementType type() const = 0;
  virtual void fft_stage(unsigned mem_bit, unsigned index_bit, const BitAffine& index, bool inverse) = 0;
  virtual void fft_block(unsigned lo, unsigned h, std::uint64_t group_bits, const BitAffine& index, bool inverse) = 0;
  virtual void align(const AffineMap& map) = 0;
  // fft_block then align(map), fused where the machine can (Machine::fft_block_then_align).
  virtual void fft_block_then_align(unsigned lo, unsigned h, std::uint64_t group_bits, const BitAffine& index,
                                    bool inverse, const AffineMap& map) {
    fft_block(lo, h, group_bits, index, inverse);
    align(map);
  }
  virtual void run_cycles(const Schedule& schedule) = 0;  // checks it first
  virtual Counters counters() const = 0;                  // the whole cube's
  virtual std::string dft_library() const = 0;
};

// The stage kernels' byte tables of `index` (global address -> logical index)
// on a machine of m local address bits.
AffineTables fft_index_tables(const BitAffine& index, unsigned m);

// Transforms the 2^(n+m) points a machine holds in cyclic order, in place:
// X[k] = sum_x x[t] exp(-2 pi i t k / 2^q). Afterwards the machine holds X in
// options.order (fft_result_address says where each element is). The machine
// must hold complex64 or complex128 data and m >= 1 (two points per node);
// any n. Throws hcube::Error otherwise, before anything runs.
FftReport distributed_fft(Machine& machine, const FftOptions& options = {});
// The same with a plan made once (plan_fft for the machine's n, m and options.order).
FftReport distributed_fft(Machine& machine, const FftPlan& plan, const FftOptions& options);
// The same on any FftMachine (its type and m checked alike).
FftReport distributed_fft(FftMachine& machine, const FftPlan& plan, const FftOptions& options);

// Staging an FFT of one's own (docs/fft-staging.md): the library runs the
// plan's data motion -- the AAPCs between the local transforms and the final
// bit reversal -- and says where every point is; the caller transforms the
// local index bits of each segment itself (or with stage()).
class FftStaging {
 public:
  FftStaging(Machine& machine, FftOrder order, AapcAlgorithm algorithm = AapcAlgorithm::alg4);
  ~FftStaging();
  FftStaging(const FftStaging&) = delete;
  FftStaging& operator=(const FftStaging&) = delete;

  const FftPlan& plan() const;
  // Segment s: after move_to(s), index bits hi .. lo (top first) are local.
  const std::vector<FftSegment>& segments() const;
  // Runs segment s's AAPCs (segment 0 has none); call for s = 0, 1, ... in order.
  void move_to(std::size_t s);
  // Where the points are now. Between segments each word's global address is
  // a bit permutation of its logical index (position in the DIF's in-place
  // array: the input index until the first stage, X[rev_q(t)] after the last).
  std::uint64_t logical_index(std::uint64_t node, std::uint64_t local) const;
  std::uint64_t address_of(std::uint64_t logical) const;  // global address node * K + local
  unsigned local_bit(unsigned index_bit) const;  // the local address bit holding index bit b; throws if not local
  // The library's own radix-2 DIF stage on a local index bit (Machine::fft_stage).
  void stage(unsigned index_bit, bool inverse = false);
  // The stages on local index bits hi .. lo at once through the backend's DFT library (Machine::fft_block).
  void block(unsigned hi, unsigned lo, bool inverse = false);
  // After the last segment's stages: the final alignment into the requested
  // order. Throws if a segment was skipped.
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Data in and out in index order, converted to the machine's type.
// load_cyclic: x[t] goes to cyclic_address(t); x.size() must be 2^(n+m).
void load_cyclic(Machine& machine, const std::vector<std::complex<double>>& x);
// The result as a vector in index order: natural: X[k] at k; bit-reversed: X[rev_q(t)] at t.
std::vector<std::complex<double>> read_result(const Machine& machine, FftOrder order);

// The whole transform for the caller's own array: a machine of 2^nodes_log2
// nodes holding x.size() / 2^nodes_log2 points each (x.size() a power of two,
// at least 2 points per node), loaded, transformed and read back in `order`.
std::vector<std::complex<double>> hcube_fft(const std::vector<std::complex<double>>& x, unsigned nodes_log2,
                                            FftOrder order = FftOrder::natural,
                                            BackendChoice backend = BackendChoice::automatic);
std::vector<std::complex<float>> hcube_fft(const std::vector<std::complex<float>>& x, unsigned nodes_log2,
                                           FftOrder order = FftOrder::natural,
                                           BackendChoice backend = BackendChoice::automatic);

// The reference: FFTW's transform of the whole vector (double precision,
// FFTW_ESTIMATE), forward or unscaled backward. At most 2^30 points.
std::vector<std::complex<double>> fftw_dft(const std::vector<std::complex<double>>& x, bool inverse = false);
// max_k |x[k] - ref[k]| / max_k |ref[k]| (the absolute difference when ref is
// all zero); NaN when either holds a NaN, so that no check passes it.
double max_relative_error(const std::vector<std::complex<double>>& x, const std::vector<std::complex<double>>& ref);

// The tolerance on max_relative_error: 1e-12 for complex128, 1e-4 for complex64.
double fft_tolerance(ElementType type);
// y, the transform of x read back in options.order (read_result), against
// FFTW's transform of x; throws hcube::Error when the error is not below the
// tolerance (a NaN anywhere fails).
struct FftCheck {
  double error = 0, tolerance = 0;
};
FftCheck verify_fft(const std::vector<std::complex<double>>& x, const std::vector<std::complex<double>>& y,
                    const FftOptions& options, ElementType type);
// The same check without a host copy of the result: `points`, the input in
// index order, becomes FFTW's transform in place and is compared with the
// machine's result word by word; on return it holds the machine's result in
// options.order (as read_result would give it). Peak: the machine and `points`.
FftCheck verify_fft_in_place(const Machine& machine, std::vector<std::complex<double>>& points,
                             const FftOptions& options);

// FFTW's transform of `points` (the input in index order) in place, in
// options.order (X[rev k] at k for bit-reversed): the reference.
void fft_reference(std::vector<std::complex<double>>& points, const FftOptions& options);
// max_relative_error's parts over some of the points: the largest difference
// and the largest reference magnitude met, and whether either held a NaN.
// Shares of a distributed machine combine theirs by max (and or).
struct FftDifference {
  double diff = 0, scale = 0;
  bool nan = false;
  void add(std::complex<double> x, std::complex<double> ref);
  double relative_error() const;  // NaN when `nan`
};
// The result words a machine holding the global addresses [first_word,
// first_word + its words) of a cube of `geo` has (a rank's share; first_word
// 0 and its own geometry for a whole machine), each against reference[i] for
// the result index i whose place (fft_result_address) it is, in index order;
// `result(i, word)`, if given, is handed each word after its comparison.
FftDifference fft_share_difference(const Machine& share, const Geometry& geo, std::uint64_t first_word,
                                   const std::vector<std::complex<double>>& reference, FftOrder order,
                                   const std::function<void(std::uint64_t i, const unsigned char* word)>& result = {});
// The difference against the type's tolerance; throws hcube::Error when it is not below it (a NaN fails).
FftCheck check_fft_difference(const FftDifference& d, ElementType type);

}  // namespace hcube

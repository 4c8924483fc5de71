// hcube's plans, in the plan/execute style of cuFFT, FFTW and HPTT: a plan is
// made once (every input checked, the schedule built and checked, its scratch
// needs known) and executed many times, on the caller's own buffer or on a
// Machine, each execution returning what the machine counted.
//
// The caller's buffer holds the machine's data as a C-contiguous array of
// shape (2^n, K = 2^m) of type() words: word i of node j at index j * K + i
// (the global address, node bits high). Results replace it in place.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hcube/emulator/backend.hpp"
#include "hcube/emulator/counters.hpp"
#include "hcube/emulator/element_type.hpp"
#include "hcube/emulator/fft.hpp"
#include "hcube/emulator/machine.hpp"
#include "hcube/emulator/redistribute.hpp"
#include "hcube/emulator/verified_run.hpp"
#include "hcube/host/aapc_build.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/multi_aapc_plan.hpp"
#include "hcube/host/sdp_planner.hpp"

namespace hcube {

// Memory beside the data that a plan may need (scratch_bytes()). A caller who
// passes none gets it allocated by the plan on first need and kept for later
// executions.
struct Scratch {
  void* data = nullptr;
  std::uint64_t bytes = 0;
};

// The alignment execute_device needs of a caller's buffer and scratch: the
// kernels move 16 bytes at a time (cudaMalloc returns 256-byte aligned
// memory; a tensor's slice may not be). Host buffers need their word's size.
inline constexpr std::uint64_t kDeviceBufferAlignment = 16;

// Where and on what a plan runs.
struct PlanTarget {
  ElementType type = ElementType::u32;
  BackendChoice backend = BackendChoice::automatic;
};

class Plan {
 public:
  virtual ~Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  // Movable, so that a plan can be returned by value and kept in a container.
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;

  const Geometry& geometry() const { return geo_; }
  ElementType type() const { return type_; }
  BackendKind backend_kind() const;
  // The CUDA device the plan's memory and work live on; -1 on the CPU backend.
  int cuda_device() const;
  // The caller's array: 2^(n+m) words of type().
  std::uint64_t data_bytes() const;
  // What execute needs beside the data, in bytes of the backend's memory
  // (0: the plan runs in place).
  std::uint64_t scratch_bytes() const { return tile_dims_ > 0 ? data_bytes() : scratch_bytes_; }
  // The storage tile (2^t nodes, docs/architecture.md) the plan's routing runs
  // on when executed on a caller's buffer: t > 0 for a plan that routes (its
  // data re-laid out into its scratch by one fused pass and back by another,
  // the caller's buffer serving as the alignments' scratch meanwhile), 0 for
  // one that runs on the row-major buffer in place. Row-major storage makes
  // every exchange a strided gather: 4-70x slower (docs/api.md).
  unsigned tile_dims() const { return tile_dims_; }

  // Host memory, aligned to its word's size. On the CPU backend the plan runs
  // on the buffer itself; on CUDA the data is copied to the device and back.
  Counters execute(void* data, std::uint64_t bytes, Scratch scratch = {});
  // CUDA backend: `data` is device (or managed) memory on cuda_device(),
  // aligned to kDeviceBufferAlignment. As cufftExec*, this only enqueues the
  // plan's launches on `stream` and returns: the buffer holds the result once
  // the stream has run them. The counters returned count every launch, cycle
  // and byte; their seconds come from last_counters(). The call may be made
  // while `stream` is capturing into a CUDA graph (cudaStreamBeginCapture):
  // the launches then go into the graph, which the plan must outlive, and
  // which must not run beside another execution of the same plan. Throws
  // hcube::Error on another backend.
  Counters execute_device(void* data, std::uint64_t bytes, CudaStream stream, Scratch scratch = {});
  // The last execution's counters with its time: for execute_device, one phase
  // "device" holding the seconds between events recorded on the stream before
  // and after its launches, waiting (for that event, not the device) until the
  // stream has run them; none for an execution captured into a graph.
  Counters last_counters() const;
  // On a machine's own storage (any tile layout); its geometry and type must
  // be the plan's. `progress` is called now and then by plans that route.
  Counters execute(Machine& machine, const Machine::Progress& progress = {});

  // What an execution does, step by step, and where it sends every word: what
  // a verified or traced run observes (execute_verified, verified_run.hpp).
  // Null for a plan that checks its own result (the FFT, a redistribution).
  const Job* job() const { return job_.get(); }

 protected:
  Plan(const Geometry& geo, const PlanTarget& target);
  // The plan's data motion on a machine of its geometry and type.
  virtual void run(Machine& machine, const Machine::Progress& progress) = 0;
  void set_scratch_bytes(std::uint64_t b) { scratch_bytes_ = b; }
  // Runs on a caller's buffer in tiles of 2^t nodes (0: row-major, in place).
  void set_tile_dims(unsigned t) { tile_dims_ = t; }
  // Sets the job; one that runs as its schedule on the plan's machine (no
  // one_step, no untraceable) gets its alignments made here, once.
  void set_job(Job job);
  // That job's schedule as run_schedule runs it, its checks made when the plan was.
  void run_job(Machine& machine, const Machine::Progress& progress) const;
  // Whether one of those alignments copies through the machine's scratch (no involution).
  bool job_alignments_copy() const;
  const Backend& backend() const { return *backend_; }

 private:
  Counters run_on(void* data, std::uint64_t bytes, Scratch scratch, CudaStream stream, bool device);
  // Keeps an execution's counters (and its stream timer, if any) for last_counters(), and returns them.
  Counters remember(Counters counters, std::unique_ptr<StreamTimer> timer = nullptr);

  Geometry geo_;
  ElementType type_;
  std::shared_ptr<Backend> backend_;
  std::uint64_t scratch_bytes_ = 0;
  unsigned tile_dims_ = 0;  // set_job: the default tile for a job that routes
  Buffer own_scratch_;                // made on first need when the caller passes none
  std::unique_ptr<Machine> staging_;  // CUDA backend, host data: the device copy, kept
  std::unique_ptr<Job> job_;          // by pointer: a plan moves without throwing
  std::vector<AlignmentStep> pre_, post_;  // the job's alignments (set_job)
  Counters last_;                           // the last execution's, less its device time
  std::unique_ptr<StreamTimer> last_timer_;  // execute_device's events (null: none)
};

// One all-to-all personalized communication (Johnsson & Ho 1992): Algorithms
// 1-4, Edelman's schedule or the SEX/DEX baselines, and the permutation it
// realises (the transpose (j|i) -> (i|j), bit reversal, vector reversal, Gray
// code; Algorithms 1-4 and Edelman aligned). Geometry n, m (default d each).
class AapcPlan : public Plan {
 public:
  struct Options {
    AapcRequest schedule;  // method, d, n, m, channel width, blocked, lines
    AapcPermutation permutation = AapcPermutation::transpose;
    PlanTarget target;
  };
  explicit AapcPlan(const Options& options);
  AapcPlan(const Options& options, BuiltSchedule built);  // a schedule built (and checked) already

  const Schedule& schedule() const { return job()->schedule; }
  const ScheduleStats& stats() const { return job()->stats; }
  std::optional<CycleBound> bound() const { return cycle_bound(schedule()); }
  // The code conversions folded into the alignments and where the run sends each word.
  const PermutationPlan& permutation() const { return permutation_; }
  std::uint64_t destination(std::uint64_t g) const { return permutation_.destination(g); }

 protected:
  void run(Machine& machine, const Machine::Progress& progress) override;

 private:
  PermutationPlan permutation_;
};

// A stable dimension permutation of the n + m address bits (Ho & Johnsson
// 1988): source bit i goes to bit perm[i]. The algorithm with the lowest
// modelled time, or the one named; or fused: every word straight to its
// destination in one tiled pass.
class PermutePlan : public Plan {
 public:
  struct Options {
    std::string perm;  // "p0,...,p(q-1)", "transpose", "bit-reversal", "shuffle:k", ...
    long long n = -1, m = -1;
    SdpAlgorithm algorithm = SdpAlgorithm::automatic;
    bool fused = false;
    SdpCost cost;
    std::optional<long long> subcube_dims;  // the extended cube: the data on the first k < n processor dimensions
    PlanTarget target;
  };
  explicit PermutePlan(const Options& options);
  PermutePlan(const Options& options, SdpProblem problem);  // the problem analysed already
  // With the candidates built already (sdp_candidates(problem)): `hcube compare`
  // runs each of them without planning them all again.
  PermutePlan(const Options& options, SdpProblem problem, std::vector<SdpCandidate> candidates);

  const SdpProblem& problem() const { return problem_; }
  const DimensionPermutation& perm() const { return problem_.perm; }
  // Every algorithm considered (empty when fused) and the one chosen (null when fused).
  const std::vector<SdpCandidate>& candidates() const { return candidates_; }
  const SdpCandidate* chosen() const { return chosen_; }
  bool fused() const { return fused_; }
  std::uint64_t destination(std::uint64_t g) const { return problem_.perm.apply(g); }

 protected:
  void run(Machine& machine, const Machine::Progress& progress) override;

 private:
  SdpProblem problem_;
  std::vector<SdpCandidate> candidates_;
  const SdpCandidate* chosen_ = nullptr;
  bool fused_ = false;

  PermutePlan(const Options& options, SdpProblem problem, std::optional<std::vector<SdpCandidate>> candidates);
};

// A sequence of s AAPCs: the generalized shuffle, pipelined, sequential, on
// axes of unequal orders or concurrent (Algorithm 5).
class MultiAapcPlan : public Plan {
 public:
  struct Options {
    MultiAapcRequest request;
    PlanTarget target;
  };
  explicit MultiAapcPlan(const Options& options);
  MultiAapcPlan(const Options& options, MultiAapcDesign design);  // planned already

  const MultiAapcDesign& design() const { return design_; }
  const Schedule& schedule() const { return job()->schedule; }
  const ScheduleStats& stats() const { return job()->stats; }
  std::uint64_t destination(std::uint64_t g) const { return job()->destination(g); }

 protected:
  void run(Machine& machine, const Machine::Progress& progress) override;

 private:
  MultiAapcDesign design_;
};

// A schedule run as it stands: a schedule file (hcube-schedule/1, checked as it
// is loaded), verified against the permutation its header names (the
// transpose, the generalized shuffle); a file that names none runs unverified.
// Or a schedule built elsewhere, with its reference (a Job).
class SchedulePlan : public Plan {
 public:
  struct Options {
    std::string path;
    std::optional<long long> d;  // the AAPC dimensions the file must be for (unset: the file's)
    PlanTarget target;
  };
  explicit SchedulePlan(const Options& options);
  // job.schedule is checked (check_schedule sets job.stats); job.destination
  // empty: the run is not verified.
  SchedulePlan(Job job, const PlanTarget& target);

  const Schedule& schedule() const { return job()->schedule; }
  const ScheduleStats& stats() const { return job()->stats; }
  // Whether the run is checked: the file names the permutation it realises.
  bool verified() const { return static_cast<bool>(job()->destination); }

 protected:
  void run(Machine& machine, const Machine::Progress& progress) override;

 private:
  SchedulePlan(Job job, const PlanTarget& target, bool checked);
};

// The distributed radix-2 FFT of 2^(n+m) complex points (complex64 or
// complex128) held in cyclic order: point t at node t mod 2^n, local address
// t >> n, i.e. at index (t mod 2^n) K + (t >> n) of the caller's array.
// Afterwards X[k] is at index result_address(k): in cyclic order again
// (natural), or at rev(k) (bit-reversed).
class DistributedFftPlan : public Plan {
 public:
  struct Options {
    long long points_log2 = -1;  // q = n + m
    long long nodes_log2 = -1;   // n
    FftOptions fft;
    PlanTarget target{ElementType::c128, BackendChoice::automatic};
  };
  explicit DistributedFftPlan(const Options& options);

  const FftPlan& plan() const { return plan_; }
  const FftOptions& options() const { return options_; }
  const FftReport& last_report() const { return report_; }
  std::uint64_t result_address(std::uint64_t k) const;

 protected:
  void run(Machine& machine, const Machine::Progress& progress) override;

 private:
  FftOptions options_;
  FftPlan plan_;
  FftReport report_;
};

// Block-cyclic redistribution, cyclic(x) on P processors to cyclic(Kx) on Q
// (Park, Prasanna & Raghavendra 1998), on the machine's router. The caller's
// array is the machine image (placement().n, .m): source_image() makes it.
class RedistributePlan : public Plan {
 public:
  struct Options {
    Redistribution problem;  // P, K or y, Q, x, N (0: one superblock, lcm(P, KQ) x; lcm(aP, bQ) units for y)
    std::string schedule = "circulant";
    bool overlap = false;
    std::optional<long long> dims;  // the cube's n (unset: the fewest nodes that hold the processors)
    PlanTarget target;
  };
  explicit RedistributePlan(const Options& options);
  RedistributePlan(const Options& options, RedistributionPlacement placement);  // placed already

  const RedistributionPlacement& placement() const { return placement_; }
  const RedistSchedule& schedule() const { return schedule_; }
  const RedistributionReport& last_report() const { return report_; }
  // The run on a machine already holding source_image, with `after_step`
  // called after the pack, each router step and the unpack (a trace).
  RedistributionReport execute_traced(Machine& machine, const RedistStepDone& after_step);

 protected:
  void run(Machine& machine, const Machine::Progress& progress) override;

 private:
  RedistributionPlacement placement_;
  RedistSchedule schedule_;
  RedistributionReport report_;
};

}  // namespace hcube

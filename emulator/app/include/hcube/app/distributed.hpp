// Runs across MPI ranks (docs/distributed.md): the same options and the same
// results as one process, each rank holding the share of the cube its rank
// names. emulator/mpi/src/drivers.cpp with MPI; without it, ranks_off.cpp
// (nothing calls them: distributed() is false).
#pragma once

#include <complex>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hcube/app/run.hpp"
#include "hcube/emulator/fft.hpp"
#include "hcube/emulator/measure.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/sdp_schedules.hpp"
#include "hcube/plans.hpp"

namespace hcube::mpi {
class DistributedMachine;
}

namespace hcube::app {

// The job's own fields (aapc_json and the like) and its prose summary, from
// the global counters and the slowest rank's seconds.
using JobFields = std::function<nlohmann::json(const Counters&, double seconds)>;
using JobSummary = std::function<std::string(const Counters&, double seconds)>;

// aapc, run, multi-aapc, permute by a schedule: every rank loads its share of
// --input (or the labels), runs the plan's job and checks its words (a job
// with no destination runs unverified); --output is written by every rank at
// its rows' offsets; rank 0 reports, adding "ranks", "rank_dims" and the
// traffic between ranks.
void run_plan_across_ranks(const MachineFlags& mf, const IoFlags& io, const Plan& plan, const JobFields& fields,
                           const JobSummary& summary);
// permute by a plan that runs on a machine of its own geometry (A1''s spare
// storage dimension, the extended cube's spare node dimensions: run_sdp_plan):
// that machine across the ranks, each rank loading the data words its share
// embeds (the others zero), running the plan, checking its words and writing
// the data words it holds at their offsets.
void run_sdp_plan_across_ranks(const MachineFlags& mf, const IoFlags& io, const SdpPlan& plan,
                               const DimensionPermutation& perm, const JobFields& fields, const JobSummary& summary);
// cycle: the checked cycles one after another, each verified.
void run_cycles_across_ranks(const MachineFlags& mf, const IoFlags& io, const std::vector<Cycle>& cycles,
                             const nlohmann::json& fields, const std::string& summary);
// One step that sends every word to `destination` (permute --fused, align),
// run by `step` on the distributed machine and verified.
using DistributedStep = std::function<void(mpi::DistributedMachine&)>;
// The steps, made where the distributed machine is a complete type.
DistributedStep fused_permutation_step(const std::vector<unsigned>& to);  // DistributedMachine::permute_address_bits
DistributedStep alignment_step(const AffineMap& map);                     // DistributedMachine::align
// `name`: the step's, as one machine's trace names it ("alignment").
void run_step_across_ranks(const MachineFlags& mf, const IoFlags& io, const std::string& name,
                           const AddressMap& destination, const DistributedStep& step, const JobFields& fields,
                           const JobSummary& summary);
// route: the router step across the ranks (DistributedMachine::route), each
// rank's words checked against the words they were drawn from (route_source).
using RouteFields = std::function<nlohmann::json(const RouterStepReport&)>;
using RouteSummary = std::function<std::string(const RouterStepReport&)>;
void run_route_across_ranks(const MachineFlags& mf, const IoFlags& io, const RouterStep& step,
                            const RouterLimits& limits, const RouteFields& fields, const RouteSummary& summary);
// redistribute: the plan's router steps across the ranks; each rank loads its
// sources (the labels, or `file` read through a cache) and checks its
// destinations; --output is written by each rank at its rows' offsets.
// `fields(report, backend)`: the command's JSON; `summary` its line.
using RedistributeFields = std::function<nlohmann::json(const RedistributionReport&, const Backend&)>;
void run_redistribute_across_ranks(const MachineFlags& mf, const IoFlags& io, const RedistributePlan& plan,
                                   ElementType type, const std::shared_ptr<const NpyFile>& file,
                                   const RedistributeFields& fields, const std::string& summary);
// fft: the transform across the ranks (mpi::DistributedFftMachine). Each rank
// loads its share of `x` (all points in index order, made or read by every
// rank, since the check is FFTW's transform of the whole vector on every
// rank; freed once loaded), runs the plan, checks its result words against
// the reference (`points()` makes or reads them again) and writes them at
// their offsets of --output.
struct FftAcrossRanks {
  unsigned n = 0, m = 0;
  ElementType type = ElementType::c128;
  BackendChoice backend = BackendChoice::automatic;
  long long tile_dims = -1;
  FftOptions options;
  const FftPlan* plan = nullptr;
  std::vector<std::complex<double>> x;
  std::function<std::vector<std::complex<double>>()> points;
  IoFlags io;  // json, output
  // The command's JSON and its summary line, from the run's report, check, backend and counters.
  std::function<nlohmann::json(const FftReport&, const FftCheck&, const Backend&, unsigned tile_dims, const Counters&)>
      fields;
  std::function<std::string(const FftReport&, const FftCheck&)> summary;
};
void run_fft_across_ranks(FftAcrossRanks job);
// bench: the operation across the ranks beside MPI_Alltoall of the same data,
// and with `compare_single` one process's run of it (rank 0, the others idle).
void run_bench_across_ranks(const BenchRequest& request, bool compare_single, bool json);

}  // namespace hcube::app

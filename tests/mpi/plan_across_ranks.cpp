// hcube::mpi::execute_across: a plan made as on one process, run on the
// caller's communicator with each rank's own rows, checked word by word
// against the permutation's address formula, written here independently of
// the library. Prints "plan across ranks: ok" on rank 0, or what differs, and
// exits 1.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "hcube/hcube.hpp"
#include "hcube/mpi/plans.hpp"

namespace {

int rank = 0, ranks = 1;

// Runs `plan` on this rank's rows of the labels g and checks that the word at
// global address a is the g that `dest` sends to a.
bool check(const char* what, const hcube::Plan& plan, MPI_Comm comm, const std::function<std::uint64_t(std::uint64_t)>& dest) {
  const std::uint64_t total = plan.data_bytes() / 4, mine = total / static_cast<std::uint64_t>(ranks);
  const std::uint64_t first = mine * static_cast<std::uint64_t>(rank);
  std::vector<std::uint32_t> share(mine);
  for (std::uint64_t k = 0; k < mine; ++k) share[k] = static_cast<std::uint32_t>(first + k);
  hcube::mpi::execute_across(plan, comm, share.data(), share.size() * 4);
  std::vector<std::uint32_t> want(mine);
  for (std::uint64_t g = 0; g < total; ++g) {
    const std::uint64_t a = dest(g);
    if (a >= first && a < first + mine) want[a - first] = static_cast<std::uint32_t>(g);
  }
  for (std::uint64_t k = 0; k < mine; ++k)
    if (share[k] != want[k]) {
      std::fprintf(stderr, "%s: rank %d: word %llu holds %u, the formula says %u\n", what, rank,
                   static_cast<unsigned long long>(first + k), share[k], want[k]);
      return false;
    }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // the caller's own communicator
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  bool ok = true;
  try {
    const hcube::PlanTarget cpu{hcube::ElementType::u32, hcube::BackendChoice::cpu};
    const unsigned d = 4;
    // One AAPC of every algorithm: the transpose (j|i) -> (i|j) on 2^d x 2^d words.
    for (const hcube::AapcMethod method : {hcube::AapcMethod::alg1, hcube::AapcMethod::alg2, hcube::AapcMethod::alg3,
                                           hcube::AapcMethod::alg4, hcube::AapcMethod::edelman}) {
      hcube::AapcPlan::Options o;
      o.schedule.method = method;
      o.schedule.d = d;
      o.target = cpu;
      const hcube::AapcPlan plan(o);
      ok = check("aapc transpose", plan, comm, [&](std::uint64_t g) {
             return ((g & ((1u << d) - 1)) << d) | (g >> d);
           }) && ok;
    }
    // Bit reversal of the 2d address bits, fused and by the planner's choice.
    const auto reverse = [&](std::uint64_t g) {
      std::uint64_t r = 0;
      for (unsigned b = 0; b < 2 * d; ++b) r |= ((g >> b) & 1) << (2 * d - 1 - b);
      return r;
    };
    for (const bool fused : {true, false}) {
      hcube::PermutePlan::Options o;
      o.perm = "bit-reversal";
      o.n = d;
      o.m = d;
      o.fused = fused;
      o.target = cpu;
      const hcube::PermutePlan plan(o);
      ok = check(fused ? "fused bit reversal" : "bit reversal", plan, comm, reverse) && ok;
    }
    // A plan that checks its own result on one process is refused, alike on every rank.
    hcube::DistributedFftPlan::Options f;
    f.points_log2 = 6;
    f.nodes_log2 = 3;
    f.target.backend = hcube::BackendChoice::cpu;
    const hcube::DistributedFftPlan fft(f);
    std::vector<unsigned char> share(fft.data_bytes() / static_cast<std::uint64_t>(ranks));
    try {
      hcube::mpi::execute_across(fft, comm, share.data(), share.size());
      std::fprintf(stderr, "rank %d: the FFT plan ran across ranks\n", rank);
      ok = false;
    } catch (const hcube::Error& e) {
      if (std::string(e.what()).find("checks its own result") == std::string::npos) {
        std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
        ok = false;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    ok = false;
  }
  int bad = ok ? 0 : 1, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (rank == 0) std::printf(any ? "plan across ranks: wrong words\n" : "plan across ranks: ok\n");
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return any;
}

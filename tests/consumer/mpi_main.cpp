// A program of its own that runs hcube's distributed machine on its own MPI
// communicator (hcube::mpi): the address-bit transpose of a 2^6-word machine
// spread over the ranks, each rank's share checked against the formula.
// Prints "consumer mpi: ok" on rank 0, or says what differs and exits 1.
#include <hcube/hcube.hpp>
#include <hcube/mpi/distributed_machine.hpp>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // the program's own communicator, not the world
  try {
    hcube::mpi::DistributedMachine machine({3, 3, hcube::ElementType::u32, hcube::BackendChoice::cpu, 0}, comm);
    machine.load_labels();
    // Bit i of every address goes to bit 5 - i: word g lands at reverse(g).
    machine.permute_address_bits({5, 4, 3, 2, 1, 0});
    machine.store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) {
      std::vector<std::uint32_t> w(words);
      std::memcpy(w.data(), src, words * sizeof(std::uint32_t));
      for (std::uint64_t k = 0; k < words; ++k) {
        std::uint64_t at = g + k, from = 0;
        for (unsigned b = 0; b < 6; ++b) from |= ((at >> b) & 1) << (5 - b);
        if (w[k] != from) bad = 1;
      }
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer mpi: rank %d: %s\n", rank, e.what());
    bad = 1;
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (rank == 0) std::printf(any ? "consumer mpi: wrong words\n" : "consumer mpi: ok\n");
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return any;
}

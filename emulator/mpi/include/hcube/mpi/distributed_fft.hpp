// The distributed FFT (emulator/fft.hpp) on a cube spread over MPI ranks: its
// butterfly stages and local transforms work on local index bits, so each
// rank runs them on its share alone (the twiddles' index map restricted to
// the share); the AAPCs between them and the alignments are the distributed
// machine's, whose words cross ranks as every schedule's do.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <vector>

#include "hcube/emulator/fft.hpp"
#include "hcube/mpi/distributed_machine.hpp"

namespace hcube::mpi {

class DistributedFftMachine : public FftMachine {
 public:
  explicit DistributedFftMachine(DistributedMachine& machine) : machine_(machine) {}
  const Geometry& geometry() const override { return machine_.geometry(); }
  ElementType type() const override { return machine_.local().type(); }
  void fft_stage(unsigned mem_bit, unsigned index_bit, const BitAffine& index, bool inverse) override;
  void fft_block(unsigned lo, unsigned h, std::uint64_t group_bits, const BitAffine& index, bool inverse) override;
  void align(const AffineMap& map) override { machine_.align(AlignmentStep(map)); }
  // Every word stays on its rank in both: the share's block written at its aligned places, one pass instead of two.
  void fft_block_then_align(unsigned lo, unsigned h, std::uint64_t group_bits, const BitAffine& index, bool inverse,
                            const AffineMap& map) override;
  void run_cycles(const Schedule& schedule) override;  // collective
  Counters counters() const override { return machine_.counters(); }  // collective
  std::string dft_library() const override { return machine_.local().dft_library(); }

 private:
  // The index map on the share's local addresses: the bits above them are this rank's.
  AffineTables share_tables(const BitAffine& index) const;

  DistributedMachine& machine_;
};

// This rank's share of the points point(t), in the cube's cyclic order and
// the machine's type (complex64 or complex128), for DistributedMachine::local().load:
// local node j, word l holds point t = l 2^n + first_node + j.
std::vector<unsigned char> cyclic_share(const DistributedMachine& machine,
                                        const std::function<std::complex<double>(std::uint64_t t)>& point);
// Every rank's fft_share_difference combined (the largest parts, a NaN on any
// rank): the whole result's, the same on every rank. Collective.
FftDifference combined(const FftDifference& d, MPI_Comm comm);

}  // namespace hcube::mpi

#include "hcube/mpi/distributed_fft.hpp"

#include <cstring>

#include "hcube/mpi/world.hpp"

namespace hcube::mpi {

AffineTables DistributedFftMachine::share_tables(const BitAffine& index) const {
  // index(first_word | a) = index's columns on a's bits xor index(first_word): a's bits and first_word's are apart.
  const unsigned bits = machine_.local().geometry().address_bits();
  BitAffine share;
  share.bits = bits;
  share.columns.assign(index.columns.begin(), index.columns.begin() + bits);
  share.constant = index.apply(machine_.first_word());
  return fft_index_tables(share, machine_.geometry().m);
}

void DistributedFftMachine::fft_stage(unsigned mem_bit, unsigned index_bit, const BitAffine& index, bool inverse) {
  machine_.local().fft_stage(mem_bit, index_bit, share_tables(index), inverse);
}

void DistributedFftMachine::fft_block(unsigned lo, unsigned h, std::uint64_t group_bits, const BitAffine& index,
                                      bool inverse) {
  machine_.local().fft_block(lo, h, group_bits, share_tables(index), inverse);
}

void DistributedFftMachine::fft_block_then_align(unsigned lo, unsigned h, std::uint64_t group_bits,
                                                 const BitAffine& index, bool inverse, const AffineMap& map) {
  machine_.local().fft_block_then_align(lo, h, group_bits, share_tables(index), inverse, machine_.share_map(map));
}

void DistributedFftMachine::run_cycles(const Schedule& schedule) {
  check_schedule(schedule);
  machine_.run_checked_cycles(schedule);
}

std::vector<unsigned char> cyclic_share(const DistributedMachine& machine,
                                        const std::function<std::complex<double>(std::uint64_t t)>& point) {
  const Machine& local = machine.local();
  const unsigned n = machine.geometry().n;
  const std::uint64_t nodes = local.geometry().nodes(), K = local.geometry().words_per_node();
  const std::size_t wb = local.word_bytes();
  const bool c128 = local.type() == ElementType::c128;
  std::vector<unsigned char> share(local.bytes());
  for (std::uint64_t j = 0; j < nodes; ++j)
    for (std::uint64_t l = 0; l < K; ++l) {
      const std::complex<double> v = point((l << n) + machine.first_node() + j);
      unsigned char* word = &share[(j * K + l) * wb];
      if (c128) {
        std::memcpy(word, &v, 16);
      } else {
        const std::complex<float> f(static_cast<float>(v.real()), static_cast<float>(v.imag()));
        std::memcpy(word, &f, 8);
      }
    }
  return share;
}

FftDifference combined(const FftDifference& d, MPI_Comm comm) {
  double parts[2] = {d.diff, d.scale};
  int nan = d.nan ? 1 : 0;
  allreduce(parts, 2, MPI_DOUBLE, MPI_MAX, comm);
  allreduce(&nan, 1, MPI_INT, MPI_MAX, comm);
  return FftDifference{parts[0], parts[1], nan != 0};
}

}  // namespace hcube::mpi

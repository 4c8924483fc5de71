#include "hcube/mpi/distributed_fft.hpp"

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

void DistributedFftMachine::run_cycles(const Schedule& schedule) {
  check_schedule(schedule);
  machine_.run_checked_cycles(schedule);
}

}  // namespace hcube::mpi

// Labels made and checked through Thrust, on any of its systems: the CUDA
// backend passes thrust::cuda::par.on(stream); tests/kernels/test_thrust_labels.cpp
// passes thrust::omp::par and thrust::cpp::par over a CPU machine's storage,
// so the code the GPU runs is run here too. The bodies are kernels/labels.hpp's.
#pragma once

#include <thrust/iterator/counting_iterator.h>
#include <thrust/tabulate.h>
#include <thrust/transform_reduce.h>

#include <cstdint>

#include "hcube/kernels/labels.hpp"

namespace hcube::kernels {

// Index functors as Thrust calls them: with the iterator's difference type.
template <class Word>
struct TabulateLabel {
  LabelOf<Word> of;
  HCUBE_HD Word operator()(std::int64_t s) const { return of(static_cast<std::uint64_t>(s)); }
};

// mem[s] = the label of s, for s < words.
template <class Exec, class Word>
void tabulate_labels(const Exec& exec, Word* mem, std::uint64_t words, const LabelOf<Word>& of) {
  thrust::tabulate(exec, mem, mem + words, TabulateLabel<Word>{of});
}

// The words s < words that are not the label of s.
template <class Exec, class Word>
LabelTally tally_labels(const Exec& exec, const Word* mem, std::uint64_t words, const LabelOf<Word>& of) {
  const thrust::counting_iterator<std::uint64_t> first(0);
  return thrust::transform_reduce(exec, first, first + static_cast<std::int64_t>(words), LabelCheckBody<Word>{mem, of},
                                  LabelTally{}, CombineTallies{});
}

}  // namespace hcube::kernels

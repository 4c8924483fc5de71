// Plans in two statements, typed: the element type from the template
// parameter, a permutation as NumPy's axes of an array whose extents are
// powers of two, the buffer as a span (C++20) or a vector:
//
//   hcube::TransposePlan<float> plan({512, 256, 8}, {2, 0, 1});  // a.transpose(2, 0, 1)
//   plan.execute(buffer);                                         // in place
//
// Each is a PermutePlan (a stable dimension permutation of the address bits,
// Ho & Johnsson 1988) run fused: one tiled pass over the caller's memory.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#if __cplusplus >= 202002L && __has_include(<span>)
#include <span>
#define HCUBE_HAS_SPAN 1
#endif

#include "hcube/plans.hpp"

namespace hcube {

// The machine's element type for a C++ type: the seven by name, any other
// trivially copyable type of 4, 8 or 16 bytes by its size (a permutation
// moves bits: an int64_t travels as a uint64 word, a 16-byte struct as a
// complex128 one).
template <class T>
constexpr ElementType element_type_of() {
  static_assert(std::is_trivially_copyable_v<T>, "hcube moves words bit for bit: T must be trivially copyable");
  if constexpr (std::is_same_v<T, std::uint32_t>) return ElementType::u32;
  else if constexpr (std::is_same_v<T, std::int32_t>) return ElementType::i32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return ElementType::u64;
  else if constexpr (std::is_same_v<T, float>) return ElementType::f32;
  else if constexpr (std::is_same_v<T, double>) return ElementType::f64;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return ElementType::c64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return ElementType::c128;
  else {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "hcube moves words of 4, 8 or 16 bytes");
    return sizeof(T) == 4 ? ElementType::u32 : sizeof(T) == 8 ? ElementType::u64 : ElementType::c128;
  }
}

// The address-bit permutation of NumPy's a.transpose(axes), `a` a C-order
// array of the given extents (each a power of two): entry i is the bit that
// source address bit i goes to, as PermutePlan::Options::perm spells it.
// Throws hcube::Error naming `extents` or `axes` when they are not such.
std::vector<unsigned> transpose_address_bits(const std::vector<std::uint64_t>& extents, const std::vector<int>& axes);

// PermutePlan's options for that permutation, fused, on `backend`.
PermutePlan::Options transpose_options(const std::vector<std::uint64_t>& extents, const std::vector<int>& axes,
                                       ElementType type, BackendChoice backend);

// NumPy's transpose of an array of power-of-two extents, in place on the
// caller's buffer of T (host memory; device memory on the CUDA backend).
template <class T>
class TransposePlan {
 public:
  TransposePlan(std::vector<std::uint64_t> extents, std::vector<int> axes,
                BackendChoice backend = BackendChoice::automatic)
      : extents_(std::move(extents)),
        axes_(std::move(axes)),
        plan_(transpose_options(extents_, axes_, element_type_of<T>(), backend)) {}

#ifdef HCUBE_HAS_SPAN
  Counters execute(std::span<T> data) { return execute(data.data(), data.size()); }
#endif
  Counters execute(std::vector<T>& data) { return execute(data.data(), data.size()); }
  // Host memory: `count` elements of T (size()).
  Counters execute(T* data, std::size_t count) { return plan_.execute(data, count * sizeof(T)); }
  // Device memory of the CUDA backend, size() elements, enqueued on `stream`.
  Counters execute(T* device_data, CudaStream stream) {
    return plan_.execute_device(device_data, plan_.data_bytes(), stream);
  }

  // Elements of the array (the product of the extents).
  std::size_t size() const { return static_cast<std::size_t>(plan_.data_bytes() / sizeof(T)); }
  const std::vector<std::uint64_t>& extents() const { return extents_; }
  const std::vector<int>& axes() const { return axes_; }
  // The result's extents: extents()[axes()[k]].
  std::vector<std::uint64_t> result_extents() const {
    std::vector<std::uint64_t> r;
    for (const int a : axes_) r.push_back(extents_[static_cast<std::size_t>(a)]);
    return r;
  }
  PermutePlan& plan() { return plan_; }
  const PermutePlan& plan() const { return plan_; }

 private:
  std::vector<std::uint64_t> extents_;
  std::vector<int> axes_;
  PermutePlan plan_;
};

// log2 of `count`, which must be a power of two from 2 to 2^62; throws hcube::Error naming `what`.
unsigned log2_of_count(std::uint64_t count, const char* what);

// The bit reversal of `count` (a power of two) elements: FFT staging's reordering.
template <class T>
TransposePlan<T> bit_reversal_plan(std::uint64_t count, BackendChoice backend = BackendChoice::automatic) {
  const unsigned q = log2_of_count(count, "bit_reversal_plan: count");
  std::vector<int> axes(q);
  for (unsigned k = 0; k < q; ++k) axes[k] = static_cast<int>(q - 1 - k);
  return TransposePlan<T>(std::vector<std::uint64_t>(q, 2), std::move(axes), backend);
}

}  // namespace hcube

// The Thrust code the CUDA backend runs to make and check labels
// (kernels/thrust_labels.hpp), run here on Thrust's OpenMP and C++ systems
// over a CPU machine's storage (THRUST_DEVICE_SYSTEM is OMP in this program):
// it must agree with the CPU backend, with write_label, and with the
// reference's closed form, and count every wrong word, a NaN too.
#include <gtest/gtest.h>
#include <thrust/system/cpp/execution_policy.h>
#include <thrust/system/omp/execution_policy.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "hcube/emulator/schedule_run.hpp"
#include "hcube/host/aapc.hpp"
#include "hcube/host/aapc_permutation.hpp"
#include "hcube/kernels/thrust_labels.hpp"

namespace hcube {
namespace {

// A CPU machine on our own host buffer in the user's order (tile_dims 0), so
// storage index s is global address s: the label map of s is the reference's
// own, no layout in between.
struct HostMachine {
  std::vector<unsigned char> data;
  std::unique_ptr<Machine> machine;
  HostMachine(unsigned n, unsigned m, ElementType type) : data((std::size_t{1} << (n + m)) * info(type).bytes) {
    machine = std::make_unique<Machine>(MachineOptions{n, m, type, BackendChoice::cpu, 0}, make_cpu_backend(),
                                        data.data(), data.size());
  }
};

struct Tables {
  std::vector<std::uint64_t> bytes_tables;
  kernels::LinearView view;
  explicit Tables(const AffineAddressMap& map) {
    unsigned bytes = 0;
    bytes_tables = byte_tables(map.columns, bytes);
    view = kernels::LinearView{bytes_tables.data(), bytes, map.constant};
  }
};

template <class Word, class Exec>
kernels::LabelTally tally(const Exec& exec, const HostMachine& h, const AffineAddressMap& label_at, ElementType type) {
  const Tables t(label_at);
  return kernels::tally_labels(exec, reinterpret_cast<const Word*>(h.data.data()), h.machine->geometry().total_words(),
                               kernels::LabelOf<Word>{t.view, label_code(type)});
}

template <class Word>
void check_type(ElementType type) {
  SCOPED_TRACE(info(type).name);
  const unsigned d = 5;
  HostMachine h(d, d, type);
  const std::uint64_t words = h.machine->geometry().total_words();
  // The labels: Thrust's tabulate on the OpenMP system, as the CPU backend writes them.
  h.machine->load_labels();
  std::vector<Word> tabulated(words);
  const Tables own(AffineAddressMap::identity(2 * d));
  kernels::tabulate_labels(thrust::omp::par, tabulated.data(), words, kernels::LabelOf<Word>{own.view, label_code(type)});
  ASSERT_EQ(std::memcmp(tabulated.data(), h.data.data(), h.data.size()), 0);

  // The transpose by Algorithm 4, then the check: the word at g is the label placed^-1(g).
  AapcOptions o;
  o.d = d;
  const Schedule s = make_aapc_schedule(o);
  const PermutationPlan plan = plan_aapc_permutation(AapcPermutation::transpose, h.machine->geometry(), d);
  run_schedule(*h.machine, s, plan.f, plan.g);
  const AffineAddressMap label_at = plan.destination_form.inverse();
  for (const kernels::LabelTally& t :
       {tally<Word>(thrust::omp::par, h, label_at, type), tally<Word>(thrust::cpp::par, h, label_at, type)}) {
    EXPECT_EQ(t.mismatches, 0u);
    EXPECT_EQ(t.first, kernels::LabelTally::kNone);
  }
  // Before the run the labels were their own: against the transpose, all but its fixed points differ.
  const kernels::LabelTally before = tally<Word>(thrust::omp::par, h, AffineAddressMap::identity(2 * d), type);
  EXPECT_EQ(before.mismatches, words - (std::uint64_t{1} << d));

  // Two wrong words, one a NaN where the type has one: both counted, the first named, as the CPU backend does.
  const std::uint64_t a = 700, b = 33;
  std::memset(&h.data[a * sizeof(Word)], 0xff, sizeof(Word));  // a NaN in every float type, a wrong integer else
  h.data[b * sizeof(Word)] ^= 1;
  for (const kernels::LabelTally& t :
       {tally<Word>(thrust::omp::par, h, label_at, type), tally<Word>(thrust::cpp::par, h, label_at, type)}) {
    EXPECT_EQ(t.mismatches, 2u);
    EXPECT_EQ(t.first, b);
  }
  const Machine::LabelCheck cpu = h.machine->count_label_mismatches(label_at);
  EXPECT_EQ(cpu.mismatches, 2u);
  EXPECT_EQ(cpu.first, b);
}

TEST(ThrustLabels, OpenMpAndCppSystemsAgreeWithTheCpuBackend) {
  check_type<std::uint32_t>(ElementType::u32);
  check_type<std::uint32_t>(ElementType::f32);
  check_type<std::uint64_t>(ElementType::u64);
  check_type<std::uint64_t>(ElementType::c64);
  check_type<kernels::Word16>(ElementType::c128);
}

}  // namespace
}  // namespace hcube

// docs/api.md's first example: hcube as a library on the program's own
// buffers. An AAPC (the transpose) and a bit reversal, each planned once and
// executed on a std::vector, checked against the permutation computed here.
#include <hcube/hcube.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  std::printf("hcube %s\n", hcube::version());

  // All-to-all personalized communication on a 4-cube: 16 nodes of 16 words,
  // Algorithm 4 of Johnsson & Ho; word i of node j goes to word j of node i.
  hcube::AapcPlan::Options aapc;
  aapc.schedule.method = hcube::AapcMethod::alg4;
  aapc.schedule.d = 4;
  aapc.target = {hcube::ElementType::u32, hcube::BackendChoice::cpu};
  hcube::AapcPlan transpose(aapc);  // checked, scheduled: 8 routing cycles

  const std::uint64_t K = 16;
  std::vector<std::uint32_t> a(K * K);
  for (std::uint64_t g = 0; g < a.size(); ++g) a[g] = static_cast<std::uint32_t>(1000 + g);
  const std::vector<std::uint32_t> before = a;
  const hcube::Counters c = transpose.execute(a.data(), a.size() * sizeof(std::uint32_t));
  for (std::uint64_t j = 0; j < K; ++j)
    for (std::uint64_t i = 0; i < K; ++i)
      if (a[i * K + j] != before[j * K + i]) return std::printf("transpose wrong at (%llu, %llu)\n",
                                                                 static_cast<unsigned long long>(j),
                                                                 static_cast<unsigned long long>(i)),
                                                     1;
  std::printf("AAPC: %llu routing cycles, %llu element hops, %llu launches\n",
              static_cast<unsigned long long>(c.routing_cycles), static_cast<unsigned long long>(c.element_hops),
              static_cast<unsigned long long>(c.kernel_launches));

  // The bit reversal of 2^8 words held as 8 nodes of 32 (FFT staging's
  // reordering), by the algorithm the cost model picks, all ports at once.
  hcube::PermutePlan::Options rev;
  rev.perm = "bit-reversal";
  rev.n = 3;
  rev.m = 5;
  rev.cost.ports = hcube::PortModelChoice::all;
  rev.target = {hcube::ElementType::u32, hcube::BackendChoice::cpu};
  hcube::PermutePlan reversal(rev);
  std::vector<std::uint32_t> b(256), scratch_words(reversal.scratch_bytes() / sizeof(std::uint32_t));
  for (std::uint64_t g = 0; g < b.size(); ++g) b[g] = static_cast<std::uint32_t>(g);
  for (int run = 0; run < 2; ++run)  // planned once, executed twice: the identity again
    reversal.execute(b.data(), b.size() * sizeof(std::uint32_t),
                     hcube::Scratch{scratch_words.data(), scratch_words.size() * sizeof(std::uint32_t)});
  for (std::uint64_t g = 0; g < b.size(); ++g)
    if (b[g] != g) return std::printf("reversal twice is not the identity at %llu\n", static_cast<unsigned long long>(g)), 1;
  std::printf("bit reversal by %s: ok\n", hcube::to_string(reversal.chosen()->algorithm).c_str());
  return 0;
}

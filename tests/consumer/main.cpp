// A program of its own that uses hcube through its public header only: an
// all-to-all personalized communication and a bit reversal on its own
// buffers, each checked against the permutation computed here directly.
// Prints "consumer: ok", or says what differs and exits 1.
#include <hcube/hcube.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

using Words = std::vector<std::uint32_t>;

// Distinct words, none equal to its own address.
Words distinct_words(std::uint64_t count) {
  Words w(count);
  for (std::uint64_t g = 0; g < count; ++g) w[g] = static_cast<std::uint32_t>(0x10000000u + 7u * g);
  return w;
}

std::uint64_t bytes_of(const Words& w) { return w.size() * sizeof(std::uint32_t); }

// Compares out with want word by word; prints the first few differences.
bool same(const char* what, const Words& out, const Words& want) {
  std::uint64_t wrong = 0;
  for (std::uint64_t g = 0; g < want.size(); ++g) {
    if (out[g] == want[g]) continue;
    if (wrong < 5)
      std::fprintf(stderr, "consumer: %s: word %llu is %u, want %u\n", what, static_cast<unsigned long long>(g),
                   out[g], want[g]);
    ++wrong;
  }
  if (wrong > 0)
    std::fprintf(stderr, "consumer: %s: %llu of %zu words wrong\n", what, static_cast<unsigned long long>(wrong),
                 want.size());
  return wrong == 0;
}

// Algorithm 4 on a 4-cube, 2^4 words a node: the transpose (j|i) -> (i|j).
bool check_aapc() {
  const int d = 4;
  const std::uint64_t nodes = std::uint64_t{1} << d, K = std::uint64_t{1} << d;
  const Words in = distinct_words(nodes * K);
  Words want(in.size());
  for (std::uint64_t i = 0; i < nodes; ++i)
    for (std::uint64_t j = 0; j < K; ++j) want[i * K + j] = in[j * K + i];

  hcube::AapcPlan::Options o;
  o.schedule.method = hcube::AapcMethod::alg4;
  o.schedule.d = d;
  o.target.type = hcube::ElementType::u32;
  o.target.backend = hcube::BackendChoice::cpu;
  hcube::AapcPlan plan(o);
  Words buf = in;
  const hcube::Counters c = plan.execute(buf.data(), bytes_of(buf));
  std::printf("consumer: aapc alg4 d=%d: %llu routing cycles\n", d,
              static_cast<unsigned long long>(c.routing_cycles));
  return same("aapc alg4 d=4", buf, want);
}

// The bit reversal of the q = n + m = 8 address bits, fused or routed.
bool check_bit_reversal(bool fused) {
  const int n = 3, m = 5, q = n + m;
  const Words in = distinct_words(std::uint64_t{1} << q);
  Words want(in.size());
  for (std::uint64_t g = 0; g < in.size(); ++g) {
    std::uint64_t r = 0;
    for (int b = 0; b < q; ++b) r |= ((g >> b) & 1u) << (q - 1 - b);
    want[r] = in[g];
  }

  hcube::PermutePlan::Options p;
  p.perm = "bit-reversal";
  p.n = n;
  p.m = m;
  p.fused = fused;
  p.target = {hcube::ElementType::u32, hcube::BackendChoice::cpu};
  hcube::PermutePlan plan(p);
  Words buf = in;
  const hcube::Counters c = plan.execute(buf.data(), bytes_of(buf));
  const std::string what = std::string("bit reversal n=3 m=5 ") + (fused ? "fused" : "routed");
  std::printf("consumer: %s: %llu routing cycles\n", what.c_str(), static_cast<unsigned long long>(c.routing_cycles));
  return same(what.c_str(), buf, want);
}

}  // namespace

int main() {
  std::printf("consumer: hcube %s (compiled against %s, CUDA backend %s)\n", hcube::version(), HCUBE_VERSION,
              HCUBE_HAVE_CUDA ? "built" : "not built");
  if (std::string(hcube::version()) != HCUBE_VERSION) {
    std::fprintf(stderr, "consumer: the library is hcube %s, its headers say %s\n", hcube::version(), HCUBE_VERSION);
    return 1;
  }
  try {
    bool ok = check_aapc();
    ok = check_bit_reversal(true) && ok;
    ok = check_bit_reversal(false) && ok;
    if (!ok) return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  std::printf("consumer: ok\n");
  return 0;
}

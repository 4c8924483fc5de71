#include "hcube/host/dimension_permutation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <utility>

#include "hcube/host/bit_permutation_tiling.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/geometry.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {
namespace {

// "name:a:b:..." split at the colons.
std::vector<std::string> split_colons(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t end = text.find(':', pos);
    parts.push_back(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    if (end == std::string::npos) return parts;
    pos = end + 1;
  }
}

unsigned field(const std::string& value, const std::string& what, unsigned limit) {
  const std::uint64_t v = parse_uint(value, what);
  if (v > limit) throw Error(fmt::format("{} = {} out of range: allowed 0..{}", what, v, limit));
  return static_cast<unsigned>(v);
}

std::vector<unsigned> named(const std::string& text, unsigned q) {
  const std::vector<std::string> parts = split_colons(text);
  const std::string& name = parts[0];
  std::vector<unsigned> to(q);
  const auto args = [&](std::size_t count) {
    if (parts.size() != count + 1)
      throw Error(fmt::format("PermutePlan::Options::perm {}: '{}' takes {} argument{} after ':'",
                              printable_input(text), name, count, count == 1 ? "" : "s"));
  };
  if (name == "transpose") {
    args(0);
    if (q % 2 != 0)
      throw Error(fmt::format("PermutePlan::Options::perm transpose needs an even number of address bits: q = {}", q));
    for (unsigned i = 0; i < q; ++i) to[i] = (i + q / 2) % q;
  } else if (name == "bit-reversal") {
    args(0);
    for (unsigned i = 0; i < q; ++i) to[i] = q - 1 - i;
  } else if (name == "shuffle" || name == "unshuffle") {
    args(1);
    const unsigned k = field(parts[1], "PermutePlan::Options::perm " + name + " k", q) % q;
    for (unsigned i = 0; i < q; ++i) to[i] = name == "shuffle" ? (i + k) % q : (i + q - k) % q;
  } else if (name == "swap-axes") {
    args(3);
    const unsigned a = field(parts[1], "PermutePlan::Options::perm swap-axes a", q),
                   b = field(parts[2], "PermutePlan::Options::perm swap-axes b", q),
                   w = field(parts[3], "PermutePlan::Options::perm swap-axes w", q);
    if (a + w > q || b + w > q || (a < b + w && b < a + w && a != b))
      throw Error(fmt::format(
          "PermutePlan::Options::perm {}: fields of {} bits at {} and {} must lie within q = {} bits and not overlap",
          printable_input(text), w, a, b, q));
    for (unsigned i = 0; i < q; ++i) to[i] = i;
    for (unsigned k = 0; k < w && a != b; ++k) {
      to[a + k] = b + k;
      to[b + k] = a + k;
    }
  } else if (name == "random") {
    args(1);
    to = random_bit_permutation(q, parse_uint(parts[1], "PermutePlan::Options::perm random seed"));
  } else {
    throw Error(fmt::format(
        "PermutePlan::Options::perm '{}' unknown: give p0,p1,...,p{} or transpose, bit-reversal, shuffle:k, "
        "unshuffle:k, swap-axes:a:b:w, random:seed",
        printable_input(text), q - 1));
  }
  return to;
}

}  // namespace

std::vector<unsigned> random_bit_permutation(unsigned q, std::uint64_t seed) {
  // Fisher-Yates on a 64-bit Mersenne Twister, whose sequence the standard
  // fixes (std::shuffle's is the library's own): one seed, one permutation everywhere.
  std::mt19937_64 rng(seed);
  std::vector<unsigned> to(q);
  for (unsigned i = 0; i < q; ++i) to[i] = i;
  for (unsigned i = q; i > 1; --i) std::swap(to[i - 1], to[rng() % i]);
  return to;
}

std::uint64_t DimensionPermutation::apply(std::uint64_t g) const {
  std::uint64_t out = 0;
  for (unsigned i = 0; i < to.size(); ++i)
    if (test_bit(g, i)) out |= bit(to[i]);
  return out;
}

DimensionPermutation parse_dimension_permutation(const std::string& text, unsigned n, unsigned m) {
  const unsigned q = n + m;
  if (q < 1 || q > kMaxAddressBits)
    throw Error(fmt::format("n + m = {} address bits out of range: allowed 1..{}", q, kMaxAddressBits));
  DimensionPermutation p;
  p.n = n;
  p.m = m;
  const bool list = !text.empty() && std::isdigit(static_cast<unsigned char>(text[0]));
  p.to = list ? parse_uint_list(text, "PermutePlan::Options::perm") : named(text, q);
  if (p.to.size() != q)
    throw Error(fmt::format(
        "PermutePlan::Options::perm lists {} bits: expected q = n + m = {} (bit 0 the lowest local address bit)",
        p.to.size(), q));
  check_bit_permutation(p.to, "PermutePlan::Options::perm");
  return p;
}

std::string to_string(ShuffleCycle::Kind k) {
  switch (k) {
    case ShuffleCycle::Kind::real: return "real";
    case ShuffleCycle::Kind::virtual_: return "virtual";
    case ShuffleCycle::Kind::mixed: return "mixed";
  }
  return "real";
}

DimensionPermutationAnalysis analyze(const DimensionPermutation& p) {
  DimensionPermutationAnalysis a;
  std::vector<bool> done(p.q(), false);
  for (unsigned start = 0; start < p.q(); ++start) {
    if (done[start] || p.to[start] == start) continue;
    ShuffleCycle c;
    for (unsigned b = start; !done[b]; b = p.to[b]) {
      done[b] = true;
      c.bits.push_back(b);
      c.processor_bits += p.is_processor_bit(b) ? 1 : 0;
    }
    const unsigned order = static_cast<unsigned>(c.bits.size());
    c.kind = c.processor_bits == order ? ShuffleCycle::Kind::real
             : c.processor_bits == 0  ? ShuffleCycle::Kind::virtual_
                                      : ShuffleCycle::Kind::mixed;
    a.sigma += order;
    a.sigma_p += c.processor_bits;
    a.sigma_s += order - c.processor_bits;
    if (c.kind == ShuffleCycle::Kind::mixed) a.separable = false;
    if (c.kind == ShuffleCycle::Kind::real) {
      ++a.real_cycles;
      a.odd_real_cycles += order % 2;
      a.sigma_max = std::max(a.sigma_max, order);
      a.sigma_min = a.sigma_min == 0 ? order : std::min(a.sigma_min, order);
    }
    a.cycles.push_back(std::move(c));
  }
  a.beta = static_cast<unsigned>(a.cycles.size());
  return a;
}

DimensionPermutationBound lower_bound(const DimensionPermutationAnalysis& a, std::uint64_t K, bool all_port,
                                      double t_c, double tau) {
  if (t_c < 0 || tau < 0)
    throw Error(fmt::format("cost parameters t_c = {}, tau = {}: allowed non-negative values", t_c, tau));
  DimensionPermutationBound b;
  if (a.sigma_p == 0) return b;  // virtual cycles only: local reordering, no communication
  const double half = static_cast<double>(K) / 2;
  b.transfer = (all_port ? 1.0 : static_cast<double>(a.sigma_p)) * half * t_c;
  b.startups = static_cast<double>(a.sigma_p - a.odd_real_cycles) * tau;
  return b;
}

DimensionPermutationBound shuffle_lower_bound(const ShuffleCycle& c, std::uint64_t K, bool all_port, double t_c,
                                              double tau) {
  if (t_c < 0 || tau < 0)
    throw Error(fmt::format("cost parameters t_c = {}, tau = {}: allowed non-negative values", t_c, tau));
  DimensionPermutationBound b;
  const unsigned sp = c.processor_bits;
  if (sp == 0) return b;
  const double half = static_cast<double>(K) / 2;
  b.transfer = (all_port ? 1.0 : static_cast<double>(sp)) * half * t_c;
  const bool odd_real = c.kind == ShuffleCycle::Kind::real && sp % 2 == 1;
  b.startups = static_cast<double>(odd_real ? sp - 1 : sp) * tau;
  return b;
}

DimensionPermutationBound extended_cube_lower_bound(const DimensionPermutationAnalysis& a, std::uint64_t K,
                                                    unsigned n, unsigned m_p, bool all_port, double t_c, double tau) {
  if (t_c < 0 || tau < 0)
    throw Error(fmt::format("cost parameters t_c = {}, tau = {}: allowed non-negative values", t_c, tau));
  if (m_p >= n) throw Error(fmt::format("extended cube: m_p = {} must be below n = {}", m_p, n));
  DimensionPermutationBound b;
  if (a.sigma_p == 0) return b;
  const double k = static_cast<double>(K), spread = static_cast<double>(bit(n - m_p + 1));
  const double tail = static_cast<double>(a.sigma_p - a.odd_real_cycles) - 1;
  const double first = all_port ? k / static_cast<double>(n - m_p + a.sigma_p) + tail : k + tail;
  const double second = (all_port ? 1.0 : static_cast<double>(a.sigma_p)) * k / spread;
  b.transfer = std::max(first, second) * t_c;
  b.startups = static_cast<double>(a.sigma_p - a.odd_real_cycles) * tau;
  return b;
}

}  // namespace hcube

#include "hcube/host/sdp_planner.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "hcube/host/affine_map.hpp"
#include "hcube/host/aapc_build.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/geometry.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

namespace {

struct Named {
  SdpAlgorithm a;
  const char* name;
};
constexpr Named kNames[] = {{SdpAlgorithm::automatic, "auto"}, {SdpAlgorithm::a1, "A1"}, {SdpAlgorithm::a1_prime, "A1'"},
                            {SdpAlgorithm::a2, "A2"},          {SdpAlgorithm::a3, "A3"}, {SdpAlgorithm::a4, "A4"},
                            {SdpAlgorithm::a5, "A5"},          {SdpAlgorithm::a6, "A6"}, {SdpAlgorithm::edelman, "Edelman"},
                            {SdpAlgorithm::a3_a1, "A3-A1"}, {SdpAlgorithm::a6_prime, "A6'"},
                            {SdpAlgorithm::a4_prime, "A4'"}, {SdpAlgorithm::a3_pipelined, "A3-pipelined"}};

std::string join(const std::vector<unsigned>& v, const char* sep) {
  std::string text;
  for (unsigned x : v) text += (text.empty() ? "" : sep) + std::to_string(x);
  return text;
}

}  // namespace

SdpAlgorithm parse_sdp_algorithm(const std::string& s) {
  for (const Named& n : kNames)
    if (s == n.name) return n.a;
  throw Error(fmt::format("PermutePlan::Options::algorithm '{}' unknown: allowed {}", printable_input(s),
                          sdp_algorithm_names()));
}

std::string to_string(SdpAlgorithm a) {
  for (const Named& n : kNames)
    if (n.a == a) return n.name;
  return "?";
}

std::string sdp_algorithm_names() {
  std::string text;
  for (const Named& n : kNames) text += (text.empty() ? "" : ", ") + std::string(n.name);
  return text;
}

PortModelChoice parse_ports(const std::string& s) {
  if (s == "one") return PortModelChoice::one;
  if (s == "all") return PortModelChoice::all;
  throw Error(fmt::format("SdpCost::ports '{}' unknown: allowed one, all", printable_input(s)));
}

std::string to_string(PortModelChoice p) { return p == PortModelChoice::all ? "all" : "one"; }

void check_sdp_cost(const SdpCost& c) {
  if (!std::isfinite(c.t_c) || c.t_c < 0)
    throw Error(fmt::format("SdpCost::t_c {} out of range: allowed a finite t_c >= 0", c.t_c));
  if (!std::isfinite(c.tau) || c.tau < 0)
    throw Error(fmt::format("SdpCost::tau {} out of range: allowed a finite tau >= 0", c.tau));
  if (c.packet && *c.packet < 1) throw Error(fmt::format("SdpCost::packet {} out of range: allowed B >= 1", *c.packet));
  if (c.gamma < 0 || c.gamma > static_cast<long long>(kMaxAddressBits))
    throw Error(
        fmt::format("SdpCost::gamma {} out of range: allowed 1..{} (A5's piece order), or 0 for the best divisor",
                    c.gamma, kMaxAddressBits));
}

std::uint64_t packet_words(const SdpCost& c, unsigned m) {
  return c.packet ? static_cast<std::uint64_t>(*c.packet) : bit(m);
}

SdpProblem analyse_sdp(const std::string& text, long long n_in, long long m_in, const SdpCost& cost,
                       std::optional<long long> subcube) {
  if (n_in < 0 || m_in < 0 || n_in + m_in < 1 || n_in + m_in > static_cast<long long>(kMaxAddressBits))
    throw Error(fmt::format("n = {}, m = {} out of range: allowed n, m >= 0 and 1 <= n + m <= {}", n_in, m_in,
                            kMaxAddressBits));
  const unsigned machine_n = static_cast<unsigned>(n_in), m = static_cast<unsigned>(m_in);
  check_sdp_cost(cost);
  if (subcube && (*subcube < 0 || *subcube >= n_in))
    throw Error(
        fmt::format("PermutePlan::Options::subcube_dims {} out of range: allowed 0 <= k < n = {}", *subcube, n_in));
  const unsigned n = subcube ? static_cast<unsigned>(*subcube) : machine_n;
  SdpProblem r{parse_dimension_permutation(text, n, m), {}, {}, machine_n, cost};
  r.analysis = analyze(r.perm);
  const bool all = cost.ports == PortModelChoice::all;
  r.bound = n < machine_n ? extended_cube_lower_bound(r.analysis, bit(m), machine_n, n, all, cost.t_c, cost.tau)
                          : lower_bound(r.analysis, bit(m), all, cost.t_c, cost.tau);
  // Counted in cycles of K/2 words a node: A1' and A3 move up to K words in
  // at most 2 sigma cycles, A4' up to 2K in sigma_p, A5 and A6 K/2 in fewer
  // than 2 (sigma_p + beta) <= 3 sigma, A1 n-port in beta (sigma_max + 1), the others in fewer.
  const DimensionPermutationAnalysis& a = r.analysis;
  const std::uint64_t cycles = 4 * a.sigma + a.beta * (a.sigma_max + 1);
  if ((bit(m) / 2 + 1) * cycles > kMaxScheduleExchanges)
    throw Error(
        fmt::format("the schedules for n = {}, m = {} would hold more than {} exchanges: lower PermutePlan::Options::m",
                    n, m, kMaxScheduleExchanges));
  return r;
}

std::uint64_t sdp_transfer_bound(std::uint64_t units, std::uint64_t unit_words, const std::vector<std::uint64_t>& steps,
                                 const std::vector<std::uint64_t>& sizes, std::uint64_t cycles) {
  std::uint64_t per_dimension = 0, all = 0, dims = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    per_dimension = std::max(per_dimension, (units * steps[i] + sizes[i] - 1) / sizes[i]);
    all += units * steps[i];
    dims += sizes[i];
  }
  std::uint64_t per_cycle = 0;
  if (dims > 0 && all > 0) {
    // A cycle with a_c <= q dims active units costs q (q = floor(U / dims)), one with up to U costs q + 1.
    const std::uint64_t q = units / dims, rem = units % dims;
    if (cycles * q * dims >= all) {
      per_cycle = (all + dims - 1) / dims;
    } else {
      per_cycle = cycles * q + (rem == 0 ? 0 : (all - cycles * q * dims + rem - 1) / rem);
    }
  }
  return std::max(per_dimension, per_cycle) * (unit_words / 2);
}

namespace {

// The paper's count for the candidate (Table 3, Table 4, Theorem 2) and the bound.
std::optional<SdpPaperCount> paper_count(const SdpProblem& p, const SdpCandidate& k) {
  const DimensionPermutationAnalysis& a = p.analysis;
  if (!k.plan || !a.separable || a.real_cycles == 0 || p.machine_n > p.perm.n) return std::nullopt;
  const double K = static_cast<double>(bit(p.perm.m));
  const SdpPlan& plan = *k.plan;
  SdpPaperCount c;
  std::vector<std::uint64_t> steps, sizes;
  std::uint64_t unsplit = 1;  // A5: mu
  for (const ShuffleCycle& cycle : a.cycles) {
    if (cycle.kind != ShuffleCycle::Kind::real) continue;
    const std::uint64_t s = cycle.bits.size();
    sizes.push_back(s);
    const std::uint64_t pieces = plan.gamma == 0 ? 1 : (s + plan.gamma - 1) / plan.gamma;
    steps.push_back(s + pieces);
    unsplit += pieces;
  }
  const double sp = a.sigma_p, beta = a.real_cycles, smin = a.sigma_min, smax = a.sigma_max;
  const bool all = k.ports == PortModelChoice::all;
  switch (k.algorithm) {
    case SdpAlgorithm::a1:  // Table 3, n-port: beta max_i (sigma_i + 1) K / (2 sigma_i beta), beta (sigma_max + 1) start-ups
      if (!all) return std::nullopt;
      c.element_transfers = (smin + 1) / (2 * smin) * K;
      c.startups = beta * (smax + 1);
      break;
    case SdpAlgorithm::a1_prime:  // Table 3, n-port: K t_c + beta sigma_max tau
      if (!all) return std::nullopt;
      c.element_transfers = K;
      c.startups = beta * smax;
      break;
    case SdpAlgorithm::a3:
    case SdpAlgorithm::a3_a1: {
      if (k.ports != PortModelChoice::one) return std::nullopt;
      // Sec. 4.3.2, one-port, ceil(log2 sigma_max) steps of sigma_p K t_c + sigma_p tau
      // (single path) or 3 sigma_p K / 4 t_c + 3 sigma_p / 2 tau (A1 on the 2-cube).
      const double steps3 = std::ceil(std::log2(smax)), a1 = k.algorithm == SdpAlgorithm::a3_a1 ? 0.75 : 1.0;
      c.element_transfers = steps3 * sp * K * a1;
      c.startups = steps3 * sp * (k.algorithm == SdpAlgorithm::a3_a1 ? 1.5 : 1.0);
      break;
    }
    case SdpAlgorithm::a3_pipelined: {  // Table 3, n-port: ceil(log2 sigma_max) (K/2B + 1)(tau + B t_c)
      if (!all) return std::nullopt;
      const double B = plan.schedule.rules.channel_width;  // the packet the plan was built for
      c.element_transfers = std::ceil(std::log2(smax)) * (K / 2 + B);
      c.startups = std::ceil(std::log2(smax)) * (std::ceil(K / (2 * B)) + 1);
      break;
    }
    case SdpAlgorithm::a4:
      c.element_transfers = (sp + beta) / (sp + beta + smin - 1) * K;
      c.startups = sp + beta;
      break;
    case SdpAlgorithm::a5: {
      const double g = plan.gamma, mu = static_cast<double>(unsplit - 1);
      c.element_transfers = (g + 1) / (2 * g) * K;
      c.startups = (g + 1) * mu;
      break;
    }
    case SdpAlgorithm::a6: {
      std::vector<std::uint64_t> s;
      for (std::uint64_t x : sizes) s.push_back(x + 1);
      c.element_transfers = (smin + 1) / (2 * smin) * K;  // Theorem 2: min(S) K / (2 (min(S) - 1))
      c.startups = static_cast<double>(a6_startups(s));
      break;
    }
    case SdpAlgorithm::a4_prime:  // sec. 4.6: 2K t_c + sigma_p tau (the unfinished GSH doubles the data)
      c.element_transfers = 2 * K;
      c.startups = sp;
      break;
    case SdpAlgorithm::a6_prime:  // sec. 4.6: K t_c + (2 sigma_p - 1) tau, the worst case (sigma_p at best)
      c.element_transfers = K;
      c.startups = 2 * sp - 1;
      break;
    default:
      return std::nullopt;
  }
  const bool a1_exchanges = k.algorithm != SdpAlgorithm::a3 && k.algorithm != SdpAlgorithm::a3_a1 &&
                            k.algorithm != SdpAlgorithm::a3_pipelined &&
                            k.algorithm != SdpAlgorithm::a1_prime && k.algorithm != SdpAlgorithm::a6_prime &&
                            k.algorithm != SdpAlgorithm::a4_prime;
  if (a1_exchanges && plan.unit_words >= 2)
    c.bound = sdp_transfer_bound(bit(p.perm.m) / plan.unit_words, plan.unit_words, steps, sizes, plan.schedule.cycles());
  const double paper = std::ceil(c.element_transfers - 1e-9);
  const auto have = static_cast<double>(k.model.element_transfers);
  if (have > paper && k.algorithm == SdpAlgorithm::a3_pipelined) {
    c.note = fmt::format("{} element transfers against the paper's {:.6g}: a step of P transpositions takes P phases "
                         "on P parts, each part's chains an aligned block of 2^b words a half with a cycle of fill "
                         "(K/2 + P B words in K/2B + P cycles a step for P a power of two, B = {}; docs/sdp.md, "
                         "\"A3-pipelined\")",
                         k.model.element_transfers, c.element_transfers, plan.schedule.rules.channel_width);
  } else if (have > paper) {
    if (static_cast<double>(c.bound) > paper) {
      c.note = fmt::format("the paper's {:.6g} element transfers cannot be met at K = {}: any schedule of {}'s "
                           "exchanges needs at least {} (docs/sdp.md, \"The paper's counts\")",
                           c.element_transfers, bit(p.perm.m), to_string(k.algorithm), c.bound);
    } else if (c.bound == 0) {
      c.note = fmt::format("{} element transfers against the paper's {:.6g}: the paper's parts are fractions of K, "
                           "hcube's whole words (docs/sdp.md)",
                           k.model.element_transfers, c.element_transfers);
    } else {
      c.note = fmt::format("{} element transfers against the paper's {:.6g}: the paper's parts are fractions of K, "
                           "hcube's whole units of {} words (at least {} for any schedule of these exchanges)",
                           k.model.element_transfers, c.element_transfers, plan.unit_words, c.bound);
    }
  }
  return c;
}

}  // namespace

namespace {

// A3-pipelined's packet: --packet's power of two, else Table 3's B_opt = sqrt(K tau / 2 t_c) as the power
// of two with the lowest (K/2B + 1)(tau + B t_c); at most K/2 (a half's chain).
std::uint64_t a3_packet(const SdpCost& c, unsigned m) {
  const std::uint64_t most = std::max<std::uint64_t>(1, bit(m) / 2);
  std::uint64_t best = 1;
  if (c.packet) {
    while (best * 2 <= std::min<std::uint64_t>(most, static_cast<std::uint64_t>(*c.packet))) best *= 2;
    return best;
  }
  const auto time = [&](double B) { return (static_cast<double>(bit(m)) / (2 * B) + 1) * (c.tau + B * c.t_c); };
  for (std::uint64_t B = 2; B <= most; B *= 2)
    if (time(static_cast<double>(B)) < time(static_cast<double>(best))) best = B;
  return best;
}

}  // namespace

std::vector<SdpCandidate> sdp_candidates(const SdpProblem& p) {
  const bool all = p.cost.ports == PortModelChoice::all;
  const DimensionPermutation& perm = p.perm;
  std::vector<SdpCandidate> out;
  const auto attempt = [&](SdpAlgorithm a, PortModelChoice ports,
                           const std::function<SdpPlan(const DimensionPermutation&)>& make) {
    SdpCandidate k{a, ports, std::nullopt, {}, {}, std::nullopt};
    try {
      k.plan = p.machine_n > perm.n ? plan_extended_cube(perm, p.machine_n, make) : make(perm);
      k.model = model_plan(*k.plan, p.cost.t_c, p.cost.tau, packet_words(p.cost, perm.m));
      k.paper = paper_count(p, k);
    } catch (const Error& e) {
      k.why_not = e.what();
    }
    out.push_back(std::move(k));
  };
  using P = PortModelChoice;
  attempt(SdpAlgorithm::a1, P::one, plan_a1_one_port);
  const SdpEffort effort = p.cost.effort;
  attempt(SdpAlgorithm::a1_prime, P::one, [effort](const DimensionPermutation& q) { return plan_a1_prime(q, false, effort); });
  if (!all) attempt(SdpAlgorithm::a2, P::one, [](const DimensionPermutation& q) { return plan_a2(q, false); });
  attempt(SdpAlgorithm::a3, P::one, [](const DimensionPermutation& q) { return plan_a3(q, false); });
  attempt(SdpAlgorithm::a3_a1, P::one, [effort](const DimensionPermutation& q) { return plan_a3_via_a1(q, false, effort); });
  if (all) {
    attempt(SdpAlgorithm::a2, P::all, [](const DimensionPermutation& q) { return plan_a2(q, true); });
    attempt(SdpAlgorithm::a1, P::all, [effort](const DimensionPermutation& q) { return plan_a1_all_port(q, effort); });
    attempt(SdpAlgorithm::a1_prime, P::all, [effort](const DimensionPermutation& q) { return plan_a1_prime(q, true, effort); });
    attempt(SdpAlgorithm::a3, P::all, [](const DimensionPermutation& q) { return plan_a3(q, true); });
    attempt(SdpAlgorithm::a3_a1, P::all, [effort](const DimensionPermutation& q) { return plan_a3_via_a1(q, true, effort); });
    attempt(SdpAlgorithm::a3_pipelined, P::all,
            [cost = p.cost](const DimensionPermutation& q) { return plan_a3_pipelined(q, a3_packet(cost, q.m)); });
    attempt(SdpAlgorithm::a4, P::all, [effort](const DimensionPermutation& q) { return plan_a4(q, effort); });
    const auto gamma = static_cast<unsigned>(p.cost.gamma);
    const SdpCost cost = p.cost;
    attempt(SdpAlgorithm::a5, P::all, [gamma, cost](const DimensionPermutation& q) {
      return plan_a5(q, gamma, cost.t_c, cost.tau, packet_words(cost, q.m), cost.effort);
    });
    attempt(SdpAlgorithm::a6, P::all, [effort](const DimensionPermutation& q) { return plan_a6(q, effort); });
    attempt(SdpAlgorithm::a4_prime, P::all, plan_a4_prime);
    attempt(SdpAlgorithm::a6_prime, P::all, [effort](const DimensionPermutation& q) { return plan_a6_prime(q, effort); });
    attempt(SdpAlgorithm::edelman, P::all, plan_edelman_bit_reversal);
  }
  return out;
}

const SdpCandidate& choose_sdp(const std::vector<SdpCandidate>& all, SdpAlgorithm algorithm, PortModelChoice ports) {
  const bool automatic = algorithm == SdpAlgorithm::automatic;
  const SdpCandidate* best = nullptr;
  std::string reasons;
  for (const SdpCandidate& k : all) {
    if (!automatic && k.algorithm != algorithm) continue;
    if (!k.plan) {
      reasons += fmt::format("; {} ({}-port): {}", to_string(k.algorithm), to_string(k.ports), k.why_not);
      continue;
    }
    const bool better = best == nullptr || (automatic ? k.model.time < best->model.time
                                                      : k.ports == ports && best->ports != ports);
    if (better) best = &k;
  }
  if (best != nullptr) return *best;
  if (reasons.empty())
    throw Error(fmt::format("PermutePlan::Options::algorithm {} is an n-port algorithm: it needs SdpCost::ports all",
                            to_string(algorithm)));
  throw Error("no algorithm applies" + reasons);
}

std::uint64_t lower_bound_cycles(const SdpProblem& p) {
  const DimensionPermutationAnalysis& a = p.analysis;
  if (a.sigma_p == 0) return 0;
  return p.cost.ports == PortModelChoice::all ? a.sigma_p - a.odd_real_cycles : a.sigma_p;
}

std::uint64_t memory_words(const SdpPlan& plan) {
  const Geometry geo{plan.schedule.n, plan.schedule.m};
  return AffineMap::permute_bits(geo, plan.local_after).is_involution() ? bit(geo.m) : 2 * bit(geo.m);
}

bool runs_as_schedule(const SdpPlan& plan) {
  return plan.embed.empty() && plan.align_after.empty() && plan.align_within.empty();
}

std::string perm_text(const DimensionPermutation& p) { return join(p.to, ","); }

std::string cycles_text(const DimensionPermutationAnalysis& a) {
  std::string text;
  for (const ShuffleCycle& c : a.cycles)
    text += fmt::format("{}({}: {})", text.empty() ? "" : " ", to_string(c.kind), join(c.bits, "->"));
  return text.empty() ? "(the identity)" : text;
}

}  // namespace hcube

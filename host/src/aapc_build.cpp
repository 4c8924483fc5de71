#include "hcube/host/aapc_build.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "hcube/host/aapc_permutation.hpp"
#include "hcube/host/aapc_sequence.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/edelman.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/exchange_baselines.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

AapcMethod parse_aapc_method(const std::string& s) {
  if (s == "1") return AapcMethod::alg1;
  if (s == "2") return AapcMethod::alg2;
  if (s == "3") return AapcMethod::alg3;
  if (s == "4") return AapcMethod::alg4;
  if (s == "edelman") return AapcMethod::edelman;
  if (s == "sex") return AapcMethod::sex;
  if (s == "dex") return AapcMethod::dex;
  throw Error(fmt::format("algorithm '{}' unknown: allowed 1, 2, 3, 4, edelman, sex, dex", printable_input(s)));
}

std::string to_string(AapcMethod m) {
  switch (m) {
    case AapcMethod::alg1: return "1";
    case AapcMethod::alg2: return "2";
    case AapcMethod::alg3: return "3";
    case AapcMethod::alg4: return "4";
    case AapcMethod::edelman: return "edelman";
    case AapcMethod::sex: return "sex";
    case AapcMethod::dex: return "dex";
  }
  return "?";
}

std::optional<AapcMethod> aapc_method_of(const Schedule& s) {
  try {
    return parse_aapc_method(s.algorithm);
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::optional<AapcAlgorithm> paper_algorithm(AapcMethod m) {
  switch (m) {
    case AapcMethod::alg1: return AapcAlgorithm::alg1;
    case AapcMethod::alg2: return AapcAlgorithm::alg2;
    case AapcMethod::alg3: return AapcAlgorithm::alg3;
    case AapcMethod::alg4: return AapcAlgorithm::alg4;
    default: return std::nullopt;
  }
}

bool is_baseline(AapcMethod m) { return m == AapcMethod::sex || m == AapcMethod::dex; }

namespace {

ExchangeBaseline baseline_of(AapcMethod m) {
  return m == AapcMethod::sex ? ExchangeBaseline::standard : ExchangeBaseline::direct;
}

}  // namespace

std::string channel_width_range() {
  return fmt::format("allowed 1..{}, or cm2 (b = {})", std::numeric_limits<std::uint32_t>::max(), kCm2ChannelWidth);
}

void check_channel_width(std::uint64_t b) {
  if (b < 1 || b > std::numeric_limits<std::uint32_t>::max())
    throw Error(fmt::format("channel width b = {} out of range: {}", b, channel_width_range()));
}

AapcOptions check_aapc_request(const AapcRequest& r) {
  if (r.unaligned && r.method != AapcMethod::edelman)
    throw Error("AapcRequest::unaligned applies to AapcRequest::method edelman only");
  if (is_baseline(r.method) && (r.blocked || r.channel_width != 1))
    throw Error(fmt::format(
        "AapcRequest::blocked and AapcRequest::channel_width do not apply to AapcRequest::method {}: it sends "
        "whole blocks already",
        to_string(r.method)));
  if (r.channel_width < 1)
    throw Error(fmt::format("channel width b = {} out of range: {}", r.channel_width, channel_width_range()));
  check_channel_width(static_cast<std::uint64_t>(r.channel_width));
  // Left out means d; a negative value given is a mistake, never the default.
  const long long d = r.d, n = r.n.value_or(d), m = r.m.value_or(d);
  check_aapc_dimensions(d, n, m);
  const std::uint64_t exchanges = aapc_schedule_exchanges(static_cast<unsigned>(d), static_cast<unsigned>(m));
  if (exchanges > kMaxScheduleExchanges)
    throw Error(
        fmt::format("the schedule for d = {}, m = {} holds {} exchanges: allowed at most {}; lower AapcRequest::m", d,
                    m, exchanges, kMaxScheduleExchanges));
  AapcOptions o;
  o.algorithm = paper_algorithm(r.method).value_or(AapcAlgorithm::alg4);
  o.lines = r.lines;
  o.pairs = r.pairs;
  o.d = static_cast<unsigned>(d);
  o.n = static_cast<unsigned>(n);
  o.m = static_cast<unsigned>(m);
  return o;
}

BuiltSchedule build_aapc_schedule(const AapcRequest& r) {
  const AapcOptions o = check_aapc_request(r);
  const unsigned b = static_cast<unsigned>(r.channel_width);
  Schedule s = r.method == AapcMethod::edelman ? make_edelman_schedule(o.d, o.n, o.m, !r.unaligned)
               : is_baseline(r.method)         ? make_exchange_baseline(baseline_of(r.method), o.d, o.n, o.m)
                                               : make_aapc_schedule(o);
  if (r.blocked) s = block_schedule(s);
  if (b > 1) s = widen_schedule(s, b);
  ScheduleStats stats = check_schedule(s);
  return {std::move(s), std::move(stats)};
}

bool plain_aapc(const Schedule& s) {
  return s.pre == AlignmentKind::xor_align && s.post == AlignmentKind::xor_align && s.axes == 1 &&
         !uses_offset_maps(s) && s.perm.empty();
}

std::optional<CycleBound> cycle_bound(const Schedule& s) {
  const std::optional<AapcMethod> method = aapc_method_of(s);
  if (!method) return std::nullopt;
  // Edelman's table: 2^(d-1) steps, every link busy, for each 2^d words: K/2, the lower bound.
  if (*method == AapcMethod::edelman) {
    if (s.blocked || s.rules.channel_width != 1) return std::nullopt;
    const std::uint64_t half = bit(s.m - 1);
    return CycleBound{half, "Edelman: K/2, every link busy", AapcBounds{half, 0, 0, 0}};
  }
  if (is_baseline(*method)) {
    const BaselineCost c = baseline_cost(baseline_of(*method), s.d);
    return CycleBound{c.cycles,
                      *method == AapcMethod::sex ? "notes: d rounds" : "notes: 2^d - 1 rounds of popcount(i) hops",
                      AapcBounds{c.cycles, 0, 0, 0}, false};
  }
  if (!plain_aapc(s)) return std::nullopt;
  const AapcBounds paper = paper_bounds(*paper_algorithm(*method), s.d, s.m);
  if (s.blocked) return CycleBound{paper.block_transfers, "Lemma 4: block transfers", paper};
  // Sec. 7 sums Lemma 5 up, for the schedules of K/2 cycles, as Table 9's
  // labelling gives; Algorithm 1's d ceil(K/2d) cycles keep the lemma's own count.
  if (s.rules.channel_width > 1 && method == AapcMethod::alg1)
    return CycleBound{lemma5_cycles(s.d, s.m, s.rules.channel_width), "Lemma 5: d ceil(K / 2db)", paper};
  if (s.rules.channel_width > 1)
    return CycleBound{wide_channel_cycles(s.d, s.m, s.rules.channel_width),
                      bit(s.m - 1) / s.d >= s.rules.channel_width ? "Lemma 5 with Table 9 (sec. 7): ceil(K / 2b)"
                                                                  : "Lemma 5 (sec. 7): d, as floor(K / 2d) < b",
                      paper};
  return CycleBound{paper.cycles, "Table 6", paper};
}

std::optional<NamedPermutation> named_permutation(const Schedule& s) {
  const Geometry geo = s.geometry();
  if (!s.perm.empty()) {  // the bit permutation it names, whatever its alignments
    const DimensionPermutation p{s.n, s.m, s.perm};
    return NamedPermutation{[p](std::uint64_t g) { return p.apply(g); }, "dimension-permutation",
                            fmt::format("address bit i -> bit perm[i], perm = {}", fmt::join(s.perm, ",")),
                            AffineAddressMap::permute_bits(s.perm)};
  }
  const std::optional<AapcMethod> method = aapc_method_of(s);
  const bool edelman_unaligned = method == AapcMethod::edelman && s.pre == AlignmentKind::none &&
                                 s.post == AlignmentKind::none && s.axes == 1 && !uses_offset_maps(s);
  if (plain_aapc(s) || edelman_unaligned) {
    PermutationPlan p = plan_aapc_permutation(AapcPermutation::transpose, geo, s.d);
    return NamedPermutation{std::move(p.destination), to_string(AapcPermutation::transpose), std::move(p.formula),
                            std::move(p.destination_form)};
  }
  const bool sequence = s.pre != AlignmentKind::none && (s.axes > 1 || !s.axis_dims.empty());
  if (!sequence) return std::nullopt;
  const std::vector<unsigned> widths = s.axis_widths();
  std::string formula = fmt::format("(a_{}..a_1|a_0) -> (a_{}..a_0|a_{}) on axes of", s.axes, s.axes - 1, s.axes);
  for (unsigned w : widths) formula += fmt::format(" {}", w);
  formula += " bits";
  if (!s.axis_order.empty()) {
    formula += ", in the order";
    for (unsigned u : s.axis_order) formula += fmt::format(" {}", u);
  }
  AddressMap dest = !s.axis_dims.empty() ? shuffle_destination(geo, s.axis_dims)
                                         : shuffle_destination(geo, s.d, s.axes, s.axis_order);
  AffineAddressMap form = AffineAddressMap::of(dest, geo.address_bits());
  return NamedPermutation{std::move(dest), "generalized-shuffle", std::move(formula), std::move(form)};
}

std::string describe_schedule(const Schedule& s) {
  const std::optional<AapcMethod> method = aapc_method_of(s);
  std::string text;
  if (method && paper_algorithm(*method))
    text = "Algorithm " + s.algorithm;
  else if (method == AapcMethod::sex)
    text = "standard exchange (SEX: one-port, combining)";
  else if (method == AapcMethod::dex)
    text = "direct exchange (DEX: e-cube, one packet a round)";
  else if (method == AapcMethod::edelman)
    text = s.pre == AlignmentKind::none ? "Edelman's schedule, unaligned (node k uses w xor k)"
                                        : "Edelman's schedule, aligned";
  else
    text = "schedule '" + printable_text(s.algorithm) + "'";
  if (!s.lines.empty()) text += " (" + printable_text(s.lines) + " lines)";
  text += fmt::format(", d = {} on n = {}, m = {} (K = {}), channel width {}", s.d, s.n, s.m, bit(s.m),
                      s.rules.channel_width);
  if (s.rules.model == PortModel::one_port) text += ", one-port";
  if (s.blocked) text += ", blocked";
  return text;
}

}  // namespace hcube

// The fewest routing cycles of an AAPC, a sequence of AAPCs or a permutation of the address bits
// on hcube's machine, by SAT (the encoding of scripts/corollary2_sat.py, docs/multi-aapc.md
// "Corollary 2 decided", ported to C++ and solved incrementally over T with CaDiCaL's assumptions).
#include "hcube/synthesize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <numeric>

#include "hcube/core/bits.hpp"
#include "hcube/core/error.hpp"
#include "hcube/host/affine_map.hpp"
#include "hcube/host/aapc_sequence.hpp"
#include "hcube/host/dimension_permutation.hpp"
#include "hcube/host/parse.hpp"

#if HCUBE_HAVE_CADICAL
#include <cadical.hpp>
#endif

namespace hcube {

namespace {

// The encoding grows with the words (N K slots of n + m bits a cycle): 2^9 words (two AAPCs of
// d = 3) solve in seconds, 2^11 took the script 11 minutes (docs/multi-aapc.md); 2^12 at most.
constexpr long long kMaxSynthesisBits = 12;
constexpr long long kMaxSynthesisCycles = 256;
constexpr double kMaxTimeLimit = 1e6;

using Clock = std::chrono::steady_clock;

[[maybe_unused]] double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The sizes a request names, checked: the axes' orders, n and m.
struct Shape {
  bool aapc = true;
  bool permute = false;          // a bit permutation, no alignments: the cycles alone move every word
  std::vector<unsigned> perm;    // permute: source address bit i to bit perm[i]
  std::vector<unsigned> widths;
  unsigned n = 0, m = 0;
  PortModel port = PortModel::all_port;
};

// The flags every pattern shares: the port model (returned), the most cycles and the time limit.
// One-port is the scatter's default: the notes' model of its DEX.
std::string port_model_of(const SynthesisRequest& r) {
  return !r.port_model.empty() ? r.port_model : r.pattern == "scatter" ? "one" : "all";
}

PortModel check_search(const SynthesisRequest& r) {
  if (port_model_of(r) != "all" && port_model_of(r) != "one")
    throw Error(fmt::format("SynthesisRequest::port_model {}: allowed all, one", printable_input(r.port_model)));
  if (r.max_cycles != kUnsetSize && (r.max_cycles < 1 || r.max_cycles > kMaxSynthesisCycles))
    throw Error(fmt::format("SynthesisRequest::max_cycles {} out of range: allowed 1 .. {}", r.max_cycles,
                            kMaxSynthesisCycles));
  // Bounded so that the deadline stays within the clock's range.
  if (!(r.time_limit >= 0 && r.time_limit <= kMaxTimeLimit))
    throw Error(fmt::format("SynthesisRequest::time_limit {} out of range: allowed 0 (none) .. {} seconds",
                            r.time_limit, kMaxTimeLimit));
  return port_model_of(r) == "one" ? PortModel::one_port : PortModel::all_port;
}

Shape check_request(const SynthesisRequest& r) {
  Shape sh;
  if (r.pattern != "aapc" && r.pattern != "multi-aapc" && r.pattern != "permute")
    throw Error(fmt::format("unknown pattern '{}': allowed aapc, multi-aapc, permute, scatter", printable_input(r.pattern)));
  if (!r.topology.empty())
    throw Error(fmt::format("SynthesisRequest::topology {} applies to scatter only, not {}", printable_input(r.topology),
                            r.pattern));
  sh.aapc = r.pattern == "aapc";
  sh.permute = r.pattern == "permute";
  if (sh.permute != !r.perm.empty())
    throw Error(sh.permute ? std::string("SynthesisRequest::perm missing: permute needs the permutation p0,...,p(n+m-1) "
                                         "or a name (transpose, bit-reversal, shuffle:k, ...)")
                           : fmt::format("SynthesisRequest::perm {} applies to permute only", printable_input(r.perm)));
  sh.port = check_search(r);
  if (r.dims.empty())
    throw Error(fmt::format("SynthesisRequest::dims missing: {} needs {}", r.pattern,
                            sh.permute ? "n, the processor dimensions"
                            : sh.aapc  ? "d, the AAPC's dimensions"
                                       : "d (with the axes) or the axes' orders d_1,d_2,..."));
  if (r.axes != kUnsetSize && r.pattern != "multi-aapc")
    throw Error(fmt::format("SynthesisRequest::axes {} applies to multi-aapc only, not {}", r.axes, r.pattern));
  if (sh.permute) {
    const std::vector<unsigned> list = parse_uint_list(r.dims, "SynthesisRequest::dims");
    const long long n = list.size() == 1 ? list[0] : -1, m = r.m == kUnsetSize ? n : r.m;
    if (list.size() != 1)
      throw Error(fmt::format("SynthesisRequest::dims {}: give one n, the processor dimensions", printable_input(r.dims)));
    // At least one bit of each: a schedule file names d >= 1 memory and processor dimensions.
    if (n < 1 || m < 1 || n + m > kMaxSynthesisBits)
      throw Error(fmt::format("n = {}, m = {} out of range for the synthesizer: allowed n, m >= 1 and n + m <= {}", n, m,
                              kMaxSynthesisBits));
    sh.n = static_cast<unsigned>(n);
    sh.m = static_cast<unsigned>(m);
    sh.perm = parse_dimension_permutation(r.perm, sh.n, sh.m).to;  // hcube permute's own parser
  } else if (sh.aapc) {
    const std::vector<unsigned> list = parse_uint_list(r.dims, "SynthesisRequest::dims");
    if (list.size() != 1)
      throw Error(fmt::format("SynthesisRequest::dims {}: give one d for an AAPC", printable_input(r.dims)));
    if (list[0] < 1 || list[0] > kMaxSynthesisBits / 2)
      throw Error(
          fmt::format("SynthesisRequest::dims {} out of range: allowed 1 .. {}", list[0], kMaxSynthesisBits / 2));
    sh.widths = list;
    sh.n = list[0];
    const long long m = r.m == kUnsetSize ? list[0] : r.m;
    if (m < list[0]) throw Error(fmt::format("SynthesisRequest::m {} out of range: allowed d = {} <= m", m, list[0]));
    if (sh.n + m > kMaxSynthesisBits)
      throw Error(fmt::format("n + m = {} + {} too large for the synthesizer: allowed at most {}", sh.n, m, kMaxSynthesisBits));
    sh.m = static_cast<unsigned>(m);
  } else {
    MultiAapcRequest q;
    q.axes = r.axes;
    q.dims = r.dims;
    q.m = r.m;
    const MultiAapcDesign p = multi_aapc_sizes(q);  // multi-aapc's own checks of the sizes
    if (!std::is_sorted(p.dims.rbegin(), p.dims.rend()))
      throw Error(fmt::format("SynthesisRequest::dims {}: the axes' orders must be non-increasing (sec. 4.1)",
                              printable_input(r.dims)));
    if (p.n + p.m > kMaxSynthesisBits)
      throw Error(fmt::format("n + m = {} + {} too large for the synthesizer: allowed at most {}", p.n, p.m, kMaxSynthesisBits));
    sh.widths = p.dims;
    sh.n = p.n;
    sh.m = p.m;
  }
  return sh;
}

// The slot (node, x) of Lemma 1's aligned frame is node * K + x. Before the cycles the word in
// slot p must reach start[p]: the alignment A, the shuffle S, A again (A(S(A(p))), sec. 2.3).
// A permutation has no alignments: slot g is global address g, its word's target perm(g).
[[maybe_unused]] std::vector<std::uint64_t> routing_targets(const Shape& sh) {
  const Geometry geo{sh.n, sh.m};
  if (sh.permute) {
    const DimensionPermutation p{sh.n, sh.m, sh.perm};
    std::vector<std::uint64_t> target(geo.total_words());
    for (std::uint64_t g = 0; g < target.size(); ++g) target[g] = p.apply(g);
    return target;
  }
  const std::uint64_t K = geo.words_per_node();
  const AffineMap align = AffineMap::xor_fold(geo, sh.widths);
  const AddressMap shuffle = shuffle_destination(geo, sh.widths);
  std::vector<std::uint64_t> target(geo.total_words());
  for (std::uint64_t node = 0; node < geo.nodes(); ++node)
    for (std::uint64_t x = 0; x < K; ++x) {
      const std::uint64_t to = shuffle(geo.global(node, align.apply(node, x)));
      target[node * K + x] = geo.node_of(to) * K + align.apply(geo.node_of(to), geo.local_of(to));
    }
  return target;
}

// Runs the schedule's exchanges on the aligned slots (apart from the CNF): whether every word ends
// in its own slot.
[[maybe_unused]] bool routes_home(const Schedule& s, const std::vector<std::uint64_t>& target) {
  const std::uint64_t K = std::uint64_t{1} << s.m, N = std::uint64_t{1} << s.n;
  std::vector<std::uint64_t> mem = target;
  for (std::size_t c = 0; c < s.cycles(); ++c) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> swaps;
    for (std::size_t e = 0; e < s.cycle_size(c); ++e) {
      const Exchange& x = s.cycle_begin(c)[e];
      for (std::uint64_t j = 0; j < N; ++j) {
        if ((j >> x.dim) & 1) continue;
        const std::uint64_t hi = j | (std::uint64_t{1} << x.dim);
        const std::uint64_t lo_off = x.offset_map ? apply_offset(s.offset_maps.at(x.offset_map - 1), j) : 0;
        const std::uint64_t hi_off = x.offset_map ? apply_offset(s.offset_maps.at(x.offset_map - 1), hi) : 0;
        swaps.emplace_back(j * K + (x.addr ^ lo_off), hi * K + (x.peer_addr ^ hi_off));
      }
    }
    for (const auto& [a, b] : swaps) std::swap(mem[a], mem[b]);
  }
  for (std::uint64_t p = 0; p < mem.size(); ++p)
    if (mem[p] != p) return false;
  return true;
}

// --- scatter: packets to rounds ---------------------------------------------------

// The all-to-all scatter's lower bounds on rounds, valid for any direct routing (so that they prove
// optimality beyond the model's routes): the largest, and which it is.
[[maybe_unused]] std::pair<std::uint64_t, std::string> scatter_bound(const ScatterTopology& t, PortModel port) {
  const std::uint64_t N = t.cube ? std::uint64_t{1} << t.d : t.grid.nodes();
  std::pair<std::uint64_t, std::string> best{1, "ports"};
  const auto offer = [&](std::uint64_t v, const char* proof) {
    if (v > best.first) best = {v, proof};
  };
  const auto ceil_div = [](std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; };
  // Bisection (notes sec. 4): a cut with a and b nodes on its sides and `links` directed links
  // across one way carries a b packets that way.
  std::uint64_t hops = 0, in_degree = N;  // every shortest path's links, the fewest links into a node
  if (t.cube) {
    offer(ceil_div((N / 2) * (N / 2), N / 2), "bisection");
    hops = N * t.d * (N / 2);
    in_degree = t.d;
  } else {
    const GridTopology& g = t.grid;
    for (unsigned k = 0; k < g.dims(); ++k) {
      const std::uint64_t z = g.side(k), other = g.nodes() / z, h = z / 2;
      offer(ceil_div(h * other * (z - h) * other, other * (g.wraps() ? 2 : 1)), "bisection");
    }
    for (std::uint64_t a = 0; a < N; ++a) {
      std::uint64_t links = 0;
      for (unsigned k = 0; k < g.dims(); ++k)
        for (const int dir : {1, -1}) links += g.neighbour(a, k, dir).has_value() ? 1 : 0;
      if (g.kind == GridKind::ring && g.z1 == 2) links = 2;  // T(2): two edges between its nodes
      in_degree = std::min(in_degree, links);
      for (std::uint64_t b = 0; b < N; ++b)
        for (unsigned k = 0; k < g.dims(); ++k) {
          const std::uint64_t d = g.coord(a, k) > g.coord(b, k) ? g.coord(a, k) - g.coord(b, k) : g.coord(b, k) - g.coord(a, k);
          hops += g.wraps() ? std::min(d, g.side(k) - d) : d;
        }
    }
  }
  // One-port: a node receives its N - 1 packets one a round; all-port: over its links in.
  offer(port == PortModel::one_port ? N - 1 : ceil_div(N - 1, in_degree), port == PortModel::one_port ? "one-port" : "ports");
  const std::uint64_t directed = t.cube ? N * t.d : t.grid.directed_links();
  offer(ceil_div(hops, directed), "links");
  return best;
}

#if HCUBE_HAVE_CADICAL

// Packet p in round t: x[p][t]; its route c of several: y[p][c]. A directed link carries at most one
// packet a round, one-port nodes send and receive one; the rounds' order is free, so the first packet
// goes in round 0. Incremental: each round a layer, the goal of T (every packet in one of the first T
// rounds) an assumption.
class ScatterEncoding {
 public:
  ScatterEncoding(CaDiCaL::Solver& solver, const ScatterTopology& t, PortModel port) : s_(solver), port_(port) {
    const std::uint64_t N = t.cube ? std::uint64_t{1} << t.d : t.grid.nodes();
    for (std::uint64_t a = 0; a < N; ++a)
      for (std::uint64_t b = 0; b < N; ++b)
        if (a != b) {
          packets_.push_back({a, b, 0});
          routes_.push_back(scatter_routes(t, a, b));
          std::vector<int>& y = choice_.emplace_back();
          if (routes_.back().size() > 1) {
            for (std::size_t c = 0; c < routes_.back().size(); ++c) y.push_back(++vars_);
            add(y);
            at_most_one(y);
          }
        }
    std::uint64_t links = 0;
    for (const std::vector<ScatterRoute>& rs : routes_)
      for (const ScatterRoute& r : rs)
        for (std::uint64_t l : r.links) links = std::max(links, l + 1);
    users_.resize(links);
    for (std::size_t p = 0; p < routes_.size(); ++p)
      for (std::size_t c = 0; c < routes_[p].size(); ++c)
        for (std::uint64_t l : routes_[p][c].links) users_[l].push_back({p, c});
  }

  std::size_t layers() const { return x_.size(); }
  std::uint64_t variables() const { return static_cast<std::uint64_t>(vars_); }
  std::uint64_t clauses() const { return clauses_; }

  void add_layer() {
    const std::size_t t = x_.size();
    std::vector<int>& x = x_.emplace_back(packets_.size());
    for (int& v : x) v = ++vars_;
    for (std::size_t p = 0; p < packets_.size(); ++p)
      for (std::size_t u = 0; u < t; ++u) add({-x_[u][p], -x[p]});  // one round a packet
    if (t == 0) add({x[0]});
    for (const auto& on : users_)
      for (std::size_t i = 0; i < on.size(); ++i)
        for (std::size_t k = i + 1; k < on.size(); ++k) {
          const auto [p, c] = on[i];
          const auto [q, e] = on[k];
          if (p == q) continue;
          std::vector<int> cl{-x[p], -x[q]};
          if (!choice_[p].empty()) cl.push_back(-choice_[p][c]);
          if (!choice_[q].empty()) cl.push_back(-choice_[q][e]);
          add(cl);
        }
    if (port_ == PortModel::one_port) {
      std::map<std::uint64_t, std::vector<int>> sends, receives;
      for (std::size_t p = 0; p < packets_.size(); ++p) {
        sends[packets_[p].src].push_back(x[p]);
        receives[packets_[p].dst].push_back(x[p]);
      }
      for (const auto* side : {&sends, &receives})
        for (const auto& [node, lits] : *side) at_most_one(lits);
    }
  }

  int goal(std::size_t T) {
    if (goals_.size() <= T) goals_.resize(T + 1, 0);
    if (goals_[T] != 0) return goals_[T];
    const int g = goals_[T] = ++vars_;
    for (std::size_t p = 0; p < packets_.size(); ++p) {
      std::vector<int> cl{-g};
      for (std::size_t t = 0; t < T; ++t) cl.push_back(x_[t][p]);
      add(cl);
    }
    return g;
  }

  std::vector<std::vector<ScatterPacket>> decode(std::size_t T) const {
    std::vector<std::vector<ScatterPacket>> rounds(T);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t p = 0; p < packets_.size(); ++p) {
        if (s_.val(x_[t][p]) <= 0) continue;
        ScatterPacket k = packets_[p];
        for (std::size_t c = 0; c < choice_[p].size(); ++c)
          if (s_.val(choice_[p][c]) > 0) k.dir = routes_[p][c].dir;
        if (choice_[p].empty()) k.dir = routes_[p][0].dir;
        rounds[t].push_back(k);
      }
    return rounds;
  }

 private:
  void add(const std::vector<int>& clause) {
    for (int l : clause) s_.add(l);
    s_.add(0);
    ++clauses_;
  }
  void at_most_one(const std::vector<int>& lits) {
    for (std::size_t i = 0; i < lits.size(); ++i)
      for (std::size_t k = i + 1; k < lits.size(); ++k) add({-lits[i], -lits[k]});
  }

  CaDiCaL::Solver& s_;
  PortModel port_;
  int vars_ = 0;
  std::uint64_t clauses_ = 0;
  std::vector<ScatterPacket> packets_;
  std::vector<std::vector<ScatterRoute>> routes_;
  std::vector<std::vector<int>> choice_;                           // per packet: its routes' literals (none: one route)
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> users_;  // per link: (packet, route)
  std::vector<std::vector<int>> x_;                                // per round: per packet
  std::vector<int> goals_;
};

#endif  // HCUBE_HAVE_CADICAL

#if HCUBE_HAVE_CADICAL

// Stops the solver at the request's deadline (CaDiCaL polls it).
class Deadline : public CaDiCaL::Terminator {
 public:
  explicit Deadline(double seconds, Clock::time_point t0)
      : none_(seconds <= 0), end_(t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds))) {}
  bool terminate() override { return !none_ && Clock::now() >= end_; }

 private:
  bool none_;
  Clock::time_point end_;
};

// The machine's cycles as CNF, one cycle (layer) at a time. Each slot holds its word's
// destination slot in n + m bits; a dimension r of a cycle is idle or one exchange {addr a,
// offset columns of the other n - 1 node bits, delta}: the low node j touches a xor L'(j), the
// high node that xor delta (hcube's Exchange with peer_addr = a xor delta and column r of L zero).
class Encoding {
 public:
  // `restricted`: the search is restricted to words that cross only dimensions toward their
  // destination and, but for a permutation (whose words must change address), keep their address
  // (delta = 0); for an AAPC also to no offset maps, so that a schedule found is the
  // direct-addressed AAPC check_schedule verifies (sec. 2.2.1). A word that only changes address
  // must leave its node and come back: where there is one, a word at its node may step off it.
  // `symmetric` (with restricted, where translation_invariant): also to schedules the translations
  // (c, ..., c) map onto themselves, so only nodes with axis 1 = 0 are encoded.
  Encoding(CaDiCaL::Solver& solver, const Shape& sh, const std::vector<std::uint64_t>& target, bool restricted,
           bool symmetric = false)
      : s_(solver), sh_(sh), K_(std::uint64_t{1} << sh.m), N_(std::uint64_t{1} << sh.n), B_(sh.n + sh.m),
        restricted_(restricted), symmetric_(symmetric) {
    for (std::uint64_t p = 0; p < target.size(); ++p) detours_ |= target[p] != p && (target[p] >> sh.m) == (p >> sh.m);
    if (symmetric_) {
      if (!translation_invariant(sh, target))
        throw Error("internal error: a translation-symmetric search of a target the translations do not keep");
      mask_ = (std::uint64_t{1} << sh.widths[0]) - 1;
      for (std::uint64_t c = 0; c <= mask_; ++c) flips_.push_back(translation(sh, c));
    }
    for (std::uint64_t j = 0; j < N_; ++j)
      if (tracked(j)) nodes_.push_back(j);
    true_ = var();
    add({true_});
    std::vector<std::vector<int>> start(N_ * K_);
    for (std::uint64_t j : nodes_)
      for (std::uint64_t u = 0; u < K_; ++u) start[j * K_ + u] = constant(target[j * K_ + u]);
    states_.push_back(std::move(start));
  }

  // The translation by c on every axis, as the xor it applies to a slot (node * K + address): Lemma
  // 1's fold counts c once per axis and once for the memory axis, so the aligned address moves by c
  // when the axes are even in number.
  static std::uint64_t translation(const Shape& sh, std::uint64_t c) {
    const unsigned d = sh.widths[0];
    std::uint64_t node = 0;
    for (std::size_t u = 0; u < sh.widths.size(); ++u) node |= c << (u * d);
    return (node << sh.m) | (sh.widths.size() % 2 == 0 ? c : 0);
  }

  // Whether every translation maps the target onto itself: a sequence of AAPCs on two or more
  // equal axes, with m >= d (checked on the targets, not assumed).
  static bool translation_invariant(const Shape& sh, const std::vector<std::uint64_t>& target) {
    if (sh.aapc || sh.permute || sh.widths.size() < 2 || sh.m < sh.widths[0] ||
        !std::all_of(sh.widths.begin(), sh.widths.end(), [&](unsigned w) { return w == sh.widths[0]; }))
      return false;
    for (unsigned b = 0; b < sh.widths[0]; ++b) {  // the translations are generated by c = each bit
      const std::uint64_t f = translation(sh, std::uint64_t{1} << b);
      for (std::uint64_t p = 0; p < target.size(); ++p)
        if (target[p ^ f] != (target[p] ^ f)) return false;
    }
    return true;
  }

  std::size_t layers() const { return params_.size(); }
  void require(int lit) { add({lit}); }
  std::uint64_t variables() const { return static_cast<std::uint64_t>(vars_); }
  std::uint64_t clauses() const { return clauses_; }

  // Appends the cycle after the last one; `last`: the cycle after which every word is at home (its
  // state constants, as in scripts/corollary2_sat.py; for a model asked at one T only).
  void add_layer(bool last = false) {
    const unsigned n = sh_.n, m = sh_.m;
    const std::vector<std::vector<int>>& old = states_.back();
    std::vector<Dim> dims(n);
    // touch[(r * N + node) * K + u]: node's word u takes part in dimension r's exchange.
    std::vector<int> touch(n * N_ * K_, 0);
    std::vector<std::vector<int>> sent(n * N_);  // the destination of the word node sends across r
    for (unsigned r = 0; r < n; ++r) {
      Dim& d = dims[r];
      d.act = var();
      d.a = vars(m);
      d.delta = vars(m);
      d.cols.assign(n, {});
      for (unsigned k = 0; k < n; ++k)
        if (k != r) d.cols[k] = vars(m);
      // Symmetry (restricted model): an idle dimension's parameters are all zero (they change nothing).
      const auto zero_when_idle = [&](const std::vector<int>& bits) {
        for (int b : bits) add({d.act, -b});
      };
      if (restricted_) {
        zero_when_idle(d.a);
        zero_when_idle(d.delta);
        for (unsigned k = 0; k < n; ++k) zero_when_idle(d.cols[k]);
      }
      if (restricted_ && !sh_.permute)
        for (int b : d.delta) add({-b});
      if (restricted_ && sh_.aapc)
        for (unsigned k = 0; k < n; ++k)
          for (int b : d.cols[k]) add({-b});
      // Symmetric: the touched address moves as the translation moves it, u(j xor (c..c)) = u(j) xor
      // (its address part), for c = each bit b; a translation with bit r set swaps the edge's ends.
      for (unsigned b = 0; symmetric_ && b < sh_.widths[0]; ++b)
        for (unsigned bit_ = 0; bit_ < m; ++bit_) {
          std::vector<int> terms;
          for (unsigned k = b; k < n; k += sh_.widths[0])
            if (k != r) terms.push_back(d.cols[k][bit_]);
          if (r % sh_.widths[0] == b) terms.push_back(d.delta[bit_]);
          const int x = xor_of(terms);
          add({((flips_[std::uint64_t{1} << b] >> bit_) & 1) ? x : -x});
        }
      for (std::uint64_t j = 0; j < N_; ++j) {
        if ((j >> r) & 1) continue;
        if (!tracked(j) && !tracked(j | (std::uint64_t{1} << r))) continue;
        std::vector<int> lo(m), hi(m);
        for (unsigned b = 0; b < m; ++b) {
          std::vector<int> terms{d.a[b]};
          for (unsigned k = 0; k < n; ++k)
            if (k != r && ((j >> k) & 1)) terms.push_back(d.cols[k][b]);
          lo[b] = xor_of(terms);
          hi[b] = xor_of({lo[b], d.delta[b]});
        }
        const std::uint64_t jh = j | (std::uint64_t{1} << r);
        for (const auto& [node, bits] : {std::pair{j, &lo}, std::pair{jh, &hi}}) {
          if (!tracked(node)) continue;
          std::vector<int>& out = sent[r * N_ + node];
          out = vars(B_);
          for (std::uint64_t u = 0; u < K_; ++u) {
            const int t = var();
            std::vector<int> conj{d.act};
            for (unsigned b = 0; b < m; ++b) conj.push_back(((u >> b) & 1) ? (*bits)[b] : -(*bits)[b]);
            and_of(t, conj);
            touch[(r * N_ + node) * K_ + u] = t;
            const std::vector<int>& src = old[node * K_ + u];
            // Restricted: a word crosses r only toward its destination node (a shortest path), or
            // (detours) off it: where bit r matches, every other node bit must too.
            if (restricted_) {
              const int toward = ((node >> r) & 1) ? -src[m + r] : src[m + r];
              if (!detours_) add({-t, toward});
              for (unsigned k = 0; k < n && detours_; ++k)
                if (k != r) add({-t, toward, ((node >> k) & 1) ? src[m + k] : -src[m + k]});
            }
            for (unsigned b = 0; b < B_; ++b) {
              add({-t, -src[b], out[b]});
              add({-t, src[b], -out[b]});
            }
          }
        }
      }
    }
    // The port model: one-port, at most one dimension a cycle.
    if (sh_.port == PortModel::one_port)
      for (unsigned x = 0; x < n; ++x)
        for (unsigned y = x + 1; y < n; ++y) add({-dims[x].act, -dims[y].act});
    // Symmetry (restricted model): no idle cycle. Sound for the fewest cycles: T is only asked once T - 1 is proven
    // impossible, and a T-cycle schedule with an idle cycle would be a (T - 1)-cycle one.
    if (restricted_) {
      std::vector<int> any;
      for (const Dim& d : dims) any.push_back(d.act);
      add(any);
    }
    std::vector<std::vector<int>> next(N_ * K_);
    for (std::uint64_t j : nodes_)
      for (std::uint64_t u = 0; u < K_; ++u) {
        std::vector<int>& now = next[j * K_ + u];
        now = last ? constant(j * K_ + u) : vars(B_);
        std::vector<int> lits(n);
        for (unsigned r = 0; r < n; ++r) lits[r] = touch[(r * N_ + j) * K_ + u];
        // No word in two exchanges of one cycle (check_cycle's rule).
        for (unsigned x = 0; x < n; ++x)
          for (unsigned y = x + 1; y < n; ++y) add({-lits[x], -lits[y]});
        const std::vector<int>& was = old[j * K_ + u];
        for (unsigned b = 0; b < B_; ++b) {  // untouched: the word stays
          std::vector<int> c = lits;
          c.push_back(-was[b]);
          c.push_back(now[b]);
          add(c);
          c[n] = was[b];
          c[n + 1] = -now[b];
          add(c);
        }
        for (unsigned r = 0; r < n; ++r) {  // touched across r: the partner's word arrives
          const std::uint64_t peer = j ^ (std::uint64_t{1} << r);
          // Symmetric: an untracked partner's word is the translate of its tracked image's.
          const std::uint64_t flip = tracked(peer) ? 0 : flips_[peer & mask_];
          const std::vector<int>& src = sent[r * N_ + (peer ^ (flip >> m))];
          for (unsigned b = 0; b < B_; ++b) {
            const int w = ((flip >> b) & 1) ? -src[b] : src[b];
            add({-lits[r], -w, now[b]});
            add({-lits[r], w, -now[b]});
          }
        }
      }
    states_.push_back(std::move(next));
    params_.push_back(std::move(dims));
  }

  // The literal that, assumed, asks for every word at home after the first T cycles (T <=
  // layers()). Implied clauses under it: a word crosses at most one dimension a cycle, so after
  // t cycles it is at most T - t dimensions from its destination node.
  int goal(std::size_t T) {
    if (goals_.size() <= T) goals_.resize(T + 1, 0);
    if (goals_[T] != 0) return goals_[T];
    const int g = goals_[T] = var();
    const unsigned n = sh_.n, m = sh_.m;
    for (std::uint64_t j : nodes_)
      for (std::uint64_t p = j * K_; p < (j + 1) * K_; ++p)
        for (unsigned b = 0; b < B_; ++b) add({-g, ((p >> b) & 1) ? states_[T][p][b] : -states_[T][p][b]});
    for (std::size_t t = 1; t < T; ++t) {
      const std::size_t left = T - t;
      if (left >= n) continue;
      for (std::uint64_t j : nodes_)
        for (std::uint64_t u = 0; u < K_; ++u) {
          const std::vector<int>& w = states_[t][j * K_ + u];
          std::vector<int> far(n);  // true: the destination differs from j in node bit k
          for (unsigned k = 0; k < n; ++k) far[k] = ((j >> k) & 1) ? -w[m + k] : w[m + k];
          // Every left + 1 of them cannot all differ.
          std::vector<bool> pick(n, false);
          std::fill(pick.begin(), pick.begin() + static_cast<std::ptrdiff_t>(left + 1), true);
          do {
            std::vector<int> c{-g};
            for (unsigned k = 0; k < n; ++k)
              if (pick[k]) c.push_back(-far[k]);
            add(c);
          } while (std::prev_permutation(pick.begin(), pick.end()));
        }
    }
    return g;
  }

  // The first T cycles of a satisfying assignment as a schedule's cycles and offset maps.
  void decode(std::size_t T, Schedule& out) {
    const unsigned n = sh_.n;
    const auto num = [&](const std::vector<int>& bits) {
      std::uint64_t v = 0;
      for (unsigned b = 0; b < bits.size(); ++b)
        if (s_.val(bits[b]) > 0) v |= std::uint64_t{1} << b;
      return v;
    };
    for (std::size_t t = 0; t < T; ++t) {
      for (unsigned r = 0; r < n; ++r) {
        const Dim& d = params_[t][r];
        if (s_.val(d.act) <= 0) continue;
        NodeOffsetMap cols(n, 0);
        bool any = false;
        for (unsigned k = 0; k < n; ++k)
          if (k != r) any |= (cols[k] = num(d.cols[k])) != 0;
        std::uint32_t map = 0;
        if (any) {  // one map per distinct set of columns, 1-based (docs/schedule-format.md)
          if (std::find(out.offset_maps.begin(), out.offset_maps.end(), cols) == out.offset_maps.end())
            out.offset_maps.push_back(cols);
          map = static_cast<std::uint32_t>(std::find(out.offset_maps.begin(), out.offset_maps.end(), cols) -
                                           out.offset_maps.begin() + 1);
        }
        const std::uint64_t a = num(d.a);
        out.add(Exchange{r, a, a ^ num(d.delta), map});
      }
      out.end_cycle();
    }
  }

 private:
  struct Dim {
    int act = 0;
    std::vector<int> a, delta;
    std::vector<std::vector<int>> cols;  // per node bit k != r: m bits
  };

  bool tracked(std::uint64_t node) const { return !symmetric_ || (node & mask_) == 0; }
  int var() { return ++vars_; }
  std::vector<int> vars(unsigned count) {
    std::vector<int> v(count);
    for (int& x : v) x = var();
    return v;
  }
  void add(const std::vector<int>& clause) {
    for (int l : clause) s_.add(l);
    s_.add(0);
    ++clauses_;
  }
  std::vector<int> constant(std::uint64_t value) const {
    std::vector<int> v(B_);
    for (unsigned b = 0; b < B_; ++b) v[b] = ((value >> b) & 1) ? true_ : -true_;
    return v;
  }
  // A literal equal to the xor of the literals (a chain of two-input xors).
  int xor_of(const std::vector<int>& lits) {
    int acc = lits[0];
    for (std::size_t k = 1; k < lits.size(); ++k) {
      const int b = lits[k], z = var();
      add({-z, acc, b});
      add({-z, -acc, -b});
      add({z, -acc, b});
      add({z, acc, -b});
      acc = z;
    }
    return acc;
  }
  void and_of(int out, const std::vector<int>& lits) {
    std::vector<int> c{out};
    for (int x : lits) {
      add({-out, x});
      c.push_back(-x);
    }
    add(c);
  }

  CaDiCaL::Solver& s_;
  const Shape& sh_;
  std::uint64_t K_, N_;
  unsigned B_;
  bool restricted_;
  bool symmetric_;
  std::uint64_t mask_ = 0;             // symmetric: axis 1's bits
  std::vector<std::uint64_t> flips_;   // symmetric: per c, translation(c)
  std::vector<std::uint64_t> nodes_;   // the nodes encoded: all, or (symmetric) those with axis 1 = 0
  bool detours_ = false;  // some word only changes its address
  int vars_ = 0, true_ = 0;
  std::uint64_t clauses_ = 0;
  std::vector<std::vector<std::vector<int>>> states_;  // per time: per slot, B literals
  std::vector<std::vector<Dim>> params_;
  std::vector<int> goals_;  // per T: its goal literal (0: not made yet)
};

// hcube synthesize scatter: T = the bound, the bound + 1, ... on one incremental solver.
SynthesisResult synthesize_scatter(const SynthesisRequest& r) {
  const Clock::time_point t0 = Clock::now();
  if (r.topology.empty())
    throw Error("SynthesisRequest::topology missing: scatter needs ring:z, torus:z1xz2, mesh:z1xz2 or cube:d");
  if (!r.dims.empty() || !r.perm.empty() || r.axes != kUnsetSize || r.m != kUnsetSize)
    throw Error("SynthesisRequest::dims, perm, axes and m apply to aapc, multi-aapc and permute: scatter takes "
                "SynthesisRequest::topology");
  SynthesisResult res;
  res.pattern = r.pattern;
  res.port_model = port_model_of(r);
  res.scatter.ports = check_search(r);
  res.scatter.topology = parse_scatter_topology(r.topology);
  const std::uint64_t N = res.scatter.topology.cube ? std::uint64_t{1} << std::min(res.scatter.topology.d, 32u)
                                                    : res.scatter.topology.grid.nodes();
  if (N > kMaxScatterRoundNodes)
    throw Error(fmt::format("SynthesisRequest::topology {}: {} nodes out of range: allowed 2 .. {}",
                            printable_input(r.topology), N, kMaxScatterRoundNodes));
  const auto [bound, proof] = scatter_bound(res.scatter.topology, res.scatter.ports);
  res.lower_bound = bound;
  res.lower_bound_proof = proof;
  const std::uint64_t max_cycles = r.max_cycles == kUnsetSize ? kMaxSynthesisCycles : static_cast<std::uint64_t>(r.max_cycles);
  if (max_cycles < bound)
    throw Error(fmt::format("SynthesisRequest::max_cycles {}: no scatter takes fewer than {} rounds ({} bound): allowed "
                            "{} .. {}",
                            max_cycles, bound, proof, bound, kMaxSynthesisCycles));
  Deadline deadline(r.time_limit, t0);
  CaDiCaL::Solver solver;
  solver.connect_terminator(&deadline);
  ScatterEncoding enc(solver, res.scatter.topology, res.scatter.ports);
  for (std::uint64_t T = bound;; ++T) {
    const Clock::time_point s0 = Clock::now();
    while (enc.layers() < T) enc.add_layer();
    solver.assume(enc.goal(T));
    const int status = deadline.terminate() ? 0 : solver.solve();
    res.runs.push_back({T, "routes", status == 10 ? "SAT" : status == 20 ? "UNSAT" : "UNKNOWN", since(s0)});
    if (status == 0)
      throw Error(fmt::format("SynthesisRequest::time_limit {} s reached at T = {} rounds (undecided): allow more time",
                              r.time_limit, T));
    if (status == 10) {
      res.cycles = T;
      res.scatter.rounds = enc.decode(T);
      break;
    }
    // UNSAT is a proof for the model's routes only (XY, the ways round): the bound says which it is.
    res.unsat_at = T;
    res.lower_bound = T + 1;
    res.lower_bound_proof = "unsat";
    if (T >= max_cycles)
      throw Error(fmt::format("no scatter of at most SynthesisRequest::max_cycles {} rounds (T = {} UNSAT): allowed {} .. {}",
                              max_cycles, T, T + 1, kMaxSynthesisCycles));
  }
  res.optimal = res.cycles == res.lower_bound;
  res.variables = enc.variables();
  res.clauses = enc.clauses();
  check_scatter_rounds(res.scatter);  // apart from the CNF: every pair once, no link or port used twice
  res.seconds = since(t0);
  return res;
}

#endif  // HCUBE_HAVE_CADICAL

}  // namespace

nlohmann::json to_json(const SynthesisResult& r) {
  nlohmann::json runs = nlohmann::json::array();
  for (const SynthesisRun& x : r.runs)
    runs.push_back({{"cycles", x.cycles}, {"model", x.model}, {"status", x.status}, {"seconds", x.seconds}});
  nlohmann::json j = {{"pattern", r.pattern},
          {"dims", r.widths},
          {"axes", r.widths.size()},
          {"n", r.n},
          {"m", r.m},
          {"port_model", r.port_model},
          {"cycles", r.cycles},
          {"optimal", r.optimal},
          {"lower_bound", r.lower_bound},
          {"lower_bound_proof", r.lower_bound_proof},
          {"distance_bound", r.distance_bound},
          {"channel_bound", r.channel_bound},
          {"unsat_at", r.unsat_at},
          {"seconds", r.seconds},
          {"solver", synthesis_solver()},
          {"variables", r.variables},
          {"clauses", r.clauses},
          {"runs", runs}};
  if (!r.perm.empty()) j["perm"] = r.perm;
  if (r.pattern == "scatter") {
    j["topology"] = to_string(r.scatter.topology);
    j["rounds"] = r.cycles;
  }
  return j;
}

void save_synthesis(const std::string& path, const SynthesisResult& r) {
  if (r.pattern == "scatter")
    save_scatter_rounds(path, r.scatter);
  else
    save_schedule(path, r.schedule);
}

std::string synthesis_summary(const SynthesisResult& r) {
  if (r.pattern == "scatter")
    return fmt::format("{} rounds{} on {} ({}-port); lower bound {} ({})", r.cycles, r.optimal ? ", optimal" : "",
                       to_string(r.scatter.topology), r.port_model, r.lower_bound, r.lower_bound_proof);
  return fmt::format("{} cycles{}; lower bound {} ({}; distance {}, channels {}{})", r.cycles, r.optimal ? ", optimal" : "",
                     r.lower_bound, r.lower_bound_proof, r.distance_bound, r.channel_bound,
                     r.unsat_at ? fmt::format(", T = {} UNSAT", r.unsat_at) : "");
}

bool synthesis_available() { return HCUBE_HAVE_CADICAL != 0; }

std::string synthesis_solver() {
#if HCUBE_HAVE_CADICAL
  return std::string("CaDiCaL ") + CaDiCaL::Solver::version();
#else
  return "none: hcube was built without CaDiCaL (install libcadical-dev: scripts/install-deps.sh, then rebuild)";
#endif
}

SynthesisResult synthesize(const SynthesisRequest& r) {
  const Clock::time_point t0 = Clock::now();
#if !HCUBE_HAVE_CADICAL
  if (r.pattern != "scatter") (void)check_request(r);
  (void)t0;
  throw Error("hcube synthesize needs the CaDiCaL library, which this build lacks: install libcadical-dev "
              "(scripts/install-deps.sh) and rebuild");
#else
  if (r.pattern == "scatter") return synthesize_scatter(r);
  const Shape sh = check_request(r);
  SynthesisResult res;
  res.pattern = r.pattern;
  res.widths = sh.widths;
  res.perm = sh.perm;
  res.n = sh.n;
  res.m = sh.m;
  res.port_model = port_model_of(r);
  const Geometry geo{sh.n, sh.m};
  const std::uint64_t K = geo.words_per_node(), N = geo.nodes();
  const std::vector<std::uint64_t> target = routing_targets(sh);

  // Bounds no schedule of the machine beats: a word crosses at most one dimension a cycle, and one
  // that must change address on its own node crosses one twice (distance); dimension r carries at
  // most N words a cycle, one each way on each of its N/2 links, and every word whose destination
  // differs in node bit r crosses it (channels; one-port: the dimensions take turns); all of them
  // carry n N (one-port N) of all the crossings a cycle. Written from the targets, not from the CNF.
  std::vector<std::uint64_t> crossing(sh.n, 0);
  std::uint64_t crossings = 0;
  for (std::uint64_t p = 0; p < target.size(); ++p) {
    const std::uint64_t diff = (p / K) ^ (target[p] / K);
    const std::uint64_t hops = diff == 0 && target[p] != p ? 2 : popcount(diff);
    res.distance_bound = std::max(res.distance_bound, hops);
    crossings += hops;
    for (unsigned k = 0; k < sh.n; ++k) crossing[k] += (diff >> k) & 1;
  }
  for (std::uint64_t c : crossing) {
    const std::uint64_t cycles = (c + N - 1) / N;
    res.channel_bound = sh.port == PortModel::one_port ? res.channel_bound + cycles : std::max(res.channel_bound, cycles);
  }
  const std::uint64_t per_cycle = sh.port == PortModel::one_port ? N : N * sh.n;
  res.channel_bound = std::max(res.channel_bound, (crossings + per_cycle - 1) / per_cycle);
  const std::uint64_t bound = std::max<std::uint64_t>({1, res.distance_bound, res.channel_bound});
  res.lower_bound = bound;
  res.lower_bound_proof = res.distance_bound >= res.channel_bound ? "distance" : "channels";
  const std::uint64_t max_cycles = r.max_cycles == kUnsetSize ? kMaxSynthesisCycles : static_cast<std::uint64_t>(r.max_cycles);
  if (max_cycles < bound)
    throw Error(fmt::format(
        "SynthesisRequest::max_cycles {}: no schedule takes fewer than {} cycles ({} bound): allowed {} .. {}",
        max_cycles, bound, res.lower_bound_proof, bound, kMaxSynthesisCycles));

  // The restricted model: one solver, incremental over T (the goal of T an assumption, the
  // restriction unit clauses, which CaDiCaL eliminates), with the symmetry breaking. The full model,
  // asked where the restricted one has nothing, mostly for a proof of UNSAT: a fresh solver for each
  // T with the last state constant, the script's CNF as it was (orders 3,1 at T = 4, which libcadical
  // decides on the script's CNF in 24 s of CPU, ran more than 3 minutes undecided on this one).
  // Where the translations (c, ..., c) keep the target (a sequence of AAPCs on equal axes, m >= d), the
  // restricted model's translation-symmetric part, 2^d times smaller, is searched first: three axes
  // of order 3 on K = 8 in 9 cycles within minutes, where the restricted model ran hours undecided.
  Deadline deadline(r.time_limit, t0);
  const bool symmetric = Encoding::translation_invariant(sh, target);
  CaDiCaL::Solver restricted_solver, symmetric_solver;
  restricted_solver.connect_terminator(&deadline);
  symmetric_solver.connect_terminator(&deadline);
  Encoding restricted_enc(restricted_solver, sh, target, true);
  std::unique_ptr<Encoding> symmetric_enc;
  if (symmetric) symmetric_enc = std::make_unique<Encoding>(symmetric_solver, sh, target, true, true);
  std::unique_ptr<CaDiCaL::Solver> full_solver;
  std::unique_ptr<Encoding> full_enc;
  const auto solve = [&](std::size_t T, const std::string& model) {
    const Clock::time_point s0 = Clock::now();
    int status = 0;
    if (model != "full") {
      Encoding& enc = model == "symmetric" ? *symmetric_enc : restricted_enc;
      CaDiCaL::Solver& solver = model == "symmetric" ? symmetric_solver : restricted_solver;
      while (enc.layers() < T) enc.add_layer();
      solver.assume(enc.goal(T));
      status = deadline.terminate() ? 0 : solver.solve();
    } else {
      full_enc.reset();
      full_solver = std::make_unique<CaDiCaL::Solver>();
      full_solver->connect_terminator(&deadline);
      full_enc = std::make_unique<Encoding>(*full_solver, sh, target, false);
      while (full_enc->layers() < T) full_enc->add_layer(full_enc->layers() + 1 == T);
      full_enc->require(full_enc->goal(T));
      status = deadline.terminate() ? 0 : full_solver->solve();
    }
    const char* name = status == 10 ? "SAT" : status == 20 ? "UNSAT" : "UNKNOWN";
    res.runs.push_back({T, model, name, since(s0)});
    return status;
  };
  // The solver's own proof where the distance bound holds: with the implied clauses it is quick
  // (T = 5 for d = 3, s = 2 in about a second), and it checks the encoding against the bound.
  if (res.distance_bound == bound && bound > 1 && solve(bound - 1, "full") == 20) res.unsat_at = bound - 1;
  for (std::uint64_t T = bound;; ++T) {
    // A restricted schedule is one of the machine's: its SAT decides T, its UNSAT does not.
    int status = symmetric ? solve(T, "symmetric") : 20;
    if (status == 20) status = solve(T, "restricted");
    if (status == 20) status = solve(T, "full");
    if (status == 0)
      throw Error(fmt::format(
          "SynthesisRequest::time_limit {} s reached at T = {} cycles (undecided; T = {} {}): allow more time",
          r.time_limit, T, T - 1, T - 1 < bound ? "impossible by the " + res.lower_bound_proof + " bound" : "UNSAT"));
    if (status == 10) {
      res.cycles = T;
      break;
    }
    res.unsat_at = T;
    res.lower_bound = T + 1;
    res.lower_bound_proof = "unsat";
    if (T >= max_cycles)
      throw Error(
          fmt::format("no schedule of at most SynthesisRequest::max_cycles {} cycles (T = {} UNSAT): allowed {} .. {}",
                      max_cycles, T, T + 1, kMaxSynthesisCycles));
  }
  res.optimal = res.cycles == res.lower_bound;
  const std::string& model = res.runs.back().model;
  Encoding& found = model == "symmetric" ? *symmetric_enc : model == "restricted" ? restricted_enc : *full_enc;
  res.variables = found.variables();
  res.clauses = found.clauses();

  Schedule& s = res.schedule;
  s.algorithm = "sat";
  s.n = sh.n;
  s.m = sh.m;
  s.rules = PortRules{sh.port, 1};
  found.decode(res.cycles, s);
  if (sh.permute) {
    // No alignments; the header's perm names what `hcube run` verifies (d is the format's, unused).
    s.d = std::min(sh.n, sh.m);
    s.pre = s.post = AlignmentKind::none;
    s.perm = sh.perm;
  } else {
    s.d = sh.widths[0];
    s.pre = s.post = AlignmentKind::xor_align;
    s.axes = static_cast<unsigned>(sh.widths.size());
    // Unequal orders, or an AAPC with offset maps: the header names the generalized shuffle (for one
    // axis the transpose), which `hcube run` verifies; a plain AAPC is verified as one.
    const bool equal = std::all_of(sh.widths.begin(), sh.widths.end(), [&](unsigned w) { return w == sh.widths[0]; });
    if (!equal || (sh.aapc && uses_offset_maps(s))) s.axis_dims = sh.widths;
  }
  check_schedule(s);
  if (!routes_home(s, target))
    throw Error("internal error: the solver's schedule does not route every word to its destination");
  res.seconds = since(t0);
  return res;
#endif
}

}  // namespace hcube

#include "hcube/host/affine_map.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hcube/core/error.hpp"
#include "hcube/host/parse.hpp"

namespace hcube {

std::uint64_t gf2_mul(const std::vector<std::uint64_t>& cols, std::uint64_t x) {
  std::uint64_t y = 0;
  for (unsigned b = 0; b < cols.size(); ++b)
    if (test_bit(x, b)) y ^= cols[b];
  return y;
}

namespace {

std::uint64_t mul(const std::vector<std::uint64_t>& cols, std::uint64_t x) { return gf2_mul(cols, x); }

void check_mem_dim(const Geometry& geo, unsigned b, const char* what) {
  if (b >= geo.m)
    throw Error(fmt::format("{} memory dimension {} out of range: {}", what, b, allowed_indices(geo.m, "m")));
}

}  // namespace

AffineMap::AffineMap(const Geometry& geo) : geo_(geo), mem_cols_(geo.m), node_cols_(geo.n, 0) {
  for (unsigned b = 0; b < geo.m; ++b) mem_cols_[b] = bit(b);
}

AffineMap AffineMap::xor_align(const Geometry& geo, const std::vector<unsigned>& proc_dims,
                               const std::vector<unsigned>& mem_dims) {
  if (proc_dims.size() != mem_dims.size())
    throw Error(fmt::format("alignment lays {} processor dimensions onto {} memory dimensions: counts must match",
                            proc_dims.size(), mem_dims.size()));
  AffineMap a(geo);
  std::uint64_t seen_p = 0, seen_m = 0;
  for (std::size_t t = 0; t < proc_dims.size(); ++t) {
    const unsigned p = proc_dims[t], b = mem_dims[t];
    if (p >= geo.n)
      throw Error(fmt::format("alignment processor dimension {} out of range: {}", p, allowed_indices(geo.n, "n")));
    check_mem_dim(geo, b, "alignment");
    if (test_bit(seen_p, p)) throw Error(fmt::format("alignment processor dimension {} given twice", p));
    if (test_bit(seen_m, b)) throw Error(fmt::format("alignment memory dimension {} given twice", b));
    seen_p |= bit(p);
    seen_m |= bit(b);
    a.node_cols_[p] = bit(b);
  }
  return a;
}

AffineMap AffineMap::xor_fold(const Geometry& geo, unsigned d, unsigned axes) {
  if (d < 1 || d > geo.m || static_cast<std::uint64_t>(d) * axes > geo.n)
    throw Error(fmt::format("alignment of {} axes of d = {} bits out of range: allowed d <= m = {}, axes * d <= n = {}",
                            axes, d, geo.m, geo.n));
  return xor_fold(geo, std::vector<unsigned>(axes, d));
}

AffineMap AffineMap::xor_fold(const Geometry& geo, const std::vector<unsigned>& widths) {
  AffineMap a(geo);
  unsigned k = 0;
  for (unsigned w : widths) {
    if (w < 1 || w > geo.m || k + w > geo.n)
      throw Error(fmt::format("alignment of an axis of {} bits at node bit {} out of range: allowed 1..m = {} bits "
                              "within n = {}",
                              w, k, geo.m, geo.n));
    for (unsigned b = 0; b < w; ++b) a.node_cols_[k + b] = bit(b);
    k += w;
  }
  return a;
}

AffineMap AffineMap::permute_bits(const Geometry& geo, const std::vector<unsigned>& perm) {
  if (perm.size() != geo.m)
    throw Error(fmt::format("memory bit permutation has {} entries: expected m = {}", perm.size(), geo.m));
  AffineMap a(geo);
  std::uint64_t seen = 0;
  for (unsigned b = 0; b < geo.m; ++b) {
    check_mem_dim(geo, perm[b], "permutation target");
    if (test_bit(seen, perm[b]))
      throw Error(fmt::format("memory bit permutation is not bijective: bit {} is the target twice", perm[b]));
    seen |= bit(perm[b]);
    a.mem_cols_[b] = bit(perm[b]);
  }
  return a;
}

AffineMap AffineMap::complement(const Geometry& geo, unsigned lo, unsigned width) {
  if (lo + width > geo.m)
    throw Error(fmt::format("complemented field of {} bits from bit {} out of range: memory bits {}", width, lo,
                            allowed_indices(geo.m, "m")));
  AffineMap a(geo);
  a.constant_ = low_mask(lo + width) & ~low_mask(lo);
  return a;
}

AffineMap AffineMap::gray(const Geometry& geo, unsigned lo, unsigned width, bool encode) {
  if (width == 0 || lo + width > geo.m)
    throw Error(fmt::format("Gray code field of {} bits from bit {} out of range: a non-empty field within memory bits, {}",
                            width, lo, allowed_indices(geo.m, "m")));
  AffineMap a(geo);
  for (unsigned r = 0; r < width; ++r) {
    const unsigned b = lo + r;
    // encode: g = v xor (v >> 1), so bit r feeds g_r and g_(r-1).
    // decode: v_r = xor of g_s for s >= r, so bit s feeds every v_r with r <= s.
    a.mem_cols_[b] = encode ? (bit(b) | (r > 0 ? bit(b - 1) : 0)) : (low_mask(b + 1) & ~low_mask(lo));
  }
  return a;
}

AffineMap AffineMap::from_columns(const Geometry& geo, std::vector<std::uint64_t> mem_cols,
                                  std::vector<std::uint64_t> node_cols, std::uint64_t constant) {
  if (mem_cols.size() != geo.m || node_cols.size() != geo.n)
    throw Error(fmt::format("affine map with {} memory and {} node columns: expected m = {} and n = {}",
                            mem_cols.size(), node_cols.size(), geo.m, geo.n));
  const std::uint64_t K = geo.words_per_node();
  for (std::uint64_t c : mem_cols)
    if (c >= K) throw Error(fmt::format("affine map column {:#x} out of range: allowed below K = {}", c, K));
  for (std::uint64_t c : node_cols)
    if (c >= K) throw Error(fmt::format("affine map column {:#x} out of range: allowed below K = {}", c, K));
  if (constant >= K) throw Error(fmt::format("affine map constant {:#x} out of range: allowed below K = {}", constant, K));
  if (gf2_rank(mem_cols) != geo.m) throw Error("affine map is not a bijection: its memory-bit matrix M is singular");
  AffineMap a(geo);
  a.mem_cols_ = std::move(mem_cols);
  a.node_cols_ = std::move(node_cols);
  a.constant_ = constant;
  return a;
}

AffineMap AffineMap::then(const AffineMap& next) const {
  if (next.geo_.n != geo_.n || next.geo_.m != geo_.m)
    throw Error("composed alignments belong to machines of different geometry");
  // next(this(i, j), j) = M2 (M1 i + C1 j + c1) + C2 j + c2.
  AffineMap r(geo_);
  for (unsigned b = 0; b < geo_.m; ++b) r.mem_cols_[b] = mul(next.mem_cols_, mem_cols_[b]);
  for (unsigned k = 0; k < geo_.n; ++k) r.node_cols_[k] = mul(next.mem_cols_, node_cols_[k]) ^ next.node_cols_[k];
  r.constant_ = mul(next.mem_cols_, constant_) ^ next.constant_;
  return r;
}

std::uint64_t AffineMap::apply(std::uint64_t node, std::uint64_t local) const {
  return mul(mem_cols_, local) ^ mul(node_cols_, node) ^ constant_;
}

bool AffineMap::is_identity() const { return is_pure_xor() && moving_nodes() == 0; }

bool AffineMap::is_pure_xor() const {
  for (unsigned b = 0; b < geo_.m; ++b)
    if (mem_cols_[b] != bit(b)) return false;
  return true;
}

bool AffineMap::is_involution() const {
  for (unsigned b = 0; b < geo_.m; ++b)
    if (mul(mem_cols_, mem_cols_[b]) != bit(b)) return false;
  for (std::uint64_t c : node_cols_)
    if (mul(mem_cols_, c) != c) return false;
  return mul(mem_cols_, constant_) == constant_;
}

bool AffineMap::keeps_bits_from(unsigned b) const {
  const std::uint64_t high = ~low_mask(b);
  for (unsigned k = 0; k < geo_.m; ++k)
    if ((mem_cols_[k] & high) != (k >= b ? bit(k) : 0)) return false;
  for (std::uint64_t c : node_cols_)
    if ((c & high) != 0) return false;
  return (constant_ & high) == 0;
}

void check_alignment_step(const AlignmentStep& step) {
  if (step.whole()) return;
  const std::uint64_t K = step.map.geometry().words_per_node(), lo = step.lo, hi = step.end();
  if (lo >= hi || hi > K)
    throw Error(fmt::format("alignment range [{}, {}) out of range: allowed lo < hi <= K = {}", lo, hi, K));
  const unsigned b = static_cast<unsigned>(__builtin_ctzll(lo | hi));
  if (!step.map.keeps_bits_from(b))
    throw Error(fmt::format("alignment on local addresses [{}, {}) moves words out of the range: the map must keep "
                            "memory bits {} and above",
                            lo, hi, b));
  if (!step.map.is_involution())
    throw Error(fmt::format("alignment on local addresses [{}, {}) must be an involution (it runs in place)", lo, hi));
}

std::uint64_t AffineMap::moving_nodes() const {
  // Nodes with C j = c form a coset of the kernel of C, of size 2^(n - rank C),
  // when c lies in the span of C's columns, and are none otherwise.
  const unsigned rank = gf2_rank(node_cols_);
  std::vector<std::uint64_t> with_c = node_cols_;
  with_c.push_back(constant_);
  const bool reachable = gf2_rank(with_c) == rank;
  return geo_.nodes() - (reachable ? bit(geo_.n - rank) : 0);
}

std::string AffineMap::describe() const {
  std::string s = "i -> M i xor C j with M columns [";
  for (unsigned b = 0; b < geo_.m; ++b) s += fmt::format("{}{:#x}", b ? " " : "", mem_cols_[b]);
  s += "], C columns [";
  for (unsigned k = 0; k < geo_.n; ++k) s += fmt::format("{}{:#x}", k ? " " : "", node_cols_[k]);
  if (constant_ != 0) s += fmt::format(" xor {:#x}", constant_);
  return s + "]";
}

AffineMap parse_gray(const Geometry& geo, const std::string& text) {
  const std::size_t c1 = text.find(':');
  const std::size_t c2 = c1 == std::string::npos ? c1 : text.find(':', c1 + 1);
  const std::string dir = c2 == std::string::npos ? "" : text.substr(c2 + 1);
  if (c2 == std::string::npos || (dir != "encode" && dir != "decode"))
    throw Error(fmt::format("Gray field '{}' malformed: expected lo:width:encode or lo:width:decode",
                            printable_input(text)));
  const std::uint64_t lo = parse_uint(text.substr(0, c1), "Gray field lo");
  const std::uint64_t width = parse_uint(text.substr(c1 + 1, c2 - c1 - 1), "Gray field width");
  if (lo + width > geo.m || width == 0)
    throw Error(fmt::format("Gray field '{}' out of range: a non-empty field within memory bits, {}",
                            printable_input(text),
                            allowed_indices(geo.m, "m")));
  return AffineMap::gray(geo, static_cast<unsigned>(lo), static_cast<unsigned>(width), dir == "encode");
}

AffineMap alignment_map(const Geometry& geo, const std::string& xor_proc, const std::string& xor_mem,
                        const std::string& mem_perm, const std::string& gray) {
  const std::vector<unsigned> procs =
      parse_uint_list(xor_proc, "alignment_map::xor_proc");  // checked in the arguments' order
  const std::vector<unsigned> mems = parse_uint_list(xor_mem, "alignment_map::xor_mem");
  AffineMap map = AffineMap::xor_align(geo, procs, mems);
  if (!mem_perm.empty())
    map = map.then(AffineMap::permute_bits(geo, parse_uint_list(mem_perm, "alignment_map::mem_perm")));
  if (!gray.empty()) map = map.then(parse_gray(geo, gray));
  return map;
}

unsigned gf2_rank(std::vector<std::uint64_t> cols) {
  unsigned rank = 0;
  for (unsigned b = 0; b < 64; ++b) {
    auto pivot = std::find_if(cols.begin() + rank, cols.end(), [b](std::uint64_t c) { return test_bit(c, b); });
    if (pivot == cols.end()) continue;
    std::swap(*pivot, cols[rank]);
    for (std::size_t r = 0; r < cols.size(); ++r)
      if (r != rank && test_bit(cols[r], b)) cols[r] ^= cols[rank];
    ++rank;
  }
  return rank;
}

std::vector<std::uint64_t> byte_tables(const std::vector<std::uint64_t>& cols, unsigned& nbytes) {
  nbytes = static_cast<unsigned>((cols.size() + 7) / 8);
  std::vector<std::uint64_t> t(std::size_t{nbytes} * 256, 0);
  for (unsigned byte = 0; byte < nbytes; ++byte)
    for (unsigned v = 0; v < 256; ++v)
      for (unsigned r = 0; r < 8; ++r)
        if (test_bit(v, r) && byte * 8 + r < cols.size()) t[byte * 256 + v] ^= cols[byte * 8 + r];
  return t;
}

AffineTables make_tables(const AffineMap& map) {
  AffineTables tables;
  tables.mem = byte_tables(map.mem_columns(), tables.mem_bytes);
  tables.node = byte_tables(map.node_columns(), tables.node_bytes);
  tables.constant = map.constant();
  return tables;
}

}  // namespace hcube

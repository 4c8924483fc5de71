#include "hcube/host/reference.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "hcube/core/error.hpp"

namespace hcube {

std::uint64_t AffineAddressMap::operator()(std::uint64_t g) const { return gf2_mul(columns, g) ^ constant; }

AffineAddressMap AffineAddressMap::then(const AffineAddressMap& next) const {
  if (next.bits() != bits())
    throw Error(fmt::format("internal: composing address maps of {} and {} bits", bits(), next.bits()));
  AffineAddressMap r;
  for (const std::uint64_t c : columns) r.columns.push_back(gf2_mul(next.columns, c));
  r.constant = next(constant);
  return r;
}

AffineAddressMap AffineAddressMap::inverse() const {
  // Gauss-Jordan on [A | I], column by column: row b of the result collects the
  // columns of I that reduce column b of A to the unit vector of a pivot bit.
  const unsigned q = bits();
  std::vector<std::uint64_t> a = columns, inv(q);
  for (unsigned b = 0; b < q; ++b) inv[b] = bit(b);
  std::vector<unsigned> pivot_of(q);
  std::vector<bool> used(q, false);
  for (unsigned b = 0; b < q; ++b) {
    unsigned p = q;
    for (unsigned r = 0; r < q && p == q; ++r)
      if (!used[r] && test_bit(a[b], r)) p = r;
    if (p == q) throw Error("internal: the address map is not a bijection (singular matrix)");
    used[p] = true;
    pivot_of[b] = p;
    for (unsigned c = 0; c < q; ++c)
      if (c != b && test_bit(a[c], p)) {
        a[c] ^= a[b];
        inv[c] ^= inv[b];
      }
  }
  // Now column b of A is bit(pivot_of[b]) = A_orig inv[b]: so A^-1 sends bit pivot_of[b] to inv[b].
  AffineAddressMap r;
  r.columns.assign(q, 0);
  for (unsigned b = 0; b < q; ++b) r.columns[pivot_of[b]] = inv[b];
  r.constant = gf2_mul(r.columns, constant);
  return r;
}

AffineAddressMap AffineAddressMap::identity(unsigned q) {
  AffineAddressMap r;
  for (unsigned b = 0; b < q; ++b) r.columns.push_back(bit(b));
  return r;
}

AffineAddressMap AffineAddressMap::permute_bits(const std::vector<unsigned>& to) {
  AffineAddressMap r;
  for (const unsigned t : to) r.columns.push_back(bit(t));
  return r;
}

AffineAddressMap AffineAddressMap::of(const AddressMap& f, unsigned q) {
  AffineAddressMap r;
  r.constant = f(0);
  for (unsigned b = 0; b < q; ++b) r.columns.push_back(f(bit(b)) ^ r.constant);
  return r;
}

std::vector<unsigned char> reference_permute(const std::vector<unsigned char>& in, std::size_t word_bytes,
                                             std::uint64_t total_words, const AddressMap& dest) {
  if (in.size() != total_words * word_bytes)
    throw Error(fmt::format("reference input holds {} bytes: expected {}", in.size(), total_words * word_bytes));
  std::vector<unsigned char> out(in.size());
  std::vector<bool> hit(total_words, false);
  for (std::uint64_t g = 0; g < total_words; ++g) {
    const std::uint64_t d = dest(g);
    if (d >= total_words)
      throw Error(fmt::format("permutation sends address {} to {}: allowed 0..{}", g, d, total_words - 1));
    if (hit[d]) throw Error(fmt::format("permutation is not bijective: address {} is the image twice", d));
    hit[d] = true;
    std::memcpy(&out[d * word_bytes], &in[g * word_bytes], word_bytes);
  }
  return out;
}

AddressMap cycle_destination(const Geometry& geo, const Cycle& cycle, const OffsetMaps& maps) {
  return [geo, cycle, maps](std::uint64_t g) {
    const std::uint64_t j = geo.node_of(g), i = geo.local_of(g);
    for (const Exchange& e : cycle) {
      const std::uint64_t partner = j ^ bit(e.dim);
      const auto offset = [&](std::uint64_t node) {
        return e.offset_map ? apply_offset(maps.at(e.offset_map - 1), node) : 0;
      };
      const bool low_side = ((j >> e.dim) & 1) == 0;
      if (low_side && i == (e.addr ^ offset(j))) return geo.global(partner, e.peer_addr ^ offset(partner));
      if (!low_side && i == (e.peer_addr ^ offset(j))) return geo.global(partner, e.addr ^ offset(partner));
    }
    return g;
  };
}

AddressMap alignment_destination(const AffineMap& map) {
  const Geometry geo = map.geometry();
  return [geo, map](std::uint64_t g) {
    const std::uint64_t j = geo.node_of(g);
    return geo.global(j, map.apply(j, geo.local_of(g)));
  };
}

AddressMap alignment_destination(const AlignmentStep& step) {
  const Geometry geo = step.map.geometry();
  const std::uint64_t lo = step.lo, hi = step.end();
  const AffineMap map = step.map;
  return [geo, map, lo, hi](std::uint64_t g) {
    const std::uint64_t j = geo.node_of(g), i = geo.local_of(g);
    return i < lo || i >= hi ? g : geo.global(j, map.apply(j, i));
  };
}

std::vector<unsigned char> reference_route(const std::vector<unsigned char>& in, std::size_t word_bytes,
                                           const Geometry& geo, const RouterStep& step) {
  std::vector<unsigned char> out = in;
  for (const Message& m : step)
    for (std::uint64_t w = 0; w < m.length; ++w)
      std::memcpy(&out[geo.global(m.dst_node, m.dst_addr + w) * word_bytes],
                  &in[geo.global(m.src_node, m.src_addr + w) * word_bytes], word_bytes);
  return out;
}

AddressMap route_source(const Geometry& geo, const RouterStep& step) {
  // Each message's written run [to, to + length) and where it reads from, by `to`.
  struct Run {
    std::uint64_t to, from, length;
  };
  std::vector<Run> runs;
  for (const Message& m : step)
    runs.push_back(Run{geo.global(m.dst_node, m.dst_addr), geo.global(m.src_node, m.src_addr), m.length});
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.to < b.to; });
  return [runs = std::move(runs)](std::uint64_t a) {
    auto it = std::upper_bound(runs.begin(), runs.end(), a, [](std::uint64_t v, const Run& r) { return v < r.to; });
    if (it == runs.begin()) return a;
    --it;
    return a - it->to < it->length ? it->from + (a - it->to) : a;
  };
}

}  // namespace hcube

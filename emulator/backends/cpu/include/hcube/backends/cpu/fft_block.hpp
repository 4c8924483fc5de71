// The FFT's library block on the host, a cache-sized chunk of rows at a time:
// each thread loads a chunk of groups (kernels/fft.hpp's rows) into a buffer
// the size of its L2, transforms them there with a one-thread library plan and
// writes them back with their twiddles, so a block reads and writes the
// machine's memory once, where the gather / batched DFT / scatter launches
// pass over it three times. When every group's words lie in index order at a
// fixed stride (a node's consecutive words in the user's layout, or one
// local address bit field in the tiles), the library reads them from storage
// itself and the gather disappears. The same word-to-row map and twiddles as
// the launches (FftBlockShape::logical, kernels::twiddle), from tables made
// once per block instead of evaluated per word.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "hcube/backends/cpu/team.hpp"
#include "hcube/core/bits.hpp"
#include "hcube/kernels/fft.hpp"

namespace hcube::kernels::cpu {

// Rows of more than 2^16 words (1 MiB of complex128) do not fit a core's L2
// with their tables: such blocks stay with the launches and the library's
// own threads.
inline constexpr unsigned kFftChunkRowBitsMax = 16;
// A chunk's buffer: half a core's L2, leaving room for the tables and the lines in flight.
inline constexpr std::uint64_t kFftChunkBytes = std::uint64_t{1} << 19;
inline constexpr unsigned fft_chunk_bits(std::size_t word_bytes) {
  return word_bytes == 16 ? 15 : 16;  // log2(kFftChunkBytes / word_bytes)
}

// How a block's words split into chunks: storage index s = outer(c) | row(r) | group(z),
// three disjoint sets of storage bits; z numbers a group's words in storage order.
struct FftChunks {
  unsigned h = 0, b = 0;                 // 2^h words a row, 2^b rows a chunk
  unsigned lo = 0;                       // the block's lowest index bit
  std::uint64_t outer_mask = 0;          // the storage bits that number the chunks
  std::vector<std::uint64_t> dz, tz;     // by z: its storage offset, the linear part of its logical index
  std::vector<std::uint64_t> db, tb;     // by r: the same for a row of the chunk
  std::vector<std::uint64_t> az, ab;     // with an alignment after the block: the linear parts of where it
                                         // sends the word, by z and by r (empty without)
  std::vector<std::uint32_t> rev;        // rev_h
  bool rows_inner = false;               // the rows' lowest storage bit lies below the group's
  bool direct = false;                   // in-block position u = z in every row: the library reads storage
  std::uint64_t istride = 1, idist = 1;  // then: word u of row r at istride u + idist r from the chunk's first
  std::uint64_t chunks() const { return std::uint64_t{1} << popcount(outer_mask); }
};

// The deposit of the bits of x onto the set bits of mask, lowest first (pdep).
inline std::uint64_t deposit_bits(std::uint64_t x, std::uint64_t mask) {
  std::uint64_t out = 0;
  for (unsigned k = 0; mask != 0; mask &= mask - 1, ++k)
    if ((x >> k) & 1u) out |= mask & (~mask + 1);
  return out;
}

// Offsets and logical-index parts of every combination of the bits of mask
// (linear over GF(2): entry x is entry x without its lowest bit xor that bit's).
template <class F>
void subset_tables(std::uint64_t mask, const F& affine, std::vector<std::uint64_t>& offset,
                   std::vector<std::uint64_t>& value) {
  const std::uint64_t count = std::uint64_t{1} << popcount(mask), zero = affine(0);
  offset.assign(count, 0);
  value.assign(count, 0);
  for (std::uint64_t x = 1; x < count; ++x) {
    const std::uint64_t low = x & (~x + 1);
    if (x == low) {
      offset[x] = deposit_bits(x, mask);
      value[x] = affine(offset[x]) ^ zero;
    } else {
      offset[x] = offset[x ^ low] | offset[low];
      value[x] = value[x ^ low] ^ value[low];
    }
  }
}

// Where the alignment `to` sends the word at storage index s, as a storage index.
inline std::uint64_t aligned_place(const Layout& layout, const AffineView& to, std::uint64_t s) {
  const std::uint64_t j = layout.node_at(s);
  return layout.index(j, to.mem_part(layout.local_at(s)) ^ to.node_part(j));
}

// A chunk of 2^chunk_bits words (at least one row); requires h <= kFftChunkRowBitsMax.
// `to`: the alignment fused into the stores, or null.
inline FftChunks plan_fft_chunks(const FftBlockShape& shape, unsigned chunk_bits, const AffineView* to = nullptr) {
  FftChunks ch;
  const unsigned q = shape.layout.geo.address_bits(), h = shape.h;
  ch.h = h;
  ch.lo = shape.lo;
  const std::uint64_t group = shape.group_bits << shape.layout.t, others = low_mask(q) & ~group;
  ch.b = std::min(popcount(others), chunk_bits > h ? chunk_bits - h : 0u);
  std::uint64_t rows = 0, rest = others;
  for (unsigned k = 0; k < ch.b; ++k) {
    rows |= rest & (~rest + 1);
    rest &= rest - 1;
  }
  ch.outer_mask = rest;
  const auto logical = [&](std::uint64_t s) { return shape.logical(s); };
  subset_tables(group, logical, ch.dz, ch.tz);
  subset_tables(rows, logical, ch.db, ch.tb);
  if (to != nullptr) {
    std::vector<std::uint64_t> unused;
    const auto place = [&](std::uint64_t s) { return aligned_place(shape.layout, *to, s); };
    subset_tables(group, place, unused, ch.az);
    subset_tables(rows, place, unused, ch.ab);
  }
  ch.rev.resize(std::size_t{1} << h);
  for (std::uint64_t u = 0; u < ch.rev.size(); ++u) ch.rev[u] = static_cast<std::uint32_t>(reverse_low_bits(u, h));
  ch.rows_inner = rows != 0 && (rows & (~rows + 1)) < (group & (~group + 1));
  // Direct: u = z whatever the other bits, and both fields at fixed strides.
  const auto u_of = [&](std::uint64_t t) { return (t >> shape.lo) & low_mask(h); };
  const std::uint64_t zero = shape.logical(0);
  bool direct = u_of(zero) == 0;
  for (unsigned k = 0; k < h && direct; ++k) direct = u_of(ch.tz[std::uint64_t{1} << k]) == bit(k);
  for (unsigned s = 0; s < q && direct; ++s)
    if (test_bit(others, s)) direct = u_of(shape.logical(bit(s)) ^ zero) == 0;
  const auto run_start = [](std::uint64_t mask) { return mask == 0 ? 0u : static_cast<unsigned>(__builtin_ctzll(mask)); };
  const unsigned g0 = run_start(group), r0 = run_start(rows);
  direct = direct && group >> g0 == low_mask(h) && rows >> r0 == low_mask(ch.b);
  ch.direct = direct;
  ch.istride = std::uint64_t{1} << g0;
  ch.idist = std::uint64_t{1} << r0;
  return ch;
}

// exp(sign 2 pi i e / 2^logn) for any e < 2^logn as a product of a few table
// entries, one table for each field of at most 11 bits of e (kernels::twiddle
// makes the entries); each factor is correctly rounded, the product within a
// few ulps.
struct FftTwiddles {
  unsigned logn = 0, field = 0, levels = 0;
  std::vector<Complex128> table;  // level l, entry j: the twiddle of j << (l field)

  FftTwiddles(unsigned logn_, double sign) : logn(logn_) {
    levels = (logn + 10) / 11;
    field = levels == 0 ? 0 : (logn + levels - 1) / levels;
    table.resize(static_cast<std::size_t>(levels) << field);
    for (unsigned l = 0; l < levels; ++l)
      for (std::uint64_t j = 0; j < bit(field); ++j) {
        const std::uint64_t e = j << (l * field);
        Complex128& w = table[(static_cast<std::size_t>(l) << field) + j];
        w = {1, 0};
        if (e < bit(logn)) twiddle(e, logn, sign, &w.re, &w.im);
      }
  }

  Complex128 operator()(std::uint64_t e) const {
    Complex128 w = table[e & low_mask(field)];
    if (levels == 2) {  // up to 2^22 points: the common case, without the loop
      const Complex128 f = table[(std::size_t{1} << field) + (e >> field)];
      return {w.re * f.re - w.im * f.im, w.re * f.im + w.im * f.re};
    }
    for (unsigned l = 1; l < levels; ++l) {
      const Complex128 f = table[(static_cast<std::size_t>(l) << field) + ((e >> (l * field)) & low_mask(field))];
      w = {w.re * f.re - w.im * f.im, w.re * f.im + w.im * f.re};
    }
    return w;
  }
};

// Runs the block from mem into out (mem itself, or with an alignment fused,
// another buffer; to: that alignment, as planned in ch). dft(in, buf): the
// library's transforms of a chunk's 2^b rows into buf (rows of 2^h words,
// consecutive, 64-byte aligned), from storage at in with the chunk's strides
// when ch.direct, else in place in buf (in == nullptr). Never throws: plan before.
template <class C, class Dft>
void run_fft_chunks(C* mem, C* out, const FftBlockShape& shape, const AffineView* to, const FftChunks& ch,
                    const FftTwiddles& tw, const Dft& dft) {
  using R = typename ComplexTraits<C>::Real;
  const std::uint64_t rows = std::uint64_t{1} << ch.b, len = std::uint64_t{1} << ch.h, hmask = len - 1;
  const std::uint64_t lomask = low_mask(ch.lo), nmask = low_mask(ch.lo + ch.h);
  const auto chunks = static_cast<std::int64_t>(ch.chunks());
  const bool twiddled = ch.lo > 0, aligned = to != nullptr;
#pragma omp parallel num_threads(static_cast<int>(std::min<std::int64_t>(team_size(), chunks)))
  {
    C* buf = static_cast<C*>(std::aligned_alloc(64, (rows * len * sizeof(C) + 63) / 64 * 64));
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::uint64_t so = deposit_bits(static_cast<std::uint64_t>(c), ch.outer_mask);
      const std::uint64_t t0 = shape.logical(so);
      const std::uint64_t a0 = aligned ? aligned_place(shape.layout, *to, so) : 0;
      // Every word of the chunk in storage order: the rows' or the group's bits fastest.
      const auto each = [&](const auto& f) {
        if (ch.rows_inner) {
          for (std::uint64_t z = 0; z < len; ++z)
            for (std::uint64_t r = 0; r < rows; ++r) f(r, z);
        } else {
          for (std::uint64_t r = 0; r < rows; ++r)
            for (std::uint64_t z = 0; z < len; ++z) f(r, z);
        }
      };
      if (ch.direct) {
        dft(mem + so, buf);
      } else {
        each([&](std::uint64_t r, std::uint64_t z) {
          const std::uint64_t u = ((t0 ^ ch.tb[r] ^ ch.tz[z]) >> ch.lo) & hmask;
          buf[(r << ch.h) | u] = mem[so | ch.db[r] | ch.dz[z]];
        });
        dft(nullptr, buf);
      }
      // The flags as constants, so that the word loop carries no branch.
      const auto scatter = [&](auto twiddles_on, auto aligned_on) {
        each([&](std::uint64_t r, std::uint64_t z) {
          const std::uint64_t t = t0 ^ ch.tb[r] ^ ch.tz[z];
          const std::uint64_t k = ch.rev[(t >> ch.lo) & hmask];
          C y = buf[(r << ch.h) | k];
          if constexpr (decltype(twiddles_on)::value) {
            const Complex128 w = tw(((t & lomask) * k) & nmask);
            const R wr = static_cast<R>(w.re), wi = static_cast<R>(w.im);
            y = C{y.re * wr - y.im * wi, y.re * wi + y.im * wr};
          }
          if constexpr (decltype(aligned_on)::value)
            out[a0 ^ ch.ab[r] ^ ch.az[z]] = y;
          else
            mem[so | ch.db[r] | ch.dz[z]] = y;
        });
      };
      using On = std::true_type;
      using Off = std::false_type;
      if (twiddled)
        aligned ? scatter(On{}, On{}) : scatter(On{}, Off{});
      else
        aligned ? scatter(Off{}, On{}) : scatter(Off{}, Off{});
    }
    std::free(buf);
  }
}

}  // namespace hcube::kernels::cpu

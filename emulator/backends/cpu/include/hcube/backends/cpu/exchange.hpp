// The host launcher of a routing cycle: the same swaps as ExchangeBody, done
// row by row. In the tiled pvar layout a direct exchange (no offset map) pairs
// whole rows: the 2^t words of local address a of one tile with those of
// local address b of the partner tile (a dimension above the tile bits) or of
// the same tile (a dimension inside it, words 2^dim apart). The rows are
// visited tile by tile in address order, so each thread reads its tile and
// the few partner tiles as sequential streams; swapping rows as plain loops
// streams through memory.
//
// Node-dependent addresses (an offset map L, linear over GF(2)) are rows too
// where L is constant over a tile: node T 2^t + u uses a xor L(T 2^t) xor
// L(u). Where L varies inside the tiles (Edelman's unaligned schedule: L(j) =
// j), a batch of such cycles first skews the tiles, storing word x of node u
// at row x xor L(u) (an in-place swap within each tile), runs every exchange
// as rows, and unskews at the end; otherwise the per-word body runs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hcube/backends/cpu/alignment.hpp"
#include "hcube/backends/cpu/launch.hpp"
#include "hcube/kernels/exchange.hpp"

namespace hcube::kernels::cpu {

// Tiles of at most this many node bits may be skewed (a table of 2^t row offsets).
inline constexpr unsigned kMaxSkewTileDims = 12;

// The offset maps of a batch as the tiles see them: map k (0 = direct) adds
// high(k, T) to every address of tile T and, inside the tile, the part of the
// map on the tile's node bits, whose class (equal parts, equal classes; 0 =
// none) says which skew makes the map's exchanges rows.
template <class Word>
class TileOffsets {
 public:
  explicit TileOffsets(const ExchangeBody<Word>& body) : body_(body) {
    const unsigned t = body.layout.t;
    class_of_.assign(1, 0);
    skews_.assign(1, std::vector<std::uint64_t>(t <= kMaxSkewTileDims ? bit(t) : 0, 0));
    skewable_ = t <= kMaxSkewTileDims;
  }

  // The skew class of map k, its in-tile part compared with the classes seen.
  unsigned class_of(std::uint32_t k) {
    if (k < class_of_.size() && (k == 0 || class_of_[k] != kUnknown)) return class_of_[k];
    if (class_of_.size() <= k) class_of_.resize(k + 1, kUnknown);
    const unsigned t = body_.layout.t;
    const std::uint64_t* table = this->table(k);
    // The part on the tile's bits, as a basis: a linear map is its values on single bits.
    std::vector<std::uint64_t> basis(t);
    bool zero = true;
    for (unsigned b = 0; b < t; ++b) {
      basis[b] = AffineView::lookup(table, body_.offset_bytes, bit(b));
      zero = zero && basis[b] == 0;
    }
    if (zero) return class_of_[k] = 0;
    if (!skewable_) return class_of_[k] = kUnskewable;
    for (unsigned c = 1; c < bases_.size() + 1; ++c)
      if (bases_[c - 1] == basis) return class_of_[k] = c;
    bases_.push_back(basis);
    std::vector<std::uint64_t>& s = skews_.emplace_back(bit(t));
    for (std::uint64_t u = 1; u < bit(t); ++u) s[u] = s[u & (u - 1)] ^ basis[static_cast<unsigned>(__builtin_ctzll(u))];
    return class_of_[k] = static_cast<unsigned>(bases_.size());
  }
  // Map k's offset on tile T (its value at the tile's first node).
  std::uint64_t high(std::uint32_t k, std::uint64_t T) const {
    return k == 0 ? 0 : AffineView::lookup(table(k), body_.offset_bytes, T << body_.layout.t);
  }
  // Row offset S(u) of the class's skew, for each in-tile node u.
  const std::vector<std::uint64_t>& skew(unsigned c) const { return skews_[c]; }

  static constexpr unsigned kUnknown = ~0u, kUnskewable = ~0u - 1;

 private:
  const std::uint64_t* table(std::uint32_t k) const {
    return body_.offset_tables + std::uint64_t{k - 1} * body_.offset_bytes * 256;
  }
  const ExchangeBody<Word>& body_;
  std::vector<unsigned> class_of_;
  std::vector<std::vector<std::uint64_t>> bases_;
  std::vector<std::vector<std::uint64_t>> skews_;
  bool skewable_ = false;
};

// Swaps word x of every in-tile node u between rows x and x xor delta[u]: the
// change from one skew to another (delta = old xor new). Skews are linear in u
// (TileOffsets), so this is an xor alignment of the in-tile node bits, run by
// the alignment's launcher (32-byte row sets where AVX2 runs).
template <class Word>
void reskew_tiles(Word* mem, const Layout& L, const std::vector<std::uint64_t>& delta, const tuning::Knobs& knobs) {
  std::uint64_t span = 0;
  for (const std::uint64_t s : delta) span |= s;
  if (span == 0) return;
  const unsigned mem_bytes = (L.geo.m + 7) / 8, node_bytes = (L.t + 7) / 8;
  std::vector<std::uint64_t> mem_table(std::size_t{256} * mem_bytes), node_table(std::size_t{256} * node_bytes);
  for (unsigned b = 0; b < mem_bytes; ++b)
    for (std::uint64_t v = 0; v < 256; ++v) mem_table[b * 256 + v] = v << (8 * b);
  // Byte b of a node address: its in-tile bits' delta (a linear map is its value on the bits set).
  for (unsigned b = 0; b < node_bytes; ++b)
    for (std::uint64_t v = 0; v < 256; ++v) node_table[b * 256 + v] = delta[(v << (8 * b)) & (bit(L.t) - 1)];
  const AffineView map{mem_table.data(), node_table.data(), mem_bytes, node_bytes, 0};
  run_align_xor(AlignXorBody<Word>{mem, L, map, 0, L.geo.words_per_node()}, knobs);
}

// One cycle's exchanges with the tiles skewed by class `skewed` (0: not
// skewed): the exchanges of that class as rows; the others by the per-word
// body, which reads the unskewed layout: the caller skews only for a cycle
// whose exchanges are all of the skew's class.
template <class Word>
void run_exchanges(const ExchangeBody<Word>& body, std::uint64_t count, TileOffsets<Word>& offsets,
                   const tuning::Knobs& knobs, unsigned skewed = 0) {
  const Layout& L = body.layout;
  const unsigned t = L.t, n = L.geo.n, pair_bits = n - 1;
  const std::uint64_t row = bit(t), tiles = bit(n - t), tile_words = L.geo.words_per_node() << t;
  // A cycle's exchanges touch disjoint words, so any order is the same cycle:
  // the row ones sorted by local address (one sweep through each tile).
  std::vector<std::uint32_t> rowed;
  for (std::uint64_t e = 0; e < count; ++e) {
    if (offsets.class_of(body.exchanges[e].offset_map) == skewed) {
      rowed.push_back(static_cast<std::uint32_t>(e));
    } else {
      // Node-dependent addresses inside the tiles: the per-word body over this exchange's pairs.
      launch(bit(pair_bits), [&](std::uint64_t p) { body((e << pair_bits) | p); });
    }
  }
  if (rowed.empty()) return;
  std::stable_sort(rowed.begin(), rowed.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return body.exchanges[x].addr < body.exchanges[y].addr; });
  // Work item (tile, slice of the sorted exchanges): enough items for every thread even with one tile.
  const std::uint64_t slices = std::min<std::uint64_t>(rowed.size(), std::max<std::uint64_t>(1, 64 / tiles));
  const auto items = static_cast<std::int64_t>(tiles * slices);
  Word* mem = body.mem;
  const bool prefetch = L.geo.total_words() * sizeof(Word) >= knobs.streaming_bytes;
  const std::uint64_t ahead = knobs.prefetch_rows;
#pragma omp parallel for schedule(static, 1) if (rowed.size() * L.geo.nodes() >= kParallelThreshold) \
    num_threads(team_size())
  for (std::int64_t w = 0; w < items; ++w) {
    const std::uint64_t T = static_cast<std::uint64_t>(w) / slices, s = static_cast<std::uint64_t>(w) % slices;
    const std::uint64_t first = rowed.size() * s / slices, last = rowed.size() * (s + 1) / slices;
    Word* tile = mem + T * tile_words;
    // The rows of exchange k: this tile's and its partner's (this tile holds the
    // low side of the pair, or the dimension is inside it); false when the
    // partner tile does the swap.
    const auto rows = [&](std::uint64_t k, Word*& a, Word*& b) {
      const Exchange& x = body.exchanges[rowed[k]];
      if (x.dim >= t && ((T >> (x.dim - t)) & 1u)) return false;
      const std::uint64_t P = x.dim >= t ? T ^ bit(x.dim - t) : T;
      a = tile + ((x.addr ^ offsets.high(x.offset_map, T)) << t);
      b = mem + P * tile_words + ((x.peer_addr ^ offsets.high(x.offset_map, P)) << t);
      return true;
    };
    for (std::uint64_t k = first; k < last; ++k) {
      Word *a = nullptr, *b = nullptr;
      // The rows a few exchanges ahead are fetched while these swap: they lie in
      // other tiles' pages.
      if (prefetch && k + ahead < last && rows(k + ahead, a, b))
        for (std::size_t c = 0; c < row * sizeof(Word); c += 64) {
          __builtin_prefetch(reinterpret_cast<const char*>(a) + c, 1, 3);
          __builtin_prefetch(reinterpret_cast<const char*>(b) + c, 1, 3);
        }
      if (!rows(k, a, b)) continue;
      const unsigned dim = body.exchanges[rowed[k]].dim;
      if (dim >= t) {
        for (std::uint64_t j = 0; j < row; ++j) swap_words(a[j], b[j]);
      } else {
        const std::uint64_t step = bit(dim);
        for (std::uint64_t i = 0; i < row; i += 2 * step)
          for (std::uint64_t j = i; j < i + step; ++j) swap_words(a[j], b[j + step]);
      }
    }
  }
}

template <class Word>
void run_exchanges(const ExchangeBody<Word>& body, std::uint64_t count, const tuning::Knobs& knobs) {
  TileOffsets<Word> offsets(body);
  run_exchanges(body, count, offsets, knobs);
}

// Skewing pays where a run of cycles has this many exchanges per word of a node
// and byte of a word: the per-word body touches a cache line a word, two
// reskews move the data twice.
inline constexpr double kSkewExchangesPerNodeByte = 1.0 / 16;

// A batch of cycles (ends: each cycle's end in body.exchanges). Runs of cycles
// whose exchanges share one in-tile offset class go skewed when long enough;
// the tiles are unskewed before a cycle that needs it and at the end.
template <class Word>
void run_exchange_cycles(const ExchangeBody<Word>& body, const std::vector<std::size_t>& ends,
                         const tuning::Knobs& knobs) {
  TileOffsets<Word> offsets(body);
  const auto class_of_cycle = [&](std::size_t c) {
    const std::size_t first = c == 0 ? 0 : ends[c - 1];
    if (ends[c] == first) return 0u;
    const unsigned k = offsets.class_of(body.exchanges[first].offset_map);
    for (std::size_t e = first + 1; e < ends[c]; ++e)
      if (offsets.class_of(body.exchanges[e].offset_map) != k) return TileOffsets<Word>::kUnskewable;
    return k;
  };
  const double worth = kSkewExchangesPerNodeByte * static_cast<double>(body.layout.geo.words_per_node()) *
                       static_cast<double>(sizeof(Word));
  unsigned skewed = 0;
  const auto reskew = [&](unsigned to) {
    if (to == skewed) return;
    std::vector<std::uint64_t> delta = offsets.skew(skewed);
    const std::vector<std::uint64_t>& s = offsets.skew(to);
    for (std::size_t u = 0; u < delta.size(); ++u) delta[u] ^= s[u];
    reskew_tiles(body.mem, body.layout, delta, knobs);
    skewed = to;
  };
  for (std::size_t c = 0; c < ends.size();) {
    // The run of cycles of one class from c.
    const unsigned k = class_of_cycle(c);
    std::size_t last = c + 1;
    while (last < ends.size() && class_of_cycle(last) == k) ++last;
    const std::size_t first_exchange = c == 0 ? 0 : ends[c - 1];
    const bool skewable = k != 0 && k != TileOffsets<Word>::kUnskewable;
    reskew(skewable && static_cast<double>(ends[last - 1] - first_exchange) >= worth ? k : 0);
    for (; c < last; ++c) {
      const std::size_t first = c == 0 ? 0 : ends[c - 1];
      ExchangeBody<Word> cycle = body;
      cycle.exchanges += first;
      run_exchanges(cycle, ends[c] - first, offsets, knobs, skewed);
    }
  }
  reskew(0);
}

}  // namespace hcube::kernels::cpu

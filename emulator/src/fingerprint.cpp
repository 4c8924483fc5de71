#include "hcube/emulator/fingerprint.hpp"

#include <algorithm>
#include <cstring>
#include <random>

namespace hcube {
namespace {

std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finalizer: every input bit reaches every output bit
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Input words a sum covers: a failed check names a range this long.
constexpr std::uint64_t kChunk = std::uint64_t{1} << 16;

}  // namespace

InputFingerprint::InputFingerprint(std::uint64_t words)
    : key((static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}()),
      chunk_words(kChunk),
      sums((words + kChunk - 1) / kChunk, 0) {}

std::uint64_t InputFingerprint::hash(std::uint64_t g, const unsigned char* word, std::size_t word_bytes) const {
  std::uint64_t h = mix64(key ^ mix64(g + 0x9e3779b97f4a7c15ULL));
  for (std::size_t at = 0; at < word_bytes; at += 8) {
    std::uint64_t lane = 0;
    std::memcpy(&lane, word + at, std::min<std::size_t>(8, word_bytes - at));
    h = mix64(h ^ lane) + at;
  }
  return h;
}

}  // namespace hcube

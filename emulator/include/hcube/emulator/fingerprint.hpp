// What a run keeps of an input it cannot read again (a pipe): for each chunk
// of input words, the sum of a keyed 64-bit hash of (index g, the word), the
// key drawn afresh for every run. A check sums the same hash over the words
// the reference places; a wrong or misplaced word changes its chunk's sum but
// for a chance of about 2^-64.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hcube {

struct InputFingerprint {
  // Sums for `words` input words, a fresh key, chunks of 2^16 words.
  explicit InputFingerprint(std::uint64_t words = 0);
  std::uint64_t key = 0;
  std::uint64_t chunk_words = 0;  // input words g in [c chunk_words, (c + 1) chunk_words) add to sums[c]
  std::vector<std::uint64_t> sums;
  std::uint64_t hash(std::uint64_t g, const unsigned char* word, std::size_t word_bytes) const;
  void add(std::uint64_t g, const unsigned char* word, std::size_t word_bytes) {
    sums[g / chunk_words] += hash(g, word, word_bytes);
  }
};

}  // namespace hcube

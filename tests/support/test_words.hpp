// Words for the launcher tests, of any of the three word sizes: labelled so
// every byte that moves is distinct, compared byte for byte.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace hcube {

// Word s of the source: distinct in every byte that moves.
template <class Word>
Word word_of(std::uint64_t s) {
  if constexpr (sizeof(Word) == 16)
    return Word{s + 7, ~s};
  else
    return static_cast<Word>(s + 7);
}

template <class Word>
std::vector<Word> labelled_words(std::uint64_t count) {
  std::vector<Word> v(count);
  for (std::uint64_t s = 0; s < count; ++s) v[s] = word_of<Word>(s);
  return v;
}

template <class Word>
bool same_words(const std::vector<Word>& a, const std::vector<Word>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Word)) == 0;
}

}  // namespace hcube

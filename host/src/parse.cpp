#include "hcube/host/parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "hcube/core/error.hpp"

namespace hcube {

std::uint64_t parse_uint(const std::string& text, const std::string& what) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  // All digits, but past 64 bits: too large, not "not an integer".
  if (!text.empty() && ec == std::errc::result_out_of_range && p == end)
    throw Error(fmt::format("{} {} out of range: allowed at most {}", what, printable_input(text),
                            std::numeric_limits<std::uint64_t>::max()));
  if (text.empty() || ec != std::errc() || p != end)
    throw Error(fmt::format("{} '{}' is not a non-negative integer", what, printable_input(text)));
  return v;
}

std::vector<std::uint64_t> parse_uint_fields(const std::string& text, char sep, const std::string& what) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(sep, start);
    const std::string field = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    try {
      out.push_back(parse_uint(field, what));
    } catch (const Error&) {
      // A field of digits is a number, too large: parse_uint's error says so.
      if (!field.empty() && field.find_first_not_of("0123456789") == std::string::npos) throw;
      throw Error(fmt::format("{} '{}' malformed: field '{}' is not a non-negative integer", what,
                              printable_input(text), printable_input(field)));
    }
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

std::vector<unsigned> parse_uint_list(const std::string& text, const std::string& what) {
  std::vector<unsigned> out;
  if (text.empty()) return out;
  for (std::uint64_t v : parse_uint_fields(text, ',', what)) {
    if (v > std::numeric_limits<unsigned>::max()) throw Error(fmt::format("{} value {} too large", what, v));
    out.push_back(static_cast<unsigned>(v));
  }
  return out;
}

namespace {

// One byte of user text as printed: control characters (and, unless
// `keep_utf8`, every byte past ASCII) as escapes, the rest as it is.
void append_printable(std::string& out, unsigned char c, bool keep_utf8) {
  if (c == '\n') out += "\\n";
  else if (c == '\r') out += "\\r";
  else if (c == '\t') out += "\\t";
  else if (c < 0x20 || c == 0x7f || (c > 0x7f && !keep_utf8)) out += fmt::format("\\x{:02x}", c);
  else out += static_cast<char>(c);
}

}  // namespace

std::string printable_input(const std::string& text, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max; ++i) append_printable(out, static_cast<unsigned char>(text[i]), false);
  if (text.size() > max) out += "...";
  return out;
}

std::string printable_text(const std::string& text) {
  std::string out;
  for (const char c : text) append_printable(out, static_cast<unsigned char>(c), true);
  return out;
}

std::string allowed_indices(std::uint64_t count, const char* name) {
  return count == 0 ? fmt::format("allowed none ({} = 0)", name) : fmt::format("allowed 0..{}", count - 1);
}

namespace {

// Levenshtein distance, ignoring case.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

// "x", "x or y", "x, y or z".
std::string or_list(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

std::vector<std::string> nearest_names(const std::string& word, const std::vector<std::string>& names) {
  if (word.find_first_not_of('-') == std::string::npos) return {};
  std::vector<std::string> begun;
  for (const std::string& n : names)
    if (n.size() > word.size() && n.compare(0, word.size(), word) == 0) begun.push_back(n);
  if (begun.size() == 1) return begun;
  std::size_t best = 3;
  std::vector<std::string> near;
  for (const std::string& n : names) {
    const std::size_t d = edit_distance(word, n);
    if (d < best) {
      best = d;
      near.clear();
    }
    if (d == best && std::find(near.begin(), near.end(), n) == near.end()) near.push_back(n);
  }
  return near.size() <= 3 ? near : std::vector<std::string>{};
}

}  // namespace hcube

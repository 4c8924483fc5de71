#include "hcube/host/parse.hpp"

#include <fmt/format.h>

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

}  // namespace hcube

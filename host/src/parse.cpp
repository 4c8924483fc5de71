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

std::string printable_input(const std::string& text, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c >= 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  if (text.size() > max) out += "...";
  return out;
}

std::string allowed_indices(std::uint64_t count, const char* name) {
  return count == 0 ? fmt::format("allowed none ({} = 0)", name) : fmt::format("allowed 0..{}", count - 1);
}

}  // namespace hcube

// Small strict parsers for command-line and file fields.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hcube {

// Parses a whole decimal unsigned integer; throws hcube::Error naming `what` and the text.
std::uint64_t parse_uint(const std::string& text, const std::string& what);
// Splits on `sep` and parses each field with parse_uint.
std::vector<std::uint64_t> parse_uint_fields(const std::string& text, char sep, const std::string& what);
std::vector<unsigned> parse_uint_list(const std::string& text, const std::string& what);

// "allowed 0..count-1", or "allowed none (<name> = 0)" when there is nothing to allow.
std::string allowed_indices(std::uint64_t count, const char* name);

}  // namespace hcube

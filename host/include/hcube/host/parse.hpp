// Small strict parsers for command-line and file fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hcube {

// Parses a whole decimal unsigned integer; throws hcube::Error naming `what` and the text.
std::uint64_t parse_uint(const std::string& text, const std::string& what);
// Splits on `sep` and parses each field with parse_uint.
std::vector<std::uint64_t> parse_uint_fields(const std::string& text, char sep, const std::string& what);
std::vector<unsigned> parse_uint_list(const std::string& text, const std::string& what);

// Text taken from the user or a file, ready to quote in a one-line error
// message: bytes outside printable ASCII escaped (\n, \r, \t, \xNN) and the
// text cut after `max` bytes, marked "...". Every parser that echoes its input
// in an hcube::Error quotes it through this.
std::string printable_input(const std::string& text, std::size_t max = 200);
// The same escapes for text printed whole (a file name, an error line, a
// schedule file's strings): control characters only, so that it stays on its
// line and sends the terminal no sequence; UTF-8 is kept, nothing is cut.
std::string printable_text(const std::string& text);

// "allowed 0..count-1", or "allowed none (<name> = 0)" when there is nothing to allow.
std::string allowed_indices(std::uint64_t count, const char* name);

// The names nearest to `word`, for a "did you mean" (a misspelt command,
// flag or name): the only one that begins with it, else those within edit
// distance 2 of it (ignoring case), at most three, else none.
std::vector<std::string> nearest_names(const std::string& word, const std::vector<std::string>& names);
// "x", "x or y", "x, y or z".
std::string or_list(const std::vector<std::string>& names);

}  // namespace hcube

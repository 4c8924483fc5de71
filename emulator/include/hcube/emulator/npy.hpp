// Reading and writing NumPy .npy files, the format machine contents are loaded
// from and dumped to. Only the element types a machine holds are supported,
// little-endian and in C order, so the bytes can be copied as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hcube/emulator/element_type.hpp"

namespace hcube {

struct NpyArray {
  ElementType type;
  std::vector<std::uint64_t> shape;  // empty for a 0-d array (one element)
  std::vector<unsigned char> data;   // little-endian, C order, exactly elements() * info(type).bytes
  std::uint64_t elements() const;    // product of shape
};

// A file's dtype and shape, read from its header alone: the data is not read,
// only its length checked against the shape (a pipe is read whole).
struct NpyHeader {
  ElementType type;
  std::vector<std::uint64_t> shape;
};

// Every function throws hcube::Error with a one-line message naming the file
// (or `what`), the offending value and what is allowed.
NpyArray read_npy(const std::string& path);
NpyHeader read_npy_header(const std::string& path);
// Parses a whole .npy file held in memory; `what` names the source in errors.
NpyArray parse_npy(const unsigned char* bytes, std::size_t size, const std::string& what);

// Writes through an OutputFile (hcube/host/output_file.hpp): a regular file
// appears whole or not at all, a device or FIFO is written into, a symlink
// followed, a read-only file refused. `bytes` must be exactly the
// size of the array. Writes format 1.0 when the header fits, else 2.0, padded
// to 64 bytes exactly as NumPy does.
void write_npy(const std::string& path, ElementType type, const std::vector<std::uint64_t>& shape, const void* data,
               std::size_t bytes);
std::vector<unsigned char> encode_npy(ElementType type, const std::vector<std::uint64_t>& shape, const void* data,
                                      std::size_t bytes);

// Checks that an array fits a machine of 2^n nodes x 2^m words: shape
// (2^n, 2^m) or flat (2^(n+m),), and dtype `expected`.
void check_machine_array(const NpyArray& a, const std::string& what, unsigned n, unsigned m, ElementType expected);

}  // namespace hcube

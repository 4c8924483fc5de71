// Reading and writing NumPy .npy files, the format machine contents are loaded
// from and dumped to. Only the element types a machine holds are supported,
// little-endian and in C order, so the bytes can be copied as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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
// only a regular file's length checked against the shape.
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

// Writes through an OutputFile (hcube/host/io/output_file.hpp): a regular file
// appears whole or not at all, a device or FIFO is written into, a symlink
// followed, a read-only file refused. `bytes` must be exactly the
// size of the array. Writes format 1.0 when the header fits, else 2.0, padded
// to 64 bytes exactly as NumPy does.
void write_npy(const std::string& path, ElementType type, const std::vector<std::uint64_t>& shape, const void* data,
               std::size_t bytes);
std::vector<unsigned char> encode_npy(ElementType type, const std::vector<std::uint64_t>& shape, const void* data,
                                      std::size_t bytes);

class NpyFile;
class NpySource;

// A .npy input opened once and its header read and checked before any of its
// body: a regular file (the body's length checked against the file's) or a
// stream (a pipe, FIFO or device, read in order and only as far as its header
// says, each silence waited through for at most HCUBE_INPUT_WAIT seconds,
// default 5). The header is read once, so n and m can come from a pipe's
// shape and its body then be read. The body is taken once, by one of file(),
// read_body() or read_all().
class NpyInput {
 public:
  explicit NpyInput(const std::string& path);
  ~NpyInput();
  NpyInput(const NpyInput&) = delete;
  NpyInput& operator=(const NpyInput&) = delete;

  const std::string& path() const;
  ElementType type() const { return type_; }
  const std::vector<std::uint64_t>& shape() const { return shape_; }
  std::uint64_t data_bytes() const { return data_bytes_; }
  bool regular() const;
  // A regular file, to be read at any offset (and again): its open descriptor
  // handed over. nullptr for a stream, whose body is then still to be read.
  std::shared_ptr<const NpyFile> file();
  // The body in order, in chunks of 1 MiB (the last one shorter, so a chunk
  // holds whole words): f(offset in the body, bytes, count). Nothing past
  // what has arrived is held; a short body is refused at its end, a stream
  // going on past it at its first extra byte.
  using BodyChunk = std::function<void(std::uint64_t offset, const unsigned char* bytes, std::size_t count)>;
  void read_body(const BodyChunk& f);
  // The whole body in memory: a stream's buffer grows as its bytes arrive.
  std::vector<unsigned char> read_all();

 private:
  void take_body();
  std::unique_ptr<NpySource> source_;
  ElementType type_ = ElementType::u32;
  std::vector<std::uint64_t> shape_;
  std::uint64_t data_offset_ = 0, data_bytes_ = 0;
  bool taken_ = false;
};

// A regular .npy file opened for reading in pieces: its header read and
// checked, the body's length checked against the file's, the body read at any
// offset. For inputs larger than memory would comfortably hold twice.
class NpyFile {
 public:
  // nullptr when `path` is not a regular file (a pipe or FIFO: NpyInput reads those in order).
  static std::shared_ptr<const NpyFile> open(const std::string& path);
  ~NpyFile();
  NpyFile(const NpyFile&) = delete;
  NpyFile& operator=(const NpyFile&) = delete;

  const std::string& path() const { return path_; }
  ElementType type() const { return type_; }
  const std::vector<std::uint64_t>& shape() const { return shape_; }
  std::uint64_t data_bytes() const { return data_bytes_; }
  // `bytes` of the body from byte `offset` of it.
  void read(std::uint64_t offset, void* dst, std::uint64_t bytes) const;

 private:
  friend class NpyInput;
  NpyFile() = default;
  std::string path_;
  int fd_ = -1;
  ElementType type_ = ElementType::u32;
  std::vector<std::uint64_t> shape_;
  std::uint64_t data_offset_ = 0, data_bytes_ = 0;
};

// Words of a .npy file read by index (word g: `word_bytes` bytes at byte
// g * word_bytes of the body) through a small direct-mapped cache of windows,
// for callers that ask for them scattered (a block-cyclic layout, a router
// step's sources): a window at a time from the file, never the whole array.
class NpyWordReader {
 public:
  NpyWordReader(std::shared_ptr<const NpyFile> file, std::size_t word_bytes);
  void read(std::uint64_t g, unsigned char* out);

 private:
  static constexpr std::uint64_t kWindow = 1 << 14, kSlots = 64;  // 2^20 words: 8 MiB of uint64 at most
  std::shared_ptr<const NpyFile> file_;
  std::size_t wb_;
  std::unique_ptr<unsigned char[]> buf_;
  std::vector<std::uint64_t> tag_ = std::vector<std::uint64_t>(kSlots, ~std::uint64_t{0});
};

// Element g of a command's input: the file's word g (through its own
// NpyWordReader), or without a file the label g written in `type`.
std::function<void(std::uint64_t g, unsigned char* out)> input_elements(std::shared_ptr<const NpyFile> file,
                                                                        ElementType type);

// A .npy file written in pieces through an OutputFile: the header first, then
// the body at any offset when the target is a regular file (seekable()), else
// in order. commit() makes it visible; destroying it uncommitted removes it.
class NpyWriter {
 public:
  NpyWriter(const std::string& path, ElementType type, const std::vector<std::uint64_t>& shape);
  ~NpyWriter();
  bool seekable() const;
  void write_at(std::uint64_t offset, const void* data, std::uint64_t bytes);  // offset within the body
  void write(const void* data, std::uint64_t bytes);
  void commit();
  // Where the body is being written: the file (OutputFile::written_path) and
  // the body's first byte in it, for other processes that write parts of it.
  const std::string& body_path() const;
  std::uint64_t body_offset() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Checks that an array fits a machine of 2^n nodes x 2^m words: shape
// (2^n, 2^m) or flat (2^(n+m),), and dtype `expected`.
void check_machine_array(const NpyArray& a, const std::string& what, unsigned n, unsigned m, ElementType expected);
void check_machine_shape(ElementType type, const std::vector<std::uint64_t>& shape, const std::string& what, unsigned n,
                         unsigned m, ElementType expected);

// An array's n and m from its shape (a .npy file's, a NumPy array's): (2^n,
// 2^m) gives both, a flat (2^q,) one from the other. A value given (set) stays
// and check_machine_shape then checks it; `data_dims` >= 0: the array holds
// 2^data_dims nodes' data inside a larger cube, so its shape gives m but not
// n. Throws the one-line error when the shape is not (2^a, 2^b) or (2^q,), or
// a flat one comes with neither value; leaves unset what the shape cannot give.
void machine_dims_from_shape(const std::vector<std::uint64_t>& shape, const std::string& what,
                             std::optional<long long>& n, std::optional<long long>& m, long long data_dims = -1);

// A NumPy dtype's str ("<u4") as a .npy header's descr: the element type, or
// the one-line error naming `what` and the dtypes supported. For arrays in memory.
ElementType parse_npy_descr(const std::string& descr, const std::string& what);
// Data not in C order (a .npy header's fortran_order True, a strided NumPy
// array): the one-line error, `held` saying what it is.
[[noreturn]] void fail_not_c_order(const std::string& what, const std::string& held);

}  // namespace hcube

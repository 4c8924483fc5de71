// NumPy .npy format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
// A file is the magic "\x93NUMPY", a version, the header length (2 bytes in
// 1.0, 4 in 2.0/3.0), a Python dict literal padded with spaces and '\n', and
// the raw array bytes.
#include "hcube/emulator/npy.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>

#include "hcube/core/error.hpp"
#include "hcube/host/system/host_memory.hpp"
#include "hcube/host/io/input_file.hpp"
#include "hcube/host/io/output_file.hpp"

// Array bytes are copied as they are, so '<' and '=' dtypes mean host order.
#if defined(__BYTE_ORDER__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy.cpp assumes a little-endian host");
#endif

namespace hcube {
namespace {

constexpr unsigned char kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kMagicLen = sizeof kMagic;
constexpr std::size_t kPreambleLen = kMagicLen + 2;  // magic plus major and minor version
constexpr std::size_t kAlign = 64;                   // NumPy pads the header to this
constexpr std::size_t kGrowthDigits = 21;            // NumPy's spare room to grow shape[0] in place

[[noreturn]] void fail(const std::string& what, const std::string& message) { throw Error(what + ": " + message); }

// Quotes text taken from a file: control and non-ASCII bytes become '?' and
// long text is cut, so that error messages stay a single readable line.
std::string printable(const std::string& s) {
  constexpr std::size_t kMax = 200;
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (s.size() > kMax) out += "...";
  return out;
}

// The header dict for messages, without its padding.
std::string printable_header(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return printable(text.substr(0, end));
}

std::string hex_bytes(const unsigned char* p, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%s%02x", i ? " " : "", p[i]);
    out += buf;
  }
  return out;
}

// Python's repr of a shape tuple: (), (4,), (16, 8).
std::string shape_str(const std::vector<std::uint64_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

std::string dtype_str(ElementType t) { return std::string(info(t).npy_descr) + " (" + info(t).name + ")"; }

std::string supported_dtypes() {
  std::string out;
  for (const ElementInfo& e : all_element_types()) out += (out.empty() ? "" : ", ") + dtype_str(e.type);
  return out;
}

// Bytes taken by an array, guarding the product against overflow. A zero
// dimension makes the array empty whatever the others are.
std::uint64_t array_bytes(ElementType t, const std::vector<std::uint64_t>& shape, const std::string& what) {
  for (std::uint64_t d : shape)
    if (d == 0) return 0;
  std::uint64_t total = info(t).bytes;
  for (std::uint64_t d : shape) {
    if (total > std::numeric_limits<std::uint64_t>::max() / d)
      fail(what, "shape " + shape_str(shape) + " of " + info(t).npy_descr + " needs more than 2^64 bytes");
    total *= d;
  }
  return total;
}

// One value of the header dict; `raw` is its source text, for messages.
struct HeaderValue {
  enum Kind { String, Bool, Tuple } kind;
  std::string raw;
  std::string text;                 // String
  bool flag = false;                // Bool
  std::vector<std::uint64_t> dims;  // Tuple
};

// Parses the small subset of Python literals a .npy header uses: a dict of
// quoted keys to strings, True/False and tuples of integers, with any spacing
// and trailing commas. Anything else (e.g. a structured dtype list) is an error.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& what) : text_(text), what_(what) {}

  std::map<std::string, HeaderValue> dict() {
    std::map<std::string, HeaderValue> out;
    expect('{', "'{'");
    while (!accept('}')) {
      skip_ws();
      const std::string key = quoted();
      expect(':', "':'");
      HeaderValue v = value();
      if (!out.emplace(key, std::move(v)).second)
        fail(what_, "duplicate key '" + printable(key) + "' in .npy header " + printable_header(text_));
      if (!accept(',')) {
        expect('}', "',' or '}'");
        break;
      }
    }
    skip_ws();
    if (pos_ != text_.size()) error("only spaces after '}'");
    return out;
  }

 private:
  [[noreturn]] void error(const std::string& expected) const {
    fail(what_, "bad .npy header: expected " + expected + " at offset " + std::to_string(pos_) + " of " +
                    printable_header(text_));
  }
  void skip_ws() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool accept(char c) {
    skip_ws();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c, const char* description) {
    if (!accept(c)) error(description);
  }

  std::string quoted() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') error("a quoted string");
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos) error("a closing quote");
    std::string s = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }

  HeaderValue value() {
    skip_ws();
    const std::size_t start = pos_;
    HeaderValue v{HeaderValue::String, {}, {}, false, {}};
    const char c = peek();
    if (c == '\'' || c == '"') {
      v.text = quoted();
    } else if (c == '(') {
      v.kind = HeaderValue::Tuple;
      v.dims = tuple();
    } else {
      std::size_t end = pos_;
      while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) ++end;
      const std::string word = text_.substr(pos_, end - pos_);
      if (word != "True" && word != "False") error("a string, True, False or a shape tuple");
      v.kind = HeaderValue::Bool;
      v.flag = word == "True";
      pos_ = end;
    }
    v.raw = text_.substr(start, pos_ - start);
    return v;
  }

  std::vector<std::uint64_t> tuple() {
    expect('(', "'('");
    std::vector<std::uint64_t> dims;
    bool trailing_comma = false;
    while (!accept(')')) {
      dims.push_back(dimension());
      trailing_comma = accept(',');
      if (!trailing_comma) {
        expect(')', "',' or ')'");
        break;
      }
    }
    // In Python "(4)" is the integer 4, not a tuple, and NumPy rejects it.
    if (dims.size() == 1 && !trailing_comma) error("',' after the only dimension of a 1-d shape");
    return dims;
  }

  std::uint64_t dimension() {
    skip_ws();
    const std::size_t start = pos_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    if (pos_ == start) error("a non-negative integer dimension");
    const std::string digits = text_.substr(start, pos_ - start);
    std::uint64_t d = 0;
    for (char c : digits) {
      const auto digit = static_cast<std::uint64_t>(c - '0');
      if (d > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
        fail(what_, "dimension " + printable(digits) + " in .npy header does not fit 64 bits");
      d = d * 10 + digit;
    }
    if (peek() == 'L' || peek() == 'l') ++pos_;  // Python 2 longs, e.g. (4L, 8L), which NumPy still reads
    return d;
  }

  const std::string& text_;
  const std::string& what_;
  std::size_t pos_ = 0;
};

ElementType parse_descr(const std::string& descr, const std::string& what) {
  // '|' (not applicable) and '=' (native) are little-endian here; a bare code is native too.
  const char order = descr.empty() ? '\0' : descr[0];
  const bool has_order = order == '<' || order == '>' || order == '|' || order == '=';
  const std::string code = has_order ? descr.substr(1) : descr;
  for (const ElementInfo& e : all_element_types()) {
    if (code != e.npy_descr + 1) continue;  // npy_descr is '<' then the code
    if (order == '>')
      fail(what, "big-endian dtype '" + printable(descr) +
                     "' is not supported; convert it in NumPy with arr.astype(arr.dtype.newbyteorder('<'))");
    return e.type;
  }
  fail(what, "unsupported dtype '" + printable(descr) + "'; supported: " + supported_dtypes());
}

struct Header {
  ElementType type;
  std::vector<std::uint64_t> shape;
  std::size_t data_offset;
  std::uint64_t data_bytes;
};

// parse_header's `total` for a stream whose length is not known yet: the data's length is not checked.
constexpr std::uint64_t kUnknownTotal = std::numeric_limits<std::uint64_t>::max();

// NumPy refuses a header longer than this (numpy.lib.format's _MAX_HEADER_SIZE).
constexpr std::uint64_t kMaxHeaderLen = 10000;

std::string header_too_long(std::uint64_t header_len) {
  return "the .npy header claims " + std::to_string(header_len) + " bytes: allowed at most " +
         std::to_string(kMaxHeaderLen) + " (NumPy's own limit, max_header_size)";
}

// The preamble, checked in the order its bytes come: the magic, the version,
// then the header length against NumPy's cap. Returns the header's length;
// nothing past the first kPreambleLen + 4 bytes is needed to refuse a file.
std::uint64_t check_preamble(const unsigned char* bytes, std::size_t size, const std::string& what,
                             std::uint64_t total) {
  const std::size_t magic_seen = size < kMagicLen ? size : kMagicLen;
  if (magic_seen > 0 && std::memcmp(bytes, kMagic, magic_seen) != 0)
    fail(what, "not a .npy file: it starts with bytes " + hex_bytes(bytes, magic_seen) + ", expected " +
                   hex_bytes(kMagic, kMagicLen) + " (\\x93NUMPY)");
  if (size < kPreambleLen)
    fail(what, "truncated .npy file: it holds " + std::to_string(total) + " bytes, the preamble alone needs " +
                   std::to_string(kPreambleLen));
  const unsigned major = bytes[kMagicLen], minor = bytes[kMagicLen + 1];
  if (minor != 0 || major < 1 || major > 3)
    fail(what, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   "; supported: 1.0, 2.0, 3.0");

  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t prefix = kPreambleLen + length_bytes;
  if (size < prefix)
    fail(what, "truncated .npy file: it holds " + std::to_string(total) + " bytes, the version " +
                   std::to_string(major) + ".0 preamble needs " + std::to_string(prefix));
  std::uint64_t header_len = 0;
  for (std::size_t i = length_bytes; i-- > 0;) header_len = header_len << 8 | bytes[kPreambleLen + i];
  if (header_len > kMaxHeaderLen) fail(what, header_too_long(header_len));
  return header_len;
}

// The bytes before the header dict: the preamble and the header length.
std::size_t prefix_len(const unsigned char* bytes) { return kPreambleLen + (bytes[kMagicLen] == 1 ? 2 : 4); }

// Validates everything but copies nothing: the preamble, the header dict, and
// that exactly the array's bytes follow the header. `bytes` holds the first
// `size` bytes of a file of `total` bytes (at least the header, when it fits).
Header parse_header(const unsigned char* bytes, std::size_t size, const std::string& what, std::uint64_t total) {
  const std::uint64_t header_len = check_preamble(bytes, size, what, total);
  const std::size_t prefix = prefix_len(bytes);
  const std::uint64_t data_offset = prefix + header_len;
  if (data_offset > total || data_offset > size)
    fail(what, "truncated .npy header: the file holds " + std::to_string(total) + " bytes, the header ends at byte " +
                   std::to_string(data_offset));

  // Version 3.0 headers are UTF-8, but the keys and values accepted are ASCII.
  const std::string text(reinterpret_cast<const char*>(bytes + prefix), static_cast<std::size_t>(header_len));
  const std::map<std::string, HeaderValue> dict = HeaderParser(text, what).dict();
  static const char* const kAllowed = "'descr', 'fortran_order' and 'shape'";
  for (const auto& kv : dict)
    if (kv.first != "descr" && kv.first != "fortran_order" && kv.first != "shape")
      fail(what, "unexpected key '" + printable(kv.first) + "' in .npy header; allowed: " + kAllowed);
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (dict.count(key) == 0) fail(what, std::string(".npy header lacks the key '") + key + "'; it needs " + kAllowed);

  const HeaderValue& descr = dict.at("descr");
  const HeaderValue& fortran = dict.at("fortran_order");
  const HeaderValue& shape = dict.at("shape");
  if (descr.kind != HeaderValue::String)
    fail(what, "'descr' " + printable(descr.raw) + " is not supported; supported: " + supported_dtypes());
  if (fortran.kind != HeaderValue::Bool)
    fail(what, "'fortran_order' is " + printable(fortran.raw) + ", expected True or False");
  if (fortran.flag)
    fail_not_c_order(what, "fortran_order True (column-major data)");
  if (shape.kind != HeaderValue::Tuple)
    fail(what, "'shape' is " + printable(shape.raw) + ", expected a tuple of integers such as (16, 8)");

  Header h{parse_descr(descr.text, what), shape.dims, static_cast<std::size_t>(data_offset), 0};
  const std::uint64_t needed = array_bytes(h.type, h.shape, what);
  h.data_bytes = needed;
  if (total == kUnknownTotal) return h;
  const std::uint64_t held = total - data_offset;
  if (held != needed)
    fail(what, std::string(held < needed ? "truncated data" : "trailing data") + ": file holds " +
                   std::to_string(held) + " data bytes, shape " + shape_str(h.shape) + " of " + info(h.type).npy_descr +
                   " needs " + (held < needed ? "" : "only ") + std::to_string(needed));
  return h;
}

// Everything before the data: preamble and padded header, as NumPy writes it.
std::vector<unsigned char> encode_header(ElementType type, const std::vector<std::uint64_t>& shape, std::size_t bytes,
                                         const std::string& what) {
  const std::uint64_t needed = array_bytes(type, shape, what);
  if (needed != bytes)
    fail(what, "data holds " + std::to_string(bytes) + " bytes, shape " + shape_str(shape) + " of " +
                   info(type).npy_descr + " needs " + std::to_string(needed));

  std::string dict = std::string("{'descr': '") + info(type).npy_descr +
                     "', 'fortran_order': False, 'shape': " + shape_str(shape) + ", }";
  if (!shape.empty()) dict.append(kGrowthDigits - std::to_string(shape[0]).size(), ' ');
  const std::size_t text_len = dict.size() + 1;  // plus the final '\n'

  for (const std::size_t length_bytes : {std::size_t{2}, std::size_t{4}}) {
    // Like NumPy, pads by a whole kAlign when already aligned.
    const std::size_t pad = kAlign - (kPreambleLen + length_bytes + text_len) % kAlign;
    const std::uint64_t header_len = text_len + pad;
    if (header_len >> (8 * length_bytes) != 0) continue;  // too long for this version
    std::vector<unsigned char> out(kMagic, kMagic + kMagicLen);
    out.push_back(length_bytes == 2 ? 1 : 2);
    out.push_back(0);
    for (std::size_t i = 0; i < length_bytes; ++i) out.push_back(static_cast<unsigned char>(header_len >> (8 * i)));
    out.insert(out.end(), dict.begin(), dict.end());
    out.insert(out.end(), pad, ' ');
    out.push_back('\n');
    return out;
  }
  fail(what, "the .npy header for shape with " + std::to_string(shape.size()) + " dimensions exceeds 4 GiB");
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::uint64_t NpyArray::elements() const {
  std::uint64_t n = 1;  // cannot overflow for arrays that passed parse_npy
  for (std::uint64_t d : shape) n *= d;
  return n;
}

NpyArray parse_npy(const unsigned char* bytes, std::size_t size, const std::string& what) {
  const Header h = parse_header(bytes, size, what, size);
  return NpyArray{h.type, h.shape, std::vector<unsigned char>(bytes + h.data_offset, bytes + size)};
}

namespace {

// Chunks a body is read in: a stream's buffer grows by whole chunks as they
// arrive, and a machine is loaded a chunk at a time (a multiple of every word size).
constexpr std::size_t kBodyChunk = std::size_t{1} << 20;

}  // namespace

// A file opened for reading a .npy: a regular file's length is known before
// anything is read; a pipe, FIFO or device is read only as far as the header
// says, in chunks, its silences bounded, so /dev/zero, a short stream or a
// silent FIFO can neither hang nor grow a run.
class NpySource {
 public:
  explicit NpySource(const std::string& path) : file_(path, path.empty() ? "NpyInput::path" : path) {
    if (file_.regular()) total_ = file_.size();
  }
  bool regular() const { return file_.regular(); }
  const std::string& path() const { return file_.path(); }
  // Hands the open file over (to NpyFile, which reads it again at offsets).
  int release() { return file_.release(); }
  NpySource(const NpySource&) = delete;
  NpySource& operator=(const NpySource&) = delete;

  // Reads the preamble and the header (the first bytes of the file into buf_)
  // and checks them; for a regular file also that the data has the right length.
  Header header() {
    // The magic, version and header length are checked on these first bytes,
    // before the header they claim is read: random bytes may claim 4 GiB.
    fill(kPreambleLen + 4);
    const std::uint64_t header_len = check_preamble(buf_.data(), buf_.size(), path(), eof_ ? buf_.size() : total_);
    fill(prefix_len(buf_.data()) + header_len);
    // At the end of a stream its length is known, and messages say it.
    return parse_header(buf_.data(), buf_.size(), path(), eof_ ? buf_.size() : total_);
  }

  // The body after the header `h` in order, in chunks of kBodyChunk bytes
  // (the last one shorter): f(offset in the body, bytes, count). Exactly
  // h.data_bytes arrive, and nothing after them; a short file or stream is
  // refused at its end, before anything past what arrived is held.
  void body(const Header& h, const std::function<void(std::uint64_t, const unsigned char*, std::size_t)>& f) {
    std::vector<unsigned char> chunk(static_cast<std::size_t>(std::min<std::uint64_t>(h.data_bytes, kBodyChunk)));
    // What the header's reading took of the body already.
    std::size_t held = buf_.size() > h.data_offset ? buf_.size() - h.data_offset : 0;
    held = static_cast<std::size_t>(std::min<std::uint64_t>(held, h.data_bytes));
    std::uint64_t done = 0;
    std::size_t from_buf = 0;
    while (done < h.data_bytes) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), h.data_bytes - done));
      std::size_t used = 0;
      while (used < want && from_buf < held) {
        const std::size_t n = std::min(want - used, held - from_buf);
        std::memcpy(chunk.data() + used, buf_.data() + h.data_offset + from_buf, n);
        used += n;
        from_buf += n;
      }
      while (used < want) {
        const std::size_t got = read_some(chunk.data() + used, want - used);
        if (got == 0) parse_header(buf_.data(), buf_.size(), path(), h.data_offset + done + used);  // names the shortfall
        used += got;
      }
      f(done, chunk.data(), used);
      done += used;
    }
    std::vector<unsigned char>().swap(buf_);
    if (!regular()) {
      unsigned char extra = 0;
      if (read_some(&extra, 1) != 0)
        fail(path(), "trailing data: the stream holds more than the " + std::to_string(h.data_bytes) +
                        " data bytes its shape " + shape_str(h.shape) + " of " + info(h.type).npy_descr + " needs");
    }
  }

  // The whole body. A regular file's length is known (checked against the
  // header), so it is allocated at once; a stream's buffer grows as its bytes
  // arrive, so a header that claims more than arrives costs nothing.
  std::vector<unsigned char> data(const Header& h) {
    check_host_memory(h.data_bytes, path() + ": the .npy data");
    std::vector<unsigned char> out;
    if (regular()) out.reserve(static_cast<std::size_t>(h.data_bytes));
    body(h, [&](std::uint64_t, const unsigned char* bytes, std::size_t size) {
      if (out.capacity() - out.size() < size)
        out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(h.data_bytes, 2 * out.size() + size)));
      out.insert(out.end(), bytes, bytes + size);
    });
    return out;
  }

 private:
  // Reads until buf_ holds `want` bytes or the file ends.
  void fill(std::uint64_t want) {
    if (regular()) want = std::min(want, total_);
    while (buf_.size() < want && !eof_) {
      const std::size_t old = buf_.size();
      buf_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(want, old + kBodyChunk)));
      const std::size_t got = read_some(buf_.data() + old, buf_.size() - old);
      buf_.resize(old + got);
      if (got == 0) eof_ = true;
    }
  }

  std::size_t read_some(unsigned char* p, std::size_t n) { return file_.read_some(p, n); }

  InputFile file_;
  bool eof_ = false;
  std::uint64_t total_ = kUnknownTotal;
  std::vector<unsigned char> buf_;
};

NpyArray read_npy(const std::string& path) {
  NpySource source(path);
  const Header h = source.header();
  return NpyArray{h.type, h.shape, source.data(h)};
}

NpyHeader read_npy_header(const std::string& path) {
  NpySource source(path);
  const Header h = source.header();
  return NpyHeader{h.type, h.shape};
}

NpyInput::NpyInput(const std::string& path) : source_(new NpySource(path)) {
  const Header h = source_->header();
  type_ = h.type;
  shape_ = h.shape;
  data_offset_ = h.data_offset;
  data_bytes_ = h.data_bytes;
}

NpyInput::~NpyInput() = default;

const std::string& NpyInput::path() const { return source_->path(); }

bool NpyInput::regular() const { return source_->regular(); }

namespace {

Header header_of(const NpyInput& in, std::size_t data_offset) {
  return Header{in.type(), in.shape(), data_offset, in.data_bytes()};
}

}  // namespace

void NpyInput::take_body() {
  if (taken_) throw Error(path() + ": the .npy body was read already (a stream cannot be read twice)");
  taken_ = true;
}

std::shared_ptr<const NpyFile> NpyInput::file() {
  if (!regular()) return nullptr;
  take_body();
  std::shared_ptr<NpyFile> f(new NpyFile());
  f->path_ = path();
  f->type_ = type_;
  f->shape_ = shape_;
  f->data_offset_ = data_offset_;
  f->data_bytes_ = data_bytes_;
  f->fd_ = source_->release();
  return f;
}

void NpyInput::read_body(const BodyChunk& f) {
  take_body();
  source_->body(header_of(*this, data_offset_), f);
}

std::vector<unsigned char> NpyInput::read_all() {
  take_body();
  return source_->data(header_of(*this, data_offset_));
}

std::vector<unsigned char> encode_npy(ElementType type, const std::vector<std::uint64_t>& shape, const void* data,
                                      std::size_t bytes) {
  std::vector<unsigned char> out = encode_header(type, shape, bytes, "encode_npy");
  const auto* p = static_cast<const unsigned char*>(data);
  out.insert(out.end(), p, p + bytes);
  return out;
}

void write_npy(const std::string& path, ElementType type, const std::vector<std::uint64_t>& shape, const void* data,
               std::size_t bytes) {
  // Validated before anything touches the disk.
  const std::vector<unsigned char> header = encode_header(type, shape, bytes, path);
  OutputFile out(path, path);
  out.write(header.data(), header.size());
  out.write(data, bytes);
  out.commit();
}

void check_machine_shape(ElementType type, const std::vector<std::uint64_t>& shape, const std::string& what, unsigned n,
                         unsigned m, ElementType expected) {
  if (n >= 64 || m >= 64 || n + m >= 64)
    fail(what, "a machine of 2^" + std::to_string(n) + " nodes x 2^" + std::to_string(m) +
                   " words is too large; n + m must be below 64");
  const std::uint64_t nodes = std::uint64_t{1} << n, words = std::uint64_t{1} << m;
  const std::vector<std::uint64_t> grid{nodes, words}, flat{nodes * words};
  if (shape != grid && shape != flat)
    fail(what, "shape " + shape_str(shape) + " does not fit a machine of 2^" + std::to_string(n) + " nodes x 2^" +
                   std::to_string(m) + " words; expected " + shape_str(grid) + " or " + shape_str(flat));
  if (type != expected) fail(what, "dtype " + dtype_str(type) + " does not match the machine's " + dtype_str(expected));
}

void machine_dims_from_shape(const std::vector<std::uint64_t>& shape, const std::string& what,
                             std::optional<long long>& n, std::optional<long long>& m, long long data_dims) {
  const auto log2_of = [](std::uint64_t v) {
    return v != 0 && (v & (v - 1)) == 0 ? static_cast<long long>(__builtin_ctzll(v)) : -1LL;
  };
  const bool powers = !shape.empty() && shape.size() <= 2 &&
                      std::all_of(shape.begin(), shape.end(), [&](std::uint64_t d) { return log2_of(d) >= 0; });
  if (!powers)
    throw Error(what + " has shape " + shape_str(shape) +
                ": a machine's state is (2^n, 2^m) or flat (2^(n+m),), so it gives no n and m");
  if (shape.size() == 2) {
    if (!n && data_dims < 0) n = log2_of(shape[0]);
    if (!m) m = log2_of(shape[1]);
    return;
  }
  // A flat array: the other value (or data_dims) says where the node bits end.
  const long long q = log2_of(shape[0]);
  const std::optional<long long> nodes = data_dims >= 0 ? std::optional<long long>(data_dims) : n;
  if (!m && !nodes)
    throw Error(what + " has shape " + shape_str(shape) + ": a flat array does not say how its 2^" + std::to_string(q) +
                " words split into 2^n nodes of 2^m; give Geometry::n (or Geometry::m)");
  if (!m && *nodes >= 0 && *nodes <= q) m = q - *nodes;
  if (!n && data_dims < 0 && m && *m >= 0 && *m <= q) n = q - *m;
  // Otherwise the values do not fit the shape: check_machine_shape says how.
}

ElementType parse_npy_descr(const std::string& descr, const std::string& what) { return parse_descr(descr, what); }

void fail_not_c_order(const std::string& what, const std::string& held) {
  fail(what, held + " is not supported; convert it with np.ascontiguousarray(arr) first");
}

void check_machine_array(const NpyArray& a, const std::string& what, unsigned n, unsigned m, ElementType expected) {
  check_machine_shape(a.type, a.shape, what, n, m, expected);
  // An array built by hand, not by parse_npy, may disagree with its shape.
  const std::uint64_t needed = array_bytes(a.type, a.shape, what);
  if (a.data.size() != needed)
    fail(what, "holds " + std::to_string(a.data.size()) + " data bytes, shape " + shape_str(a.shape) + " of " +
                   info(a.type).npy_descr + " needs " + std::to_string(needed));
}

std::shared_ptr<const NpyFile> NpyFile::open(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  NpyInput in(path);  // checks the body's length against the file's
  // The file checked is the file read later: the one descriptor, not the path again.
  if (!in.regular()) fail(path, "cannot read: it stopped being a regular file while it was opened");
  return in.file();
}

NpyFile::~NpyFile() {
  if (fd_ >= 0) ::close(fd_);
}

void NpyFile::read(std::uint64_t offset, void* dst, std::uint64_t bytes) const {
  if (offset > data_bytes_ || bytes > data_bytes_ - offset)
    fail(path_, "read of " + std::to_string(bytes) + " bytes at " + std::to_string(offset) + " is past the data");
  auto* p = static_cast<unsigned char*>(dst);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd_, p, static_cast<std::size_t>(bytes), static_cast<off_t>(data_offset_ + offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) fail(path_, "cannot read: " + (got < 0 ? errno_text() : std::string("the file shrank while it was read")));
    p += got;
    offset += static_cast<std::uint64_t>(got);
    bytes -= static_cast<std::uint64_t>(got);
  }
}

struct NpyWriter::Impl {
  OutputFile out;
  std::uint64_t header_bytes;
  std::uint64_t data_bytes;
  std::uint64_t written = 0;  // in order, for a target that is not seekable
};

NpyWriter::NpyWriter(const std::string& path, ElementType type, const std::vector<std::uint64_t>& shape) {
  const std::uint64_t bytes = array_bytes(type, shape, path);
  const std::vector<unsigned char> header = encode_header(type, shape, static_cast<std::size_t>(bytes), path);
  impl_.reset(new Impl{OutputFile(path, path), header.size(), bytes, 0});
  impl_->out.write(header.data(), header.size());
}

NpyWriter::~NpyWriter() = default;

bool NpyWriter::seekable() const { return impl_->out.seekable(); }

void NpyWriter::write_at(std::uint64_t offset, const void* data, std::uint64_t bytes) {
  if (offset > impl_->data_bytes || bytes > impl_->data_bytes - offset)
    throw Error("NpyWriter::write_at: " + std::to_string(bytes) + " bytes at " + std::to_string(offset) +
                " are past the array's " + std::to_string(impl_->data_bytes));
  impl_->out.write_at(impl_->header_bytes + offset, data, bytes);
}

void NpyWriter::write(const void* data, std::uint64_t bytes) {
  impl_->out.write(data, bytes);
  impl_->written += bytes;
}

void NpyWriter::commit() { impl_->out.commit(); }

const std::string& NpyWriter::body_path() const { return impl_->out.written_path(); }

std::uint64_t NpyWriter::body_offset() const { return impl_->header_bytes; }

NpyWordReader::NpyWordReader(std::shared_ptr<const NpyFile> file, std::size_t word_bytes)
    : file_(std::move(file)), wb_(word_bytes) {
  // Left uninitialized: only the windows read become resident.
  if (file_) buf_.reset(new unsigned char[kSlots * kWindow * wb_]);
}

void NpyWordReader::read(std::uint64_t g, unsigned char* out) {
  const std::uint64_t window = g / kWindow, slot = window % kSlots;
  unsigned char* base = buf_.get() + slot * kWindow * wb_;
  if (tag_[slot] != window) {
    const std::uint64_t first = window * kWindow * wb_;
    file_->read(first, base, std::min<std::uint64_t>(kWindow * wb_, file_->data_bytes() - first));
    tag_[slot] = window;
  }
  std::memcpy(out, base + (g % kWindow) * wb_, wb_);
}

std::function<void(std::uint64_t, unsigned char*)> input_elements(std::shared_ptr<const NpyFile> file,
                                                                  ElementType type) {
  if (!file) return [type](std::uint64_t g, unsigned char* out) { write_label(type, g, out); };
  auto reader = std::make_shared<NpyWordReader>(std::move(file), info(type).bytes);
  return [reader](std::uint64_t g, unsigned char* out) { reader->read(g, out); };
}

}  // namespace hcube

// Tests for the .npy reader/writer. The fixtures in tests/data were written by
// NumPy (see tests/data/make_fixtures.py); the tests themselves need no NumPy.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <thread>

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "hcube/emulator/npy.hpp"
#include "paths.hpp"
#include "pipe.hpp"
#include "hcube/emulator/verified_run.hpp"
#include "hcube/host/io/output_file.hpp"
#include "hcube/core/error.hpp"

namespace {

namespace fs = std::filesystem;
using hcube::ElementType;
using Bytes = std::vector<unsigned char>;
using Shape = std::vector<std::uint64_t>;

// tests/data/u32_4x8.npy, np.arange(32, dtype='<u4').reshape(4, 8) as saved by
// NumPy 2.4 (printed by make_fixtures.py), so parsing and encoding are checked
// against NumPy's exact bytes without touching files.
// clang-format off
const unsigned char kNumpyU32x4x8[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x75, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x34, 0x2c, 0x20,
    0x38, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00,
    0x0c, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00,
    0x10, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x13, 0x00, 0x00, 0x00,
    0x14, 0x00, 0x00, 0x00, 0x15, 0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00,
    0x18, 0x00, 0x00, 0x00, 0x19, 0x00, 0x00, 0x00, 0x1a, 0x00, 0x00, 0x00, 0x1b, 0x00, 0x00, 0x00,
    0x1c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00,
};
// clang-format on

Bytes numpy_u32_4x8() { return Bytes(std::begin(kNumpyU32x4x8), std::end(kNumpyU32x4x8)); }

std::string fixture(const std::string& name) { return hcube::test::data_file(name); }

Bytes file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Bytes pattern(std::size_t n) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(i * 37 + 11);
  return b;
}

template <class T>
Bytes as_bytes(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Runs f, which must throw hcube::Error, and returns its message, which must be one line.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const hcube::Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "no hcube::Error thrown";
  return {};
}

std::string parse_error(const Bytes& file) {
  return error_of([&] { hcube::parse_npy(file.data(), file.size(), "test.npy"); });
}

hcube::NpyArray parse(const Bytes& file) { return hcube::parse_npy(file.data(), file.size(), "test.npy"); }

// A .npy built by hand around header text NumPy itself would not write. The
// reader does not insist on NumPy's 64-byte padding, so none is added.
Bytes make_npy(const std::string& dict, const Bytes& data, unsigned char major = 1, unsigned char minor = 0) {
  Bytes out{0x93, 'N', 'U', 'M', 'P', 'Y', major, minor};
  const std::string header = dict + "\n";
  for (std::size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out.push_back(static_cast<unsigned char>(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// A u32 header with the given shape text.
Bytes u32_npy(const std::string& shape, std::size_t data_bytes) {
  return make_npy("{'descr': '<u4', 'fortran_order': False, 'shape': " + shape + ", }", pattern(data_bytes));
}

std::size_t header_size(const Bytes& file, const hcube::NpyArray& a) { return file.size() - a.data.size(); }

void expect_contains(const std::string& message, const std::vector<std::string>& parts) {
  for (const std::string& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

TEST(Npy, RoundTripsEveryTypeAndShape) {
  const std::vector<Shape> shapes{{}, {0}, {5}, {4, 8}, {2, 3, 4}, {1, 1, 1, 1}, {3, 0, 2}, {1024}};
  for (const hcube::ElementInfo& e : hcube::all_element_types()) {
    for (const Shape& shape : shapes) {
      std::uint64_t elements = 1;
      for (std::uint64_t d : shape) elements *= d;
      const Bytes data = pattern(elements * e.bytes);
      const Bytes file = hcube::encode_npy(e.type, shape, data.data(), data.size());
      const hcube::NpyArray a = parse(file);
      SCOPED_TRACE(std::string(e.name) + " with " + std::to_string(shape.size()) + " dimensions");
      EXPECT_EQ(a.type, e.type);
      EXPECT_EQ(a.shape, shape);
      EXPECT_EQ(a.elements(), elements);
      EXPECT_EQ(a.data, data);
      EXPECT_EQ(file[6], 1);  // version 1.0
      EXPECT_EQ(header_size(file, a) % 64, 0u);
      EXPECT_EQ(file[header_size(file, a) - 1], '\n');
    }
  }
}

TEST(Npy, ParsesNumpyBytes) {
  const hcube::NpyArray a = parse(numpy_u32_4x8());
  EXPECT_EQ(a.type, ElementType::u32);
  EXPECT_EQ(a.shape, (Shape{4, 8}));
  ASSERT_EQ(a.data.size(), 128u);
  for (std::uint32_t i = 0; i < 32; ++i) {
    std::uint32_t v;
    std::memcpy(&v, a.data.data() + 4 * i, 4);
    EXPECT_EQ(v, i);
  }
}

TEST(Npy, EncodesExactlyLikeNumpy) {
  std::vector<std::uint32_t> u32(32);
  for (std::uint32_t i = 0; i < 32; ++i) u32[i] = i;
  EXPECT_EQ(hcube::encode_npy(ElementType::u32, {4, 8}, u32.data(), 128), numpy_u32_4x8());

  const Bytes c128 = as_bytes(std::vector<std::complex<double>>{{1, 2}, {-0.5, 0}, {3.25, -4}});
  EXPECT_EQ(hcube::encode_npy(ElementType::c128, {3}, c128.data(), c128.size()), file_bytes(fixture("c128_3.npy")));

  const double scalar = 2.5;
  EXPECT_EQ(hcube::encode_npy(ElementType::f64, {}, &scalar, sizeof scalar), file_bytes(fixture("f8_scalar.npy")));
}

TEST(Npy, ReadsNumpyFixtures) {
  const hcube::NpyArray u32 = hcube::read_npy(fixture("u32_4x8.npy"));
  const hcube::NpyArray embedded = parse(numpy_u32_4x8());
  EXPECT_EQ(u32.type, embedded.type);
  EXPECT_EQ(u32.shape, embedded.shape);
  EXPECT_EQ(u32.data, embedded.data);

  const hcube::NpyArray c128 = hcube::read_npy(fixture("c128_3.npy"));
  EXPECT_EQ(c128.type, ElementType::c128);
  EXPECT_EQ(c128.shape, (Shape{3}));
  EXPECT_EQ(c128.data, as_bytes(std::vector<std::complex<double>>{{1, 2}, {-0.5, 0}, {3.25, -4}}));

  const hcube::NpyArray scalar = hcube::read_npy(fixture("f8_scalar.npy"));
  EXPECT_EQ(scalar.type, ElementType::f64);
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.elements(), 1u);
  EXPECT_EQ(scalar.data, as_bytes(std::vector<double>{2.5}));
}

TEST(Npy, ReadsNumpyVersion2) {
  const Bytes file = file_bytes(fixture("i32_3_v2.npy"));
  ASSERT_GT(file.size(), 6u);
  EXPECT_EQ(file[6], 2);
  const hcube::NpyArray a = hcube::read_npy(fixture("i32_3_v2.npy"));
  EXPECT_EQ(a.type, ElementType::i32);
  EXPECT_EQ(a.shape, (Shape{3}));
  EXPECT_EQ(a.data, as_bytes(std::vector<std::int32_t>{-1, 0, 7}));
}

TEST(Npy, RejectsNumpyFixturesItCannotHold) {
  expect_contains(error_of([] { hcube::read_npy(fixture("f8_big_endian.npy")); }),
                  {"f8_big_endian.npy", "'>f8'", "big-endian", "arr.astype(arr.dtype.newbyteorder('<'))"});
  expect_contains(error_of([] { hcube::read_npy(fixture("f4_fortran_2x3.npy")); }),
                  {"f4_fortran_2x3.npy", "fortran_order True"});
  const std::string unknown = error_of([] { hcube::read_npy(fixture("i8_5.npy")); });
  expect_contains(unknown, {"i8_5.npy", "unsupported dtype '<i8'"});
  for (const hcube::ElementInfo& e : hcube::all_element_types()) expect_contains(unknown, {e.npy_descr, e.name});
}

TEST(NpyHeader, AcceptsAnyKeyOrderQuotingAndSpacing) {
  const Bytes data = pattern(24);
  const std::vector<std::string> dicts{
      "{'shape': (2, 3), 'fortran_order': False, 'descr': '<u4'}",
      "{\"descr\": \"<u4\", \"fortran_order\": False, \"shape\": (2,3)}",
      "  {  'descr' :'<u4' ,\t'fortran_order':False,'shape':( 2 , 3 , ) , }   ",
      "{'descr': '|u4', 'fortran_order': False, 'shape': (2, 3)}",
      "{'descr': '=u4', 'fortran_order': False, 'shape': (2, 3)}",
      "{'descr': 'u4', 'fortran_order': False, 'shape': (2, 3)}",
      "{'descr': '<u4', 'fortran_order': False, 'shape': (2L, 3L), }",  // Python 2
  };
  for (const std::string& dict : dicts) {
    SCOPED_TRACE(dict);
    const hcube::NpyArray a = parse(make_npy(dict, data));
    EXPECT_EQ(a.type, ElementType::u32);
    EXPECT_EQ(a.shape, (Shape{2, 3}));
    EXPECT_EQ(a.data, data);
  }
}

TEST(NpyHeader, AcceptsShapeTuples) {
  EXPECT_EQ(parse(u32_npy("(4,)", 16)).shape, (Shape{4}));
  EXPECT_EQ(parse(u32_npy("(16, 8)", 512)).shape, (Shape{16, 8}));
  EXPECT_EQ(parse(u32_npy("()", 4)).shape, Shape{});
  EXPECT_EQ(parse(u32_npy("(0,)", 0)).elements(), 0u);
  // A zero dimension makes the array empty even when the others overflow.
  EXPECT_EQ(parse(u32_npy("(18446744073709551615, 2, 0)", 0)).elements(), 0u);
}

TEST(NpyHeader, AcceptsVersions2And3) {
  const std::string dict = "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }";
  for (unsigned char major : {static_cast<unsigned char>(2), static_cast<unsigned char>(3)}) {
    const hcube::NpyArray a = parse(make_npy(dict, pattern(16), major));
    EXPECT_EQ(a.type, ElementType::c64);
    EXPECT_EQ(a.data, pattern(16));
  }
}

TEST(NpyErrors, BadMagicAndVersion) {
  Bytes zip = numpy_u32_4x8();
  zip[0] = 'P', zip[1] = 'K', zip[2] = 3, zip[3] = 4;
  expect_contains(parse_error(zip), {"test.npy", "not a .npy file", "50 4b 03 04 50 59"});
  expect_contains(parse_error(Bytes{}), {"test.npy", "holds 0 bytes"});
  expect_contains(parse_error(Bytes(kNumpyU32x4x8, kNumpyU32x4x8 + 7)), {"holds 7 bytes", "needs 8"});

  Bytes v4 = numpy_u32_4x8();
  v4[6] = 4;
  expect_contains(parse_error(v4), {"version 4.0", "supported: 1.0, 2.0, 3.0"});
  Bytes v11 = numpy_u32_4x8();
  v11[7] = 1;
  expect_contains(parse_error(v11), {"version 1.1"});
}

TEST(NpyErrors, Truncated) {
  const Bytes full = numpy_u32_4x8();
  const Bytes v2 = make_npy("{}", {}, 2);
  expect_contains(parse_error(Bytes(v2.begin(), v2.begin() + 10)), {"holds 10 bytes", "version 2.0 preamble needs 12"});
  expect_contains(parse_error(Bytes(full.begin(), full.begin() + 50)),
                  {"truncated .npy header", "holds 50 bytes", "ends at byte 128"});
  expect_contains(parse_error(Bytes(full.begin(), full.end() - 4)),
                  {"test.npy: truncated data", "holds 124 data bytes", "shape (4, 8) of <u4 needs 128"});
  Bytes longer = full;
  longer.push_back(0);
  expect_contains(parse_error(longer), {"trailing data", "holds 129 data bytes", "needs only 128"});
}

TEST(NpyErrors, ShapeOverflow) {
  expect_contains(parse_error(u32_npy("(4294967296, 4294967296)", 0)),
                  {"shape (4294967296, 4294967296) of <u4", "more than 2^64 bytes"});
  expect_contains(parse_error(u32_npy("(99999999999999999999999,)", 0)),
                  {"dimension 99999999999999999999999", "64 bits"});
  const Shape huge{std::uint64_t{1} << 62, 8};
  expect_contains(error_of([&] { hcube::encode_npy(ElementType::u32, huge, nullptr, 0); }), {"more than 2^64 bytes"});
}

TEST(NpyErrors, Dtypes) {
  const auto with_descr = [](const std::string& descr) {
    return parse_error(make_npy("{'descr': " + descr + ", 'fortran_order': False, 'shape': (1,)}", pattern(8)));
  };
  expect_contains(with_descr("'>u8'"), {"big-endian dtype '>u8'", "newbyteorder('<')"});
  expect_contains(with_descr("'<i8'"), {"unsupported dtype '<i8'", "<u4 (uint32)", "<c16 (complex128)"});
  expect_contains(with_descr("'>i8'"), {"unsupported dtype '>i8'"});
  expect_contains(with_descr("'<u4\n\x01'"), {"unsupported dtype '<u4\?\?'"});  // control bytes shown as '?'
  expect_contains(with_descr("True"), {"'descr' True is not supported"});
  expect_contains(with_descr("[('a', '<u4')]"), {"bad .npy header", "offset 10"});
}

TEST(NpyErrors, HeaderDict) {
  expect_contains(parse_error(make_npy("{'descr': '<u4', 'fortran_order': True, 'shape': (1,)}", pattern(4))),
                  {"fortran_order True", "np.ascontiguousarray"});
  expect_contains(parse_error(make_npy("{'descr': '<u4', 'fortran_order': 'no', 'shape': (1,)}", pattern(4))),
                  {"'fortran_order' is 'no'", "True or False"});
  expect_contains(parse_error(u32_npy("'4'", 4)), {"'shape' is '4'", "tuple"});
  expect_contains(parse_error(u32_npy("(4)", 16)), {"only dimension"});
  expect_contains(parse_error(u32_npy("(-1,)", 0)), {"non-negative integer dimension"});
  expect_contains(parse_error(make_npy("{'descr': '<u4', 'fortran_order': False}", pattern(4))),
                  {"lacks the key 'shape'"});
  expect_contains(
      parse_error(make_npy("{'descr': '<u4', 'fortran_order': False, 'shape': (), 'extra': ()}", pattern(4))),
      {"unexpected key 'extra'", "'descr', 'fortran_order' and 'shape'"});
  expect_contains(
      parse_error(make_npy("{'descr': '<u4', 'descr': '<u4', 'fortran_order': False, 'shape': ()}", pattern(4))),
      {"duplicate key 'descr'"});
  expect_contains(parse_error(make_npy("{'descr': '<u4', 'fortran_order': False, 'shape': ()} x", pattern(4))),
                  {"only spaces after '}'", "} x"});
  expect_contains(parse_error(make_npy("{'descr: '<u4'}", pattern(4))), {"expected ':'"});
  expect_contains(parse_error(make_npy("{'descr", pattern(4))), {"closing quote"});
  expect_contains(parse_error(make_npy("", {})), {"expected '{'"});
}

TEST(NpyEncode, RejectsWrongByteCount) {
  const Bytes data = pattern(100);
  expect_contains(error_of([&] {
                    hcube::encode_npy(ElementType::u32, {4, 8}, data.data(), data.size());
                  }),
                  {"encode_npy", "holds 100 bytes", "shape (4, 8) of <u4 needs 128"});
}

TEST(NpyEncode, LongHeaderUsesVersion2) {
  const Shape shape(30000, 1);  // "1, " per dimension overflows the 1.0 header's 16-bit length
  const std::uint32_t value = 7;
  const Bytes file = hcube::encode_npy(ElementType::u32, shape, &value, sizeof value);
  EXPECT_EQ(file[6], 2);
  // Written as NumPy writes it, but read back (by hcube, as by np.load) only
  // within NumPy's 10000-byte header limit: the file and memory readers agree.
  expect_contains(error_of([&] { parse(file); }), {"the .npy header claims", "allowed at most 10000"});
}

TEST(NpyMachine, ChecksShapeAndDtype) {
  const hcube::NpyArray grid{ElementType::u32, {4, 8}, pattern(128)};
  const hcube::NpyArray flat{ElementType::u32, {32}, pattern(128)};
  EXPECT_NO_THROW(hcube::check_machine_array(grid, "in.npy", 2, 3, ElementType::u32));
  EXPECT_NO_THROW(hcube::check_machine_array(flat, "in.npy", 2, 3, ElementType::u32));

  const hcube::NpyArray transposed{ElementType::u32, {8, 4}, pattern(128)};
  expect_contains(error_of([&] { hcube::check_machine_array(transposed, "in.npy", 2, 3, ElementType::u32); }),
                  {"in.npy", "shape (8, 4)", "2^2 nodes x 2^3 words", "expected (4, 8) or (32,)"});
  expect_contains(error_of([&] { hcube::check_machine_array(grid, "in.npy", 2, 3, ElementType::f32); }),
                  {"in.npy", "dtype <u4 (uint32)", "machine's <f4 (float)"});
  const hcube::NpyArray short_data{ElementType::u32, {32}, pattern(100)};
  expect_contains(error_of([&] { hcube::check_machine_array(short_data, "in.npy", 2, 3, ElementType::u32); }),
                  {"holds 100 data bytes", "needs 128"});
  expect_contains(error_of([&] { hcube::check_machine_array(grid, "in.npy", 40, 30, ElementType::u32); }),
                  {"2^40 nodes x 2^30 words", "too large"});
}

// Each test gets a fresh scratch directory.
class NpyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hcube_test_npy_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    return names;
  }

  fs::path dir_;
};

TEST_F(NpyFiles, WriteReadRoundTrip) {
  for (const hcube::ElementInfo& e : hcube::all_element_types()) {
    const std::string path = (dir_ / (std::string(e.name) + ".npy")).string();
    const Bytes data = pattern(32 * e.bytes);
    hcube::write_npy(path, e.type, {4, 8}, data.data(), data.size());
    EXPECT_EQ(file_bytes(path), hcube::encode_npy(e.type, {4, 8}, data.data(), data.size()));
    const hcube::NpyArray a = hcube::read_npy(path);
    EXPECT_EQ(a.type, e.type);
    EXPECT_EQ(a.shape, (Shape{4, 8}));
    EXPECT_EQ(a.data, data);
  }
  EXPECT_EQ(entries().size(), hcube::all_element_types().size());  // no temporaries left
}

TEST_F(NpyFiles, WriteReplacesExistingFile) {
  const std::string path = (dir_ / "out.npy").string();
  const std::uint64_t first = 1, second = 2;
  hcube::write_npy(path, ElementType::u64, {}, &first, 8);
  hcube::write_npy(path, ElementType::u64, {}, &second, 8);
  EXPECT_EQ(hcube::read_npy(path).data, as_bytes(std::vector<std::uint64_t>{2}));
  EXPECT_EQ(entries(), std::vector<std::string>{"out.npy"});
}

TEST_F(NpyFiles, WriteIntoMissingDirectoryLeavesNothing) {
  const std::string path = (dir_ / "missing" / "out.npy").string();
  const std::uint32_t value = 1;
  expect_contains(error_of([&] { hcube::write_npy(path, ElementType::u32, {1}, &value, 4); }),
                  {path, "directory", "missing", "does not exist"});
  EXPECT_TRUE(entries().empty());
}

TEST_F(NpyFiles, FailedWriteLeavesExistingFileUntouched) {
  const std::string path = (dir_ / "out.npy").string();
  const Bytes data = pattern(128);
  hcube::write_npy(path, ElementType::u32, {4, 8}, data.data(), data.size());
  const Bytes before = file_bytes(path);
  expect_contains(error_of([&] {
                    hcube::write_npy(path, ElementType::u32, {4, 9}, data.data(), data.size());
                  }),
                  {path, "needs 144"});
  EXPECT_EQ(file_bytes(path), before);
  EXPECT_EQ(entries(), std::vector<std::string>{"out.npy"});
}

TEST_F(NpyFiles, DirectoryInTheWayIsRefusedBeforeWriting) {
  const fs::path path = dir_ / "out.npy";
  fs::create_directory(path);
  const Bytes data = pattern(16);
  expect_contains(error_of([&] { hcube::write_npy(path.string(), ElementType::f32, {4}, data.data(), data.size()); }),
                  {path.string(), "is a directory"});
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_EQ(entries(), std::vector<std::string>{"out.npy"});
}

// A FIFO is written into, never replaced by a regular file; with no reader
// the write fails at once instead of hanging.
TEST_F(NpyFiles, FifoIsWrittenIntoAndNeverReplaced) {
  const std::string fifo = (dir_ / "pipe.npy").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const std::uint32_t value = 7;
  expect_contains(error_of([&] { hcube::write_npy(fifo, ElementType::u32, {1}, &value, 4); }),
                  {fifo, "nothing reads the FIFO"});
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));

  Bytes got;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);  // blocks until the writer opens it
    got.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  // The reader may not have opened the FIFO yet: retry until it has.
  std::string error = "not tried";
  for (int tries = 0; tries < 500 && !error.empty(); ++tries) {
    try {
      hcube::write_npy(fifo, ElementType::u32, {1}, &value, 4);
      error.clear();
    } catch (const hcube::Error& e) {
      error = e.what();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  EXPECT_EQ(error, "");
  if (!error.empty()) {  // let the reader go
    std::ofstream(fifo) << "";
  }
  reader.join();
  EXPECT_EQ(got, hcube::encode_npy(ElementType::u32, {1}, &value, 4));
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(), std::vector<std::string>{"pipe.npy"});
}

// A character device (here a null device made in the test's own directory) is written into.
TEST_F(NpyFiles, CharacterDeviceIsWrittenIntoAndNeverReplaced) {
  const std::string node = (dir_ / "null.npy").string();
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here (" << std::strerror(errno) << "); the FIFO test covers in-place writes";
  const std::uint32_t value = 7;
  EXPECT_NO_THROW(hcube::write_npy(node, ElementType::u32, {1}, &value, 4));
  struct stat st {};
  ASSERT_EQ(::stat(node.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(entries(), std::vector<std::string>{"null.npy"});
}

TEST_F(NpyFiles, SymlinkIsFollowedToItsTarget) {
  const fs::path target = dir_ / "target.npy", link = dir_ / "link.npy", dangling = dir_ / "dangling.npy";
  std::ofstream(target) << "old";
  fs::create_symlink("target.npy", link);  // relative, as ln -s makes it
  fs::create_symlink("made.npy", dangling);
  const std::uint64_t value = 42;
  hcube::write_npy(link.string(), ElementType::u64, {}, &value, 8);
  hcube::write_npy(dangling.string(), ElementType::u64, {}, &value, 8);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_EQ(hcube::read_npy(target.string()).data, as_bytes(std::vector<std::uint64_t>{42}));
  EXPECT_EQ(hcube::read_npy((dir_ / "made.npy").string()).data, as_bytes(std::vector<std::uint64_t>{42}));
  EXPECT_EQ(entries().size(), 4u);  // no temporaries
}

TEST_F(NpyFiles, ReadOnlyFileIsRefusedAndKept) {
  const std::string path = (dir_ / "keep.npy").string();
  std::ofstream(path) << "precious";
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const std::uint32_t value = 1;
  // Refused even as root, who could write it.
  expect_contains(error_of([&] { hcube::write_npy(path, ElementType::u32, {1}, &value, 4); }), {path, "read-only"});
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), "precious");
  EXPECT_EQ(entries(), std::vector<std::string>{"keep.npy"});
}

TEST_F(NpyFiles, NameOfNameMaxBytesWorks) {
  const long name_max = ::pathconf(dir_.c_str(), _PC_NAME_MAX);
  ASSERT_GT(name_max, 4);
  const std::string name = std::string(static_cast<std::size_t>(name_max) - 4, 'n') + ".npy";
  const std::uint32_t value = 3;
  hcube::write_npy((dir_ / name).string(), ElementType::u32, {1}, &value, 4);
  EXPECT_EQ(entries(), std::vector<std::string>{name});
}

TEST_F(NpyFiles, ReplacedFileKeepsItsPermissions) {
  const std::string path = (dir_ / "out.npy").string();
  const std::uint32_t value = 1;
  hcube::write_npy(path, ElementType::u32, {1}, &value, 4);
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  hcube::write_npy(path, ElementType::u32, {1}, &value, 4);
  EXPECT_EQ(fs::status(path).permissions(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

// SIGTERM in the middle of a write removes the temporary: a child process
// writes half a file and is killed before it commits.
TEST_F(NpyFiles, SignalRemovesTheTemporary) {
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string path = (dir_ / "out.npy").string();
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      hcube::remove_temporaries_on_signals();
      hcube::OutputFile out(path, "test");
      out.write("half", 4);
      ::kill(::getpid(), sig);
      ::_exit(3);  // not reached: the handler re-raises the signal
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
    EXPECT_TRUE(entries().empty()) << entries().front();
  }
}

TEST_F(NpyFiles, ReadErrorsNameThePath) {
  const std::string missing = (dir_ / "missing.npy").string();
  expect_contains(error_of([&] { hcube::read_npy(missing); }), {missing, "cannot open", "No such file or directory"});
  expect_contains(error_of([&] { hcube::read_npy(dir_.string()); }), {dir_.string(), "cannot read"});
  const std::string bad = (dir_ / "bad.npy").string();
  std::ofstream(bad) << "not numpy";
  expect_contains(error_of([&] { hcube::read_npy(bad); }), {bad, "not a .npy file"});
}

}  // namespace

namespace {

// A machine loaded from a .npy file in pieces holds the file's words for every
// tile width, hands them back in pieces, and verifies against the file: a step
// that does not do what its destination says is caught.
TEST_F(NpyFiles, SessionFromAFileLoadsStoresAndVerifiesAgainstIt) {
  const std::string path = (dir_ / "in.npy").string();
  for (const long long t : {0LL, 2LL, 5LL, -1LL}) {
    SCOPED_TRACE(testing::Message() << "tile dims " << t);
    const unsigned n = 5, m = 7;
    // Distinct words (pattern() repeats every 256 bytes, which a flip of node bit 0 would not change).
    std::vector<std::uint64_t> values(std::size_t{1} << (n + m));
    for (std::size_t g = 0; g < values.size(); ++g) values[g] = g * 0x9E3779B97F4A7C15ull + 7;
    const Bytes data = as_bytes(values);
    hcube::write_npy(path, ElementType::u64, {1u << n, 1u << m}, data.data(), data.size());
    const std::shared_ptr<const hcube::NpyFile> file = hcube::NpyFile::open(path);
    ASSERT_NE(file, nullptr);
    hcube::Session s = hcube::open_session(hcube::MachineOptions{n, m, ElementType::u64, hcube::BackendChoice::cpu, t}, file);
    EXPECT_EQ(s.machine->read(), data);
    Bytes stored(data.size());
    s.machine->store_runs([&](std::uint64_t g, std::uint64_t words, const void* src) {
      std::memcpy(&stored[g * 8], src, words * 8);
    });
    EXPECT_EQ(stored, data);
    EXPECT_NO_THROW(hcube::verify(s, "the load"));
    // Node bit 0 flipped: the machine's words move, the reference says so too.
    const hcube::AddressMap flip = [m](std::uint64_t g) { return g ^ (std::uint64_t{1} << m); };
    const hcube::Cycle all_words = [&] {
      hcube::Cycle c;
      for (std::uint64_t a = 0; a < (1u << m); ++a) c.push_back(hcube::Exchange{0, a, a, 0});
      return c;
    }();
    EXPECT_NO_THROW(hcube::run_step(s, "flip", flip, [&](hcube::Machine& mach) {
      mach.run_cycle(all_words, hcube::PortRules{hcube::PortModel::all_port, 1u << m}, {});
    }));
    // A step that moves nothing while the reference says it moved: caught, naming a word.
    try {
      hcube::run_step(s, "claimed flip", flip, [](hcube::Machine&) {});
      ADD_FAILURE() << "a wrong state was verified";
    } catch (const hcube::Error& e) {
      EXPECT_NE(std::string(e.what()).find("verification of claimed flip failed"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(hcube::NpyFile::open(dir_.string()), nullptr);  // not a regular file: read whole by read_npy
}

// A machine loaded from a stream a chunk at a time (1 MiB chunks: several
// here) verifies by the input's fingerprint: every word at its place passes,
// and a wrong word, two words swapped (the same values, misplaced) or a step
// that did not happen are caught, for 4-, 8- and 16-byte words.
TEST(NpyStream, SessionFromAStreamVerifiesByTheFingerprint) {
  const unsigned n = 6, m = 12;
  for (const ElementType type : {ElementType::u32, ElementType::u64, ElementType::c128}) {
    const std::size_t wb = hcube::info(type).bytes;
    SCOPED_TRACE(hcube::info(type).name);
    Bytes data(std::size_t{wb} << (n + m));
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
    hcube::test::Pipe pipe(hcube::encode_npy(type, {1u << n, 1u << m}, data.data(), data.size()));
    hcube::NpyInput in(pipe.path());
    EXPECT_FALSE(in.regular());
    EXPECT_EQ(in.file(), nullptr);
    hcube::Session s = hcube::open_session(hcube::MachineOptions{n, m, type, hcube::BackendChoice::cpu, -1}, in);
    ASSERT_NE(s.fingerprint, nullptr);
    EXPECT_EQ(s.source, nullptr);
    EXPECT_EQ(s.machine->read(), data);
    EXPECT_NO_THROW(hcube::verify(s, "the load"));
    EXPECT_THROW(hcube::expected_words(s), hcube::Error);  // nothing holds the words

    const hcube::AddressMap flip = [m](std::uint64_t g) { return g ^ (std::uint64_t{1} << m); };
    hcube::Cycle all_words;
    for (std::uint64_t a = 0; a < (1u << m); ++a) all_words.push_back(hcube::Exchange{0, a, a, 0});
    EXPECT_NO_THROW(hcube::run_step(s, "flip", flip, [&](hcube::Machine& mach) {
      mach.run_cycle(all_words, hcube::PortRules{hcube::PortModel::all_port, 1u << m}, {});
    }));
    const auto caught = [&](const char* what, const std::function<void(hcube::Machine&)>& step) {
      try {
        hcube::run_step(s, what, [](std::uint64_t g) { return g; }, step);
        ADD_FAILURE() << what << ": a wrong state was verified";
      } catch (const hcube::Error& e) {
        EXPECT_NE(std::string(e.what()).find("fingerprint differs"), std::string::npos) << e.what();
      }
    };
    // Two words swapped: the machine holds the same values, two of them misplaced.
    caught("a swap", [&](hcube::Machine& mach) {
      const std::uint64_t places[2] = {5, 700};
      Bytes two(2 * wb);
      mach.gather(places, 2, two.data());
      const std::uint64_t swapped[2] = {700, 5};
      mach.scatter(swapped, 2, two.data());
    });
    // The swap put back, and one bit of the last word flipped.
    caught("a flipped bit", [&](hcube::Machine& mach) {
      const std::uint64_t places[2] = {5, 700};
      Bytes two(2 * wb);
      mach.gather(places, 2, two.data());
      const std::uint64_t swapped[2] = {700, 5};
      mach.scatter(swapped, 2, two.data());
      Bytes one(wb);
      const std::uint64_t last = (std::uint64_t{1} << (n + m)) - 1;
      mach.gather(&last, 1, one.data());
      one[wb - 1] ^= 0x80;  // the highest bit of the last word
      mach.scatter(&last, 1, one.data());
    });
  }
}

// An input's header is read only when its length is allowed (NumPy's limit),
// and a stream's silence is bounded: the writer that never opens the FIFO,
// opens and closes it, or opens it and goes quiet costs HCUBE_INPUT_WAIT in
// all, not a wait for each read.
// A stream that is not a .npy is refused on its first twelve bytes: its
// writer then falls silent with the pipe open, and bytes 8-11 claim 4 GiB of
// header, neither of which the reader waits for.
TEST_F(NpyFiles, NonNpyStreamIsRefusedOnItsFirstBytes) {
  const std::string fifo = (dir_ / "noise.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  for (const std::string& head : {std::string("PK\x03\x04\x14\x00\x00\x00\xff\xff\xff\xff", 12),
                                 std::string("\x93NUMPY\x07\x00\xff\xff\xff\xff", 12)}) {
    int write_fd = -1;
    std::thread w([&] {
      write_fd = ::open(fifo.c_str(), O_WRONLY);
      if (write_fd >= 0 && ::write(write_fd, head.data(), head.size()) != static_cast<ssize_t>(head.size()))
        ADD_FAILURE() << "short write";
    });
    const auto start = std::chrono::steady_clock::now();
    const std::string message = error_of([&] { hcube::NpyInput in(fifo); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    w.join();
    if (write_fd >= 0) ::close(write_fd);
    expect_contains(message, {fifo, head[0] == 'P' ? "not a .npy file" : "format version 7.0"});
    EXPECT_LT(seconds, 1.0);
  }
}

TEST_F(NpyFiles, LongHeadersAndSilentStreamsAreRefusedFast) {
  const std::string big = (dir_ / "big.npy").string();
  {
    std::ofstream out(big, std::ios::binary);
    out << "\x93NUMPY" << '\x02' << '\0';
    const std::uint32_t len = 10001;
    out.write(reinterpret_cast<const char*>(&len), 4);
  }
  fs::resize_file(big, 20000);
  expect_contains(error_of([&] { hcube::NpyInput in(big); }), {big, "claims 10001 bytes", "at most 10000"});

  ::setenv("HCUBE_INPUT_WAIT", "0.3", 1);
  const std::string fifo = (dir_ / "in.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const auto timed = [&](const std::function<void()>& writer, const std::vector<std::string>& mentions) {
    const auto start = std::chrono::steady_clock::now();
    std::thread w(writer);
    expect_contains(error_of([&] { hcube::NpyInput in(fifo); }), mentions);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    w.join();
    EXPECT_LT(seconds, 0.9);
    EXPECT_GT(seconds, 0.25);
  };
  // Nobody writes.
  timed([] {}, {fifo, "nothing wrote to the FIFO for 0.3 s", "HCUBE_INPUT_WAIT"});
  // A writer opens it after 0.1 s, sends half a preamble, waits 0.2 s, closes it: the stream ended short.
  {
    const auto start = std::chrono::steady_clock::now();
    std::thread w([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const int fd = ::open(fifo.c_str(), O_WRONLY);
      if (fd < 0) return;
      if (::write(fd, "\x93NUM", 4) != 4) ADD_FAILURE() << "write";
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      ::close(fd);
    });
    expect_contains(error_of([&] { hcube::NpyInput in(fifo); }), {fifo, "holds 4 bytes"});
    w.join();
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.9);
  }
  // A writer opens it and says nothing, holding it open.
  timed(
      [&] {
        const int fd = ::open(fifo.c_str(), O_WRONLY);  // returns once the reader has opened it
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        ::close(fd);
      },
      {fifo, "no data arrived for 0.3 s"});
  ::unsetenv("HCUBE_INPUT_WAIT");
}

}  // namespace

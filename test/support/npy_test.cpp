// .npy reading and writing: exact bytes as numpy writes them, round trips for every dtype and
// rank, files built by hand in each format version, and every error the reader reports.
#include "stax/support/npy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "stax/support/error.h"

namespace stax {
namespace {

namespace fs = std::filesystem;

// A .npy file by hand: magic, version, header length, header (padded with spaces and '\n' to
// a multiple of `align` when `align` > 0, else as given), data.
std::string npy_bytes(int major, int minor, std::string header, const std::string& data,
                      std::size_t align = 64) {
  std::size_t len_width = major == 1 ? 2 : 4;
  if (align) {
    std::size_t total = 6 + 2 + len_width + header.size() + 1;
    header.append((align - total % align) % align, ' ');
    header += '\n';
  }
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += static_cast<char>(minor);
  for (std::size_t k = 0; k < len_width; ++k) out += static_cast<char>((header.size() >> (8 * k)) & 0xff);
  return out + header + data;
}

std::string le32(int32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string le_f32(float v) { return std::string(reinterpret_cast<const char*>(&v), 4); }

std::string bytes_of(const Tensor& t) {
  return std::string(reinterpret_cast<const char*>(t.data()), t.nbytes());
}

// The message of the UserError that parse_npy throws, or "" when it does not throw.
std::string parse_error(const std::string& bytes) {
  try {
    parse_npy(bytes, "f.npy");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_NPY_ERROR(bytes, fragment)                                                          \
  do {                                                                                             \
    std::string msg_ = parse_error(bytes);                                                         \
    EXPECT_NE(msg_.find(fragment), std::string::npos) << "message: '" << msg_ << "'";             \
    EXPECT_EQ(msg_.rfind("f.npy: ", 0), 0u) << "message: '" << msg_ << "'";                       \
  } while (0)

const char* kI4Header = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";

TEST(NpyWrite, ExactBytesOfNumpySave) {
  // np.save of np.array([1, -2, 3], dtype=np.int32) with numpy >= 1.24: a 118-byte header
  // ('v' = 0x76), 20 spaces of room for the first dim, padding to 128, then the data.
  Tensor t(DType::Int32, {3});
  t.data_as<int32_t>()[0] = 1;
  t.data_as<int32_t>()[1] = -2;
  t.data_as<int32_t>()[2] = 3;
  std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + kI4Header +
                         std::string(20, ' ') + std::string(40, ' ') + "\n" + le32(1) + le32(-2) + le32(3);
  ASSERT_EQ(expected.size(), 128u + 12u);
  EXPECT_EQ(serialize_npy(t), expected);
}

TEST(NpyWrite, ZeroDimHeader) {
  Tensor t(DType::Float64, {});
  t.set_double(0, 2.5);
  std::string s = serialize_npy(t);
  ASSERT_EQ(s.size(), 128u + 8u);
  std::string header = s.substr(10, 118);
  EXPECT_EQ(header.substr(0, 55), "{'descr': '<f8', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(header.substr(55), std::string(62, ' ') + "\n");
}

TEST(NpyWrite, MultiDimHeaderAndDescrs) {
  struct Case { DType dt; const char* descr; };
  for (Case c : {Case{DType::Float32, "'<f4'"}, Case{DType::Float64, "'<f8'"},
                 Case{DType::Int32, "'<i4'"}, Case{DType::Int64, "'<i8'"}, Case{DType::Bool, "'|b1'"}}) {
    std::string s = serialize_npy(Tensor(c.dt, {12, 1, 5}));
    EXPECT_NE(s.find(std::string("{'descr': ") + c.descr + ", 'fortran_order': False, 'shape': (12, 1, 5), }"),
              std::string::npos) << s;
    EXPECT_EQ((s.size() - 60 * dtype_size(c.dt)) % 64, 0u);
  }
}

TEST(NpyRoundTrip, EveryDtypeAndRank) {
  std::vector<Shape> shapes = {{}, {1}, {7}, {2, 3}, {2, 1, 4}, {1, 1, 1, 1, 3}};
  for (DType dt : {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool}) {
    for (const Shape& shape : shapes) {
      Tensor t(dt, shape);
      for (int64_t i = 0; i < t.numel(); ++i) {
        if (dt == DType::Bool) t.set_bool(i, i % 3 == 1);
        else if (is_floating(dt)) t.set_double(i, -1.5 + 0.25 * static_cast<double>(i));
        else t.set_int(i, i * 1000003 - 7);
      }
      Tensor back = parse_npy(serialize_npy(t));
      EXPECT_EQ(back.dtype(), dt);
      EXPECT_EQ(back.shape(), shape);
      EXPECT_EQ(bytes_of(back), bytes_of(t)) << dtype_name(dt) << shape_str(shape);
    }
  }
}

TEST(NpyRoundTrip, SpecialFloatsAndExtremeInts) {
  Tensor f(DType::Float64, {4});
  f.data_as<double>()[0] = 1.0 / 0.0;
  f.data_as<double>()[1] = -0.0;
  f.data_as<double>()[2] = 5e-324;
  f.data_as<double>()[3] = -1.7976931348623157e308;
  EXPECT_EQ(bytes_of(parse_npy(serialize_npy(f))), bytes_of(f));
  Tensor i(DType::Int64, {2});
  i.data_as<int64_t>()[0] = INT64_MIN;
  i.data_as<int64_t>()[1] = INT64_MAX;
  Tensor back = parse_npy(serialize_npy(i));
  EXPECT_EQ(back.data_as<int64_t>()[0], INT64_MIN);
  EXPECT_EQ(back.data_as<int64_t>()[1], INT64_MAX);
}

TEST(NpyWrite, HugeHeaderUsesVersion2) {
  // 22000 dims of size 1 make a header longer than version 1.0's 16-bit length can hold.
  Tensor t(DType::Float32, Shape(22000, 1));
  t.set_double(0, 4.0);
  std::string s = serialize_npy(t);
  EXPECT_EQ(s[6], 2);
  EXPECT_EQ(s[7], 0);
  EXPECT_EQ((s.size() - 4) % 64, 0u);
  Tensor back = parse_npy(s);
  EXPECT_EQ(back.shape().size(), 22000u);
  EXPECT_EQ(back.get_double(0), 4.0);
}

TEST(NpyRead, Versions2And3) {
  for (int major : {2, 3}) {
    Tensor t = parse_npy(npy_bytes(major, 0, kI4Header, le32(5) + le32(6) + le32(-7)));
    EXPECT_EQ(t.dtype(), DType::Int32);
    EXPECT_EQ(t.shape(), Shape({3}));
    EXPECT_EQ(t.get_int(2), -7);
  }
}

TEST(NpyRead, OldSixteenByteAlignmentAndHeaderVariants) {
  // numpy < 1.24 aligned to 16 bytes and left no growth room.
  Tensor a = parse_npy(npy_bytes(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                                 le_f32(1.5f) + le_f32(-2.0f), 16));
  EXPECT_EQ(a.get_double(0), 1.5);
  EXPECT_EQ(a.get_double(1), -2.0);
  // Key order, double quotes, no trailing comma, Python 2 'L' suffixes, newlines inside.
  Tensor b = parse_npy(npy_bytes(1, 0, "{\"shape\": (1L,\n 2L), 'fortran_order':False,'descr':\"<i4\"}",
                                 le32(9) + le32(10)));
  EXPECT_EQ(b.shape(), Shape({1, 2}));
  EXPECT_EQ(b.get_int(1), 10);
  // Bool with any one-byte order marker.
  for (const char* descr : {"'|b1'", "'=b1'", "'<b1'"}) {
    Tensor c = parse_npy(npy_bytes(1, 0, std::string("{'descr': ") + descr +
                                             ", 'fortran_order': False, 'shape': (2,), }",
                                   std::string("\x01\x00", 2)));
    EXPECT_EQ(c.dtype(), DType::Bool);
    EXPECT_TRUE(c.get_bool(0));
    EXPECT_FALSE(c.get_bool(1));
  }
}

TEST(NpyRead, ZeroSizeArray) {
  Tensor t = parse_npy(npy_bytes(1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", ""));
  EXPECT_EQ(t.shape(), Shape({0, 3}));
  EXPECT_EQ(t.nbytes(), 0u);
}

std::string with_header(const std::string& header, const std::string& data = le32(1)) {
  return npy_bytes(1, 0, header, data);
}

TEST(NpyErrors, BadMagic) {
  EXPECT_NPY_ERROR("PK\x03\x04 not a numpy file at all", "not a .npy file (bad magic string)");
  EXPECT_NPY_ERROR(std::string("\x93NUMPZ\x01\x00", 8), "bad magic");
  EXPECT_NPY_ERROR("x", "bad magic");
}

TEST(NpyErrors, Truncated) {
  EXPECT_NPY_ERROR("", "truncated .npy file (0 bytes)");
  EXPECT_NPY_ERROR(std::string("\x93NUM", 4), "truncated");
  EXPECT_NPY_ERROR(std::string("\x93NUMPY\x01\x00\x76", 9), "no header length");
  std::string full = npy_bytes(1, 0, kI4Header, le32(1) + le32(2) + le32(3));
  EXPECT_NPY_ERROR(full.substr(0, 60), "the header needs 118 bytes, the file has 50");
  EXPECT_NPY_ERROR(full.substr(0, full.size() - 1),
                   "truncated .npy file (int32[3] needs 12 data bytes, the file has 11)");
  EXPECT_NPY_ERROR(full.substr(0, 128), "needs 12 data bytes, the file has 0");
}

TEST(NpyErrors, TrailingBytes) {
  EXPECT_NPY_ERROR(npy_bytes(1, 0, kI4Header, le32(1) + le32(2) + le32(3) + "x"),
                   "size mismatch (int32[3] needs 12 data bytes, the file has 13)");
}

TEST(NpyErrors, UnsupportedVersion) {
  EXPECT_NPY_ERROR(npy_bytes(4, 0, kI4Header, le32(1)), "unsupported .npy format version 4.0");
  EXPECT_NPY_ERROR(npy_bytes(1, 1, kI4Header, le32(1)), "unsupported .npy format version 1.1");
  EXPECT_NPY_ERROR(npy_bytes(0, 0, kI4Header, le32(1)), "version 0.0 (supported: 1.0, 2.0, 3.0)");
}

TEST(NpyErrors, FortranOrder) {
  EXPECT_NPY_ERROR(with_header("{'descr': '<i4', 'fortran_order': True, 'shape': (1,), }"),
                   "Fortran-order (column-major) arrays are not supported");
}

TEST(NpyErrors, BigEndian) {
  EXPECT_NPY_ERROR(with_header("{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }"),
                   "big-endian dtype '>i4' is not supported");
  EXPECT_NPY_ERROR(with_header("{'descr': '>f8', 'fortran_order': False, 'shape': (), }",
                               std::string(8, '\0')),
                   "big-endian dtype '>f8'");
}

TEST(NpyErrors, UnsupportedDtype) {
  for (const char* d : {"<f2", "|u1", "|i1", "<u4", "<c8", "|O", "<U3", "=f4", "|b2", "f4"}) {
    EXPECT_NPY_ERROR(with_header(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (1,), }"),
                     std::string("unsupported dtype '") + d + "' (expected one of <f4 <f8 <i4 <i8 |b1)");
  }
  EXPECT_NPY_ERROR(with_header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"),
                   "unsupported dtype [('a', '<f4')] (structured dtypes are not supported");
}

TEST(NpyErrors, BadHeaderStructure) {
  struct Case { const char* header; const char* fragment; };
  const Case cases[] = {
      {"['descr', '<i4']", "not a dict"},
      {"{'descr': '<i4', 'fortran_order': False}", "missing key 'shape'"},
      {"{'fortran_order': False, 'shape': (1,)}", "missing key 'descr'"},
      {"{'descr': '<i4', 'shape': (1,)}", "missing key 'fortran_order'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "unknown key 'extra'"},
      {"{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (1,)}", "duplicate key 'descr'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': [1]}", "'shape' is [1], not a tuple of integers"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': 1}", "'shape' is 1, not a tuple"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1)}", "a 1-tuple is written '(n,)'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (-1,)}", "has a negative entry"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': ('1',)}", "has a non-integer entry"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1.0,)}", "not an integer"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (01,)}", "leading zero"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,)}", "integer out of range"},
      {"{'descr': '<i4', 'fortran_order': 0, 'shape': (1,)}", "'fortran_order' is 0, not True or False"},
      {"{'descr': '<i4', 'fortran_order': false, 'shape': (1,)}", "unexpected name 'false'"},
      {"{'descr': '<i4, 'fortran_order': False, 'shape': (1,)}", "expected ',' or '}'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1,)", "expected ',' or '}'"},
      {"{'descr': '<i\\x34', 'fortran_order': False, 'shape': (1,)}", "escape sequences are not supported"},
      {"{'descr' '<i4', 'fortran_order': False, 'shape': (1,)}", "expected ':'"},
      {"{1: '<i4', 'fortran_order': False, 'shape': (1,)}", "dict key is not a string"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1,)} x", "unexpected text after the header's dict"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1,), } # x", "unexpected text"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1,,)}", "unexpected character ','"},
      {"{'descr': __import__('os'), 'fortran_order': False, 'shape': (1,)}", "unexpected name '__import__'"},
      {"", "unexpected end"},
      {"{'descr': 'ab\x01', 'fortran_order': False, 'shape': (1,)}", "control character"},
  };
  for (const Case& c : cases) {
    std::string msg = parse_error(with_header(c.header));
    EXPECT_NE(msg.find(c.fragment), std::string::npos) << c.header << " -> '" << msg << "'";
    EXPECT_EQ(msg.rfind("f.npy: ", 0), 0u) << msg;
  }
  // Unterminated string at the end of the header.
  EXPECT_NPY_ERROR(npy_bytes(1, 0, "{'descr': '<i4", "", 0), "unterminated string");
  // Deep nesting is refused, not recursed into without bound.
  EXPECT_NPY_ERROR(with_header("{'descr': " + std::string(10000, '(') + "}"), "nested too deeply");
}

TEST(NpyErrors, ShapeTooLarge) {
  EXPECT_NPY_ERROR(with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"),
                   "shape [4294967296, 4294967296] is too large");
  EXPECT_NPY_ERROR(with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }"),
                   "truncated .npy file (float64[1000000, 1000000] needs 8000000000000 data bytes");
}

TEST(NpyErrors, BoolByteNotZeroOrOne) {
  EXPECT_NPY_ERROR(npy_bytes(1, 0, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                             std::string("\x01\x00\x02", 3)),
                   "bool element 2 is byte 2 (must be 0 or 1)");
}

TEST(NpyWrite, BoolBytesAreNormalized) {
  Tensor t(DType::Bool, {2});
  t.data()[0] = 7;
  std::string s = serialize_npy(t);
  EXPECT_EQ(s.substr(128), std::string("\x01\x00", 2));
}

class NpyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(STAX_BINARY_DIR) / "test-tmp" /
           ("npy-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(NpyFiles, WriteThenReadLeavesNoTemporaryFile) {
  Tensor t(DType::Int64, {2, 2});
  for (int64_t i = 0; i < 4; ++i) t.set_int(i, i * i - 3);
  write_npy(dir_ / "a.npy", t);
  write_npy(dir_ / "a.npy", t);  // overwrite in place
  Tensor back = read_npy(dir_ / "a.npy");
  EXPECT_EQ(back.shape(), Shape({2, 2}));
  EXPECT_EQ(back.get_int(3), 6);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"a.npy"});
}

TEST_F(NpyFiles, ReadErrorsNameTheFile) {
  fs::path missing = dir_ / "missing.npy";
  try {
    read_npy(missing);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), missing.string() + ": cannot open (No such file or directory)");
  }
  try {
    read_npy(dir_);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), dir_.string() + ": is a directory, not a .npy file");
  }
  fs::path text = dir_ / "x.txt";
  std::ofstream(text) << "1 2 3\n";
  try {
    read_npy(text);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), text.string() + ": not a .npy file (bad magic string)");
  }
}

TEST_F(NpyFiles, WriteIntoMissingFolderFailsCleanly) {
  EXPECT_THROW(write_npy(dir_ / "no" / "a.npy", Tensor(DType::Float32, {1})), UserError);
  EXPECT_FALSE(fs::exists(dir_ / "no"));
}

}  // namespace
}  // namespace stax

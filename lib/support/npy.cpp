#include "stax/support/npy.h"

#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <vector>

#include "stax/support/error.h"

// The format is NumPy's "NEP 1" .npy: magic "\x93NUMPY", major and minor version bytes, the
// header length (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), then the header: a
// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...), } padded with spaces
// and ended by '\n', then the raw data.

static_assert(std::endian::native == std::endian::little,
              ".npy I/O copies little-endian data as is: a big-endian host needs byte swapping");

namespace stax {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
// Data starts at a multiple of this (numpy.lib.format.ARRAY_ALIGN).
constexpr std::size_t kAlign = 64;
// numpy >= 1.24 leaves room after the dict for the first dim to grow to this many digits.
constexpr std::size_t kGrowthAxisMaxDigits = 21;
// No legitimate header of the dtypes we accept comes near this; it bounds work on bad input.
constexpr std::size_t kMaxHeaderLen = 1 << 20;
// Nesting bound of the header literal parser (the valid header nests two levels).
constexpr int kMaxDepth = 16;

[[noreturn]] void fail(const std::string& what, const std::string& message) {
  throw UserError(what + ": " + message);
}

// ---- A strict parser for the subset of Python literals a .npy header may contain. ----

struct Literal {
  enum class Kind : unsigned char { Str, Int, Bool, None, Tuple, List, Dict };
  Kind kind = Kind::None;
  std::string str;              // Str
  int64_t i = 0;                // Int
  bool b = false;               // Bool
  std::vector<Literal> items;   // Tuple, List; Dict: key, value, key, value, ...
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& what) : s_(text), what_(what) {}

  Literal parse_document() {
    skip_space();
    Literal v = parse_value(0);
    skip_space();
    if (pos_ != s_.size()) error("unexpected text after the header's dict");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& message) const {
    fail(what_, "bad .npy header (" + message + " at offset " + std::to_string(pos_) + ")");
  }

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }

  void skip_space() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  void expect(char c) {
    if (peek() != c) error(std::string("expected '") + c + "'");
    ++pos_;
  }

  static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }

  Literal parse_value(int depth) {
    if (depth > kMaxDepth) error("nested too deeply");
    skip_space();
    char c = peek();
    if (c == '\'' || c == '"') return parse_string();
    if (c == '-' || (c >= '0' && c <= '9')) return parse_int();
    if (c == '(') return parse_sequence(Literal::Kind::Tuple, ')', depth);
    if (c == '[') return parse_sequence(Literal::Kind::List, ']', depth);
    if (c == '{') return parse_dict(depth);
    if (is_ident_char(c)) return parse_keyword();
    if (at_end()) error("unexpected end");
    error(std::string("unexpected character '") + c + "'");
  }

  Literal parse_string() {
    char quote = s_[pos_++];
    Literal v;
    v.kind = Literal::Kind::Str;
    while (true) {
      if (at_end()) error("unterminated string");
      char c = s_[pos_];
      if (c == quote) break;
      if (c == '\\') error("escape sequences are not supported");
      if (static_cast<unsigned char>(c) < 0x20) error("control character in a string");
      v.str += c;
      ++pos_;
    }
    ++pos_;
    return v;
  }

  Literal parse_int() {
    bool negative = false;
    if (peek() == '-') {
      negative = true;
      ++pos_;
      skip_space();
    }
    std::size_t start = pos_;
    uint64_t magnitude = 0;
    bool overflow = false;
    while (!at_end() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      uint64_t digit = static_cast<uint64_t>(s_[pos_] - '0');
      if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) overflow = true;
      magnitude = magnitude * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) error("expected a number");
    if (pos_ - start > 1 && s_[start] == '0') error("integer with a leading zero");
    if (peek() == 'L') ++pos_;  // Python 2 long suffix, written by old numpy
    if (is_ident_char(peek()) || peek() == '.') error("not an integer");
    if (overflow || magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      error("integer out of range");
    Literal v;
    v.kind = Literal::Kind::Int;
    v.i = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    return v;
  }

  Literal parse_keyword() {
    std::size_t start = pos_;
    while (!at_end() && is_ident_char(s_[pos_])) ++pos_;
    std::string_view word = s_.substr(start, pos_ - start);
    Literal v;
    if (word == "True" || word == "False") {
      v.kind = Literal::Kind::Bool;
      v.b = word == "True";
      return v;
    }
    if (word == "None") return v;
    pos_ = start;
    error("unexpected name '" + std::string(word) + "'");
  }

  // (a, b, ...) or [a, b, ...]; a tuple of one element needs its trailing comma, as in Python.
  Literal parse_sequence(Literal::Kind kind, char close, int depth) {
    ++pos_;
    Literal v;
    v.kind = kind;
    bool trailing_comma = false;
    skip_space();
    while (peek() != close) {
      v.items.push_back(parse_value(depth + 1));
      skip_space();
      trailing_comma = false;
      if (peek() == ',') {
        ++pos_;
        trailing_comma = true;
        skip_space();
        continue;
      }
      if (peek() != close) error(std::string("expected ',' or '") + close + "'");
    }
    ++pos_;
    if (kind == Literal::Kind::Tuple && v.items.size() == 1 && !trailing_comma)
      error("parenthesized value is not a tuple (a 1-tuple is written '(n,)')");
    return v;
  }

  Literal parse_dict(int depth) {
    ++pos_;
    Literal v;
    v.kind = Literal::Kind::Dict;
    skip_space();
    while (peek() != '}') {
      Literal key = parse_value(depth + 1);
      if (key.kind != Literal::Kind::Str) error("dict key is not a string");
      skip_space();
      expect(':');
      Literal value = parse_value(depth + 1);
      v.items.push_back(std::move(key));
      v.items.push_back(std::move(value));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
        continue;
      }
      if (peek() != '}') error("expected ',' or '}'");
    }
    ++pos_;
    return v;
  }

  std::string_view s_;
  const std::string& what_;
  std::size_t pos_ = 0;
};

std::string literal_repr(const Literal& v) {
  switch (v.kind) {
    case Literal::Kind::Str: return "'" + v.str + "'";
    case Literal::Kind::Int: return std::to_string(v.i);
    case Literal::Kind::Bool: return v.b ? "True" : "False";
    case Literal::Kind::None: return "None";
    case Literal::Kind::Tuple:
    case Literal::Kind::List:
    case Literal::Kind::Dict: break;
  }
  std::string open = v.kind == Literal::Kind::Tuple ? "(" : v.kind == Literal::Kind::List ? "[" : "{";
  std::string close = v.kind == Literal::Kind::Tuple ? ")" : v.kind == Literal::Kind::List ? "]" : "}";
  std::string s = open;
  for (std::size_t k = 0; k < v.items.size(); ++k) {
    if (k) s += v.kind == Literal::Kind::Dict && k % 2 == 1 ? ": " : ", ";
    s += literal_repr(v.items[k]);
  }
  return s + close;
}

// ---- Header semantics ----

struct Header {
  DType dtype = DType::Float32;
  Shape shape;
};

DType parse_descr(const Literal& descr, const std::string& what) {
  if (descr.kind != Literal::Kind::Str)
    fail(what, "unsupported dtype " + literal_repr(descr) +
                   " (structured dtypes are not supported; expected one of <f4 <f8 <i4 <i8 |b1)");
  const std::string& d = descr.str;
  if (d.size() >= 2 && d[0] == '>' && d != ">b1")
    fail(what, "big-endian dtype '" + d + "' is not supported (save it little-endian, e.g. "
               "with arr.astype(arr.dtype.newbyteorder('<')))");
  if (d == "<f4") return DType::Float32;
  if (d == "<f8") return DType::Float64;
  if (d == "<i4") return DType::Int32;
  if (d == "<i8") return DType::Int64;
  // The byte order of a one-byte type is meaningless: numpy writes '|', '=' and '<' mean the same.
  if (d == "|b1" || d == "=b1" || d == "<b1" || d == ">b1") return DType::Bool;
  fail(what, "unsupported dtype '" + d + "' (expected one of <f4 <f8 <i4 <i8 |b1)");
}

Shape parse_shape(const Literal& shape, const std::string& what) {
  if (shape.kind != Literal::Kind::Tuple)
    fail(what, "bad .npy header ('shape' is " + literal_repr(shape) + ", not a tuple of integers)");
  Shape out;
  for (const Literal& d : shape.items) {
    if (d.kind != Literal::Kind::Int)
      fail(what, "bad .npy header ('shape' " + literal_repr(shape) + " has a non-integer entry)");
    if (d.i < 0) fail(what, "bad .npy header ('shape' " + literal_repr(shape) + " has a negative entry)");
    out.push_back(d.i);
  }
  return out;
}

Header parse_header(std::string_view text, const std::string& what) {
  Literal dict = HeaderParser(text, what).parse_document();
  if (dict.kind != Literal::Kind::Dict) fail(what, "bad .npy header (not a dict)");
  const Literal* descr = nullptr;
  const Literal* fortran = nullptr;
  const Literal* shape = nullptr;
  for (std::size_t k = 0; k < dict.items.size(); k += 2) {
    const std::string& key = dict.items[k].str;
    const Literal* value = &dict.items[k + 1];
    const Literal** slot = key == "descr" ? &descr
                           : key == "fortran_order" ? &fortran
                           : key == "shape" ? &shape
                                            : nullptr;
    if (!slot) fail(what, "bad .npy header (unknown key '" + key + "')");
    if (*slot) fail(what, "bad .npy header (duplicate key '" + key + "')");
    *slot = value;
  }
  if (!descr) fail(what, "bad .npy header (missing key 'descr')");
  if (!fortran) fail(what, "bad .npy header (missing key 'fortran_order')");
  if (!shape) fail(what, "bad .npy header (missing key 'shape')");
  if (fortran->kind != Literal::Kind::Bool)
    fail(what, "bad .npy header ('fortran_order' is " + literal_repr(*fortran) + ", not True or False)");
  if (fortran->b)
    fail(what, "Fortran-order (column-major) arrays are not supported; save a C-order array "
               "(np.ascontiguousarray)");
  Header h;
  h.dtype = parse_descr(*descr, what);
  h.shape = parse_shape(*shape, what);
  return h;
}

uint64_t read_le(const std::string& bytes, std::size_t offset, std::size_t width) {
  uint64_t v = 0;
  for (std::size_t k = 0; k < width; ++k)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[offset + k])) << (8 * k);
  return v;
}

std::string shape_repr(const Shape& shape) {
  std::string s = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (k) s += ", ";
    s += std::to_string(shape[k]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

Tensor parse_npy(const std::string& bytes, const std::string& what) {
  std::size_t prefix = std::min(bytes.size(), kMagicLen);
  if (std::memcmp(bytes.data(), kMagic, prefix) != 0)
    fail(what, "not a .npy file (bad magic string)");
  if (bytes.size() < kMagicLen + 2)
    fail(what, "truncated .npy file (" + std::to_string(bytes.size()) + " bytes)");
  int major = static_cast<unsigned char>(bytes[kMagicLen]);
  int minor = static_cast<unsigned char>(bytes[kMagicLen + 1]);
  bool supported = minor == 0 && (major == 1 || major == 2 || major == 3);
  if (!supported)
    fail(what, "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  std::size_t len_width = major == 1 ? 2 : 4;
  std::size_t header_start = kMagicLen + 2 + len_width;
  if (bytes.size() < header_start)
    fail(what, "truncated .npy file (" + std::to_string(bytes.size()) + " bytes, no header length)");
  uint64_t header_len = read_le(bytes, kMagicLen + 2, len_width);
  if (header_len > kMaxHeaderLen)
    fail(what, "bad .npy header (length " + std::to_string(header_len) + " is implausibly large)");
  if (bytes.size() - header_start < header_len)
    fail(what, "truncated .npy file (the header needs " + std::to_string(header_len) +
                   " bytes, the file has " + std::to_string(bytes.size() - header_start) + " after the preamble)");
  Header h = parse_header(std::string_view(bytes).substr(header_start, header_len), what);

  std::size_t data_start = header_start + header_len;
  std::size_t have = bytes.size() - data_start;
  uint64_t need = dtype_size(h.dtype);
  for (int64_t d : h.shape) {
    uint64_t ud = static_cast<uint64_t>(d);
    if (ud != 0 && need > std::numeric_limits<uint64_t>::max() / ud)
      fail(what, "shape " + shape_str(h.shape) + " is too large");
    need *= ud;
  }
  std::string desc = std::string(dtype_name(h.dtype)) + shape_str(h.shape);
  if (have < need)
    fail(what, "truncated .npy file (" + desc + " needs " + std::to_string(need) +
                   " data bytes, the file has " + std::to_string(have) + ")");
  if (have > need)
    fail(what, "size mismatch (" + desc + " needs " + std::to_string(need) +
                   " data bytes, the file has " + std::to_string(have) + ")");
  Tensor t(h.dtype, h.shape);
  if (need) std::memcpy(t.data(), bytes.data() + data_start, static_cast<std::size_t>(need));
  if (h.dtype == DType::Bool) {
    for (std::size_t k = 0; k < t.nbytes(); ++k) {
      unsigned b = t.data()[k];
      if (b > 1)
        fail(what, "bool element " + std::to_string(k) + " is byte " + std::to_string(b) +
                       " (must be 0 or 1)");
    }
  }
  return t;
}

Tensor read_npy(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw UserError(file.string() + ": is a directory, not a .npy file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(file.string() + ": cannot open (" + std::strerror(errno) + ")");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UserError(file.string() + ": read error");
  return parse_npy(bytes, file.string());
}

std::string serialize_npy(const Tensor& t) {
  // As numpy.lib.format._write_array_header: keys sorted, repr() values, room for the first dim
  // to grow, then spaces and '\n' so that the data starts at a multiple of kAlign.
  std::string dict = "{'descr': '" + std::string(npy_descr(t.dtype())) +
                     "', 'fortran_order': False, 'shape': " + shape_repr(t.shape()) + ", }";
  if (!t.shape().empty()) {
    std::size_t digits = std::to_string(t.shape()[0]).size();
    dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  std::size_t len_width = 2;
  int major = 1;
  auto padded_len = [&](std::size_t width) {
    std::size_t hlen = dict.size() + 1;  // + '\n'
    std::size_t pad = kAlign - (kMagicLen + 2 + width + hlen) % kAlign;
    return hlen + pad;
  };
  if (padded_len(2) > 0xffff) {
    len_width = 4;
    major = 2;
  }
  std::size_t header_len = padded_len(len_width);
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(major);
  out += static_cast<char>(0);
  for (std::size_t k = 0; k < len_width; ++k) out += static_cast<char>((header_len >> (8 * k)) & 0xff);
  out += dict;
  out.append(header_len - dict.size() - 1, ' ');
  out += '\n';
  STAX_ASSERT(out.size() % kAlign == 0, "npy data must start aligned");
  std::size_t data_start = out.size();
  out.append(reinterpret_cast<const char*>(t.data()), t.nbytes());
  if (t.dtype() == DType::Bool) {
    for (std::size_t k = data_start; k < out.size(); ++k) out[k] = out[k] != 0 ? 1 : 0;
  }
  return out;
}

void write_npy(const std::filesystem::path& file, const Tensor& t) {
  std::string bytes = serialize_npy(t);
  std::filesystem::path tmp = file;
  tmp += ".tmp." + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw UserError(file.string() + ": cannot write (" + std::strerror(errno) + ")");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw UserError(file.string() + ": write error");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw UserError(file.string() + ": cannot write (" + ec.message() + ")");
  }
}

}  // namespace stax

#include "stax/codegen/literals.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "stax/support/error.h"

namespace stax::codegen {

namespace {

// Shortest round-trip decimal, with a '.' or an exponent so it reads as a floating literal.
template <typename F> std::string shortest(F v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  STAX_ASSERT(ec == std::errc(), "to_chars failed");
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string non_finite(const char* type, double v) {
  if (std::isnan(v)) return std::string("stax_rt::nan<") + type + ">()";
  return std::string(v < 0 ? "-" : "") + "stax_rt::inf<" + type + ">()";
}

// An element of an integer array: plain digits, the minimum spelled by its macro (its literal
// does not exist: -2147483648 is the negation of a too-large literal).
std::string int_element(DType dt, int64_t v) {
  if (dt == DType::Int32 && v == std::numeric_limits<int32_t>::min()) return "INT32_MIN";
  if (dt == DType::Int64 && v == std::numeric_limits<int64_t>::min()) return "INT64_MIN";
  return std::to_string(v);
}

}  // namespace

std::string cxx_type(DType dt) {
  switch (dt) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Int32: return "int32_t";
    case DType::Int64: return "int64_t";
    case DType::Bool: return "bool";
  }
  return "?";
}

std::string capi_dtype_code(DType dt) {
  switch (dt) {
    case DType::Float32: return "STAX_FLOAT32";
    case DType::Float64: return "STAX_FLOAT64";
    case DType::Int32: return "STAX_INT32";
    case DType::Int64: return "STAX_INT64";
    case DType::Bool: return "STAX_BOOL";
  }
  return "?";
}

std::string float_literal(DType dt, double v) {
  STAX_ASSERT(is_floating(dt), "float_literal of a non-float dtype");
  if (dt == DType::Float32) {
    if (!std::isfinite(v)) return non_finite("float", v);
    return shortest(static_cast<float>(v)) + "f";
  }
  if (!std::isfinite(v)) return non_finite("double", v);
  return shortest(v);
}

std::string int_literal(DType dt, int64_t v) {
  switch (dt) {
    case DType::Bool: return v != 0 ? "true" : "false";
    case DType::Int32: return int_element(dt, static_cast<int32_t>(v));
    case DType::Int64:
      if (v == std::numeric_limits<int64_t>::min()) return "INT64_MIN";
      return "int64_t{" + std::to_string(v) + "}";
    case DType::Float32:
    case DType::Float64: break;
  }
  internal_error(__FILE__, __LINE__, "int_literal of a float dtype");
}

std::string array_elements(const Tensor& t, int indent, int per_line) {
  std::string out;
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (i % per_line == 0) out += (i == 0 ? "" : "\n") + pad;
    std::string v;
    switch (t.dtype()) {
      case DType::Float32:
      case DType::Float64: v = float_literal(t.dtype(), t.get_double(i)); break;
      case DType::Int32:
      case DType::Int64: v = int_element(t.dtype(), t.get_int(i)); break;
      case DType::Bool: v = t.get_bool(i) ? "true" : "false"; break;
    }
    out += v;
    if (i + 1 < n) out += (i % per_line == per_line - 1) ? "," : ", ";
  }
  return out;
}

std::string string_literal(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f && c != '?') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  return out + "\"";
}

}  // namespace stax::codegen

// C++ spellings of types and values in generated code. Floats print exactly: the shortest
// decimal that reads back to the same value (std::to_chars), inf and nan through the prelude.
#pragma once

#include <cstdint>
#include <string>

#include "stax/support/dtype.h"
#include "stax/support/tensor.h"

namespace stax::codegen {

// "float", "double", "int32_t", "int64_t", "bool".
std::string cxx_type(DType dt);
// STAX_FLOAT32, ... (the C API's dtype codes).
std::string capi_dtype_code(DType dt);

// A float of dtype Float32 ("0.1f", "-0.0f", "1e+20f", "stax_rt::inf<float>()") or Float64
// ("0.1", "-stax_rt::inf<double>()", "stax_rt::nan<double>()"). Exact round trip.
std::string float_literal(DType dt, double v);
// An int of dtype Int32 ("-5", "INT32_MIN"), Int64 ("int64_t{-5}", "INT64_MIN") or Bool
// ("true"/"false"). Typed so that template arguments deduce to the dtype's C++ type.
std::string int_literal(DType dt, int64_t v);

// The comma-separated elements of a constant, row-major, `per_line` values a line, each line
// indented by `indent` spaces. Array elements are untyped where the array's type makes them so
// ("5", not "int64_t{5}").
std::string array_elements(const Tensor& t, int indent, int per_line = 8);

// A C string literal (quotes included), escaping anything outside printable ASCII.
std::string string_literal(const std::string& s);

}  // namespace stax::codegen

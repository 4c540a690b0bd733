#include "stax/codegen/literals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace stax::codegen {
namespace {

TEST(Literals, FloatsRoundTripExactly) {
  EXPECT_EQ(float_literal(DType::Float32, 0.5), "0.5f");
  EXPECT_EQ(float_literal(DType::Float32, 1.0), "1.0f");
  EXPECT_EQ(float_literal(DType::Float32, 0.1), "0.1f");  // shortest that reads back to float(0.1)
  EXPECT_EQ(float_literal(DType::Float32, -0.0), "-0.0f");
  EXPECT_EQ(float_literal(DType::Float32, 1e20), "1e+20f");
  EXPECT_EQ(float_literal(DType::Float32, 16777217.0), "16777216.0f");
  EXPECT_EQ(float_literal(DType::Float64, 0.1), "0.1");
  EXPECT_EQ(float_literal(DType::Float64, 1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(float_literal(DType::Float64, 5e-324), "5e-324");
  EXPECT_EQ(float_literal(DType::Float64, 100.0), "100.0");
  EXPECT_EQ(float_literal(DType::Float32, std::numeric_limits<double>::infinity()), "stax_rt::inf<float>()");
  EXPECT_EQ(float_literal(DType::Float64, -std::numeric_limits<double>::infinity()), "-stax_rt::inf<double>()");
  EXPECT_EQ(float_literal(DType::Float64, std::nan("")), "stax_rt::nan<double>()");
}

TEST(Literals, IntegersAreTyped) {
  EXPECT_EQ(int_literal(DType::Int32, -5), "-5");
  EXPECT_EQ(int_literal(DType::Int32, std::numeric_limits<int32_t>::min()), "INT32_MIN");
  EXPECT_EQ(int_literal(DType::Int64, 7), "int64_t{7}");
  EXPECT_EQ(int_literal(DType::Int64, std::numeric_limits<int64_t>::min()), "INT64_MIN");
  EXPECT_EQ(int_literal(DType::Bool, 1), "true");
  EXPECT_EQ(int_literal(DType::Bool, 0), "false");
  EXPECT_EQ(cxx_type(DType::Int64), "int64_t");
  EXPECT_EQ(capi_dtype_code(DType::Bool), "STAX_BOOL");
}

TEST(Literals, ArrayElements) {
  Tensor f(DType::Float32, {5});
  f.set_double(0, 0.25);
  f.set_double(1, -std::numeric_limits<double>::infinity());
  f.set_double(2, std::nan(""));
  f.set_double(3, 3.0);
  f.set_double(4, 1e-45);
  EXPECT_EQ(array_elements(f, 2, 2),
            "  0.25f, -stax_rt::inf<float>(),\n  stax_rt::nan<float>(), 3.0f,\n  1e-45f");
  Tensor i(DType::Int64, {3});
  i.set_int(0, std::numeric_limits<int64_t>::min());
  i.set_int(1, std::numeric_limits<int64_t>::max());
  i.set_int(2, -1);
  EXPECT_EQ(array_elements(i, 0), "INT64_MIN, 9223372036854775807, -1");
  Tensor b(DType::Bool, {2});
  b.set_bool(1, true);
  EXPECT_EQ(array_elements(b, 0), "false, true");
}

TEST(Literals, StringLiteralsEscape) {
  EXPECT_EQ(string_literal("x.1"), "\"x.1\"");
  EXPECT_EQ(string_literal("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(string_literal("?\n"), "\"\\077\\012\"");
}

}  // namespace
}  // namespace stax::codegen

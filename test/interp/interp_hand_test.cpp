// Interpreter tests on graphs built by hand (as the front end types them): input checking and
// the arithmetic corner cases of PyTorch's integer and floating semantics.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "interp_test_util.h"
#include "stax/support/error.h"

namespace stax::interp::testing {
namespace {

using graph::Op;
using graph::RoundingMode;

constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
const double kNan = std::nan("");
const double kInf = std::numeric_limits<double>::infinity();

// out = op(a, b) over two inputs of one shape.
graph::Graph binary_graph(Op op, DType in, DType out, const Shape& s, graph::Attrs attrs = {},
                          std::optional<DType> compute = std::nullopt) {
  GraphBuilder b;
  const auto x = b.input("a", in, s);
  const auto y = b.input("b", in, s);
  const auto q = b.node("q", op, {V(x), V(y)}, out, s, attrs, compute.value_or(in));
  return b.finish({q});
}

graph::Graph unary_graph(Op op, DType in, DType out, const Shape& s, graph::Attrs attrs = {},
                         std::optional<DType> compute = std::nullopt) {
  GraphBuilder b;
  const auto x = b.input("x", in, s);
  const auto y = b.node("y", op, {V(x)}, out, s, attrs, compute.value_or(in));
  return b.finish({y});
}

graph::Attrs rounding(RoundingMode m) {
  graph::Attrs a;
  a.rounding_mode = m;
  return a;
}

TEST(InterpInputs, CountDtypeAndShapeAreChecked) {
  const graph::Graph g = unary_graph(Op::Neg, DType::Float32, DType::Float32, {2});
  try {
    interpret(g, {});
    FAIL() << "missing input accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "graph 'g' takes 1 input(s) (x), got 0");
  }
  try {
    interpret(g, {f64({2}, {1, 2})});
    FAIL() << "dtype mismatch accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "input 'x': expected dtype float32, got float64");
  }
  try {
    interpret(g, {f32({3}, {1, 2, 3})});
    FAIL() << "shape mismatch accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "input 'x': expected shape [2], got [3]");
  }
  const auto out = interpret(g, {f32({2}, {1, -2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(doubles(out[0]), (std::vector<double>{-1, 2}));
}

TEST(InterpIntDiv, TruncAndFloorWithNegatives) {
  const Tensor a = i64({6}, {7, -7, 7, -7, 6, -6});
  const Tensor b = i64({6}, {2, 2, -2, -2, 3, 3});
  auto trunc = interpret(binary_graph(Op::Div, DType::Int64, DType::Int64, {6}, rounding(RoundingMode::Trunc)), {a, b});
  EXPECT_EQ(ints(trunc[0]), (std::vector<int64_t>{3, -3, -3, 3, 2, -2}));
  auto floor = interpret(binary_graph(Op::Div, DType::Int64, DType::Int64, {6}, rounding(RoundingMode::Floor)), {a, b});
  EXPECT_EQ(ints(floor[0]), (std::vector<int64_t>{3, -4, -4, 3, 2, -2}));
}

TEST(InterpIntDiv, ByZeroIsARuntimeFailureNamingTheNode) {
  for (RoundingMode m : {RoundingMode::Trunc, RoundingMode::Floor}) {
    const graph::Graph g = binary_graph(Op::Div, DType::Int32, DType::Int32, {2}, rounding(m));
    try {
      interpret(g, {i32({2}, {1, 2}), i32({2}, {1, 0})});
      FAIL() << "division by zero not detected";
    } catch (const RuntimeFailure& e) {
      EXPECT_STREQ(e.what(), "node 'q' (div): integer division by zero");
    }
  }
  const graph::Graph r = binary_graph(Op::Remainder, DType::Int64, DType::Int64, {1});
  try {
    interpret(r, {i64({1}, {5}), i64({1}, {0})});
    FAIL() << "remainder by zero not detected";
  } catch (const RuntimeFailure& e) {
    EXPECT_STREQ(e.what(), "node 'q' (remainder): integer division by zero");
  }
}

TEST(InterpIntDiv, MinByMinusOneWraps) {
  for (RoundingMode m : {RoundingMode::Trunc, RoundingMode::Floor}) {
    auto r32 = interpret(binary_graph(Op::Div, DType::Int32, DType::Int32, {2}, rounding(m)),
                         {i32({2}, {kI32Min, kI32Max}), i32({2}, {-1, -1})});
    EXPECT_EQ(ints(r32[0]), (std::vector<int64_t>{kI32Min, -kI32Max}));
    auto r64 = interpret(binary_graph(Op::Div, DType::Int64, DType::Int64, {2}, rounding(m)),
                         {i64({2}, {kI64Min, kI64Max}), i64({2}, {-1, -1})});
    EXPECT_EQ(ints(r64[0]), (std::vector<int64_t>{kI64Min, -kI64Max}));
  }
  auto rem = interpret(binary_graph(Op::Remainder, DType::Int64, DType::Int64, {2}),
                       {i64({2}, {kI64Min, 7}), i64({2}, {-1, -1})});
  EXPECT_EQ(ints(rem[0]), (std::vector<int64_t>{0, 0}));
}

TEST(InterpRemainder, IntegerTakesTheSignOfTheDivisor) {
  auto r = interpret(binary_graph(Op::Remainder, DType::Int32, DType::Int32, {5}),
                     {i32({5}, {7, -7, 7, -7, 6}), i32({5}, {3, 3, -3, -3, -3})});
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{1, 2, -2, -1, 0}));
}

TEST(InterpRemainder, FloatTakesTheSignOfTheDivisor) {
  auto r = interpret(binary_graph(Op::Remainder, DType::Float64, DType::Float64, {7}),
                     {f64({7}, {5.5, -5.5, 5.5, -5.5, 1.0, -1.0, 3.0}),
                      f64({7}, {2, 2, -2, -2, 0, kInf, 3})});
  EXPECT_TRUE(floats_near(r[0], {1.5, 0.5, -0.5, -1.5, kNan, kInf, 0.0}));
}

TEST(InterpFloatDiv, ByZeroGivesInfAndNan) {
  auto r = interpret(binary_graph(Op::Div, DType::Float32, DType::Float32, {3}),
                     {f32({3}, {1, -1, 0}), f32({3}, {0, 0, 0})});
  EXPECT_TRUE(floats_near(r[0], {kInf, -kInf, kNan}));
}

TEST(InterpFloatDiv, RoundingModesFollowPython) {
  const Tensor a = f64({5}, {7, -7, 7, -7, -0.5});
  const Tensor b = f64({5}, {2, 2, -2, -2, 4});
  auto t = interpret(binary_graph(Op::Div, DType::Float64, DType::Float64, {5}, rounding(RoundingMode::Trunc)), {a, b});
  EXPECT_TRUE(floats_near(t[0], {3, -3, -3, 3, -0.0}));
  auto f = interpret(binary_graph(Op::Div, DType::Float64, DType::Float64, {5}, rounding(RoundingMode::Floor)), {a, b});
  EXPECT_TRUE(floats_near(f[0], {3, -4, -4, 3, -1}));
  // floor of a zero quotient keeps the sign of a / b
  auto z = interpret(binary_graph(Op::Div, DType::Float64, DType::Float64, {2}, rounding(RoundingMode::Floor)),
                     {f64({2}, {0.0, -0.0}), f64({2}, {3, 3})});
  EXPECT_FALSE(std::signbit(z[0].get_double(0)));
  EXPECT_TRUE(std::signbit(z[0].get_double(1)));
  // by zero: the IEEE quotient
  auto inf = interpret(binary_graph(Op::Div, DType::Float64, DType::Float64, {1}, rounding(RoundingMode::Floor)),
                       {f64({1}, {-1}), f64({1}, {0})});
  EXPECT_TRUE(floats_near(inf[0], {-kInf}));
}

TEST(InterpFloatDiv, Float32QuotientIsRoundedBeforeTruncation) {
  // In double 5.549726486206055 / 0.5045205950737 = 10.99999988..., in float32 it rounds to 11:
  // trunc(a / b) gives 11 as PyTorch's float kernel; floor division uses fmod (Python's
  // algorithm) and gives the exact floor, 10.
  const Tensor a = f32({1}, {5.549726486206055});
  const Tensor b = f32({1}, {0.5045205950737});
  auto t = interpret(binary_graph(Op::Div, DType::Float32, DType::Float32, {1}, rounding(RoundingMode::Trunc)), {a, b});
  EXPECT_EQ(t[0].get_double(0), 11.0);
  auto f = interpret(binary_graph(Op::Div, DType::Float32, DType::Float32, {1}, rounding(RoundingMode::Floor)), {a, b});
  EXPECT_EQ(f[0].get_double(0), 10.0);
}

TEST(InterpIntDiv, TrueDivisionOfIntsIsFloat32) {
  auto r = interpret(binary_graph(Op::Div, DType::Int32, DType::Float32, {3}, {}, DType::Float32),
                     {i32({3}, {7, -7, 1}), i32({3}, {2, 2, 0})});
  EXPECT_EQ(r[0].dtype(), DType::Float32);
  EXPECT_TRUE(floats_near(r[0], {3.5, -3.5, kInf}));
}

TEST(InterpPow, IntegerPowers) {
  auto r = interpret(binary_graph(Op::Pow, DType::Int64, DType::Int64, {5}),
                     {i64({5}, {2, 3, -2, 0, 3}), i64({5}, {10, 3, 3, 0, 40})});
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{1024, 27, -8, 1, -6289078614652622815}));
  auto w = interpret(binary_graph(Op::Pow, DType::Int32, DType::Int32, {2}),
                     {i32({2}, {3, 2}), i32({2}, {21, 31})});
  EXPECT_EQ(ints(w[0]), (std::vector<int64_t>{1870418611, kI32Min}));  // 3^21 mod 2^32
}

TEST(InterpPow, NegativeIntegerExponents) {
  auto r = interpret(binary_graph(Op::Pow, DType::Int32, DType::Int32, {7}),
                     {i32({7}, {1, -1, -1, 2, 0, -2, 5}), i32({7}, {-3, -3, -2, -1, -1, -2, -7})});
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{1, -1, 1, 0, 0, 0, 0}));
}

TEST(InterpPow, FloatPowers) {
  auto r = interpret(binary_graph(Op::Pow, DType::Float64, DType::Float64, {4}),
                     {f64({4}, {2, -8, 4, -1}), f64({4}, {0.5, 1.0 / 3.0, -0.5, 0.5})});
  EXPECT_TRUE(floats_near(r[0], {std::sqrt(2.0), std::pow(-8.0, 1.0 / 3.0), 0.5, kNan}, 1e-15));
}

TEST(InterpCast, FloatToIntIsDefinedForEveryInput) {
  const Tensor x = f32({7}, {1e10, -1e10, kNan, kInf, -kInf, 2.7, -2.7});
  graph::Attrs a;
  a.dtype = DType::Int32;
  auto r32 = interpret(unary_graph(Op::To, DType::Float32, DType::Int32, {7}, a), {x});
  EXPECT_EQ(ints(r32[0]), (std::vector<int64_t>{kI32Max, kI32Min, 0, kI32Max, kI32Min, 2, -2}));
  a.dtype = DType::Int64;
  auto r64 = interpret(unary_graph(Op::To, DType::Float32, DType::Int64, {7}, a), {x});
  EXPECT_EQ(ints(r64[0]), (std::vector<int64_t>{10000000000, -10000000000, 0, kI64Max, kI64Min, 2, -2}));
  const Tensor big = f64({2}, {9.3e18, -9.3e18});
  auto r64b = interpret(unary_graph(Op::To, DType::Float64, DType::Int64, {2}, a), {big});
  EXPECT_EQ(ints(r64b[0]), (std::vector<int64_t>{kI64Max, kI64Min}));
}

TEST(InterpCast, ToBoolAndBetweenInts) {
  graph::Attrs a;
  a.dtype = DType::Bool;
  auto b = interpret(unary_graph(Op::To, DType::Float32, DType::Bool, {4}, a),
                     {f32({4}, {0.0, kNan, -0.0, 0.5})});
  EXPECT_EQ(ints(b[0]), (std::vector<int64_t>{0, 1, 0, 1}));
  a.dtype = DType::Int32;
  auto w = interpret(unary_graph(Op::To, DType::Int64, DType::Int32, {3}, a),
                     {i64({3}, {(int64_t{1} << 32) + 5, int64_t{1} << 31, -1})});
  EXPECT_EQ(ints(w[0]), (std::vector<int64_t>{5, kI32Min, -1}));
  a.dtype = DType::Float32;
  auto f = interpret(unary_graph(Op::To, DType::Int64, DType::Float32, {2}, a),
                     {i64({2}, {(int64_t{1} << 53) + 1, (int64_t{1} << 24) + 1})});
  EXPECT_EQ(doubles(f[0]), (std::vector<double>{9007199254740992.0, 16777216.0}));
}

TEST(InterpUnary, RoundIsHalfToEven) {
  auto r = interpret(unary_graph(Op::Round, DType::Float32, DType::Float32, {8}),
                     {f32({8}, {0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6, kNan})});
  EXPECT_TRUE(floats_near(r[0], {0, 2, 2, -0.0, -2, 2, -3, kNan}));
  EXPECT_TRUE(std::signbit(r[0].get_double(3)));
}

TEST(InterpUnary, SignReluAndNan) {
  auto s = interpret(unary_graph(Op::Sign, DType::Float32, DType::Float32, {5}),
                     {f32({5}, {-3, 0, 2, kNan, -kInf})});
  EXPECT_TRUE(floats_near(s[0], {-1, 0, 1, 0, -1}));
  auto si = interpret(unary_graph(Op::Sign, DType::Int32, DType::Int32, {3}), {i32({3}, {-7, 0, 9})});
  EXPECT_EQ(ints(si[0]), (std::vector<int64_t>{-1, 0, 1}));
  auto r = interpret(unary_graph(Op::Relu, DType::Float32, DType::Float32, {4}),
                     {f32({4}, {-1, 2, kNan, -kInf})});
  EXPECT_TRUE(floats_near(r[0], {0, 2, kNan, 0}));
}

TEST(InterpUnary, IntegerNegAndAbsWrap) {
  auto n = interpret(unary_graph(Op::Neg, DType::Int32, DType::Int32, {3}), {i32({3}, {kI32Min, 5, -5})});
  EXPECT_EQ(ints(n[0]), (std::vector<int64_t>{kI32Min, -5, 5}));
  auto a = interpret(unary_graph(Op::Abs, DType::Int64, DType::Int64, {3}), {i64({3}, {kI64Min, 5, -5})});
  EXPECT_EQ(ints(a[0]), (std::vector<int64_t>{kI64Min, 5, 5}));
}

TEST(InterpBinary, IntegerArithmeticWraps) {
  auto add = interpret(binary_graph(Op::Add, DType::Int32, DType::Int32, {2}),
                       {i32({2}, {kI32Max, kI32Min}), i32({2}, {1, -1})});
  EXPECT_EQ(ints(add[0]), (std::vector<int64_t>{kI32Min, kI32Max}));
  auto mul = interpret(binary_graph(Op::Mul, DType::Int64, DType::Int64, {1}),
                       {i64({1}, {kI64Max}), i64({1}, {2})});
  EXPECT_EQ(ints(mul[0]), (std::vector<int64_t>{-2}));
}

TEST(InterpBinary, MaximumMinimumPropagateNan) {
  const Tensor a = f32({3}, {1, kNan, 3});
  const Tensor b = f32({3}, {kNan, 2, -1});
  auto mx = interpret(binary_graph(Op::Maximum, DType::Float32, DType::Float32, {3}), {a, b});
  EXPECT_TRUE(floats_near(mx[0], {kNan, kNan, 3}));
  auto mn = interpret(binary_graph(Op::Minimum, DType::Float32, DType::Float32, {3}), {a, b});
  EXPECT_TRUE(floats_near(mn[0], {kNan, kNan, -1}));
}

TEST(InterpBinary, BitwiseOnBoolAndInts) {
  const Tensor a = bools({4}, {0, 0, 1, 1});
  const Tensor b = bools({4}, {0, 1, 0, 1});
  EXPECT_EQ(ints(interpret(binary_graph(Op::BitwiseAnd, DType::Bool, DType::Bool, {4}), {a, b})[0]),
            (std::vector<int64_t>{0, 0, 0, 1}));
  EXPECT_EQ(ints(interpret(binary_graph(Op::BitwiseOr, DType::Bool, DType::Bool, {4}), {a, b})[0]),
            (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(ints(interpret(binary_graph(Op::BitwiseXor, DType::Bool, DType::Bool, {4}), {a, b})[0]),
            (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(ints(interpret(unary_graph(Op::BitwiseNot, DType::Bool, DType::Bool, {4}), {a})[0]),
            (std::vector<int64_t>{1, 1, 0, 0}));
  EXPECT_EQ(ints(interpret(unary_graph(Op::BitwiseNot, DType::Int32, DType::Int32, {2}), {i32({2}, {0, 5})})[0]),
            (std::vector<int64_t>{-1, -6}));
  EXPECT_EQ(ints(interpret(binary_graph(Op::BitwiseXor, DType::Int64, DType::Int64, {2}),
                           {i64({2}, {12, -1}), i64({2}, {10, 5})})[0]),
            (std::vector<int64_t>{6, -6}));
}

TEST(InterpLogical, AnyDtypeNonzeroIsTrue) {
  GraphBuilder b;
  const auto x = b.input("x", DType::Float32, {4});
  const auto y = b.input("y", DType::Int32, {4});
  const auto land = b.node("and", Op::LogicalAnd, {V(x), V(y)}, DType::Bool, {4}, {}, DType::Float32);
  const auto lxor = b.node("xor", Op::LogicalXor, {V(x), V(y)}, DType::Bool, {4}, {}, DType::Float32);
  const auto lnot = b.node("not", Op::LogicalNot, {V(x)}, DType::Bool, {4}, {}, DType::Bool);
  const auto r = interpret(b.finish({land, lxor, lnot}), {f32({4}, {0, kNan, 0.5, 0}), i32({4}, {3, 2, 0, 0})});
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{0, 1, 0, 0}));
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{1, 0, 1, 0}));
  EXPECT_EQ(ints(r[2]), (std::vector<int64_t>{1, 0, 0, 1}));
}

TEST(InterpPredicates, OnIntegersAndFloats) {
  const Tensor xi = i32({2}, {0, kI32Min});
  EXPECT_EQ(ints(interpret(unary_graph(Op::IsNan, DType::Int32, DType::Bool, {2}), {xi})[0]), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(ints(interpret(unary_graph(Op::IsInf, DType::Int32, DType::Bool, {2}), {xi})[0]), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(ints(interpret(unary_graph(Op::IsFinite, DType::Int32, DType::Bool, {2}), {xi})[0]), (std::vector<int64_t>{1, 1}));
  const Tensor xf = f64({4}, {1, kNan, kInf, -kInf});
  EXPECT_EQ(ints(interpret(unary_graph(Op::IsNan, DType::Float64, DType::Bool, {4}), {xf})[0]), (std::vector<int64_t>{0, 1, 0, 0}));
  EXPECT_EQ(ints(interpret(unary_graph(Op::IsInf, DType::Float64, DType::Bool, {4}), {xf})[0]), (std::vector<int64_t>{0, 0, 1, 1}));
  EXPECT_EQ(ints(interpret(unary_graph(Op::IsFinite, DType::Float64, DType::Bool, {4}), {xf})[0]), (std::vector<int64_t>{1, 0, 0, 0}));
}

TEST(InterpPromotion, ScalarsAndBroadcasting) {
  GraphBuilder b;
  const auto x = b.input("x", DType::Int32, {2, 1});
  const auto y = b.input("y", DType::Int64, {});
  const auto z = b.input("z", DType::Float64, {3});
  // int32[2,1] * 2.5 -> float32; int32 + int64[] -> int32 (wrap); int32[2,1] * float64[3] -> float64[2,3]
  const auto m = b.node("m", Op::Mul, {V(x), F(2.5)}, DType::Float32, {2, 1});
  const auto s = b.node("s", Op::Add, {V(x), V(y)}, DType::Int32, {2, 1});
  const auto p = b.node("p", Op::Mul, {V(x), V(z)}, DType::Float64, {2, 3});
  const auto r = interpret(b.finish({m, s, p}),
                           {i32({2, 1}, {3, -4}), i64({}, {(int64_t{1} << 32) + 1}), f64({3}, {0.5, 1, 2})});
  EXPECT_EQ(r[0].dtype(), DType::Float32);
  EXPECT_TRUE(floats_near(r[0], {7.5, -10}));
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{4, -3}));
  EXPECT_TRUE(floats_near(r[2], {1.5, 3, 6, -2, -4, -8}));
}

TEST(InterpPromotion, Float32OperandsAreRoundedBeforeTheMath) {
  // PyTorch casts the scalar to float32 first: float32(0.1) - 0.1 is exactly 0, whereas in double
  // it would be 1.49e-9.
  GraphBuilder b;
  const auto x = b.input("x", DType::Float32, {1});
  const auto y = b.node("y", Op::Sub, {V(x), F(0.1)}, DType::Float32, {1});
  const auto r = interpret(b.finish({y}), {f32({1}, {0.1})});
  EXPECT_EQ(r[0].get_double(0), 0.0);
}

TEST(InterpGraph, OutputsMayRepeatAndNameInputsAndConstants) {
  GraphBuilder b;
  const auto x = b.input("x", DType::Float32, {2});
  const auto c = b.constant("c", f32({2}, {10, 20}));
  const auto y = b.node("y", Op::Add, {V(x), V(c)}, DType::Float32, {2});
  const auto r = interpret(b.finish({y, x, c, y}), {f32({2}, {1, 2})});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(doubles(r[0]), (std::vector<double>{11, 22}));
  EXPECT_EQ(doubles(r[1]), (std::vector<double>{1, 2}));
  EXPECT_EQ(doubles(r[2]), (std::vector<double>{10, 20}));
  EXPECT_EQ(doubles(r[3]), (std::vector<double>{11, 22}));
}

}  // namespace
}  // namespace stax::interp::testing

// Elementwise ops, where, to and the creation ops, as JSON graphs with literal expected values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "interp_json_util.h"
#include "stax/support/error.h"

namespace stax::interp::testing {
namespace {

const double kNan = std::nan("");
const double kInf = std::numeric_limits<double>::infinity();

struct UnaryCase {
  const char* op;
  const char* extra;  // attributes, "" or ", \"key\": value"
  const char* data;   // two float64 inputs
  std::vector<double> expected;
};

TEST(InterpJsonUnary, FloatMathInFloat64) {
  const std::vector<UnaryCase> cases = {
      {"exp", "", "[0, 1]", {1, 2.718281828459045}},
      {"exp2", "", "[3, 0.5]", {8, 1.4142135623730951}},
      {"expm1", "", "[0, 1e-10]", {0, 1.00000000005e-10}},
      {"log", "", "[1, 2]", {0, 0.6931471805599453}},
      {"log", "", "[0, -1]", {-kInf, kNan}},
      {"log2", "", "[8, 0.5]", {3, -1}},
      {"log10", "", "[1000, 0.01]", {3, -2}},
      {"log1p", "", "[0, 1e-10]", {0, 9.999999999500001e-11}},
      {"sqrt", "", "[4, 2]", {2, 1.4142135623730951}},
      {"sqrt", "", "[-1, \"inf\"]", {kNan, kInf}},
      {"rsqrt", "", "[4, 0]", {0.5, kInf}},
      {"reciprocal", "", "[4, -0.5]", {0.25, -2}},
      {"sin", "", "[0, 1]", {0, 0.8414709848078965}},
      {"cos", "", "[0, 1]", {1, 0.5403023058681398}},
      {"tan", "", "[0, 1]", {0, 1.5574077246549023}},
      {"asin", "", "[0.5, 2]", {0.5235987755982989, kNan}},
      {"acos", "", "[0.5, 1]", {1.0471975511965979, 0}},
      {"atan", "", "[1, \"-inf\"]", {0.7853981633974483, -1.5707963267948966}},
      {"sinh", "", "[0, 1]", {0, 1.1752011936438014}},
      {"cosh", "", "[0, 1]", {1, 1.5430806348152437}},
      {"tanh", "", "[1, \"inf\"]", {0.7615941559557649, 1}},
      {"sigmoid", "", "[0, 2]", {0.5, 0.8807970779778823}},
      {"sigmoid", "", "[\"-inf\", \"inf\"]", {0, 1}},
      {"silu", "", "[2, -1]", {1.7615941559557646, -0.2689414213699951}},
      {"erf", "", "[0, 1]", {0, 0.8427007929497149}},
      {"erfc", "", "[1, 3]", {0.15729920705028513, 2.2090496998585438e-05}},
      {"gelu", "", "[1, -1]", {0.8413447460685429, -0.15865525393145707}},
      {"gelu", ", \"approximate\": \"none\"", "[1, 0]", {0.8413447460685429, 0}},
      {"gelu", ", \"approximate\": \"tanh\"", "[1, -1]", {0.8411919906082768, -0.15880800939172324}},
      {"leaky_relu", "", "[-2, 3]", {-0.02, 3}},
      {"leaky_relu", ", \"negative_slope\": 0.5", "[-2, 3]", {-1, 3}},
      {"neg", "", "[1.5, -2]", {-1.5, 2}},
      {"abs", "", "[-1.5, 2]", {1.5, 2}},
      {"relu", "", "[-1.5, \"nan\"]", {0, kNan}},
      {"sign", "", "[-1.5, \"nan\"]", {-1, 0}},
  };
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(std::string(c.op) + c.extra + " of " + c.data);
    const Tensor y = eval_y({constant("x", "float64", "[2]", c.data)},
                           std::string(R"({"name": "y", "op": ")") + c.op + R"(", "args": ["x"])" + c.extra + "}");
    EXPECT_EQ(y.dtype(), DType::Float64);
    EXPECT_TRUE(floats_near(y, c.expected, 1e-15));
  }
}

TEST(InterpJsonUnary, FloatMathOnIntsAndBoolsIsFloat32) {
  const Tensor e = eval_y({constant("x", "int32", "[2]", "[0, 1]")}, R"({"name": "y", "op": "exp", "args": ["x"]})");
  EXPECT_EQ(e.dtype(), DType::Float32);
  EXPECT_EQ(doubles(e), (std::vector<double>{1, 2.7182817459106445}));
  const Tensor s = eval_y({constant("x", "bool", "[2]", "[true, false]")}, R"({"name": "y", "op": "sqrt", "args": ["x"]})");
  EXPECT_EQ(s.dtype(), DType::Float32);
  EXPECT_EQ(doubles(s), (std::vector<double>{1, 0}));
  const Tensor f = eval_y({constant("x", "float32", "[1]", "[2]")}, R"({"name": "y", "op": "sigmoid", "args": ["x"]})");
  EXPECT_EQ(doubles(f), (std::vector<double>{0.8807970881462097}));
}

TEST(InterpJsonUnary, RoundingFamilies) {
  const std::string x = constant("x", "float32", "[5]", "[-1.5, -0.5, 0.5, 1.5, 2.5]");
  auto run = [&](const char* op) {
    return eval_y({x}, std::string(R"({"name": "y", "op": ")") + op + R"(", "args": ["x"]})");
  };
  EXPECT_TRUE(floats_near(run("floor"), {-2, -1, 0, 1, 2}));
  EXPECT_TRUE(floats_near(run("ceil"), {-1, -0.0, 1, 2, 3}));
  EXPECT_TRUE(floats_near(run("round"), {-2, -0.0, 0, 2, 2}));
  EXPECT_TRUE(floats_near(run("trunc"), {-1, -0.0, 0, 1, 2}));
  for (const char* op : {"floor", "ceil", "round", "trunc"}) {
    const Tensor y = eval_y({constant("x", "int64", "[2]", "[-3, 4]")},
                            std::string(R"({"name": "y", "op": ")") + op + R"(", "args": ["x"]})");
    EXPECT_EQ(y.dtype(), DType::Int64) << op;
    EXPECT_EQ(ints(y), (std::vector<int64_t>{-3, 4})) << op;
  }
}

TEST(InterpJsonUnary, Clamp) {
  const std::string x = constant("x", "float32", "[4]", "[-2, 0.5, 3, \"nan\"]");
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "clamp", "args": ["x"], "min": -1, "max": 1})"), {-1, 0.5, 1, kNan}));
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "clamp", "args": ["x"], "min": 0})"), {0, 0.5, 3, kNan}));
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "clamp", "args": ["x"], "max": 0.25})"), {-2, 0.25, 0.25, kNan}));
  // min > max: max wins
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "clamp", "args": ["x"], "min": 3, "max": 1})"), {1, 1, 1, kNan}));
  const std::string xi = constant("x", "int32", "[3]", "[-2, 0, 5]");
  const Tensor ci = eval_y({xi}, R"({"name": "y", "op": "clamp", "args": ["x"], "min": -1, "max": 4})");
  EXPECT_EQ(ci.dtype(), DType::Int32);
  EXPECT_EQ(ints(ci), (std::vector<int64_t>{-1, 0, 4}));
  const Tensor cf = eval_y({xi}, R"({"name": "y", "op": "clamp", "args": ["x"], "min": 0.5})");
  EXPECT_EQ(cf.dtype(), DType::Float32);
  EXPECT_EQ(doubles(cf), (std::vector<double>{0.5, 0.5, 5}));
}

TEST(InterpJsonUnary, LogicalNotBitwiseNotAndPredicates) {
  const std::string xf = constant("x", "float32", "[4]", "[0, \"nan\", \"-inf\", 2]");
  EXPECT_EQ(ints(eval_y({xf}, R"({"name": "y", "op": "logical_not", "args": ["x"]})")), (std::vector<int64_t>{1, 0, 0, 0}));
  EXPECT_EQ(ints(eval_y({xf}, R"({"name": "y", "op": "isnan", "args": ["x"]})")), (std::vector<int64_t>{0, 1, 0, 0}));
  EXPECT_EQ(ints(eval_y({xf}, R"({"name": "y", "op": "isinf", "args": ["x"]})")), (std::vector<int64_t>{0, 0, 1, 0}));
  EXPECT_EQ(ints(eval_y({xf}, R"({"name": "y", "op": "isfinite", "args": ["x"]})")), (std::vector<int64_t>{1, 0, 0, 1}));
  const std::string xi = constant("x", "int64", "[2]", "[0, -9223372036854775808]");
  EXPECT_EQ(ints(eval_y({xi}, R"({"name": "y", "op": "isfinite", "args": ["x"]})")), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(ints(eval_y({xi}, R"({"name": "y", "op": "logical_not", "args": ["x"]})")), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ints(eval_y({xi}, R"({"name": "y", "op": "bitwise_not", "args": ["x"]})")),
            (std::vector<int64_t>{-1, 9223372036854775807}));
  const std::string xb = constant("x", "bool", "[2]", "[true, false]");
  const Tensor nb = eval_y({xb}, R"({"name": "y", "op": "bitwise_not", "args": ["x"]})");
  EXPECT_EQ(nb.dtype(), DType::Bool);
  EXPECT_EQ(ints(nb), (std::vector<int64_t>{0, 1}));
}

TEST(InterpJsonBinary, BroadcastingScalarsAndInlineNodes) {
  const std::vector<std::string> cs = {constant("x", "float32", "[2, 1]", "[1, 2]"),
                                       constant("v", "float32", "[3]", "[10, 20, 30]")};
  EXPECT_EQ(doubles(eval_y(cs, R"({"name": "y", "op": "add", "args": ["x", "v"]})")),
            (std::vector<double>{11, 21, 31, 12, 22, 32}));
  EXPECT_EQ(doubles(eval_y(cs, R"({"name": "y", "op": "sub", "args": [10, "x"]})")), (std::vector<double>{9, 8}));
  EXPECT_EQ(doubles(eval_y(cs, R"({"name": "y", "op": "mul", "args": ["v", {"op": "neg", "args": ["x"]}]})")),
            (std::vector<double>{-10, -20, -30, -20, -40, -60}));
  EXPECT_EQ(doubles(eval_y(cs, R"({"name": "y", "op": "div", "args": ["x", 4]})")), (std::vector<double>{0.25, 0.5}));
  const Tensor a2 = eval_y({constant("a", "float64", "[3]", "[1, -1, 0]")}, R"({"name": "y", "op": "atan2", "args": ["a", -1]})");
  EXPECT_TRUE(floats_near(a2, {2.356194490192345, -2.356194490192345, 3.141592653589793}, 1e-15));
}

TEST(InterpJsonBinary, EveryDtypeOfAddAndMul) {
  EXPECT_EQ(doubles(eval_y({constant("x", "float64", "[2]", "[0.5, 1e300]")}, R"({"name": "y", "op": "mul", "args": ["x", "x"]})")),
            (std::vector<double>{0.25, kInf}));
  EXPECT_EQ(ints(eval_y({constant("x", "int32", "[2]", "[2147483647, 7]")}, R"({"name": "y", "op": "add", "args": ["x", 1]})")),
            (std::vector<int64_t>{-2147483648, 8}));
  EXPECT_EQ(ints(eval_y({constant("x", "int64", "[2]", "[4611686018427387904, 3]")}, R"({"name": "y", "op": "mul", "args": ["x", 2]})")),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), 6}));
  const std::vector<std::string> bs = {constant("p", "bool", "[4]", "[false, false, true, true]"),
                                       constant("q", "bool", "[4]", "[false, true, false, true]")};
  const Tensor add = eval_y(bs, R"({"name": "y", "op": "add", "args": ["p", "q"]})");
  EXPECT_EQ(add.dtype(), DType::Bool);
  EXPECT_EQ(ints(add), (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(ints(eval_y(bs, R"({"name": "y", "op": "mul", "args": ["p", "q"]})")), (std::vector<int64_t>{0, 0, 0, 1}));
  const Tensor bi = eval_y(bs, R"({"name": "y", "op": "add", "args": ["p", 2]})");
  EXPECT_EQ(bi.dtype(), DType::Int64);
  EXPECT_EQ(ints(bi), (std::vector<int64_t>{2, 2, 3, 3}));
}

TEST(InterpJsonBinary, IntegerDivisionRemainderAndPow) {
  const std::vector<std::string> cs = {constant("a", "int32", "[4]", "[7, -7, 7, -7]"),
                                       constant("b", "int32", "[4]", "[2, 2, -2, -2]")};
  EXPECT_EQ(ints(eval_y(cs, R"({"name": "y", "op": "div", "args": ["a", "b"], "rounding_mode": "trunc"})")),
            (std::vector<int64_t>{3, -3, -3, 3}));
  EXPECT_EQ(ints(eval_y(cs, R"({"name": "y", "op": "div", "args": ["a", "b"], "rounding_mode": "floor"})")),
            (std::vector<int64_t>{3, -4, -4, 3}));
  EXPECT_EQ(ints(eval_y(cs, R"({"name": "y", "op": "remainder", "args": ["a", 3]})")), (std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(ints(eval_y(cs, R"({"name": "y", "op": "remainder", "args": ["a", -3]})")), (std::vector<int64_t>{-2, -1, -2, -1}));
  const Tensor q = eval_y(cs, R"({"name": "y", "op": "div", "args": ["a", "b"]})");
  EXPECT_EQ(q.dtype(), DType::Float32);
  EXPECT_EQ(doubles(q), (std::vector<double>{3.5, -3.5, -3.5, 3.5}));
  EXPECT_EQ(ints(eval_y(cs, R"({"name": "y", "op": "pow", "args": ["b", 3]})")), (std::vector<int64_t>{8, 8, -8, -8}));
  const Tensor pf = eval_y(cs, R"({"name": "y", "op": "pow", "args": ["b", 0.5]})");
  EXPECT_EQ(pf.dtype(), DType::Float32);
  EXPECT_TRUE(floats_near(pf, {1.4142135623730951, 1.4142135623730951, kNan, kNan}));
  const Tensor neg = eval_y({constant("a", "int64", "[4]", "[1, -1, -1, 3]"), constant("e", "int64", "[4]", "[-5, -5, -4, -1]")},
                            R"({"name": "y", "op": "pow", "args": ["a", "e"]})");
  EXPECT_EQ(ints(neg), (std::vector<int64_t>{1, -1, 1, 0}));
  EXPECT_EQ(ints(eval_y({constant("e", "int32", "[3]", "[0, 3, 10]")}, R"({"name": "y", "op": "pow", "args": [2, "e"]})")),
            (std::vector<int64_t>{1, 8, 1024}));
}

// Expected values are PyTorch's: torch.pow(x, e) of x = [-inf, -0.0, 4, inf, nan]. A literal
// exponent 0.5 or -0.5 is sqrt or rsqrt there, unlike std::pow at -inf and -0; other literal
// exponents and tensor exponents are std::pow.
TEST(InterpJsonBinary, PowByLiteralHalfIsSqrtAsInPyTorch) {
  const std::vector<std::string> cs = {
      constant("x", "float32", "[5]", R"(["-inf", -0.0, 4, "inf", "nan"])"),
      constant("h", "float32", "[5]", "[0.5, 0.5, 0.5, 0.5, 0.5]")};
  const Tensor s = eval_y(cs, R"({"name": "y", "op": "pow", "args": ["x", 0.5]})");
  EXPECT_TRUE(floats_near(s, {kNan, -0.0, 2, kInf, kNan}));
  EXPECT_TRUE(std::signbit(s.get_double(1)));
  const Tensor r = eval_y(cs, R"({"name": "y", "op": "pow", "args": ["x", -0.5]})");
  EXPECT_TRUE(floats_near(r, {kNan, -kInf, 0.5, 0, kNan}));
  EXPECT_TRUE(floats_near(eval_y(cs, R"({"name": "y", "op": "pow", "args": ["x", 0.25]})"),
                          {kInf, 0, 1.4142135381698608, kInf, kNan}));
  EXPECT_TRUE(floats_near(eval_y(cs, R"({"name": "y", "op": "pow", "args": ["x", "h"]})"),
                          {kInf, 0, 2, kInf, kNan}));
  const Tensor d = eval_y({constant("x", "float64", "[1]", R"(["-inf"])")},
                          R"({"name": "y", "op": "pow", "args": ["x", 0.5]})");
  EXPECT_TRUE(floats_near(d, {kNan}));
}

TEST(InterpJsonBinary, DivisionByZeroNamesTheNode) {
  const std::vector<std::string> cs = {constant("a", "int64", "[2]", "[1, 2]"), constant("z", "int64", "[2]", "[1, 0]")};
  try {
    eval_y(cs, R"({"name": "y", "op": "remainder", "args": ["a", "z"]})");
    FAIL() << "no error";
  } catch (const RuntimeFailure& e) {
    EXPECT_STREQ(e.what(), "node 'y' (remainder): integer division by zero");
  }
  EXPECT_THROW(eval_y(cs, R"({"name": "y", "op": "div", "args": ["a", "z"], "rounding_mode": "floor"})"), RuntimeFailure);
  const Tensor f = eval_y({constant("a", "float32", "[3]", "[1, -1, 0]")}, R"({"name": "y", "op": "div", "args": ["a", 0.0]})");
  EXPECT_TRUE(floats_near(f, {kInf, -kInf, kNan}));
  const Tensor r = eval_y({constant("a", "float32", "[2]", "[5.5, -5.5]")}, R"({"name": "y", "op": "remainder", "args": ["a", 2]})");
  EXPECT_TRUE(floats_near(r, {1.5, 0.5}));
}

TEST(InterpJsonBinary, MaximumMinimumAndBitwise) {
  const std::vector<std::string> cs = {constant("a", "float32", "[3]", "[1, \"nan\", -2]"),
                                       constant("b", "float32", "[3]", "[0, 5, -1]")};
  EXPECT_TRUE(floats_near(eval_y(cs, R"({"name": "y", "op": "maximum", "args": ["a", "b"]})"), {1, kNan, -1}));
  EXPECT_TRUE(floats_near(eval_y(cs, R"({"name": "y", "op": "minimum", "args": ["a", "b"]})"), {0, kNan, -2}));
  const std::vector<std::string> bs = {constant("p", "bool", "[4]", "[false, false, true, true]"),
                                       constant("q", "bool", "[4]", "[false, true, false, true]")};
  const Tensor bmax = eval_y(bs, R"({"name": "y", "op": "maximum", "args": ["p", "q"]})");
  EXPECT_EQ(bmax.dtype(), DType::Bool);
  EXPECT_EQ(ints(bmax), (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(ints(eval_y(bs, R"({"name": "y", "op": "minimum", "args": ["p", "q"]})")), (std::vector<int64_t>{0, 0, 0, 1}));
  const std::vector<std::string> is = {constant("a", "int32", "[3]", "[12, -1, 5]"),
                                       constant("b", "int64", "[3]", "[10, 6, -3]")};
  const Tensor band = eval_y(is, R"({"name": "y", "op": "bitwise_and", "args": ["a", "b"]})");
  EXPECT_EQ(band.dtype(), DType::Int64);
  EXPECT_EQ(ints(band), (std::vector<int64_t>{8, 6, 5}));
  EXPECT_EQ(ints(eval_y(is, R"({"name": "y", "op": "bitwise_or", "args": ["a", "b"]})")), (std::vector<int64_t>{14, -1, -3}));
  EXPECT_EQ(ints(eval_y(is, R"({"name": "y", "op": "bitwise_xor", "args": ["a", "b"]})")), (std::vector<int64_t>{6, -7, -8}));
  EXPECT_EQ(ints(eval_y(is, R"({"name": "y", "op": "maximum", "args": ["a", "b"]})")), (std::vector<int64_t>{12, 6, 5}));
}

TEST(InterpJsonCompare, ComparisonsAndLogic) {
  const std::vector<std::string> cs = {constant("x", "float32", "[3]", "[1, 2, \"nan\"]")};
  const std::vector<std::pair<const char*, std::vector<int64_t>>> expect = {
      {"eq", {0, 1, 0}}, {"ne", {1, 0, 1}}, {"lt", {1, 0, 0}}, {"le", {1, 1, 0}}, {"gt", {0, 0, 0}}, {"ge", {0, 1, 0}}};
  for (const auto& [op, want] : expect) {
    const Tensor y = eval_y(cs, std::string(R"({"name": "y", "op": ")") + op + R"(", "args": ["x", 2]})");
    EXPECT_EQ(y.dtype(), DType::Bool) << op;
    EXPECT_EQ(ints(y), want) << op;
  }
  // int32 vs a float scalar compares in float32
  EXPECT_EQ(ints(eval_y({constant("i", "int32", "[2]", "[1, 2]")}, R"({"name": "y", "op": "lt", "args": ["i", 1.5]})")),
            (std::vector<int64_t>{1, 0}));
  const std::vector<std::string> ls = {constant("p", "float32", "[4]", "[0, 0, \"nan\", 3]"),
                                       constant("q", "int32", "[4]", "[0, 7, 0, -1]")};
  EXPECT_EQ(ints(eval_y(ls, R"({"name": "y", "op": "logical_and", "args": ["p", "q"]})")), (std::vector<int64_t>{0, 0, 0, 1}));
  EXPECT_EQ(ints(eval_y(ls, R"({"name": "y", "op": "logical_or", "args": ["p", "q"]})")), (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(ints(eval_y(ls, R"({"name": "y", "op": "logical_xor", "args": ["p", "q"]})")), (std::vector<int64_t>{0, 1, 1, 0}));
}

TEST(InterpJsonWhereTo, WhereAndCasts) {
  const std::vector<std::string> cs = {constant("c", "bool", "[3]", "[true, false, true]"),
                                       constant("x", "int32", "[3]", "[1, 2, 3]"),
                                       constant("f", "float32", "[2]", "[2.7, -2.7]")};
  const Tensor w = eval_y(cs, R"({"name": "y", "op": "where", "args": ["c", "x", 2.5]})");
  EXPECT_EQ(w.dtype(), DType::Float32);
  EXPECT_EQ(doubles(w), (std::vector<double>{1, 2.5, 3}));
  const Tensor wi = eval_y(cs, R"({"name": "y", "op": "where", "args": ["c", "x", -1]})");
  EXPECT_EQ(wi.dtype(), DType::Int32);
  EXPECT_EQ(ints(wi), (std::vector<int64_t>{1, -1, 3}));
  EXPECT_EQ(ints(eval_y(cs, R"({"name": "y", "op": "where", "args": [{"op": "gt", "args": ["x", 1]}, "x", 0]})")),
            (std::vector<int64_t>{0, 2, 3}));
  const Tensor wb = eval_y({constant("c", "bool", "[3]", "[true, false, true]"), constant("a", "float64", "[2, 1]", "[1, 2]")},
                           R"({"name": "y", "op": "where", "args": ["c", "a", -1]})");
  EXPECT_EQ(wb.shape(), (Shape{2, 3}));
  EXPECT_EQ(doubles(wb), (std::vector<double>{1, -1, 1, 2, -1, 2}));
  EXPECT_EQ(doubles(eval_y(cs, R"({"name": "y", "op": "where", "args": [false, "f", 0.5]})")), (std::vector<double>{0.5, 0.5}));
  const Tensor ti = eval_y(cs, R"({"name": "y", "op": "to", "args": ["f"], "dtype": "int32"})");
  EXPECT_EQ(ti.dtype(), DType::Int32);
  EXPECT_EQ(ints(ti), (std::vector<int64_t>{2, -2}));
  const Tensor tf = eval_y(cs, R"({"name": "y", "op": "to", "args": ["c"], "dtype": "float64"})");
  EXPECT_EQ(doubles(tf), (std::vector<double>{1, 0, 1}));
  const Tensor tb = eval_y(cs, R"({"name": "y", "op": "to", "args": ["x"], "dtype": "bool"})");
  EXPECT_EQ(ints(tb), (std::vector<int64_t>{1, 1, 1}));
}

TEST(InterpJsonCreation, Full) {
  const Tensor f = eval_y({}, R"({"name": "y", "op": "full", "shape": [2, 2], "value": 1.5})");
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(f.shape(), (Shape{2, 2}));
  EXPECT_EQ(doubles(f), (std::vector<double>{1.5, 1.5, 1.5, 1.5}));
  const Tensor i = eval_y({}, R"({"name": "y", "op": "full", "shape": [3], "value": 7})");
  EXPECT_EQ(i.dtype(), DType::Int64);
  EXPECT_EQ(ints(i), (std::vector<int64_t>{7, 7, 7}));
  const Tensor b = eval_y({}, R"({"name": "y", "op": "full", "shape": [], "value": true})");
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(ints(b), (std::vector<int64_t>{1}));
  const Tensor d = eval_y({}, R"({"name": "y", "op": "full", "shape": [1], "value": "-inf", "dtype": "float64"})");
  EXPECT_EQ(doubles(d), (std::vector<double>{-kInf}));
  const Tensor c = eval_y({}, R"({"name": "y", "op": "full", "shape": [1], "value": 3, "dtype": "float32"})");
  EXPECT_EQ(c.dtype(), DType::Float32);
  EXPECT_EQ(doubles(c), (std::vector<double>{3}));
}

TEST(InterpJsonCreation, Arange) {
  const Tensor a = eval_y({}, R"({"name": "y", "op": "arange", "end": 5})");
  EXPECT_EQ(a.dtype(), DType::Int64);
  EXPECT_EQ(ints(a), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(ints(eval_y({}, R"({"name": "y", "op": "arange", "start": 5, "end": 0, "step": -2})")), (std::vector<int64_t>{5, 3, 1}));
  const Tensor f = eval_y({}, R"({"name": "y", "op": "arange", "start": 1, "end": 2, "step": 0.25})");
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(doubles(f), (std::vector<double>{1, 1.25, 1.5, 1.75}));
  // element i is start + i * step (in double, then rounded): 0.1 * 3 = 0.30000000000000004
  const Tensor t = eval_y({}, R"({"name": "y", "op": "arange", "end": 1, "step": 0.1, "dtype": "float64"})");
  ASSERT_EQ(t.numel(), 10);
  EXPECT_EQ(t.get_double(3), 0.30000000000000004);
  EXPECT_EQ(t.get_double(9), 0.9);
  const Tensor i32 = eval_y({}, R"({"name": "y", "op": "arange", "start": -3, "end": 3, "step": 2, "dtype": "int32"})");
  EXPECT_EQ(i32.dtype(), DType::Int32);
  EXPECT_EQ(ints(i32), (std::vector<int64_t>{-3, -1, 1}));
}

TEST(InterpJsonZeroDim, ZeroDimTensorsPromoteAndCompute) {
  const std::vector<std::string> cs = {constant("s", "int64", "[]", "[5]"), constant("x", "int32", "[2]", "[1, 2]"),
                                       constant("d", "float64", "[]", "[0.5]")};
  const Tensor a = eval_y(cs, R"({"name": "y", "op": "add", "args": ["x", "s"]})");
  EXPECT_EQ(a.dtype(), DType::Int32);
  EXPECT_EQ(ints(a), (std::vector<int64_t>{6, 7}));
  const Tensor m = eval_y(cs, R"({"name": "y", "op": "mul", "args": ["x", "d"]})");
  EXPECT_EQ(m.dtype(), DType::Float64);
  EXPECT_EQ(doubles(m), (std::vector<double>{0.5, 1}));
  const Tensor z = eval_y(cs, R"({"name": "y", "op": "mul", "args": ["s", "s"]})");
  EXPECT_EQ(z.shape(), Shape{});
  EXPECT_EQ(ints(z), (std::vector<int64_t>{25}));
}

}  // namespace
}  // namespace stax::interp::testing

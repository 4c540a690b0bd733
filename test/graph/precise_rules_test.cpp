// A test per bullet of graph-format.md "Precise rules".
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "graph_test_util.h"

namespace stax::graph {
namespace {

using testing::doc;
using testing::error_of;
using testing::node_of;
using testing::one_node;
using testing::parse_ok;
using testing::type_of;

std::string unary(std::string_view op) {
  return R"({"op": ")" + std::string(op) + R"(", "args": ["x"]})";
}

// "dtypes per op": float math on int/bool -> float32.
TEST(PreciseRules, FloatMathOnIntOrBoolReturnsFloat32) {
  for (const char* op : {"exp", "log", "sqrt", "rsqrt", "sin", "sigmoid", "erf", "tanh",
                         "reciprocal", "exp2", "expm1", "log1p", "atan", "erfc"}) {
    EXPECT_EQ(type_of("x:int32[3]", unary(op)), "float32[3]") << op;
    EXPECT_EQ(type_of("x:int64[3]", unary(op)), "float32[3]") << op;
    EXPECT_EQ(type_of("x:bool[3]", unary(op)), "float32[3]") << op;
    EXPECT_EQ(type_of("x:float64[3]", unary(op)), "float64[3]") << op;
  }
  EXPECT_EQ(type_of("a:int32[3] b:int32[3]", R"({"op": "div", "args": ["a", "b"]})"), "float32[3]");
  EXPECT_EQ(type_of("a:int64[3]", R"({"op": "div", "args": ["a", 2]})"), "float32[3]");
  EXPECT_EQ(type_of("a:bool[3] b:bool[3]", R"({"op": "atan2", "args": ["a", "b"]})"), "float32[3]");
  EXPECT_EQ(type_of("a:int32[3] b:float64[]", R"({"op": "div", "args": ["a", "b"]})"), "float64[3]");
}

TEST(PreciseRules, BoolRejectedBySignedOps) {
  for (const char* op : {"neg", "abs", "relu", "sign", "ceil", "floor", "round", "trunc"}) {
    EXPECT_EQ(type_of("x:bool[3]", unary(op)), std::string("error: op '") + op + "' does not accept bool");
    EXPECT_EQ(type_of("x:int32[3]", unary(op)), "int32[3]") << op;
    EXPECT_EQ(type_of("x:float64[3]", unary(op)), "float64[3]") << op;
  }
  EXPECT_GRAPH_ERROR(one_node("a:bool[3] b:int32[3]", R"({"op": "sub", "args": ["a", "b"]})"),
                     "nodes[0].args[0]", "op 'sub' does not accept bool");
  EXPECT_GRAPH_ERROR(one_node("a:int32[3]", R"({"op": "sub", "args": ["a", true]})"),
                     "nodes[0].args[1]", "op 'sub' does not accept bool");
}

TEST(PreciseRules, FloatOnlyOpsRejectIntAndBool) {
  const char* ops[] = {
      R"({"op": "gelu", "args": ["x"]})",
      R"({"op": "silu", "args": ["x"]})",
      R"({"op": "leaky_relu", "args": ["x"]})",
      R"({"op": "softmax", "args": ["x"], "dim": 0})",
      R"({"op": "log_softmax", "args": ["x"], "dim": 0})",
      R"({"op": "layer_norm", "args": ["x"], "normalized_shape": 3})",
      R"({"op": "rms_norm", "args": ["x"], "normalized_shape": [3]})",
      R"({"op": "mean", "args": ["x"]})",
      R"({"op": "var", "args": ["x"]})",
      R"({"op": "std", "args": ["x"]})",
      R"({"op": "logsumexp", "args": ["x"], "dim": 0})",
  };
  for (const char* body : ops) {
    EXPECT_NE(type_of("x:int32[3]", body).find("needs a floating-point tensor, got int32"),
              std::string::npos) << body;
    EXPECT_NE(type_of("x:bool[3]", body).find("needs a floating-point tensor, got bool"),
              std::string::npos) << body;
    EXPECT_EQ(type_of("x:float32[3]", body).rfind("float32", 0), 0u) << body;
  }
}

TEST(PreciseRules, BitwiseRejectsFloats) {
  EXPECT_EQ(type_of("a:int32[3] b:int64[3]", R"({"op": "bitwise_xor", "args": ["a", "b"]})"), "int64[3]");
  EXPECT_EQ(type_of("a:bool[3] b:bool[3]", R"({"op": "bitwise_or", "args": ["a", "b"]})"), "bool[3]");
  EXPECT_EQ(type_of("x:float32[3]", unary("bitwise_not")),
            "error: op 'bitwise_not' needs an integer or bool tensor, got float32");
  EXPECT_GRAPH_ERROR(one_node("a:int32[3]", R"({"op": "bitwise_and", "args": ["a", 1.5]})"),
                     "nodes[0].args[1]", "needs integer or bool operands, got the float 1.5");
}

TEST(PreciseRules, SumProdCumsumCumprodOfBoolOrInt32ReturnInt64) {
  for (const char* op : {"sum", "prod"}) {
    std::string body = R"({"op": ")" + std::string(op) + R"(", "args": ["x"]})";
    EXPECT_EQ(type_of("x:bool[3]", body), "int64[]") << op;
    EXPECT_EQ(type_of("x:int32[3]", body), "int64[]") << op;
    EXPECT_EQ(type_of("x:int64[3]", body), "int64[]") << op;
    EXPECT_EQ(type_of("x:float32[3]", body), "float32[]") << op;
  }
  for (const char* op : {"cumsum", "cumprod"}) {
    std::string body = R"({"op": ")" + std::string(op) + R"(", "args": ["x"], "dim": 0})";
    EXPECT_EQ(type_of("x:bool[3]", body), "int64[3]") << op;
    EXPECT_EQ(type_of("x:int32[3]", body), "int64[3]") << op;
    EXPECT_EQ(type_of("x:float64[3]", body), "float64[3]") << op;
  }
}

// "dim of a reduction": int or non-empty list; absent or null: all dims; [] an error.
TEST(PreciseRules, ReductionDim) {
  Value a = node_of("x:float32[2,3,4]", R"({"op": "sum", "args": ["x"], "dim": [-1, 0]})");
  EXPECT_EQ(a.attrs.dims, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(a.shape, (Shape{3}));
  Value b = node_of("x:float32[2,3,4]", R"({"op": "amax", "args": ["x"], "dim": null, "keepdim": true})");
  EXPECT_EQ(b.attrs.dims, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(b.shape, (Shape{1, 1, 1}));
  for (const char* op : {"sum", "mean", "prod", "amax", "amin", "any", "all", "var", "std", "logsumexp"}) {
    std::string body = R"({"op": ")" + std::string(op) + R"(", "args": ["x"], "dim": [0, 2]})";
    std::string t = type_of("x:float32[2,3,4]", body);
    EXPECT_NE(t.find("[3]"), std::string::npos) << op << ": " << t;
    body = R"({"op": ")" + std::string(op) + R"(", "args": ["x"], "dim": []})";
    EXPECT_NE(type_of("x:float32[2,3,4]", body).find("dim: [] is not allowed"), std::string::npos) << op;
  }
  EXPECT_EQ(type_of("x:float32[2,3]", R"({"op": "argmax", "args": ["x"], "dim": [1]})"),
            "error: expected one integer dim, got a list");
  EXPECT_EQ(type_of("x:float32[2,3]", R"({"op": "logsumexp", "args": ["x"]})"), "float32[]");
  EXPECT_EQ(type_of("x:float32[2,3]", R"({"op": "sum", "args": ["x"], "dim": [1, -1]})"),
            "error: dim 1 appears more than once");
  Value v = node_of("x:float64[5,3]", R"({"op": "var", "args": ["x"], "dim": 0, "correction": 0})");
  EXPECT_EQ(v.attrs.correction, 0.0);
  Value s = node_of("x:float64[5,3]", R"({"op": "std", "args": ["x"], "dim": 0, "correction": 0.5})");
  EXPECT_EQ(s.attrs.correction, 0.5);
  EXPECT_EQ(node_of("x:float64[5,3]", R"({"op": "std", "args": ["x"]})").attrs.correction, 1.0);
  EXPECT_EQ(type_of("x:float64[5]", R"({"op": "var", "args": ["x"], "correction": true})"),
            "error: expected an int or float, got true");
}

// "Attributes": required ones, null for absent, clamp, normalized_shape as int or list.
TEST(PreciseRules, Attributes) {
  EXPECT_EQ(type_of("x:float32[2,3]", R"({"op": "transpose", "args": ["x"], "dim0": 0})"),
            "error: missing key 'dim1'");
  EXPECT_EQ(type_of("x:float32[2,3]", R"({"op": "cumsum", "args": ["x"], "dim": null})"),
            "error: missing key 'dim'");
  Value g = node_of("x:float32[2]", R"({"op": "gelu", "args": ["x"], "approximate": null})");
  EXPECT_FALSE(g.attrs.approximate_tanh);
  EXPECT_EQ(type_of("x:float32[2]", R"({"op": "clamp", "args": ["x"]})"),
            "error: clamp needs 'min' or 'max'");
  EXPECT_EQ(type_of("x:int32[2]", R"({"op": "clamp", "args": ["x"], "min": 0.5})"), "float32[2]");
  EXPECT_EQ(type_of("x:int32[2]", R"({"op": "clamp", "args": ["x"], "min": 0, "max": 3})"), "int32[2]");
  EXPECT_EQ(type_of("x:float64[2]", R"({"op": "clamp", "args": ["x"], "max": 3})"), "float64[2]");
  Value c = node_of("x:int32[2]", R"({"op": "clamp", "args": ["x"], "min": -1, "max": null})");
  ASSERT_TRUE(c.attrs.min.has_value());
  EXPECT_EQ(*c.attrs.min, Scalar::of_int(-1));
  EXPECT_FALSE(c.attrs.max.has_value());
  Value ln = node_of("x:float32[2,3,4]", R"({"op": "layer_norm", "args": ["x"], "normalized_shape": 4})");
  EXPECT_EQ(ln.attrs.normalized_shape, (Shape{4}));
  EXPECT_EQ(ln.attrs.eps, 1e-5);
  Value rn = node_of("x:float32[2,3,4]", R"({"op": "rms_norm", "args": ["x"], "normalized_shape": [3, 4]})");
  EXPECT_EQ(rn.attrs.normalized_shape, (Shape{3, 4}));
  EXPECT_EQ(type_of("x:float32[2,3,4]", R"({"op": "layer_norm", "args": ["x"], "normalized_shape": [3]})"),
            "error: normalized_shape [3] does not match the trailing dims of [2, 3, 4]");
}

// "arange": dtype, int dtype needs ints, length ceil((end - start) / step), element i.
TEST(PreciseRules, Arange) {
  EXPECT_EQ(type_of("", R"({"op": "arange", "end": 5})"), "int64[5]");
  EXPECT_EQ(type_of("", R"({"op": "arange", "start": 1, "end": 10, "step": 3})"), "int64[3]");
  EXPECT_EQ(type_of("", R"({"op": "arange", "start": 0, "end": 1, "step": 0.3})"), "float32[4]");
  EXPECT_EQ(type_of("", R"({"op": "arange", "end": 2.5})"), "float32[3]");
  EXPECT_EQ(type_of("", R"({"op": "arange", "start": 10, "end": 0, "step": -3})"), "int64[4]");
  EXPECT_EQ(type_of("", R"({"op": "arange", "end": 5, "dtype": "float64"})"), "float64[5]");
  EXPECT_EQ(type_of("", R"({"op": "arange", "end": 5, "dtype": "int32"})"), "int32[5]");
  EXPECT_EQ(type_of("", R"({"op": "arange", "end": 5.0, "dtype": "int32"})"),
            "error: arange with dtype int32 needs int start, end and step");
  EXPECT_EQ(type_of("", R"({"op": "arange", "end": 5, "step": 0})"), "error: arange step must be nonzero");
  EXPECT_NE(type_of("", R"({"op": "arange", "start": 3, "end": 5, "step": -1})").find("is empty"),
            std::string::npos);
  EXPECT_EQ(type_of("", R"({"op": "arange", "end": 3000000000, "dtype": "int32"})"),
            "error: arange values leave the range of int32");
  Value a = node_of("", R"({"op": "arange", "start": 1, "end": 10, "step": 3})");
  EXPECT_EQ(a.attrs.arange_start, Scalar::of_int(1));
  EXPECT_EQ(a.attrs.arange_step, Scalar::of_int(3));
  EXPECT_EQ(a.attrs.dtype, DType::Int64);
}

// "rms_norm": PyTorch 2.4's formula, eps by default the machine epsilon of x's dtype.
TEST(PreciseRules, RmsNormEpsDefault) {
  EXPECT_EQ(node_of("x:float32[2,4]", R"({"op": "rms_norm", "args": ["x"], "normalized_shape": 4})").attrs.eps,
            1.1920928955078125e-07);
  EXPECT_EQ(node_of("x:float64[2,4]", R"({"op": "rms_norm", "args": ["x"], "normalized_shape": 4})").attrs.eps,
            2.220446049250313e-16);
  EXPECT_EQ(node_of("x:float64[2,4]", R"({"op": "rms_norm", "args": ["x"], "normalized_shape": 4, "eps": 0.001})").attrs.eps,
            0.001);
  // The expansion: x * rsqrt(mean(x * x) + eps) * weight.
  Graph g = expand_composites(parse_ok(doc("x:float32[2,4]",
      R"([{"name": "y", "op": "rms_norm", "args": ["x", "w"], "normalized_shape": 4}])", R"(["y"])",
      R"([{"name": "w", "dtype": "float32", "shape": [4], "fill": 2.0}])")));
  std::string sig = format_signature(g);
  EXPECT_NE(sig.find("y#0: float32[2, 4] = mul(x, x)\n"
                     "y#1: float32[2, 1] = mean(y#0, dim=[1], keepdim=true)\n"
                     "y#2: float32[2, 1] = add(y#1, 1.1920928955078125e-07)\n"
                     "y#3: float32[2, 1] = rsqrt(y#2)\n"
                     "y#4: float32[2, 4] = mul(x, y#3)\n"
                     "y: float32[2, 4] = mul(y#4, w)\n"), std::string::npos) << sig;
}

// "slice": step >= 1; start/end optional, negative and out-of-range as in Python.
TEST(PreciseRules, Slice) {
  struct Case { const char* attrs; int64_t start, end, step, size; };
  const Case cases[] = {
      {R"("dim": 0)", 0, 10, 1, 10},
      {R"("dim": 0, "start": -3)", 7, 10, 1, 3},
      {R"("dim": 0, "start": -30, "end": 4)", 0, 4, 1, 4},
      {R"("dim": 0, "start": 2, "end": 100, "step": 3)", 2, 10, 3, 3},
      {R"("dim": -1, "end": -1, "step": 4)", 0, 9, 4, 3},
      {R"("dim": 0, "start": null, "end": null, "step": null)", 0, 10, 1, 10},
      {R"("dim": 0, "start": 9, "end": 9223372036854775807, "step": 9223372036854775807)", 9, 10, 9223372036854775807, 1},
  };
  for (const Case& c : cases) {
    Value v = node_of("x:float32[10]", std::string(R"({"op": "slice", "args": ["x"], )") + c.attrs + "}");
    EXPECT_EQ(v.attrs.start, c.start) << c.attrs;
    EXPECT_EQ(v.attrs.end, c.end) << c.attrs;
    EXPECT_EQ(v.attrs.step, c.step) << c.attrs;
    EXPECT_EQ(v.shape, (Shape{c.size})) << c.attrs;
  }
  EXPECT_GRAPH_ERROR(one_node("x:float32[10]", R"({"op": "slice", "args": ["x"], "dim": 0, "step": 0})"),
                     "nodes[0].step", "slice step must be >= 1, got 0");
  EXPECT_GRAPH_ERROR(one_node("x:float32[10]", R"({"op": "slice", "args": ["x"], "dim": 0, "step": -1})"),
                     "nodes[0].step", "slice step must be >= 1, got -1");
  EXPECT_GRAPH_ERROR(one_node("x:float32[10]", R"({"op": "slice", "args": ["x"], "dim": 0, "start": 10})"),
                     "nodes[0]", "is empty");
}

// "No zero-size values": slice, full and arange that would be empty are errors.
TEST(PreciseRules, NoZeroSizeValues) {
  EXPECT_NE(type_of("x:float32[3]", R"({"op": "slice", "args": ["x"], "dim": 0, "start": -1, "end": -2})").find("empty"),
            std::string::npos);
  EXPECT_NE(type_of("", R"({"op": "full", "shape": [0], "value": 1})").find("zero-size"), std::string::npos);
  EXPECT_NE(type_of("", R"({"op": "arange", "start": 2, "end": 2})").find("zero-size"), std::string::npos);
  EXPECT_NE(type_of("x:float32[3]", R"({"op": "reshape", "args": ["x"], "shape": [0, -1]})").find("zero-size"),
            std::string::npos);
  EXPECT_NE(type_of("x:float32[1,3]", R"({"op": "expand", "args": ["x"], "shape": [0, 3]})").find("zero-size"),
            std::string::npos);
  EXPECT_GRAPH_ERROR(doc("", "[]", R"(["w"])", R"([{"name": "w", "dtype": "int32", "shape": [2, 0], "fill": 1}])"),
                     "constants[0].shape[1]", "zero-size values are not supported");
}

// "squeeze with dim: [] is an error, like the reductions".
TEST(PreciseRules, SqueezeEmptyDimList) {
  EXPECT_EQ(type_of("x:float32[1,3,1]", R"({"op": "squeeze", "args": ["x"], "dim": []})"),
            "error: dim: [] is not allowed (omit dim, or use null, to mean every dim)");
  EXPECT_EQ(type_of("x:float32[1,3,1]", R"({"op": "squeeze", "args": ["x"], "dim": [0, 2]})"), "float32[3]");
}

// "matmul needs both operands of one dtype; integer matmul is supported".
TEST(PreciseRules, MatmulDtypes) {
  EXPECT_EQ(type_of("a:float32[2,3] b:float64[3,4]", R"({"op": "matmul", "args": ["a", "b"]})"),
            "error: op 'matmul' needs operands of one dtype, got float32 and float64");
  EXPECT_EQ(type_of("a:int32[2,3] b:int32[3,4]", R"({"op": "matmul", "args": ["a", "b"]})"), "int32[2, 4]");
  EXPECT_EQ(type_of("a:int64[2,3] b:int64[3]", R"({"op": "matmul", "args": ["a", "b"]})"), "int64[2]");
  EXPECT_EQ(type_of("a:bool[2,3] b:bool[3,4]", R"({"op": "matmul", "args": ["a", "b"]})"),
            "error: op 'matmul' does not accept bool");
}

// "Run-time behaviour": integer division by zero and INT_MIN / -1 are not graph errors; a
// negative literal exponent on an int tensor is.
TEST(PreciseRules, RunTimeBehaviourAndNegativeIntExponent) {
  EXPECT_EQ(type_of("a:int32[3]", R"({"op": "div", "args": ["a", 0], "rounding_mode": "trunc"})"), "int32[3]");
  EXPECT_EQ(type_of("a:int32[3]", R"({"op": "remainder", "args": ["a", 0]})"), "int32[3]");
  EXPECT_EQ(type_of("a:int32[3]", R"({"op": "div", "args": [-2147483648, "a"], "rounding_mode": "floor"})"), "int32[3]");
  EXPECT_GRAPH_ERROR(one_node("a:int32[3]", R"({"op": "pow", "args": ["a", -2]})"), "nodes[0].args[1]",
                     "integers to negative integer powers are not allowed");
  EXPECT_GRAPH_ERROR(one_node("a:bool[3]", R"({"op": "pow", "args": ["a", -1]})"), "nodes[0].args[1]",
                     "integers to negative integer powers are not allowed");
  EXPECT_EQ(type_of("a:int32[3] b:int32[3]", R"({"op": "pow", "args": ["a", "b"]})"), "int32[3]");
  EXPECT_EQ(type_of("a:int32[3]", R"({"op": "pow", "args": ["a", -2.0]})"), "float32[3]");
  EXPECT_EQ(type_of("a:float32[3]", R"({"op": "pow", "args": ["a", -2]})"), "float32[3]");
  EXPECT_EQ(type_of("a:int32[3]", R"({"op": "pow", "args": [2, "a"]})"), "int32[3]");
  EXPECT_EQ(type_of("a:float32[3]", R"({"op": "to", "args": ["a"], "dtype": "int32"})"), "int32[3]");
}

// "Non-finite numbers" wherever a float may stand; numbers beyond the dtype's range are errors.
TEST(PreciseRules, NonFiniteNumbersAndRange) {
  EXPECT_EQ(type_of("x:float32[2]", R"({"op": "maximum", "args": ["x", "-inf"]})"), "float32[2]");
  EXPECT_EQ(type_of("x:int32[2]", R"({"op": "add", "args": ["x", "nan"]})"), "float32[2]");
  Value f = node_of("", R"({"op": "full", "shape": [2], "value": "inf"})");
  EXPECT_EQ(f.dtype, DType::Float32);
  EXPECT_EQ(f.attrs.value.f, std::numeric_limits<double>::infinity());
  Value p = node_of("x:float64[2]", R"({"op": "pad", "args": ["x"], "pad": [1, 1], "value": "-inf"})");
  EXPECT_EQ(p.attrs.value.f, -std::numeric_limits<double>::infinity());
  Value c = node_of("x:float32[2]", R"({"op": "clamp", "args": ["x"], "min": "-inf", "max": "nan"})");
  EXPECT_TRUE(std::isnan(c.attrs.max->f));
  Graph g = parse_ok(doc("", "[]", R"(["w", "v"])",
      R"([{"name": "w", "dtype": "float64", "shape": [3], "data": ["inf", "-inf", "nan"]},
          {"name": "v", "dtype": "float32", "shape": [2], "fill": "nan"}])"));
  EXPECT_EQ(g[g.find("w")].data.get_double(1), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(g[g.find("v")].data.get_double(1)));
  // Beyond the dtype's range.
  EXPECT_GRAPH_ERROR(doc("", "[]", R"(["w"])", R"([{"name": "w", "dtype": "float32", "shape": [1], "data": [1e39]}])"),
                     "constants[0].data[0]", "value 1e39 is out of the range of float32");
  EXPECT_GRAPH_ERROR(doc("", "[]", R"(["w"])", R"([{"name": "w", "dtype": "int32", "shape": [1], "fill": 2147483648}])"),
                     "constants[0].fill", "value 2147483648 is out of the range of int32");
  EXPECT_EQ(type_of("", R"({"op": "full", "shape": [1], "value": 3000000000, "dtype": "int32"})"),
            "error: value 3000000000 is out of the range of int32");
  EXPECT_EQ(type_of("x:int32[2]", R"({"op": "pad", "args": ["x"], "pad": [1, 0], "value": "nan"})"),
            "error: value nan is out of the range of int32");
  EXPECT_EQ(type_of("x:int32[2]", R"({"op": "clamp", "args": ["x"], "max": 3000000000})"),
            "error: value 3000000000 is out of the range of int32");
  EXPECT_EQ(type_of("x:int32[2]", R"({"op": "add", "args": ["x", 3000000000]})"),
            "error: value 3000000000 is out of the range of int32, the dtype op 'add' computes in");
  EXPECT_EQ(type_of("x:float32[2]", R"({"op": "mul", "args": ["x", 1e300]})"),
            "error: value 1e+300 is out of the range of float32, the dtype op 'mul' computes in");
  EXPECT_EQ(type_of("x:float32[2]", R"({"op": "add", "args": ["x", 18446744073709551616]})"),
            "error: integer literal 18446744073709551616 is out of the range of int64");
}

// "Constants are typed strictly".
TEST(PreciseRules, ConstantsTypedStrictly) {
  auto constant = [](std::string_view dtype, std::string_view shape, std::string_view rest) {
    return doc("", "[]", R"(["w"])",
               R"([{"name": "w", "dtype": ")" + std::string(dtype) + R"(", "shape": )" +
                   std::string(shape) + ", " + std::string(rest) + "}]");
  };
  EXPECT_GRAPH_ERROR(constant("int32", "[2]", R"("data": [1, 2.0])"), "constants[0].data[1]",
                     "an int32 constant takes integers, got 2.0");
  EXPECT_GRAPH_ERROR(constant("int64", "[1]", R"("data": [true])"), "constants[0].data[0]",
                     "an int64 constant takes integers, got true");
  EXPECT_GRAPH_ERROR(constant("float32", "[1]", R"("fill": false)"), "constants[0].fill",
                     "a float constant takes numbers, got false");
  EXPECT_GRAPH_ERROR(constant("bool", "[1]", R"("data": [1])"), "constants[0].data[0]",
                     "a bool constant takes true or false, got 1");
  EXPECT_GRAPH_ERROR(constant("float32", "[1]", R"("data": ["one"])"), "constants[0].data[0]",
                     "expected a number");
  // A 0-d constant's data is [v].
  Graph g = parse_ok(constant("int64", "[]", R"("data": [-7])"));
  EXPECT_EQ(g[g.find("w")].data.get_int(0), -7);
  EXPECT_GRAPH_ERROR(constant("int64", "[]", R"("data": -7)"), "constants[0].data",
                     "expected a flat list");
  EXPECT_GRAPH_ERROR(constant("float64", "[2]", R"("data": [[1], [2]])"), "constants[0].data[0]",
                     "nested list");
  // Float constants take ints too.
  Graph h = parse_ok(constant("float32", "[2]", R"("data": [1, 2.5])"));
  EXPECT_EQ(h[h.find("w")].data.get_double(0), 1.0);
  EXPECT_EQ(h[h.find("w")].data.get_double(1), 2.5);
  // In a file, a bool is one byte, 0 or 1.
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "stax_precise_bool_file";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ok.bin", std::ios::binary).write("\x01\x00\x01", 3);
  std::ofstream(dir / "bad.bin", std::ios::binary).write("\x01\x02\x01", 3);
  Graph b = parse_ok(constant("bool", "[3]", R"("file": "ok.bin")"), dir);
  EXPECT_TRUE(b[b.find("w")].data.get_bool(0));
  EXPECT_FALSE(b[b.find("w")].data.get_bool(1));
  GraphError e = error_of(constant("bool", "[3]", R"("file": "bad.bin")"), dir);
  EXPECT_EQ(e.path(), "constants[0].file");
  EXPECT_NE(e.message().find("byte 1 of bool constant file"), std::string::npos) << e.what();
  std::filesystem::remove_all(dir);
  EXPECT_GRAPH_ERROR(constant("float32", "[1]", R"("fill": 1, "data": [1])"), "constants[0]",
                     "more than one of 'data', 'file' or 'fill'");
  EXPECT_GRAPH_ERROR(constant("float32", "[1]", R"("fill": null)"), "constants[0]",
                     "missing 'data', 'file' or 'fill'");
}

// "where": the condition is bool (a bool tensor or true/false).
TEST(PreciseRules, WhereConditionIsBool) {
  EXPECT_EQ(type_of("c:bool[2,1] a:int32[3] b:float32[]", R"({"op": "where", "args": ["c", "a", "b"]})"),
            "float32[2, 3]");
  EXPECT_EQ(type_of("a:int32[3]", R"({"op": "where", "args": [true, "a", 2]})"), "int32[3]");
  EXPECT_EQ(type_of("c:bool[3]", R"({"op": "where", "args": ["c", 1.0, 0]})"), "float32[3]");
  EXPECT_EQ(type_of("c:bool[3]", R"({"op": "where", "args": ["c", 1, 0]})"), "int64[3]");
  EXPECT_GRAPH_ERROR(one_node("c:int32[3] a:float32[3]", R"({"op": "where", "args": ["c", "a", 0.0]})"),
                     "nodes[0].args[0]", "the condition of 'where' must be bool, got int32");
  EXPECT_GRAPH_ERROR(one_node("a:float32[3]", R"({"op": "where", "args": [1, "a", 0.0]})"),
                     "nodes[0].args[0]", "the condition of 'where' must be bool, got the scalar 1");
  EXPECT_GRAPH_ERROR(one_node("a:float32[3]", R"({"op": "where", "args": [true, 1, 0.0]})"),
                     "nodes[0].args", "needs at least one tensor argument");
}

// "Names": the graph name is a C identifier, no keyword, no leading '_'; value names; inline
// nodes have no name.
TEST(PreciseRules, Names) {
  auto named = [](std::string_view name) {
    return R"({"format": "stax-graph", "version": 1, "name": )" + std::string(name) +
           R"(, "inputs": [{"name": "x", "dtype": "float32", "shape": [1]}], "outputs": ["x"]})";
  };
  EXPECT_EQ(parse_ok(named("\"model_2\"")).name, "model_2");
  EXPECT_GRAPH_ERROR(named("\"_model\""), "name", "must not start with '_'");
  EXPECT_GRAPH_ERROR(named("\"2model\""), "name", "must not start with a digit");
  EXPECT_GRAPH_ERROR(named("\"my-model\""), "name", "must be a C identifier");
  EXPECT_GRAPH_ERROR(named("\"class\""), "name", "'class' is a C or C++ keyword");
  EXPECT_GRAPH_ERROR(named("\"restrict\""), "name", "is a C or C++ keyword");
  EXPECT_GRAPH_ERROR(named("\"\""), "name", "the graph name is empty");
  EXPECT_GRAPH_ERROR(named("7"), "name", "expected a string, got 7");
  Graph g = parse_ok(doc("a.b-c_1:float32[1]", "[]", R"(["a.b-c_1"])"));
  EXPECT_EQ(g.values[0].name, "a.b-c_1");
  EXPECT_GRAPH_ERROR(doc("-inf:float32[1]", "[]", R"(["-inf"])"), "inputs[0].name", "invalid value name '-inf'");
  EXPECT_GRAPH_ERROR(R"({"format": "stax-graph", "version": 1, "name": "g",
                        "inputs": [{"name": "x y", "dtype": "float32", "shape": [1]}], "outputs": ["x y"]})",
                     "inputs[0].name", "invalid value name 'x y'");
  EXPECT_GRAPH_ERROR(doc("x:float32[1]", R"([{"name": "y", "op": "exp", "args": [{"name": "z", "op": "neg", "args": ["x"]}]}])"),
                     "nodes[0].args[0].name", "an inline node has no name");
}

// "0-d tensors promote as PyTorch's 0-d tensors do".
TEST(PreciseRules, ZeroDimPromotion) {
  EXPECT_EQ(type_of("a:int32[5] b:int64[]", R"({"op": "add", "args": ["a", "b"]})"), "int32[5]");
  EXPECT_EQ(type_of("a:int32[5] b:float64[]", R"({"op": "mul", "args": ["a", "b"]})"), "float64[5]");
  EXPECT_EQ(type_of("a:float32[5] b:float64[]", R"({"op": "mul", "args": ["a", "b"]})"), "float32[5]");
  EXPECT_EQ(type_of("a:int32[] b:int64[]", R"({"op": "add", "args": ["a", "b"]})"), "int64[]");
}

// "inputs and outputs are required (inputs may be empty, outputs may not); missing constants
// or nodes mean none".
TEST(PreciseRules, RequiredTopLevelKeys) {
  EXPECT_GRAPH_ERROR(R"({"format": "stax-graph", "version": 1, "name": "g", "outputs": ["x"]})", "",
                     "missing key 'inputs'");
  EXPECT_GRAPH_ERROR(R"({"format": "stax-graph", "version": 1, "name": "g", "inputs": []})", "",
                     "missing key 'outputs'");
  Graph g = parse_ok(R"({"format": "stax-graph", "version": 1, "name": "g", "inputs": [],
                         "nodes": [{"name": "y", "op": "full", "shape": [2], "value": 1.5}],
                         "outputs": ["y"]})");
  EXPECT_EQ(g.values.size(), 1u);
  Graph h = parse_ok(R"({"format": "stax-graph", "version": 1, "name": "g",
                         "inputs": [{"name": "x", "dtype": "bool", "shape": []}], "outputs": ["x", "x"]})");
  EXPECT_EQ(h.outputs, (std::vector<ValueId>{0, 0}));
  EXPECT_GRAPH_ERROR(R"({"format": "stax-graph", "version": 2, "name": "g", "inputs": [], "outputs": []})",
                     "version", "unsupported version 2 (expected 1)");
  EXPECT_GRAPH_ERROR(R"({"format": "onnx", "version": 1})", "format", "expected \"stax-graph\", got \"onnx\"");
  EXPECT_GRAPH_ERROR(R"([1, 2])", "", "a graph is a JSON object, got a list");
}

}  // namespace
}  // namespace stax::graph

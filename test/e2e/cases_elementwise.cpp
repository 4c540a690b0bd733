// Every elementwise op of the format, on every dtype PyTorch accepts for it, through generated
// code and against the interpreter. Shapes broadcast ([3, 4] with [4]); integer divisors are
// made nonzero except in the division-by-zero cases.
#include "cases.h"

#include <gtest/gtest.h>

namespace stax::e2e {
namespace {

const std::vector<std::string> kDtypes = {"float32", "float64", "int32", "int64", "bool"};

}  // namespace

std::vector<Case> unary_cases() {
  const std::vector<std::string> ops = {
      "neg", "abs", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
      "rsqrt", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
      "tanh", "sigmoid", "relu", "silu", "erf", "erfc", "floor", "ceil", "round", "trunc",
      "logical_not", "bitwise_not", "isnan", "isinf", "isfinite", "gelu"};
  std::vector<Case> cases;
  for (const std::string& op : ops) {
    for (const std::string& dt : kDtypes) {
      Case c;
      c.name = op + " " + dt;
      c.json = graph({input("x", dt, "[3, 5]")}, {R"({"name": "y", "op": ")" + op + R"(", "args": ["x"]})"}, {"y"});
      if (accepted(c.json)) cases.push_back(c);
    }
  }
  // Attributes.
  auto one = [&](const std::string& name, const std::string& dt, const std::string& node) {
    Case c;
    c.name = name;
    c.json = graph({input("x", dt, "[4, 6]")}, {node}, {"y"});
    EXPECT_TRUE(accepted(c.json)) << c.json;
    cases.push_back(c);
  };
  one("gelu tanh", "float32", R"({"name": "y", "op": "gelu", "args": ["x"], "approximate": "tanh"})");
  one("gelu none f64", "float64", R"({"name": "y", "op": "gelu", "args": ["x"], "approximate": "none"})");
  one("leaky_relu", "float32", R"({"name": "y", "op": "leaky_relu", "args": ["x"]})");
  one("leaky_relu slope", "float64", R"({"name": "y", "op": "leaky_relu", "args": ["x"], "negative_slope": 0.2})");
  one("clamp both", "float32", R"({"name": "y", "op": "clamp", "args": ["x"], "min": -0.5, "max": 0.75})");
  one("clamp min", "float64", R"({"name": "y", "op": "clamp", "args": ["x"], "min": 0})");
  one("clamp max int", "int32", R"({"name": "y", "op": "clamp", "args": ["x"], "max": 3})");
  one("clamp int64 both", "int64", R"({"name": "y", "op": "clamp", "args": ["x"], "min": -2, "max": 5})");
  one("clamp float bound on int", "int32", R"({"name": "y", "op": "clamp", "args": ["x"], "min": -2.5})");
  one("clamp lo > hi", "float32", R"({"name": "y", "op": "clamp", "args": ["x"], "min": 1, "max": -1})");
  one("clamp inf bound", "float32", R"({"name": "y", "op": "clamp", "args": ["x"], "min": "-inf", "max": 0.5})");
  // The negation of a negative literal once generated `--0.25f`, which does not build.
  Case neg_literal;
  neg_literal.name = "neg of negative literals";
  neg_literal.json = graph(
      {input("x", "float32", "[4, 6]")},
      {R"({"name": "y", "op": "sub", "args": ["x", {"op": "neg", "args": [{"op": "full", "args": [], "shape": [], "value": -0.25}]}]})",
       R"({"name": "z", "op": "neg", "args": [{"op": "full", "args": [], "shape": [], "value": "-inf", "dtype": "float64"}]})"},
      {"y", "z"});
  cases.push_back(neg_literal);
  return cases;
}

std::vector<Case> binary_cases() {
  const std::vector<std::string> ops = {
      "add", "sub", "mul", "div", "remainder", "pow", "maximum", "minimum", "atan2", "eq", "ne",
      "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and",
      "bitwise_or", "bitwise_xor"};
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"float32", "float32"}, {"float64", "float64"}, {"int32", "int32"}, {"int64", "int64"},
      {"bool", "bool"},       {"int32", "float32"},   {"float32", "float64"}, {"bool", "int32"},
      {"int32", "int64"},     {"int64", "float32"},   {"bool", "float64"}};
  std::vector<Case> cases;
  for (const std::string& op : ops) {
    for (const auto& [a, b] : pairs) {
      Case c;
      c.name = op + " " + a + " " + b;
      c.json = graph({input("a", a, "[3, 4]"), input("b", b, "[4]")},
                     {R"({"name": "y", "op": ")" + op + R"(", "args": ["a", "b"]})"}, {"y"});
      c.nonzero_ints = true;
      if (accepted(c.json)) cases.push_back(c);
    }
  }
  // Rounding modes, both operand orders of broadcasting.
  for (const char* mode : {"trunc", "floor"}) {
    for (const char* dt : {"float32", "float64", "int32", "int64"}) {
      Case c;
      c.name = std::string("div ") + mode + " " + dt;
      c.json = graph({input("a", dt, "[3, 1]"), input("b", dt, "[1, 4]")},
                     {R"({"name": "y", "op": "div", "args": ["a", "b"], "rounding_mode": ")" + std::string(mode) + R"("})"}, {"y"});
      c.nonzero_ints = true;
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<Case> scalar_cast_where_cases() {
  std::vector<Case> cases;
  auto add = [&](const std::string& name, const std::vector<std::string>& inputs,
                 const std::vector<std::string>& nodes, const std::vector<std::string>& outputs) {
    Case c;
    c.name = name;
    c.json = graph(inputs, nodes, outputs);
    c.nonzero_ints = true;
    EXPECT_TRUE(accepted(c.json)) << name << "\n" << c.json;
    cases.push_back(c);
  };
  // Python scalars promote as in PyTorch: int32 * 2 stays int32, int32 * 2.5 is float32.
  add("int32 times int literal", {input("x", "int32", "[5]")}, {R"({"name": "y", "op": "mul", "args": ["x", 2]})"}, {"y"});
  add("int32 times float literal", {input("x", "int32", "[5]")}, {R"({"name": "y", "op": "mul", "args": ["x", 2.5]})"}, {"y"});
  add("literal first", {input("x", "float64", "[5]")}, {R"({"name": "y", "op": "sub", "args": [1, "x"]})"}, {"y"});
  add("bool literal", {input("x", "bool", "[5]")}, {R"({"name": "y", "op": "logical_xor", "args": ["x", true]})"}, {"y"});
  add("int literal on bool", {input("x", "bool", "[5]")}, {R"({"name": "y", "op": "add", "args": ["x", 3]})"}, {"y"});
  add("float literal on int64", {input("x", "int64", "[5]")}, {R"({"name": "y", "op": "div", "args": ["x", 4]})"}, {"y"});
  add("pow int literal", {input("x", "int64", "[6]")}, {R"({"name": "y", "op": "pow", "args": ["x", 3]})"}, {"y"});
  add("pow float literal", {input("x", "float32", "[6]")}, {R"({"name": "y", "op": "pow", "args": ["x", 2.0]})"}, {"y"});
  add("pow literal base", {input("x", "float32", "[6]")}, {R"({"name": "y", "op": "pow", "args": [2, "x"]})"}, {"y"});
  add("remainder literal", {input("x", "int32", "[6]")}, {R"({"name": "y", "op": "remainder", "args": ["x", -3]})"}, {"y"});
  add("floor div literal", {input("x", "int64", "[6]")}, {R"({"name": "y", "op": "div", "args": ["x", -4], "rounding_mode": "floor"})"}, {"y"});
  add("inf literal", {input("x", "float32", "[6]")}, {R"({"name": "y", "op": "minimum", "args": ["x", "inf"]})"}, {"y"});
  add("nan literal", {input("x", "float32", "[6]")}, {R"({"name": "y", "op": "maximum", "args": ["x", "nan"]})"}, {"y"});
  add("0-d tensor promotion", {input("x", "int32", "[4]"), input("s", "int64", "[]")}, {R"({"name": "y", "op": "add", "args": ["x", "s"]})"}, {"y"});
  add("0-d float promotion", {input("x", "int32", "[4]"), input("s", "float64", "[]")}, {R"({"name": "y", "op": "mul", "args": ["x", "s"]})"}, {"y"});
  // where: tensor and scalar branches, broadcast condition, a "-inf" mask.
  add("where tensors", {input("c", "bool", "[3, 1]"), input("a", "float32", "[3, 4]"), input("b", "float64", "[4]")},
      {R"({"name": "y", "op": "where", "args": ["c", "a", "b"]})"}, {"y"});
  add("where scalars", {input("x", "float32", "[3, 4]")},
      {R"({"name": "c", "op": "gt", "args": ["x", 0]})", R"({"name": "y", "op": "where", "args": ["c", 1.5, -2]})"}, {"y"});
  add("where -inf mask softmax", {input("x", "float32", "[4, 8]"), input("keep", "bool", "[8]")},
      {R"({"name": "masked", "op": "where", "args": ["keep", "x", "-inf"]})",
       R"({"name": "y", "op": "softmax", "args": ["masked"], "dim": -1})"}, {"y"});
  add("where int and bool condition literal", {input("a", "int32", "[5]"), input("b", "int32", "[5]")},
      {R"({"name": "y", "op": "where", "args": [true, "a", "b"]})"}, {"y"});
  // to: every pair of dtypes.
  for (const std::string& from : kDtypes) {
    for (const std::string& to : kDtypes) {
      add("to " + from + " -> " + to, {input("x", from, "[7]")},
          {R"({"name": "s", "op": "mul", "args": ["x", 3]})",
           R"({"name": "y", "op": "to", "args": [")" + std::string(from == "bool" ? "x" : "s") + R"("], "dtype": ")" + to + R"("})"},
          {"y"});
    }
  }
  // A chain through every float dtype and back.
  add("cast chain", {input("x", "float32", "[3, 3]")},
      {R"({"name": "a", "op": "to", "args": ["x"], "dtype": "float64"})",
       R"({"name": "b", "op": "mul", "args": ["a", 1000]})",
       R"({"name": "c", "op": "to", "args": ["b"], "dtype": "int32"})",
       R"({"name": "d", "op": "to", "args": ["c"], "dtype": "bool"})",
       R"({"name": "y", "op": "to", "args": ["d"], "dtype": "float32"})"},
      {"c", "y"});
  // Creation.
  add("full float", {}, {R"({"name": "y", "op": "full", "shape": [2, 3], "value": 1.5})"}, {"y"});
  add("full int default dtype", {}, {R"({"name": "y", "op": "full", "shape": [4], "value": 7})"}, {"y"});
  add("full bool", {}, {R"({"name": "y", "op": "full", "shape": [2, 2], "value": true})"}, {"y"});
  add("full -inf", {}, {R"({"name": "y", "op": "full", "shape": [3], "value": "-inf"})"}, {"y"});
  add("full with dtype", {input("x", "float64", "[2, 3]")},
      {R"({"name": "f", "op": "full", "shape": [2, 3], "value": 2, "dtype": "float64"})",
       R"({"name": "y", "op": "mul", "args": ["x", "f"]})"}, {"y"});
  add("arange int", {}, {R"({"name": "y", "op": "arange", "end": 10})"}, {"y"});
  add("arange start step", {}, {R"({"name": "y", "op": "arange", "start": 3, "end": 20, "step": 4})"}, {"y"});
  add("arange negative step", {}, {R"({"name": "y", "op": "arange", "start": 5, "end": -3, "step": -2})"}, {"y"});
  add("arange float", {}, {R"({"name": "y", "op": "arange", "start": 0.5, "end": 3, "step": 0.25})"}, {"y"});
  add("arange int32 dtype", {input("x", "int32", "[6]")},
      {R"({"name": "r", "op": "arange", "end": 6, "dtype": "int32"})",
       R"({"name": "y", "op": "mul", "args": ["x", "r"]})"}, {"y"});
  return cases;
}

}  // namespace stax::e2e

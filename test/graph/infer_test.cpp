// Dtype and shape inference of elementwise ops, reductions, creation, matmul and composites,
// and the placement and naming of inline nodes.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace stax::graph {
namespace {

using testing::doc;
using testing::node_of;
using testing::one_node;
using testing::parse_ok;
using testing::type_of;

struct Case {
  const char* inputs;
  const char* body;
  const char* want;  // "dtype[shape]" or "error: <message>"
};

void check_table(const std::vector<Case>& cases) {
  for (const Case& c : cases) EXPECT_EQ(type_of(c.inputs, c.body), c.want) << c.inputs << "  " << c.body;
}

TEST(Infer, Elementwise) {
  check_table({
      {"x:float32[2,3]", R"({"op": "relu", "args": ["x"]})", "float32[2, 3]"},
      {"x:int64[2,3]", R"({"op": "abs", "args": ["x"]})", "int64[2, 3]"},
      {"x:int32[2]", R"({"op": "logical_not", "args": ["x"]})", "bool[2]"},
      {"x:bool[2]", R"({"op": "bitwise_not", "args": ["x"]})", "bool[2]"},
      {"x:float32[2]", R"({"op": "isinf", "args": ["x"]})", "bool[2]"},
      {"x:int32[2]", R"({"op": "isfinite", "args": ["x"]})", "bool[2]"},
      {"x:bool[2]", R"({"op": "clamp", "args": ["x"], "min": 0})", "int64[2]"},
      {"x:float32[2]", R"({"op": "clamp", "args": ["x"], "min": true})", "error: expected a number, got true"},
      {"x:float64[2]", R"({"op": "gelu", "args": ["x"], "approximate": "tanh"})", "float64[2]"},
      {"x:float64[2]", R"({"op": "gelu", "args": ["x"], "approximate": "fast"})",
       "error: expected \"none\" or \"tanh\", got \"fast\""},
      {"x:float32[2]", R"({"op": "leaky_relu", "args": ["x"], "negative_slope": 0.2})", "float32[2]"},
      {"x:float32[2]", R"({"op": "to", "args": ["x"], "dtype": "bool"})", "bool[2]"},
      {"x:float32[2]", R"({"op": "to", "args": ["x"]})", "error: missing key 'dtype'"},
      {"a:float32[4,1] b:float32[3]", R"({"op": "add", "args": ["a", "b"]})", "float32[4, 3]"},
      {"a:float32[2,1,5] b:float32[3,1]", R"({"op": "mul", "args": ["a", "b"]})", "float32[2, 3, 5]"},
      {"a:float32[] b:float32[3,1]", R"({"op": "mul", "args": ["a", "b"]})", "float32[3, 1]"},
      {"a:float32[2,3] b:float32[3,2]", R"({"op": "mul", "args": ["a", "b"]})",
       "error: cannot broadcast shapes [2, 3] and [3, 2]"},
      {"x:float32[2]", R"({"op": "div", "args": ["x", 2], "rounding_mode": "round"})",
       "error: expected \"trunc\" or \"floor\" (or no rounding_mode), got \"round\""},
      {"x:float32[2]", R"({"op": "exp", "args": [2.0]})",
       "error: op 'exp' needs a tensor here (a value name or an inline node), got the scalar 2.0"},
      {"x:float32[2]", R"({"op": "exp", "args": [null]})",
       "error: null is allowed only for an optional argument (layer_norm weight and bias, rms_norm weight, linear, conv1d and conv2d bias, batch_norm weight and bias)"},
      {"x:float32[2]", R"({"op": "exp", "args": [["x"]]})",
       "error: an argument is a value name, a number, a boolean, null or an inline node; got a list"},
      {"x:float32[2]", R"({"op": "exp", "args": "x"})", "error: expected a list, got \"x\""},
      {"c:bool[2] x:float32[3,1]", R"({"op": "where", "args": ["c", "x", 0]})", "float32[3, 2]"},
      {"c:bool[4] x:float32[3]", R"({"op": "where", "args": ["c", "x", 0]})",
       "error: cannot broadcast shapes [4] and [3]"},
  });
  Value c = node_of("x:int32[2]", R"({"op": "clamp", "args": ["x"], "min": 0.5, "max": 2})");
  EXPECT_EQ(*c.attrs.min, Scalar::of_float(0.5));
  EXPECT_EQ(*c.attrs.max, Scalar::of_float(2.0));  // stored in the result dtype's kind
  Value l = node_of("x:float32[2]", R"({"op": "leaky_relu", "args": ["x"]})");
  EXPECT_EQ(l.attrs.negative_slope, 0.01);
  Value d = node_of("x:float32[2]", R"({"op": "div", "args": ["x", 2], "rounding_mode": "floor"})");
  EXPECT_EQ(d.attrs.rounding_mode, RoundingMode::Floor);
}

TEST(Infer, Reductions) {
  check_table({
      {"x:float32[2,3,4]", R"({"op": "sum", "args": ["x"], "dim": 1})", "float32[2, 4]"},
      {"x:float32[2,3,4]", R"({"op": "sum", "args": ["x"], "dim": -1, "keepdim": true})", "float32[2, 3, 1]"},
      {"x:float32[2,3,4]", R"({"op": "mean", "args": ["x"]})", "float32[]"},
      {"x:float32[2,3,4]", R"({"op": "mean", "args": ["x"], "keepdim": true})", "float32[1, 1, 1]"},
      {"x:int32[2,3]", R"({"op": "amax", "args": ["x"], "dim": 0})", "int32[3]"},
      {"x:bool[2,3]", R"({"op": "amin", "args": ["x"], "dim": 0})", "bool[3]"},
      {"x:float32[2,3]", R"({"op": "all", "args": ["x"], "dim": [0, 1]})", "bool[]"},
      {"x:int64[2,3]", R"({"op": "any", "args": ["x"], "dim": 1, "keepdim": true})", "bool[2, 1]"},
      {"x:float32[2,3]", R"({"op": "argmax", "args": ["x"], "dim": 1})", "int64[2]"},
      {"x:float32[2,3]", R"({"op": "argmin", "args": ["x"], "dim": 0, "keepdim": true})", "int64[1, 3]"},
      {"x:int32[2,3]", R"({"op": "argmax", "args": ["x"]})", "int64[]"},
      {"x:int32[2,3]", R"({"op": "argmax", "args": ["x"], "keepdim": true})", "int64[1, 1]"},
      {"x:bool[2,3]", R"({"op": "argmax", "args": ["x"]})", "error: op 'argmax' does not accept bool"},
      {"x:float32[2,3]", R"({"op": "sum", "args": ["x"], "keepdim": 1})", "error: expected true or false, got 1"},
      {"x:float32[2,3]", R"({"op": "sum", "args": ["x"], "dim": 1.0})", "error: expected an integer or a list of integers, got 1.0"},
      {"x:float32[]", R"({"op": "sum", "args": ["x"], "dim": -1})", "float32[]"},
      {"x:float32[]", R"({"op": "sum", "args": ["x"], "dim": 1})",
       "error: dim 1 is out of range for a 0-d tensor (expected -1..0)"},
      {"x:float32[]", R"({"op": "argmax", "args": ["x"], "dim": 0, "keepdim": true})", "int64[]"},
      {"x:float64[4,5]", R"({"op": "cumprod", "args": ["x"], "dim": -2})", "float64[4, 5]"},
      {"x:float64[4,5]", R"({"op": "cumsum", "args": ["x"], "dim": [1]})", "error: expected one integer dim, got a list"},
      {"x:float64[4,5]", R"({"op": "logsumexp", "args": ["x"], "dim": [0, 1], "keepdim": true})", "float64[1, 1]"},
  });
  Value s = node_of("x:float32[]", R"({"op": "sum", "args": ["x"], "dim": 0})");
  EXPECT_TRUE(s.attrs.dims.empty());
  Value a = node_of("x:float32[2,3]", R"({"op": "argmax", "args": ["x"], "dim": -1})");
  EXPECT_TRUE(a.attrs.has_dim);
  EXPECT_EQ(a.attrs.dim, 1);
  EXPECT_EQ(a.attrs.dims, (std::vector<int64_t>{1}));
  Value f = node_of("x:float32[2,3]", R"({"op": "argmin", "args": ["x"]})");
  EXPECT_FALSE(f.attrs.has_dim);
  EXPECT_EQ(f.attrs.dims, (std::vector<int64_t>{0, 1}));
  Value cs = node_of("x:float32[2,3]", R"({"op": "cumsum", "args": ["x"], "dim": -1})");
  EXPECT_EQ(cs.attrs.dim, 1);
}

TEST(Infer, Creation) {
  check_table({
      {"", R"({"op": "full", "shape": [2, 3], "value": 1.5})", "float32[2, 3]"},
      {"", R"({"op": "full", "shape": [2], "value": 7})", "int64[2]"},
      {"", R"({"op": "full", "shape": [], "value": true})", "bool[]"},
      {"", R"({"op": "full", "shape": [2], "value": 7, "dtype": "float64"})", "float64[2]"},
      {"", R"({"op": "full", "shape": [2], "value": 1e39, "dtype": "float32"})",
       "error: value 1e+39 is out of the range of float32"},
      {"", R"({"op": "full", "shape": [2]})", "error: missing key 'value'"},
      {"", R"({"op": "full", "shape": [2], "value": "x"})", "error: expected a number or a boolean, got \"x\""},
      {"", R"({"op": "arange", "end": "inf"})", "error: arange bounds must be finite"},
      {"", R"({"op": "arange", "end": 4, "dtype": "bool"})", "error: arange does not produce bool"},
  });
  Value f = node_of("", R"({"op": "full", "shape": [2], "value": 2.7, "dtype": "int32"})");
  EXPECT_EQ(f.attrs.value, Scalar::of_int(2));  // truncated as PyTorch's fill
  EXPECT_EQ(f.attrs.shape, (Shape{2}));
  Value b = node_of("", R"({"op": "full", "shape": [2], "value": 3, "dtype": "bool"})");
  EXPECT_EQ(b.attrs.value, Scalar::of_bool(true));
  Value g = node_of("", R"({"op": "full", "shape": [2], "value": 3, "dtype": "float64"})");
  EXPECT_EQ(g.attrs.value, Scalar::of_float(3.0));
}

TEST(Infer, Matmul) {
  check_table({
      {"a:float32[3] b:float32[3]", R"({"op": "matmul", "args": ["a", "b"]})", "float32[]"},
      {"a:float32[2,3] b:float32[3,4]", R"({"op": "matmul", "args": ["a", "b"]})", "float32[2, 4]"},
      {"a:float32[3] b:float32[3,4]", R"({"op": "matmul", "args": ["a", "b"]})", "float32[4]"},
      {"a:float32[2,3] b:float32[3]", R"({"op": "matmul", "args": ["a", "b"]})", "float32[2]"},
      {"a:float32[5,2,3] b:float32[3]", R"({"op": "matmul", "args": ["a", "b"]})", "float32[5, 2]"},
      {"a:float32[3] b:float32[5,3,4]", R"({"op": "matmul", "args": ["a", "b"]})", "float32[5, 4]"},
      {"a:float32[5,1,2,3] b:float32[4,3,6]", R"({"op": "matmul", "args": ["a", "b"]})", "float32[5, 4, 2, 6]"},
      {"a:float32[2,3] b:float32[7,3,6]", R"({"op": "matmul", "args": ["a", "b"]})", "float32[7, 2, 6]"},
      {"a:float32[2,3] b:float32[4,5]", R"({"op": "matmul", "args": ["a", "b"]})",
       "error: matmul size mismatch: [2, 3] @ [4, 5] (3 != 4)"},
      {"a:float32[2,2,3] b:float32[3,3,4]", R"({"op": "matmul", "args": ["a", "b"]})",
       "error: matmul cannot broadcast the batch dims [2] and [3]"},
      {"a:float32[] b:float32[3]", R"({"op": "matmul", "args": ["a", "b"]})",
       "error: op 'matmul' needs tensors of at least 1 dim, got a 0-d tensor"},
      {"a:float32[3]", R"({"op": "matmul", "args": ["a", 2.0]})",
       "error: op 'matmul' needs a tensor here (a value name or an inline node), got the scalar 2.0"},
  });
}

TEST(Infer, Composites) {
  check_table({
      {"x:float32[4,8]", R"({"op": "softmax", "args": ["x"], "dim": -1})", "float32[4, 8]"},
      {"x:float64[]", R"({"op": "log_softmax", "args": ["x"], "dim": 0})", "float64[]"},
      {"x:float32[4,8]", R"({"op": "softmax", "args": ["x"]})", "error: missing key 'dim'"},
      {"x:float32[4,8]", R"({"op": "softmax", "args": ["x"], "dim": [1]})", "error: expected one integer dim, got a list"},
      {"x:float32[4,8] w:float32[8] b:float32[8]", R"({"op": "layer_norm", "args": ["x", "w", "b"], "normalized_shape": [8]})", "float32[4, 8]"},
      {"x:float32[4,8] b:float32[8]", R"({"op": "layer_norm", "args": ["x", null, "b"], "normalized_shape": 8, "eps": 1e-6})", "float32[4, 8]"},
      {"x:float32[4,8] w:float32[4,8]", R"({"op": "layer_norm", "args": ["x", "w"], "normalized_shape": 8})",
       "error: the weight has shape [4, 8], expected [8]"},
      {"x:float32[4,8] w:float64[8]", R"({"op": "layer_norm", "args": ["x", "w"], "normalized_shape": 8})",
       "error: op 'layer_norm' needs operands of one dtype, got float32 and float64"},
      {"x:float32[4,8]", R"({"op": "layer_norm", "args": ["x"], "normalized_shape": []})",
       "error: normalized_shape must not be empty"},
      {"x:float32[4,8]", R"({"op": "layer_norm", "args": ["x", 1.0], "normalized_shape": 8})",
       "error: op 'layer_norm' needs a tensor here (a value name or an inline node), got the scalar 1.0"},
      {"x:float32[4,8]", R"({"op": "layer_norm", "args": ["x"], "normalized_shape": 8, "eps": 1e39})",
       "error: eps 1e+39 is out of the range of float32"},
      {"x:float32[4,8] w:float64[8]", R"({"op": "rms_norm", "args": ["x", "w"], "normalized_shape": 8})", "float64[4, 8]"},
      {"x:float32[4,8] w:float32[8,16]", R"({"op": "linear", "args": ["x", "w"]})",
       "error: linear size mismatch: input [4, 8] and weight [8, 16] (8 != 16)"},
      {"x:float32[4,8] w:float32[16,8]", R"({"op": "linear", "args": ["x", "w"]})", "float32[4, 16]"},
      {"x:float32[2,4,8] w:float32[16,8] b:float32[16]", R"({"op": "linear", "args": ["x", "w", "b"]})", "float32[2, 4, 16]"},
      {"x:float32[8] w:float32[8]", R"({"op": "linear", "args": ["x", "w"]})", "float32[]"},
      {"x:int64[3,8] w:int64[8]", R"({"op": "linear", "args": ["x", "w", null]})", "int64[3]"},
      {"x:float32[4,8] w:float32[16,8] b:float32[4,16]", R"({"op": "linear", "args": ["x", "w", "b"]})", "float32[4, 16]"},
      {"x:float32[4,8] w:float32[16,8] b:float32[2,4,16]", R"({"op": "linear", "args": ["x", "w", "b"]})",
       "error: the bias [2, 4, 16] does not broadcast to the output [4, 16]"},
      {"x:float32[4,8] w:float32[2,16,8]", R"({"op": "linear", "args": ["x", "w"]})",
       "error: the weight of linear is 1-d or 2-d, got [2, 16, 8]"},
      {"x:float32[4,8] w:float32[16,8]", R"({"op": "linear", "args": ["x", null]})",
       "error: null is allowed only for an optional argument (layer_norm weight and bias, rms_norm weight, linear, conv1d and conv2d bias, batch_norm weight and bias)"},
  });
  Value s = node_of("x:float32[4,8]", R"({"op": "softmax", "args": ["x"], "dim": -2})");
  EXPECT_EQ(s.attrs.dim, 0);
}

TEST(Infer, InlineNodesArePlacedBeforeTheirParentAndNamed) {
  Graph g = parse_ok(doc("x:float32[4] m:float32[1]",
      R"([{"name": "y", "op": "exp", "args": [{"op": "sub", "args": ["x", {"op": "neg", "args": ["m"]}]}]},
          {"name": "z", "op": "add", "args": [{"op": "abs", "args": ["y"]}, {"op": "sqrt", "args": ["y"]}]}])",
      R"(["z"])"));
  std::vector<std::string> names;
  for (const Value& v : g.values) names.push_back(v.name);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "m", "y#0", "y#1", "y", "z#0", "z#1", "z"}));
  const Value& neg = g[g.find("y#0")];
  EXPECT_EQ(neg.op, Op::Neg);
  EXPECT_TRUE(neg.anonymous);
  EXPECT_EQ(neg.path, "nodes[0].args[0].args[1]");
  const Value& sub = g[g.find("y#1")];
  EXPECT_EQ(sub.path, "nodes[0].args[0]");
  EXPECT_EQ(sub.args[1].value, g.find("y#0"));
  EXPECT_EQ(g[g.find("z")].args[1].value, g.find("z#1"));
  EXPECT_FALSE(g[g.find("y")].anonymous);
  // An error inside an inline node reports its path and the named node.
  GraphError e = testing::error_of(one_node("x:float32[4]",
      R"({"op": "exp", "args": [{"op": "sub", "args": ["x", {"op": "neg", "args": ["q"]}]}]})"));
  EXPECT_EQ(e.path(), "nodes[0].args[0].args[1].args[0]");
  EXPECT_EQ(std::string(e.what()),
            "nodes[0].args[0].args[1].args[0] (node 'y', op 'neg'): unknown value 'q'");
}

TEST(Infer, SignatureText) {
  Graph g = parse_ok(doc("x:float32[64,128]",
      R"([{"name": "m", "op": "amax", "args": ["x"], "dim": [-1], "keepdim": true},
          {"name": "e", "op": "exp",  "args": [{"op": "sub", "args": ["x", "m"]}]},
          {"name": "s", "op": "sum",  "args": ["e"], "dim": -1, "keepdim": true},
          {"name": "y", "op": "div",  "args": ["e", "s"]},
          {"name": "k", "op": "full", "shape": [2], "value": 0.5}])",
      R"(["y", "k"])", R"([{"name": "w", "dtype": "int32", "shape": [], "fill": 3}])"));
  EXPECT_EQ(format_signature(g),
            "graph g\n"
            "x: float32[64, 128] input\n"
            "w: int32[] constant\n"
            "m: float32[64, 1] = amax(x, dim=[1], keepdim=true)\n"
            "e#0: float32[64, 128] = sub(x, m)\n"
            "e: float32[64, 128] = exp(e#0)\n"
            "s: float32[64, 1] = sum(e, dim=[1], keepdim=true)\n"
            "y: float32[64, 128] = div(e, s)\n"
            "k: float32[2] = full(shape=[2], value=0.5, dtype=float32)\n"
            "outputs: y, k\n");
}

}  // namespace
}  // namespace stax::graph

// Cross-check of the front end's composite expansion: the interpreter evaluates a composite from
// its definition, so interpret(g) and interpret(expand_composites(g)) must agree within float
// tolerance on random inputs. Also run over the sample models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "interp_test_util.h"
#include "stax/graph/frontend.h"
#include "stax/support/random.h"

namespace stax::interp::testing {
namespace {

std::vector<Tensor> random_inputs(const graph::Graph& g, uint64_t seed) {
  std::vector<Tensor> inputs;
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    const graph::Value& v = g[g.inputs[k]];
    inputs.push_back(random_tensor(v.dtype, v.shape, seed, k));
  }
  return inputs;
}

bool has_composite(const graph::Graph& g) {
  return std::any_of(g.values.begin(), g.values.end(), [](const graph::Value& v) {
    return v.kind == graph::ValueKind::Node && graph::op_category(v.op) == graph::OpCategory::Composite;
  });
}

// |a - b| <= atol + rtol * |b| elementwise (rtol/atol by dtype); NaN must match NaN.
::testing::AssertionResult close(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape())
    return ::testing::AssertionFailure() << "dtype/shape differ: " << dtype_name(a.dtype()) << shape_str(a.shape())
                                         << " vs " << dtype_name(b.dtype()) << shape_str(b.shape());
  const bool f32 = a.dtype() == DType::Float32;
  const double rtol = f32 ? 2e-5 : 1e-12, atol = f32 ? 2e-6 : 1e-13;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = a.get_double(i), y = b.get_double(i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) continue;
    if (std::fabs(x - y) <= atol + rtol * std::fabs(y)) continue;
    return ::testing::AssertionFailure() << "element " << i << ": " << x << " vs " << y;
  }
  return ::testing::AssertionSuccess();
}

void cross_check(const graph::Graph& g, uint64_t seed) {
  const graph::Graph e = graph::expand_composites(g);
  EXPECT_FALSE(has_composite(e));
  const std::vector<Tensor> inputs = random_inputs(g, seed);
  const std::vector<Tensor> direct = interpret(g, inputs);
  const std::vector<Tensor> expanded = interpret(e, inputs);
  ASSERT_EQ(direct.size(), expanded.size());
  for (std::size_t k = 0; k < direct.size(); ++k) EXPECT_TRUE(close(direct[k], expanded[k])) << "output " << k;
}

std::string model(const std::string& inputs, const std::string& constants, const std::string& nodes) {
  return R"({"format": "stax-graph", "version": 1, "name": "m", "inputs": [)" + inputs +
         R"(], "constants": [)" + constants + R"(], "nodes": [)" + nodes + R"(], "outputs": ["y"]})";
}

struct Case {
  const char* what;
  std::string inputs, nodes;
};

TEST(InterpExpandCrossCheck, CompositesAgreeWithTheirExpansion) {
  const std::vector<Case> cases = {
      {"softmax last dim", R"({"name": "x", "dtype": "float32", "shape": [4, 7]})",
       R"({"name": "y", "op": "softmax", "args": ["x"], "dim": -1})"},
      {"softmax dim 0, 3-D", R"({"name": "x", "dtype": "float32", "shape": [3, 2, 5]})",
       R"({"name": "y", "op": "softmax", "args": ["x"], "dim": 0})"},
      {"softmax of large values", R"({"name": "x", "dtype": "float32", "shape": [2, 6]})",
       R"({"name": "y", "op": "softmax", "args": [{"op": "mul", "args": ["x", 1000]}], "dim": 1})"},
      {"log_softmax float64", R"({"name": "x", "dtype": "float64", "shape": [3, 5]})",
       R"({"name": "y", "op": "log_softmax", "args": ["x"], "dim": -1})"},
      {"log_softmax 0-d", R"({"name": "x", "dtype": "float32", "shape": []})",
       R"({"name": "y", "op": "log_softmax", "args": ["x"], "dim": 0})"},
      {"layer_norm weight and bias",
       R"({"name": "x", "dtype": "float32", "shape": [2, 3, 5]}, {"name": "w", "dtype": "float32", "shape": [5]},
          {"name": "b", "dtype": "float32", "shape": [5]})",
       R"({"name": "y", "op": "layer_norm", "args": ["x", "w", "b"], "normalized_shape": [5]})"},
      {"layer_norm two dims, no affine", R"({"name": "x", "dtype": "float64", "shape": [2, 3, 5]})",
       R"({"name": "y", "op": "layer_norm", "args": ["x"], "normalized_shape": [3, 5], "eps": 0.001})"},
      {"layer_norm bias only",
       R"({"name": "x", "dtype": "float32", "shape": [4, 8]}, {"name": "b", "dtype": "float32", "shape": [8]})",
       R"({"name": "y", "op": "layer_norm", "args": ["x", null, "b"], "normalized_shape": 8})"},
      {"rms_norm default eps", R"({"name": "x", "dtype": "float32", "shape": [3, 2, 4]})",
       R"({"name": "y", "op": "rms_norm", "args": ["x"], "normalized_shape": [2, 4]})"},
      {"rms_norm weight float64",
       R"({"name": "x", "dtype": "float64", "shape": [5, 6]}, {"name": "w", "dtype": "float64", "shape": [6]})",
       R"({"name": "y", "op": "rms_norm", "args": ["x", "w"], "normalized_shape": 6, "eps": 1e-6})"},
      {"linear with bias, batched",
       R"({"name": "x", "dtype": "float32", "shape": [2, 3, 4]}, {"name": "w", "dtype": "float32", "shape": [5, 4]},
          {"name": "b", "dtype": "float32", "shape": [5]})",
       R"({"name": "y", "op": "linear", "args": ["x", "w", "b"]})"},
      {"linear without bias",
       R"({"name": "x", "dtype": "float64", "shape": [3, 4]}, {"name": "w", "dtype": "float64", "shape": [2, 4]})",
       R"({"name": "y", "op": "linear", "args": ["x", "w"]})"},
      {"linear 1-D weight",
       R"({"name": "x", "dtype": "float32", "shape": [3, 4]}, {"name": "w", "dtype": "float32", "shape": [4]})",
       R"({"name": "y", "op": "linear", "args": ["x", "w"]})"},
      {"linear 1-D input",
       R"({"name": "x", "dtype": "float32", "shape": [4]}, {"name": "w", "dtype": "float32", "shape": [3, 4]},
          {"name": "b", "dtype": "float32", "shape": [3]})",
       R"({"name": "y", "op": "linear", "args": ["x", "w", "b"]})"},
      {"MLP block",
       R"({"name": "x", "dtype": "float32", "shape": [4, 8]}, {"name": "w1", "dtype": "float32", "shape": [16, 8]},
          {"name": "w2", "dtype": "float32", "shape": [8, 16]}, {"name": "g", "dtype": "float32", "shape": [8]})",
       R"({"name": "h", "op": "gelu", "args": [{"op": "linear", "args": ["x", "w1"]}]},
          {"name": "o", "op": "add", "args": ["x", {"op": "linear", "args": ["h", "w2"]}]},
          {"name": "n", "op": "layer_norm", "args": ["o", "g"], "normalized_shape": [8]},
          {"name": "y", "op": "log_softmax", "args": ["n"], "dim": -1})"},
      {"batch_norm 4-D, weight and bias",
       R"({"name": "x", "dtype": "float32", "shape": [2, 3, 4, 5]}, {"name": "m", "dtype": "float32", "shape": [3]},
          {"name": "v", "dtype": "float32", "shape": [3]}, {"name": "w", "dtype": "float32", "shape": [3]})",
       R"({"name": "y", "op": "batch_norm", "args": ["x", "m", {"op": "abs", "args": ["v"]}, "w", "m"], "eps": 0.01})"},
      {"batch_norm 2-D float64, bias only",
       R"({"name": "x", "dtype": "float64", "shape": [6, 4]}, {"name": "m", "dtype": "float64", "shape": [4]},
          {"name": "v", "dtype": "float64", "shape": [4]})",
       R"({"name": "y", "op": "batch_norm", "args": ["x", "m", {"op": "exp", "args": ["v"]}, null, "m"]})"},
      {"batch_norm 3-D, no affine",
       R"({"name": "x", "dtype": "float32", "shape": [2, 3, 7]}, {"name": "v", "dtype": "float32", "shape": [3]})",
       R"({"name": "y", "op": "batch_norm", "args": ["x", "v", {"op": "mul", "args": ["v", "v"]}]})"},
      {"hardswish, hardsigmoid over [-6, 6]", R"({"name": "x", "dtype": "float32", "shape": [64]})",
       R"({"name": "s", "op": "mul", "args": ["x", 3]}, {"name": "a", "op": "hardswish", "args": ["s"]},
          {"name": "y", "op": "add", "args": ["a", {"op": "hardsigmoid", "args": ["s"]}]})"},
      {"softplus default and past the threshold", R"({"name": "x", "dtype": "float32", "shape": [64]})",
       R"({"name": "y", "op": "softplus", "args": [{"op": "mul", "args": ["x", 12]}]})"},
      {"softplus beta and threshold float64", R"({"name": "x", "dtype": "float64", "shape": [64]})",
       R"({"name": "y", "op": "softplus", "args": ["x"], "beta": 3, "threshold": 2})"},
      {"elu alpha", R"({"name": "x", "dtype": "float32", "shape": [64]})",
       R"({"name": "y", "op": "elu", "args": ["x"], "alpha": 1.7})"},
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    cross_check(graph::parse_graph(model(c.inputs, "", c.nodes)), seed++);
  }
}

TEST(InterpExpandCrossCheck, SoftmaxWithInfinities) {
  const graph::Graph g = graph::parse_graph(model(
      "", R"({"name": "c", "dtype": "float32", "shape": [3, 3], "data": [1, "-inf", 2, "-inf", "-inf", "-inf", 0, 0, 0]})",
      R"({"name": "y", "op": "softmax", "args": ["c"], "dim": -1})"));
  cross_check(g, 0);
  const std::vector<Tensor> out = interpret(g, {});
  // a row of -inf is 0/0 (NaN) in PyTorch too
  EXPECT_TRUE(floats_near(out[0], {1 / (1 + std::exp(1.0)), 0, std::exp(1.0) / (1 + std::exp(1.0)), NAN, NAN, NAN,
                                   1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-7));
}

TEST(InterpExpandCrossCheck, SampleModels) {
  const std::filesystem::path dir = std::filesystem::path(STAX_SOURCE_DIR) / "samples";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no samples/";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  uint64_t seed = 100;
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    cross_check(graph::load_graph(f), seed++);
  }
}

}  // namespace
}  // namespace stax::interp::testing

// fold_batch_norms on small graphs: which batch norms fold (into conv1d, conv2d, linear and
// matmul with constant weights), the folded constants' values, the names kept, and the cases
// that must stay as they are; the folded graph computes what the original does (interpreter).
#include "stax/lowering/fold.h"

#include <gtest/gtest.h>

#include <cmath>

#include "stax/graph/frontend.h"
#include "stax/interp/interpreter.h"

namespace stax::lowering {
namespace {

graph::Graph parse(const std::string& inputs, const std::string& nodes, const std::string& outputs,
                   const std::string& constants) {
  return graph::parse_graph(R"({"format": "stax-graph", "version": 1, "name": "t", "inputs": )" + inputs +
                            R"(, "constants": )" + constants + R"(, "nodes": )" + nodes + R"(, "outputs": )" + outputs + "}");
}

const char* kParams = R"({"name": "m", "dtype": "float64", "shape": [2], "data": [0.5, -1]},
  {"name": "v", "dtype": "float64", "shape": [2], "data": [3, 0.25]},
  {"name": "g", "dtype": "float64", "shape": [2], "data": [2, -0.5]},
  {"name": "be", "dtype": "float64", "shape": [2], "data": [0.125, 4]})";

int count_op(const graph::Graph& g, graph::Op op) {
  int n = 0;
  for (const graph::Value& v : g.values) n += v.kind == graph::ValueKind::Node && v.op == op;
  return n;
}

// The interpreter's outputs of both graphs on the same inputs agree to float64 rounding.
void expect_same_results(const graph::Graph& a, const graph::Graph& b) {
  std::vector<Tensor> inputs;
  for (graph::ValueId id : a.inputs) {
    Tensor t(a[id].dtype, a[id].shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.set_double(i, std::sin(static_cast<double>(i) * 0.7 + 0.3));
    inputs.push_back(t);
  }
  const std::vector<Tensor> x = interp::interpret(a, inputs), y = interp::interpret(b, inputs);
  ASSERT_EQ(x.size(), y.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    ASSERT_EQ(x[k].shape(), y[k].shape());
    for (int64_t i = 0; i < x[k].numel(); ++i) EXPECT_NEAR(x[k].get_double(i), y[k].get_double(i), 1e-12) << k << " " << i;
  }
}

TEST(FoldBatchNorms, IntoConv2dWithBias) {
  const graph::Graph g = parse(R"([{"name": "x", "dtype": "float64", "shape": [1, 1, 3, 3]}])",
                               R"([{"name": "c", "op": "conv2d", "args": ["x", "w", "b"], "padding": 1},
                                   {"name": "n", "op": "batch_norm", "args": ["c", "m", "v", "g", "be"], "eps": 1},
                                   {"name": "r", "op": "relu", "args": ["n"]}])",
                               R"(["r"])",
                               std::string(R"([{"name": "w", "dtype": "float64", "shape": [2, 1, 1, 2], "data": [1, 2, 3, 4]},
                                   {"name": "b", "dtype": "float64", "shape": [2], "data": [1.5, -2]}, )") + kParams + "]");
  std::vector<std::string> log;
  const graph::Graph f = fold_batch_norms(g, &log);
  EXPECT_EQ(log, std::vector<std::string>{"folded batch_norm n into conv2d c"});
  EXPECT_EQ(count_op(f, graph::Op::BatchNorm), 0);
  const graph::ValueId conv = f.find("n");  // the conv, under the batch norm's name
  ASSERT_NE(conv, graph::kNoValue);
  EXPECT_EQ(f[conv].op, graph::Op::Conv2d);
  EXPECT_EQ(f.find("c"), graph::kNoValue);
  // s = g / sqrt(v + eps) = [2 / 2, -0.5 / 1.118...]; w' = w * s; b' = (b - m) * s + beta.
  const Tensor& w = f[f[conv].args[1].value].data;
  const Tensor& b = f[f[conv].args[2].value].data;
  const double s1 = -0.5 / std::sqrt(1.25);
  EXPECT_EQ(f[f[conv].args[1].value].name, "c#folded_weight");
  EXPECT_DOUBLE_EQ(w.get_double(0), 1.0);
  EXPECT_DOUBLE_EQ(w.get_double(1), 2.0);
  EXPECT_DOUBLE_EQ(w.get_double(2), 3 * s1);
  EXPECT_DOUBLE_EQ(w.get_double(3), 4 * s1);
  EXPECT_DOUBLE_EQ(b.get_double(0), (1.5 - 0.5) * 1.0 + 0.125);
  EXPECT_DOUBLE_EQ(b.get_double(1), (-2 + 1) * s1 + 4);
  expect_same_results(g, f);
}

TEST(FoldBatchNorms, IntoConv1dLinearAndMatmulWithoutBias) {
  const std::string consts = std::string(R"([{"name": "w1", "dtype": "float64", "shape": [2, 3, 2], "data": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]},
      {"name": "wl", "dtype": "float64", "shape": [2, 3], "data": [1, -2, 3, -4, 5, -6]},
      {"name": "wm", "dtype": "float64", "shape": [3, 2], "data": [1, -2, 3, -4, 5, -6]}, )") + kParams + "]";
  const graph::Graph g = parse(R"([{"name": "x", "dtype": "float64", "shape": [2, 3, 5]}, {"name": "y", "dtype": "float64", "shape": [4, 3]}])",
                               R"([{"name": "c", "op": "conv1d", "args": ["x", "w1"], "stride": 2},
                                   {"name": "n1", "op": "batch_norm", "args": ["c", "m", "v", "g", "be"]},
                                   {"name": "l", "op": "linear", "args": ["y", "wl"]},
                                   {"name": "n2", "op": "batch_norm", "args": ["l", "m", "v", null, "be"]},
                                   {"name": "p", "op": "matmul", "args": ["y", "wm"]},
                                   {"name": "n3", "op": "batch_norm", "args": ["p", "m", "v", "g"]}])",
                               R"(["n1", "n2", "n3"])", consts);
  std::vector<std::string> log;
  const graph::Graph f = fold_batch_norms(g, &log);
  EXPECT_EQ(log, (std::vector<std::string>{"folded batch_norm n1 into conv1d c", "folded batch_norm n2 into linear l",
                                           "folded batch_norm n3 into matmul p"}));
  EXPECT_EQ(count_op(f, graph::Op::BatchNorm), 0);
  EXPECT_EQ(f[f.find("n3")].op, graph::Op::Linear);  // the matmul with a bias now
  expect_same_results(g, f);
}

TEST(FoldBatchNorms, LeavesWhatCannotFold) {
  const std::string consts = std::string(R"([{"name": "w", "dtype": "float64", "shape": [2, 1, 1, 1], "data": [1, 2]},
      {"name": "wl", "dtype": "float64", "shape": [2, 2], "data": [1, 2, 3, 4]}, )") + kParams + "]";
  const std::string x = R"({"name": "x", "dtype": "float64", "shape": [1, 1, 3, 3]})";
  const std::vector<std::pair<std::string, std::string>> graphs = {
      // The conv is also an output.
      {R"([{"name": "c", "op": "conv2d", "args": ["x", "w"]}, {"name": "n", "op": "batch_norm", "args": ["c", "m", "v"]}])",
       R"(["n", "c"])"},
      // The conv has a second user.
      {R"([{"name": "c", "op": "conv2d", "args": ["x", "w"]}, {"name": "n", "op": "batch_norm", "args": ["c", "m", "v"]},
          {"name": "s", "op": "add", "args": ["n", "c"]}])", R"(["s"])"},
      // A weight given at run time.
      {R"([{"name": "c", "op": "conv2d", "args": ["x", "wx"]}, {"name": "n", "op": "batch_norm", "args": ["c", "m", "v"]}])",
       R"(["n"])"},
      // Running statistics given at run time.
      {R"([{"name": "c", "op": "conv2d", "args": ["x", "w"]}, {"name": "n", "op": "batch_norm", "args": ["c", "mx", "v"]}])",
       R"(["n"])"},
      // Not after a layer.
      {R"([{"name": "n", "op": "batch_norm", "args": [{"op": "exp", "args": ["x2"]}, "m", "v"]}])", R"(["n"])"},
      // A linear layer on [N, L, C]: batch_norm would normalize L.
      {R"([{"name": "l", "op": "linear", "args": ["y3", "wl"]}, {"name": "n", "op": "batch_norm", "args": ["l", "m", "v"]}])",
       R"(["n"])"},
  };
  const std::string inputs = "[" + std::string(x) + R"(, {"name": "wx", "dtype": "float64", "shape": [2, 1, 1, 1]},
      {"name": "mx", "dtype": "float64", "shape": [2]}, {"name": "x2", "dtype": "float64", "shape": [3, 2]},
      {"name": "y3", "dtype": "float64", "shape": [1, 2, 2]}])";
  for (const auto& [nodes, outputs] : graphs) {
    const graph::Graph g = parse(inputs, nodes, outputs, consts);
    std::vector<std::string> log;
    const graph::Graph f = fold_batch_norms(g, &log);
    EXPECT_TRUE(log.empty()) << nodes;
    EXPECT_EQ(f.values.size(), g.values.size()) << nodes;
    EXPECT_EQ(count_op(f, graph::Op::BatchNorm), 1) << nodes;
  }
}

// fold_pads_into_pools: each pool of `nodes` over x [1, 2, 5, 20] (float64).
struct PadFold {
  graph::Graph g, f;
  std::vector<std::string> log;
};
PadFold pad_fold(const std::string& nodes, const std::string& outputs) {
  PadFold r;
  r.g = parse(R"([{"name": "x", "dtype": "float64", "shape": [1, 2, 5, 20]}])", nodes, outputs, "[]");
  r.f = fold_pads_into_pools(r.g, &r.log);
  return r;
}

TEST(FoldPadsIntoPools, ZeroPadsIntoAnAverageAndMinusInfIntoAMaximum) {
  const PadFold r = pad_fold(R"([{"name": "p", "op": "pad", "args": ["x"], "pad": [1, 1, 1, 1]},
                                 {"name": "a", "op": "avg_pool2d", "args": ["p"], "kernel_size": 3, "stride": 1},
                                 {"name": "q", "op": "pad", "args": ["x"], "pad": [2, 2], "value": "-inf"},
                                 {"name": "m", "op": "max_pool2d", "args": ["q"], "kernel_size": [3, 5], "stride": 1},
                                 {"name": "d", "op": "avg_pool2d", "args": ["p"], "kernel_size": 2, "stride": 1, "divisor_override": 3}])",
                             R"(["a", "m", "d"])");
  EXPECT_EQ(r.log, (std::vector<std::string>{"folded pad p into avg_pool2d a", "folded pad q into max_pool2d m",
                                             "folded pad p into avg_pool2d d"}));
  const graph::Value& a = r.f[r.f.find("a")];
  EXPECT_EQ(a.args[0].value, r.f.find("x"));
  EXPECT_EQ(a.attrs.pad_begin, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(a.attrs.pad_end, (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(a.attrs.count_include_pad);
  const graph::Value& m = r.f[r.f.find("m")];
  EXPECT_EQ(m.args[0].value, r.f.find("x"));
  EXPECT_EQ(m.attrs.pad_begin, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(m.attrs.pad_end, (std::vector<int64_t>{0, 2}));
  expect_same_results(r.g, r.f);
}

TEST(FoldPadsIntoPools, LeavesWhatIsNotThePoolsOwnPadding) {
  const PadFold r = pad_fold(R"([{"name": "u", "op": "pad", "args": ["x"], "pad": [1, 0, 1, 1]},
                                 {"name": "a1", "op": "avg_pool2d", "args": ["u"], "kernel_size": 3},
                                 {"name": "c", "op": "pad", "args": ["x"], "pad": [1, 1, 1, 1, 1, 1]},
                                 {"name": "a2", "op": "avg_pool2d", "args": ["c"], "kernel_size": 3},
                                 {"name": "o", "op": "pad", "args": ["x"], "pad": [1, 1, 1, 1], "value": 1},
                                 {"name": "a3", "op": "avg_pool2d", "args": ["o"], "kernel_size": 3},
                                 {"name": "z", "op": "pad", "args": ["x"], "pad": [1, 1, 1, 1]},
                                 {"name": "m1", "op": "max_pool2d", "args": ["z"], "kernel_size": 3},
                                 {"name": "w", "op": "pad", "args": ["x"], "pad": [2, 2, 2, 2]},
                                 {"name": "a4", "op": "avg_pool2d", "args": ["w"], "kernel_size": 3},
                                 {"name": "a5", "op": "avg_pool2d", "args": ["z"], "kernel_size": 3, "ceil_mode": true, "stride": 2},
                                 {"name": "a6", "op": "avg_pool2d", "args": ["z"], "kernel_size": 3, "padding": 1},
                                 {"name": "a7", "op": "avg_pool2d", "args": ["z"], "kernel_size": 3, "stride": 2}])",
                             R"(["a1", "a2", "a3", "m1", "a4", "a5", "a6", "a7"])");
  EXPECT_TRUE(r.log.empty()) << r.log.front();
  for (const char* pool : {"a1", "a2", "a3", "m1", "a4", "a5", "a6", "a7"})
    EXPECT_EQ(r.g[r.g.find(pool)].args[0].value, r.f[r.f.find(pool)].args[0].value) << pool;
  expect_same_results(r.g, r.f);
}

}  // namespace
}  // namespace stax::lowering

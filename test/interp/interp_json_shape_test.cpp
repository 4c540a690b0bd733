// Reductions, arg reductions, scans, views, cat, pad, matmul and the composites as JSON graphs
// with literal expected values (negative dims, keepdim, 0-d tensors, views of views).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "interp_json_util.h"

namespace stax::interp::testing {
namespace {

const double kNan = std::nan("");
const double kInf = std::numeric_limits<double>::infinity();

// x[i][j][k] = 6i + 3j + k, float32 [2, 2, 3]
const std::string kX = constant("x", "float32", "[2, 2, 3]", "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]");

Tensor on_x(const std::string& node) { return eval_y({kX}, node); }

TEST(InterpJsonReduce, SumDimsKeepdimAndNegativeDims) {
  const Tensor a = on_x(R"({"name": "y", "op": "sum", "args": ["x"], "dim": -1})");
  EXPECT_EQ(a.shape(), (Shape{2, 2}));
  EXPECT_EQ(doubles(a), (std::vector<double>{3, 12, 21, 30}));
  const Tensor b = on_x(R"({"name": "y", "op": "sum", "args": ["x"], "dim": [0, -1], "keepdim": true})");
  EXPECT_EQ(b.shape(), (Shape{1, 2, 1}));
  EXPECT_EQ(doubles(b), (std::vector<double>{24, 42}));
  const Tensor c = on_x(R"({"name": "y", "op": "sum", "args": ["x"]})");
  EXPECT_EQ(c.shape(), Shape{});
  EXPECT_EQ(doubles(c), (std::vector<double>{66}));
  const Tensor d = on_x(R"({"name": "y", "op": "sum", "args": ["x"], "keepdim": true})");
  EXPECT_EQ(d.shape(), (Shape{1, 1, 1}));
  const Tensor z = eval_y({constant("s", "float64", "[]", "[2.5]")}, R"({"name": "y", "op": "sum", "args": ["s"], "dim": -1})");
  EXPECT_EQ(z.shape(), Shape{});
  EXPECT_EQ(doubles(z), (std::vector<double>{2.5}));
}

TEST(InterpJsonReduce, MeanProdAmaxAminAnyAll) {
  EXPECT_EQ(doubles(on_x(R"({"name": "y", "op": "mean", "args": ["x"], "dim": 1})")),
            (std::vector<double>{1.5, 2.5, 3.5, 7.5, 8.5, 9.5}));
  const Tensor p = eval_y({constant("i", "int32", "[2, 3]", "[1, 2, 3, 4, 5, 6]")},
                          R"({"name": "y", "op": "prod", "args": ["i"], "dim": -1})");
  EXPECT_EQ(p.dtype(), DType::Int64);
  EXPECT_EQ(ints(p), (std::vector<int64_t>{6, 120}));
  EXPECT_EQ(doubles(eval_y({constant("f", "float64", "[2, 2]", "[1.5, -2, 0.5, 4]")},
                           R"({"name": "y", "op": "prod", "args": ["f"], "dim": 0})")),
            (std::vector<double>{0.75, -8}));
  const std::string n = constant("n", "float32", "[2, 2]", "[1, \"nan\", 3, -1]");
  EXPECT_TRUE(floats_near(eval_y({n}, R"({"name": "y", "op": "amax", "args": ["n"], "dim": 0})"), {3, kNan}));
  EXPECT_TRUE(floats_near(eval_y({n}, R"({"name": "y", "op": "amin", "args": ["n"], "dim": 0})"), {1, kNan}));
  EXPECT_TRUE(floats_near(eval_y({n}, R"({"name": "y", "op": "amin", "args": ["n"], "dim": 1})"), {kNan, -1}));
  const std::string b = constant("b", "bool", "[2, 3]", "[true, false, true, true, true, true]");
  const Tensor any = eval_y({b}, R"({"name": "y", "op": "any", "args": ["b"], "dim": 0})");
  EXPECT_EQ(any.dtype(), DType::Bool);
  EXPECT_EQ(ints(any), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(ints(eval_y({b}, R"({"name": "y", "op": "all", "args": ["b"], "dim": -1})")), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(ints(eval_y({b}, R"({"name": "y", "op": "all", "args": ["b"]})")), (std::vector<int64_t>{0}));
  EXPECT_EQ(ints(eval_y({constant("i", "int64", "[3]", "[0, 0, 5]")}, R"({"name": "y", "op": "any", "args": ["i"]})")),
            (std::vector<int64_t>{1}));
}

TEST(InterpJsonReduce, VarStdCorrections) {
  // every row of x along the last dim is [a, a+1, a+2]: squared deviations sum to 2
  EXPECT_TRUE(floats_near(on_x(R"({"name": "y", "op": "var", "args": ["x"], "dim": -1})"), {1, 1, 1, 1}));
  EXPECT_TRUE(floats_near(on_x(R"({"name": "y", "op": "var", "args": ["x"], "dim": -1, "correction": 0})"),
                          {2.0 / 3, 2.0 / 3, 2.0 / 3, 2.0 / 3}));
  EXPECT_TRUE(floats_near(on_x(R"({"name": "y", "op": "var", "args": ["x"], "dim": 2, "correction": 2.5})"), {4, 4, 4, 4}));
  EXPECT_TRUE(floats_near(on_x(R"({"name": "y", "op": "std", "args": ["x"], "dim": -1, "correction": 0})"),
                          {0.816496580927726, 0.816496580927726, 0.816496580927726, 0.816496580927726}));
  // over dims 0 and 1: [k, 3+k, 6+k, 9+k], mean 4.5+k, squared deviations 45 -> 15 with correction 1
  const Tensor v = on_x(R"({"name": "y", "op": "var", "args": ["x"], "dim": [0, 1], "keepdim": true})");
  EXPECT_EQ(v.shape(), (Shape{1, 1, 3}));
  EXPECT_TRUE(floats_near(v, {15, 15, 15}));
  // all dims: 0..11, squared deviations 143 -> 13
  EXPECT_TRUE(floats_near(on_x(R"({"name": "y", "op": "std", "args": ["x"]})"), {std::sqrt(13.0)}, 1e-7));
}

TEST(InterpJsonReduce, Logsumexp) {
  const std::string v = constant("v", "float64", "[2, 3]", "[1, 2, 3, \"-inf\", \"-inf\", \"-inf\"]");
  EXPECT_TRUE(floats_near(eval_y({v}, R"({"name": "y", "op": "logsumexp", "args": ["v"], "dim": -1})"),
                          {3.40760596444438, -kInf}, 1e-15));
  EXPECT_TRUE(floats_near(eval_y({v}, R"({"name": "y", "op": "logsumexp", "args": ["v"]})"), {3.40760596444438}, 1e-15));
  const Tensor f = eval_y({constant("w", "float32", "[3]", "[1, 2, 3]")}, R"({"name": "y", "op": "logsumexp", "args": ["w"], "dim": 0})");
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(doubles(f), (std::vector<double>{3.4076058864593506}));
}

TEST(InterpJsonReduce, ArgmaxArgminTiesNanFlattened) {
  const std::string a = constant("a", "float32", "[2, 3]", "[1, 3, 3, \"nan\", 0, \"nan\"]");
  const Tensor m = eval_y({a}, R"({"name": "y", "op": "argmax", "args": ["a"], "dim": -1, "keepdim": true})");
  EXPECT_EQ(m.dtype(), DType::Int64);
  EXPECT_EQ(m.shape(), (Shape{2, 1}));
  EXPECT_EQ(ints(m), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ints(eval_y({a}, R"({"name": "y", "op": "argmin", "args": ["a"], "dim": 1})")), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(ints(eval_y({a}, R"({"name": "y", "op": "argmax", "args": ["a"]})")), (std::vector<int64_t>{3}));
  const std::string i = constant("i", "int32", "[2, 2]", "[2, 0, 0, 1]");
  const Tensor f = eval_y({i}, R"({"name": "y", "op": "argmin", "args": ["i"]})");
  EXPECT_EQ(f.shape(), Shape{});
  EXPECT_EQ(ints(f), (std::vector<int64_t>{1}));
  EXPECT_EQ(ints(eval_y({i}, R"({"name": "y", "op": "argmax", "args": ["i"], "dim": 0})")), (std::vector<int64_t>{0, 1}));
}

TEST(InterpJsonScan, CumsumCumprod) {
  const std::string i = constant("i", "int32", "[2, 3]", "[1, 2, 3, 4, 5, 6]");
  const Tensor s = eval_y({i}, R"({"name": "y", "op": "cumsum", "args": ["i"], "dim": -1})");
  EXPECT_EQ(s.dtype(), DType::Int64);
  EXPECT_EQ(ints(s), (std::vector<int64_t>{1, 3, 6, 4, 9, 15}));
  const Tensor p = eval_y({constant("f", "float32", "[2, 3]", "[1, 2, 3, 4, 5, 6]")},
                          R"({"name": "y", "op": "cumprod", "args": ["f"], "dim": 0})");
  EXPECT_EQ(p.dtype(), DType::Float32);
  EXPECT_EQ(doubles(p), (std::vector<double>{1, 2, 3, 4, 10, 18}));
  EXPECT_EQ(ints(eval_y({i}, R"({"name": "y", "op": "cumprod", "args": ["i"], "dim": 1})")),
            (std::vector<int64_t>{1, 2, 6, 4, 20, 120}));
}

TEST(InterpJsonView, ReshapePermuteTransposeFlatten) {
  const Tensor r = on_x(R"({"name": "y", "op": "reshape", "args": ["x"], "shape": [-1, 4]})");
  EXPECT_EQ(r.shape(), (Shape{3, 4}));
  EXPECT_EQ(doubles(r), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  const Tensor p = on_x(R"({"name": "y", "op": "permute", "args": ["x"], "dims": [-1, 0, 1]})");
  EXPECT_EQ(p.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(doubles(p), (std::vector<double>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  const Tensor t = on_x(R"({"name": "y", "op": "transpose", "args": ["x"], "dim0": -1, "dim1": 0})");
  EXPECT_EQ(t.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(doubles(t), (std::vector<double>{0, 6, 3, 9, 1, 7, 4, 10, 2, 8, 5, 11}));
  const Tensor f = on_x(R"({"name": "y", "op": "flatten", "args": ["x"], "start_dim": 1})");
  EXPECT_EQ(f.shape(), (Shape{2, 6}));
  EXPECT_EQ(on_x(R"({"name": "y", "op": "flatten", "args": ["x"]})").shape(), (Shape{12}));
  const Tensor z = eval_y({constant("s", "int32", "[]", "[4]")}, R"({"name": "y", "op": "reshape", "args": ["s"], "shape": [1, 1]})");
  EXPECT_EQ(z.shape(), (Shape{1, 1}));
  EXPECT_EQ(ints(z), (std::vector<int64_t>{4}));
}

TEST(InterpJsonView, ExpandUnsqueezeSqueeze) {
  const std::string r = constant("r", "int64", "[1, 3]", "[1, 2, 3]");
  const Tensor e = eval_y({r}, R"({"name": "y", "op": "expand", "args": ["r"], "shape": [2, -1]})");
  EXPECT_EQ(e.shape(), (Shape{2, 3}));
  EXPECT_EQ(ints(e), (std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
  const Tensor e3 = eval_y({r}, R"({"name": "y", "op": "expand", "args": ["r"], "shape": [2, 2, 3]})");
  EXPECT_EQ(ints(e3), (std::vector<int64_t>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(eval_y({r}, R"({"name": "y", "op": "unsqueeze", "args": ["r"], "dim": -1})").shape(), (Shape{1, 3, 1}));
  EXPECT_EQ(eval_y({r}, R"({"name": "y", "op": "unsqueeze", "args": ["r"], "dim": 1})").shape(), (Shape{1, 1, 3}));
  const std::string s = constant("s", "int64", "[1, 2, 1, 3]", "[1, 2, 3, 4, 5, 6]");
  const Tensor q = eval_y({s}, R"({"name": "y", "op": "squeeze", "args": ["s"]})");
  EXPECT_EQ(q.shape(), (Shape{2, 3}));
  EXPECT_EQ(ints(q), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(eval_y({s}, R"({"name": "y", "op": "squeeze", "args": ["s"], "dim": [0, 1]})").shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(eval_y({s}, R"({"name": "y", "op": "squeeze", "args": ["s"], "dim": -2})").shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(eval_y({s}, R"({"name": "y", "op": "squeeze", "args": ["s"], "dim": 1})").shape(), (Shape{1, 2, 1, 3}));
}

TEST(InterpJsonView, SliceAndSelect) {
  const Tensor a = on_x(R"({"name": "y", "op": "slice", "args": ["x"], "dim": -1, "start": -2})");
  EXPECT_EQ(a.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(doubles(a), (std::vector<double>{1, 2, 4, 5, 7, 8, 10, 11}));
  const std::string v = constant("v", "int32", "[5]", "[10, 11, 12, 13, 14]");
  EXPECT_EQ(ints(eval_y({v}, R"({"name": "y", "op": "slice", "args": ["v"], "dim": 0, "start": 0, "end": 100, "step": 2})")),
            (std::vector<int64_t>{10, 12, 14}));
  EXPECT_EQ(ints(eval_y({v}, R"({"name": "y", "op": "slice", "args": ["v"], "dim": 0, "start": -100, "end": -1, "step": 3})")),
            (std::vector<int64_t>{10, 13}));
  const Tensor s = on_x(R"({"name": "y", "op": "select", "args": ["x"], "dim": -1, "index": -1})");
  EXPECT_EQ(s.shape(), (Shape{2, 2}));
  EXPECT_EQ(doubles(s), (std::vector<double>{2, 5, 8, 11}));
  const Tensor s0 = eval_y({v}, R"({"name": "y", "op": "select", "args": ["v"], "dim": 0, "index": 3})");
  EXPECT_EQ(s0.shape(), Shape{});
  EXPECT_EQ(ints(s0), (std::vector<int64_t>{13}));
}

TEST(InterpJsonView, ViewsOfViews) {
  // t = x.transpose(0, 2) -> [3, 2, 2], t[k][j][i] = x[i][j][k]; u = t[1:, :, 1] -> [2, 2];
  // u[a][j] = x[1][j][1 + a]; y = u.reshape(4).expand(2, 4).select(0, 1); p permutes u[None]
  const std::string nodes = R"(
    {"name": "t", "op": "transpose", "args": ["x"], "dim0": 0, "dim1": 2},
    {"name": "s", "op": "slice", "args": ["t"], "dim": 0, "start": 1},
    {"name": "u", "op": "select", "args": ["s"], "dim": -1, "index": 1},
    {"name": "r", "op": "reshape", "args": ["u"], "shape": [4]},
    {"name": "e", "op": "expand", "args": ["r"], "shape": [2, 4]},
    {"name": "y", "op": "select", "args": ["e"], "dim": 0, "index": 1},
    {"name": "p", "op": "permute", "args": [{"op": "unsqueeze", "args": ["u"], "dim": 0}], "dims": [2, 0, 1]})";
  const auto out = eval_all({kX}, nodes, {"u", "y", "p"});
  EXPECT_EQ(doubles(out[0]), (std::vector<double>{7, 10, 8, 11}));
  EXPECT_EQ(doubles(out[1]), (std::vector<double>{7, 10, 8, 11}));
  EXPECT_EQ(out[2].shape(), (Shape{2, 1, 2}));
  EXPECT_EQ(doubles(out[2]), (std::vector<double>{7, 8, 10, 11}));
}

TEST(InterpJsonCatPad, CatPromotesAlongNegativeDim) {
  const std::vector<std::string> cs = {constant("a", "int32", "[2, 1]", "[7, 8]"),
                                       constant("b", "float32", "[2, 2]", "[0.5, 1.5, 2.5, 3.5]")};
  const Tensor c = eval_y(cs, R"({"name": "y", "op": "cat", "args": ["a", "b"], "dim": -1})");
  EXPECT_EQ(c.dtype(), DType::Float32);
  EXPECT_EQ(c.shape(), (Shape{2, 3}));
  EXPECT_EQ(doubles(c), (std::vector<double>{7, 0.5, 1.5, 8, 2.5, 3.5}));
  const Tensor c0 = eval_y(cs, R"({"name": "y", "op": "cat", "args": ["b", "b"], "dim": 0})");
  EXPECT_EQ(doubles(c0), (std::vector<double>{0.5, 1.5, 2.5, 3.5, 0.5, 1.5, 2.5, 3.5}));
  EXPECT_EQ(ints(eval_y(cs, R"({"name": "y", "op": "cat", "args": ["a"], "dim": 0})")), (std::vector<int64_t>{7, 8}));
}

TEST(InterpJsonCatPad, ConstantPadAndCrop) {
  const std::string m = constant("m", "float32", "[2, 2]", "[1, 2, 3, 4]");
  const Tensor p = eval_y({m}, R"({"name": "y", "op": "pad", "args": ["m"], "pad": [1, 2], "value": 9})");
  EXPECT_EQ(p.shape(), (Shape{2, 5}));
  EXPECT_EQ(doubles(p), (std::vector<double>{9, 1, 2, 9, 9, 9, 3, 4, 9, 9}));
  const Tensor q = eval_y({m}, R"({"name": "y", "op": "pad", "args": ["m"], "pad": [-1, 0, 1, 0]})");
  EXPECT_EQ(q.shape(), (Shape{3, 1}));
  EXPECT_EQ(doubles(q), (std::vector<double>{0, 2, 4}));
  const Tensor n = eval_y({constant("v", "float64", "[2]", "[1, 2]")},
                          R"({"name": "y", "op": "pad", "args": ["v"], "pad": [1, 1], "value": "-inf"})");
  EXPECT_EQ(doubles(n), (std::vector<double>{-kInf, 1, 2, -kInf}));
  const Tensor i = eval_y({constant("i", "int32", "[3]", "[1, 2, 3]")}, R"({"name": "y", "op": "pad", "args": ["i"], "pad": [0, -2]})");
  EXPECT_EQ(ints(i), (std::vector<int64_t>{1}));
}

TEST(InterpJsonMatmul, Shapes) {
  const std::vector<std::string> cs = {constant("m", "float32", "[2, 3]", "[1, 2, 3, 4, 5, 6]"),
                                       constant("v", "float32", "[3]", "[1, 0, -1]"),
                                       constant("w", "float32", "[3, 2]", "[1, 0, 0, 1, 1, 1]"),
                                       constant("b", "float32", "[2, 2, 3]", "[1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1]")};
  const Tensor mv = eval_y(cs, R"({"name": "y", "op": "matmul", "args": ["m", "v"]})");
  EXPECT_EQ(mv.shape(), (Shape{2}));
  EXPECT_EQ(doubles(mv), (std::vector<double>{-2, -2}));
  const Tensor vm = eval_y(cs, R"({"name": "y", "op": "matmul", "args": ["v", "w"]})");
  EXPECT_EQ(vm.shape(), (Shape{2}));
  EXPECT_EQ(doubles(vm), (std::vector<double>{0, -1}));
  const Tensor mm = eval_y(cs, R"({"name": "y", "op": "matmul", "args": ["m", "w"]})");
  EXPECT_EQ(doubles(mm), (std::vector<double>{4, 5, 10, 11}));
  const Tensor bm = eval_y(cs, R"({"name": "y", "op": "matmul", "args": ["b", "w"]})");
  EXPECT_EQ(bm.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(doubles(bm), (std::vector<double>{1, 0, 0, 1, 1, 1, 2, 2}));
  const Tensor dot = eval_y(cs, R"({"name": "y", "op": "matmul", "args": ["v", "v"]})");
  EXPECT_EQ(dot.shape(), Shape{});
  EXPECT_EQ(doubles(dot), (std::vector<double>{2}));
  const Tensor im = eval_y({constant("i", "int32", "[2, 2]", "[1, 2, 3, 4]")}, R"({"name": "y", "op": "matmul", "args": ["i", "i"]})");
  EXPECT_EQ(im.dtype(), DType::Int32);
  EXPECT_EQ(ints(im), (std::vector<int64_t>{7, 10, 15, 22}));
}

TEST(InterpJsonComposite, SoftmaxAndLogSoftmax) {
  const std::string s = constant("s", "float64", "[2, 2]", "[0, 1.0986122886681098, 5, 5]");  // ln 3
  EXPECT_TRUE(floats_near(eval_y({s}, R"({"name": "y", "op": "softmax", "args": ["s"], "dim": -1})"), {0.25, 0.75, 0.5, 0.5}, 1e-15));
  EXPECT_TRUE(floats_near(eval_y({s}, R"({"name": "y", "op": "log_softmax", "args": ["s"], "dim": 1})"),
                          {-1.3862943611198906, -0.2876820724517809, std::log(0.5), std::log(0.5)}, 1e-15));
  const Tensor f = eval_y({constant("f", "float32", "[2, 1]", "[1000, 1000]")}, R"({"name": "y", "op": "softmax", "args": ["f"], "dim": 0})");
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(doubles(f), (std::vector<double>{0.5, 0.5}));
}

TEST(InterpJsonComposite, LayerNorm) {
  const std::vector<std::string> cs = {constant("x", "float64", "[1, 2, 2]", "[1, 2, 3, 4]"),
                                       constant("w", "float64", "[2, 2]", "[1, 2, 3, 4]"),
                                       constant("b", "float64", "[2, 2]", "[0, 0, 0, 1]"),
                                       constant("r", "float64", "[2, 3]", "[1, 2, 3, -1, -1, -1]")};
  // mean 2.5, biased var 1.25
  EXPECT_TRUE(floats_near(eval_y(cs, R"({"name": "y", "op": "layer_norm", "args": ["x", "w", "b"], "normalized_shape": [2, 2], "eps": 0})"),
                          {-1.3416407864998738, -0.8944271909999159, 1.3416407864998738, 6.366563145999495}, 1e-15));
  EXPECT_TRUE(floats_near(eval_y(cs, R"({"name": "y", "op": "layer_norm", "args": ["x", null, "b"], "normalized_shape": [2, 2], "eps": 0})"),
                          {-1.3416407864998738, -0.4472135954999579, 0.4472135954999579, 2.3416407864998738}, 1e-15));
  // default eps 1e-5; a constant row normalizes to 0
  EXPECT_TRUE(floats_near(eval_y(cs, R"({"name": "y", "op": "layer_norm", "args": ["r"], "normalized_shape": 3})"),
                          {-1.2247356859083902, 0, 1.2247356859083902, 0, 0, 0}, 1e-15));
}

TEST(InterpJsonComposite, RmsNormAndLinear) {
  const std::vector<std::string> cs = {constant("x", "float32", "[1, 2]", "[3, 4]"),
                                       constant("w", "float32", "[2]", "[1, 2]")};
  // mean of squares 12.5; eps defaults to float32's machine epsilon
  EXPECT_EQ(doubles(eval_y(cs, R"({"name": "y", "op": "rms_norm", "args": ["x"], "normalized_shape": [2]})")),
            (std::vector<double>{0.8485281467437744, 1.1313709020614624}));
  EXPECT_TRUE(floats_near(eval_y(cs, R"({"name": "y", "op": "rms_norm", "args": ["x", "w"], "normalized_shape": 2, "eps": 0})"),
                          {3 / std::sqrt(12.5), 8 / std::sqrt(12.5)}, 1e-7));
  const std::vector<std::string> ls = {constant("x", "float64", "[2, 3]", "[1, 2, 3, 4, 5, 6]"),
                                       constant("w", "float64", "[2, 3]", "[1, 0, 0, 0, 1, 1]"),
                                       constant("b", "float64", "[2]", "[0.5, -1]"),
                                       constant("v", "float64", "[3]", "[1, 1, 1]")};
  const Tensor l = eval_y(ls, R"({"name": "y", "op": "linear", "args": ["x", "w", "b"]})");
  EXPECT_EQ(l.shape(), (Shape{2, 2}));
  EXPECT_EQ(doubles(l), (std::vector<double>{1.5, 4, 4.5, 10}));
  EXPECT_EQ(doubles(eval_y(ls, R"({"name": "y", "op": "linear", "args": ["x", "w"]})")), (std::vector<double>{1, 5, 4, 11}));
  const Tensor lv = eval_y(ls, R"({"name": "y", "op": "linear", "args": ["x", "v"]})");
  EXPECT_EQ(lv.shape(), (Shape{2}));
  EXPECT_EQ(doubles(lv), (std::vector<double>{6, 15}));
}

}  // namespace
}  // namespace stax::interp::testing

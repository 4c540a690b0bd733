// Convolutions, pools, batch_norm, the indexing ops and the new activations as JSON graphs with
// hand-computed values: groups, dilation, stride, "same" with an even kernel, -inf padding of
// max_pool2d and its all-padding windows, count_include_pad, divisor_override, ceil_mode and its
// dropped last window, adaptive windows, and indices out of range.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "interp_json_util.h"
#include "stax/support/error.h"

namespace stax::interp::testing {
namespace {

const double kNan = std::nan("");
const double kInf = std::numeric_limits<double>::infinity();

std::string f32c(const std::string& name, const std::string& shape, const std::string& data) {
  return constant(name, "float32", shape, data);
}

// The message of the RuntimeFailure evaluating `nodes` raises, or "" when it succeeds.
std::string failure_of(const std::vector<std::string>& constants, const std::string& nodes) {
  try {
    eval_y(constants, nodes);
  } catch (const RuntimeFailure& e) {
    return e.what();
  }
  return "";
}

TEST(InterpConv, Conv1dPaddingStrideDilationBias) {
  // out[l] = x[l - 1] - x[l + 1] + 0.5
  const Tensor a = eval_y({f32c("x", "[1, 1, 5]", "[1, 2, 3, 4, 5]"), f32c("w", "[1, 1, 3]", "[1, 0, -1]"),
                           f32c("b", "[1]", "[0.5]")},
                          R"({"name": "y", "op": "conv1d", "args": ["x", "w", "b"], "padding": 1})");
  EXPECT_EQ(a.shape(), (Shape{1, 1, 5}));
  EXPECT_TRUE(floats_near(a, {-1.5, -1.5, -1.5, -1.5, 4.5}));
  // stride 2, dilation 2: out[i] = x[2i] + 10 x[2i + 2]
  const Tensor b = eval_y({f32c("x", "[1, 1, 7]", "[0, 1, 2, 3, 4, 5, 6]"), f32c("w", "[1, 1, 2]", "[1, 10]")},
                          R"({"name": "y", "op": "conv1d", "args": ["x", "w"], "stride": 2, "dilation": 2})");
  EXPECT_TRUE(floats_near(b, {20, 42, 64}));
}

TEST(InterpConv, Conv2dGroupsAndDepthwise) {
  // groups 2: out0 = x0 + 10 x1, out1 = 100 x2 + 1000 x3
  const Tensor g = eval_y({f32c("x", "[1, 4, 1, 1]", "[1, 2, 3, 4]"), f32c("w", "[2, 2, 1, 1]", "[1, 10, 100, 1000]")},
                          R"({"name": "y", "op": "conv2d", "args": ["x", "w"], "groups": 2})");
  EXPECT_TRUE(floats_near(g, {21, 4300}));
  // depthwise (groups = C): channel 0 adds the diagonal neighbours, channel 1 sums 2x2 windows
  const Tensor d = eval_y({f32c("x", "[1, 2, 3, 3]", "[1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1]"),
                           f32c("w", "[2, 1, 2, 2]", "[1, 0, 0, 1, 1, 1, 1, 1]")},
                          R"({"name": "y", "op": "conv2d", "args": ["x", "w"], "groups": 2})");
  EXPECT_EQ(d.shape(), (Shape{1, 2, 2, 2}));
  EXPECT_TRUE(floats_near(d, {6, 8, 12, 14, 4, 4, 4, 4}));
  // several input channels per output, and a batch of 2
  const Tensor m = eval_y({f32c("x", "[2, 2, 1, 2]", "[1, 2, 3, 4, 5, 6, 7, 8]"), f32c("w", "[1, 2, 1, 1]", "[1, -1]")},
                          R"({"name": "y", "op": "conv2d", "args": ["x", "w"]})");
  EXPECT_TRUE(floats_near(m, {-2, -2, -2, -2}));
}

TEST(InterpConv, SamePaddingWithAnEvenKernelPadsTheEnd) {
  // total padding 1 goes on the right: out[j] = x[j] + 10 x[j + 1], x[4] = 0
  const Tensor s = eval_y({f32c("x", "[1, 1, 1, 4]", "[1, 2, 3, 4]"), f32c("w", "[1, 1, 1, 2]", "[1, 10]")},
                          R"({"name": "y", "op": "conv2d", "args": ["x", "w"], "padding": "same"})");
  EXPECT_EQ(s.shape(), (Shape{1, 1, 1, 4}));
  EXPECT_TRUE(floats_near(s, {21, 32, 43, 4}));
  // dilation 3, kernel 2: total 3, one before and two after: out[j] = x[j - 1] + 10 x[j + 2]
  const Tensor d = eval_y({f32c("x", "[1, 1, 5]", "[1, 2, 3, 4, 5]"), f32c("w", "[1, 1, 2]", "[1, 10]")},
                          R"({"name": "y", "op": "conv1d", "args": ["x", "w"], "padding": "same", "dilation": 3})");
  EXPECT_TRUE(floats_near(d, {30, 41, 52, 3, 4}));
}

const std::string kNeg = f32c("x", "[1, 1, 3, 3]", "[-1, -2, -3, -4, -5, -6, -7, -8, -9]");

TEST(InterpPool, MaxPoolPadsWithMinusInfinity) {
  // With zero padding every border window would be 0.
  const Tensor p = eval_y({kNeg}, R"({"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": 2, "stride": 1, "padding": 1})");
  EXPECT_EQ(p.shape(), (Shape{1, 1, 4, 4}));
  EXPECT_TRUE(floats_near(p, {-1, -1, -2, -3, -1, -1, -2, -3, -4, -4, -5, -6, -7, -7, -8, -9}));
  // dilation 3 and padding 2 (half the effective kernel 4): taps (-2, 1) and (-1, 2) of a
  // 1-wide input are all padding: -inf.
  const Tensor a = eval_y({f32c("x", "[1, 1, 1]", "[7]")},
                          R"({"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": [1, 2], "stride": 1, "padding": [0, 2], "dilation": [1, 3]})");
  EXPECT_TRUE(floats_near(a, {-kInf, -kInf}));
  const Tensor b = eval_y({f32c("x", "[1, 1, 3]", "[1, 2, 3]")},
                          R"({"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": [1, 2], "stride": 1, "padding": [0, 2], "dilation": [1, 3]})");
  EXPECT_TRUE(floats_near(b, {2, 3, 1, 2}));
  const Tensor n = eval_y({f32c("x", "[1, 2, 2]", "[1, \"nan\", 3, 4]")},
                          R"({"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": [2, 1]})");
  EXPECT_TRUE(floats_near(n, {3, kNan}));
}

TEST(InterpPool, CeilModeAddsAPartialWindowAndDropsOneStartingInThePadding) {
  const std::string x = f32c("x", "[1, 1, 1, 5]", "[1, 2, 3, 4, 5]");
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": [1, 2], "ceil_mode": true})"),
                          {2, 4, 5}));
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": [1, 2]})"), {2, 4}));
  // padding 1: 4 windows by the formula, the last starting at 5 (in the padding) is dropped
  const Tensor d = eval_y({x}, R"({"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": [1, 2], "padding": [0, 1], "ceil_mode": true})");
  EXPECT_EQ(d.shape(), (Shape{1, 1, 1, 3}));
  EXPECT_TRUE(floats_near(d, {1, 3, 5}));
}

TEST(InterpPool, AvgPoolDivisors) {
  const std::string x = f32c("x", "[1, 1, 3, 3]", "[1, 2, 3, 4, 5, 6, 7, 8, 9]");
  const std::string k2 = R"("kernel_size": 2, "stride": 1, "padding": 1)";
  const Tensor with_pad = eval_y({x}, R"({"name": "y", "op": "avg_pool2d", "args": ["x"], )" + k2 + "}");
  EXPECT_TRUE(floats_near(with_pad, {0.25, 0.75, 1.25, 0.75, 1.25, 3, 4, 2.25, 2.75, 6, 7, 3.75, 1.75, 3.75, 4.25, 2.25}));
  const Tensor without = eval_y({x}, R"({"name": "y", "op": "avg_pool2d", "args": ["x"], "count_include_pad": false, )" + k2 + "}");
  EXPECT_TRUE(floats_near(without, {1, 1.5, 2.5, 3, 2.5, 3, 4, 4.5, 5.5, 6, 7, 7.5, 7, 7.5, 8.5, 9}));
  const Tensor over = eval_y({x}, R"({"name": "y", "op": "avg_pool2d", "args": ["x"], "divisor_override": 3, )" + k2 + "}");
  EXPECT_TRUE(floats_near(over, {1.0 / 3, 1, 5.0 / 3, 1, 5.0 / 3, 4, 16.0 / 3, 3, 11.0 / 3, 8, 28.0 / 3, 5,
                                 7.0 / 3, 5, 17.0 / 3, 3}));
}

TEST(InterpPool, AvgPoolCeilWindowPastThePaddedInput) {
  // kernel 3, stride 2, padding 1, ceil_mode: the third window [3, 6) leaves the padded input
  // [-1, 5) at 5: count_include_pad counts 2 (one input, one padding), else 1.
  const std::string x = f32c("x", "[1, 1, 4]", "[1, 2, 3, 4]");
  const std::string w = R"("kernel_size": [1, 3], "stride": [1, 2], "padding": [0, 1], "ceil_mode": true)";
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "avg_pool2d", "args": ["x"], )" + w + "}"), {1, 3, 2}));
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "avg_pool2d", "args": ["x"], "count_include_pad": false, )" + w + "}"),
                          {1.5, 3, 4}));
}

TEST(InterpPool, AdaptiveWindows) {
  // [floor(i L / out), ceil((i + 1) L / out)): [0, 2), [1, 4), [3, 5)
  EXPECT_TRUE(floats_near(eval_y({f32c("x", "[1, 1, 1, 5]", "[1, 2, 3, 4, 5]")},
                                 R"({"name": "y", "op": "adaptive_avg_pool2d", "args": ["x"], "output_size": [1, 3]})"),
                          {1.5, 3, 4.5}));
  // larger than the input: [0, 1), [0, 2), [1, 2)
  EXPECT_TRUE(floats_near(eval_y({f32c("x", "[1, 1, 2]", "[1, 3]")},
                                 R"({"name": "y", "op": "adaptive_avg_pool2d", "args": ["x"], "output_size": [1, 3]})"),
                          {1, 2, 3}));
  const Tensor g = eval_y({f32c("x", "[2, 2, 2]", "[1, 2, 3, 4, 10, 20, 30, 40]")},
                          R"({"name": "y", "op": "adaptive_avg_pool2d", "args": ["x"], "output_size": 1})");
  EXPECT_EQ(g.shape(), (Shape{2, 1, 1}));
  EXPECT_TRUE(floats_near(g, {2.5, 25}));
}

TEST(InterpBatchNorm, PerChannel) {
  const Tensor a = eval_y({f32c("x", "[2, 2]", "[1, 2, 3, 4]"), f32c("m", "[2]", "[1, 2]"), f32c("v", "[2]", "[4, 0.25]"),
                           f32c("w", "[2]", "[2, 1]"), f32c("b", "[2]", "[0, 10]")},
                          R"({"name": "y", "op": "batch_norm", "args": ["x", "m", "v", "w", "b"], "eps": 0})");
  EXPECT_TRUE(floats_near(a, {0, 10, 2, 14}));
  const Tensor c = eval_y({f32c("x", "[1, 2, 1, 2]", "[1, 2, 3, 4]"), f32c("m", "[2]", "[0, 1]"), f32c("v", "[2]", "[0.75, 0.75]")},
                          R"({"name": "y", "op": "batch_norm", "args": ["x", "m", "v", null, null], "eps": 0.25})");
  EXPECT_TRUE(floats_near(c, {1, 2, 2, 3}));
}

TEST(InterpIndexing, Embedding) {
  const std::string w = f32c("w", "[3, 2]", "[0, 1, 10, 11, 20, 21]");
  const Tensor e = eval_y({w, constant("i", "int64", "[2, 2]", "[2, 0, 1, 1]")},
                          R"({"name": "y", "op": "embedding", "args": ["w", "i"]})");
  EXPECT_EQ(e.shape(), (Shape{2, 2, 2}));
  EXPECT_TRUE(floats_near(e, {20, 21, 0, 1, 10, 11, 10, 11}));
  EXPECT_TRUE(floats_near(eval_y({w, constant("i", "int32", "[]", "[1]")}, R"({"name": "y", "op": "embedding", "args": ["w", "i"]})"),
                          {10, 11}));
  EXPECT_EQ(failure_of({w, constant("i", "int64", "[2]", "[0, 3]")}, R"({"name": "y", "op": "embedding", "args": ["w", "i"]})"),
            "node 'y' (embedding): index 3 is out of range [0, 3) of dim 0");
  EXPECT_EQ(failure_of({w, constant("i", "int32", "[1]", "[-1]")}, R"({"name": "y", "op": "embedding", "args": ["w", "i"]})"),
            "node 'y' (embedding): index -1 is out of range [0, 3) of dim 0");
}

TEST(InterpIndexing, IndexSelect) {
  const std::string x = f32c("x", "[2, 3]", "[0, 1, 2, 3, 4, 5]");
  EXPECT_TRUE(floats_near(eval_y({x, constant("i", "int64", "[3]", "[2, 0, 2]")},
                                 R"({"name": "y", "op": "index_select", "args": ["x", "i"], "dim": 1})"),
                          {2, 0, 2, 5, 3, 5}));
  const Tensor r = eval_y({x, constant("i", "int32", "[1]", "[1]")}, R"({"name": "y", "op": "index_select", "args": ["x", "i"], "dim": -2})");
  EXPECT_EQ(r.shape(), (Shape{1, 3}));
  EXPECT_TRUE(floats_near(r, {3, 4, 5}));
  EXPECT_TRUE(floats_near(eval_y({f32c("s", "[]", "[7]"), constant("i", "int64", "[1]", "[0]")},
                                 R"({"name": "y", "op": "index_select", "args": ["s", "i"], "dim": 0})"),
                          {7}));
  EXPECT_EQ(failure_of({x, constant("i", "int64", "[2]", "[1, 2]")}, R"({"name": "y", "op": "index_select", "args": ["x", "i"], "dim": 0})"),
            "node 'y' (index_select): index 2 is out of range [0, 2) of dim 0");
  EXPECT_EQ(failure_of({f32c("s", "[]", "[7]"), constant("i", "int64", "[1]", "[1]")},
                       R"({"name": "y", "op": "index_select", "args": ["s", "i"], "dim": 0})"),
            "node 'y' (index_select): index 1 is out of range [0, 1) of dim 0");
}

TEST(InterpIndexing, Gather) {
  const std::string x = f32c("x", "[2, 3]", "[0, 1, 2, 3, 4, 5]");
  // dim 0: out[i][j] = x[idx[i][j]][j]; dim 1: out[i][j] = x[i][idx[i][j]]
  EXPECT_TRUE(floats_near(eval_y({x, constant("i", "int64", "[2, 2]", "[0, 0, 1, 0]")},
                                 R"({"name": "y", "op": "gather", "args": ["x", "i"], "dim": 0})"),
                          {0, 1, 3, 1}));
  EXPECT_TRUE(floats_near(eval_y({x, constant("i", "int64", "[1, 4]", "[2, 0, 1, 1]")},
                                 R"({"name": "y", "op": "gather", "args": ["x", "i"], "dim": -1})"),
                          {2, 0, 1, 1}));
  EXPECT_TRUE(floats_near(eval_y({f32c("s", "[]", "[7]"), constant("i", "int64", "[]", "[0]")},
                                 R"({"name": "y", "op": "gather", "args": ["s", "i"], "dim": 0})"),
                          {7}));
  EXPECT_EQ(failure_of({x, constant("i", "int64", "[1, 2]", "[0, -3]")}, R"({"name": "y", "op": "gather", "args": ["x", "i"], "dim": 1})"),
            "node 'y' (gather): index -3 is out of range [0, 3) of dim 1");
}

TEST(InterpIndexing, AnUnusedOutOfRangeIndexStillFails) {
  // As eager PyTorch, the failing node runs even when nothing reads it.
  EXPECT_NE(failure_of({f32c("w", "[2, 2]", "[1, 2, 3, 4]"), constant("i", "int64", "[1]", "[5]")},
                       R"({"name": "e", "op": "embedding", "args": ["w", "i"]}, {"name": "y", "op": "neg", "args": ["w"]})"),
            "");
}

TEST(InterpActivations, HardswishHardsigmoid) {
  const std::string x = f32c("x", "[9]", "[-4, -3, -1, 0, 1, 3, 4, \"nan\", -0.0]");
  const Tensor hs = eval_y({x}, R"({"name": "y", "op": "hardswish", "args": ["x"]})");
  EXPECT_TRUE(floats_near(hs, {0, 0, -1.0 / 3, 0, 2.0 / 3, 3, 4, kNan, 0}));
  EXPECT_TRUE(std::signbit(hs.get_double(0)));  // -4 * 0 / 6
  EXPECT_TRUE(std::signbit(hs.get_double(8)));
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "hardsigmoid", "args": ["x"]})"),
                          {0, 0, 1.0 / 3, 0.5, 2.0 / 3, 1, 1, kNan, 0.5}));
}

TEST(InterpActivations, SoftplusAndElu) {
  const std::string x = f32c("x", "[5]", "[0, 30, \"-inf\", 1, 0.25]");
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "softplus", "args": ["x"]})"),
                          {std::log(2.0), 30, 0, std::log1p(std::exp(1.0)), std::log1p(std::exp(0.25))}));
  // beta 2, threshold 1: x * 2 > 1 returns x
  EXPECT_TRUE(floats_near(eval_y({x}, R"({"name": "y", "op": "softplus", "args": ["x"], "beta": 2, "threshold": 1})"),
                          {std::log(2.0) / 2, 30, 0, 1, std::log1p(std::exp(0.5)) / 2}));
  const Tensor e = eval_y({f32c("x", "[4]", "[-1, 2, -0.0, \"nan\"]")}, R"({"name": "y", "op": "elu", "args": ["x"], "alpha": 0.5})");
  EXPECT_TRUE(floats_near(e, {0.5 * std::expm1(-1.0), 2, 0, kNan}));
  EXPECT_TRUE(std::signbit(e.get_double(2)));
}

}  // namespace
}  // namespace stax::interp::testing

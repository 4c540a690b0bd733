// Convolutions through generated code, against the interpreter: conv1d and conv2d over strides,
// paddings (ints, lists, "same" with its extra element at the end, "valid"), dilations, groups
// (depthwise included), 1x1, odd sizes and batches, float32 and float64; weights given at run
// time (packed per call) and constant (packed once); operands that are views or computed; and
// batch norms folded into a convolution or linear layer before them, or not when the layer's
// output is read elsewhere. Tolerance: the documented bound of a product
// (matmul_tolerance), with sum |x||w| bounded by max|x| times the largest sum of |w| over one
// output channel's weights.
#include <cmath>

#include "cases.h"

namespace stax::e2e {

namespace {

using Inputs = std::vector<Tensor>;

std::string shape_text(const Shape& s) {
  std::string t;
  for (int64_t d : s) t += (t.empty() ? "" : ", ") + std::to_string(d);
  return "[" + t + "]";
}

// The largest sum of |w| over one output channel (the rows of w, `per` elements each).
double max_row_abs_sum(const std::vector<double>& w, int64_t per) {
  double worst = 0;
  for (std::size_t r = 0; r + static_cast<std::size_t>(per) <= w.size(); r += static_cast<std::size_t>(per)) {
    double s = 0;
    for (int64_t k = 0; k < per; ++k) s += std::fabs(w[r + static_cast<std::size_t>(k)]);
    worst = std::max(worst, s);
  }
  return worst;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v(static_cast<std::size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<std::size_t>(i)] = t.get_double(i);
  return v;
}

// Deterministic constant data in [-1, 1], exact in float32 (multiples of 1/64).
std::vector<double> pattern(int64_t n, int64_t seed) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<double>((i * 37 + seed * 11) % 129 - 64) / 64.0;
  return v;
}

std::string constant(const std::string& name, const std::string& dt, const Shape& shape, const std::vector<double>& data) {
  std::string list;
  for (double x : data) list += (list.empty() ? "" : ", ") + std::to_string(x);
  return R"({"name": ")" + name + R"(", "dtype": ")" + dt + R"(", "shape": )" + shape_text(shape) + R"(, "data": [)" + list + "]}";
}

DType dtype_of(const std::string& dt) { return dt == "float64" ? DType::Float64 : DType::Float32; }

// One convolution with run-time weights (inputs x, w and optionally b).
void add_conv(Table& t, const std::string& label, const std::string& dt, const Shape& x, const Shape& w,
              const std::string& attrs, bool bias, const std::string& op = "conv2d") {
  std::vector<std::string> inputs = {input("x", dt, shape_text(x)), input("w", dt, shape_text(w))};
  if (bias) inputs.push_back(input("b", dt, shape_text({w[0]})));
  const int64_t per = shape_numel(w) / w[0];
  const DType d = dtype_of(dt);
  t.add(op + " " + dt + " " + label, inputs, {node("y", op, bias ? R"(["x", "w", "b"])" : R"(["x", "w"])", attrs)}, {"y"})
      .tolerance = [=](const Inputs& in) {
    const double b = in.size() > 2 ? max_abs(in[2]) : 0.0;
    return matmul_tolerance(d, per, max_abs(in[0]) * max_row_abs_sum(values(in[1]), per) + b);
  };
}

void runtime_weight_cases(Table& t) {
  for (const std::string dt : {"float32", "float64"}) {
    add_conv(t, "3x3 pad 1", dt, {1, 3, 17, 15}, {8, 3, 3, 3}, R"("padding": 1)", true);
    add_conv(t, "3x3 stride 2 batch 2", dt, {2, 16, 14, 13}, {33, 16, 3, 3}, R"("stride": 2, "padding": 1)", true);
    add_conv(t, "1x1", dt, {2, 24, 9, 11}, {12, 24, 1, 1}, "", false);
    add_conv(t, "1x1 stride 2", dt, {1, 8, 9, 11}, {12, 8, 1, 1}, R"("stride": 2)", true);
    // Channels of whole vectors: the input read in place, its last tile's columns copied.
    add_conv(t, "1x1 8x6 (input read in place, ragged last tile)", dt, {1, 24, 8, 6}, {20, 24, 1, 1}, "", true);
    add_conv(t, "1x1 4x4 batch 3 (one ragged tile)", dt, {3, 16, 4, 4}, {12, 16, 1, 1}, "", false);
    add_conv(t, "dilation, lists", dt, {1, 4, 12, 13}, {5, 4, 3, 2}, R"("stride": [1, 2], "padding": [2, 1], "dilation": [2, 3])", true);
    add_conv(t, "groups 3 (direct loops)", dt, {3, 6, 10, 10}, {9, 2, 3, 3}, R"("padding": 1, "groups": 3)", true);
    add_conv(t, "groups 2 of 8 channels (GEMM)", dt, {1, 16, 9, 9}, {12, 8, 3, 3}, R"("padding": 1, "groups": 2)", true);
    add_conv(t, "depthwise", dt, {2, 12, 15, 16}, {12, 1, 3, 3}, R"("padding": 1, "groups": 12)", true);
    add_conv(t, "depthwise, dilation 2, strides 2 and 3", dt, {1, 6, 13, 18}, {6, 1, 3, 3},
             R"("stride": [2, 3], "padding": [2, 1], "dilation": 2, "groups": 6)", true);
    add_conv(t, "depthwise x2 stride 2", dt, {1, 8, 15, 17}, {16, 1, 5, 5}, R"("stride": 2, "padding": 2, "groups": 8)", false);
    add_conv(t, "same, even kernel", dt, {1, 5, 8, 9}, {4, 5, 4, 2}, R"("padding": "same", "dilation": [1, 2])", true);
    add_conv(t, "valid", dt, {1, 2, 6, 5}, {7, 2, 3, 3}, R"("padding": "valid")", false);
  }
  add_conv(t, "k4 s3 p2 d2", "float32", {2, 5, 50}, {7, 5, 4}, R"("stride": 3, "padding": 2, "dilation": 2)", true, "conv1d");
  add_conv(t, "depthwise", "float64", {1, 6, 33}, {6, 1, 3}, R"("padding": 1, "groups": 6)", true, "conv1d");
  add_conv(t, "same", "float32", {3, 4, 20}, {8, 4, 5}, R"("padding": "same")", false, "conv1d");
  // Large enough for both threads: within one product (batch 1) and over images (batch 4).
  add_conv(t, "64 channels 28x28", "float32", {1, 64, 28, 28}, {64, 64, 3, 3}, R"("padding": 1)", true);
  add_conv(t, "batch 4", "float32", {4, 32, 20, 20}, {48, 32, 3, 3}, R"("padding": 1)", true);
  add_conv(t, "ResNet stem", "float32", {1, 3, 64, 64}, {64, 3, 7, 7}, R"("stride": 2, "padding": 3)", false);
}

// Constant weights (packed once per process), operands that are views or computed values.
void conv_constant_weight_cases(Table& t) {
  const std::string dt = "float32";
  const std::vector<double> w = pattern(16 * 8 * 9, 1), b = pattern(16, 2);
  const double wsum = max_row_abs_sum(w, 72), bmax = 1.0;
  auto tol = [=](const Inputs& in) { return matmul_tolerance(DType::Float32, 72, max_abs(in[0]) * wsum + bmax); };
  const std::vector<std::string> consts = {constant("w", dt, {16, 8, 3, 3}, w), constant("b", dt, {16}, b)};
  t.add("conv2d constant weights", {input("x", dt, "[2, 8, 11, 12]")}, {node("y", "conv2d", R"(["x", "w", "b"])", R"("padding": 1)")},
        {"y"}, consts)
      .tolerance = tol;
  t.add("conv2d constant weights, then relu and a second use", {input("x", dt, "[1, 8, 11, 12]")},
        {node("y", "conv2d", R"(["x", "w", "b"])", R"("padding": 1, "stride": 2)"), node("r", "relu", R"(["y"])")}, {"r", "y"}, consts)
      .tolerance = tol;
  // The input a transpose (copied first) and a reshape (read in place); a computed input.
  t.add("conv2d of a transpose", {input("x", dt, "[1, 11, 8, 12]")},
        {node("y", "conv2d", R"([{"op": "transpose", "args": ["x"], "dim0": 1, "dim1": 2}, "w", "b"])", R"("padding": 1)")}, {"y"}, consts)
      .tolerance = tol;
  t.add("conv2d of a reshape", {input("x", dt, "[8, 132]")},
        {node("y", "conv2d", R"([{"op": "reshape", "args": ["x"], "shape": [1, 8, 11, 12]}, "w", "b"])", R"("padding": 1)")}, {"y"}, consts)
      .tolerance = tol;
  t.add("conv2d of a sigmoid", {input("x", dt, "[1, 8, 11, 12]")},
        {node("y", "conv2d", R"([{"op": "sigmoid", "args": ["x"]}, "w", "b"])", R"("padding": 1)")}, {"y"}, consts)
      .tolerance = [=](const Inputs&) { return matmul_tolerance(DType::Float32, 72, wsum + bmax); };
  // Pointwise on a plane of fewer than four vectors, constant weights and 256 output channels or
  // more: the product computed transposed (the output channels in the lanes), the epilogue then
  // run on whole rows; batch 2.
  const std::vector<double> wp = pattern(264 * 24, 5), bp = pattern(264, 6);
  const double psum = max_row_abs_sum(wp, 24);
  t.add("conv2d constant weights, pointwise on 3x3 into 264 channels, then add and relu6",
        {input("x", dt, "[2, 24, 3, 3]"), input("r", dt, "[2, 264, 3, 3]")},
        {node("y", "clamp", R"([{"op": "add", "args": [{"op": "conv2d", "args": ["x", "wp", "bp"]}, "r"]}])",
              R"("min": 0, "max": 6)")},
        {"y"}, {constant("wp", dt, {264, 24, 1, 1}, wp), constant("bp", dt, {264}, bp)})
      .tolerance = [=](const Inputs& in) {
        return matmul_tolerance(DType::Float32, 26, max_abs(in[0]) * psum + 1.0 + max_abs(in[1]));
      };
  // A 3x3 kernel of stride 2 onto a 5 x 5 output, constant weights and 136 output channels (four
  // panels of 32 and a part): the product computed transposed with the patches read from the
  // shifted input (the positions' rows of 5 and the tiles' rows of 8 cross), then add and relu;
  // batch 2.
  const std::vector<double> wt = pattern(136 * 12 * 9, 7), bt = pattern(136, 8);
  const double tsum = max_row_abs_sum(wt, 108);
  t.add("conv2d constant weights, 3x3 stride 2 onto 5x5 in 136 channels, then add and relu",
        {input("x", dt, "[2, 12, 10, 9]"), input("r", dt, "[2, 136, 5, 5]")},
        {node("y", "relu", R"([{"op": "add", "args": [{"op": "conv2d", "args": ["x", "wt", "bt"], "stride": 2, "padding": 1}, "r"]}])")},
        {"y"}, {constant("wt", dt, {136, 12, 3, 3}, wt), constant("bt", dt, {136}, bt)})
      .tolerance = [=](const Inputs& in) {
        return matmul_tolerance(DType::Float32, 110, max_abs(in[0]) * tsum + 1.0 + max_abs(in[1]));
      };
  // A 3x3 kernel of stride 1 with constant weights, 16 input channels and enough 2 x 2 output
  // tiles: F(2 x 2, 3 x 3) (stax_conv_wino.h), odd output sides, then add and relu; float32 and
  // float64. Its bound (docs/graph-format.md) takes, per input channel, the sum of |x| over a
  // 4 x 4 patch times the sum of |w| over the 3 x 3 kernel: at most 16 max|x| times the row's sum.
  for (const std::string wdt : {"float32", "float64"}) {
    const DType d = wdt == "float32" ? DType::Float32 : DType::Float64;
    const std::vector<double> ww = pattern(20 * 16 * 9, 9), bw = pattern(20, 10);
    const double row = max_row_abs_sum(ww, 144);
    t.add("conv2d constant weights, 3x3 stride 1 by F(2x2,3x3), then add and relu, " + wdt,
          {input("x", wdt, "[2, 16, 17, 19]"), input("r", wdt, "[2, 20, 17, 19]")},
          {node("y", "relu", R"([{"op": "add", "args": [{"op": "conv2d", "args": ["x", "ww", "bw"], "padding": 1}, "r"]}])")},
          {"y"}, {constant("ww", wdt, {20, 16, 3, 3}, ww), constant("bw", wdt, {20}, bw)})
        .tolerance = [=](const Inputs& in) {
          return matmul_tolerance(d, 144 + 1, 16 * max_abs(in[0]) * row + 1.0 + max_abs(in[1]));
        };
  }
  // Two convolutions in a row, the second depthwise with constant weights.
  const std::vector<double> wd = pattern(16 * 9, 3);
  std::vector<std::string> two = consts;
  two.push_back(constant("wd", dt, {16, 1, 3, 3}, wd));
  t.add("conv2d then depthwise", {input("x", dt, "[1, 8, 11, 12]")},
        {node("y", "conv2d", R"(["x", "w", "b"])", R"("padding": 1)"), node("z", "conv2d", R"(["y", "wd"])", R"("padding": 1, "groups": 16)")},
        {"z"}, two)
      .tolerance = [=](const Inputs& in) {
    return matmul_tolerance(DType::Float32, 72 + 9, (max_abs(in[0]) * wsum + bmax) * max_row_abs_sum(wd, 9));
  };
}

// Batch norms with constant parameters after a convolution or linear layer (folded), and one
// whose convolution is also an output (not folded). Tolerance: the folded weights' products
// (sum |x| |w s|) plus the roundings of the interpreter's own float32 intermediate.
void batch_norm_fold_cases(Table& t) {
  const std::string dt = "float32";
  const int64_t C = 6;
  const std::vector<double> mean = pattern(C, 4), gamma = pattern(C, 5), beta = pattern(C, 6);
  std::vector<double> var = pattern(C, 7);
  for (double& v : var) v = std::fabs(v) + 0.25;
  const std::vector<std::string> bn = {constant("m", dt, {C}, mean), constant("v", dt, {C}, var),
                                       constant("g", dt, {C}, gamma), constant("be", dt, {C}, beta)};
  double smax = 0;
  for (int64_t c = 0; c < C; ++c) smax = std::max(smax, std::fabs(gamma[static_cast<std::size_t>(c)]) / std::sqrt(var[static_cast<std::size_t>(c)] + 1e-5));
  auto with = [&bn](std::vector<std::string> more) {
    more.insert(more.end(), bn.begin(), bn.end());
    return more;
  };
  auto tol = [=](int64_t k, double wsum) {
    return [=](const Inputs& in) {
      return matmul_tolerance(DType::Float32, k + 4, (max_abs(in[0]) * wsum + 2.0) * (smax + 1.0) + 2.0);
    };
  };
  const std::string norm = R"(["y", "m", "v", "g", "be"])";
  const std::vector<double> w = pattern(C * 4 * 9, 8), b = pattern(C, 9);
  const double wsum = max_row_abs_sum(w, 36);
  t.add("batch_norm folded into conv2d, then relu", {input("x", dt, "[2, 4, 9, 10]")},
        {node("y", "conv2d", R"(["x", "w", "b"])", R"("padding": 1)"), node("n", "batch_norm", norm), node("r", "relu", R"(["n"])")},
        {"r"}, with({constant("w", dt, {C, 4, 3, 3}, w), constant("b", dt, {C}, b)}))
      .tolerance = tol(36, wsum);
  t.add("batch_norm folded into conv2d without bias, an output", {input("x", dt, "[1, 4, 9, 10]")},
        {node("y", "conv2d", R"(["x", "w"])", R"("stride": 2)"), node("n", "batch_norm", R"(["y", "m", "v", null, "be"])", R"("eps": 0.001)")},
        {"n"}, with({constant("w", dt, {C, 4, 3, 3}, w)}))
      .tolerance = tol(36, wsum);
  t.add("batch_norm after a conv2d that is also an output (not folded)", {input("x", dt, "[1, 4, 9, 10]")},
        {node("y", "conv2d", R"(["x", "w", "b"])", R"("padding": 1)"), node("n", "batch_norm", norm)}, {"n", "y"},
        with({constant("w", dt, {C, 4, 3, 3}, w), constant("b", dt, {C}, b)}))
      .tolerance = tol(36, wsum);
  const std::vector<double> w1 = pattern(C * 4 * 3, 10);
  t.add("batch_norm folded into conv1d", {input("x", dt, "[2, 4, 17]")},
        {node("y", "conv1d", R"(["x", "w"])", R"("padding": 1)"), node("n", "batch_norm", norm)}, {"n"},
        with({constant("w", dt, {C, 4, 3}, w1)}))
      .tolerance = tol(12, max_row_abs_sum(w1, 12));
  const std::vector<double> wl = pattern(C * 10, 11);
  t.add("batch_norm folded into linear", {input("x", dt, "[5, 10]")},
        {node("y", "linear", R"(["x", "w", "b"])"), node("n", "batch_norm", norm)}, {"n"},
        with({constant("w", dt, {C, 10}, wl), constant("b", dt, {C}, b)}))
      .tolerance = tol(10, max_row_abs_sum(wl, 10));
  const std::vector<double> wm = pattern(10 * C, 12);
  double wm_sum = 0;  // the columns of a [10, C] weight
  for (int64_t c = 0; c < C; ++c) {
    double s = 0;
    for (int64_t k = 0; k < 10; ++k) s += std::fabs(wm[static_cast<std::size_t>(k * C + c)]);
    wm_sum = std::max(wm_sum, s);
  }
  t.add("batch_norm folded into matmul", {input("x", dt, "[5, 10]")},
        {node("y", "matmul", R"(["x", "w"])"), node("n", "batch_norm", norm)}, {"n"}, with({constant("w", dt, {10, C}, wm)}))
      .tolerance = tol(10, wm_sum);
}

// Pointwise work on a convolution's output fused as its epilogue (scheduler's GEMM_EPILOGUE):
// activations, a residual add read at the element written, a per-channel scale, on the GEMM's
// tiles (blocks of channels x positions crossing output rows, ragged at both ends) and on the
// direct loops' planes; conv1d; float64; a batch of images. Tolerance: the product's bound plus
// the residual's magnitude's rounding.
void epilogue_cases(Table& t) {
  auto conv_tol = [](DType d, int64_t per, double extra) {
    return [=](const Inputs& in) {
      return matmul_tolerance(d, per + 2, max_abs(in[0]) * max_row_abs_sum(values(in[1]), per) + extra +
                                              (in.size() > 2 ? max_abs(in[2]) : 0.0));
    };
  };
  // The product's bound times a third operand that scales it (rounded once more).
  auto scaled_tol = [](int64_t per) {
    return [=](const Inputs& in) {
      return matmul_tolerance(DType::Float32, per + 2,
                              max_abs(in[0]) * max_row_abs_sum(values(in[1]), per) * (max_abs(in[2]) + 1.0));
    };
  };
  t.add("conv2d epilogue: residual add then relu (ResNet block)",
        {input("x", "float32", "[2, 16, 13, 11]"), input("w", "float32", "[16, 16, 3, 3]"), input("r", "float32", "[2, 16, 13, 11]")},
        {node("y", "relu", R"([{"op": "add", "args": [{"op": "conv2d", "args": ["x", "w"], "padding": 1}, "r"]}])")}, {"y"})
      .tolerance = conv_tol(DType::Float32, 144, 0.0);
  t.add("conv2d epilogue: hardswish over 7x7 rows (a tile crosses many rows)",
        {input("x", "float32", "[1, 40, 7, 7]"), input("w", "float32", "[72, 40, 1, 1]")},
        {node("y", "hardswish", R"([{"op": "conv2d", "args": ["x", "w"]}])")}, {"y"})
      .tolerance = conv_tol(DType::Float32, 40, 0.0);
  t.add("conv2d epilogue: residual add after a 1x1 read in place (12x12: a ragged last tile)",
        {input("x", "float32", "[1, 32, 12, 12]"), input("w", "float32", "[40, 32, 1, 1]"), input("r", "float32", "[1, 40, 12, 12]")},
        {node("y", "add", R"([{"op": "conv2d", "args": ["x", "w"]}, "r"])")}, {"y"})
      .tolerance = conv_tol(DType::Float32, 32, 0.0);
  t.add("conv2d epilogue: clamp (relu6) after stride 2, 37 wide",
        {input("x", "float32", "[1, 8, 20, 74]"), input("w", "float32", "[24, 8, 3, 3]"), input("b", "float32", "[24]")},
        {node("y", "clamp", R"([{"op": "conv2d", "args": ["x", "w", "b"], "stride": 2, "padding": 1}])", R"("min": 0, "max": 6)")}, {"y"})
      .tolerance = conv_tol(DType::Float32, 72, 0.0);
  t.add("conv2d epilogue: depthwise (direct loops) then silu",
        {input("x", "float32", "[2, 12, 15, 16]"), input("w", "float32", "[12, 1, 3, 3]")},
        {node("y", "silu", R"([{"op": "conv2d", "args": ["x", "w"], "padding": 1, "groups": 12}])")}, {"y"})
      .tolerance = conv_tol(DType::Float32, 9, 0.0);
  t.add("conv2d epilogue: per-channel scale broadcast over positions",
        {input("x", "float32", "[1, 6, 10, 9]"), input("w", "float32", "[10, 6, 3, 3]"), input("s", "float32", "[10, 1, 1]")},
        {node("y", "mul", R"([{"op": "conv2d", "args": ["x", "w"]}, "s"])")}, {"y"})
      .tolerance = scaled_tol(54);
  // Reads that are not flat in the output rows: the epilogue keeps one loop per row.
  t.add("conv2d epilogue: add of a row broadcast over channels and rows (per-row loops)",
        {input("x", "float32", "[1, 6, 9, 20]"), input("w", "float32", "[10, 6, 3, 3]"), input("r", "float32", "[1, 1, 1, 20]")},
        {node("y", "add", R"([{"op": "conv2d", "args": ["x", "w"], "padding": 1}, "r"])")}, {"y"})
      .tolerance = conv_tol(DType::Float32, 54, 0.0);
  t.add("conv2d epilogue: add of a column broadcast, 7 wide (per-row loops, scalar)",
        {input("x", "float32", "[2, 4, 7, 7]"), input("w", "float32", "[12, 4, 1, 1]"), input("r", "float32", "[2, 12, 7, 1]")},
        {node("y", "mul", R"([{"op": "conv2d", "args": ["x", "w"]}, "r"])")}, {"y"})
      .tolerance = scaled_tol(4);
  t.add("conv1d epilogue: gelu",
        {input("x", "float32", "[2, 5, 70]"), input("w", "float32", "[9, 5, 3]")},
        {node("y", "gelu", R"([{"op": "conv1d", "args": ["x", "w"], "padding": 1}])")}, {"y"})
      .tolerance = conv_tol(DType::Float32, 15, 0.0);
  t.add("conv2d float64 epilogue: tanh",
        {input("x", "float64", "[1, 4, 9, 10]"), input("w", "float64", "[6, 4, 3, 3]")},
        {node("y", "tanh", R"([{"op": "conv2d", "args": ["x", "w"], "padding": 1}])")}, {"y"})
      .tolerance = conv_tol(DType::Float64, 36, 0.0);
  // Large enough that the GEMM splits its tiles over both threads and blocks K.
  t.add("conv2d epilogue: 64 channels 28x28, add then relu",
        {input("x", "float32", "[1, 64, 28, 28]"), input("w", "float32", "[64, 64, 3, 3]"), input("r", "float32", "[1, 64, 28, 28]")},
        {node("y", "relu", R"([{"op": "add", "args": ["r", {"op": "conv2d", "args": ["x", "w"], "padding": 1}]}])")}, {"y"})
      .tolerance = conv_tol(DType::Float32, 576, 0.0);
}

}  // namespace

std::vector<Case> conv_cases() {
  Table t;
  runtime_weight_cases(t);
  conv_constant_weight_cases(t);
  batch_norm_fold_cases(t);
  epilogue_cases(t);
  return t.cases;
}

}  // namespace stax::e2e

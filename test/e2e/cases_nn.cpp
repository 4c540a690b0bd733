// Pools, indexing, batch_norm and the activations hardswish, hardsigmoid, softplus and elu
// through generated code, against the interpreter: every attribute form of the pools (padding
// that is -inf or counted or not, ceil_mode and its dropped window, dilation, divisor_override,
// adaptive windows of unequal length), indices from computed values and views, pools and indexed
// loads fused with their neighbours, and indices out of range (an error code, never a read
// outside the data). Then linear layers with constant weights, which a pinned instruction set
// packs at compile time.
#include <algorithm>
#include <cmath>
#include <functional>

#include "cases.h"

namespace stax::e2e {

namespace {

void pool_cases(Table& t) {
  const std::string x = input("x", "float32", "[2, 3, 9, 10]");
  const std::vector<std::pair<std::string, std::string>> windows = {
      {"k2", R"("kernel_size": 2)"},
      {"k3 s2 ceil", R"("kernel_size": 3, "stride": 2, "ceil_mode": true)"},
      {"k2 p1 ceil (dropped window)", R"("kernel_size": 2, "padding": 1, "ceil_mode": true)"},
      {"k [3, 2] s [1, 2] p [1, 1]", R"("kernel_size": [3, 2], "stride": [1, 2], "padding": [1, 1])"},
      {"k3 s1 p1", R"("kernel_size": 3, "stride": 1, "padding": 1)"},
      {"k1 s2", R"("kernel_size": 1, "stride": 2)"}};
  for (const auto& [label, w] : windows) {
    t.add("max_pool2d " + label, {x}, {node("y", "max_pool2d", R"(["x"])", w)}, {"y"});
    t.add("avg_pool2d " + label, {x}, {node("y", "avg_pool2d", R"(["x"])", w)}, {"y"});
    t.add("avg_pool2d " + label + " exclude pad", {x}, {node("y", "avg_pool2d", R"(["x"])", w + R"(, "count_include_pad": false)")}, {"y"});
    t.add("avg_pool2d " + label + " divisor 5", {x}, {node("y", "avg_pool2d", R"(["x"])", w + R"(, "divisor_override": 5)")}, {"y"});
  }
  t.add("max_pool2d dilation [2, 3] pad [1, 2] ceil", {x},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 2, "stride": 2, "padding": [1, 2], "dilation": [2, 3], "ceil_mode": true)")}, {"y"});
  t.add("max_pool2d padding past k/2 under dilation", {x},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 1, "padding": 2, "dilation": 2)")}, {"y"});
  // Windows of padding only: -inf.
  t.add("max_pool2d all-padding windows", {input("x", "float64", "[2, 3, 1]")},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": [1, 2], "stride": 1, "padding": [0, 2], "dilation": [1, 3])")}, {"y"});
  t.add("max_pool2d 3-d float64", {input("x", "float64", "[3, 7, 8]")}, {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 2)")}, {"y"});
  t.add("avg_pool2d 3-d ceil", {input("x", "float32", "[3, 7, 8]")},
        {node("y", "avg_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": true)")}, {"y"});
  // Rows long enough for vector loops and OpenMP, the pool fused with what follows.
  t.add("max_pool2d wide rows then relu", {input("x", "float32", "[4, 16, 34, 66]")},
        {node("p", "max_pool2d", R"(["x"])", R"("kernel_size": 2)"), node("y", "relu", R"(["p"])")}, {"y"});
  t.add("avg_pool2d of an exp, plus one", {input("x", "float32", "[2, 8, 31, 45]")},
        {node("p", "avg_pool2d", R"([{"op": "exp", "args": ["x"]}])", R"("kernel_size": 3, "stride": 2, "padding": 1)"),
         node("y", "add", R"(["p", 1.0])")}, {"y"});
  for (const std::string size : {"1", "3", "[4, 5]", "[9, 10]", "[2, null]", "[13, 7]", "20"})
    t.add("adaptive_avg_pool2d " + size, {x}, {node("y", "adaptive_avg_pool2d", R"(["x"])", R"("output_size": )" + size)}, {"y"});
  t.add("adaptive_avg_pool2d 3-d float64", {input("x", "float64", "[3, 11, 6]")},
        {node("y", "adaptive_avg_pool2d", R"(["x"])", R"("output_size": [4, 3])")}, {"y"});
  // Outputs of 16 columns or more: a max pool's columns in vector lanes, each vector reduced in
  // registers over the window (groups of four vectors, then the rest, the last vector masked),
  // the window's edges as ranges of lanes, stride 2 as two loads and a shuffle (ResNet's stem
  // pool; dilated; ceil_mode's partial windows on the right; float64; stride 1).
  t.add("max_pool2d k3 s2 p1 wide", {input("x", "float32", "[2, 3, 21, 150]")},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 2, "padding": 1)")}, {"y"});
  t.add("max_pool2d k3 s2 p2 d2 wide", {input("x", "float32", "[1, 2, 11, 71]")},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 2, "padding": 2, "dilation": 2)")}, {"y"});
  t.add("max_pool2d k3 s2 ceil wide", {input("x", "float32", "[1, 2, 9, 68]")},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 2, "ceil_mode": true)")}, {"y"});
  t.add("max_pool2d k2 s2 float64 wide", {input("x", "float64", "[1, 3, 6, 100]")},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 2)")}, {"y"});
  t.add("max_pool2d k3 s1 p1 wide", {input("x", "float32", "[1, 2, 7, 83]")},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 1, "padding": 1)")}, {"y"});
  t.add("max_pool2d k [1, 5] s [1, 3] p [0, 2] wide", {input("x", "float32", "[1, 2, 3, 150]")},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": [1, 5], "stride": [1, 3], "padding": [0, 2])")}, {"y"});
  // Rows narrower than a vector (kWindowMinTrip to 15 columns): one masked vector per row, the
  // pool of an Inception block on 14 x 14 and 7 x 7; stride 2 and float64 (two vectors of 8 under
  // AVX-512, the second masked).
  t.add("max_pool2d k3 s1 p1 ceil narrow 14 x 14", {input("x", "float32", "[1, 6, 14, 14]")},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 1, "padding": 1, "ceil_mode": true)")}, {"y"});
  t.add("max_pool2d k3 s1 p1 narrow 7 x 7 then relu", {input("x", "float32", "[2, 5, 7, 7]")},
        {node("p", "max_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 1, "padding": 1)"), node("y", "relu", R"(["p"])")}, {"y"});
  t.add("avg_pool2d k3 s1 p1 exclude pad narrow 5 columns", {input("x", "float32", "[1, 3, 6, 5]")},
        {node("y", "avg_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 1, "padding": 1, "count_include_pad": false)")}, {"y"});
  t.add("max_pool2d k3 s2 p1 narrow 13 columns", {input("x", "float32", "[1, 4, 9, 26]")},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 2, "padding": 1)")}, {"y"});
  t.add("max_pool2d k3 s1 p1 float64 narrow 12 columns", {input("x", "float64", "[1, 3, 8, 12]")},
        {node("y", "max_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 1, "padding": 1)")}, {"y"});
  // An explicit pad before a pool becomes the pool's padding (fold_pads_into_pools): the
  // branch pool of Inception-v3 as PyTorch exports it, and a maximum over -inf pads; a pad
  // another node also reads stays for it.
  t.add("avg_pool2d of an explicit zero pad", {input("x", "float32", "[1, 5, 14, 20]")},
        {node("p", "pad", R"(["x"])", R"("pad": [1, 1, 1, 1])"),
         node("y", "avg_pool2d", R"(["p"])", R"("kernel_size": 3, "stride": 1)")}, {"y"});
  t.add("max_pool2d of an explicit -inf pad, the pad also an output", {input("x", "float32", "[2, 3, 9, 20]")},
        {node("p", "pad", R"(["x"])", R"("pad": [1, 1, 1, 1], "value": "-inf")"),
         node("y", "max_pool2d", R"(["p"])", R"("kernel_size": 3, "stride": 1)")}, {"y", "p"});
  // Average pools of wide outputs: the window's sum in registers, then the division (a pointwise
  // group) on the same lanes before the store: padding counted or not, divisor_override,
  // ceil_mode, Inception's 3 x 3 stride-1 pool, float64.
  t.add("avg_pool2d k3 s1 p1 wide", {input("x", "float32", "[1, 3, 9, 71]")},
        {node("y", "avg_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 1, "padding": 1)")}, {"y"});
  t.add("avg_pool2d k3 s2 p1 exclude pad wide", {input("x", "float32", "[2, 2, 9, 75]")},
        {node("y", "avg_pool2d", R"(["x"])", R"("kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": false)")}, {"y"});
  t.add("avg_pool2d k2 s2 ceil wide", {input("x", "float32", "[1, 2, 7, 67]")},
        {node("y", "avg_pool2d", R"(["x"])", R"("kernel_size": 2, "stride": 2, "ceil_mode": true)")}, {"y"});
  t.add("avg_pool2d [3, 5] s [1, 2] divisor 7 float64 wide", {input("x", "float64", "[1, 3, 6, 100]")},
        {node("y", "avg_pool2d", R"(["x"])", R"("kernel_size": [3, 5], "stride": [1, 2], "padding": [1, 2], "divisor_override": 7)")}, {"y"});
  // Transposed input: the pool reads through the view.
  t.add("max_pool2d of a transpose", {input("x", "float32", "[2, 10, 9, 3]")},
        {node("y", "max_pool2d", R"([{"op": "permute", "args": ["x"], "dims": [0, 3, 2, 1]}])", R"("kernel_size": 3, "padding": 1)")}, {"y"});
}

void norm_activation_cases(Table& t) {
  for (const std::string dt : {"float32", "float64"}) {
    const std::string x = input("x", dt, "[5, 133]");
    t.add("hardswish " + dt, {x}, {node("y", "hardswish", R"([{"op": "mul", "args": ["x", 3]}])")}, {"y"});
    t.add("hardsigmoid " + dt, {x}, {node("y", "hardsigmoid", R"([{"op": "mul", "args": ["x", 3]}])")}, {"y"});
    t.add("softplus " + dt, {x}, {node("y", "softplus", R"([{"op": "mul", "args": ["x", 12]}])")}, {"y"});
    t.add("softplus beta threshold " + dt, {x}, {node("y", "softplus", R"(["x"])", R"("beta": 2, "threshold": 1)")}, {"y"});
    t.add("elu " + dt, {x}, {node("y", "elu", R"(["x"])", R"("alpha": 0.5)")}, {"y"});
    const std::string c = "[7]";
    t.add("batch_norm 4-d " + dt, {input("x", dt, "[3, 7, 5, 41]"), input("m", dt, c), input("v", dt, c), input("w", dt, c), input("b", dt, c)},
          {node("y", "batch_norm", R"(["x", "m", {"op": "exp", "args": ["v"]}, "w", "b"])", R"("eps": 0.001)")}, {"y"});
    t.add("batch_norm 2-d no affine " + dt, {input("x", dt, "[40, 7]"), input("m", dt, c), input("v", dt, c)},
          {node("y", "batch_norm", R"(["x", "m", {"op": "exp", "args": ["v"]}])")}, {"y"});
    t.add("batch_norm 3-d bias only then relu " + dt, {input("x", dt, "[4, 7, 70]"), input("m", dt, c), input("v", dt, c)},
          {node("n", "batch_norm", R"(["x", "m", {"op": "exp", "args": ["v"]}, null, "m"])"), node("y", "relu", R"(["n"])")}, {"y"});
  }
}

void indexing_cases(Table& t) {
  // Indices from int inputs in [-8, 8], brought into range.
  t.add("embedding int64 indices [4, 5]", {input("w", "float32", "[9, 70]"), input("i", "int64", "[4, 5]")},
        {node("y", "embedding", R"(["w", {"op": "clamp", "args": ["i"], "min": 0, "max": 8}])")}, {"y"});
  t.add("embedding int32 0-d index", {input("w", "float64", "[9, 3]"), input("i", "int32", "[]")},
        {node("y", "embedding", R"(["w", {"op": "abs", "args": ["i"]}])")}, {"y"});
  t.add("embedding of a computed table", {input("w", "float32", "[17, 40]"), input("i", "int64", "[3, 2, 4]")},
        {node("y", "embedding", R"([{"op": "tanh", "args": ["w"]}, {"op": "add", "args": ["i", 8]}])")}, {"y"});
  t.add("embedding, then a sum of its rows", {input("w", "float32", "[9, 300]"), input("i", "int64", "[6]")},
        {node("e", "embedding", R"(["w", {"op": "remainder", "args": ["i", 9]}])"), node("y", "sum", R"(["e"])", R"("dim": -1)")}, {"y"});
  for (int d = 0; d < 3; ++d) {
    const std::string ds = std::to_string(d), size = d == 0 ? "4" : d == 1 ? "5" : "66";
    t.add("index_select dim " + ds, {input("x", "float32", "[4, 5, 66]"), input("i", "int64", "[9]")},
          {node("y", "index_select", R"(["x", {"op": "remainder", "args": ["i", )" + size + "]}]", R"("dim": )" + ds)}, {"y"});
    t.add("gather dim " + ds, {input("x", "float32", "[4, 5, 66]"), input("i", "int64", "[3, 5, 20]")},
          {node("y", "gather", R"(["x", {"op": "remainder", "args": ["i", )" + size + "]}]", R"("dim": )" + ds)}, {"y"});
  }
  t.add("index_select int32 of a transpose", {input("x", "float64", "[6, 8]"), input("i", "int32", "[5]")},
        {node("y", "index_select", R"([{"op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1}, {"op": "clamp", "args": ["i"], "min": 0, "max": 7}])", R"("dim": 0)")}, {"y"});
  t.add("index_select of a reshaped transpose (copied)", {input("x", "float32", "[4, 6]"), input("i", "int64", "[5]")},
        {node("y", "index_select", R"([{"op": "reshape", "args": [{"op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1}], "shape": [3, 8]}, {"op": "remainder", "args": ["i", 8]}])", R"("dim": 1)")}, {"y"});
  t.add("index_select of a 0-d value", {input("s", "float32", "[]"), input("i", "int64", "[1]")},
        {node("y", "index_select", R"(["s", {"op": "mul", "args": ["i", 0]}])", R"("dim": 0)")}, {"y"});
  t.add("gather 0-d", {input("s", "float64", "[]"), input("i", "int64", "[]")},
        {node("y", "gather", R"(["s", {"op": "mul", "args": ["i", 0]}])", R"("dim": 0)")}, {"y"});
  t.add("gather added to its input", {input("x", "float32", "[300, 40]"), input("i", "int64", "[300, 40]")},
        {node("g", "gather", R"(["x", {"op": "remainder", "args": ["i", 40]}])", R"("dim": 1)"), node("y", "add", R"(["g", "x"])")}, {"y"});
}

// An index out of range: both the interpreter and the generated code report it.
void index_error_cases(Table& t) {
  auto bad = [&](const std::string& name, const std::vector<std::string>& inputs, const std::vector<std::string>& nodes,
                 const std::vector<std::string>& constants) {
    t.add(name, inputs, nodes, {"y"}, constants).expect = Expect::IndexError;
  };
  bad("embedding index = size", {input("w", "float32", "[3, 5]")}, {node("y", "embedding", R"(["w", "i"])")},
      {R"({"name": "i", "dtype": "int64", "shape": [3], "data": [0, 3, 1]})"});
  bad("embedding negative index", {input("w", "float32", "[3, 5]")}, {node("y", "embedding", R"(["w", "i"])")},
      {R"({"name": "i", "dtype": "int32", "shape": [2], "data": [-1, 1]})"});
  bad("index_select past the dim", {input("x", "float64", "[4, 6]")}, {node("y", "index_select", R"(["x", "i"])", R"("dim": 1)")},
      {R"({"name": "i", "dtype": "int64", "shape": [2], "data": [5, 6]})"});
  bad("gather in a parallel loop", {input("x", "float32", "[400, 64]"), input("i", "int64", "[400, 64]")},
      {node("y", "gather", R"(["x", {"op": "add", "args": ["i", 60]}])", R"("dim": 1)")}, {});
  bad("unused embedding out of range", {input("w", "float32", "[3, 5]")},
      {node("e", "embedding", R"(["w", "i"])"), node("y", "neg", R"(["w"])")},
      {R"({"name": "i", "dtype": "int64", "shape": [1], "data": [7]})"});
  bad("0-d index_select with index 1", {input("s", "float32", "[]")},
      {node("y", "index_select", R"(["s", "i"])", R"("dim": 0)")},
      {R"({"name": "i", "dtype": "int64", "shape": [1], "data": [1]})"});
  // An index out of range and a division by zero: whichever runs first is reported.
  t.add("index error and division by zero", {input("w", "float32", "[3, 5]"), input("a", "int32", "[4]")},
        {node("q", "div", R"(["a", 0])", R"("rounding_mode": "floor")"), node("y", "embedding", R"(["w", "i"])")}, {"y"},
        {R"({"name": "i", "dtype": "int64", "shape": [1], "data": [9]})"})
      .expect = Expect::DivByZero;
}

// A constant of `shape` (n elements) with distinct values in [-1.375, 1.375], in JSON.
std::string weight(const std::string& name, const std::string& dtype, const std::string& shape, int64_t n) {
  std::string data;
  for (int64_t i = 0; i < n; ++i) data += (i ? ", " : "") + std::to_string(static_cast<double>((i * 7919) % 23 - 11) / 8.0);
  return R"({"name": ")" + name + R"(", "dtype": ")" + dtype + R"(", "shape": )" + shape + R"(, "data": [)" + data + "]}";
}

// The product's bound for inputs x and a constant B of entries at most 1.375 in magnitude,
// plus a bias of at most 1.375 (matmul_tolerance).
std::function<driver::Tolerance(const std::vector<Tensor>&)> constant_b_bound(DType dt, int64_t k) {
  return [dt, k](const std::vector<Tensor>& in) {
    double m = 0;
    for (const Tensor& x : in)
      for (int64_t i = 0; i < x.numel(); ++i) m = std::max(m, std::fabs(x.get_double(i)));
    return matmul_tolerance(dt, k, static_cast<double>(k) * m * 1.375 + 1.375);
  };
}

// Products with a constant B: packed at compile time when the instruction set is pinned (each
// set of dispatch too), read as it is under native. Ragged panels, transposed and row-major B,
// one row, float64, with and without an epilogue.
void constant_weight_cases(Table& t) {
  const DType f32 = DType::Float32, f64 = DType::Float64;
  t.add("linear, constant weight, relu epilogue", {input("x", "float32", "[37, 70]")},
        {node("y", "relu", R"([{"op": "linear", "args": ["x", "w", "b"]}])")}, {"y"},
        {weight("w", "float32", "[45, 70]", 45 * 70), weight("b", "float32", "[45]", 45)})
      .tolerance = constant_b_bound(f32, 70);
  t.add("matmul, constant row-major B, product an output", {input("x", "float32", "[5, 33]")},
        {node("m", "matmul", R"(["x", "w"])"), node("y", "sigmoid", R"(["m"])")}, {"m", "y"},
        {weight("w", "float32", "[33, 20]", 33 * 20)})
      .tolerance = constant_b_bound(f32, 33);
  t.add("linear, constant weight, float64", {input("x", "float64", "[9, 19]")},
        {node("y", "linear", R"(["x", "w", "b"])")}, {"y"},
        {weight("w", "float64", "[24, 19]", 24 * 19), weight("b", "float64", "[24]", 24)})
      .tolerance = constant_b_bound(f64, 19);
  t.add("one row against a constant weight", {input("x", "float32", "[1, 64]")},
        {node("y", "matmul", R"(["x", "w"])")}, {"y"}, {weight("w", "float32", "[64, 50]", 64 * 50)})
      .tolerance = constant_b_bound(f32, 64);
  // A short A's wide tiles span several panels: the last strip of a B of fewer panels must read
  // only the panels it has (under the sanitizers, the packed-once copy is exactly its size).
  t.add("one row against a constant weight of one ragged panel", {input("x", "float32", "[1, 24]")},
        {node("y", "matmul", R"(["x", "w"])")}, {"y"}, {weight("w", "float32", "[24, 20]", 24 * 20)})
      .tolerance = constant_b_bound(f32, 24);
  t.add("three rows against a constant weight, float64, ragged panel", {input("x", "float64", "[3, 10]")},
        {node("y", "matmul", R"(["x", "w"])")}, {"y"}, {weight("w", "float64", "[10, 12]", 10 * 12)})
      .tolerance = constant_b_bound(f64, 10);
  // Batch dims folded into M (ir::fold_batch): the epilogue's rows decompose into the batch
  // position and the row; a broadcast addend reads them by its own dims.
  t.add("linear on channels-last [2, 5, 7, 24], batch folded, gelu and broadcast add epilogue",
        {input("x", "float32", "[2, 5, 7, 24]"), input("r", "float32", "[5, 1, 30]")},
        {node("l", "linear", R"(["x", "w", "b"])"), node("g", "gelu", R"(["l"])"), node("y", "add", R"(["g", "r"])")},
        {"y"}, {weight("w", "float32", "[30, 24]", 30 * 24), weight("b", "float32", "[30]", 30)})
      .tolerance = constant_b_bound(f32, 24);
  t.add("matmul of one row per batch position [3, 1, 1, 16] by a constant, batch folded",
        {input("x", "float64", "[3, 1, 1, 16]")}, {node("y", "matmul", R"(["x", "w"])")}, {"y"},
        {weight("w", "float64", "[16, 20]", 16 * 20)})
      .tolerance = constant_b_bound(f64, 16);
  t.add("matmul of a transposed batch by a constant: rows do not continue, batch kept",
        {input("x", "float32", "[6, 4, 16]")},
        {node("y", "matmul", R"([{"op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1}, "w"])"),
         node("z", "relu", R"(["y"])")},
        {"z"}, {weight("w", "float32", "[16, 20]", 16 * 20)})
      .tolerance = constant_b_bound(f32, 16);
  t.add("constant weight shared by two products", {input("x", "float32", "[6, 16]"), input("z", "float32", "[3, 16]")},
        {node("y", "matmul", R"(["x", "w"])"), node("u", "matmul", R"(["z", "w"])")}, {"y", "u"},
        {weight("w", "float32", "[16, 40]", 16 * 40)})
      .tolerance = constant_b_bound(f32, 16);
}

}  // namespace

std::vector<Case> nn_cases() {
  Table t;
  pool_cases(t);
  norm_activation_cases(t);
  indexing_cases(t);
  index_error_cases(t);
  constant_weight_cases(t);
  return t.cases;
}

}  // namespace stax::e2e

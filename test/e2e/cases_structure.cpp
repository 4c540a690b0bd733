// Reductions, scans, views (and views of views), cat, pad, composites and matmul through
// generated code, against the interpreter.
#include "cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace stax::e2e {

std::vector<Case> reduction_cases() {
  Table t;
  const std::vector<std::string> dims = {"", R"(, "dim": 1)", R"(, "dim": -1, "keepdim": true)",
                                         R"(, "dim": [0, 2])", R"(, "dim": [2, 0], "keepdim": true)"};
  for (const std::string op : {"sum", "mean", "prod", "amax", "amin", "any", "all", "var", "std", "logsumexp"}) {
    for (const std::string dt : {"float32", "float64", "int32", "int64", "bool"}) {
      for (std::size_t d = 0; d < dims.size(); ++d) {
        Case c;
        c.name = op + " " + dt + " dims#" + std::to_string(d);
        c.json = graph({input("x", dt, "[3, 4, 5]")},
                       {R"({"name": "y", "op": ")" + op + R"(", "args": ["x"])" + dims[d] + "}"}, {"y"});
        if (accepted(c.json)) t.cases.push_back(c);
      }
    }
  }
  // var/std corrections, including one that leaves no degrees of freedom (inf/nan as PyTorch).
  t.add("var correction 0", {input("x", "float32", "[4, 6]")}, {R"({"name": "y", "op": "var", "args": ["x"], "dim": 1, "correction": 0})"}, {"y"});
  t.add("std correction 2.5", {input("x", "float64", "[4, 6]")}, {R"({"name": "y", "op": "std", "args": ["x"], "dim": 0, "correction": 2.5})"}, {"y"});
  t.add("var correction >= n", {input("x", "float32", "[4, 2]")}, {R"({"name": "y", "op": "var", "args": ["x"], "dim": 1, "correction": 2})"}, {"y"});
  t.add("sum of 0-d", {input("x", "float32", "[]")}, {R"({"name": "y", "op": "sum", "args": ["x"]})"}, {"y"});
  t.add("amax of size-1 dims", {input("x", "float32", "[1, 5, 1]")}, {R"({"name": "y", "op": "amax", "args": ["x"], "dim": [0, 2], "keepdim": true})"}, {"y"});
  // Column reductions vectorized across the contiguous columns (blocks of 1024 columns, a
  // remainder of columns that fills no vector, rows prefetched ahead), max with -inf rows and a
  // float64 column sum. Inputs named like the kernels' locals (ahead, s0, next) keep apart. Those
  // of at most 64 rows reduce each vector of columns in registers over all its rows (the window
  // form: groups of four vectors, then the rest with its last vector masked): two results in one
  // kernel, float32 sums in float64 lanes converted on the store, products of wrapping ints,
  // bools, and a remainder of whole vectors only.
  t.add("column sum 300 x 1037", {input("ahead", "float32", "[300, 1037]")}, {R"({"name": "y", "op": "sum", "args": ["ahead"], "dim": 0})"}, {"y"});
  t.add("column amax and amin", {input("x", "float32", "[37, 531]")},
        {R"({"name": "a", "op": "amax", "args": ["x"], "dim": 0})", R"({"name": "b", "op": "amin", "args": ["x"], "dim": 0})"}, {"a", "b"});
  t.add("column sum float64 over two dims", {input("x", "float64", "[5, 7, 300]")}, {R"({"name": "y", "op": "sum", "args": ["x"], "dim": [0, 1]})"}, {"y"});
  t.add("window column sum float32", {input("x", "float32", "[6, 2, 45]")}, {R"({"name": "y", "op": "sum", "args": ["x"], "dim": 0})"}, {"y"});
  t.add("window column prod int32", {input("x", "int32", "[9, 3, 50]")}, {R"({"name": "y", "op": "prod", "args": ["x"], "dim": 0})"}, {"y"});
  t.add("window column any and all", {input("x", "bool", "[5, 2, 70]")},
        {R"({"name": "a", "op": "any", "args": ["x"], "dim": 0})", R"({"name": "b", "op": "all", "args": ["x"], "dim": 0})"}, {"a", "b"});
  // Row reductions exact in any order over 64 elements or more, in four chains of vectors: whole
  // groups of four vectors, a vector remainder (AVX2, NEON) and a scalar one; two results in one
  // group; NaNs in some rows; float64; wrapping int64 sums and products; any and all.
  t.add("row amax and amin in chains", {input("x", "float32", "[6, 1037]")},
        {R"({"name": "a", "op": "amax", "args": ["x"], "dim": -1})", R"({"name": "b", "op": "amin", "args": ["x"], "dim": -1})"}, {"a", "b"});
  t.add("row amax and amin with NaNs in chains", {input("x", "float32", "[16, 70]")},
        {R"({"name": "s", "op": "sqrt", "args": [{"op": "sub", "args": [2.3, "x"]}]})",
         R"({"name": "a", "op": "amax", "args": ["s"], "dim": -1})", R"({"name": "b", "op": "amin", "args": ["s"], "dim": 1})"}, {"a", "b"});
  t.add("row amax float64 in chains", {input("x", "float64", "[4, 150]")}, {R"({"name": "y", "op": "amax", "args": ["x"], "dim": 1})"}, {"y"});
  t.add("row amin int32 in chains", {input("x", "int32", "[3, 200]")}, {R"({"name": "y", "op": "amin", "args": ["x"], "dim": 1})"}, {"y"});
  t.add("row sum and prod int64 in chains", {input("x", "int64", "[5, 131]")},
        {R"({"name": "a", "op": "sum", "args": ["x"], "dim": 1})", R"({"name": "b", "op": "prod", "args": ["x"], "dim": 1})"}, {"a", "b"})
      .nonzero_ints = true;
  t.add("row any and all in chains", {input("x", "float32", "[6, 100]")},
        {R"({"name": "a", "op": "any", "args": [{"op": "gt", "args": ["x", 2.0]}], "dim": 1})",
         R"({"name": "b", "op": "all", "args": [{"op": "gt", "args": ["x", -2.0]}], "dim": 1})"}, {"a", "b"});
  // Over more rows than a window, with a pointwise group after each column's result: a mean
  // over the middle dim (the division per column once its block is done, columns past a
  // block of 1024 and a remainder), in float32 and float64, and a sum then scaled and clamped.
  t.add("column mean over the middle dim", {input("x", "float32", "[3, 70, 1037]")}, {R"({"name": "y", "op": "mean", "args": ["x"], "dim": 1})"}, {"y"});
  t.add("column mean float64 keepdim", {input("x", "float64", "[2, 90, 19]")}, {R"({"name": "y", "op": "mean", "args": ["x"], "dim": 1, "keepdim": true})"}, {"y"});
  t.add("column sum then pointwise", {input("x", "float32", "[4, 100, 33]")},
        {R"({"name": "s", "op": "sum", "args": ["x"], "dim": 1})", R"({"name": "y", "op": "clamp", "args": [{"op": "mul", "args": ["s", 0.25]}], "min": -2.0, "max": 2.0})"}, {"y"});
  t.add("window column amax of whole vectors", {input("x", "float32", "[3, 2, 128]")}, {R"({"name": "y", "op": "amax", "args": ["x"], "dim": 0})"}, {"y"});
  // z = OP(x, y^T) with x [rows, cols] and y [cols, rows] of one dtype.
  auto transposed_operand = [&](const std::string& title, const std::string& op, const std::string& dtype,
                                int rows, int cols) {
    const std::string r = std::to_string(rows), c = std::to_string(cols);
    t.add(title, {input("x", dtype, "[" + r + ", " + c + "]"), input("y", dtype, "[" + c + ", " + r + "]")},
          {R"({"name": "z", "op": ")" + op +
           R"(", "args": ["x", {"op": "transpose", "args": ["y"], "dim0": 0, "dim1": 1}]})"},
          {"z"});
  };
  // The 2-D tiled form (64 x 64 tiles, whole ones only, partial tiles at both edges): a
  // transposed operand, a batched one, and a transposed float64 operand read twice.
  transposed_operand("transpose add in whole tiles 128 x 192", "add", "float32", 128, 192);
  transposed_operand("transpose add tiled 70 x 45", "add", "float32", 70, 45);
  t.add("batched transpose mul tiled", {input("x", "float32", "[3, 40, 130]"), input("y", "float32", "[3, 130, 40]")},
        {R"({"name": "z", "op": "mul", "args": ["x", {"op": "transpose", "args": ["y"], "dim0": 1, "dim1": 2}]})"}, {"z"});
  t.add("transposed float64 twice", {input("y", "float64", "[20, 33]")},
        {R"({"name": "t", "op": "transpose", "args": ["y"], "dim0": 0, "dim1": 1})",
         R"({"name": "z", "op": "sub", "args": [{"op": "exp", "args": ["t"]}, "t"]})"}, {"z"});
  // Staging in registers (8 x 8 blocks of 4-byte and 4 x 4 of 8-byte elements, the rows and
  // columns left over one at a time), the next tile prefetched: edges of every remainder, each
  // dtype, a batched permute, two transposed operands, a bool one, a streamed output whose rows
  // start at every alignment.
  transposed_operand("transpose add tiled 130 x 67", "add", "float32", 130, 67);
  transposed_operand("transpose tiled int32 100 x 203", "mul", "int32", 100, 203);
  transposed_operand("transpose tiled int64 70 x 129", "sub", "int64", 70, 129);
  t.add("permute tiled float64 2 x 150 x 67", {input("x", "float64", "[2, 150, 67]"), input("y", "float64", "[2, 67, 150]")},
        {R"({"name": "z", "op": "add", "args": ["x", {"op": "permute", "args": ["y"], "dims": [0, 2, 1]}]})"}, {"z"});
  t.add("two transposed operands", {input("x", "float32", "[90, 140]"), input("y", "float32", "[90, 140]")},
        {R"({"name": "a", "op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1})",
         R"({"name": "b", "op": "transpose", "args": ["y"], "dim0": 0, "dim1": 1})",
         R"({"name": "z", "op": "add", "args": [{"op": "mul", "args": ["a", "b"]}, 1.5]})"}, {"z"});
  t.add("transposed bool mask", {input("m", "bool", "[81, 70]"), input("x", "float32", "[70, 81]")},
        {R"({"name": "z", "op": "where", "args": [{"op": "transpose", "args": ["m"], "dim0": 0, "dim1": 1}, "x", -1.0]})"}, {"z"});
  transposed_operand("streamed transpose add 2050 x 2100", "add", "float32", 2050, 2100);
  // An output of 16.8 MB from one long loop: written with non-temporal stores after a plain
  // head up to the 64-byte boundary, with a plain remainder.
  t.add("streamed large output", {input("s0", "float32", "[4100, 1025]")}, {R"({"name": "y", "op": "mul", "args": ["s0", 3.0]})"}, {"y"});
  // The same for the last loop of a fused row kernel (17.2 MB of softmax rows of 2050, so each
  // row starts at another alignment).
  t.add("streamed softmax rows", {input("x", "float32", "[2100, 2050]")}, {R"({"name": "y", "op": "softmax", "args": ["x"], "dim": -1})"}, {"y"});
  // Rows of a 3-D batch (5 MB): the last loop prefetches the next row, none past each batch's
  // last row.
  t.add("layer norm rows of a batch, prefetched", {input("next", "float32", "[3, 700, 601]")},
        {R"({"name": "y", "op": "layer_norm", "args": ["next"], "normalized_shape": [601]})"}, {"y"});
  // A long float32 row: accumulated in double, within the default tolerance.
  t.add("long row sum", {input("x", "float32", "[2, 5000]")}, {R"({"name": "y", "op": "sum", "args": ["x"], "dim": -1})"}, {"y"});
  t.add("mean over everything", {input("x", "float32", "[50, 60]")}, {R"({"name": "y", "op": "mean", "args": ["x"]})"}, {"y"});
  // argmax/argmin: a dim, flattened, keepdim; ties (ints repeat a lot) take the first index.
  for (const std::string op : {"argmax", "argmin"}) {
    for (const std::string dt : {"float32", "float64", "int32", "int64"}) {
      t.add(op + " " + dt + " dim", {input("x", dt, "[3, 4, 5]")}, {R"({"name": "y", "op": ")" + op + R"(", "args": ["x"], "dim": 1})"}, {"y"});
      t.add(op + " " + dt + " flat", {input("x", dt, "[3, 4, 5]")}, {R"({"name": "y", "op": ")" + op + R"(", "args": ["x"]})"}, {"y"});
      t.add(op + " " + dt + " keepdim", {input("x", dt, "[3, 4, 5]")}, {R"({"name": "y", "op": ")" + op + R"(", "args": ["x"], "dim": -1, "keepdim": true})"}, {"y"});
    }
  }
  t.add("argmax with nan", {input("x", "float32", "[3, 4]")},
        {R"({"name": "l", "op": "log", "args": ["x"]})", R"({"name": "y", "op": "argmax", "args": ["l"], "dim": 1})"}, {"y"});
  t.add("argmin of a transposed view", {input("x", "int32", "[4, 6]")},
        {R"({"name": "t", "op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1})", R"({"name": "y", "op": "argmin", "args": ["t"], "dim": 1})"}, {"y"});
  // Scans.
  for (const std::string op : {"cumsum", "cumprod"}) {
    for (const std::string dt : {"float32", "float64", "int32", "int64", "bool"}) {
      t.add(op + " " + dt + " dim 0", {input("x", dt, "[4, 3, 2]")}, {R"({"name": "y", "op": ")" + op + R"(", "args": ["x"], "dim": 0})"}, {"y"});
      t.add(op + " " + dt + " dim -1", {input("x", dt, "[4, 3, 2]")}, {R"({"name": "y", "op": ")" + op + R"(", "args": ["x"], "dim": -1})"}, {"y"});
    }
  }
  // A scan over a dim that is not the last runs across the last dim, one accumulator per line
  // in blocks of 1024 (two here, the second partial), in parallel; and with a body that may fail.
  t.add("cumsum across the last dim in blocks", {input("x", "float32", "[3, 40, 1037]")},
        {R"({"name": "y", "op": "cumsum", "args": ["x"], "dim": 1})"}, {"y"});
  t.add("cumprod float64 across a middle dim", {input("x", "float64", "[2, 30, 3, 50]")},
        {R"({"name": "y", "op": "cumprod", "args": ["x"], "dim": 1})"}, {"y"});
  t.add("cumsum of floor divisions across", {input("x", "int64", "[6, 70]"), input("d", "int64", "[6, 70]")},
        {R"({"name": "y", "op": "cumsum", "args": [{"op": "div", "args": ["x", "d"], "rounding_mode": "floor"}], "dim": 0})"}, {"y"})
      .nonzero_ints = true;
  t.add("cumsum of 0-d", {input("x", "float32", "[]")}, {R"({"name": "y", "op": "cumsum", "args": ["x"], "dim": 0})"}, {"y"});
  t.add("cumsum of a permuted view", {input("x", "float32", "[3, 5]")},
        {R"({"name": "p", "op": "permute", "args": ["x"], "dims": [1, 0]})", R"({"name": "y", "op": "cumsum", "args": ["p"], "dim": 1})"}, {"y"});
  return t.cases;
}

std::vector<Case> view_cases() {
  Table t;
  const std::string x = input("x", "float32", "[2, 3, 4]");
  auto one = [&](const std::string& name, const std::string& node) { t.add(name, {x}, {node}, {"y"}); };
  one("reshape", R"({"name": "y", "op": "reshape", "args": ["x"], "shape": [4, -1]})");
  one("reshape to 0-d", R"({"name": "y", "op": "reshape", "args": [{"op": "slice", "args": ["x"], "dim": 2, "start": 1, "end": 2}], "shape": [2, 3]})");
  one("permute", R"({"name": "y", "op": "permute", "args": ["x"], "dims": [2, 0, 1]})");
  one("transpose", R"({"name": "y", "op": "transpose", "args": ["x"], "dim0": -1, "dim1": 0})");
  one("expand", R"({"name": "y", "op": "expand", "args": [{"op": "unsqueeze", "args": ["x"], "dim": 1}], "shape": [2, 5, 3, 4]})");
  one("expand -1", R"({"name": "y", "op": "expand", "args": [{"op": "slice", "args": ["x"], "dim": 1, "start": 0, "end": 1}], "shape": [-1, 6, -1]})");
  one("unsqueeze", R"({"name": "y", "op": "unsqueeze", "args": ["x"], "dim": -1})");
  one("squeeze", R"({"name": "y", "op": "squeeze", "args": [{"op": "unsqueeze", "args": ["x"], "dim": 0}]})");
  one("squeeze non-1 dim", R"({"name": "y", "op": "squeeze", "args": ["x"], "dim": 1})");
  one("flatten", R"({"name": "y", "op": "flatten", "args": ["x"], "start_dim": 1})");
  one("slice step", R"({"name": "y", "op": "slice", "args": ["x"], "dim": 2, "start": 1, "end": 100, "step": 2})");
  // Every other element of rows long enough for vector loops: two loads and a shuffle per vector
  // (stax_rt::load_even), the last vector of each row masked; bools stay scalar.
  for (const std::string dt : {"float32", "float64", "int32", "int64", "bool"})
    t.add("slice step 2 of wide rows " + dt, {input("x", dt, "[3, 2, 75]")},
          {R"({"name": "y", "op": "slice", "args": ["x"], "dim": 2, "start": 1, "end": 75, "step": 2})"}, {"y"});
  one("slice negative", R"({"name": "y", "op": "slice", "args": ["x"], "dim": 1, "start": -2})");
  one("select", R"({"name": "y", "op": "select", "args": ["x"], "dim": 1, "index": -1})");
  one("select to 1-d", R"({"name": "y", "op": "select", "args": [{"op": "select", "args": ["x"], "dim": 0, "index": 1}], "dim": 0, "index": 2})");
  // Views of views: transpose then reshape (a non-contiguous reshape needs // and %), then slice.
  t.add("views of views", {x},
        {R"({"name": "a", "op": "transpose", "args": ["x"], "dim0": 0, "dim1": 2})",
         R"({"name": "b", "op": "reshape", "args": ["a"], "shape": [6, 4]})",
         R"({"name": "c", "op": "slice", "args": ["b"], "dim": 0, "start": 1, "end": 6, "step": 2})",
         R"({"name": "y", "op": "mul", "args": ["c", 2]})"},
        {"y", "b"});
  t.add("permute flatten select", {input("x", "int64", "[3, 4, 5]")},
        {R"({"name": "a", "op": "permute", "args": ["x"], "dims": [2, 0, 1]})",
         R"({"name": "b", "op": "flatten", "args": ["a"], "start_dim": 0, "end_dim": 1})",
         R"({"name": "y", "op": "select", "args": ["b"], "dim": 1, "index": 2})"},
        {"y"});
  t.add("broadcast add of views", {input("a", "float32", "[4, 1]"), input("b", "float32", "[3]")},
        {R"({"name": "t", "op": "transpose", "args": ["a"], "dim0": 0, "dim1": 1})",
         R"({"name": "u", "op": "unsqueeze", "args": ["b"], "dim": 1})",
         R"({"name": "y", "op": "add", "args": ["t", "u"]})"},
        {"y"});
  t.add("reduce over a view", {x},
        {R"({"name": "p", "op": "permute", "args": ["x"], "dims": [1, 2, 0]})",
         R"({"name": "y", "op": "sum", "args": ["p"], "dim": [0, 2]})"},
        {"y"});
  // cat and pad: masked loads.
  t.add("cat dim 0", {input("a", "float32", "[2, 3]"), input("b", "float32", "[4, 3]")},
        {R"({"name": "y", "op": "cat", "args": ["a", "b"], "dim": 0})"}, {"y"});
  t.add("cat dim -1, three args, mixed dtypes", {input("a", "int32", "[2, 1]"), input("b", "float32", "[2, 3]"), input("c", "int64", "[2, 2]")},
        {R"({"name": "y", "op": "cat", "args": ["a", "b", "c"], "dim": -1})"}, {"y"});
  t.add("cat one arg", {input("a", "bool", "[3]")}, {R"({"name": "y", "op": "cat", "args": ["a"], "dim": 0})"}, {"y"});
  t.add("cat of views then reduce", {input("a", "float32", "[3, 4]")},
        {R"({"name": "t", "op": "transpose", "args": ["a"], "dim0": 0, "dim1": 1})",
         R"({"name": "c", "op": "cat", "args": ["t", {"op": "exp", "args": ["t"]}], "dim": 1})",
         R"({"name": "y", "op": "amax", "args": ["c"], "dim": 1})"},
        {"c", "y"});
  t.add("pad last dim", {input("a", "float32", "[2, 3]")}, {R"({"name": "y", "op": "pad", "args": ["a"], "pad": [1, 2]})"}, {"y"});
  t.add("pad two dims with value", {input("a", "int32", "[2, 3]")}, {R"({"name": "y", "op": "pad", "args": ["a"], "pad": [0, 1, 2, 0], "value": 7})"}, {"y"});
  t.add("pad negative crops", {input("a", "float64", "[4, 5]")}, {R"({"name": "y", "op": "pad", "args": ["a"], "pad": [-1, 2, 1, -2]})"}, {"y"});
  t.add("pad -inf then max", {input("a", "float32", "[3, 4]")},
        {R"({"name": "p", "op": "pad", "args": ["a"], "pad": [2, 2], "value": "-inf"})",
         R"({"name": "y", "op": "amax", "args": ["p"], "dim": -1})"},
        {"p", "y"});
  t.add("pad of a division (masked body)", {input("a", "int32", "[3]"), input("b", "int32", "[3]")},
        {R"({"name": "q", "op": "div", "args": ["a", {"op": "add", "args": [{"op": "abs", "args": ["b"]}, 1]}], "rounding_mode": "floor"})",
         R"({"name": "y", "op": "pad", "args": ["q"], "pad": [2, 1], "value": -1})"},
        {"y"});
  return t.cases;
}

namespace {

using Inputs = std::vector<Tensor>;
using Element = std::function<double(int64_t, int64_t)>;

// Element (r, c) of a row-major input with `cols` columns, from flat position `offset`.
Element at(const Tensor& t, int64_t cols, int64_t offset = 0) {
  return [&t, cols, offset](int64_t r, int64_t c) { return t.get_double(offset + r * cols + c); };
}
// Element (r, c) of the transpose of a row-major input with `cols` columns.
Element transposed(const Tensor& t, int64_t cols) {
  return [&t, cols](int64_t r, int64_t c) { return t.get_double(c * cols + r); };
}

// The largest sum_k |a(i, k)| |b(k, j)| over the M x N elements of a product.
double max_abs_sum(int64_t M, int64_t N, int64_t K, const Element& a, const Element& b) {
  double worst = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += std::fabs(a(i, k)) * std::fabs(b(k, j));
      worst = std::max(worst, s);
    }
  return worst;
}

}  // namespace

std::vector<Case> composite_matmul_cases() {
  Table t;
  // Composites are expanded into primitives computed in float32; the interpreter computes them
  // directly in double: a few ULPs apart, within the default tolerance.
  t.add("softmax", {input("x", "float32", "[4, 7]")}, {R"({"name": "y", "op": "softmax", "args": ["x"], "dim": -1})"}, {"y"});
  t.add("softmax dim 0 f64", {input("x", "float64", "[4, 7]")}, {R"({"name": "y", "op": "softmax", "args": ["x"], "dim": 0})"}, {"y"});
  t.add("log_softmax", {input("x", "float32", "[3, 9]")}, {R"({"name": "y", "op": "log_softmax", "args": ["x"], "dim": 1})"}, {"y"});
  t.add("layer_norm", {input("x", "float32", "[4, 8]"), input("w", "float32", "[8]"), input("b", "float32", "[8]")},
        {R"({"name": "y", "op": "layer_norm", "args": ["x", "w", "b"], "normalized_shape": [8]})"}, {"y"});
  t.add("layer_norm without weight", {input("x", "float32", "[2, 3, 4]"), input("b", "float32", "[3, 4]")},
        {R"({"name": "y", "op": "layer_norm", "args": ["x", null, "b"], "normalized_shape": [3, 4], "eps": 0.001})"}, {"y"});
  t.add("rms_norm", {input("x", "float32", "[4, 8]"), input("w", "float32", "[8]")},
        {R"({"name": "y", "op": "rms_norm", "args": ["x", "w"], "normalized_shape": 8})"}, {"y"});
  t.add("rms_norm f64 no weight", {input("x", "float64", "[4, 8]")},
        {R"({"name": "y", "op": "rms_norm", "args": ["x"], "normalized_shape": [8]})"}, {"y"});
  // Matrix products: within the documented bound (matmul_tolerance), from each case's inputs.
  const DType f32 = DType::Float32, f64 = DType::Float64;
  t.add("linear", {input("x", "float32", "[5, 6]"), input("w", "float32", "[3, 6]"), input("b", "float32", "[3]")},
        {R"({"name": "y", "op": "linear", "args": ["x", "w", "b"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) {
    return matmul_tolerance(f32, 6, max_abs_sum(5, 3, 6, at(in[0], 6), transposed(in[1], 6)) + max_abs(in[2]));
  };
  t.add("linear no bias, batched", {input("x", "float64", "[2, 5, 6]"), input("w", "float64", "[3, 6]")},
        {R"({"name": "y", "op": "linear", "args": ["x", "w"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) {
    return matmul_tolerance(f64, 6, std::max(max_abs_sum(5, 3, 6, at(in[0], 6), transposed(in[1], 6)),
                                             max_abs_sum(5, 3, 6, at(in[0], 6, 30), transposed(in[1], 6))));
  };
  // matmul: 1-D and 2-D rules, batch broadcast, ints, transposed and sliced operands.
  t.add("matmul 2-D", {input("a", "float32", "[5, 7]"), input("b", "float32", "[7, 3]")}, {R"({"name": "y", "op": "matmul", "args": ["a", "b"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) { return matmul_tolerance(f32, 7, max_abs_sum(5, 3, 7, at(in[0], 7), at(in[1], 3))); };
  t.add("matmul dot", {input("a", "float32", "[7]"), input("b", "float32", "[7]")}, {R"({"name": "y", "op": "matmul", "args": ["a", "b"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) { return matmul_tolerance(f32, 7, max_abs_sum(1, 1, 7, at(in[0], 7), at(in[1], 1))); };
  t.add("matmul mat-vec", {input("a", "float64", "[4, 7]"), input("b", "float64", "[7]")}, {R"({"name": "y", "op": "matmul", "args": ["a", "b"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) { return matmul_tolerance(f64, 7, max_abs_sum(4, 1, 7, at(in[0], 7), at(in[1], 1))); };
  t.add("matmul vec-mat", {input("a", "float32", "[7]"), input("b", "float32", "[7, 2]")}, {R"({"name": "y", "op": "matmul", "args": ["a", "b"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) { return matmul_tolerance(f32, 7, max_abs_sum(1, 2, 7, at(in[0], 7), at(in[1], 2))); };
  t.add("matmul batched broadcast", {input("a", "float32", "[2, 1, 3, 4]"), input("b", "float32", "[3, 4, 5]")}, {R"({"name": "y", "op": "matmul", "args": ["a", "b"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) {
    double s = 0;
    for (int64_t x0 = 0; x0 < 2; ++x0)
      for (int64_t x1 = 0; x1 < 3; ++x1) s = std::max(s, max_abs_sum(3, 5, 4, at(in[0], 4, 12 * x0), at(in[1], 5, 20 * x1)));
    return matmul_tolerance(f32, 4, s);
  };
  t.add("matmul batch by 1-D", {input("a", "float32", "[2, 3, 4]"), input("b", "float32", "[4]")}, {R"({"name": "y", "op": "matmul", "args": ["a", "b"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) {
    return matmul_tolerance(f32, 4, std::max(max_abs_sum(3, 1, 4, at(in[0], 4), at(in[1], 1)),
                                             max_abs_sum(3, 1, 4, at(in[0], 4, 12), at(in[1], 1))));
  };
  t.add("matmul int32", {input("a", "int32", "[3, 4]"), input("b", "int32", "[4, 5]")}, {R"({"name": "y", "op": "matmul", "args": ["a", "b"]})"}, {"y"});
  t.add("matmul int64 batched", {input("a", "int64", "[2, 3, 4]"), input("b", "int64", "[2, 4, 2]")}, {R"({"name": "y", "op": "matmul", "args": ["a", "b"]})"}, {"y"});
  t.add("matmul of views", {input("a", "float32", "[6, 5]"), input("b", "float32", "[4, 6]")},
        {R"({"name": "at", "op": "transpose", "args": ["a"], "dim0": 0, "dim1": 1})",
         R"({"name": "bt", "op": "transpose", "args": ["b"], "dim0": 0, "dim1": 1})",
         R"({"name": "s", "op": "slice", "args": ["at"], "dim": 0, "start": 1, "step": 2})",
         R"({"name": "y", "op": "matmul", "args": ["s", "bt"]})"},
        {"y"})
      .tolerance = [=](const Inputs& in) {
    // s[i][k] = a[k][1 + 2i] (rows 1 and 3 of a's transpose), bt[k][j] = b[j][k].
    const Tensor& a = in[0];
    return matmul_tolerance(f32, 6, max_abs_sum(2, 4, 6, [&a](int64_t i, int64_t k) { return a.get_double(k * 5 + 1 + 2 * i); },
                                                transposed(in[1], 6)));
  };
  t.add("matmul of a computed operand", {input("a", "float32", "[4, 4]")},
        {R"({"name": "e", "op": "exp", "args": ["a"]})", R"({"name": "y", "op": "matmul", "args": ["e", "e"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) {
    // e = exp(a) is itself within a few ULPs: its error adds about 2 * 4u sum |e||e| more.
    const Tensor& a = in[0];
    auto e = [&a](int64_t r, int64_t c) { return std::exp(a.get_double(r * 4 + c)); };
    return matmul_tolerance(f32, 4 + 8, max_abs_sum(4, 4, 4, e, e));
  };
  t.add("matmul large, parallel blocks", {input("a", "float32", "[70, 90]"), input("b", "float32", "[90, 80]")},
        {R"({"name": "y", "op": "matmul", "args": ["a", "b"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) { return matmul_tolerance(f32, 90, max_abs_sum(70, 80, 90, at(in[0], 90), at(in[1], 80))); };
  // Epilogues (the pointwise reader of a product run by the GEMM on each tile): several tiles and
  // K blocks, threads, vector rows with a scalar remainder, batches, float64. A Lipschitz constant
  // of the epilogue (gelu's slope is at most 1.13) scales the product's bound.
  auto scaled = [](driver::Tolerance t, double by) {
    t.atol *= by;
    return t;
  };
  t.add("epilogue: linear + gelu over tiles and K blocks", {input("x", "float32", "[70, 520]"), input("w", "float32", "[96, 520]"), input("b", "float32", "[96]")},
        {R"({"name": "y", "op": "gelu", "args": [{"op": "linear", "args": ["x", "w", "b"]}]})"}, {"y"})
      .tolerance = [=](const Inputs& in) {
    return scaled(matmul_tolerance(f32, 520, max_abs_sum(70, 96, 520, at(in[0], 520), transposed(in[1], 520)) + max_abs(in[2])), 1.2);
  };
  t.add("epilogue: residual add then relu, ragged tiles", {input("a", "float32", "[33, 40]"), input("b", "float32", "[40, 40]"), input("r", "float32", "[33, 40]")},
        {R"({"name": "y", "op": "relu", "args": [{"op": "add", "args": [{"op": "matmul", "args": ["a", "b"]}, "r"]}]})"}, {"y"})
      .tolerance = [=](const Inputs& in) { return matmul_tolerance(f32, 40, max_abs_sum(33, 40, 40, at(in[0], 40), at(in[1], 40)) + max_abs(in[2])); };
  t.add("epilogue: batched broadcast, scale and bias", {input("q", "float32", "[2, 3, 20, 16]"), input("k", "float32", "[3, 16, 24]"), input("c", "float32", "[24]")},
        {R"({"name": "y", "op": "add", "args": [{"op": "mul", "args": [{"op": "matmul", "args": ["q", "k"]}, 0.25]}, "c"]})"}, {"y"})
      .tolerance = [=](const Inputs& in) {
    double s = 0;
    for (int64_t x0 = 0; x0 < 2; ++x0)
      for (int64_t x1 = 0; x1 < 3; ++x1) s = std::max(s, max_abs_sum(20, 24, 16, at(in[0], 16, 320 * (3 * x0 + x1)), at(in[1], 24, 384 * x1)));
    return matmul_tolerance(f32, 16, 0.25 * s + max_abs(in[2]));
  };
  t.add("epilogue: float64 linear + tanh", {input("x", "float64", "[17, 48]"), input("w", "float64", "[40, 48]"), input("b", "float64", "[40]")},
        {R"({"name": "y", "op": "tanh", "args": [{"op": "linear", "args": ["x", "w", "b"]}]})"}, {"y"})
      .tolerance = [=](const Inputs& in) {
    return matmul_tolerance(f64, 48, max_abs_sum(17, 40, 48, at(in[0], 48), transposed(in[1], 48)) + max_abs(in[2]));
  };
  t.add("no epilogue: the product is also an output", {input("a", "float32", "[9, 20]"), input("b", "float32", "[20, 18]")},
        {R"({"name": "m", "op": "matmul", "args": ["a", "b"]})", R"({"name": "y", "op": "relu", "args": ["m"]})"}, {"m", "y"})
      .tolerance = [=](const Inputs& in) { return matmul_tolerance(f32, 20, max_abs_sum(9, 18, 20, at(in[0], 20), at(in[1], 18))); };
  // An attention block written with primitives: scores, a -inf causal mask, softmax, values.
  t.add("masked attention", {input("q", "float32", "[4, 8]"), input("k", "float32", "[4, 8]"), input("v", "float32", "[4, 8]")},
        {R"({"name": "kt", "op": "transpose", "args": ["k"], "dim0": 0, "dim1": 1})",
         R"({"name": "s", "op": "mul", "args": [{"op": "matmul", "args": ["q", "kt"]}, 0.35355339]})",
         R"({"name": "i", "op": "unsqueeze", "args": [{"op": "arange", "end": 4}], "dim": 1})",
         R"({"name": "j", "op": "arange", "end": 4})",
         R"({"name": "causal", "op": "ge", "args": ["i", "j"]})",
         R"({"name": "ms", "op": "where", "args": ["causal", "s", "-inf"]})",
         R"({"name": "p", "op": "softmax", "args": ["ms"], "dim": -1})",
         R"({"name": "y", "op": "matmul", "args": ["p", "v"]})"},
        {"y", "p"})
      .tolerance = [=](const Inputs& in) {
    // y = p v with p >= 0 summing to 1 per row: sum |p||v| <= max |v|. The error of the scores
    // (the bound of q kt, scaled) moves p by at most twice as much, relatively, and softmax's own
    // roundings (a few u, relatively) add theirs: both times max |v| too.
    const double scores = 0.36 * matmul_tolerance(f32, 8, max_abs_sum(4, 4, 8, at(in[0], 8), transposed(in[1], 8))).atol;
    return driver::Tolerance{0.0, matmul_tolerance(f32, 8 + 8, max_abs(in[2])).atol + 2 * scores * max_abs(in[2])};
  };
  t.add("residual layer_norm gelu", {input("x", "float32", "[6, 16]"), input("r", "float32", "[6, 16]")},
        {R"({"name": "h", "op": "add", "args": ["x", "r"]})",
         R"({"name": "n", "op": "layer_norm", "args": ["h"], "normalized_shape": [16]})",
         R"({"name": "y", "op": "gelu", "args": ["n"]})"},
        {"y"});
  return t.cases;
}

}  // namespace stax::e2e

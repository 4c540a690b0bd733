// Clip, the matrix products (Gemm, MatMul), Softmax and LogSoftmax in both of ONNX's axis
// semantics, LayerNormalization.
#include <cmath>

#include "fold.h"
#include "map_util.h"

namespace stax::importer::detail {

namespace {


// Clip (opset 11 on: optional min and max inputs). Known bounds become clamp's; bounds computed
// at run time become maximum/minimum, which propagate NaN as clamp does. With min > max both
// give max, as ONNX specifies.
void map_clip(NodeCtx& c) {
  DType dt = c.dtype(0);
  bool has_min = c.has_input(1), has_max = c.has_input(2);
  if (!has_min && !has_max) return c.set_alias(0, 0);
  for (std::size_t i = 1; i <= 2; ++i)
    if (c.has_input(i) && c.in(i).shape.size() != 0 && shape_numel(c.in(i).shape) != 1)
      c.fail(std::string(i == 1 ? "min" : "max") + " must be a scalar, got shape " + shape_str(c.in(i).shape));
  if (c.fold(dt, c.shape(0))) {
    Tensor y = c.require_known(0, "input");
    if (has_min) y = fold::binary(fold::Binary::Max, y, fold::reshape(c.require_known(1, "min"), {}), dt);
    if (has_max) y = fold::binary(fold::Binary::Min, y, fold::reshape(c.require_known(2, "max"), {}), dt);
    return c.set_known(0, std::move(y));
  }
  bool known_bounds = (!has_min || c.known(1)) && (!has_max || c.known(2));
  Json node;
  if (known_bounds) {
    node = op_node("clamp", {c.arg(0)});
    if (has_min) node["min"] = element_json(*c.known(1), 0);
    if (has_max) node["max"] = element_json(*c.known(2), 0);
  } else {
    node = c.arg(0);
    auto scalar = [&](std::size_t i) { return c.rank(i) == 0 ? c.arg(i) : reshape_node(c.arg(i), {}); };
    if (has_min) node = op_node("maximum", {std::move(node), scalar(1)});
    if (has_max) node = op_node("minimum", {std::move(node), scalar(2)});
  }
  c.set_node(0, std::move(node), dt, c.shape(0));
}

// Gemm: alpha * A' @ B' + beta * C, A' = A or A^T (transA), B' likewise, C broadcast to [M, N].
// transB without transA, alpha = beta = 1 is PyTorch's linear (what nn.Linear exports).
void map_gemm(NodeCtx& c) {
  bool ta = c.attr_int("transA", 0) != 0, tb = c.attr_int("transB", 0) != 0;
  float alpha = c.attr_float("alpha", 1.0f), beta = c.attr_float("beta", 1.0f);
  if (c.rank(0) != 2 || c.rank(1) != 2)
    c.fail("A and B must be 2-D, got " + shape_str(c.shape(0)) + " and " + shape_str(c.shape(1)));
  DType dt = c.dtype(0);
  if (!is_floating(dt) && (alpha != 1.0f || beta != 1.0f))
    c.fail("an integer Gemm with alpha or beta other than 1 is not supported (PyTorch would compute it in floats)");
  int64_t m = c.shape(0)[ta ? 1 : 0], ka = c.shape(0)[ta ? 0 : 1];
  int64_t kb = c.shape(1)[tb ? 1 : 0], n = c.shape(1)[tb ? 0 : 1];
  if (ka != kb) c.fail("A " + shape_str(c.shape(0)) + " and B " + shape_str(c.shape(1)) + " do not multiply");
  Shape out{m, n};
  bool has_c = c.has_input(2);
  if (has_c && broadcast(c, c.shape(2), out) != out)
    c.fail("C " + shape_str(c.shape(2)) + " does not broadcast to [M, N] = " + shape_str(out));
  if (tb && !ta && alpha == 1.0f && beta == 1.0f) {
    Json node = op_node("linear", {c.arg(0), c.arg(1)});
    if (has_c) node["args"].push_back(c.arg(2));
    return c.set_node(0, std::move(node), dt, out);
  }
  auto transposed = [&](std::size_t i, bool t) {
    return t ? with(op_node("transpose", {c.arg(i)}), {{"dim0", 0}, {"dim1", 1}}) : c.arg(i);
  };
  Json node = op_node("matmul", {transposed(0, ta), transposed(1, tb)});
  if (alpha != 1.0f) node = op_node("mul", {std::move(node), float_attr_json(alpha, c.dtype(0))});
  if (has_c && beta != 0.0f) {
    Json bias = beta == 1.0f ? c.arg(2) : op_node("mul", {c.arg(2), float_attr_json(beta, c.dtype(0))});
    node = op_node("add", {std::move(node), std::move(bias)});
  }
  c.set_node(0, std::move(node), dt, out);
}

// numpy.matmul's shape, which is torch.matmul's too.
Shape matmul_shape(const NodeCtx& c, Shape a, Shape b) {
  if (a.empty() || b.empty()) c.fail("MatMul operands must have at least 1 dim");
  bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  if (a.back() != b[b.size() - 2])
    c.fail("shapes " + shape_str(c.shape(0)) + " and " + shape_str(c.shape(1)) + " do not multiply");
  Shape batch = broadcast(c, Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
  if (!a1) batch.push_back(a[a.size() - 2]);
  if (!b1) batch.push_back(b.back());
  return batch;
}

void map_matmul(NodeCtx& c) {
  Shape out = matmul_shape(c, c.shape(0), c.shape(1));
  c.set_node(0, op_node("matmul", {c.arg(0), c.arg(1)}), c.dtype(0), out);
}

// Softmax and LogSoftmax. From opset 13 the op normalizes along `axis` (default -1), as PyTorch
// does. Before, the input is seen as 2-D [prod(dims before axis), prod(dims from axis)] (axis
// default 1) and each row is normalized: a reshape around a softmax over the last dim.
void map_softmax(NodeCtx& c) {
  require_float(c, 0, "Softmax normalizes floats");
  const char* op = c.op_type() == "Softmax" ? "softmax" : "log_softmax";
  const Shape& shape = c.shape(0);
  auto rank = static_cast<int64_t>(shape.size());
  if (rank == 0) c.fail("the input is 0-d");
  int64_t axis = normalize_axis(c, c.attr_int("axis", c.opset >= 13 ? -1 : 1), rank, "axis");
  if (c.opset >= 13 || axis == rank - 1)
    return c.set_node(0, with(op_node(op, {c.arg(0)}), {{"dim", c.opset >= 13 ? axis : -1}}), c.dtype(0), shape);
  int64_t rows = shape_numel(Shape(shape.begin(), shape.begin() + axis));
  int64_t cols = shape_numel(Shape(shape.begin() + axis, shape.end()));
  Json flat = with(op_node(op, {reshape_node(c.arg(0), {rows, cols})}), {{"dim", 1}});
  c.set_node(0, reshape_node(std::move(flat), shape), c.dtype(0), shape);
}

// LayerNormalization's optional outputs, where used: Mean, the mean over the normalized dims
// (kept as 1s), and InvStdDev, 1 / sqrt(the biased variance + epsilon), in the stash type
// (stash_type 1, the default: float32; else the input's type).
void layer_norm_statistics(NodeCtx& c, int64_t axis, float eps) {
  const Shape& shape = c.shape(0);
  std::vector<int64_t> dims;
  Shape kept = shape;
  for (auto d = static_cast<std::size_t>(axis); d < shape.size(); ++d) dims.push_back(static_cast<int64_t>(d)), kept[d] = 1;
  const DType stash = c.attr_int("stash_type", 1) == 1 ? DType::Float32 : c.dtype(0);
  auto in_stash = [&](Json node) {
    return stash == c.dtype(0) ? node : with(op_node("to", {std::move(node)}), {{"dtype", std::string(dtype_name(stash))}});
  };
  if (c.output_used(1))
    c.set_node(1, in_stash(with(op_node("mean", {c.arg(0)}), {{"dim", dims}, {"keepdim", true}})), stash, kept);
  if (c.output_used(2)) {
    Json var = with(op_node("var", {c.arg(0)}), {{"dim", dims}, {"keepdim", true}, {"correction", 0}});
    Json inv = op_node("rsqrt", {op_node("add", {std::move(var), float_attr_json(eps, c.dtype(0))})});
    c.set_node(2, in_stash(std::move(inv)), stash, kept);
  }
}

// LayerNormalization (opset 17): normalizes over the dims from `axis` on. Scale and B of that
// shape are layer_norm's weight and bias; others (which broadcast) multiply and add after it.
// Mean and InvStdDev, ONNX's optional training outputs, as layer_norm_statistics computes them.
void map_layer_norm(NodeCtx& c) {
  require_float(c, 0, "LayerNormalization normalizes floats");
  const Shape& shape = c.shape(0);
  auto rank = static_cast<int64_t>(shape.size());
  int64_t axis = normalize_axis(c, c.attr_int("axis", -1), rank, "axis");
  Shape normalized(shape.begin() + axis, shape.end());
  float eps = epsilon_attr(c);
  layer_norm_statistics(c, axis, eps);
  bool exact = c.shape(1) == normalized && (!c.has_input(2) || c.shape(2) == normalized);
  Json node = op_node("layer_norm", {c.arg(0)});
  node["args"].push_back(exact ? c.arg(1) : Json());
  node["args"].push_back(exact && c.has_input(2) ? c.arg(2) : Json());
  node = with(std::move(node), {{"normalized_shape", normalized}, {"eps", float_attr_json(eps, c.dtype(0))}});
  if (!exact) {
    for (std::size_t i = 1; i < 3; ++i)
      if (c.has_input(i) && broadcast(c, c.shape(i), shape) != shape)
        c.fail("input " + std::to_string(i) + " " + shape_str(c.shape(i)) + " does not broadcast to " + shape_str(shape));
    node = op_node("mul", {std::move(node), c.arg(1)});
    if (c.has_input(2)) node = op_node("add", {std::move(node), c.arg(2)});
  }
  c.set_node(0, std::move(node), c.dtype(0), shape);
}

}  // namespace

void add_math_mappers(MapperTable& table) {
  table["Clip"] = map_clip;
  table["Gemm"] = map_gemm;
  table["MatMul"] = map_matmul;
  table["Softmax"] = map_softmax;
  table["LogSoftmax"] = map_softmax;
  table["LayerNormalization"] = map_layer_norm;
}

}  // namespace stax::importer::detail

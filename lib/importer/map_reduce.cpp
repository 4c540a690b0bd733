// Reductions (ReduceSum ... ReduceLogSumExp), ArgMax / ArgMin, CumSum. ONNX keeps the reduced
// dims by default (keepdims = 1) and reduces every dim when no axes are given; ReduceSum takes
// its axes as an input from opset 13, with noop_with_empty_axes.
#include <optional>

#include "fold.h"
#include "map_util.h"

namespace stax::importer::detail {

namespace {

struct ReduceOp {
  const char* onnx;
  std::optional<fold::Reduce> fold;
  bool float_only;
};

constexpr ReduceOp kReduce[] = {
    {"ReduceSum", fold::Reduce::Sum, false},   {"ReduceMean", fold::Reduce::Mean, true},
    {"ReduceMax", fold::Reduce::Max, false},   {"ReduceMin", fold::Reduce::Min, false},
    {"ReduceProd", fold::Reduce::Prod, false}, {"ReduceL1", std::nullopt, false},
    {"ReduceL2", std::nullopt, true},          {"ReduceSumSquare", std::nullopt, false},
    {"ReduceLogSum", std::nullopt, true},      {"ReduceLogSumExp", std::nullopt, true},
};

// The reduction of `x` (a node argument) over `dims`: {"op": op, "args": [x], "dim", "keepdim"}.
Json reduction(const char* op, Json x, const std::vector<int64_t>& dims, bool keepdim, int64_t rank) {
  Json node = op_node(op, {std::move(x)});
  if (rank > 0) node["dim"] = dims;
  node["keepdim"] = keepdim;
  return node;
}

// The stax expression of each reduction. PyTorch's sum and prod of int32 return int64: cast
// back to ONNX's int32.
Json reduce_expr(NodeCtx& c, const std::vector<int64_t>& dims, bool keepdim) {
  const std::string& op = c.op_type();
  int64_t r = c.rank(0);
  Json x = c.arg(0);
  Json node;
  if (op == "ReduceSum") node = reduction("sum", x, dims, keepdim, r);
  else if (op == "ReduceMean") node = reduction("mean", x, dims, keepdim, r);
  else if (op == "ReduceMax") node = reduction("amax", x, dims, keepdim, r);
  else if (op == "ReduceMin") node = reduction("amin", x, dims, keepdim, r);
  else if (op == "ReduceProd") node = reduction("prod", x, dims, keepdim, r);
  else if (op == "ReduceL1") node = reduction("sum", op_node("abs", {x}), dims, keepdim, r);
  else if (op == "ReduceSumSquare") node = reduction("sum", op_node("mul", {x, x}), dims, keepdim, r);
  else if (op == "ReduceL2") node = op_node("sqrt", {reduction("sum", op_node("mul", {x, x}), dims, keepdim, r)});
  else if (op == "ReduceLogSum") node = op_node("log", {reduction("sum", x, dims, keepdim, r)});
  else node = reduction("logsumexp", x, dims, keepdim, r);
  bool widened = op != "ReduceMax" && op != "ReduceMin" && c.dtype(0) == DType::Int32;
  if (widened) node = with(op_node("to", {std::move(node)}), {{"dtype", "int32"}});
  return node;
}

void map_reduce(NodeCtx& c) {
  const ReduceOp* entry = nullptr;
  for (const ReduceOp& e : kReduce)
    if (c.op_type() == e.onnx) entry = &e;
  if (entry->float_only) require_float(c, 0, c.op_type() + " of integers is not supported (PyTorch's is float only)");
  int64_t r = c.rank(0);
  bool keepdims = c.attr_int("keepdims", 1) != 0;
  std::vector<int64_t> axes;
  if (c.op_type() == "ReduceSum" && c.opset >= 13) {
    if (c.has_input(1)) axes = c.known_ints(1, "axes");
    if (axes.empty() && c.attr_int("noop_with_empty_axes", 0) != 0) return c.set_alias(0, 0);
  } else {
    axes = c.attr_ints("axes").value_or(std::vector<int64_t>{});
  }
  if (axes.empty())
    for (int64_t d = 0; d < r; ++d) axes.push_back(d);
  axes = normalize_axes(c, axes, r, "axes");
  Shape out;
  for (int64_t d = 0; d < r; ++d) {
    bool reduced = std::binary_search(axes.begin(), axes.end(), d);
    if (!reduced || keepdims) out.push_back(reduced ? 1 : c.shape(0)[static_cast<std::size_t>(d)]);
  }
  if (entry->fold && c.fold(c.dtype(0), out))
    return c.set_known(0, fold::reduce(*entry->fold, c.require_known(0, "data"), axes, keepdims));
  c.set_node(0, reduce_expr(c, axes, keepdims), c.dtype(0), out);
}

// ArgMax / ArgMin: the first index of the extreme, as PyTorch returns. With select_last_index =
// 1, the last: the first of the input reversed along the axis (an index_select of n - 1 ... 0),
// subtracted from n - 1.
void map_arg_reduce(NodeCtx& c) {
  int64_t r = c.rank(0);
  if (r == 0) c.fail("the input is 0-d");
  int64_t axis = normalize_axis(c, c.attr_int("axis", 0), r, "axis");
  bool keepdims = c.attr_int("keepdims", 1) != 0;
  Shape out = c.shape(0);
  if (keepdims) out[static_cast<std::size_t>(axis)] = 1;
  else out.erase(out.begin() + axis);
  const char* op = c.op_type() == "ArgMax" ? "argmax" : "argmin";
  const bool last = c.attr_int("select_last_index", 0) != 0;
  const int64_t n = c.shape(0)[static_cast<std::size_t>(axis)];
  Json x = last ? slice_node(c, c.arg(0), AxisSlice{axis, n - 1, -1, n}) : c.arg(0);
  Json node = with(op_node(op, {std::move(x)}), {{"dim", axis}, {"keepdim", keepdims}});
  if (last) node = op_node("sub", {n - 1, std::move(node)});
  c.set_node(0, std::move(node), DType::Int64, out);
}

// CumSum along a known axis; exclusive and reverse sums are refused. PyTorch's cumsum of int32
// returns int64: cast back.
void map_cumsum(NodeCtx& c) {
  c.require_attr_int("exclusive", 0, "stax's cumsum is inclusive");
  c.require_attr_int("reverse", 0, "stax's cumsum runs forward");
  int64_t r = c.rank(0);
  int64_t axis = normalize_axis(c, static_cast<int64_t>(c.known_scalar(1, "axis")), std::max<int64_t>(r, 1), "axis");
  Json node = with(op_node("cumsum", {c.arg(0)}), {{"dim", axis}});
  if (c.dtype(0) == DType::Int32) node = with(op_node("to", {std::move(node)}), {{"dtype", "int32"}});
  c.set_node(0, std::move(node), c.dtype(0), c.shape(0));
}

}  // namespace

void add_reduce_mappers(MapperTable& table) {
  for (const ReduceOp& e : kReduce) table[e.onnx] = map_reduce;
  table["ArgMax"] = map_arg_reduce;
  table["ArgMin"] = map_arg_reduce;
  table["CumSum"] = map_cumsum;
}

const MapperTable& mapper_table() {
  static const MapperTable table = [] {
    MapperTable t;
    add_elementwise_mappers(t);
    add_math_mappers(t);
    add_shape_mappers(t);
    add_index_mappers(t);
    add_nn_mappers(t);
    add_reduce_mappers(t);
    add_einsum_mapper(t);
    return t;
  }();
  return table;
}

}  // namespace stax::importer::detail

#include "map_util.h"

#include <algorithm>
#include <cmath>

#include "stax/graph/promote.h"

namespace stax::importer::detail {

int64_t normalize_axis(const NodeCtx& c, int64_t axis, int64_t rank, std::string_view what) {
  if (axis < -rank || axis >= rank)
    c.fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> normalize_axes(const NodeCtx& c, std::vector<int64_t> axes, int64_t rank,
                                    std::string_view what) {
  for (int64_t& a : axes) a = normalize_axis(c, a, rank, what);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    c.fail(std::string(what) + " repeat an axis");
  return axes;
}

Shape broadcast(const NodeCtx& c, const Shape& a, const Shape& b) {
  std::optional<Shape> s = graph::broadcast_shapes(a, b);
  if (!s) c.fail("shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
  return *s;
}

void require_float(const NodeCtx& c, std::size_t i, std::string_view why) {
  if (!is_floating(c.dtype(i)))
    c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.dtype(i))) + ": " + std::string(why));
}

float epsilon_attr(const NodeCtx& c) {
  float eps = c.attr_float("epsilon", 1e-5f);
  if (!(eps >= 0.0f) || !std::isfinite(eps)) c.fail("epsilon must be finite and >= 0");
  return eps;
}

Json reshape_node(Json x, const Shape& shape) {
  Json node = op_node("reshape", {std::move(x)});
  node["shape"] = shape;
  return node;
}

Json with(Json node, std::initializer_list<std::pair<const char*, Json>> attrs) {
  for (const auto& [key, value] : attrs) node[key] = value;
  return node;
}

Tensor int64_tensor(const std::vector<int64_t>& values) {
  Tensor t(DType::Int64, {static_cast<int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) t.set_int(static_cast<int64_t>(i), values[i]);
  return t;
}

Json slice_node(NodeCtx& c, Json x, const AxisSlice& s) {
  if (s.step > 0 || s.count == 1) {
    int64_t step = s.step > 0 ? s.step : 1;
    return with(op_node("slice", {std::move(x)}),
                {{"dim", s.axis}, {"start", s.start}, {"end", s.start + (s.count - 1) * step + 1}, {"step", step}});
  }
  std::vector<int64_t> index;
  for (int64_t k = 0; k < s.count; ++k) index.push_back(s.start + k * s.step);
  std::string idx = c.constant("index" + std::to_string(s.axis), int64_tensor(index));
  return with(op_node("index_select", {std::move(x), idx}), {{"dim", s.axis}});
}

}  // namespace stax::importer::detail

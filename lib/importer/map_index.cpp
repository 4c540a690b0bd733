// Indexing: Slice (steps of either sign, clamped as ONNX clamps), Split, Gather (known indices
// normalized at import; run-time indices counted from the end when negative, then through
// embedding or index_select), GatherElements,
// ScatterND (at import only).
#include <algorithm>
#include <cstdint>

#include "fold.h"
#include "map_util.h"

namespace stax::importer::detail {

namespace {

// ONNX's Slice semantics per axis: negative starts and ends count from the end, then clamp to
// [0, dim] for a positive step and to [0, dim - 1] / [-1, dim - 1] for a negative one.
AxisSlice slice_axis(const NodeCtx& c, int64_t axis, int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (step == 0) c.fail("a step is 0");
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  AxisSlice s{axis, 0, step, 0};
  if (step > 0) {
    s.start = std::clamp(start, int64_t{0}, dim);
    end = std::clamp(end, int64_t{0}, dim);
    s.count = end > s.start ? (end - s.start - 1) / step + 1 : 0;
  } else {
    s.start = std::clamp(start, int64_t{0}, dim - 1);
    end = std::clamp(end, int64_t{-1}, dim - 1);
    int64_t stride = step == INT64_MIN ? INT64_MAX : -step;
    s.count = s.start > end ? (s.start - end - 1) / stride + 1 : 0;
  }
  return s;
}

void map_slice(NodeCtx& c) {
  const Shape& in = c.shape(0);
  auto r = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts = c.known_ints(1, "starts"), ends = c.known_ints(2, "ends");
  std::vector<int64_t> axes(starts.size()), steps(starts.size(), 1);
  for (std::size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
  if (c.has_input(3)) axes = c.known_ints(3, "axes");
  if (c.has_input(4)) steps = c.known_ints(4, "steps");
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    c.fail("starts, ends, axes and steps have different lengths");
  std::vector<int64_t> sorted = normalize_axes(c, axes, r, "axes");  // checks range and repeats
  Shape out = in;
  std::vector<AxisSlice> slices;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    int64_t a = normalize_axis(c, axes[i], r, "axis");
    AxisSlice s = slice_axis(c, a, in[static_cast<std::size_t>(a)], starts[i], ends[i], steps[i]);
    out[static_cast<std::size_t>(a)] = s.count;
    if (!(s.start == 0 && s.step == 1 && s.count == in[static_cast<std::size_t>(a)])) slices.push_back(s);
  }
  if (slices.empty()) return c.set_alias(0, 0);
  // An empty slice of a shape (as exporters take of a shape vector) folds; at run time it is
  // a zero-size value.
  if (c.fold(c.dtype(0), out)) {
    Tensor t = c.require_known(0, "data");
    for (const AxisSlice& s : slices) t = fold::slice(t, s.axis, s.start, s.step, s.count);
    return c.set_known(0, std::move(t));
  }
  for (const AxisSlice& s : slices)
    if (s.count == 0) c.fail("the slice along axis " + std::to_string(s.axis) + " is empty: stax has no zero-size values");
  Json node = c.arg(0);
  for (const AxisSlice& s : slices) node = slice_node(c, std::move(node), s);
  c.set_node(0, std::move(node), c.dtype(0), out);
}

// Split into the given sizes (an attribute before opset 13, an input from 13 on) or into equal
// parts, one per output.
void map_split(NodeCtx& c) {
  const Shape& in = c.shape(0);
  int64_t axis = normalize_axis(c, c.attr_int("axis", 0), static_cast<int64_t>(in.size()), "axis");
  int64_t dim = in[static_cast<std::size_t>(axis)];
  auto n = static_cast<int64_t>(c.num_outputs());
  std::vector<int64_t> sizes;
  if (c.opset < 13) {
    if (auto s = c.attr_ints("split")) sizes = *s;
  } else if (c.has_input(1)) {
    sizes = c.known_ints(1, "split");
  }
  if (sizes.empty()) {
    if (dim % n != 0) c.fail("dim " + std::to_string(dim) + " does not split into " + std::to_string(n) + " equal parts");
    sizes.assign(static_cast<std::size_t>(n), dim / n);
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) c.fail("split sizes " + shape_str(sizes) + " have a negative entry");
    total += s;
  }
  if (static_cast<int64_t>(sizes.size()) != n || total != dim)
    c.fail("split sizes " + shape_str(sizes) + " do not divide dim " + std::to_string(dim) + " into " + std::to_string(n) + " outputs");
  int64_t start = 0;
  for (std::size_t k = 0; k < sizes.size(); start += sizes[k], ++k) {
    if (!c.output_used(k)) continue;
    Shape out = in;
    out[static_cast<std::size_t>(axis)] = sizes[k];
    if (sizes[k] == dim) {
      c.set_alias(k, 0);
    } else if (c.fold(c.dtype(0), out)) {
      c.set_known(k, fold::slice(c.require_known(0, "input"), axis, start, 1, sizes[k]));
    } else {
      AxisSlice s{axis, start, 1, sizes[k]};
      c.set_node(k, slice_node(c, c.arg(0), s), c.dtype(0), out);
    }
  }
}

// Known indices made non-negative (ONNX counts negative ones from the end); out of range fails.
std::vector<int64_t> normalized_indices(const NodeCtx& c, const Tensor& t, int64_t dim) {
  std::vector<int64_t> idx(static_cast<std::size_t>(t.numel()));
  for (int64_t k = 0; k < t.numel(); ++k) {
    int64_t i = t.get_int(k);
    if (i < -dim || i >= dim) c.fail("index " + std::to_string(i) + " is out of range for a dim of size " + std::to_string(dim));
    idx[static_cast<std::size_t>(k)] = i < 0 ? i + dim : i;
  }
  return idx;
}

// Gather with indices known at import: select (0-d), slice (an arithmetic progression) or
// index_select of a constant index, reshaped to the indices' shape.
void gather_known(NodeCtx& c, int64_t axis, const std::vector<int64_t>& idx, const Shape& out) {
  const Shape& is = c.shape(1);
  if (is.empty()) return c.set_node(0, with(op_node("select", {c.arg(0)}), {{"dim", axis}, {"index", idx[0]}}), c.dtype(0), out);
  int64_t step = idx.size() > 1 ? idx[1] - idx[0] : 1;
  bool progression = step >= 1;
  for (std::size_t k = 1; k < idx.size() && progression; ++k) progression = idx[k] - idx[k - 1] == step;
  if (is.size() == 1 && progression) {
    AxisSlice s{axis, idx[0], step, static_cast<int64_t>(idx.size())};
    return c.set_node(0, slice_node(c, c.arg(0), s), c.dtype(0), out);
  }
  std::string index = c.constant("index", int64_tensor(idx));
  Json node = with(op_node("index_select", {c.arg(0), index}), {{"dim", axis}});
  if (is.size() != 1) node = reshape_node(std::move(node), out);
  c.set_node(0, std::move(node), c.dtype(0), out);
}

// Indices computed at run time counted from the end when negative, as ONNX counts them:
// where(i < 0, i + dim, i) (graph-format.md's index ops take [0, dim) only). One still out of
// range after that is a run-time error (graph-format.md "Indices").
Json from_the_end(Json indices, int64_t dim) {
  return op_node("where", {op_node("lt", {indices, 0}), op_node("add", {indices, dim}), indices});
}

// Gather: out = data.shape[:axis] + indices.shape + data.shape[axis+1:]. Indices computed at run
// time (from_the_end) go to embedding (a 2-D float table along axis 0) or index_select.
void map_gather(NodeCtx& c) {
  const Shape& ds = c.shape(0);
  const Shape& is = c.shape(1);
  auto r = static_cast<int64_t>(ds.size());
  if (r == 0) c.fail("cannot gather from a 0-d tensor");
  int64_t axis = normalize_axis(c, c.attr_int("axis", 0), r, "axis");
  int64_t dim = ds[static_cast<std::size_t>(axis)];
  Shape out(ds.begin(), ds.begin() + axis);
  out.insert(out.end(), is.begin(), is.end());
  out.insert(out.end(), ds.begin() + axis + 1, ds.end());
  if (const Tensor* indices = c.known(1)) {
    std::vector<int64_t> idx = normalized_indices(c, *indices, dim);
    if (c.fold(c.dtype(0), out)) return c.set_known(0, fold::take(*c.known(0), axis, idx, is));
    if (idx.empty()) c.fail("the indices are empty: stax has no zero-size values");
    return gather_known(c, axis, idx, out);
  }
  Json indices = from_the_end(c.arg(1), dim);
  if (axis == 0 && r == 2 && is_floating(c.dtype(0)))
    return c.set_node(0, op_node("embedding", {c.arg(0), std::move(indices)}), c.dtype(0), out);
  Json flat = is.size() == 1 ? std::move(indices) : reshape_node(std::move(indices), {shape_numel(is)});
  Json node = with(op_node("index_select", {c.arg(0), std::move(flat)}), {{"dim", axis}});
  if (is.size() != 1) node = reshape_node(std::move(node), out);
  c.set_node(0, std::move(node), c.dtype(0), out);
}

// GatherElements is torch.gather; stax's gather takes int64 indices.
void map_gather_elements(NodeCtx& c) {
  const Shape& ds = c.shape(0);
  const Shape& is = c.shape(1);
  auto r = static_cast<int64_t>(ds.size());
  if (static_cast<int64_t>(is.size()) != r || r == 0) c.fail("data and indices must have one rank >= 1");
  int64_t axis = normalize_axis(c, c.attr_int("axis", 0), r, "axis");
  for (std::size_t d = 0; d < is.size(); ++d)
    if (static_cast<int64_t>(d) != axis && is[d] > ds[d])
      c.fail("indices " + shape_str(is) + " are larger than data " + shape_str(ds) + " in dim " + std::to_string(d));
  Json index;
  if (const Tensor* known = c.known(1)) {
    std::vector<int64_t> idx = normalized_indices(c, *known, ds[static_cast<std::size_t>(axis)]);
    index = c.constant("index", fold::reshape(int64_tensor(idx), is));
  } else {
    Json i64 = c.dtype(1) == DType::Int64 ? c.arg(1) : with(op_node("to", {c.arg(1)}), {{"dtype", "int64"}});
    index = from_the_end(std::move(i64), ds[static_cast<std::size_t>(axis)]);
  }
  c.set_node(0, with(op_node("gather", {c.arg(0), std::move(index)}), {{"dim", axis}}), c.dtype(0), is);
}

// ScatterND with every input known at import (the masks an exporter computes by assignment
// into a constant, as Swin's shifted windows); stax has no scatter at run time.
void map_scatter_nd(NodeCtx& c) {
  if (c.attr_string("reduction", "none") != "none") c.fail("only reduction 'none' is supported");
  if (!c.all_known()) c.fail("ScatterND is supported only on values known at import (stax has no run-time scatter)");
  const Tensor& data = c.require_known(0, "data");
  const Tensor& indices = c.require_known(1, "indices");
  const Tensor& updates = c.require_known(2, "updates");
  const Shape& ds = data.shape();
  const Shape& is = indices.shape();
  if (is.empty() || is.back() < 1 || static_cast<std::size_t>(is.back()) > ds.size())
    c.fail("indices " + shape_str(is) + " do not index data " + shape_str(ds));
  auto k = static_cast<std::size_t>(is.back());
  Shape want(is.begin(), is.end() - 1);
  want.insert(want.end(), ds.begin() + static_cast<std::ptrdiff_t>(k), ds.end());
  if (updates.shape() != want) c.fail("updates " + shape_str(updates.shape()) + " are not " + shape_str(want));
  std::vector<int64_t> flat;
  for (int64_t i = 0; i < indices.numel(); ++i) {
    int64_t dim = ds[static_cast<std::size_t>(i) % k], v = indices.get_int(i);
    if (v < -dim || v >= dim) c.fail("index " + std::to_string(v) + " is out of range for a dim of size " + std::to_string(dim));
    flat.push_back(v < 0 ? v + dim : v);
  }
  c.set_known(0, fold::scatter_nd(data, flat, k, updates));
}

}  // namespace

void add_index_mappers(MapperTable& table) {
  table["Slice"] = map_slice;
  table["Split"] = map_split;
  table["Gather"] = map_gather;
  table["GatherElements"] = map_gather_elements;
  table["ScatterND"] = map_scatter_nd;
}

}  // namespace stax::importer::detail

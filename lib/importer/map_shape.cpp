// Shapes and layout: Shape and Size (always known at import), Reshape, Flatten, Transpose,
// Squeeze, Unsqueeze, Concat, Expand, Tile, Pad; the value makers Constant, ConstantOfShape,
// Range, Trilu; Dropout (the identity at inference).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "fold.h"
#include "map_util.h"

namespace stax::importer::detail {

namespace {

// Shape (opset 15 adds start and end, clamped as Python slices are).
void map_shape(NodeCtx& c) {
  const Shape& s = c.shape(0);
  auto r = static_cast<int64_t>(s.size());
  int64_t start = c.opset >= 15 ? c.attr_int("start", 0) : 0;
  int64_t end = c.opset >= 15 ? c.attr_int("end", r) : r;
  auto clamp = [r](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t{0}, r); };
  start = clamp(start);
  end = std::max(start, clamp(end));
  c.set_known(0, int64_tensor(std::vector<int64_t>(s.begin() + start, s.begin() + end)));
}

void map_size(NodeCtx& c) {
  Tensor t(DType::Int64, {});
  t.set_int(0, shape_numel(c.shape(0)));
  c.set_known(0, std::move(t));
}

// The result of viewing input 0 as `out`: input 0 itself when nothing changes, computed when it
// folds, else a reshape.
void reshaped(NodeCtx& c, const Shape& out) {
  if (out == c.shape(0)) return c.set_alias(0, 0);
  if (c.known(0) != nullptr && c.fold(c.dtype(0), out)) return c.set_known(0, fold::reshape(*c.known(0), out));
  c.set_node(0, reshape_node(c.arg(0), out), c.dtype(0), out);
}

// Reshape: a 0 copies the input's dim at that position (unless allowzero, opset 14), one -1 is
// inferred.
void map_reshape(NodeCtx& c) {
  std::vector<int64_t> spec = c.known_ints(1, "shape");
  bool allowzero = c.opset >= 14 && c.attr_int("allowzero", 0) != 0;
  const Shape& in = c.shape(0);
  Shape out;
  std::optional<std::size_t> infer;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0 && !allowzero) {
      if (i >= in.size()) c.fail("shape entry " + std::to_string(i) + " is 0 (copy the input's dim) but the input has rank " + std::to_string(in.size()));
      d = in[i];
    } else if (d == -1) {
      if (infer) c.fail("shape " + shape_str(spec) + " has more than one -1");
      infer = i;
      d = 1;
    } else if (d <= 0) {
      c.fail("shape " + shape_str(spec) + (d == 0 ? " has a 0 with allowzero: an empty tensor" : " has a negative entry"));
    }
    out.push_back(d);
  }
  int64_t numel = shape_numel(in), rest = shape_numel(out);
  if (infer) {
    if (numel % rest != 0) c.fail("cannot reshape " + shape_str(in) + " to " + shape_str(spec));
    out[*infer] = numel / rest;
  }
  if (shape_numel(out) != numel) c.fail("cannot reshape " + shape_str(in) + " to " + shape_str(spec));
  reshaped(c, out);
}

// Flatten: [prod(dims before axis), prod(dims from axis)], axis in [-rank, rank].
void map_flatten(NodeCtx& c) {
  const Shape& in = c.shape(0);
  auto r = static_cast<int64_t>(in.size());
  int64_t axis = c.attr_int("axis", 1);
  if (axis < -r || axis > r) c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  if (axis < 0) axis += r;
  reshaped(c, {shape_numel(Shape(in.begin(), in.begin() + axis)), shape_numel(Shape(in.begin() + axis, in.end()))});
}

void map_transpose(NodeCtx& c) {
  auto r = static_cast<int64_t>(c.rank(0));
  std::vector<int64_t> perm(static_cast<std::size_t>(r));
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (auto p = c.attr_ints("perm")) perm = *p;
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> identity(static_cast<std::size_t>(r));
  std::iota(identity.begin(), identity.end(), 0);
  if (sorted != identity) c.fail("perm " + shape_str(perm) + " is not a permutation of the " + std::to_string(r) + " dims");
  if (perm == identity) return c.set_alias(0, 0);
  Shape out;
  for (int64_t p : perm) out.push_back(c.shape(0)[static_cast<std::size_t>(p)]);
  if (c.fold(c.dtype(0), out)) return c.set_known(0, fold::permute(*c.known(0), perm));
  c.set_node(0, with(op_node("permute", {c.arg(0)}), {{"dims", perm}}), c.dtype(0), out);
}

// The axes of Squeeze or Unsqueeze: an attribute before opset 13, an input from 13 on.
std::optional<std::vector<int64_t>> axes_of(const NodeCtx& c) {
  if (c.opset < 13) return c.attr_ints("axes");
  if (!c.has_input(1)) return std::nullopt;
  return c.known_ints(1, "axes");
}

// Squeeze: the named dims, which must have size 1, or every size-1 dim.
void map_squeeze(NodeCtx& c) {
  const Shape& in = c.shape(0);
  auto r = static_cast<int64_t>(in.size());
  std::optional<std::vector<int64_t>> given = axes_of(c);
  std::vector<int64_t> axes;
  if (given && !given->empty()) {
    axes = normalize_axes(c, *given, r, "axes");
    for (int64_t a : axes)
      if (in[static_cast<std::size_t>(a)] != 1)
        c.fail("cannot squeeze dim " + std::to_string(a) + " of size " + std::to_string(in[static_cast<std::size_t>(a)]));
  } else {
    for (int64_t d = 0; d < r; ++d)
      if (in[static_cast<std::size_t>(d)] == 1) axes.push_back(d);
  }
  Shape out;
  for (int64_t d = 0; d < r; ++d)
    if (!std::binary_search(axes.begin(), axes.end(), d)) out.push_back(in[static_cast<std::size_t>(d)]);
  reshaped(c, out);
}

// Unsqueeze: axes index the output, whose rank is the input's plus their count.
void map_unsqueeze(NodeCtx& c) {
  std::optional<std::vector<int64_t>> given = axes_of(c);
  if (!given) c.fail("axes are missing");
  const Shape& in = c.shape(0);
  auto out_rank = static_cast<int64_t>(in.size() + given->size());
  std::vector<int64_t> axes = normalize_axes(c, *given, out_rank, "axes");
  Shape out;
  auto next = in.begin();
  for (int64_t d = 0; d < out_rank; ++d)
    out.push_back(std::binary_search(axes.begin(), axes.end(), d) ? 1 : *next++);
  reshaped(c, out);
}

// Concat. Inputs empty along the axis (which ONNX allows) are left out.
void map_concat(NodeCtx& c) {
  const Shape& first = c.shape(0);
  auto r = static_cast<int64_t>(first.size());
  if (r == 0) c.fail("cannot concatenate 0-d tensors");
  int64_t axis = normalize_axis(c, c.attr_int("axis", 0), r, "axis");
  auto a = static_cast<std::size_t>(axis);
  Shape out = first;
  out[a] = 0;
  std::vector<std::size_t> parts;
  for (std::size_t i = 0; i < c.num_inputs(); ++i) {
    const Shape& s = c.shape(i);
    for (std::size_t d = 0; d < s.size() || d < first.size(); ++d)
      if (s.size() != first.size() || (d != a && s[d] != first[d]))
        c.fail("input " + std::to_string(i) + " " + shape_str(s) + " does not concatenate with " + shape_str(first) + " along axis " + std::to_string(axis));
    out[a] += s[a];
    if (s[a] > 0) parts.push_back(i);
  }
  if (parts.size() == 1 && shape_numel(out) > 0) return c.set_alias(0, parts[0]);
  if (c.fold(c.dtype(0), out)) {
    std::vector<const Tensor*> ts;
    for (std::size_t i = 0; i < c.num_inputs(); ++i) ts.push_back(c.known(i));
    return c.set_known(0, fold::concat(ts, axis));
  }
  Json node = with(op_node("cat", {}), {{"dim", axis}});
  for (std::size_t i : parts) node["args"].push_back(c.arg(i));
  c.set_node(0, std::move(node), c.dtype(0), out);
}

// Expand: numpy broadcasting of the input and `shape` in both directions (a 1 in `shape` keeps
// the input's dim), which stax's expand takes as the resolved output shape.
void map_expand(NodeCtx& c) {
  std::vector<int64_t> spec = c.known_ints(1, "shape");
  for (int64_t d : spec)
    if (d < 0) c.fail("shape " + shape_str(spec) + " has a negative entry");
  Shape out = broadcast(c, c.shape(0), spec);
  if (out == c.shape(0)) return c.set_alias(0, 0);
  if (c.fold(c.dtype(0), out)) return c.set_known(0, fold::expand(c.require_known(0, "input"), out));
  c.set_node(0, with(op_node("expand", {c.arg(0)}), {{"shape", out}}), c.dtype(0), out);
}

// Tile: [d0, d1] viewed as [1, d0, 1, d1], expanded to [r0, d0, r1, d1], viewed as [r0*d0, r1*d1].
void map_tile(NodeCtx& c) {
  std::vector<int64_t> reps = c.known_ints(1, "repeats");
  const Shape& in = c.shape(0);
  if (reps.size() != in.size()) c.fail("repeats has " + std::to_string(reps.size()) + " entries for rank " + std::to_string(in.size()));
  Shape out, spread, expanded;
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (reps[d] < 0) c.fail("repeats " + shape_str(reps) + " has a negative entry");
    out.push_back(in[d] * reps[d]);
    spread.insert(spread.end(), {1, in[d]});
    expanded.insert(expanded.end(), {reps[d], in[d]});
  }
  if (out == in) return c.set_alias(0, 0);
  if (c.fold(c.dtype(0), out)) return c.set_known(0, fold::tile(c.require_known(0, "input"), reps));
  Json node = with(op_node("expand", {reshape_node(c.arg(0), spread)}), {{"shape", expanded}});
  c.set_node(0, reshape_node(std::move(node), out), c.dtype(0), out);
}

// Pad (opset 11 on: pads and constant_value are inputs). Only the constant mode has a stax
// op; negative pads crop, as in PyTorch's F.pad.
void map_pad(NodeCtx& c) {
  std::string mode = c.attr_string("mode", "constant");
  if (mode != "constant") c.fail("mode '" + mode + "' is not supported (only 'constant' is)");
  const Shape& in = c.shape(0);
  std::size_t r = in.size();
  std::vector<int64_t> pads = c.known_ints(1, "pads");
  if (pads.size() != 2 * r) c.fail("pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(r));
  Shape out = in;
  std::vector<int64_t> torch_pad;  // last dim first: [begin, end] pairs
  for (std::size_t d = r; d-- > 0;) {
    out[d] += pads[d] + pads[d + r];
    torch_pad.insert(torch_pad.end(), {pads[d], pads[d + r]});
  }
  while (!torch_pad.empty() && torch_pad.back() == 0 && torch_pad[torch_pad.size() - 2] == 0) torch_pad.resize(torch_pad.size() - 2);
  if (torch_pad.empty()) return c.set_alias(0, 0);
  Json value = 0;
  if (c.has_input(2)) {
    const Tensor& v = c.require_known(2, "constant_value");
    if (v.numel() != 1) c.fail("constant_value must have one element, got shape " + shape_str(v.shape()));
    value = element_json(v, 0);
  } else if (is_floating(c.dtype(0))) {
    value = 0.0;
  }
  c.set_node(0, with(op_node("pad", {c.arg(0)}), {{"pad", torch_pad}, {"value", value}}), c.dtype(0), out);
}

void map_constant(NodeCtx& c) {
  if (c.attr("value") != nullptr) return c.set_known(0, c.attr_tensor("value"));
  if (const onnx::AttributeProto* a = c.attr("value_float")) {
    Tensor t(DType::Float32, {});
    t.set_double(0, a->f());
    return c.set_known(0, std::move(t));
  }
  if (const onnx::AttributeProto* a = c.attr("value_floats")) {
    Tensor t(DType::Float32, {a->floats_size()});
    for (int i = 0; i < a->floats_size(); ++i) t.set_double(i, a->floats(i));
    return c.set_known(0, std::move(t));
  }
  if (const onnx::AttributeProto* a = c.attr("value_int")) {
    Tensor t(DType::Int64, {});
    t.set_int(0, a->i());
    return c.set_known(0, std::move(t));
  }
  if (auto ints = c.attr_ints("value_ints")) return c.set_known(0, int64_tensor(*ints));
  c.fail("only tensor, float and int constants are supported (not strings or sparse tensors)");
}

// ConstantOfShape: known at import; a result too large to hold becomes a `full` node.
void map_constant_of_shape(NodeCtx& c) {
  std::vector<int64_t> shape = c.known_ints(0, "shape");
  for (int64_t d : shape)
    if (d < 0) c.fail("shape " + shape_str(shape) + " has a negative entry");
  Tensor value(DType::Float32, {1});
  if (c.attr("value") != nullptr) value = c.attr_tensor("value");
  if (value.numel() != 1) c.fail("value must have one element, got shape " + shape_str(value.shape()));
  if (shape_numel(shape) <= kMaxFold) return c.set_known(0, fold::fill(value, shape));
  Json node = with(op_node("full", {}), {{"shape", shape}, {"value", element_json(value, 0)}, {"dtype", dtype_name(value.dtype())}});
  node.erase("args");
  c.set_node(0, std::move(node), value.dtype(), shape);
}

// Range: start, start + delta, ... below limit (above it for a negative delta): known at import.
void map_range(NodeCtx& c) {
  const Tensor& start = c.require_known(0, "start");
  const Tensor& limit = c.require_known(1, "limit");
  const Tensor& delta = c.require_known(2, "delta");
  for (const Tensor* t : {&start, &limit, &delta})
    if (t->numel() != 1) c.fail("start, limit and delta must be scalars");
  double n = 0;
  if (is_floating(start.dtype())) {
    if (delta.get_double(0) == 0) c.fail("delta is 0");
    n = std::ceil((limit.get_double(0) - start.get_double(0)) / delta.get_double(0));
  } else {
    __int128 diff = static_cast<__int128>(limit.get_int(0)) - start.get_int(0), step = delta.get_int(0);
    if (step == 0) c.fail("delta is 0");
    __int128 q = diff / step + ((diff % step != 0) && ((diff > 0) == (step > 0)) ? 1 : 0);
    n = static_cast<double>(q);
  }
  if (!(n <= static_cast<double>(kMaxFold))) c.fail("the range is too long to compute at import");
  c.set_known(0, fold::range(start, delta, std::max<int64_t>(0, static_cast<int64_t>(n))));
}

// Dropout at inference is the identity; its mask, if read, is all true. training_mode (opset
// 12 on) must be known to be false, or the ratio known to be 0 (which exporters write for a
// dropout of p = 0: the identity too).
void map_dropout(NodeCtx& c) {
  bool training = c.opset >= 12 && c.has_input(2) && c.known_scalar(2, "training_mode") != 0;
  if (training && (!c.has_input(1) || c.known_scalar(1, "ratio") != 0))
    c.fail("training_mode is true with a nonzero ratio: only inference is supported");
  c.set_alias(0, 0);
  if (c.output_used(1)) {
    Tensor ones(DType::Bool, {1});
    ones.set_bool(0, true);
    c.set_known(1, fold::fill(ones, c.shape(0)));
  }
}

// Trilu (opset 14): the upper (or lower) triangle of the last two dims from diagonal k, zeros
// elsewhere; a where over a constant mask of the last two dims.
void map_trilu(NodeCtx& c) {
  const Shape& in = c.shape(0);
  if (in.size() < 2) c.fail("the input must have at least 2 dims, got " + shape_str(in));
  int64_t k = c.has_input(1) ? static_cast<int64_t>(c.known_ints(1, "k").at(0)) : 0;
  bool upper = c.attr_int("upper", 1) != 0;
  int64_t rows = in[in.size() - 2], cols = in.back();
  Tensor mask(DType::Bool, {rows, cols});
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) mask.set_bool(i * cols + j, upper ? j - i >= k : j - i <= k);
  Tensor zero(c.dtype(0), {});
  if (c.fold(c.dtype(0), in)) return c.set_known(0, fold::where(mask, c.require_known(0, "input"), zero));
  Json node = op_node("where", {c.constant("mask", mask), c.arg(0), element_json(zero, 0)});
  c.set_node(0, std::move(node), c.dtype(0), in);
}

}  // namespace

void add_shape_mappers(MapperTable& table) {
  table["Shape"] = map_shape;
  table["Size"] = map_size;
  table["Reshape"] = map_reshape;
  table["Flatten"] = map_flatten;
  table["Transpose"] = map_transpose;
  table["Squeeze"] = map_squeeze;
  table["Unsqueeze"] = map_unsqueeze;
  table["Concat"] = map_concat;
  table["Expand"] = map_expand;
  table["Tile"] = map_tile;
  table["Pad"] = map_pad;
  table["Constant"] = map_constant;
  table["ConstantOfShape"] = map_constant_of_shape;
  table["Range"] = map_range;
  table["Dropout"] = map_dropout;
  table["Trilu"] = map_trilu;
}

}  // namespace stax::importer::detail

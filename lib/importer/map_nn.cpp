// Convolution, pooling and batch normalization: Conv (1-D and 2-D), MaxPool and AveragePool
// (2-D), GlobalAveragePool and GlobalMaxPool, BatchNormalization (inference).
//
// ONNX's pads are per side and may differ; PyTorch's are one per dim (both sides). Symmetric
// pads within PyTorch's limits become the op's padding; others an explicit `pad` before it
// (zeros for Conv and AveragePool with count_include_pad, -inf for MaxPool). Every pooled size
// is computed both ONNX's way and PyTorch's (which drops a last window starting in the right
// padding under ceil_mode); where they differ the node is refused.
#include <algorithm>

#include "map_util.h"

namespace stax::importer::detail {

namespace {

struct Window {
  std::vector<int64_t> kernel, stride, dilation, begin, end;  // per spatial dim
  bool ceil_mode = false;

  int64_t extent(std::size_t d) const { return dilation[d] * (kernel[d] - 1) + 1; }
  bool symmetric() const { return begin == end; }
};

std::vector<int64_t> ints_or(const NodeCtx& c, std::string_view name, std::size_t n, int64_t dflt) {
  std::vector<int64_t> v = c.attr_ints(name).value_or(std::vector<int64_t>(n, dflt));
  if (v.size() != n) c.fail(std::string(name) + " has " + std::to_string(v.size()) + " entries for " + std::to_string(n) + " spatial dims");
  for (int64_t x : v)
    if (x < (dflt == 0 ? 0 : 1)) c.fail(std::string(name) + " " + shape_str(v) + " has an entry below " + std::to_string(dflt));
  return v;
}

// Kernel, strides, dilations and the pads of each side after auto_pad (SAME_UPPER puts the odd
// pad at the end, SAME_LOWER at the beginning; both aim at ceil(L / stride) outputs).
Window window_of(const NodeCtx& c, const Shape& x, std::vector<int64_t> kernel, bool has_dilations) {
  std::size_t n = kernel.size();
  Window w;
  w.kernel = std::move(kernel);
  w.stride = ints_or(c, "strides", n, 1);
  w.dilation = has_dilations ? ints_or(c, "dilations", n, 1) : std::vector<int64_t>(n, 1);
  w.ceil_mode = c.attr_int("ceil_mode", 0) != 0;
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  w.begin.assign(n, 0);
  w.end.assign(n, 0);
  if (auto_pad == "NOTSET") {
    std::vector<int64_t> pads = ints_or(c, "pads", 2 * n, 0);
    w.begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
    w.end.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (std::size_t d = 0; d < n; ++d) {
      int64_t len = x[d + 2], out = (len + w.stride[d] - 1) / w.stride[d];
      int64_t total = std::max<int64_t>(0, (out - 1) * w.stride[d] + w.extent(d) - len);
      int64_t small = total / 2;
      w.begin[d] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.end[d] = total - w.begin[d];
    }
  } else if (auto_pad != "VALID") {
    c.fail("auto_pad '" + auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }
  return w;
}

// ONNX's output size along d for input length `len`.
int64_t onnx_size(const NodeCtx& c, const Window& w, std::size_t d, int64_t len) {
  int64_t span = len + w.begin[d] + w.end[d] - w.extent(d);
  if (span < 0) c.fail("the window (" + std::to_string(w.extent(d)) + ") is larger than the padded input (" + std::to_string(len + w.begin[d] + w.end[d]) + ")");
  return (w.ceil_mode ? (span + w.stride[d] - 1) / w.stride[d] : span / w.stride[d]) + 1;
}

// PyTorch's pooled size for symmetric padding p.
int64_t torch_size(const Window& w, std::size_t d, int64_t len, int64_t p) {
  int64_t span = len + 2 * p - w.extent(d);
  int64_t out = (w.ceil_mode ? (span + w.stride[d] - 1) / w.stride[d] : span / w.stride[d]) + 1;
  if (w.ceil_mode && (out - 1) * w.stride[d] >= len + p) --out;
  return out;
}

// F.pad's list (last dim first) for the window's pads of an [N, C, ...] input.
std::vector<int64_t> torch_pads(const Window& w) {
  std::vector<int64_t> pads;
  for (std::size_t d = w.begin.size(); d-- > 0;) pads.insert(pads.end(), {w.begin[d], w.end[d]});
  return pads;
}

// The input padded explicitly (`value` in the new cells), the padding left to the op, and the
// output shape, checked against ONNX's. `inline_limit(d)` is the largest padding the op takes.
struct Padded {
  Json x;
  std::vector<int64_t> padding;
  Shape out;
  Shape in;  // x's shape
};

template <typename Limit>
Padded pad_for(NodeCtx& c, const Window& w, Json value, Limit limit, bool pooling) {
  const Shape& x = c.shape(0);
  std::size_t n = w.kernel.size();
  bool inside = w.symmetric();
  for (std::size_t d = 0; d < n && inside; ++d) inside = w.begin[d] <= limit(d);
  Padded p{c.arg(0), inside ? w.begin : std::vector<int64_t>(n, 0), {x[0], x[1]}, {x[0], x[1]}};
  if (!inside) p.x = with(op_node("pad", {std::move(p.x)}), {{"pad", torch_pads(w)}, {"value", std::move(value)}});
  for (std::size_t d = 0; d < n; ++d) {
    int64_t len = x[d + 2], expected = onnx_size(c, w, d, len);
    int64_t padded_len = inside ? len : len + w.begin[d] + w.end[d];
    p.in.push_back(padded_len);
    int64_t got = pooling ? torch_size(w, d, padded_len, p.padding[d]) : expected;
    if (got != expected)
      c.fail("with ceil_mode ONNX counts " + std::to_string(expected) + " windows along spatial dim " + std::to_string(d) +
             " where PyTorch's pooling counts " + std::to_string(got) + " (it drops a last window that starts in the padding)");
    p.out.push_back(expected);
  }
  return p;
}

// Conv: x [N, C, L] or [N, C, H, W], weight [M, C/group, k...], optional bias [M].
void map_conv(NodeCtx& c) {
  require_float(c, 0, "stax convolutions take floats");
  const Shape& x = c.shape(0);
  const Shape& wt = c.shape(1);
  if (x.size() != 3 && x.size() != 4) c.fail("only 1-D and 2-D convolutions (input rank 3 or 4) are supported, got " + shape_str(x));
  if (wt.size() != x.size()) c.fail("the weight " + shape_str(wt) + " does not match the input " + shape_str(x));
  std::vector<int64_t> kernel(wt.begin() + 2, wt.end());
  if (auto ks = c.attr_ints("kernel_shape"); ks && *ks != kernel)
    c.fail("kernel_shape " + shape_str(*ks) + " differs from the weight's " + shape_str(kernel));
  int64_t group = c.attr_int("group", 1);
  if (group < 1 || x[1] != wt[1] * group || wt[0] % group != 0)
    c.fail("input " + shape_str(x) + " and weight " + shape_str(wt) + " do not match group " + std::to_string(group));
  if (c.has_input(2) && c.shape(2) != Shape{wt[0]}) c.fail("the bias " + shape_str(c.shape(2)) + " is not [" + std::to_string(wt[0]) + "]");
  Window w = window_of(c, x, kernel, true);
  Padded p = pad_for(c, w, 0.0, [](std::size_t) { return INT64_MAX; }, false);
  p.out[1] = wt[0];
  Json node = op_node(x.size() == 3 ? "conv1d" : "conv2d", {std::move(p.x), c.arg(1)});
  if (c.has_input(2)) node["args"].push_back(c.arg(2));
  node = with(std::move(node), {{"stride", w.stride}, {"padding", p.padding}, {"dilation", w.dilation}, {"groups", group}});
  c.set_node(0, std::move(node), c.dtype(0), p.out);
}

std::vector<int64_t> pool_kernel(const NodeCtx& c) {
  if (c.rank(0) != 3 && c.rank(0) != 4)
    c.fail("only 1-D and 2-D pooling (input rank 3 or 4) are supported, got " + shape_str(c.shape(0)));
  std::optional<std::vector<int64_t>> k = c.attr_ints("kernel_shape");
  if (!k || static_cast<int64_t>(k->size()) != c.rank(0) - 2)
    c.fail("kernel_shape must have " + std::to_string(c.rank(0) - 2) + " entries");
  for (int64_t v : *k)
    if (v < 1) c.fail("kernel_shape " + shape_str(*k) + " has an entry below 1");
  return *k;
}

// A 1-D pooling ([N, C, L]) as the 2-D one of [N, C, 1, L]: the window and padding get a
// leading dim of kernel 1, stride 1, dilation 1 and padding 0, and the input a dim of 1 (undone
// by unlifted). 2-D ones are left as they are.
void lift_to_2d(Window& w, Padded& p) {
  if (w.kernel.size() != 1) return;
  for (auto* v : {&w.kernel, &w.stride, &w.dilation}) v->insert(v->begin(), 1);
  p.padding.insert(p.padding.begin(), 0);
  p.x = reshape_node(std::move(p.x), {p.in[0], p.in[1], 1, p.in[2]});
}

// A pooling node of the lifted input, reshaped back to [N, C, L] for a 1-D one.
Json unlifted(Json node, const Padded& p) {
  return p.out.size() == 3 ? reshape_node(std::move(node), p.out) : node;
}

// The pooling node as output 0.
void set_pool(NodeCtx& c, Json node, const Padded& p) { c.set_node(0, unlifted(std::move(node), p), c.dtype(0), p.out); }

// MaxPool, 1-D or 2-D; its Indices output is not produced.
void map_max_pool(NodeCtx& c) {
  require_float(c, 0, "stax pooling takes floats");
  c.require_unused_outputs(1, "the Indices output is not produced");
  Window w = window_of(c, c.shape(0), pool_kernel(c), true);
  Padded p = pad_for(c, w, "-inf", [&](std::size_t d) { return w.extent(d) / 2; }, true);
  lift_to_2d(w, p);
  set_pool(c, with(op_node("max_pool2d", {std::move(p.x)}),
                   {{"kernel_size", w.kernel}, {"stride", w.stride}, {"padding", p.padding},
                    {"dilation", w.dilation}, {"ceil_mode", w.ceil_mode}}), p);
}

// Each output position's count of window cells inside the input (not the pads), over the
// output's spatial shape: the product of the counts along each spatial dim.
Tensor cells_inside(const Window& w, const Shape& x, const Shape& out, DType dtype) {
  Shape spatial(out.begin() + 2, out.end());
  Tensor t(dtype, spatial);
  std::vector<std::vector<int64_t>> per_dim(spatial.size());
  for (std::size_t d = 0; d < spatial.size(); ++d)
    for (int64_t o = 0; o < spatial[d]; ++o) {
      int64_t n = 0;
      for (int64_t k = 0; k < w.kernel[d]; ++k) {
        int64_t at = o * w.stride[d] - w.begin[d] + k;
        n += at >= 0 && at < x[d + 2] ? 1 : 0;
      }
      per_dim[d].push_back(n);
    }
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t n = 1, rest = i;
    for (std::size_t d = spatial.size(); d-- > 0; rest /= spatial[d]) n *= per_dim[d][static_cast<std::size_t>(rest % spatial[d])];
    t.set_double(i, static_cast<double>(n));
  }
  return t;
}

// AveragePool with count_include_pad = 0 and pads avg_pool2d cannot take itself (asymmetric, as
// auto_pad SAME makes them, or over half the kernel): the window sums of the zero-padded input
// (avg_pool2d over every cell, times the cells) divided by each window's cells inside the input
// (cells_inside, a constant). One rounding more than ONNX's sum / count.
void avg_pool_excluding_pads(NodeCtx& c, Window w) {
  Padded p = pad_for(c, w, 0.0, [](std::size_t) { return int64_t(-1); }, true);  // (every pad explicit)
  for (std::size_t d = 0; d < w.kernel.size(); ++d)
    if ((p.out[d + 2] - 1) * w.stride[d] + w.kernel[d] > p.in[d + 2])
      c.fail("with ceil_mode the last window along spatial dim " + std::to_string(d) +
             " runs past the pads, which count_include_pad = 0 with these pads cannot divide for");
  Tensor inside = cells_inside(w, c.shape(0), p.out, c.dtype(0));
  int64_t cells = 1;
  for (int64_t k : w.kernel) cells *= k;
  lift_to_2d(w, p);
  Json avg = with(op_node("avg_pool2d", {std::move(p.x)}),
                  {{"kernel_size", w.kernel}, {"stride", w.stride}, {"padding", p.padding},
                   {"ceil_mode", w.ceil_mode}, {"count_include_pad", true}});
  Json sum = op_node("mul", {unlifted(std::move(avg), p), float_attr_json(static_cast<float>(cells), c.dtype(0))});
  c.set_node(0, op_node("div", {std::move(sum), c.constant("cells", inside)}), c.dtype(0), p.out);
}

// AveragePool, 1-D or 2-D. count_include_pad = 1 divides by the window's cells inside the padded
// input, as PyTorch's does, so explicit zero pads keep the meaning; with 0 (ONNX's default), pads
// avg_pool2d takes itself (symmetric, at most half the kernel) are its own, others go through
// avg_pool_excluding_pads.
void map_avg_pool(NodeCtx& c) {
  require_float(c, 0, "stax pooling takes floats");
  Window w = window_of(c, c.shape(0), pool_kernel(c), false);
  bool include_pad = c.attr_int("count_include_pad", 0) != 0;
  auto limit = [&](std::size_t d) { return w.kernel[d] / 2; };
  bool fits = w.symmetric();
  for (std::size_t d = 0; d < w.kernel.size() && fits; ++d) fits = w.begin[d] <= limit(d);
  if (!fits && !include_pad) return avg_pool_excluding_pads(c, w);
  Padded p = pad_for(c, w, 0.0, limit, true);
  lift_to_2d(w, p);
  set_pool(c, with(op_node("avg_pool2d", {std::move(p.x)}),
                   {{"kernel_size", w.kernel}, {"stride", w.stride}, {"padding", p.padding},
                    {"ceil_mode", w.ceil_mode}, {"count_include_pad", include_pad || !fits}}), p);
}

// GlobalAveragePool / GlobalMaxPool: a mean / amax over the spatial dims, kept as size 1.
void map_global_pool(NodeCtx& c) {
  require_float(c, 0, "stax pooling takes floats");
  Shape out = c.shape(0);
  if (out.size() < 3) c.fail("the input must be [N, C, spatial...], got " + shape_str(out));
  std::vector<int64_t> dims;
  for (std::size_t d = 2; d < out.size(); ++d) {
    dims.push_back(static_cast<int64_t>(d));
    out[d] = 1;
  }
  const char* op = c.op_type() == "GlobalAveragePool" ? "mean" : "amax";
  c.set_node(0, with(op_node(op, {c.arg(0)}), {{"dim", dims}, {"keepdim", true}}), c.dtype(0), out);
}

// BatchNormalization at inference: (x - mean) / sqrt(var + eps) * scale + B per channel.
// ONNX's inputs are X, scale, B, mean, var; stax's batch_norm takes x, mean, var, weight, bias.
void map_batch_norm(NodeCtx& c) {
  require_float(c, 0, "batch_norm normalizes floats");
  if (c.opset >= 14) c.require_attr_int("training_mode", 0, "only inference is supported");
  c.require_unused_outputs(1, "the running statistics are outputs of training only");
  const Shape& x = c.shape(0);
  if (x.size() < 2) c.fail("the input must be [N, C, ...], got " + shape_str(x));
  for (std::size_t i = 1; i <= 4; ++i)
    if (c.shape(i) != Shape{x[1]}) c.fail("input " + std::to_string(i) + " " + shape_str(c.shape(i)) + " is not [C] = [" + std::to_string(x[1]) + "]");
  float eps = c.attr_float("epsilon", 1e-5f);
  Json node = op_node("batch_norm", {c.arg(0), c.arg(3), c.arg(4), c.arg(1), c.arg(2)});
  c.set_node(0, with(std::move(node), {{"eps", float_attr_json(eps, c.dtype(0))}}), c.dtype(0), x);
}

// InstanceNormalization: each (image, channel)'s spatial dims normalized (biased variance),
// then scale and B per channel: layer_norm over the spatial dims, a mul and an add. PyTorch's
// InstanceNorm and GroupNorm export to it (GroupNorm with a reshape around, scale 1 and B 0).
void map_instance_norm(NodeCtx& c) {
  require_float(c, 0, "InstanceNormalization normalizes floats");
  const Shape& x = c.shape(0);
  if (x.size() < 3) c.fail("the input must be [N, C, D1, ...], got " + shape_str(x));
  for (std::size_t i = 1; i <= 2; ++i)
    if (c.shape(i) != Shape{x[1]}) c.fail("input " + std::to_string(i) + " " + shape_str(c.shape(i)) + " is not [C] = [" + std::to_string(x[1]) + "]");
  float eps = epsilon_attr(c);
  Json norm = op_node("layer_norm", {c.arg(0), Json(), Json()});
  norm = with(std::move(norm), {{"normalized_shape", Shape(x.begin() + 2, x.end())}, {"eps", float_attr_json(eps, c.dtype(0))}});
  Shape per_channel(x.size() - 1, 1);
  per_channel[0] = x[1];
  Json node = op_node("mul", {std::move(norm), reshape_node(c.arg(1), per_channel)});
  c.set_node(0, op_node("add", {std::move(node), reshape_node(c.arg(2), per_channel)}), c.dtype(0), x);
}

}  // namespace

void add_nn_mappers(MapperTable& table) {
  table["Conv"] = map_conv;
  table["MaxPool"] = map_max_pool;
  table["AveragePool"] = map_avg_pool;
  table["GlobalAveragePool"] = map_global_pool;
  table["GlobalMaxPool"] = map_global_pool;
  table["BatchNormalization"] = map_batch_norm;
  table["InstanceNormalization"] = map_instance_norm;
}

}  // namespace stax::importer::detail

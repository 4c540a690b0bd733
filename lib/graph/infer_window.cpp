// Dtype and shape of the window ops: conv1d, conv2d, max_pool2d, avg_pool2d and
// adaptive_avg_pool2d, with every check PyTorch makes (graph-format.md "Convolution and pooling
// shapes"). Output size per spatial dim: floor((L + 2p - d(k - 1) - 1) / s) + 1, ceil under
// ceil_mode, where a last window that would start in the right padding is dropped.
#include "frontend_impl.h"

#include <string>

#include "stax/support/error.h"

namespace stax::graph::detail {

namespace {

std::string list_str(const std::vector<int64_t>& v) { return shape_str(v); }

const char* const kDimNames2[] = {"H", "W"};

// "L", or "H"/"W": the spatial dim k of an op with n spatial dims.
std::string dim_name(std::size_t n, std::size_t k) { return n == 1 ? "L" : kDimNames2[k]; }

// An int (standing for every spatial dim) or a list of exactly `n` ints.
std::vector<int64_t> read_spatial(const NodeCtx& c, const Json& j, std::string_view key,
                                  std::size_t n) {
  std::string sub = "." + std::string(key);
  if (!j.is_array()) return std::vector<int64_t>(n, read_int(c.site, j, sub));
  if (j.items.size() != n)
    c.site.fail(sub, "expected an integer or a list of " + std::to_string(n) + " integer" +
                         (n == 1 ? "" : "s") + " (one per spatial dim), got a list of " +
                         std::to_string(j.items.size()));
  std::vector<int64_t> out;
  for (std::size_t k = 0; k < n; ++k)
    out.push_back(read_int(c.site, j.items[k], sub + "[" + std::to_string(k) + "]"));
  return out;
}

// The attribute `key` read as read_spatial, or `fallback` when absent; every entry >= `min`.
std::vector<int64_t> spatial_attr(const NodeCtx& c, std::string_view key, std::size_t n,
                                  std::vector<int64_t> fallback, int64_t min) {
  const Json* j = c.attr(key);
  if (j == nullptr) return fallback;
  std::vector<int64_t> v = read_spatial(c, *j, key, n);
  for (int64_t x : v)
    if (x < min)
      c.site.fail("." + std::string(key), std::string(key) + " must be " +
                                              (min == 0 ? "non-negative" : ">= " + std::to_string(min)) +
                                              ", got " + list_str(v));
  return v;
}

bool read_flag(const NodeCtx& c, std::string_view key, bool fallback) {
  const Json* j = c.attr(key);
  return j == nullptr ? fallback : read_bool(c.site, *j, "." + std::string(key));
}

void require_dtype(const NodeCtx& c, std::size_t k, DType want, std::string_view what) {
  const Value& p = c.value(k);
  if (p.dtype != want)
    c.site.fail(c.arg_path(k), std::string(what) + " must have the input's dtype " +
                                   dt_str(want) + ", got " + dt_str(p.dtype));
}

// floor(a / b) for b > 0 (PyTorch's div_rtn).
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// PyTorch's pooling_output_shape_pad_lr: the window count along one dim.
int64_t window_count(int64_t size, int64_t k, int64_t pb, int64_t pe, int64_t s, int64_t d,
                     bool ceil_mode) {
  int64_t span = size + pb + pe - d * (k - 1) - 1;
  int64_t out = floor_div(span + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (out - 1) * s >= size + pb) --out;
  return out;
}

// ---- convolutions -------------------------------------------------------------------------

// The padding of a convolution: an int, a list, "valid" or "same" (stride 1 only: the total
// d(k - 1), the odd extra element at the end).
void conv_padding(const NodeCtx& c, Attrs& a, std::size_t n) {
  const Json* j = c.attr("padding");
  a.pad_begin.assign(n, 0);
  a.pad_end.assign(n, 0);
  if (j == nullptr) return;
  if (!j->is_string()) {
    a.pad_begin = a.pad_end = spatial_attr(c, "padding", n, a.pad_begin, 0);
    return;
  }
  if (j->text == "valid") return;
  if (j->text != "same")
    c.site.fail(".padding", "expected an integer, a list, \"valid\" or \"same\", got \"" +
                                printable(j->text) + "\"");
  for (int64_t s : a.stride)
    if (s != 1)
      c.site.fail(".padding", "padding \"same\" needs stride 1, got stride " + list_str(a.stride));
  for (std::size_t k = 0; k < n; ++k) {
    int64_t total = a.dilation[k] * (a.kernel[k] - 1);
    a.pad_begin[k] = total / 2;
    a.pad_end[k] = total - total / 2;
  }
}

void check_conv_weight(const NodeCtx& c, const Value& x, const Value& w, int64_t groups) {
  const std::size_t rank = x.shape.size();
  if (w.shape.size() != rank)
    c.site.fail(c.arg_path(1), "the weight of " + c.site.op + " is " + std::to_string(rank) +
                                   "-d [O, C/groups, k...], got " + shape_str(w.shape));
  require_dtype(c, 1, x.dtype, "the weight");
  if (w.shape[0] % groups != 0)
    c.site.fail(c.arg_path(1), "the weight's " + std::to_string(w.shape[0]) +
                                   " output channels do not divide by groups " +
                                   std::to_string(groups));
  if (x.shape[1] != w.shape[1] * groups)
    c.site.fail("", "the input has " + std::to_string(x.shape[1]) + " channels; weight " +
                        shape_str(w.shape) + " with groups " + std::to_string(groups) +
                        " expects " + std::to_string(w.shape[1] * groups));
}

void check_conv_bias(const NodeCtx& c, const Value& x, int64_t out_channels) {
  if (c.args.size() < 3 || c.args[2].is_none()) return;
  const Value& b = c.value(2);
  if (b.shape != Shape{out_channels})
    c.site.fail(c.arg_path(2), "the bias has shape " + shape_str(b.shape) + ", expected [" +
                                   std::to_string(out_channels) + "]");
  require_dtype(c, 2, x.dtype, "the bias");
}

}  // namespace

void infer_conv(const NodeCtx& c, Value& v) {
  const std::size_t n = c.op == Op::Conv1d ? 1 : 2;
  const Value& x = c.value(0);
  if (x.shape.size() != n + 2)
    c.site.fail(c.arg_path(0), "op '" + c.site.op + "' needs a " + std::to_string(n + 2) +
                                   "-d input " + (n == 1 ? "[N, C, L]" : "[N, C, H, W]") +
                                   ", got " + dt_str(x.dtype) + shape_str(x.shape) +
                                   " (inputs are batched)");
  require_float_data(c, 0);
  Attrs& a = v.attrs;
  a.groups = 1;
  if (const Json* g = c.attr("groups")) {
    a.groups = read_int(c.site, *g, ".groups");
    if (a.groups < 1) c.site.fail(".groups", "groups must be >= 1, got " + std::to_string(a.groups));
  }
  const Value& w = c.value(1);
  check_conv_weight(c, x, w, a.groups);
  check_conv_bias(c, x, w.shape[0]);
  a.kernel.assign(w.shape.begin() + 2, w.shape.end());
  a.stride = spatial_attr(c, "stride", n, std::vector<int64_t>(n, 1), 1);
  a.dilation = spatial_attr(c, "dilation", n, std::vector<int64_t>(n, 1), 1);
  conv_padding(c, a, n);
  v.shape = {x.shape[0], w.shape[0]};
  for (std::size_t k = 0; k < n; ++k) {
    const int64_t size = x.shape[k + 2];
    const int64_t padded = size + a.pad_begin[k] + a.pad_end[k];
    const int64_t span = a.dilation[k] * (a.kernel[k] - 1) + 1;
    if (padded < span)
      c.site.fail("", "the padded input size " + std::to_string(padded) + " of dim " +
                          dim_name(n, k) + " is smaller than the dilated kernel size " +
                          std::to_string(span));
    v.shape.push_back(window_count(size, a.kernel[k], a.pad_begin[k], a.pad_end[k],
                                   a.stride[k], a.dilation[k], false));
  }
  v.dtype = v.compute_dtype = x.dtype;
}

namespace {

// ---- pools ----------------------------------------------------------------------------------

// x [N, C, H, W] or [C, H, W], floating.
const Value& pool_input(const NodeCtx& c) {
  const Value& x = c.value(0);
  if (x.shape.size() != 3 && x.shape.size() != 4)
    c.site.fail(c.arg_path(0), "op '" + c.site.op + "' needs a 3-d [C, H, W] or 4-d [N, C, H, W] "
                               "input, got " + dt_str(x.dtype) + shape_str(x.shape));
  require_float_data(c, 0);
  return x;
}

// padding <= half the (dilated) kernel, per dim.
void check_pool_padding(const NodeCtx& c, const Attrs& a) {
  for (std::size_t k = 0; k < 2; ++k) {
    const int64_t span = a.dilation[k] * (a.kernel[k] - 1) + 1;
    if (2 * a.pad_begin[k] <= span) continue;
    c.site.fail(".padding", "padding " + list_str(a.pad_begin) + " must be at most half the " +
                                (c.op == Op::MaxPool2d ? "effective kernel size d(k - 1) + 1 = "
                                                       : "kernel size ") +
                                std::to_string(span) + " in dim " + dim_name(2, k));
  }
}

void read_pool_window(const NodeCtx& c, Attrs& a) {
  const Json* kj = c.attr("kernel_size");
  if (kj == nullptr) c.site.fail("", "missing key 'kernel_size'");
  a.kernel = spatial_attr(c, "kernel_size", 2, {}, 1);
  a.stride = spatial_attr(c, "stride", 2, a.kernel, 1);
  a.pad_begin = a.pad_end = spatial_attr(c, "padding", 2, {0, 0}, 0);
  a.dilation = spatial_attr(c, "dilation", 2, {1, 1}, 1);  // only max_pool2d accepts the key
  a.ceil_mode = read_flag(c, "ceil_mode", false);
  if (c.op == Op::AvgPool2d) {
    a.count_include_pad = read_flag(c, "count_include_pad", true);
    if (const Json* d = c.attr("divisor_override")) {
      a.divisor_override = read_int(c.site, *d, ".divisor_override");
      if (a.divisor_override < 1)
        c.site.fail(".divisor_override", "divisor_override must be >= 1, got " +
                                             std::to_string(a.divisor_override));
    }
  }
  check_pool_padding(c, a);
}

void infer_adaptive(const NodeCtx& c, Value& v, const Value& x) {
  const Json* j = c.attr("output_size");
  if (j == nullptr) c.site.fail("", "missing key 'output_size'");
  const Shape in(x.shape.end() - 2, x.shape.end());
  Shape out;
  if (!j->is_array()) {
    out.assign(2, read_int(c.site, *j, ".output_size"));
  } else {
    if (j->items.size() != 2)
      c.site.fail(".output_size", "expected an integer or a list of 2 entries [h, w], got a list of " +
                                      std::to_string(j->items.size()));
    for (std::size_t k = 0; k < 2; ++k) {
      const Json& e = j->items[k];  // null keeps the input's size, as PyTorch's None
      out.push_back(e.is_null() ? in[k]
                                : read_int(c.site, e, ".output_size[" + std::to_string(k) + "]"));
    }
  }
  for (int64_t o : out)
    if (o < 1) c.site.fail(".output_size", "output_size entries must be >= 1, got " + list_str(out));
  v.attrs.output_size = out;
  v.shape.assign(x.shape.begin(), x.shape.end() - 2);
  v.shape.insert(v.shape.end(), out.begin(), out.end());
}

}  // namespace

void infer_pool(const NodeCtx& c, Value& v) {
  const Value& x = pool_input(c);
  v.dtype = v.compute_dtype = x.dtype;
  if (c.op == Op::AdaptiveAvgPool2d) return infer_adaptive(c, v, x);
  Attrs& a = v.attrs;
  read_pool_window(c, a);
  v.shape.assign(x.shape.begin(), x.shape.end() - 2);
  Shape out;
  for (std::size_t k = 0; k < 2; ++k) {
    const int64_t size = x.shape[x.shape.size() - 2 + k];
    out.push_back(window_count(size, a.kernel[k], a.pad_begin[k], a.pad_end[k], a.stride[k],
                               a.dilation[k], a.ceil_mode));
  }
  if (out[0] < 1 || out[1] < 1)
    c.site.fail("", "the output is too small: input " + shape_str(x.shape) + " gives " +
                        list_str(out) + " windows (kernel_size " + list_str(a.kernel) +
                        ", padding " + list_str(a.pad_begin) + ")");
  v.shape.insert(v.shape.end(), out.begin(), out.end());
}

}  // namespace stax::graph::detail

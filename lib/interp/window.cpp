// Convolutions and pools, computed directly from their definitions in double (graph-format.md
// "Convolution and pooling shapes"). Every op is seen as 2-D: a 1-D convolution is a 2-D one
// with a height of 1 (kernel, stride and dilation 1, no padding in that dim).
#include "internal.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stax/support/error.h"

namespace stax::interp::detail {

namespace {

// The window attributes in 2-D: index 0 is H, 1 is W.
struct Window {
  int64_t k[2] = {1, 1}, s[2] = {1, 1}, d[2] = {1, 1}, pad[2] = {0, 0};
};

Window window_of(const graph::Attrs& a) {
  Window w;
  const std::size_t n = a.stride.size();
  STAX_ASSERT(n == 1 || n == 2, "window attributes of 1 or 2 dims");
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = i + 2 - n;  // 1-D: the only dim is W
    w.k[j] = a.kernel.at(i);
    w.s[j] = a.stride.at(i);
    w.d[j] = a.dilation.empty() ? 1 : a.dilation.at(i);
    w.pad[j] = a.pad_begin.at(i);
  }
  return w;
}

// A tensor's shape as [planes..., H, W] for 2 trailing spatial dims (1-D: H = 1).
struct Planes {
  int64_t count = 1, h = 1, w = 1;
};

Planes planes_of(const Shape& s, std::size_t spatial) {
  Planes p;
  p.w = s.back();
  if (spatial == 2) p.h = s[s.size() - 2];
  p.count = shape_numel(s) / (p.h * p.w);
  return p;
}

}  // namespace

// out[n, o, y, x] = bias[o] + sum over the group's channels c and taps (i, j) of
//   x[n, g * C/groups + c, y * s - p + i * d, x * s - p + j * d] * w[o, c, i, j]
// (taps in the padding contribute 0), accumulated in double.
Tensor eval_conv(const Context& ctx, const graph::Value& node) {
  const Tensor& x = ctx.arg(node, 0);
  const Tensor& w = ctx.arg(node, 1);
  const Tensor* bias = Context::has_value_arg(node, 2) ? &ctx.arg(node, 2) : nullptr;
  const std::size_t spatial = node.attrs.stride.size();
  const Window win = window_of(node.attrs);
  const Planes in = planes_of(x.shape(), spatial), out_p = planes_of(node.shape, spatial);
  const int64_t batch = x.shape()[0], channels = x.shape()[1], outs = w.shape()[0];
  const int64_t group_in = channels / node.attrs.groups, group_out = outs / node.attrs.groups;
  Tensor out(node.dtype, node.shape);
  int64_t o_index = 0;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t o = 0; o < outs; ++o)
      for (int64_t oy = 0; oy < out_p.h; ++oy)
        for (int64_t ox = 0; ox < out_p.w; ++ox, ++o_index) {
          double acc = bias ? bias->get_double(o) : 0.0;
          const int64_t c0 = (o / group_out) * group_in;
          for (int64_t c = 0; c < group_in; ++c)
            for (int64_t i = 0; i < win.k[0]; ++i) {
              const int64_t iy = oy * win.s[0] - win.pad[0] + i * win.d[0];
              if (iy < 0 || iy >= in.h) continue;
              for (int64_t j = 0; j < win.k[1]; ++j) {
                const int64_t ix = ox * win.s[1] - win.pad[1] + j * win.d[1];
                if (ix < 0 || ix >= in.w) continue;
                const int64_t xi = (((n * channels) + c0 + c) * in.h + iy) * in.w + ix;
                const int64_t wi = ((o * group_in + c) * win.k[0] + i) * win.k[1] + j;
                acc += x.get_double(xi) * w.get_double(wi);
              }
            }
          store_float(out, o_index, acc);
        }
  return out;
}

namespace {

// Taps of window (oy, ox) inside the input, visited in row-major order.
template <typename F>
void for_taps(const Window& win, const Planes& in, int64_t oy, int64_t ox, F f) {
  for (int64_t i = 0; i < win.k[0]; ++i) {
    const int64_t iy = oy * win.s[0] - win.pad[0] + i * win.d[0];
    if (iy < 0 || iy >= in.h) continue;
    for (int64_t j = 0; j < win.k[1]; ++j) {
      const int64_t ix = ox * win.s[1] - win.pad[1] + j * win.d[1];
      if (ix >= 0 && ix < in.w) f(iy * in.w + ix);
    }
  }
}

// PyTorch's avg_pool2d divisor of window (oy, ox): divisor_override, else the window's element
// count within the padded input (count_include_pad) or within the input.
double avg_divisor(const graph::Attrs& a, const Window& win, const Planes& in, int64_t oy,
                   int64_t ox) {
  if (a.divisor_override != 0) return static_cast<double>(a.divisor_override);
  const int64_t y0 = oy * win.s[0] - win.pad[0], x0 = ox * win.s[1] - win.pad[1];
  int64_t y1 = std::min(y0 + win.k[0], in.h + win.pad[0]);
  int64_t x1 = std::min(x0 + win.k[1], in.w + win.pad[1]);
  if (a.count_include_pad) return static_cast<double>((y1 - y0) * (x1 - x0));
  y1 = std::min(y1, in.h);
  x1 = std::min(x1, in.w);
  return static_cast<double>((y1 - std::max<int64_t>(y0, 0)) * (x1 - std::max<int64_t>(x0, 0)));
}

}  // namespace

// max_pool2d: the maximum over the window's taps inside the input (padding is -inf: a window
// of padding only gives -inf); a NaN tap makes the result NaN. avg_pool2d: the sum of the taps
// inside the input over avg_divisor (0 for a window without any, which PyTorch gives too).
Tensor eval_pool(const Context& ctx, const graph::Value& node, bool is_max) {
  const Tensor& x = ctx.arg(node, 0);
  const Window win = window_of(node.attrs);
  const Planes in = planes_of(x.shape(), 2), out_p = planes_of(node.shape, 2);
  Tensor out(node.dtype, node.shape);
  int64_t o_index = 0;
  for (int64_t p = 0; p < in.count; ++p)
    for (int64_t oy = 0; oy < out_p.h; ++oy)
      for (int64_t ox = 0; ox < out_p.w; ++ox, ++o_index) {
        const int64_t base = p * in.h * in.w;
        if (is_max) {
          double m = -std::numeric_limits<double>::infinity();
          for_taps(win, in, oy, ox, [&](int64_t off) {
            const double v = x.get_double(base + off);
            if (!std::isnan(m) && (std::isnan(v) || v > m)) m = v;
          });
          store_float(out, o_index, m);
          continue;
        }
        double sum = 0.0;
        int64_t taps = 0;
        for_taps(win, in, oy, ox, [&](int64_t off) {
          sum += x.get_double(base + off);
          ++taps;
        });
        store_float(out, o_index, taps == 0 ? 0.0 : sum / avg_divisor(node.attrs, win, in, oy, ox));
      }
  return out;
}

// adaptive_avg_pool2d: output (i, j) averages rows [floor(i*H/oh), ceil((i+1)*H/oh)) and
// columns [floor(j*W/ow), ceil((j+1)*W/ow)).
Tensor eval_adaptive_avg_pool(const Context& ctx, const graph::Value& node) {
  const Tensor& x = ctx.arg(node, 0);
  const Planes in = planes_of(x.shape(), 2), out_p = planes_of(node.shape, 2);
  auto start = [](int64_t i, int64_t size, int64_t outs) { return (i * size) / outs; };
  auto end = [](int64_t i, int64_t size, int64_t outs) { return ((i + 1) * size + outs - 1) / outs; };
  Tensor out(node.dtype, node.shape);
  int64_t o_index = 0;
  for (int64_t p = 0; p < in.count; ++p)
    for (int64_t oy = 0; oy < out_p.h; ++oy)
      for (int64_t ox = 0; ox < out_p.w; ++ox, ++o_index) {
        const int64_t y0 = start(oy, in.h, out_p.h), y1 = end(oy, in.h, out_p.h);
        const int64_t x0 = start(ox, in.w, out_p.w), x1 = end(ox, in.w, out_p.w);
        double sum = 0.0;
        for (int64_t y = y0; y < y1; ++y)
          for (int64_t c = x0; c < x1; ++c) sum += x.get_double((p * in.h + y) * in.w + c);
        store_float(out, o_index, sum / static_cast<double>((y1 - y0) * (x1 - x0)));
      }
  return out;
}

}  // namespace stax::interp::detail

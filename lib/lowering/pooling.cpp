// Pools as reductions over their window (graph-format.md "Convolution and pooling shapes"): the
// output loops x over [N,] C, OH, OW and two reduction loops r0, r1 over the window, reading the
// input at (oh * s - p + r0 * d, ow * s - p + r1 * d) through a masked load where the window may
// leave the input. So a pool is a Reduction buffer like any other, and fuses as one.
//   max_pool2d           Max over Masked(inside, x, -inf): a window of padding only is -inf
//   avg_pool2d           Sum over Masked(inside, x, 0), then a pointwise end: sum / divisor,
//                        the divisor per output position as PyTorch's (count_include_pad: the
//                        window's size within the padded input; else within the input;
//                        divisor_override)
//   adaptive_avg_pool2d  Sum over the window [floor(i L / out), ceil((i + 1) L / out)), as long
//                        as the longest window with a mask past the shorter ones, then / size
#include <algorithm>
#include <limits>
#include <vector>

#include "lowering_impl.h"
#include "stax/ir/simplify.h"
#include "stax/support/error.h"

namespace stax::lowering::detail {

using graph::Op;
using graph::Value;
using ir::ExprOp;

namespace {

int64_t adaptive_start(int64_t i, int64_t size, int64_t out) { return i * size / out; }
int64_t adaptive_end(int64_t i, int64_t size, int64_t out) { return ((i + 1) * size + out - 1) / out; }

// The window of one spatial dim: the input position read at output o and window step r, the
// condition that it lies inside the input (null when the ranges prove it), the window length.
struct WindowDim {
  Index pos;
  std::vector<Expr> conds;
  int64_t length = 1;
};

WindowDim fixed_window(const graph::Attrs& a, std::size_t k, const Index& o, const Index& r,
                       int64_t size, const ir::VarRanges& ranges) {
  WindowDim w;
  w.length = a.kernel.at(k);
  w.pos = ir::simplify(o * a.stride.at(k) - a.pad_begin.at(k) + r * a.dilation.at(k), ranges);
  w.conds = range_mask(w.pos, 0, size, ranges).conds;
  return w;
}

WindowDim adaptive_window(int64_t out, const Index& o, const Index& r, int64_t size,
                          const ir::VarRanges& ranges) {
  WindowDim w;
  bool uniform = true;
  const int64_t first = adaptive_end(0, size, out) - adaptive_start(0, size, out);
  for (int64_t i = 0; i < out; ++i) {
    const int64_t len = adaptive_end(i, size, out) - adaptive_start(i, size, out);
    w.length = std::max(w.length, len);
    uniform = uniform && len == first;
  }
  const Index start = ir::floordiv(o * size, out);
  w.pos = ir::simplify(start + r, ranges);
  if (!uniform) {  // pos < end, i.e. r < the window's own length
    const Index end = ir::floordiv(o * size + (size + out - 1), out);
    w.conds.push_back(index_cmp(ExprOp::Lt, ir::simplify(w.pos - end, ranges), 0));
  }
  return w;
}

Expr i64(const Index& e) { return ir::index_value(e, DType::Int64); }

// min(start + len, hi) - max(start, lo) as an int64 value, each clip left out where the ranges
// prove it idle (a constant when both are).
Expr clipped_length(const Index& start, int64_t len, int64_t lo, int64_t hi, const ir::VarRanges& ranges) {
  const Index end = ir::simplify(start + len, ranges);
  const bool clip_hi = ir::bounds(end, ranges).hi > hi;
  const bool clip_lo = ir::bounds(start, ranges).lo < lo;
  if (!clip_hi && !clip_lo) return ir::int_const(DType::Int64, len);
  Expr e = clip_hi ? ir::binary(ExprOp::Minimum, i64(end), ir::int_const(DType::Int64, hi)) : i64(end);
  Expr b = clip_lo ? ir::binary(ExprOp::Maximum, i64(start), ir::int_const(DType::Int64, lo)) : i64(start);
  return ir::binary(ExprOp::Sub, e, b);
}

}  // namespace

void Lowerer::lower_pool(ValueId v) {
  const Value& n = g[v];
  const ValueId x = n.args.at(0).value;
  const Shape& in = g[x].shape;
  const std::size_t h = in.size() - 2;  // the first spatial dim
  BodyCtx ctx;
  ctx.ranges = output_ranges(n.shape);
  ctx.ranges[ir::rvar(0)] = 1;
  ctx.ranges[ir::rvar(1)] = 1;
  Coords c = output_coords(n.shape);
  std::vector<Expr> conds;
  Shape window;
  for (std::size_t k = 0; k < 2; ++k) {
    const Index o = c[h + k], r = Index::var(ir::rvar(static_cast<int32_t>(k)));
    const int64_t size = in[h + k];
    // The window length first: the positions are simplified over the final ranges.
    const int64_t len = n.op == Op::AdaptiveAvgPool2d
                            ? adaptive_window(n.attrs.output_size[k], o, r, size, ctx.ranges).length
                            : n.attrs.kernel.at(k);
    ctx.ranges[ir::rvar(static_cast<int32_t>(k))] = len;
    window.push_back(len);
  }
  for (std::size_t k = 0; k < 2; ++k) {
    const Index o = c[h + k], r = Index::var(ir::rvar(static_cast<int32_t>(k)));
    const WindowDim w = n.op == Op::AdaptiveAvgPool2d
                            ? adaptive_window(n.attrs.output_size[k], o, r, in[h + k], ctx.ranges)
                            : fixed_window(n.attrs, k, o, r, in[h + k], ctx.ranges);
    c[h + k] = w.pos;
    conds.insert(conds.end(), w.conds.begin(), w.conds.end());
  }
  const bool is_max = n.op == Op::MaxPool2d;
  const DType dt = n.dtype;
  Expr body = ir::cast(value_at(x, c, ctx), dt);
  const double other = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
  if (!conds.empty()) body = ir::masked(all_of(conds), body, ir::float_const(dt, other));
  ir::Buffer b;
  b.kind = ir::BufferKind::Reduction;
  b.dtype = dt;
  b.shape = n.shape;
  b.reduce_ranges = window;
  b.reduce_op = is_max ? ir::ReduceOp::Max : ir::ReduceOp::Sum;
  b.body = std::move(body);
  const BufferId id = add_buffer(std::move(b), &ctx, v);
  if (is_max) {
    buffer_of[static_cast<std::size_t>(v)] = id;
  } else {
    aux[static_cast<std::size_t>(v)] = {id};
  }
}

// The pointwise end of avg_pool2d and adaptive_avg_pool2d at `coords`: the window sum over the
// divisor of that output position.
Expr Lowerer::pool_average(ValueId v, const Coords& coords, BodyCtx& ctx) {
  const Value& n = g[v];
  const DType dt = n.dtype;
  const Expr sum = load_buffer(aux[static_cast<std::size_t>(v)].at(0), coords, n.shape, ctx);
  const graph::Attrs& a = n.attrs;
  if (n.op == Op::AvgPool2d && a.divisor_override != 0)
    return ir::binary(ExprOp::Div, sum, ir::const_of(dt, static_cast<double>(a.divisor_override)));
  const Shape& in = g[n.args.at(0).value].shape;
  const std::size_t h = coords.size() - 2;
  Expr count;        // the product of the lengths known only at run time
  int64_t fixed = 1;  // and of the constant ones
  for (std::size_t k = 0; k < 2; ++k) {
    const Index& o = coords[h + k];
    const int64_t size = in[in.size() - 2 + k];
    Expr len;
    if (n.op == Op::AdaptiveAvgPool2d) {
      const int64_t out = a.output_size[k];
      const Index start = ir::floordiv(o * size, out), end = ir::floordiv(o * size + (size + out - 1), out);
      len = i64(ir::simplify(end - start, ctx.ranges));
    } else {
      const Index start = ir::simplify(o * a.stride[k] - a.pad_begin[k], ctx.ranges);
      len = a.count_include_pad ? clipped_length(start, a.kernel[k], -a.pad_begin[k], size + a.pad_end[k], ctx.ranges)
                                : clipped_length(start, a.kernel[k], 0, size, ctx.ranges);
    }
    if (len.op() == ExprOp::Constant) {
      fixed *= len.int_value();
      continue;
    }
    count = count ? ir::binary(ExprOp::Mul, count, len) : len;
  }
  if (!count) return ir::binary(ExprOp::Div, sum, ir::const_of(dt, static_cast<double>(fixed)));
  if (fixed != 1) count = ir::binary(ExprOp::Mul, ir::int_const(DType::Int64, fixed), count);
  return ir::binary(ExprOp::Div, sum, ir::cast(count, dt));
}

}  // namespace stax::lowering::detail

// Dtype and shape of creation ops (full, arange), matmul and the composites (softmax,
// log_softmax, layer_norm, rms_norm, linear) before they are expanded.
#include "frontend_impl.h"

#include <cmath>
#include <limits>

#include "stax/graph/promote.h"
#include "stax/support/error.h"

namespace stax::graph::detail {

namespace {

// A number attribute as a scalar literal (int or float kind), no bools.
Scalar number_literal(const NodeCtx& c, const Json& j, std::string_view key) {
  std::string sub = "." + std::string(key);
  std::optional<Scalar> s = j.is_bool() ? std::nullopt : read_scalar_literal(c.site, j, sub);
  if (!s) c.site.fail(sub, "expected a number, got " + json_brief(j));
  return *s;
}

void infer_full(const NodeCtx& c, Value& v) {
  v.shape = read_shape(c.site, required(c, "shape"), ".shape", false);
  const Json& vj = required(c, "value");
  std::optional<Scalar> value = read_scalar_literal(c.site, vj, ".value");
  if (!value) c.site.fail(".value", "expected a number or a boolean, got " + json_brief(vj));
  DType dt = DType::Float32;
  if (const Json* dj = c.attr("dtype")) {
    dt = read_dtype(c.site, *dj, ".dtype");
  } else if (value->kind == Scalar::Kind::Bool) {
    dt = DType::Bool;
  } else if (value->kind == Scalar::Kind::Int) {
    dt = DType::Int64;
  }
  v.attrs.value = scalar_to_dtype(c.site, *value, dt, ".value");
  v.attrs.shape = v.shape;
  v.attrs.dtype = v.dtype = v.compute_dtype = dt;
}

void infer_arange(const NodeCtx& c, Value& v) {
  Scalar end = number_literal(c, required(c, "end"), "end");
  Scalar start = Scalar::of_int(0), step = Scalar::of_int(1);
  if (const Json* j = c.attr("start")) start = number_literal(c, *j, "start");
  if (const Json* j = c.attr("step")) step = number_literal(c, *j, "step");
  bool all_int = start.kind == Scalar::Kind::Int && end.kind == Scalar::Kind::Int &&
                 step.kind == Scalar::Kind::Int;
  const std::pair<const char*, const Scalar*> parts[] = {
      {".start", &start}, {".end", &end}, {".step", &step}};
  for (const auto& [sub, s] : parts)
    if (!std::isfinite(s->as_double())) c.site.fail(sub, "arange bounds must be finite");
  if (step.as_double() == 0.0) c.site.fail(".step", "arange step must be nonzero");

  DType dt = all_int ? DType::Int64 : DType::Float32;
  if (const Json* dj = c.attr("dtype")) {
    dt = read_dtype(c.site, *dj, ".dtype");
    if (dt == DType::Bool) c.site.fail(".dtype", "arange does not produce bool");
    if (is_integer(dt) && !all_int)
      c.site.fail(".dtype", "arange with dtype " + dt_str(dt) + " needs int start, end and step");
  }

  int64_t n = 0;
  if (all_int) {
    // Exact: ceil((end - start) / step) in 128-bit arithmetic.
    __int128 diff = static_cast<__int128>(end.i) - start.i, st = step.i;
    __int128 len = 0;
    if ((diff > 0 && st > 0) || (diff < 0 && st < 0)) {
      __int128 ad = diff < 0 ? -diff : diff, as = st < 0 ? -st : st;
      len = (ad + as - 1) / as;
    }
    if (len > std::numeric_limits<int64_t>::max()) c.site.fail("", "arange is too long");
    n = static_cast<int64_t>(len);
    if (n > 0) {
      __int128 last = static_cast<__int128>(start.i) + (len - 1) * st;
      __int128 lo = dt == DType::Int32 ? std::numeric_limits<int32_t>::min()
                                       : std::numeric_limits<int64_t>::min();
      __int128 hi = dt == DType::Int32 ? std::numeric_limits<int32_t>::max()
                                       : std::numeric_limits<int64_t>::max();
      if (is_integer(dt) && (start.i < lo || start.i > hi || last < lo || last > hi))
        c.site.fail("", "arange values leave the range of " + dt_str(dt));
    }
  } else {
    double len = std::ceil((end.as_double() - start.as_double()) / step.as_double());
    if (std::isnan(len) || len <= 0) len = 0;
    if (len >= 9223372036854775808.0) c.site.fail("", "arange is too long");
    n = static_cast<int64_t>(len);
  }
  if (n <= 0)
    c.site.fail("", "arange(start=" + scalar_str(start) + ", end=" + scalar_str(end) + ", step=" +
                        scalar_str(step) + ") is empty; zero-size values are not supported");
  if (!all_int || is_floating(dt)) {
    double last = start.as_double() + static_cast<double>(n - 1) * step.as_double();
    if (!scalar_fits(Scalar::of_float(start.as_double()), dt) ||
        !scalar_fits(Scalar::of_float(last), dt))
      c.site.fail("", "arange values leave the range of " + dt_str(dt));
  }
  v.attrs.arange_start = start;
  v.attrs.arange_end = end;
  v.attrs.arange_step = step;
  v.attrs.dtype = v.dtype = v.compute_dtype = dt;
  v.shape = v.attrs.shape = {n};
}

// torch.matmul's shape rules. `where` is used in messages.
Shape matmul_shape(const NodeCtx& c, const Shape& a, const Shape& b) {
  auto mismatch = [&](int64_t ka, int64_t kb) {
    c.site.fail("", "matmul size mismatch: " + shape_str(a) + " @ " + shape_str(b) + " (" +
                        std::to_string(ka) + " != " + std::to_string(kb) + ")");
  };
  std::size_t na = a.size(), nb = b.size();
  int64_t ka = a[na - 1];
  int64_t kb = nb >= 2 ? b[nb - 2] : b[0];
  if (ka != kb) mismatch(ka, kb);
  Shape batch_a = na > 2 ? Shape(a.begin(), a.end() - 2) : Shape{};
  Shape batch_b = nb > 2 ? Shape(b.begin(), b.end() - 2) : Shape{};
  std::optional<Shape> batch = broadcast_shapes(batch_a, batch_b);
  if (!batch)
    c.site.fail("", "matmul cannot broadcast the batch dims " + shape_str(batch_a) + " and " +
                        shape_str(batch_b));
  Shape out = *batch;
  if (na >= 2) out.push_back(a[na - 2]);
  if (nb >= 2) out.push_back(b[nb - 1]);
  return out;
}

void check_matmul_operand(const NodeCtx& c, std::size_t k) {
  const Value& x = c.value(k);
  if (x.shape.empty())
    c.site.fail(c.arg_path(k), "op '" + c.site.op + "' needs tensors of at least 1 dim, got a 0-d tensor");
  if (x.dtype == DType::Bool) c.site.fail(c.arg_path(k), "op '" + c.site.op + "' does not accept bool");
}

void check_same_dtype(const NodeCtx& c, std::size_t k, DType want) {
  const Value& x = c.value(k);
  if (x.dtype != want)
    c.site.fail(c.arg_path(k), "op '" + c.site.op + "' needs operands of one dtype, got " +
                                   dt_str(want) + " and " + dt_str(x.dtype));
}

void require_float(const NodeCtx& c, const Value& x) {
  if (!is_floating(x.dtype))
    c.site.fail(c.arg_path(0), "op '" + c.site.op + "' needs a floating-point tensor, got " +
                                   dt_str(x.dtype));
}

Shape read_normalized_shape(const NodeCtx& c, const Value& x) {
  const Json& j = required(c, "normalized_shape");
  Shape ns;
  if (j.is_array()) {
    if (j.items.empty()) c.site.fail(".normalized_shape", "normalized_shape must not be empty");
    ns = read_shape(c.site, j, ".normalized_shape", false);
  } else {
    int64_t d = read_int(c.site, j, ".normalized_shape");
    if (d < 1) c.site.fail(".normalized_shape", "normalized_shape entries must be >= 1");
    ns = {d};
  }
  bool match = ns.size() <= x.shape.size() &&
               std::equal(ns.begin(), ns.end(), x.shape.end() - static_cast<std::ptrdiff_t>(ns.size()));
  if (!match)
    c.site.fail(".normalized_shape", "normalized_shape " + shape_str(ns) +
                                         " does not match the trailing dims of " +
                                         shape_str(x.shape));
  return ns;
}

void check_param(const NodeCtx& c, std::size_t k, const Shape& want, std::string_view what) {
  if (k >= c.args.size() || c.args[k].is_none()) return;
  const Value& p = c.value(k);
  if (p.shape != want)
    c.site.fail(c.arg_path(k), std::string(what) + " has shape " + shape_str(p.shape) +
                                   ", expected " + shape_str(want));
}

void infer_norm(const NodeCtx& c, Value& v, const Value& x) {
  require_float(c, x);
  v.attrs.normalized_shape = read_normalized_shape(c, x);
  v.shape = x.shape;
  v.dtype = v.compute_dtype = x.dtype;
  check_param(c, 1, v.attrs.normalized_shape, "the weight");
  if (c.op == Op::LayerNorm) {
    check_param(c, 2, v.attrs.normalized_shape, "the bias");
    for (std::size_t k = 1; k < c.args.size(); ++k)
      if (c.args[k].is_value()) check_same_dtype(c, k, x.dtype);
    v.attrs.eps = 1e-5;
  } else {
    // PyTorch's rms_norm multiplies by the weight, promoting.
    if (c.args.size() > 1 && c.args[1].is_value())
      v.dtype = v.compute_dtype = promote_types(x.dtype, c.value(1).dtype);
    v.attrs.eps = x.dtype == DType::Float32 ? double{std::numeric_limits<float>::epsilon()}
                                            : std::numeric_limits<double>::epsilon();
  }
  if (const Json* e = c.attr("eps")) {
    const Scalar eps = Scalar::of_float(read_finite_number(c.site, *e, ".eps"));
    if (!scalar_fits(eps, x.dtype))
      c.site.fail(".eps", "eps " + scalar_str(eps) + " is out of the range of " + dt_str(x.dtype));
    v.attrs.eps = eps.as_double();
  }
}

void infer_linear(const NodeCtx& c, Value& v) {
  check_matmul_operand(c, 0);
  const Value& x = c.value(0);
  const Value& w = c.value(1);
  if (w.shape.size() != 1 && w.shape.size() != 2)
    c.site.fail(c.arg_path(1), "the weight of linear is 1-d or 2-d, got " + shape_str(w.shape));
  check_same_dtype(c, 1, x.dtype);
  int64_t in = w.shape.back();
  if (x.shape.back() != in)
    c.site.fail("", "linear size mismatch: input " + shape_str(x.shape) + " and weight " +
                        shape_str(w.shape) + " (" + std::to_string(x.shape.back()) +
                        " != " + std::to_string(in) + ")");
  v.shape.assign(x.shape.begin(), x.shape.end() - 1);
  if (w.shape.size() == 2) v.shape.push_back(w.shape[0]);
  v.dtype = v.compute_dtype = x.dtype;
  if (c.args.size() > 2 && c.args[2].is_value()) {
    const Value& b = c.value(2);
    check_same_dtype(c, 2, x.dtype);
    std::optional<Shape> s = broadcast_shapes(v.shape, b.shape);
    if (!s || *s != v.shape)
      c.site.fail(c.arg_path(2), "the bias " + shape_str(b.shape) +
                                     " does not broadcast to the output " + shape_str(v.shape));
  }
}

}  // namespace

void infer_creation(const NodeCtx& c, Value& v) {
  if (c.op == Op::Full) return infer_full(c, v);
  infer_arange(c, v);
}

void infer_matmul(const NodeCtx& c, Value& v) {
  check_matmul_operand(c, 0);
  check_matmul_operand(c, 1);
  check_same_dtype(c, 1, c.value(0).dtype);
  v.shape = matmul_shape(c, c.value(0).shape, c.value(1).shape);
  v.dtype = v.compute_dtype = c.value(0).dtype;
}

void infer_composite(const NodeCtx& c, Value& v) {
  if (c.op == Op::Linear) return infer_linear(c, v);
  if (c.op != Op::Softmax && c.op != Op::LogSoftmax && c.op != Op::LayerNorm &&
      c.op != Op::RmsNorm)
    return infer_nn_composite(c, v);
  const Value& x = c.value(0);
  if (c.op == Op::LayerNorm || c.op == Op::RmsNorm) return infer_norm(c, v, x);
  // softmax, log_softmax
  require_float(c, x);
  const Json& j = required(c, "dim");
  auto ndim = static_cast<int64_t>(x.shape.size());
  v.attrs.dim = normalize_dim(c.site, read_dim_list(c.site, j, ".dim", false)[0], ndim, ".dim");
  v.shape = x.shape;
  v.dtype = v.compute_dtype = x.dtype;
}

}  // namespace stax::graph::detail

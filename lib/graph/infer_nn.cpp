// Dtype and shape of the indexing ops (embedding, index_select, gather) and of the composites
// batch_norm, hardswish, hardsigmoid, softplus and elu (graph-format.md "Convolution, pooling,
// normalization, indexing"). Data are floating; indices int32 or int64 (gather: int64), their
// values checked at run time.
#include "frontend_impl.h"

#include <string>

#include "stax/support/error.h"

namespace stax::graph::detail {

namespace {

void require_index_dtype(const NodeCtx& c, std::size_t k, bool int32_ok) {
  const DType dt = c.value(k).dtype;
  if (dt == DType::Int64 || (int32_ok && dt == DType::Int32)) return;
  c.site.fail(c.arg_path(k), "the indices of '" + c.site.op + "' must be " +
                                 (int32_ok ? "int32 or int64" : "int64") + ", got " + dt_str(dt));
}

int64_t read_dim(const NodeCtx& c, const Value& x) {
  const Json* j = c.attr("dim");
  if (j == nullptr) c.site.fail("", "missing key 'dim'");
  const auto ndim = static_cast<int64_t>(x.shape.size());
  return normalize_dim(c.site, read_dim_list(c.site, *j, ".dim", false)[0], ndim, ".dim");
}

void infer_embedding(const NodeCtx& c, Value& v) {
  const Value& w = c.value(0);
  if (w.shape.size() != 2)
    c.site.fail(c.arg_path(0), "the weight of embedding is 2-d [V, D], got " + shape_str(w.shape));
  require_float_data(c, 0);
  require_index_dtype(c, 1, true);
  v.shape = c.value(1).shape;
  v.shape.push_back(w.shape[1]);
  v.dtype = v.compute_dtype = w.dtype;
  v.attrs.dim = 0;
}

void infer_index_select(const NodeCtx& c, Value& v) {
  const Value& x = c.value(0);
  require_float_data(c, 0);
  require_index_dtype(c, 1, true);
  const Value& index = c.value(1);
  if (index.shape.size() != 1)
    c.site.fail(c.arg_path(1), "the index of index_select is 1-d, got " + shape_str(index.shape));
  v.attrs.dim = read_dim(c, x);
  v.shape = x.shape;
  if (!x.shape.empty()) {
    v.shape[static_cast<std::size_t>(v.attrs.dim)] = index.shape[0];
  } else if (index.shape[0] != 1) {  // a 0-d input stays 0-d: one index (PyTorch 2.x)
    c.site.fail(c.arg_path(1), "the index of a 0-d input has 1 element, got " + shape_str(index.shape));
  }
  v.dtype = v.compute_dtype = x.dtype;
}

void infer_gather(const NodeCtx& c, Value& v) {
  const Value& x = c.value(0);
  require_float_data(c, 0);
  require_index_dtype(c, 1, false);
  const Value& index = c.value(1);
  if (index.shape.size() != x.shape.size())
    c.site.fail(c.arg_path(1), "the index of gather must have the input's rank " +
                                   std::to_string(x.shape.size()) + ", got " +
                                   shape_str(index.shape));
  v.attrs.dim = read_dim(c, x);
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    if (static_cast<int64_t>(d) == v.attrs.dim || index.shape[d] <= x.shape[d]) continue;
    c.site.fail(c.arg_path(1), "index " + shape_str(index.shape) + " is larger than the input " +
                                   shape_str(x.shape) + " in dim " + std::to_string(d) +
                                   " (only dim " + std::to_string(v.attrs.dim) + " may be)");
  }
  v.shape = index.shape;
  v.dtype = v.compute_dtype = x.dtype;
}

// ---- composites ---------------------------------------------------------------------------

// eps as layer_norm reads it: a finite number within the range of x's dtype.
double read_eps(const NodeCtx& c, DType dt, double fallback) {
  const Json* e = c.attr("eps");
  if (e == nullptr) return fallback;
  const Scalar eps = Scalar::of_float(read_finite_number(c.site, *e, ".eps"));
  if (!scalar_fits(eps, dt))
    c.site.fail(".eps", "eps " + scalar_str(eps) + " is out of the range of " + dt_str(dt));
  return eps.f;
}

double finite_attr(const NodeCtx& c, std::string_view key, double fallback) {
  const Json* j = c.attr(key);
  return j == nullptr ? fallback : read_finite_number(c.site, *j, "." + std::string(key));
}

// x [N, C, ...]; running_mean, running_var and the optional weight and bias [C], of x's dtype.
void infer_batch_norm(const NodeCtx& c, Value& v) {
  const Value& x = c.value(0);
  require_float_data(c, 0);
  if (x.shape.size() < 2)
    c.site.fail(c.arg_path(0), "batch_norm needs an input [N, C, ...] of at least 2 dims, got " +
                                   shape_str(x.shape));
  const char* const what[] = {"", "running_mean", "running_var", "the weight", "the bias"};
  const Shape want{x.shape[1]};
  for (std::size_t k = 1; k < c.args.size(); ++k) {
    if (c.args[k].is_none()) continue;  // weight or bias (check_args refused the others)
    const Value& p = c.value(k);
    if (p.shape != want)
      c.site.fail(c.arg_path(k), std::string(what[k]) + " has shape " + shape_str(p.shape) +
                                     ", expected " + shape_str(want) + " (one per channel)");
    if (p.dtype != x.dtype)
      c.site.fail(c.arg_path(k), std::string(what[k]) + " must have the input's dtype " +
                                     dt_str(x.dtype) + ", got " + dt_str(p.dtype));
  }
  if (const Json* t = c.attr("training"); t != nullptr && read_bool(c.site, *t, ".training"))
    c.site.fail(".training", "only the inference form of batch_norm (training: false) is supported");
  v.attrs.eps = read_eps(c, x.dtype, 1e-5);
  v.shape = x.shape;
  v.dtype = v.compute_dtype = x.dtype;
}

}  // namespace

void infer_indexing(const NodeCtx& c, Value& v) {
  if (c.op == Op::Embedding) return infer_embedding(c, v);
  if (c.op == Op::IndexSelect) return infer_index_select(c, v);
  infer_gather(c, v);
}

void infer_nn_composite(const NodeCtx& c, Value& v) {
  if (c.op == Op::BatchNorm) return infer_batch_norm(c, v);
  // hardswish, hardsigmoid, softplus, elu: elementwise on floating data.
  const Value& x = c.value(0);
  if (!is_floating(x.dtype))
    c.site.fail(c.arg_path(0), "op '" + c.site.op + "' needs a floating-point tensor, got " +
                                   dt_str(x.dtype));
  v.shape = x.shape;
  v.dtype = v.compute_dtype = x.dtype;
  v.attrs.beta = finite_attr(c, "beta", 1.0);
  v.attrs.threshold = finite_attr(c, "threshold", 20.0);
  v.attrs.alpha = finite_attr(c, "alpha", 1.0);
}

}  // namespace stax::graph::detail

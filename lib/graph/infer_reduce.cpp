// Dtype and shape of reductions, argmax/argmin and scans (graph-format.md "Reductions",
// "Scans", "Precise rules": dim lists, keepdim, negative dims, sum/prod of bool or int32 ->
// int64, float-only mean/var/std/logsumexp).
#include "frontend_impl.h"

#include <algorithm>

#include "stax/support/error.h"

namespace stax::graph::detail {

namespace {

// Normalized, sorted, unique dims of `dim` (an int or a list), or every dim when absent.
std::vector<int64_t> reduction_dims(const NodeCtx& c, int64_t ndim) {
  std::vector<int64_t> dims;
  const Json* j = c.attr("dim");
  if (j == nullptr) {
    for (int64_t d = 0; d < ndim; ++d) dims.push_back(d);
    return dims;
  }
  std::vector<int64_t> raw = read_dim_list(c.site, *j, ".dim", true);
  for (std::size_t k = 0; k < raw.size(); ++k) {
    std::string sub = j->is_array() ? ".dim[" + std::to_string(k) + "]" : ".dim";
    int64_t d = normalize_dim(c.site, raw[k], ndim, sub);
    if (std::find(dims.begin(), dims.end(), d) != dims.end())
      c.site.fail(sub, "dim " + std::to_string(d) + " appears more than once");
    dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end());
  if (ndim == 0) dims.clear();  // a 0-d tensor has no dims to name
  return dims;
}

bool read_keepdim(const NodeCtx& c) {
  const Json* j = c.attr("keepdim");
  return j != nullptr && read_bool(c.site, *j, ".keepdim");
}

Shape reduced_shape(const Shape& in, const std::vector<int64_t>& dims, bool keepdim) {
  Shape out;
  for (std::size_t d = 0; d < in.size(); ++d) {
    bool reduced = std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
    if (!reduced)
      out.push_back(in[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

// sum, prod, cumsum, cumprod: bool and int32 accumulate and return int64.
DType widened_int(DType dt) {
  return dt == DType::Bool || dt == DType::Int32 ? DType::Int64 : dt;
}

void require_float(const NodeCtx& c, DType dt) {
  if (!is_floating(dt))
    c.site.fail(c.arg_path(0), "op '" + c.site.op + "' needs a floating-point tensor, got " +
                                   dt_str(dt));
}

void infer_reduce(const NodeCtx& c, Value& v, const Value& x) {
  auto ndim = static_cast<int64_t>(x.shape.size());
  v.attrs.dims = reduction_dims(c, ndim);
  v.attrs.keepdim = read_keepdim(c);
  v.shape = reduced_shape(x.shape, v.attrs.dims, v.attrs.keepdim);
  Op op = c.op;
  if (op == Op::Sum || op == Op::Prod) {
    v.dtype = v.compute_dtype = widened_int(x.dtype);
  } else if (op == Op::Any || op == Op::All) {
    v.dtype = DType::Bool;
    v.compute_dtype = x.dtype;
  } else if (op == Op::Amax || op == Op::Amin) {
    v.dtype = v.compute_dtype = x.dtype;
  } else {  // mean, var, std, logsumexp
    require_float(c, x.dtype);
    v.dtype = v.compute_dtype = x.dtype;
  }
  if (op == Op::Var || op == Op::Std) {
    if (const Json* corr = c.attr("correction")) {
      if (!corr->is_number())
        c.site.fail(".correction", "expected an int or float, got " + json_brief(*corr));
      v.attrs.correction = read_number(c.site, *corr, ".correction");
    }
  }
}

void infer_argreduce(const NodeCtx& c, Value& v, const Value& x) {
  if (x.dtype == DType::Bool)
    c.site.fail(c.arg_path(0), "op '" + c.site.op + "' does not accept bool");
  auto ndim = static_cast<int64_t>(x.shape.size());
  v.attrs.keepdim = read_keepdim(c);
  v.dtype = DType::Int64;
  v.compute_dtype = x.dtype;
  const Json* j = c.attr("dim");
  if (j == nullptr) {
    // Over the flattened input; keepdim keeps every dim as 1.
    v.attrs.has_dim = false;
    for (int64_t d = 0; d < ndim; ++d) v.attrs.dims.push_back(d);
    v.shape = v.attrs.keepdim ? Shape(x.shape.size(), 1) : Shape{};
    return;
  }
  int64_t d = normalize_dim(c.site, read_dim_list(c.site, *j, ".dim", false)[0], ndim, ".dim");
  v.attrs.has_dim = true;
  v.attrs.dim = d;
  if (ndim > 0) v.attrs.dims = {d};
  v.shape = reduced_shape(x.shape, v.attrs.dims, v.attrs.keepdim);
}

void infer_scan(const NodeCtx& c, Value& v, const Value& x) {
  const Json* j = c.attr("dim");
  if (j == nullptr) c.site.fail("", "missing key 'dim'");
  auto ndim = static_cast<int64_t>(x.shape.size());
  v.attrs.dim = normalize_dim(c.site, read_dim_list(c.site, *j, ".dim", false)[0], ndim, ".dim");
  v.shape = x.shape;
  v.dtype = v.compute_dtype = widened_int(x.dtype);
}

}  // namespace

void infer_reduction(const NodeCtx& c, Value& v) {
  const Value& x = c.value(0);
  switch (op_category(c.op)) {
    case OpCategory::Reduction: infer_reduce(c, v, x); return;
    case OpCategory::ArgReduce: infer_argreduce(c, v, x); return;
    case OpCategory::Scan: infer_scan(c, v, x); return;
    case OpCategory::Unary:
    case OpCategory::UnaryFloat:
    case OpCategory::UnaryPred:
    case OpCategory::Binary:
    case OpCategory::Compare:
    case OpCategory::Logical:
    case OpCategory::Where:
    case OpCategory::Cast:
    case OpCategory::Creation:
    case OpCategory::View:
    case OpCategory::Concat:
    case OpCategory::Pad:
    case OpCategory::Composite:
    case OpCategory::Matmul:
    case OpCategory::Conv:
    case OpCategory::Pool:
    case OpCategory::Indexing: break;
  }
  STAX_ASSERT(false, "infer_reduction called for another op");
}

}  // namespace stax::graph::detail

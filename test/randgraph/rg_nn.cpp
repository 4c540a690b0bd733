// Generators of batch_norm, the activations hardswish, hardsigmoid, softplus and elu, and the
// indexing ops embedding, index_select and gather, whose indices are made to lie in range.
#include "rg_internal.h"

#include <algorithm>
#include <cmath>

namespace stax::randgraph::detail {

namespace {

double hardsigmoid_d(double x) { return std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0; }
double hardswish_d(double x) { return x * hardsigmoid_d(x); }

std::optional<Val> float_operand(Gen& g, int min_rank) {
  auto pred = [&](const Val& v) { return !v.scalar && is_float(v.dtype) && v.finite && v.rank() >= min_rank; };
  return g.operand(pred, kFloat, min_rank);
}

// A copy of some of x's elements: bounds, finiteness and exactness carry over.
Val elements_of(const Val& x, const Shape& shape) {
  Val r = like(x.dtype, shape, x.lo, x.hi);
  r.finite = x.finite;
  r.exact = x.exact;
  return r;
}

// An int tensor of `shape` whose elements all lie in [0, size): an int value of that shape (from
// the pool or a fresh leaf), brought into range by clamp or remainder when it may leave it.
std::optional<Val> indices(Gen& g, const Shape& shape, int64_t size, bool int64_only) {
  std::vector<DType> dts = g.dtypes_in(kInt);
  if (int64_only) dts = g.allowed(DType::Int64) ? std::vector<DType>{DType::Int64} : std::vector<DType>{};
  if (dts.empty()) return std::nullopt;
  auto pred = [&](const Val& v) {
    return !v.scalar && v.shape == shape && std::find(dts.begin(), dts.end(), v.dtype) != dts.end();
  };
  std::optional<Val> v;
  if (g.rng.chance(0.4)) v = g.pick(pred);
  if (!v) v = g.leaf(g.rng.pick(dts), shape);
  if (v->lo >= 0 && v->hi <= static_cast<double>(size - 1)) return v;
  Val r = like(v->dtype, shape, std::max(v->lo, 0.0), std::min(v->hi, static_cast<double>(size - 1)));
  if (r.lo > r.hi) r.lo = r.hi = std::clamp(v->lo, 0.0, static_cast<double>(size - 1));
  if (g.opt.int_division && g.rng.chance(0.5)) {
    r.lo = 0;
    r.hi = static_cast<double>(size - 1);
    return g.emit("remainder", {g.use(*v), g.use(g.lit_int(size))}, Json::object(), r, Mode::Maybe);
  }
  Json attrs = Json::object();
  attrs["min"] = 0;
  attrs["max"] = size - 1;
  return g.emit("clamp", {g.use(*v)}, attrs, r, Mode::Maybe);
}

}  // namespace

bool gen_activation(Gen& g, const std::string& op) {
  std::optional<Val> xo = float_operand(g, 0);
  if (!xo) return false;
  const Val x = *xo;
  Json attrs = Json::object();
  Val r = like(x.dtype, x.shape, 0, 0);
  r.exact = 0;
  if (op == "hardswish") {
    r.lo = (x.lo <= -1.5 && x.hi >= -1.5) ? -0.375 : std::min(hardswish_d(x.lo), hardswish_d(x.hi));
    r.hi = std::max(hardswish_d(x.lo), hardswish_d(x.hi));
  } else if (op == "hardsigmoid") {
    r.lo = hardsigmoid_d(x.lo);
    r.hi = hardsigmoid_d(x.hi);
  } else if (op == "softplus") {
    // Powers of two: x * beta is exact. A threshold other than 20 makes a visible jump
    // (log1p(exp(-t)) / beta): only for operands every implementation computes alike.
    const double betas[] = {1.0, 2.0, 0.5};
    const double beta = betas[g.rng.range(0, 2)];
    if (beta != 1.0 || g.rng.chance(0.3)) attrs["beta"] = beta == 2.0 && g.rng.chance(0.5) ? Json(2) : Json(beta);
    if (x.exact == 2 && g.rng.chance(0.5)) attrs["threshold"] = g.rng.range(1, 5);
    r.lo = 0;
    r.hi = std::max(x.hi, 0.0) + std::log(2.0) / beta;
  } else {  // elu
    const double alphas[] = {1.0, 0.5, 1.7, 2.0};
    const double alpha = alphas[g.rng.range(0, 3)];
    if (alpha != 1.0 || g.rng.chance(0.3)) attrs["alpha"] = alpha;
    auto elu = [alpha](double v) { return v < 0 ? alpha * std::expm1(v) : v; };
    r.lo = elu(x.lo);
    r.hi = elu(x.hi);
  }
  g.finish(op, {g.use(x)}, attrs, r);
  return true;
}

bool gen_batch_norm(Gen& g, const std::string& op) {
  std::optional<Val> xo = float_operand(g, 2);
  if (!xo) return false;
  const Val x = g.bounded(*xo, 100, false);
  const Shape c{x.shape[1]};
  Val mean = param(g, x.dtype, c, 3);
  Val var = g.positive(param(g, x.dtype, c, 3), 0.25, false);
  std::vector<Json> args{g.use(x), g.use(mean), g.use(var)};
  double wm = 1, bm = 0;
  const bool weight = g.rng.chance(0.6), bias = g.rng.chance(0.5);
  if (weight) {
    Val w = param(g, x.dtype, c, 3);
    wm = w.mag();
    args.push_back(g.use(w));
  } else if (bias || g.rng.chance(0.2)) {
    args.push_back(nullptr);
  }
  if (bias) {
    Val b = param(g, x.dtype, c, 3);
    bm = b.mag();
    args.push_back(g.use(b));
  } else if (g.rng.chance(0.2)) {
    args.push_back(nullptr);
  }
  Json attrs = Json::object();
  if (g.rng.chance(0.4)) {
    const double eps[] = {1e-5, 1e-3, 0.1};
    attrs["eps"] = eps[g.rng.range(0, 2)];
  }
  if (g.rng.chance(0.1)) attrs["training"] = false;
  const double m = (x.mag() + mean.mag()) / std::sqrt(var.lo) * wm + bm;
  Val r = like(x.dtype, x.shape, -m, m);
  r.exact = 0;
  g.finish(op, args, attrs, r);
  return true;
}

bool gen_indexing(Gen& g, const std::string& op) {
  if (op == "embedding") {
    auto pred = [&](const Val& v) { return !v.scalar && is_float(v.dtype) && v.rank() == 2; };
    std::optional<Val> wo = g.operand(pred, kFloat, 2);
    if (!wo || !pred(*wo)) return false;
    Shape is = g.random_shape(0, std::max(0, g.opt.max_rank - 1));
    Shape out = is;
    out.push_back(wo->shape[1]);
    if (!g.fits(out)) return false;
    std::optional<Val> idx = indices(g, is, wo->shape[0], false);
    if (!idx) return false;
    g.finish(op, {g.use(*wo), g.use(*idx)}, Json::object(), elements_of(*wo, out));
    return true;
  }
  auto pred = [&](const Val& v) { return !v.scalar && is_float(v.dtype); };
  std::optional<Val> xo = g.operand(pred, kFloat);
  if (!xo || !pred(*xo)) return false;
  const Val x = *xo;
  const int r = x.rank();
  const int64_t dim = r == 0 ? (g.rng.chance(0.5) ? 0 : -1) : random_dim(g, r);
  const auto d = static_cast<std::size_t>(norm_dim(dim, std::max(r, 1)));
  const int64_t size = r == 0 ? 1 : x.shape[d];
  Shape is, out = x.shape;
  if (op == "index_select") {  // a 0-d x takes one index
    is = {r == 0 ? 1 : g.rng.range(1, g.opt.max_dim)};
    if (r > 0) out[d] = is[0];
  } else {  // gather: any size along dim, at most x's elsewhere
    is = x.shape;
    for (std::size_t k = 0; k < is.size(); ++k) is[k] = k == d ? g.rng.range(1, g.opt.max_dim) : g.rng.range(1, x.shape[k]);
    out = is;
  }
  if (!g.fits(out) || !g.fits(is)) return false;
  std::optional<Val> idx = indices(g, is, size, op == "gather");
  if (!idx) return false;
  Json attrs = Json::object();
  attrs["dim"] = dim;
  g.finish(op, {g.use(x), g.use(*idx)}, attrs, elements_of(x, out));
  return true;
}

}  // namespace stax::randgraph::detail

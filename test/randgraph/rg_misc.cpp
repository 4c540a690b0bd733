// Generators of creation ops (full, arange), composites (softmax, log_softmax, layer_norm,
// rms_norm, linear) and matmul.
#include "rg_internal.h"

#include <algorithm>
#include <cmath>

namespace stax::randgraph::detail {

bool gen_full(Gen& g, const std::string& op) {
  DType dt = g.rng.pick(g.opt.dtypes);
  Shape s = g.random_shape();
  Json attrs = Json::object();
  attrs["shape"] = shape_json(s);
  Val r = like(dt, s, 0, 0);
  if (is_float(dt)) {
    if (g.nonfinite_ok() && g.rng.chance(0.1)) {
      const char* nf[] = {"inf", "-inf", "nan"};
      attrs["value"] = nf[g.rng.range(0, 2)];
      r.finite = false;
    } else if (g.rng.chance(0.25)) {
      r.lo = r.hi = static_cast<double>(g.rng.range(-5, 5));
      attrs["value"] = static_cast<int64_t>(r.lo);
      attrs["dtype"] = std::string(dtype_name(dt));
    } else {
      r.lo = r.hi = static_cast<double>(g.rng.range(-20, 20)) / 8.0;
      attrs["value"] = r.lo;
    }
    if (!attrs.contains("dtype") && (dt == DType::Float64 || g.rng.chance(0.4)))
      attrs["dtype"] = std::string(dtype_name(dt));
  } else if (dt == DType::Bool) {
    bool b = g.rng.chance(0.5);
    r.lo = r.hi = b ? 1 : 0;
    attrs["value"] = b;
    if (g.rng.chance(0.4)) attrs["dtype"] = "bool";
  } else {
    r.lo = r.hi = static_cast<double>(g.rng.range(-8, 8));
    attrs["value"] = static_cast<int64_t>(r.lo);
    if (dt == DType::Int32 || g.rng.chance(0.4)) attrs["dtype"] = std::string(dtype_name(dt));
  }
  g.finish(op, {}, attrs, r);
  return true;
}

bool gen_arange(Gen& g, const std::string& op) {
  int64_t n = g.rng.range(1, std::min<int64_t>(2 * g.opt.max_dim, g.opt.max_numel));
  Json attrs = Json::object();
  DType dt;
  double first, last;
  if (g.rng.chance(0.6)) {
    int64_t start = g.rng.chance(0.4) ? 0 : g.rng.range(-5, 5);
    const int64_t steps[] = {1, 1, 1, 2, 3, -1, -2};
    int64_t step = steps[g.rng.range(0, 6)];
    int64_t lastv = start + step * (n - 1);
    int64_t end = step > 0 ? lastv + g.rng.range(1, step) : lastv - g.rng.range(1, -step);
    if (start != 0 || step != 1 || g.rng.chance(0.3)) attrs["start"] = start;
    attrs["end"] = end;
    if (step != 1 || g.rng.chance(0.3)) attrs["step"] = step;
    const DType dts[] = {DType::Int64, DType::Int32, DType::Float32, DType::Float64};
    dt = g.rng.chance(0.5) ? DType::Int64 : dts[g.rng.range(0, 3)];
    if (dt != DType::Int64 || g.rng.chance(0.3)) attrs["dtype"] = std::string(dtype_name(dt));
    first = static_cast<double>(start);
    last = static_cast<double>(lastv);
  } else {
    // Quarter multiples: every element and the length are exact in float32.
    double start = static_cast<double>(g.rng.range(-8, 8)) / 4.0;
    const double steps[] = {0.5, 0.25, 1.5, -0.5, 0.75, 1.0};
    double step = steps[g.rng.range(0, 5)];
    double lastv = start + step * static_cast<double>(n - 1);
    attrs["start"] = start;
    attrs["end"] = lastv + step / 2;
    if (step != 1.0 || g.rng.chance(0.5)) attrs["step"] = step;
    dt = g.rng.chance(0.7) ? DType::Float32 : DType::Float64;
    if (dt == DType::Float64 || g.rng.chance(0.3)) attrs["dtype"] = std::string(dtype_name(dt));
    first = start;
    last = lastv;
  }
  if (!g.allowed(dt)) return false;
  Val r = like(dt, {n}, std::min(first, last), std::max(first, last));
  r.varied = n > 1;
  g.finish(op, {}, attrs, r);
  return true;
}

bool gen_softmax(Gen& g, const std::string& op) {
  bool nf = g.nonfinite_ok();
  auto pred = [&](const Val& v) { return !v.scalar && is_float(v.dtype) && (v.finite || nf); };
  auto xo = g.operand(pred, kFloat);
  if (!xo) return false;
  Val x = *xo;
  // An error d in a logit becomes a relative error d in every probability: logits that are not
  // bit-exact stay small, so float32 rounding (~6e-8 * |logit|) stays below 1e-5.
  if (x.exact == 0 && x.finite && x.mag() > 20) x = g.bounded(x, 20, false);
  int r = x.rank();
  int64_t d = r == 0 ? (g.rng.chance(0.5) ? 0 : -1) : random_dim(g, r);
  double n = r == 0 ? 1 : static_cast<double>(x.shape[static_cast<std::size_t>(norm_dim(d, r))]);
  Val res = like(x.dtype, x.shape, 0, 1);
  if (op == "log_softmax") {
    res.lo = -(x.hi - x.lo) - std::log(n) - 1;
    res.hi = 0;
  }
  res.finite = x.finite;
  res.exact = 0;
  Json attrs = Json::object();
  attrs["dim"] = d;
  g.finish(op, {g.use(x)}, attrs, res);
  return true;
}

namespace {

// A tensor of this dtype and shape from the pool, or a fresh leaf; finite, |v| <= bound.
Val param_like(Gen& g, DType dt, const Shape& s, double bound) {
  auto same = [&](const Val& v) { return !v.scalar && v.dtype == dt && v.shape == s && v.finite; };
  std::optional<Val> p;
  if (g.rng.chance(0.4)) p = g.pick(same);
  Val v = p ? *p : g.leaf(dt, s);
  return g.bounded(v, bound, false);
}

}  // namespace

bool gen_norm(Gen& g, const std::string& op) {
  bool ln = op == "layer_norm";
  // float32 layer_norm cancels catastrophically on nearly constant rows: varied values only.
  // float32 rms_norm magnifies rows of tiny values: bit-exact or varied values only.
  auto pred = [&](const Val& v) {
    if (v.scalar || !is_float(v.dtype) || v.rank() < 1 || !v.finite) return false;
    if (ln && v.dtype == DType::Float32 && (!v.varied || v.shape.back() < 4)) return false;
    if (!ln && v.dtype == DType::Float32 && !v.varied && v.exact == 0) return false;
    return true;
  };
  auto xo = g.operand(pred, kFloat, 1);
  if (!xo) return false;
  Val x = *xo;
  int r = x.rank();
  int k = static_cast<int>(g.rng.range(1, std::min(r, 2)));
  Shape ns(x.shape.end() - k, x.shape.end());
  Json attrs = Json::object();
  attrs["normalized_shape"] = k == 1 && g.rng.chance(0.5) ? Json(ns[0]) : shape_json(ns);
  std::vector<Json> args{g.use(x)};
  double wm = 1, bm = 0;
  bool weight = g.rng.chance(0.6);
  bool bias = ln && g.rng.chance(0.5);
  if (weight) {
    Val w = param_like(g, x.dtype, ns, 3);
    wm = w.mag();
    args.push_back(g.use(w));
  } else if (bias) {
    args.push_back(nullptr);
  }
  if (bias) {
    Val b = param_like(g, x.dtype, ns, 3);
    bm = b.mag();
    args.push_back(g.use(b));
  }
  if (g.rng.chance(0.4)) {
    const double eps[] = {1e-5, 1e-6, 1e-3};
    attrs["eps"] = eps[g.rng.range(0, 2)];
  }
  double z = std::sqrt(static_cast<double>(shape_numel(ns)));
  Val res = like(x.dtype, x.shape, -(z * wm + bm), z * wm + bm);
  res.exact = 0;
  g.finish(op, args, attrs, res);
  return true;
}

bool gen_linear(Gen& g, const std::string& op) {
  std::vector<DType> fl = g.dtypes_in(kFloat), in = g.dtypes_in(kInt);
  if (fl.empty() && in.empty()) return false;
  bool use_float = !fl.empty() && (in.empty() || g.rng.chance(0.85));
  unsigned mask = use_float ? kFloat : kInt;
  auto pred = [&](const Val& v) { return !v.scalar && accepts(mask, v.dtype) && v.rank() >= 1; };
  auto xo = g.operand(pred, mask, 1);
  if (!xo) return false;
  double bound = use_float ? 6 : 4;
  Val x = g.bounded(*xo, bound, false);
  int64_t k = x.shape.back();
  int64_t out = g.rng.range(1, g.opt.max_dim);
  Shape rs = x.shape;
  rs.back() = out;
  if (!g.fits(rs)) return false;
  Val w = param_like(g, x.dtype, {out, k}, bound);
  std::vector<Json> args{g.use(x), g.use(w)};
  double bm = 0;
  int64_t b = g.rng.range(0, 9);
  if (b < 5) {
    Val bias = param_like(g, x.dtype, {out}, bound);
    bm = bias.mag();
    args.push_back(g.use(bias));
  } else if (b == 5) {
    args.push_back(nullptr);
  }
  double m = static_cast<double>(k) * x.mag() * w.mag() + bm;
  Val res = like(x.dtype, rs, -m, m);
  res.exact = use_float ? 0 : 2;
  if (!range_ok(res.dtype, res.lo, res.hi)) return false;
  g.finish(op, args, Json::object(), res);
  return true;
}

bool gen_matmul(Gen& g, const std::string& op) {
  auto pred = [&](const Val& v) { return !v.scalar && v.dtype != DType::Bool && v.rank() >= 1 && v.finite; };
  auto ao = g.operand(pred, kNum, 1);
  if (!ao) return false;
  double bound = is_float(ao->dtype) ? 6 : 4;
  Val a = g.bounded(*ao, bound, false);
  int ra = a.rank();
  int64_t k = a.shape.back();
  int64_t n = g.rng.range(1, g.opt.max_dim);
  int64_t c = g.rng.range(0, 2);
  Shape bs, out;
  if (ra == 1) {
    if (c == 0) {
      bs = {k};
    } else {
      bs = {k, n};
      out = {n};
      if (c == 2) {
        int64_t batch = g.rng.range(1, 4);
        bs.insert(bs.begin(), batch);
        out.insert(out.begin(), batch);
      }
    }
  } else {
    Shape batch(a.shape.begin(), a.shape.end() - 2);
    int64_t m = a.shape[static_cast<std::size_t>(ra - 2)];
    if (c == 0) {
      bs = {k};
      out = batch;
      out.push_back(m);
    } else {
      Shape bb = c == 2 ? g.broadcast_partner(batch) : Shape{};
      auto ob = broadcast_shapes(batch, bb);
      if (!ob) return false;
      bs = bb;
      bs.push_back(k);
      bs.push_back(n);
      out = *ob;
      out.push_back(m);
      out.push_back(n);
    }
  }
  if (!g.fits(bs) || !g.fits(out)) return false;
  auto same = [&](const Val& v) { return !v.scalar && v.shape == bs && v.finite && v.dtype != DType::Bool; };
  std::optional<Val> bo;
  if (g.rng.chance(0.5)) bo = g.pick(same);
  Val b = bo ? *bo : g.leaf(a.dtype, bs);
  if (b.dtype != a.dtype) {
    Val cast = like(a.dtype, b.shape, std::trunc(b.lo), std::trunc(b.hi));
    if (is_float(a.dtype)) cast.lo = b.lo, cast.hi = b.hi;
    if (is_float(b.dtype) && !is_float(a.dtype) && b.exact < 1) return false;
    Json attrs = Json::object();
    attrs["dtype"] = std::string(dtype_name(a.dtype));
    b = g.emit("to", {g.use(b)}, attrs, cast, Mode::Maybe);
  }
  b = g.bounded(b, bound, false);
  double mag = static_cast<double>(k) * a.mag() * b.mag();
  Val res = like(a.dtype, out, -mag, mag);
  res.exact = is_float(a.dtype) ? 0 : 2;
  if (!range_ok(res.dtype, res.lo, res.hi)) return false;
  g.finish(op, {g.use(a), g.use(b)}, Json::object(), res);
  return true;
}

}  // namespace stax::randgraph::detail

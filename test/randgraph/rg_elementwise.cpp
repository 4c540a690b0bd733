// Generators of elementwise nodes: unary ops, clamp, arithmetic, division, pow, atan2, bitwise,
// comparisons, logical ops, where and to. Each brings its operands into the op's domain first.
#include "rg_internal.h"

#include <algorithm>
#include <cmath>

namespace stax::randgraph::detail {

namespace {

// Ops whose result jumps: float operands must be bit-exact.
bool jumps(const std::string& op) {
  return among(op, {"sign", "floor", "ceil", "round", "trunc", "logical_not"});
}

// Ops that propagate inf/nan the same way in every implementation.
bool nonfinite_safe(const std::string& op) {
  return among(op, {"neg", "abs", "relu", "isnan", "isinf", "isfinite", "logical_not", "exp", "tanh",
                    "sigmoid", "floor", "ceil", "trunc", "round"});
}

DType unary_result_dtype(const std::string& op, DType dt) {
  if (among(op, {"logical_not", "isnan", "isinf", "isfinite"})) return DType::Bool;
  if (among(op, {"neg", "abs", "sign", "relu", "floor", "ceil", "round", "trunc", "bitwise_not",
                 "leaky_relu", "gelu", "silu"}))
    return dt;
  return is_float(dt) ? dt : DType::Float32;
}

unsigned unary_mask(const std::string& op) {
  unsigned m = 0;
  if (unary_accepts(op, DType::Bool)) m |= kBool;
  if (unary_accepts(op, DType::Int32)) m |= kInt;
  if (unary_accepts(op, DType::Float32)) m |= kFloat;
  return m;
}

// A second operand for a binary op with `a`: a literal, a pool value or a fresh leaf whose
// shape broadcasts with a's. `need_exact`: float operands bit-exact (see Val::exact).
Val partner(Gen& g, const Val& a, unsigned mask, bool need_exact, bool allow_nonfinite, double p_literal = 0.25) {
  if (g.rng.chance(p_literal)) return g.random_literal(mask, need_exact, allow_nonfinite);
  if (g.rng.chance(0.05) && accepts(mask, a.dtype) && !a.is_inline()) return a;
  auto compatible = [&](const Val& v) {
    if (v.scalar || !accepts(mask, v.dtype)) return false;
    if (need_exact && !float_ok(v)) return false;
    if (!v.finite && !allow_nonfinite) return false;
    auto b = broadcast_shapes(a.shape, v.shape);
    return b && g.fits(*b);
  };
  if (g.rng.chance(0.55))
    if (auto v = g.pick(compatible)) return *v;
  std::vector<DType> dts = g.dtypes_in(mask);
  if (dts.empty()) return g.random_literal(mask, need_exact, allow_nonfinite);
  // Mostly the same dtype, sometimes another one to exercise promotion.
  DType dt = accepts(mask, a.dtype) && !a.scalar && g.rng.chance(0.6) ? a.dtype : g.rng.pick(dts);
  return g.leaf(dt, g.broadcast_partner(a.shape));
}

void maybe_swap(Gen& g, Val& a, Val& b) {
  if (g.rng.chance(0.3)) std::swap(a, b);
}

double clamp_d(double v, double lo, double hi) { return std::min(std::max(v, lo), hi); }

}  // namespace

bool gen_unary(Gen& g, const std::string& op) {
  bool nf = nonfinite_safe(op);
  bool needs_positive = among(op, {"log", "log2", "log10", "rsqrt", "reciprocal"});
  auto pred = [&](const Val& v) {
    if (v.scalar || !unary_accepts(op, v.dtype)) return false;
    if (!g.allowed(unary_result_dtype(op, v.dtype))) return false;
    if (jumps(op) && !float_ok(v)) return false;
    if (needs_positive && v.dtype == DType::Bool) return false;
    return true;
  };
  unsigned mask = unary_mask(op);
  if (needs_positive) mask &= ~static_cast<unsigned>(kBool);
  // Predicates are most interesting on values that may hold inf/nan.
  std::optional<Val> xo;
  if (among(op, {"isnan", "isinf", "isfinite"}) && g.rng.chance(0.5))
    xo = g.pick([&](const Val& v) { return pred(v) && !v.finite; });
  if (!xo) xo = g.operand(pred, mask);
  if (!xo) return false;
  Val x = *xo;
  bool exactish = !is_float(x.dtype) || x.exact >= 1;
  // NaN/inf on purpose: a domain error on an exact operand gives the same nan/inf everywhere.
  bool raw_domain = g.nonfinite_ok() && exactish && g.rng.chance(0.15);
  if (!x.finite && !nf && !raw_domain) x = g.sanitize(x);
  if (op == "exp" || op == "expm1" || op == "cosh" || op == "sinh") {
    if (x.hi > 8 || x.lo < -80) x = g.bounded(x, 4, false);
  } else if (op == "exp2") {
    if (x.hi > 12 || x.lo < -100) x = g.bounded(x, 6, false);
  } else if (op == "log" || op == "log2" || op == "log10" || op == "rsqrt") {
    if (!raw_domain) x = g.positive(x, 0.25, false);
  } else if (op == "reciprocal") {
    if (!raw_domain) x = g.away_from_zero(x, 0.25, false);
  } else if (op == "sqrt") {
    // sqrt magnifies differences near 0 (an error d becomes sqrt(d)): operands that are not
    // bit-exact stay >= 0.25; exact ones may come near 0 (bare abs).
    if (!raw_domain && exactish && x.lo < 0) x = g.rng.chance(0.4) ? g.unary("abs", x) : g.positive(x, 0.0, false);
    if (!raw_domain && !exactish && x.lo < 0.25) x = g.positive(x, 0.25, false);
  } else if (op == "log1p") {
    if (!raw_domain && x.lo < -0.75) x = g.positive(x, 0.0, false);
  } else if (op == "asin" || op == "acos") {
    if (!raw_domain && x.dtype != DType::Bool) x = g.bounded(x, 0.9, false);
  } else if (op == "tan") {
    x = g.bounded(x, 1.2, false);
  } else if (among(op, {"sin", "cos"})) {
    x = g.bounded(x, 100, false);
  }
  Json attrs = Json::object();
  double slope = 0.01;
  if (op == "leaky_relu" && g.rng.chance(0.6)) {
    slope = g.rng.chance(0.5) ? 0.2 : 0.1;
    attrs["negative_slope"] = slope;
  }
  if (op == "gelu" && g.rng.chance(0.6)) attrs["approximate"] = g.rng.chance(0.5) ? "tanh" : "none";
  Val r = infer_unary(op, x, slope);
  if (raw_domain && is_float(r.dtype) && !among(op, {"isnan", "isinf", "isfinite", "logical_not"})) {
    bool in_domain = true;
    if (among(op, {"log", "log2", "log10", "rsqrt"})) in_domain = x.lo > 0;
    if (op == "sqrt") in_domain = x.lo >= 0;
    if (op == "log1p") in_domain = x.lo > -1;
    if (op == "reciprocal") in_domain = x.lo > 0 || x.hi < 0;
    if (op == "asin" || op == "acos") in_domain = x.lo >= -1 && x.hi <= 1;
    if (!in_domain) {
      r.finite = false;
      r.lo = -kFloatCap;
      r.hi = kFloatCap;
    }
  }
  if (r.finite && !range_ok(r.dtype, r.lo, r.hi)) return false;
  g.finish(op, {g.use(x)}, attrs, r);
  return true;
}

bool gen_clamp(Gen& g, const std::string& op) {
  auto pred = [&](const Val& v) { return !v.scalar && v.dtype != DType::Bool; };
  auto xo = g.operand(pred, kNum);
  if (!xo) return false;
  Val x = *xo;
  bool fl = is_float(x.dtype);
  bool float_bounds = fl || (g.allowed(DType::Float32) && g.rng.chance(0.2));
  auto bound = [&](bool is_max) -> Val {
    if (float_bounds && fl && g.nonfinite_ok() && g.rng.chance(0.1)) return g.lit_nonfinite(is_max ? "inf" : "-inf");
    double v = static_cast<double>(g.rng.range(-12, 12)) / 4.0;
    if (!float_bounds) return g.lit_int(static_cast<int64_t>(std::round(v)));
    return g.lit_float(v);
  };
  int64_t which = g.rng.range(0, 2);  // 0: min, 1: max, 2: both
  std::optional<Val> mn, mx;
  if (which != 1) mn = bound(false);
  if (which != 0) mx = bound(true);
  if (mn && mx && mn->finite && mx->finite && mn->lo > mx->lo) std::swap(mn, mx);
  if (mn && mx && !mn->finite && !mx->finite) mx.reset();
  Json attrs = Json::object();
  if (mn) attrs["min"] = mn->ref;
  else if (g.rng.chance(0.2)) attrs["min"] = nullptr;
  if (mx) attrs["max"] = mx->ref;
  else if (g.rng.chance(0.2)) attrs["max"] = nullptr;
  std::vector<const Val*> ops{&x};
  if (mn) ops.push_back(&*mn);
  if (mx) ops.push_back(&*mx);
  double lo_b = mn && mn->finite ? mn->lo : -1e300, hi_b = mx && mx->finite ? mx->lo : 1e300;
  Val r = like(result_type(ops), x.shape, clamp_d(x.lo, lo_b, hi_b), clamp_d(x.hi, lo_b, hi_b));
  if (!g.allowed(r.dtype) || !range_ok(r.dtype, r.lo, r.hi)) return false;
  r.finite = x.finite;
  r.exact = std::min({x.exact, mn ? mn->exact : 2, mx ? mx->exact : 2});
  if (!is_float(r.dtype)) r.exact = 2;
  (void)op;
  g.finish("clamp", {g.use(x)}, attrs, r);
  return true;
}

bool gen_arith(Gen& g, const std::string& op) {
  unsigned mask = op == "sub" ? kNum : kAny;
  bool nf = g.nonfinite_ok();
  auto pred = [&](const Val& v) { return !v.scalar && accepts(mask, v.dtype) && (v.finite || nf); };
  auto ao = g.operand(pred, mask);
  if (!ao) return false;
  Val a = *ao;
  Val b = partner(g, a, mask, false, nf);
  if (b.name == a.name && !a.name.empty()) b = a;
  maybe_swap(g, a, b);
  Val r = infer_binary(op, a, b);
  if (!g.allowed(r.dtype)) return false;
  if (!range_ok(r.dtype, r.lo, r.hi)) {
    double cap = is_float(r.dtype) ? 90 : 4000;
    if (!a.scalar) a = g.bounded(a, cap, false);
    if (!b.scalar) b = g.bounded(b, cap, false);
    r = infer_binary(op, a, b);
    if (!range_ok(r.dtype, r.lo, r.hi)) return false;
  }
  g.finish(op, {g.use(a), g.use(b)}, Json::object(), r);
  return true;
}

namespace {

// True division: float result; divisors kept away from zero unless on purpose.
bool gen_true_div(Gen& g) {
  bool nf = g.nonfinite_ok();
  auto pred = [&](const Val& v) { return !v.scalar && (v.finite || nf); };
  auto ao = g.operand(pred, kAny);
  if (!ao) return false;
  Val a = *ao;
  Val b;
  if (g.rng.chance(0.3)) {
    const double ds[] = {2.0, -4.0, 0.5, 3.0, 1.5, -0.25, 7.0, 0.1};
    b = g.rng.chance(0.3) ? g.lit_int(g.rng.range(1, 5)) : g.lit_float(ds[g.rng.range(0, 7)]);
  } else {
    b = partner(g, a, kAny, false, false, 0.0);
    bool on_purpose = nf && !is_float(a.dtype) && !is_float(b.dtype) && g.rng.chance(0.15);
    if (!on_purpose) b = g.away_from_zero(b, 0.25, false);
  }
  if (a.mag() > 2000) a = g.bounded(a, 1000, false);
  Val r = infer_binary("div", a, b);
  if (!g.allowed(r.dtype)) return false;
  Json attrs = Json::object();
  if (g.rng.chance(0.1)) attrs["rounding_mode"] = nullptr;
  g.finish("div", {g.use(a), g.use(b)}, attrs, r);
  return true;
}

// Integer division or remainder: divisors made nonzero unless zero_divisors.
bool gen_int_div(Gen& g, const std::string& op, const char* mode) {
  auto pred = [&](const Val& v) { return !v.scalar && is_integer(v.dtype); };
  auto ao = g.operand(pred, kInt);
  if (!ao) return false;
  Val a = *ao;
  Val b;
  if (g.rng.chance(0.35)) {
    const int64_t ds[] = {-3, -2, 2, 3, 4, 5, 7, 1};
    b = g.lit_int(ds[g.rng.range(0, 7)]);
    if (g.opt.zero_divisors && g.rng.chance(0.1)) b = g.lit_int(0);
  } else {
    b = partner(g, a, kInt, false, false, 0.0);
    if (!(g.opt.zero_divisors && g.rng.chance(0.5))) b = g.nonzero_int(b);
  }
  if (!b.never_zero()) g.may_divide_by_zero = true;
  if (g.rng.chance(0.1) && !b.scalar) a = g.lit_int(g.rng.range(-9, 9));  // a literal dividend
  DType dt = result_type({&a, &b});
  double m = a.mag();
  Val r = op == "remainder" ? like(dt, broadcast_all({&a, &b}), -b.mag(), b.mag())
                            : like(dt, broadcast_all({&a, &b}), -m, m);
  if (!g.allowed(dt)) return false;
  Json attrs = Json::object();
  if (mode) attrs["rounding_mode"] = mode;
  g.finish(op, {g.use(a), g.use(b)}, attrs, r);
  return true;
}

// Float floor/trunc division or remainder: a jump at every multiple, so exact operands only.
bool gen_float_div(Gen& g, const std::string& op, const char* mode) {
  auto pred = [&](const Val& v) { return !v.scalar && v.dtype != DType::Bool && float_ok(v) && v.finite; };
  auto ao = g.operand(pred, kNum);
  if (!ao) return false;
  Val a = *ao;
  Val b;
  if (g.rng.chance(0.4) || !is_float(a.dtype)) {
    const double ds[] = {2.0, -0.5, 0.25, 1.5, -3.0, 0.75};
    b = g.lit_float(ds[g.rng.range(0, 5)]);
  } else {
    b = partner(g, a, kNum, true, false, 0.0);
    if (b.scalar || !(b.lo >= 0.25 || b.hi <= -0.25)) {
      if (b.scalar || b.exact < 2 || !b.finite) b = g.lit_float(-1.5);
      else b = g.away_from_zero(b, 0.25, true);
    }
  }
  if (!is_float(a.dtype) && !is_float(b.dtype)) return false;
  DType dt = result_type({&a, &b});
  double bmin = std::min(std::fabs(b.lo), std::fabs(b.hi));
  double q = a.mag() / std::max(bmin, 0.25) + 1;
  Val r = op == "remainder" ? like(dt, broadcast_all({&a, &b}), -b.mag(), b.mag())
                            : like(dt, broadcast_all({&a, &b}), -q, q);
  r.exact = 0;
  if (!g.allowed(dt) || !range_ok(dt, r.lo, r.hi)) return false;
  Json attrs = Json::object();
  if (mode) attrs["rounding_mode"] = mode;
  g.finish(op, {g.use(a), g.use(b)}, attrs, r);
  return true;
}

}  // namespace

bool gen_div(Gen& g, const std::string& op) {
  const char* mode = nullptr;
  if (op == "div") {
    int64_t k = g.rng.range(0, 3);
    if (k <= 1) return gen_true_div(g);
    mode = k == 2 ? "floor" : "trunc";
  }
  bool ints = g.opt.int_division && !g.dtypes_in(kInt).empty();
  if (ints && g.rng.chance(0.6)) return gen_int_div(g, op, mode);
  return gen_float_div(g, op, mode);
}

bool gen_pow(Gen& g, const std::string& op) {
  auto pred = [&](const Val& v) { return !v.scalar && v.dtype != DType::Bool; };
  auto xo = g.operand(pred, kNum);
  if (!xo) return false;
  Val x = *xo;
  Val base, ex;
  int64_t path = g.rng.range(0, 3);
  bool floats = !g.dtypes_in(kFloat).empty();
  if (!floats && !is_integer(x.dtype)) return false;
  if (!floats) path = 2;
  if (path == 0) {
    // Positive float base, bounded exponent.
    base = g.positive(g.bounded(g.as_float(x), 3, false), 0.25, false);
    if (g.rng.chance(0.5)) {
      const double es[] = {2.0, 0.5, -1.0, -0.5, 1.5, 3.0, 0.0};
      ex = g.lit_float(es[g.rng.range(0, 6)]);
    } else {
      ex = g.bounded(partner(g, base, kNum, false, false, 0.0), 2, false);
    }
  } else if (path == 1 && is_float(x.dtype)) {
    // Any-sign float base, small integer literal exponent.
    base = g.bounded(x, 20, false);
    ex = g.lit_int(g.rng.range(0, 3));
  } else if (path == 2 && is_integer(x.dtype)) {
    // Integer base, exponent a non-negative literal or an int tensor (negatives give 0/+-1).
    base = g.bounded(x, 8, true);
    if (g.rng.chance(0.5)) {
      ex = g.lit_int(g.rng.range(0, 3));
    } else {
      Val e = partner(g, base, kInt, false, false, 0.0);
      if (e.scalar) e = g.lit_int(2);
      ex = e.scalar ? e : g.bounded(e, 2, true);
      if (!ex.scalar && ex.lo < -2) return false;
    }
  } else {
    // Literal base, bounded tensor exponent.
    const double bs[] = {2.0, 0.5, 1.5, 3.0};
    bool int_base = is_integer(x.dtype) && (g.rng.chance(0.3) || !g.allowed(DType::Float32));
    base = int_base ? g.lit_int(2) : g.lit_float(bs[g.rng.range(0, 3)]);
    ex = g.bounded(x, 4, false);
  }
  DType dt = result_type({&base, &ex});
  if (!g.allowed(dt)) return false;
  Val r = like(dt, broadcast_all({&base, &ex}), 0, 0);
  if (is_float(dt)) {
    if (base.lo > 0) {
      double c[4] = {std::pow(base.lo, ex.lo), std::pow(base.lo, ex.hi), std::pow(base.hi, ex.lo),
                     std::pow(base.hi, ex.hi)};
      r.lo = *std::min_element(c, c + 4);
      r.hi = *std::max_element(c, c + 4);
    } else {
      double m = std::pow(std::max(1.0, base.mag()), std::max(1.0, ex.hi));
      r.lo = -m;
      r.hi = m;
    }
    r.exact = 0;
  } else {
    double m = std::pow(std::max(1.0, base.mag()), std::max(1.0, ex.hi));
    r.lo = -m;
    r.hi = m;
  }
  if (!range_ok(dt, r.lo, r.hi)) return false;
  g.finish(op, {g.use(base), g.use(ex)}, Json::object(), r);
  return true;
}

bool gen_atan2(Gen& g, const std::string& op) {
  auto pred = [&](const Val& v) { return !v.scalar && v.dtype != DType::Bool && float_ok(v) && v.finite; };
  auto ao = g.operand(pred, kNum);
  if (!ao) return false;
  Val a = *ao;
  Val b = partner(g, a, kNum, true, false, 0.15);
  if (!b.finite || (is_float(b.dtype) && !float_ok(b))) return false;
  maybe_swap(g, a, b);
  Val r = infer_binary("atan2", a, b);
  if (!g.allowed(r.dtype)) return false;
  g.finish(op, {g.use(a), g.use(b)}, Json::object(), r);
  return true;
}

bool gen_bitwise(Gen& g, const std::string& op) {
  unsigned mask = kInt | kBool;
  auto pred = [&](const Val& v) { return !v.scalar && accepts(mask, v.dtype); };
  auto ao = g.operand(pred, mask);
  if (!ao) return false;
  Val a = *ao;
  Val b = partner(g, a, mask, true, false);
  maybe_swap(g, a, b);
  Val r = infer_binary(op, a, b);
  if (!g.allowed(r.dtype) || !range_ok(r.dtype, r.lo, r.hi)) return false;
  g.finish(op, {g.use(a), g.use(b)}, Json::object(), r);
  return true;
}

namespace {

bool gen_bool_binary(Gen& g, const std::string& op) {
  if (!g.allowed(DType::Bool)) return false;
  bool nf = g.nonfinite_ok();
  auto pred = [&](const Val& v) { return !v.scalar && float_ok(v) && (v.finite || nf); };
  auto ao = g.operand(pred, kAny);
  if (!ao) return false;
  Val a = *ao;
  Val b = partner(g, a, kAny, true, nf, 0.35);
  if (!b.scalar && !float_ok(b)) return false;
  maybe_swap(g, a, b);
  Val r = like(DType::Bool, broadcast_all({&a, &b}), 0, 1);
  g.finish(op, {g.use(a), g.use(b)}, Json::object(), r);
  return true;
}

}  // namespace

bool gen_compare(Gen& g, const std::string& op) { return gen_bool_binary(g, op); }

bool gen_logical(Gen& g, const std::string& op) { return gen_bool_binary(g, op); }

bool gen_where(Gen& g, const std::string& op) {
  bool nf = g.nonfinite_ok();
  auto pred = [&](const Val& v) { return !v.scalar && (v.finite || nf); };
  auto ao = g.operand(pred, kAny);
  if (!ao) return false;
  Val a = *ao;
  // The condition: a bool value, a comparison built on the spot, or a literal.
  Val cond;
  int64_t k = g.rng.range(0, 9);
  if (k == 0 || !g.allowed(DType::Bool)) {
    cond = g.lit_bool(g.rng.chance(0.5));
  } else {
    auto bool_pred = [&](const Val& v) {
      if (v.scalar || v.dtype != DType::Bool) return false;
      auto s = broadcast_shapes(a.shape, v.shape);
      return s && g.fits(*s);
    };
    std::optional<Val> c;
    if (k <= 4) c = g.pick(bool_pred);
    if (!c) {
      auto src = g.pick([&](const Val& v) { return bool_pred(v) || (!v.scalar && float_ok(v) && v.finite && broadcast_shapes(a.shape, v.shape) && g.fits(*broadcast_shapes(a.shape, v.shape))); });
      if (!src) src = g.leaf(is_float(a.dtype) || a.dtype == DType::Bool ? (g.allowed(DType::Float32) ? DType::Float32 : a.dtype) : a.dtype, g.broadcast_partner(a.shape));
      if (src->dtype == DType::Bool) {
        c = *src;
      } else {
        const char* cmps[] = {"gt", "lt", "ge", "le", "eq", "ne"};
        Val lit = src->dtype == DType::Bool ? g.lit_bool(true) : g.lit_float(g.rng.chance(0.5) ? 0.0 : 0.5);
        c = g.emit(cmps[g.rng.range(0, 5)], {g.use(*src), g.use(lit)}, Json::object(),
                   like(DType::Bool, src->shape, 0, 1), Mode::Maybe);
      }
    }
    cond = *c;
  }
  Val b;
  if (g.rng.chance(0.35)) {
    b = g.random_literal(kAny, false, true);
    if (nf && is_float(a.dtype) && g.rng.chance(0.2)) b = g.lit_nonfinite("-inf");
  } else {
    b = partner(g, a, kAny, false, nf, 0.0);
  }
  if (b.name == a.name && !a.name.empty()) b = a;
  maybe_swap(g, a, b);
  // Both branches literal is fine when the condition is a tensor.
  if (cond.scalar && a.scalar && b.scalar) return false;
  if (!cond.scalar && g.rng.chance(0.1) && !b.scalar) a = g.random_literal(kAny, false, false);
  DType dt = result_type({&a, &b});
  if (!g.allowed(dt)) return false;
  Shape shape;
  for (const Val* v : {&cond, &a, &b}) {
    if (v->scalar) continue;
    auto s = broadcast_shapes(shape, v->shape);
    if (!s) return false;
    shape = *s;
  }
  Val r = like(dt, shape, std::min(a.lo, b.lo), std::max(a.hi, b.hi));
  if (!g.fits(r.shape)) return false;
  r.finite = a.finite && b.finite;
  r.exact = is_float(dt) ? std::min(a.exact, b.exact) : 2;
  if (dt == DType::Bool) r.lo = 0, r.hi = 1;
  if (!range_ok(dt, r.lo, r.hi)) return false;
  g.finish(op, {g.use(cond), g.use(a), g.use(b)}, Json::object(), r);
  return true;
}

bool gen_to(Gen& g, const std::string& op) {
  std::vector<DType> targets = g.dtypes_in(kAny);
  DType target = g.rng.pick(targets);
  auto pred = [&](const Val& v) {
    if (v.scalar) return false;
    if (is_float(v.dtype) && !is_float(target)) return float_ok(v) && (v.finite || target == DType::Bool);
    return true;
  };
  auto xo = g.operand(pred, kAny);
  if (!xo) return false;
  Val x = *xo;
  Val r = like(target, x.shape, x.lo, x.hi);
  r.finite = x.finite;
  if (target == DType::Bool) {
    r.lo = 0;
    r.hi = 1;
    r.finite = true;
  } else if (is_integer(target)) {
    r.lo = std::trunc(x.lo);
    r.hi = std::trunc(x.hi);
  }
  r.exact = is_float(target) ? (is_float(x.dtype) ? x.exact : 2) : 2;
  r.varied = is_float(target) && is_float(x.dtype) && x.varied;
  if (r.finite && !range_ok(target, r.lo, r.hi)) return false;
  Json attrs = Json::object();
  attrs["dtype"] = std::string(dtype_name(target));
  g.finish(op, {g.use(x)}, attrs, r);
  return true;
}

}  // namespace stax::randgraph::detail

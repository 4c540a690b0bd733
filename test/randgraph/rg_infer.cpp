// The generator's own inference: random source, dtype promotion (torch.result_type), broadcasting
// and interval bounds of elementwise results. Independent of the front end on purpose: the tests
// compare the two.
#include "rg_internal.h"

#include <algorithm>
#include <cmath>

namespace stax::randgraph::detail {

namespace {

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

int rank_of(DType dt) {
  switch (dt) {
    case DType::Bool: return 0;
    case DType::Int32: return 1;
    case DType::Int64: return 2;
    case DType::Float32: return 3;
    case DType::Float64: return 4;
  }
  return 0;
}

std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_float(*higher)) return higher;
  if (*higher == DType::Bool || is_float(*lower)) return promote(*higher, *lower);
  return higher;
}

std::optional<DType> promote_opt(std::optional<DType> a, DType b) {
  if (!a) return b;
  return promote(*a, b);
}

// Interval of f over [lo, hi] for monotone f.
std::pair<double, double> mono(double lo, double hi, double (*f)(double), bool increasing) {
  if (increasing) return {f(lo), f(hi)};
  return {f(hi), f(lo)};
}

double sgn(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }
double relu_d(double v) { return v > 0 ? v : 0.0; }
double exp2_d(double v) { return std::exp2(v); }
double rsqrt_d(double v) { return 1.0 / std::sqrt(v); }
double recip_d(double v) { return 1.0 / v; }
double sigmoid_d(double v) { return 1.0 / (1.0 + std::exp(-v)); }

bool in_list(std::string_view op, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), op) != names.end();
}

}  // namespace

Rng::Rng(uint64_t seed) {
  uint64_t x = seed;
  for (uint64_t& s : s_) s = splitmix64(x);
}

uint64_t Rng::next() {
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

int64_t Rng::range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int64_t>(next() % span);
}

bool Rng::chance(double p) {
  double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
  return u < p;
}

double Val::mag() const { return std::max(std::fabs(lo), std::fabs(hi)); }

bool is_float(DType dt) { return is_floating(dt); }

bool accepts(unsigned mask, DType dt) {
  if (dt == DType::Bool) return (mask & kBool) != 0;
  if (is_integer(dt)) return (mask & kInt) != 0;
  return (mask & kFloat) != 0;
}

DType promote(DType a, DType b) { return rank_of(a) >= rank_of(b) ? a : b; }

DType result_type(const std::vector<const Val*>& operands) {
  std::optional<DType> dim, zero, wrapped;
  for (const Val* v : operands) {
    if (v->scalar) {
      wrapped = promote_opt(wrapped, v->dtype == DType::Float64 ? DType::Float32 : v->dtype);
    } else if (v->shape.empty()) {
      zero = promote_opt(zero, v->dtype);
    } else {
      dim = promote_opt(dim, v->dtype);
    }
  }
  return combine(dim, combine(zero, wrapped)).value_or(DType::Float32);
}

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[n - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

Shape broadcast_all(const std::vector<const Val*>& operands) {
  Shape out;
  for (const Val* v : operands) {
    if (v->scalar) continue;
    out = broadcast_shapes(out, v->shape).value();
  }
  return out;
}

bool range_ok(DType dt, double lo, double hi) {
  if (!(lo <= hi)) return false;  // also catches nan
  double cap = is_float(dt) ? kFloatCap : kIntCap;
  return lo >= -cap && hi <= cap;
}

bool f32_exact(double v) {
  if (!std::isfinite(v)) return true;
  return static_cast<double>(static_cast<float>(v)) == v;
}

Json shape_json(const Shape& s) {
  Json j = Json::array();
  for (int64_t d : s) j.push_back(d);
  return j;
}

bool among(const std::string& op, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (op == n) return true;
  return false;
}

bool float_ok(const Val& v) { return !is_float(v.dtype) || v.exact >= 1; }

Val param(Gen& g, DType dt, const Shape& s, double bound) {
  auto same = [&](const Val& v) { return !v.scalar && v.dtype == dt && v.shape == s && v.finite; };
  std::optional<Val> p;
  if (g.rng.chance(0.3)) p = g.pick(same);
  return g.bounded(p ? *p : g.leaf(dt, s), bound, false);
}

Val like(DType dt, const Shape& s, double lo, double hi) {
  Val v;
  v.dtype = dt;
  v.shape = s;
  v.lo = lo;
  v.hi = hi;
  return v;
}

int64_t random_dim(Gen& g, int r) {
  int64_t d = g.rng.range(0, r - 1);
  return g.rng.chance(0.3) ? d - r : d;
}

int64_t norm_dim(int64_t d, int r) { return d < 0 ? d + r : d; }

bool unary_accepts(std::string_view op, DType dt) {
  if (in_list(op, {"neg", "abs", "sign", "relu", "floor", "ceil", "round", "trunc"}))
    return dt != DType::Bool;
  if (op == "bitwise_not") return !is_float(dt);
  if (in_list(op, {"leaky_relu", "gelu", "silu"})) return is_float(dt);
  return true;
}

Val infer_unary(std::string_view op, const Val& x, double param) {
  Val r = like(x.dtype, x.shape, x.lo, x.hi);
  r.finite = x.finite;
  double lo = x.lo, hi = x.hi;
  bool fl = is_float(x.dtype);
  // Predicates: bool, exact.
  if (in_list(op, {"logical_not", "isnan", "isinf", "isfinite"})) {
    r = like(DType::Bool, x.shape, 0, 1);
    return r;
  }
  bool same_dtype = in_list(op, {"neg", "abs", "sign", "relu", "floor", "ceil", "round", "trunc",
                                 "bitwise_not", "leaky_relu", "gelu", "silu"});
  r.dtype = same_dtype || fl ? x.dtype : DType::Float32;
  r.varied = false;
  r.exact = 0;
  if (!fl && same_dtype) r.exact = 2;
  std::pair<double, double> b{lo, hi};
  if (op == "neg") {
    b = {-hi, -lo};
    r.exact = x.exact;
    r.varied = x.varied;
  } else if (op == "abs") {
    if (lo >= 0) b = {lo, hi};
    else if (hi <= 0) b = {-hi, -lo};
    else b = {0.0, std::max(-lo, hi)};
    r.exact = x.exact;
  } else if (op == "sign") {
    b = {sgn(lo), sgn(hi)};
    r.exact = 2;
  } else if (op == "relu") {
    b = {relu_d(lo), relu_d(hi)};
    r.exact = x.exact;
  } else if (op == "floor") {
    b = mono(lo, hi, [](double v) { return std::floor(v); }, true);
    r.exact = fl ? x.exact : 2;
  } else if (op == "ceil") {
    b = mono(lo, hi, [](double v) { return std::ceil(v); }, true);
    r.exact = fl ? x.exact : 2;
  } else if (op == "round") {
    b = mono(lo, hi, [](double v) { return std::nearbyint(v); }, true);
    r.exact = fl ? x.exact : 2;
  } else if (op == "trunc") {
    b = mono(lo, hi, [](double v) { return std::trunc(v); }, true);
    r.exact = fl ? x.exact : 2;
  } else if (op == "bitwise_not") {
    b = x.dtype == DType::Bool ? std::pair<double, double>{0, 1} : std::pair<double, double>{-hi - 1, -lo - 1};
    r.exact = 2;
  } else if (op == "leaky_relu") {
    b = {lo < 0 ? lo * param : lo, hi < 0 ? hi * param : hi};
  } else if (op == "gelu") {
    b = {std::min(lo, -0.17), std::max(hi, 0.0)};
  } else if (op == "silu") {
    b = {std::min(lo, -0.28), std::max(hi, 0.0)};
  } else if (op == "exp") {
    b = mono(lo, hi, [](double v) { return std::exp(v); }, true);
  } else if (op == "exp2") {
    b = mono(lo, hi, exp2_d, true);
  } else if (op == "expm1") {
    b = mono(lo, hi, [](double v) { return std::expm1(v); }, true);
  } else if (op == "log") {
    b = mono(lo, hi, [](double v) { return std::log(v); }, true);
  } else if (op == "log2") {
    b = mono(lo, hi, [](double v) { return std::log2(v); }, true);
  } else if (op == "log10") {
    b = mono(lo, hi, [](double v) { return std::log10(v); }, true);
  } else if (op == "log1p") {
    b = mono(lo, hi, [](double v) { return std::log1p(v); }, true);
  } else if (op == "sqrt") {
    b = mono(lo, hi, [](double v) { return std::sqrt(v); }, true);
  } else if (op == "rsqrt") {
    b = mono(lo, hi, rsqrt_d, false);
  } else if (op == "reciprocal") {
    b = mono(lo, hi, recip_d, false);
  } else if (op == "sin" || op == "cos") {
    b = {-1.0, 1.0};
  } else if (op == "tan") {
    b = mono(lo, hi, [](double v) { return std::tan(v); }, true);
  } else if (op == "asin") {
    b = mono(lo, hi, [](double v) { return std::asin(v); }, true);
  } else if (op == "acos") {
    b = mono(lo, hi, [](double v) { return std::acos(v); }, false);
  } else if (op == "atan") {
    b = mono(lo, hi, [](double v) { return std::atan(v); }, true);
  } else if (op == "sinh") {
    b = mono(lo, hi, [](double v) { return std::sinh(v); }, true);
  } else if (op == "cosh") {
    double m = std::max(std::fabs(lo), std::fabs(hi));
    b = {1.0, std::cosh(m)};
  } else if (op == "tanh") {
    b = mono(lo, hi, [](double v) { return std::tanh(v); }, true);
  } else if (op == "sigmoid") {
    b = mono(lo, hi, sigmoid_d, true);
  } else if (op == "erf") {
    b = mono(lo, hi, [](double v) { return std::erf(v); }, true);
  } else if (op == "erfc") {
    b = mono(lo, hi, [](double v) { return std::erfc(v); }, false);
  }
  r.lo = b.first;
  r.hi = b.second;
  if (!std::isfinite(r.lo) || !std::isfinite(r.hi)) {
    // Only reachable on purpose (nonfinite mode); keep bounds usable.
    r.finite = false;
    r.lo = std::isfinite(r.lo) ? std::max(r.lo, -kFloatCap) : -kFloatCap;
    r.hi = std::isfinite(r.hi) ? std::min(r.hi, kFloatCap) : kFloatCap;
  }
  return r;
}

namespace {

std::pair<double, double> corners(double alo, double ahi, double blo, double bhi,
                                  double (*f)(double, double)) {
  double c[4] = {f(alo, blo), f(alo, bhi), f(ahi, blo), f(ahi, bhi)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

double pow2_above(double m) {
  double p = 1;
  while (p <= m) p *= 2;
  return p;
}

}  // namespace

Val infer_binary(std::string_view op, const Val& a, const Val& b) {
  DType common = result_type({&a, &b});
  Val r = like(common, broadcast_all({&a, &b}), 0, 0);
  r.finite = a.finite && b.finite;
  bool true_div = op == "div" || op == "atan2";
  if (true_div && !is_float(common)) r.dtype = DType::Float32;
  bool fl = is_float(r.dtype);
  int both = std::min(a.exact, b.exact);
  std::pair<double, double> bd{0, 0};
  if (op == "add") {
    bd = {a.lo + b.lo, a.hi + b.hi};
    r.exact = fl ? (both == 2 ? 1 : 0) : 2;
  } else if (op == "sub") {
    bd = {a.lo - b.hi, a.hi - b.lo};
    r.exact = fl ? (both == 2 ? 1 : 0) : 2;
  } else if (op == "mul") {
    bd = corners(a.lo, a.hi, b.lo, b.hi, [](double x, double y) { return x * y; });
    r.exact = fl ? (both == 2 ? 1 : 0) : 2;
  } else if (op == "div") {
    if (b.lo > 0 || b.hi < 0) {
      bd = corners(a.lo, a.hi, b.lo, b.hi, [](double x, double y) { return x / y; });
    } else {
      r.finite = false;
      bd = {-kFloatCap, kFloatCap};
    }
    r.exact = both == 2 ? 1 : 0;
  } else if (op == "maximum") {
    bd = {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    r.exact = fl ? both : 2;
  } else if (op == "minimum") {
    bd = {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    r.exact = fl ? both : 2;
  } else if (op == "atan2") {
    bd = {-3.1416, 3.1416};
    r.exact = 0;
  } else if (op == "bitwise_and" || op == "bitwise_or" || op == "bitwise_xor") {
    if (r.dtype == DType::Bool) {
      bd = {0, 1};
    } else {
      double p = pow2_above(std::max(a.mag(), b.mag()));
      bd = {-p, p};
    }
    r.exact = 2;
  }
  r.lo = bd.first;
  r.hi = bd.second;
  if (r.dtype == DType::Bool) {
    r.lo = 0;
    r.hi = 1;
  }
  if (!fl) r.exact = 2;
  // Affine maps of a varied value by a literal stay varied.
  bool lit_b = b.scalar && b.finite && b.lo != 0;
  bool lit_a = a.scalar && a.finite && a.lo != 0;
  if ((op == "add" || op == "sub" || op == "mul") && fl)
    r.varied = (a.varied && lit_b && a.shape == r.shape) || (b.varied && lit_a && b.shape == r.shape);
  return r;
}

}  // namespace stax::randgraph::detail

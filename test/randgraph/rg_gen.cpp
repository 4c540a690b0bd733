// The generator state: names, leaves (inputs, constants, `full`), the value pool, node emission
// (named or inline), literals and the helper chains that keep values in an op's domain.
#include "rg_internal.h"

#include <algorithm>
#include <cmath>

namespace stax::randgraph::detail {

namespace {

const std::vector<std::string> kInputNames = {"x", "y", "z", "in.0", "input-1", "for", "a_b", "x.1", "Img", "q"};
const std::vector<std::string> kConstNames = {"w", "c0", "bias.1", "k-2", "table", "W", "const"};
// Names that are C/C++ keywords, look like numbers, or are near "inf"/"nan": all valid.
const std::vector<std::string> kOddNames = {"int", "and", "float", "return", "class", "double", "main",
                                            "Inf", "1e3", ".5", "-", "__x", "nan_", "NULL", "std", "x-", "i"};

const double kExactFloats[] = {0.5, 2.0, -1.5, 0.25, 3.0, -0.75, 1.0, -2.0, 0.125, 1.5, 4.0, -0.5};
const double kInexactFloats[] = {0.1, 0.3, -0.7, 1.7, 2.2, 0.001, -3.3, 0.01};

}  // namespace

Gen::Gen(uint64_t seed, const RandomGraphOptions& options) : rng(seed), opt(options), seed_(seed) {}

bool Gen::allowed(DType dt) const {
  return std::find(opt.dtypes.begin(), opt.dtypes.end(), dt) != opt.dtypes.end();
}

bool Gen::nonfinite_ok() const { return opt.nonfinite && allowed(DType::Bool); }

std::vector<DType> Gen::dtypes_in(unsigned mask) const {
  std::vector<DType> out;
  for (DType dt : {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool})
    if (accepts(mask, dt) && allowed(dt)) out.push_back(dt);
  return out;
}

bool Gen::fits(const Shape& s) const {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 1) return false;
    n *= d;
    if (n > opt.max_numel) return false;
  }
  return static_cast<int>(s.size()) <= opt.max_rank + 1;
}

Shape Gen::random_shape(int min_rank, int max_rank) {
  if (max_rank < 0) max_rank = opt.max_rank;
  max_rank = std::max(max_rank, min_rank);
  int r = 0;
  if (min_rank > 0 || !rng.chance(0.1)) r = static_cast<int>(rng.range(std::max(min_rank, 1), max_rank));
  Shape s(static_cast<std::size_t>(r));
  for (int64_t& d : s) d = rng.chance(0.2) ? 1 : rng.range(1, opt.max_dim);
  while (shape_numel(s) > opt.max_numel) {
    auto it = std::max_element(s.begin(), s.end());
    *it = std::max<int64_t>(1, *it / 2);
  }
  return s;
}

Shape Gen::broadcast_partner(const Shape& s) {
  int64_t k = rng.range(0, 99);
  Shape out = s;
  if (k < 30) return out;
  if (k < 55) {
    for (int64_t& d : out)
      if (rng.chance(0.5)) d = 1;
    return out;
  }
  if (k < 72) {
    std::size_t drop = static_cast<std::size_t>(rng.range(0, static_cast<int64_t>(s.size())));
    out.assign(s.begin() + static_cast<std::ptrdiff_t>(drop), s.end());
    for (int64_t& d : out)
      if (rng.chance(0.3)) d = 1;
    return out;
  }
  if (k < 82) return Shape{};
  // Larger: grow size-1 dims and add leading dims.
  for (int64_t& d : out)
    if (d == 1 && rng.chance(0.6)) d = rng.range(2, opt.max_dim);
  int extra = static_cast<int>(rng.range(0, 2));
  for (int i = 0; i < extra && static_cast<int>(out.size()) < opt.max_rank; ++i)
    out.insert(out.begin(), rng.range(1, opt.max_dim));
  Shape b = broadcast_shapes(s, out).value_or(s);
  return fits(b) ? out : s;
}

void Gen::record(const Val& v) {
  ValueSignature sig;
  sig.name = v.name;
  sig.dtype = v.dtype;
  sig.shape = v.shape;
  sig.finite = v.finite;
  sig.lo = v.dtype == DType::Bool ? 0.0 : v.lo;
  sig.hi = v.dtype == DType::Bool ? 1.0 : v.hi;
  sigs_.push_back(sig);
}

std::string Gen::unique(std::string base) {
  std::string n = base;
  for (int k = 2; names_.count(n); ++k) n = base + "_" + std::to_string(k);
  names_.insert(n);
  return n;
}

std::string Gen::fresh_node_name() {
  ++counter_;
  std::string k = std::to_string(counter_);
  int64_t style = rng.range(0, 19);
  if (style == 0) return unique(rng.pick(kOddNames));
  switch (style % 7) {
    case 0: return unique("t." + k);
    case 1: return unique("n-" + k);
    case 2: return unique("h_" + k);
    case 3: return unique(style == 3 ? k : "v" + k);
    case 4: return unique("out." + k + ".a");
    case 5: return unique("V" + k);
    default: return unique("v" + k);
  }
}

void Gen::add_input(DType dt, const Shape& s, Val& v) {
  std::string name = unique(rng.chance(0.7) ? rng.pick(kInputNames) : "in" + std::to_string(inputs_.size()));
  Json j = Json::object();
  j["name"] = name;
  j["dtype"] = std::string(dtype_name(dt));
  j["shape"] = shape_json(s);
  inputs_.push_back(j);
  v = like(dt, s, 0, 0);
  if (is_float(dt)) {
    v.lo = -6;
    v.hi = 6;
    v.varied = true;
  } else if (dt == DType::Bool) {
    v.hi = 1;
  } else {
    v.lo = -8;
    v.hi = 8;
  }
  v.name = name;
  v.ref = name;
}

void Gen::add_constant(DType dt, const Shape& s, Val& v) {
  std::string name = unique(rng.chance(0.6) ? rng.pick(kConstNames) : "c" + std::to_string(constants_.size()));
  Json j = Json::object();
  j["name"] = name;
  j["dtype"] = std::string(dtype_name(dt));
  j["shape"] = shape_json(s);
  v = like(dt, s, 0, 0);
  v.name = name;
  v.ref = name;
  int64_t n = shape_numel(s);
  bool fill = n > 128 || rng.chance(0.2);
  if (fill) {
    Json f;
    double x = 0;
    if (is_float(dt)) {
      if (nonfinite_ok() && rng.chance(0.1)) {
        f = rng.chance(0.5) ? "-inf" : "nan";
        v.finite = false;
      } else {
        x = static_cast<double>(rng.range(-32, 32)) / 8.0;
        f = (x == std::floor(x) && rng.chance(0.4)) ? Json(static_cast<int64_t>(x)) : Json(x);
      }
    } else if (dt == DType::Bool) {
      bool b = rng.chance(0.5);
      x = b ? 1 : 0;
      f = b;
    } else {
      x = static_cast<double>(rng.range(-8, 8));
      f = static_cast<int64_t>(x);
    }
    j["fill"] = f;
    v.lo = v.hi = x;
    constants_.push_back(j);
    return;
  }
  Json data = Json::array();
  double lo = 1e300, hi = -1e300;
  if (is_float(dt)) {
    // Distinct multiples of 1/16 in [-8, 8] (exact in float32), so rows never repeat a value.
    std::vector<int64_t> pool(257);
    for (std::size_t i = 0; i < pool.size(); ++i) pool[i] = static_cast<int64_t>(i) - 128;
    bool distinct = n <= 257;
    for (int64_t i = 0; i < n; ++i) {
      int64_t q;
      if (distinct) {
        auto k = static_cast<std::size_t>(rng.range(i, 256));
        std::swap(pool[static_cast<std::size_t>(i)], pool[k]);
        q = pool[static_cast<std::size_t>(i)];
      } else {
        q = rng.range(-128, 128);
      }
      double x = static_cast<double>(q) / 16.0;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      data.push_back((q % 16 == 0 && rng.chance(0.3)) ? Json(q / 16) : Json(x));
    }
    v.varied = distinct;
    if (nonfinite_ok() && rng.chance(0.08)) {
      const char* nf[] = {"nan", "inf", "-inf"};
      data[static_cast<std::size_t>(rng.range(0, n - 1))] = nf[rng.range(0, 2)];
      v.finite = false;
      v.varied = false;
    }
  } else if (dt == DType::Bool) {
    for (int64_t i = 0; i < n; ++i) data.push_back(rng.chance(0.5));
    lo = 0;
    hi = 1;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      int64_t x = rng.range(-8, 8);
      lo = std::min(lo, static_cast<double>(x));
      hi = std::max(hi, static_cast<double>(x));
      data.push_back(x);
    }
  }
  j["data"] = data;
  v.lo = lo;
  v.hi = hi;
  constants_.push_back(j);
}

Val Gen::leaf(DType dt, const Shape& s) {
  Val v;
  if (static_cast<int>(inputs_.size()) < opt.max_inputs && rng.chance(0.45)) {
    add_input(dt, s, v);
  } else if (opt.creation && rng.chance(0.12)) {
    Json attrs = Json::object();
    attrs["shape"] = shape_json(s);
    double x = 0;
    if (is_float(dt)) {
      x = static_cast<double>(rng.range(-16, 16)) / 4.0;
      attrs["value"] = x;
      if (dt != DType::Float32 || rng.chance(0.5)) attrs["dtype"] = std::string(dtype_name(dt));
    } else if (dt == DType::Bool) {
      bool b = rng.chance(0.5);
      x = b ? 1 : 0;
      attrs["value"] = b;
      if (rng.chance(0.3)) attrs["dtype"] = "bool";
    } else {
      x = static_cast<double>(rng.range(-8, 8));
      attrs["value"] = static_cast<int64_t>(x);
      if (dt != DType::Int64 || rng.chance(0.5)) attrs["dtype"] = std::string(dtype_name(dt));
    }
    return emit("full", {}, attrs, like(dt, s, x, x), Mode::Maybe);
  } else {
    add_constant(dt, s, v);
  }
  pool_.push_back(v);
  record(v);
  return v;
}

std::optional<Val> Gen::pick(const std::function<bool(const Val&)>& pred) {
  if (pending_ && pred(*pending_) && rng.chance(0.85)) {
    Val v = *pending_;
    pending_.reset();
    return v;
  }
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < pool_.size(); ++i)
    if (pred(pool_[i])) idx.push_back(i);
  if (idx.empty()) return std::nullopt;
  auto last = static_cast<int64_t>(idx.size()) - 1;
  int64_t k = rng.chance(0.5) ? last - rng.range(0, std::min<int64_t>(2, last)) : rng.range(0, last);
  return pool_[idx[static_cast<std::size_t>(k)]];
}

std::optional<Val> Gen::operand(const std::function<bool(const Val&)>& pred, unsigned mask, int min_rank) {
  if (rng.chance(0.88))
    if (auto v = pick(pred)) return v;
  std::vector<DType> dts = dtypes_in(mask);
  if (dts.empty()) return pick(pred);
  for (int t = 0; t < 3; ++t) {
    Val l = leaf(rng.pick(dts), random_shape(min_rank));
    if (pred(l)) return l;
  }
  return pick(pred);
}

Json Gen::use(const Val& v) {
  if (!v.name.empty()) ++uses_[v.name];
  return v.ref;
}

Val Gen::emit(std::string_view op, std::vector<Json> args, const Json& attrs, Val result, Mode mode) {
  bool inl = mode == Mode::Inline || (mode == Mode::Maybe && rng.chance(0.55));
  Json node = Json::object();
  if (!inl) node["name"] = fresh_node_name();
  node["op"] = std::string(op);
  node["args"] = Json(std::move(args));
  for (auto it = attrs.begin(); it != attrs.end(); ++it) node[it.key()] = it.value();
  result.scalar = false;
  if (inl) {
    result.name.clear();
    result.ref = node;
    return result;
  }
  result.name = node["name"].get<std::string>();
  result.ref = result.name;
  nodes_.push_back(node);
  pool_.push_back(result);
  record(result);
  return result;
}

Val Gen::finish(std::string_view op, std::vector<Json> args, const Json& attrs, Val result) {
  Val v = emit(op, std::move(args), attrs, std::move(result), main_inline_ ? Mode::Inline : Mode::Named);
  last_ = v;
  return v;
}

Val Gen::materialize(const Val& v) {
  if (!v.is_inline()) return v;
  Json node = Json::object();
  Val out = v;
  out.name = fresh_node_name();
  node["name"] = out.name;
  for (auto it = v.ref.begin(); it != v.ref.end(); ++it) node[it.key()] = it.value();
  out.ref = out.name;
  nodes_.push_back(node);
  pool_.push_back(out);
  record(out);
  return out;
}

Val Gen::lit_int(int64_t v) const {
  Val l = like(DType::Int64, {}, static_cast<double>(v), static_cast<double>(v));
  l.scalar = true;
  l.ref = v;
  return l;
}

Val Gen::lit_float(double v) const {
  Val l = like(DType::Float64, {}, v, v);
  l.scalar = true;
  l.ref = v;
  l.exact = f32_exact(v) ? 2 : 0;
  return l;
}

Val Gen::lit_bool(bool v) const {
  Val l = like(DType::Bool, {}, v ? 1 : 0, v ? 1 : 0);
  l.scalar = true;
  l.ref = v;
  return l;
}

Val Gen::lit_nonfinite(std::string_view s) const {
  Val l = like(DType::Float64, {}, 0, 0);
  l.scalar = true;
  l.finite = false;
  l.ref = std::string(s);
  return l;
}

Val Gen::random_literal(unsigned mask, bool need_exact, bool allow_nonfinite) {
  std::vector<unsigned> kinds;
  for (unsigned k : {kBool, kInt, kFloat})
    if (mask & k) kinds.push_back(k);
  unsigned k = kinds.empty() ? kInt : rng.pick(kinds);
  if (k == kBool) return lit_bool(rng.chance(0.5));
  if (k == kInt) return lit_int(rng.range(-3, 6));
  if (allow_nonfinite && nonfinite_ok() && rng.chance(0.08)) {
    const char* nf[] = {"inf", "-inf", "nan"};
    return lit_nonfinite(nf[rng.range(0, 2)]);
  }
  if (need_exact || rng.chance(0.7)) return lit_float(kExactFloats[rng.range(0, 11)]);
  return lit_float(kInexactFloats[rng.range(0, 7)]);
}

Val Gen::unary(std::string_view op, const Val& x, const Json& attrs) {
  double param = attrs.contains("negative_slope") ? attrs["negative_slope"].get<double>() : 0.01;
  Val r = infer_unary(op, x, param);
  return emit(op, {use(x)}, attrs, r, Mode::Maybe);
}

Val Gen::binary(std::string_view op, const Val& a, const Val& b, const Json& attrs) {
  Val r = infer_binary(op, a, b);
  return emit(op, {use(a), use(b)}, attrs, r, Mode::Maybe);
}

// clamp(x, -bound, bound), dtype-preserving (int bounds on ints).
static Val clamp_to(Gen& g, const Val& x, double bound) {
  Json attrs = Json::object();
  Val lo, hi;
  if (is_float(x.dtype)) {
    attrs["min"] = -bound;
    attrs["max"] = bound;
    lo = g.lit_float(-bound);
    hi = g.lit_float(bound);
  } else {
    auto b = static_cast<int64_t>(std::floor(bound));
    attrs["min"] = -b;
    attrs["max"] = b;
    lo = g.lit_int(-b);
    hi = g.lit_int(b);
  }
  Val r = like(result_type({&x, &lo, &hi}), x.shape, std::max(x.lo, lo.lo), std::min(x.hi, hi.hi));
  if (r.lo > r.hi) r.lo = r.hi = std::clamp(x.lo, lo.lo, hi.hi);
  r.exact = std::min({x.exact, lo.exact, hi.exact});
  r.finite = x.finite;
  return g.emit("clamp", {g.use(x)}, attrs, r, Mode::Maybe);
}

Val Gen::bounded(const Val& x0, double bound, bool keep_exact) {
  if (x0.dtype == DType::Bool && !x0.scalar) return x0;
  Val x = sanitize(x0);
  if (x.mag() <= bound) return x;
  if (is_float(x.dtype) && !keep_exact && rng.chance(0.6)) {
    Val t = unary("tanh", x);
    if (bound >= 1) return t;
    return binary("mul", t, lit_float(bound));
  }
  return clamp_to(*this, x, bound);
}

Val Gen::positive(const Val& x0, double min, bool keep_exact) {
  Val x = sanitize(x0);
  if (x.lo >= min) return x;
  if (x.dtype == DType::Bool) {
    if (allowed(DType::Int64)) return binary("add", x, lit_int(1));
    return binary("add", x, lit_float(1.0));
  }
  if (!is_float(x.dtype)) {
    auto c = static_cast<int64_t>(std::max(1.0, std::ceil(min)));
    return binary("add", unary("abs", x), lit_int(c));
  }
  double c = min <= 0.25 && rng.chance(0.3) ? 0.25 : (min <= 0.5 ? 0.5 : std::ceil(min));
  int64_t k = keep_exact ? 0 : rng.range(0, 3);
  if (k == 1 && min <= 0.35) return unary("exp", unary("tanh", x));
  if (k == 2 && min <= 0.5) return binary("add", unary("sigmoid", x), lit_float(0.5));
  if (k == 3 && x.mag() <= 50) {
    Val xm = materialize(x);
    Val sq = infer_binary("mul", xm, xm);
    sq.lo = 0;
    sq.hi = xm.mag() * xm.mag();
    return binary("add", emit("mul", {use(xm), use(xm)}, Json::object(), sq, Mode::Maybe), lit_float(c));
  }
  return binary("add", unary("abs", x), lit_float(c));
}

Val Gen::away_from_zero(const Val& x0, double min, bool keep_exact) {
  Val x = sanitize(x0);
  if (x.lo >= min || x.hi <= -min) return x;
  Val p = positive(x, min, keep_exact);
  if (rng.chance(0.3)) return unary("neg", p);
  return p;
}

Val Gen::nonzero_int(const Val& x) {
  if (x.never_zero()) return x;
  if (x.dtype == DType::Bool) return binary("add", x, lit_int(1));
  int64_t k = rng.range(0, 2);
  if (k == 0) {
    Val one = lit_int(1);
    Val r = infer_binary("bitwise_or", x, one);
    r.nonzero = true;  // odd
    return emit("bitwise_or", {use(x), use(one)}, Json::object(), r, Mode::Maybe);
  }
  Val p = binary("add", unary("abs", x), lit_int(rng.range(1, 2)));
  if (k == 1) return unary("neg", p);
  return p;
}

Val Gen::as_float(const Val& x) {
  if (is_float(x.dtype)) return x;
  // Callers check that some float dtype is allowed.
  DType target = allowed(DType::Float32) || !allowed(DType::Float64) ? DType::Float32 : DType::Float64;
  if (target == DType::Float32 && rng.chance(0.4)) return binary("mul", x, lit_float(1.0));
  Val r = like(target, x.shape, x.lo, x.hi);
  Json attrs = Json::object();
  attrs["dtype"] = std::string(dtype_name(target));
  return emit("to", {use(x)}, attrs, r, Mode::Maybe);
}

Val Gen::sanitize(const Val& x) {
  // Integers and bools are always finite (and where(isfinite(b), b, 1.0) of a bool b is float32).
  if (x.finite || !is_float(x.dtype)) return x;
  Val xm = materialize(x);
  Val cond = unary("isfinite", xm);
  Val c = lit_float(rng.chance(0.5) ? 0.0 : 1.0);
  Val r = like(result_type({&xm, &c}), xm.shape, std::min(xm.lo, 0.0), std::max(xm.hi, 1.0));
  r.exact = xm.exact;
  return emit("where", {use(cond), use(xm), use(c)}, Json::object(), r, Mode::Maybe);
}

}  // namespace stax::randgraph::detail

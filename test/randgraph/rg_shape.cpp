// Generators of reductions, argmax/argmin, scans, views, cat and pad: the nodes whose shapes
// change. Dims are written in every accepted form (int, list, negative, absent, null).
#include "rg_internal.h"

#include <algorithm>
#include <cmath>

namespace stax::randgraph::detail {

namespace {

// A view, cat or pad keeps what is known of the elements.
Val keep_elements(const Val& x, const Shape& shape) {
  Val r = like(x.dtype, shape, x.lo, x.hi);
  r.finite = x.finite;
  r.exact = x.exact;
  r.varied = x.varied;
  return r;
}

// `dim` of a reduction: absent/null (all), an int, or a list of distinct dims; returns the
// reduced dims, normalized and sorted, and sets the JSON attribute.
std::vector<int64_t> reduction_dims(Gen& g, int r, Json& attrs, bool list_ok) {
  std::vector<int64_t> dims;
  int64_t form = g.rng.range(0, 9);
  if (r == 0) {
    if (form < 5) attrs["dim"] = g.rng.chance(0.5) ? 0 : -1;
    else if (form == 5) attrs["dim"] = nullptr;
    return dims;
  }
  if (form < 2) {
    if (form == 1 && g.rng.chance(0.3)) attrs["dim"] = nullptr;
    for (int i = 0; i < r; ++i) dims.push_back(i);
    return dims;
  }
  if (form < 6 || !list_ok) {
    int64_t d = random_dim(g, r);
    attrs["dim"] = d;
    dims.push_back(norm_dim(d, r));
    return dims;
  }
  std::vector<int64_t> all;
  for (int i = 0; i < r; ++i) all.push_back(i);
  for (std::size_t i = all.size(); i > 1; --i)
    std::swap(all[i - 1], all[static_cast<std::size_t>(g.rng.range(0, static_cast<int64_t>(i) - 1))]);
  auto n = static_cast<std::size_t>(g.rng.range(1, r));
  Json list = Json::array();
  for (std::size_t i = 0; i < n; ++i) {
    dims.push_back(all[i]);
    list.push_back(g.rng.chance(0.3) ? all[i] - r : all[i]);
  }
  attrs["dim"] = list;
  std::sort(dims.begin(), dims.end());
  return dims;
}

Shape reduced_shape(const Shape& s, const std::vector<int64_t>& dims, bool keepdim) {
  Shape out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    bool red = std::find(dims.begin(), dims.end(), static_cast<int64_t>(i)) != dims.end();
    if (!red) out.push_back(s[i]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

bool set_keepdim(Gen& g, Json& attrs) {
  int64_t k = g.rng.range(0, 2);
  if (k == 0) return false;
  attrs["keepdim"] = k == 1;
  return k == 1;
}

DType widened(DType dt) { return dt == DType::Bool || dt == DType::Int32 ? DType::Int64 : dt; }

}  // namespace

bool gen_reduction(Gen& g, const std::string& op) {
  bool float_only = among(op, {"mean", "var", "std", "logsumexp"});
  bool boolish = among(op, {"any", "all"});
  unsigned mask = float_only ? kFloat : kAny;
  bool nf = g.nonfinite_ok() && !among(op, {"var", "std"});
  auto result_dt = [&](DType dt) { return boolish ? DType::Bool : (among(op, {"sum", "prod"}) ? widened(dt) : dt); };
  auto pred = [&](const Val& v) {
    return !v.scalar && accepts(mask, v.dtype) && g.allowed(result_dt(v.dtype)) && (!boolish || float_ok(v));
  };
  auto xo = g.operand(pred, mask);
  if (!xo) return false;
  Val x = *xo;
  if (!x.finite && !nf) x = g.sanitize(x);
  Json attrs = Json::object();
  std::vector<int64_t> dims = reduction_dims(g, x.rank(), attrs, true);
  bool keepdim = set_keepdim(g, attrs);
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(x.shape[static_cast<std::size_t>(d)]);
  DType dt = result_dt(x.dtype);
  Val r = like(dt, reduced_shape(x.shape, dims, keepdim), x.lo, x.hi);
  r.finite = x.finite;
  r.exact = is_float(dt) ? 0 : 2;
  if (op == "sum") {
    double cap = is_float(dt) ? kFloatCap : kIntCap;
    if (x.mag() * n > cap) x = g.bounded(x, std::max(1.0, std::floor(cap / n)), false);
    r.lo = std::min(x.lo * n, x.lo);
    r.hi = std::max(x.hi * n, x.hi);
    if (x.dtype == DType::Bool) r.lo = 0, r.hi = n;
  } else if (op == "prod") {
    double cap = is_float(dt) ? kFloatCap : kIntCap;
    if (std::pow(std::max(1.0, x.mag()), n) > cap) {
      double b = std::floor(std::pow(cap, 1.0 / n));
      x = g.bounded(x, std::max(1.0, b), false);
    }
    double m = std::pow(std::max(1.0, x.mag()), n);
    r.lo = -m;
    r.hi = m;
    if (x.dtype == DType::Bool) r.lo = 0, r.hi = 1;
  } else if (op == "amax" || op == "amin") {
    r.exact = x.exact;
  } else if (boolish) {
    r.lo = 0;
    r.hi = 1;
  } else if (op == "var" || op == "std") {
    int64_t c = g.rng.range(0, 4);
    double corr = 1;
    if (c == 1) attrs["correction"] = 0, corr = 0;
    if (c == 2 && n > 2) attrs["correction"] = 2, corr = 2;
    if (c == 3) attrs["correction"] = 0.5, corr = 0.5;
    if (n - corr <= 0) {
      attrs["correction"] = 0;
      corr = 0;
    }
    double w = x.hi - x.lo;
    r.lo = 0;
    r.hi = w * w * n / std::max(n - corr, 0.5);
    if (op == "std") r.hi = std::sqrt(r.hi);
  } else if (op == "logsumexp") {
    if (x.mag() > 30) x = g.bounded(x, 20, false);
    r.lo = x.lo;
    r.hi = x.hi + std::log(n);
  }
  r.finite = x.finite;
  if (r.finite && !range_ok(dt, r.lo, r.hi)) return false;
  g.finish(op, {g.use(x)}, attrs, r);
  return true;
}

bool gen_argreduce(Gen& g, const std::string& op) {
  if (!g.allowed(DType::Int64)) return false;
  bool nf = g.nonfinite_ok();
  auto pred = [&](const Val& v) { return !v.scalar && v.dtype != DType::Bool && float_ok(v) && (v.finite || nf); };
  auto xo = g.operand(pred, kNum);
  if (!xo) return false;
  Val x = *xo;
  Json attrs = Json::object();
  std::vector<int64_t> dims;
  bool keepdim = false;
  if (g.rng.chance(0.3)) {
    if (g.rng.chance(0.2)) attrs["dim"] = nullptr;
    if (g.rng.chance(0.3)) attrs["keepdim"] = false;
    for (int i = 0; i < x.rank(); ++i) dims.push_back(i);
  } else {
    if (x.rank() == 0) {
      attrs["dim"] = g.rng.chance(0.5) ? 0 : -1;
    } else {
      int64_t d = random_dim(g, x.rank());
      attrs["dim"] = d;
      dims.push_back(norm_dim(d, x.rank()));
    }
    keepdim = set_keepdim(g, attrs);
  }
  Val r = like(DType::Int64, reduced_shape(x.shape, dims, keepdim), 0, static_cast<double>(shape_numel(x.shape) - 1));
  g.finish(op, {g.use(x)}, attrs, r);
  return true;
}

bool gen_scan(Gen& g, const std::string& op) {
  auto pred = [&](const Val& v) { return !v.scalar && g.allowed(widened(v.dtype)); };
  auto xo = g.operand(pred, kAny);
  if (!xo) return false;
  Val x = *xo;
  int r = x.rank();
  int64_t d = r == 0 ? (g.rng.chance(0.5) ? 0 : -1) : random_dim(g, r);
  double n = r == 0 ? 1 : static_cast<double>(x.shape[static_cast<std::size_t>(norm_dim(d, r))]);
  DType dt = widened(x.dtype);
  double cap = is_float(dt) ? kFloatCap : kIntCap;
  Val res = like(dt, x.shape, 0, 0);
  if (op == "cumsum") {
    if (x.mag() * n > cap) x = g.bounded(x, std::floor(cap / n), false);
    res.lo = std::min(x.lo, x.lo * n);
    res.hi = std::max(x.hi, x.hi * n);
  } else {
    if (std::pow(std::max(1.0, x.mag()), n) > cap)
      x = g.bounded(x, std::max(1.0, std::floor(std::pow(cap, 1.0 / n))), false);
    double m = std::pow(std::max(1.0, x.mag()), n);
    res.lo = -m;
    res.hi = m;
  }
  if (x.dtype == DType::Bool) res.lo = 0, res.hi = op == "cumsum" ? n : 1;
  res.finite = x.finite;
  res.exact = is_float(dt) ? 0 : 2;
  Json attrs = Json::object();
  attrs["dim"] = d;
  g.finish(op, {g.use(x)}, attrs, res);
  return true;
}

namespace {

// A random shape with numel n (prime factors spread over up to max_rank dims, some 1s).
Shape factor_shape(Gen& g, int64_t n) {
  std::vector<int64_t> primes;
  for (int64_t p = 2, m = n; m > 1;) {
    if (m % p == 0) {
      primes.push_back(p);
      m /= p;
    } else {
      ++p;
    }
  }
  int rank = static_cast<int>(g.rng.range(primes.empty() ? 0 : 1, std::max<int>(1, g.opt.max_rank)));
  if (rank == 0) return {};
  Shape s(static_cast<std::size_t>(rank), 1);
  for (int64_t p : primes) s[static_cast<std::size_t>(g.rng.range(0, rank - 1))] *= p;
  return s;
}

// Python slice of a dim of size n; returns the length (0 = empty).
int64_t slice_len(int64_t n, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  int64_t s = start.value_or(0), e = end.value_or(n);
  if (s < 0) s += n;
  if (e < 0) e += n;
  s = std::clamp<int64_t>(s, 0, n);
  e = std::clamp<int64_t>(e, 0, n);
  if (e <= s) return 0;
  return (e - s + step - 1) / step;
}

}  // namespace

bool gen_view(Gen& g, const std::string& op) {
  bool rank0_ok = among(op, {"reshape", "unsqueeze", "squeeze", "flatten", "expand"});
  auto pred = [&](const Val& v) {
    if (v.scalar || (!rank0_ok && v.rank() == 0)) return false;
    if (op == "unsqueeze" && v.rank() > g.opt.max_rank) return false;
    return true;
  };
  auto xo = g.operand(pred, kAny, rank0_ok ? 0 : 1);
  if (!xo) return false;
  Val x = *xo;
  int r = x.rank();
  Json attrs = Json::object();
  Shape out = x.shape;
  bool varied = x.varied;
  if (op == "reshape") {
    out = factor_shape(g, shape_numel(x.shape));
    Json s = shape_json(out);
    if (!out.empty() && g.rng.chance(0.3)) s[static_cast<std::size_t>(g.rng.range(0, static_cast<int64_t>(out.size()) - 1))] = -1;
    attrs["shape"] = s;
  } else if (op == "permute") {
    std::vector<int64_t> p;
    for (int i = 0; i < r; ++i) p.push_back(i);
    for (std::size_t i = p.size(); i > 1; --i)
      std::swap(p[i - 1], p[static_cast<std::size_t>(g.rng.range(0, static_cast<int64_t>(i) - 1))]);
    Json dims = Json::array();
    for (std::size_t i = 0; i < p.size(); ++i) {
      out[i] = x.shape[static_cast<std::size_t>(p[i])];
      dims.push_back(g.rng.chance(0.2) ? p[i] - r : p[i]);
    }
    attrs["dims"] = dims;
  } else if (op == "transpose") {
    int64_t a = random_dim(g, r), b = random_dim(g, r);
    std::swap(out[static_cast<std::size_t>(norm_dim(a, r))], out[static_cast<std::size_t>(norm_dim(b, r))]);
    attrs["dim0"] = a;
    attrs["dim1"] = b;
  } else if (op == "expand") {
    Json s = Json::array();
    Shape o;
    int extra = static_cast<int>(g.rng.range(0, std::max(0, std::min(2, g.opt.max_rank - r))));
    for (int i = 0; i < extra; ++i) {
      int64_t d = g.rng.range(1, g.opt.max_dim);
      o.push_back(d);
      s.push_back(d);
    }
    for (int64_t d : x.shape) {
      if (d == 1 && g.rng.chance(0.6)) {
        int64_t e = g.rng.range(1, g.opt.max_dim);
        o.push_back(e);
        s.push_back(e);
      } else {
        o.push_back(d);
        s.push_back(g.rng.chance(0.4) ? -1 : d);
      }
    }
    if (!g.fits(o)) return false;
    out = o;
    attrs["shape"] = s;
    varied = false;
  } else if (op == "unsqueeze") {
    int64_t d = g.rng.range(-(r + 1), r);
    out.insert(out.begin() + norm_dim(d, r + 1), 1);
    attrs["dim"] = d;
  } else if (op == "squeeze") {
    int64_t form = g.rng.range(0, 2);
    std::vector<int64_t> named;
    if (r == 0) {
      if (form > 0) attrs["dim"] = 0;
    } else if (form == 0) {
      for (int i = 0; i < r; ++i) named.push_back(i);
    } else if (form == 1) {
      int64_t d = random_dim(g, r);
      attrs["dim"] = d;
      named.push_back(norm_dim(d, r));
    } else {
      Json list = Json::array();
      for (int i = 0; i < r; ++i)
        if (g.rng.chance(0.5) || (i == r - 1 && list.empty())) {
          named.push_back(i);
          list.push_back(g.rng.chance(0.3) ? i - r : i);
        }
      attrs["dim"] = list;
    }
    out.clear();
    for (int i = 0; i < r; ++i) {
      bool drop = x.shape[static_cast<std::size_t>(i)] == 1 && std::find(named.begin(), named.end(), i) != named.end();
      if (!drop) out.push_back(x.shape[static_cast<std::size_t>(i)]);
    }
  } else if (op == "flatten") {
    if (r == 0) {
      out = {1};
    } else {
      int64_t a = g.rng.range(0, r - 1), b = g.rng.range(a, r - 1);
      if (g.rng.chance(0.2)) a = 0, b = r - 1;
      else {
        attrs["start_dim"] = g.rng.chance(0.3) ? a - r : a;
        attrs["end_dim"] = g.rng.chance(0.3) ? b - r : b;
      }
      out.clear();
      int64_t m = 1;
      for (int i = 0; i < r; ++i) {
        if (i < a || i > b) {
          out.push_back(x.shape[static_cast<std::size_t>(i)]);
          continue;
        }
        m *= x.shape[static_cast<std::size_t>(i)];
        if (i == b) out.push_back(m);
      }
    }
  } else if (op == "slice") {
    int64_t d = random_dim(g, r);
    auto nd = static_cast<std::size_t>(norm_dim(d, r));
    int64_t n = x.shape[nd];
    std::optional<int64_t> start, end;
    int64_t step = 1, len = 0;
    for (int t = 0; t < 8 && len == 0; ++t) {
      start = g.rng.chance(0.25) ? std::nullopt : std::optional<int64_t>(g.rng.range(-n - 2, n + 1));
      end = g.rng.chance(0.25) ? std::nullopt : std::optional<int64_t>(g.rng.range(-n - 1, n + 3));
      step = g.rng.chance(0.7) ? 1 : g.rng.range(2, 3);
      len = slice_len(n, start, end, step);
    }
    if (len == 0) start = end = std::nullopt, step = 1, len = n;
    attrs["dim"] = d;
    if (start) attrs["start"] = *start;
    else if (g.rng.chance(0.2)) attrs["start"] = nullptr;
    if (end) attrs["end"] = *end;
    if (step != 1 || g.rng.chance(0.2)) attrs["step"] = step;
    out[nd] = len;
  } else if (op == "select") {
    int64_t d = random_dim(g, r);
    auto nd = static_cast<std::size_t>(norm_dim(d, r));
    int64_t n = x.shape[nd];
    attrs["dim"] = d;
    attrs["index"] = g.rng.range(-n, n - 1);
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(nd));
  }
  Val res = keep_elements(x, out);
  res.varied = varied;
  g.finish(op, {g.use(x)}, attrs, res);
  return true;
}

bool gen_cat(Gen& g, const std::string& op) {
  auto xo = g.operand([](const Val& v) { return !v.scalar && v.rank() >= 1; }, kAny, 1);
  if (!xo) return false;
  Val x = *xo;
  int r = x.rank();
  int64_t d = random_dim(g, r);
  auto nd = static_cast<std::size_t>(norm_dim(d, r));
  int k = static_cast<int>(g.rng.range(1, 3));
  std::vector<Val> parts{x};
  Shape out = x.shape;
  for (int i = 1; i < k; ++i) {
    auto same_but_dim = [&](const Val& v) {
      if (v.scalar || v.rank() != r) return false;
      for (int j = 0; j < r; ++j)
        if (j != static_cast<int>(nd) && v.shape[static_cast<std::size_t>(j)] != x.shape[static_cast<std::size_t>(j)]) return false;
      return true;
    };
    std::optional<Val> p;
    int64_t src = g.rng.range(0, 3);
    if (src == 0) p = g.pick(same_but_dim);
    if (!p && src == 1 && x.dtype != DType::Bool && !x.is_inline()) p = g.unary("neg", x);
    if (!p) {
      Shape s = x.shape;
      s[nd] = g.rng.range(1, g.opt.max_dim);
      std::vector<DType> dts = g.dtypes_in(kAny);
      p = g.leaf(g.rng.chance(0.7) ? x.dtype : g.rng.pick(dts), s);
    }
    out[nd] += p->shape[nd];
    parts.push_back(*p);
  }
  if (!g.fits(out)) return false;
  std::vector<const Val*> ptrs;
  for (const Val& p : parts) ptrs.push_back(&p);
  DType dt = result_type(ptrs);
  if (!g.allowed(dt)) return false;
  Val res = like(dt, out, x.lo, x.hi);
  res.exact = 2;
  for (const Val& p : parts) {
    res.lo = std::min(res.lo, p.lo);
    res.hi = std::max(res.hi, p.hi);
    res.finite = res.finite && p.finite;
    res.exact = std::min(res.exact, p.exact);
  }
  if (!is_float(dt)) res.exact = 2;
  if (dt == DType::Bool) res.lo = 0, res.hi = 1;
  if (res.finite && !range_ok(dt, res.lo, res.hi)) return false;
  std::vector<Json> refs;
  for (const Val& p : parts) refs.push_back(g.use(p));
  Json attrs = Json::object();
  attrs["dim"] = d;
  g.finish(op, refs, attrs, res);
  return true;
}

bool gen_pad(Gen& g, const std::string& op) {
  auto xo = g.operand([](const Val& v) { return !v.scalar && v.rank() >= 1; }, kAny, 1);
  if (!xo) return false;
  Val x = *xo;
  int r = x.rank();
  int k = static_cast<int>(g.rng.range(1, std::min(r, 3)));
  Json pad = Json::array();
  Shape out = x.shape;
  bool grows = false;
  for (int i = 0; i < k; ++i) {
    auto di = static_cast<std::size_t>(r - 1 - i);
    int64_t a = g.rng.range(-1, 2), b = g.rng.range(-1, 2);
    if (out[di] + a + b < 1) a = b = 0;
    grows = grows || a > 0 || b > 0;
    out[di] += a + b;
    pad.push_back(a);
    pad.push_back(b);
  }
  if (!g.fits(out)) return false;
  Json attrs = Json::object();
  attrs["pad"] = pad;
  Val res = keep_elements(x, out);
  res.varied = false;
  double v = 0;
  if (is_float(x.dtype)) {
    int64_t form = g.rng.range(0, 4);
    if (form == 1) v = static_cast<double>(g.rng.range(-8, 8)) / 4.0, attrs["value"] = v;
    if (form == 2) v = static_cast<double>(g.rng.range(-3, 3)), attrs["value"] = static_cast<int64_t>(v);
    if (form == 3 && g.nonfinite_ok()) {
      attrs["value"] = "-inf";
      if (grows) res.finite = false;
    }
  } else if (is_integer(x.dtype)) {
    if (g.rng.chance(0.5)) v = static_cast<double>(g.rng.range(-8, 8)), attrs["value"] = static_cast<int64_t>(v);
  }
  if (grows) {
    res.lo = std::min(res.lo, v);
    res.hi = std::max(res.hi, v);
  }
  g.finish(op, {g.use(x)}, attrs, res);
  return true;
}

}  // namespace stax::randgraph::detail

// Generators of the window ops: conv1d, conv2d, max_pool2d, avg_pool2d and adaptive_avg_pool2d.
// Attributes in every written form (an int for every dim, a list, "same"/"valid", absent); the
// output sizes are computed here on their own (PyTorch's formula, ceil_mode's dropped window).
#include "rg_internal.h"

#include <algorithm>
#include <cmath>

namespace stax::randgraph::detail {

namespace {

// An int when every entry is equal (sometimes), else the list.
Json spatial_json(Gen& g, const std::vector<int64_t>& v) {
  if (std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v[0]; }) && g.rng.chance(0.6))
    return v[0];
  return Json(v);
}

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

int64_t windows(int64_t size, int64_t k, int64_t pb, int64_t pe, int64_t s, int64_t d, bool ceil_mode) {
  int64_t out = floor_div(size + pb + pe - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (out - 1) * s >= size + pb) --out;
  return out;
}

// Some window along a dim holds no element of the input (max_pool2d would give -inf there).
bool has_empty_window(int64_t size, int64_t k, int64_t p, int64_t s, int64_t d, int64_t out) {
  for (int64_t o = 0; o < out; ++o) {
    bool any = false;
    for (int64_t i = 0; i < k && !any; ++i) {
      int64_t at = o * s - p + i * d;
      any = at >= 0 && at < size;
    }
    if (!any) return true;
  }
  return false;
}

// A float operand of exactly this rank (from the pool or a fresh leaf), finite, |x| <= bound.
std::optional<Val> window_input(Gen& g, int rank, double bound) {
  auto pred = [&](const Val& v) { return !v.scalar && is_float(v.dtype) && v.finite && v.rank() == rank; };
  std::optional<Val> x;
  if (g.rng.chance(0.7)) x = g.pick(pred);
  if (!x) {
    std::vector<DType> fl = g.dtypes_in(kFloat);
    if (fl.empty()) return std::nullopt;
    x = g.leaf(g.rng.pick(fl), g.random_shape(rank, rank));
  }
  return g.bounded(*x, bound, false);
}

// A tensor of this dtype and shape, finite, |v| <= bound: a fresh leaf or one from the pool.
std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t k = 1; k <= n; ++k)
    if (n % k == 0) d.push_back(k);
  return d;
}

}  // namespace

bool gen_conv(Gen& g, const std::string& op) {
  const int n = op == "conv1d" ? 1 : 2;
  std::optional<Val> xo = window_input(g, n + 2, 6);
  if (!xo) return false;
  Val x = *xo;
  const int64_t channels = x.shape[1];
  const int64_t groups = g.rng.chance(0.6) ? 1 : g.rng.pick(divisors(channels));
  const int64_t outs = groups * g.rng.range(1, 3);
  Json attrs = Json::object();
  const int64_t mode = g.rng.range(0, 9);  // 0-1: "same", 2: "valid", else numbers
  std::vector<int64_t> k(n), s(n, 1), d(n, 1), pb(n, 0), pe(n, 0);
  Shape out{x.shape[0], outs};
  for (int i = 0; i < n; ++i) {
    const int64_t size = x.shape[static_cast<std::size_t>(i + 2)];
    k[i] = g.rng.range(1, 3);
    if (g.rng.chance(0.3)) d[i] = 2;
    if (mode >= 2 && g.rng.chance(0.4)) s[i] = g.rng.range(2, 3);
    if (mode >= 3 && g.rng.chance(0.5)) pb[i] = pe[i] = g.rng.range(1, 2);
    if (mode < 2) {
      pb[i] = d[i] * (k[i] - 1) / 2;
      pe[i] = d[i] * (k[i] - 1) - pb[i];
    }
    if (size + pb[i] + pe[i] < d[i] * (k[i] - 1) + 1) return false;
    out.push_back(windows(size, k[i], pb[i], pe[i], s[i], d[i], false));
  }
  if (!g.fits(out)) return false;
  if (mode < 2) attrs["padding"] = "same";
  if (mode == 2) attrs["padding"] = "valid";
  if (mode >= 3 && (pb != std::vector<int64_t>(n, 0) || g.rng.chance(0.3))) attrs["padding"] = spatial_json(g, pb);
  if (s != std::vector<int64_t>(n, 1) || g.rng.chance(0.2)) attrs["stride"] = spatial_json(g, s);
  if (d != std::vector<int64_t>(n, 1) || g.rng.chance(0.2)) attrs["dilation"] = spatial_json(g, d);
  if (groups != 1 || g.rng.chance(0.2)) attrs["groups"] = groups;
  Shape ws{outs, channels / groups};
  ws.insert(ws.end(), k.begin(), k.end());
  if (!g.fits(ws)) return false;
  Val w = param(g, x.dtype, ws, 3);
  std::vector<Json> args{g.use(x), g.use(w)};
  double bias = 0;
  const int64_t b = g.rng.range(0, 9);
  if (b < 5) {
    Val bv = param(g, x.dtype, {outs}, 3);
    bias = bv.mag();
    args.push_back(g.use(bv));
  } else if (b == 5) {
    args.push_back(nullptr);
  }
  double taps = static_cast<double>(channels / groups);
  for (int64_t ki : k) taps *= static_cast<double>(ki);
  const double m = taps * x.mag() * w.mag() + bias;
  Val r = like(x.dtype, out, -m, m);
  r.exact = 0;
  g.finish(op, args, attrs, r);
  return true;
}

namespace {

bool gen_adaptive(Gen& g, const std::string& op, const Val& x) {
  Shape out(x.shape.begin(), x.shape.end() - 2);
  Json size = Json::array();
  for (int i = 0; i < 2; ++i) {
    const int64_t in = x.shape[x.shape.size() - 2 + static_cast<std::size_t>(i)];
    if (g.rng.chance(0.2)) {
      size.push_back(nullptr);
      out.push_back(in);
      continue;
    }
    const int64_t o = g.rng.range(1, g.opt.max_dim);
    size.push_back(o);
    out.push_back(o);
  }
  if (!g.fits(out)) return false;
  Json attrs = Json::object();
  attrs["output_size"] = size;
  if (size[0] == size[1] && !size[0].is_null() && g.rng.chance(0.5)) attrs["output_size"] = size[0];
  Val r = like(x.dtype, out, x.lo, x.hi);
  r.exact = 0;
  g.finish(op, {g.use(x)}, attrs, r);
  return true;
}

}  // namespace

bool gen_pool(Gen& g, const std::string& op) {
  std::optional<Val> xo = window_input(g, static_cast<int>(g.rng.range(3, 4)), 100);
  if (!xo) return false;
  const Val x = *xo;
  if (op == "adaptive_avg_pool2d") return gen_adaptive(g, op, x);
  const bool is_max = op == "max_pool2d";
  std::vector<int64_t> k(2), s(2), d(2, 1), p(2, 0);
  const bool default_stride = g.rng.chance(0.4);
  const bool ceil_mode = g.rng.chance(0.4);
  Shape out(x.shape.begin(), x.shape.end() - 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const int64_t size = x.shape[x.shape.size() - 2 + i];
    k[i] = g.rng.range(1, 3);
    if (is_max && g.rng.chance(0.3)) d[i] = 2;
    s[i] = default_stride ? k[i] : g.rng.range(1, 3);
    const int64_t half = (d[i] * (k[i] - 1) + 1) / 2;
    if (half > 0 && g.rng.chance(0.5)) p[i] = g.rng.range(1, half);
    const int64_t o = windows(size, k[i], p[i], p[i], s[i], d[i], ceil_mode);
    if (o < 1 || has_empty_window(size, k[i], p[i], s[i], d[i], o)) return false;
    out.push_back(o);
  }
  if (!g.fits(out)) return false;
  Json attrs = Json::object();
  attrs["kernel_size"] = spatial_json(g, k);
  if (!default_stride) attrs["stride"] = spatial_json(g, s);
  else if (g.rng.chance(0.2)) attrs["stride"] = nullptr;
  if (p != std::vector<int64_t>{0, 0} || g.rng.chance(0.2)) attrs["padding"] = spatial_json(g, p);
  if (is_max && (d != std::vector<int64_t>{1, 1} || g.rng.chance(0.2))) attrs["dilation"] = spatial_json(g, d);
  if (ceil_mode || g.rng.chance(0.2)) attrs["ceil_mode"] = ceil_mode;
  Val r = like(x.dtype, out, x.lo, x.hi);
  r.exact = is_max ? x.exact : 0;
  if (!is_max) {
    const bool include_pad = !g.rng.chance(0.4);
    if (!include_pad || g.rng.chance(0.2)) attrs["count_include_pad"] = include_pad;
    if (include_pad) {  // the padding counts as zeros
      r.lo = std::min(r.lo, 0.0);
      r.hi = std::max(r.hi, 0.0);
    }
    if (g.rng.chance(0.25)) {
      const int64_t div = g.rng.range(1, k[0] * k[1] + 1);
      attrs["divisor_override"] = div;
      const double scale = static_cast<double>(k[0] * k[1]) / static_cast<double>(div);
      r.lo = std::min(0.0, x.lo * scale);
      r.hi = std::max(0.0, x.hi * scale);
    }
  }
  g.finish(op, {g.use(x)}, attrs, r);
  return true;
}

}  // namespace stax::randgraph::detail

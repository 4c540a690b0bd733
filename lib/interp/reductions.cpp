// Reductions (sum mean prod amax amin any all var std logsumexp), argmax/argmin and scans.
// Floating inputs accumulate in double (sums compensated), integer and bool inputs in wrapping
// int64; the result is rounded or wrapped to the node's dtype once.
#include "internal.h"

#include <algorithm>
#include <cmath>

#include "stax/support/error.h"

namespace stax::interp::detail {

namespace {

// Where the elements of each reduction live in the dense input: `outer` holds the offset of each
// reduction's first element in the output's row-major order (keepdim does not change it),
// `inner` the offsets within one reduction in row-major order of the reduced dims (so position p
// of `inner` is the flattened index argmax reports).
struct ReduceLayout {
  std::vector<int64_t> outer;
  std::vector<int64_t> inner;
};

ReduceLayout reduce_layout(const Shape& in, const std::vector<int64_t>& dims) {
  const StridedView all = contiguous_view(in);
  StridedView kept, reduced;
  for (std::size_t d = 0; d < in.size(); ++d) {
    const bool is_reduced = std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
    StridedView& v = is_reduced ? reduced : kept;
    v.shape.push_back(in[d]);
    v.strides.push_back(all.strides[d]);
  }
  for (int64_t d : dims)
    STAX_ASSERT(d >= 0 && d < static_cast<int64_t>(in.size()), "reduced dim out of range");
  return {view_offsets(kept), view_offsets(reduced)};
}

// Neumaier's compensated sum; a non-finite running sum is returned as is.
double compensated_sum(const std::vector<double>& xs) {
  double s = 0.0, c = 0.0;
  for (double x : xs) {
    const double t = s + x;
    c += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  return std::isfinite(s) ? s + c : s;
}

// amax/amin: NaN propagates.
double float_extreme(const std::vector<double>& xs, bool is_max) {
  double m = xs.front();
  for (double x : xs) {
    if (std::isnan(x)) return x;
    if (is_max ? x > m : x < m) m = x;
  }
  return m;
}

// sum((x - mean)^2) / max(0, n - correction), as PyTorch's WelfordOps::project (so a
// correction >= n divides by zero: inf, or nan when all deviations are zero).
double variance(const std::vector<double>& xs, double correction) {
  const double n = static_cast<double>(xs.size());
  const double mean = compensated_sum(xs) / n;
  std::vector<double> sq(xs.size());
  for (std::size_t k = 0; k < xs.size(); ++k) sq[k] = (xs[k] - mean) * (xs[k] - mean);
  const double divisor = n > correction ? n - correction : 0.0;
  return compensated_sum(sq) / divisor;
}

// log(sum(exp(x - m))) + m with m the max, replaced by 0 when infinite (as PyTorch).
double logsumexp(const std::vector<double>& xs) {
  double m = float_extreme(xs, true);
  if (std::isinf(m)) m = 0.0;
  std::vector<double> e(xs.size());
  for (std::size_t k = 0; k < xs.size(); ++k) e[k] = std::exp(xs[k] - m);
  return std::log(compensated_sum(e)) + m;
}

double reduce_float(ReduceKind kind, const std::vector<double>& xs, const graph::Attrs& a) {
  switch (kind) {
    case ReduceKind::Sum: return compensated_sum(xs);
    case ReduceKind::Mean: return compensated_sum(xs) / static_cast<double>(xs.size());
    case ReduceKind::Prod: {
      double p = 1.0;
      for (double x : xs) p *= x;
      return p;
    }
    case ReduceKind::Amax: return float_extreme(xs, true);
    case ReduceKind::Amin: return float_extreme(xs, false);
    case ReduceKind::Any:
      return std::any_of(xs.begin(), xs.end(), [](double x) { return x != 0.0; }) ? 1.0 : 0.0;
    case ReduceKind::All:
      return std::all_of(xs.begin(), xs.end(), [](double x) { return x != 0.0; }) ? 1.0 : 0.0;
    case ReduceKind::Var: return variance(xs, a.correction);
    case ReduceKind::Std: return std::sqrt(variance(xs, a.correction));
    case ReduceKind::Logsumexp: return logsumexp(xs);
  }
  return 0.0;
}

int64_t reduce_int(ReduceKind kind, const std::vector<int64_t>& xs) {
  switch (kind) {
    case ReduceKind::Sum: {
      int64_t s = 0;
      for (int64_t x : xs) s = wrapping_add(s, x);
      return s;
    }
    case ReduceKind::Prod: {
      int64_t p = 1;
      for (int64_t x : xs) p = wrapping_mul(p, x);
      return p;
    }
    case ReduceKind::Amax: return *std::max_element(xs.begin(), xs.end());
    case ReduceKind::Amin: return *std::min_element(xs.begin(), xs.end());
    case ReduceKind::Any:
      return std::any_of(xs.begin(), xs.end(), [](int64_t x) { return x != 0; }) ? 1 : 0;
    case ReduceKind::All:
      return std::all_of(xs.begin(), xs.end(), [](int64_t x) { return x != 0; }) ? 1 : 0;
    case ReduceKind::Mean:
    case ReduceKind::Var:
    case ReduceKind::Std:
    case ReduceKind::Logsumexp: break;
  }
  STAX_ASSERT(false, "floating-only reduction on an integer tensor");
  return 0;
}

}  // namespace

Tensor eval_reduction(const Context& ctx, const graph::Value& node, ReduceKind kind) {
  const Tensor& in = ctx.arg(node, 0);
  const ReduceLayout layout = reduce_layout(in.shape(), node.attrs.dims);
  STAX_ASSERT(static_cast<int64_t>(layout.outer.size()) == node.numel(),
              "reduction output size mismatch at node '" + node.name + "'");
  Tensor out(node.dtype, node.shape);
  const bool floating = is_floating(in.dtype());
  std::vector<double> fs(layout.inner.size());
  std::vector<int64_t> is(layout.inner.size());
  for (std::size_t o = 0; o < layout.outer.size(); ++o) {
    const int64_t base = layout.outer[o];
    const auto i = static_cast<int64_t>(o);
    if (floating) {
      for (std::size_t k = 0; k < layout.inner.size(); ++k) fs[k] = in.get_double(base + layout.inner[k]);
      store_float(out, i, reduce_float(kind, fs, node.attrs));
    } else {
      for (std::size_t k = 0; k < layout.inner.size(); ++k) is[k] = in.get_int(base + layout.inner[k]);
      store_int(out, i, reduce_int(kind, is));
    }
  }
  return out;
}

// PyTorch's rule: the first occurrence wins ties; NaN counts as the extreme for both argmax and
// argmin (the first NaN is reported).
Tensor eval_argreduce(const Context& ctx, const graph::Value& node, bool is_max) {
  const Tensor& in = ctx.arg(node, 0);
  const ReduceLayout layout = reduce_layout(in.shape(), node.attrs.dims);
  STAX_ASSERT(static_cast<int64_t>(layout.outer.size()) == node.numel(),
              "argreduce output size mismatch at node '" + node.name + "'");
  Tensor out(node.dtype, node.shape);
  const bool floating = is_floating(in.dtype());
  for (std::size_t o = 0; o < layout.outer.size(); ++o) {
    const int64_t base = layout.outer[o];
    std::size_t best = 0;
    if (floating) {
      double m = in.get_double(base + layout.inner[0]);
      for (std::size_t k = 1; k < layout.inner.size() && !std::isnan(m); ++k) {
        const double x = in.get_double(base + layout.inner[k]);
        if (std::isnan(x) || (is_max ? x > m : x < m)) {
          m = x;
          best = k;
        }
      }
    } else {
      int64_t m = in.get_int(base + layout.inner[0]);
      for (std::size_t k = 1; k < layout.inner.size(); ++k) {
        const int64_t x = in.get_int(base + layout.inner[k]);
        if (is_max ? x > m : x < m) {
          m = x;
          best = k;
        }
      }
    }
    store_int(out, static_cast<int64_t>(o), static_cast<int64_t>(best));
  }
  return out;
}

// cumsum/cumprod along attrs.dim: floats accumulate in double and each prefix is rounded to the
// result dtype (as PyTorch's CPU kernel); ints and bools in wrapping int64.
Tensor eval_scan(const Context& ctx, const graph::Value& node, bool is_prod) {
  const Tensor& in = ctx.arg(node, 0);
  STAX_ASSERT(in.shape() == node.shape, "scan changes the shape");
  Tensor out(node.dtype, node.shape);
  const Lines lines = lines_along(in.shape(), node.attrs.dim);
  const bool floating = is_floating(in.dtype());
  for (int64_t start : lines.starts) {
    double facc = is_prod ? 1.0 : 0.0;
    int64_t iacc = is_prod ? 1 : 0;
    for (int64_t k = 0; k < lines.length; ++k) {
      const int64_t off = start + k * lines.stride;
      if (floating) {
        const double x = in.get_double(off);
        facc = is_prod ? facc * x : facc + x;
        store_float(out, off, facc);
      } else {
        const int64_t x = in.get_int(off);
        iacc = is_prod ? wrapping_mul(iacc, x) : wrapping_add(iacc, x);
        store_int(out, off, iacc);
      }
    }
  }
  return out;
}

}  // namespace stax::interp::detail

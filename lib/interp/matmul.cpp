// matmul and the composites (softmax, log_softmax, layer_norm, rms_norm, linear, batch_norm), each computed
// directly from its definition in double, not through the front end's expansion: the interpreter
// is what checks that expansion.
#include "internal.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "stax/support/error.h"

namespace stax::interp::detail {

namespace {

// A dense operand as [batch..., rows, cols] with the strides of its batch dims.
struct MatrixStack {
  Shape batch;
  std::vector<int64_t> batch_strides;
  int64_t rows = 1, cols = 1;
};

MatrixStack as_stack(const Shape& s, bool is_lhs) {
  MatrixStack m;
  if (s.size() == 1) {  // lhs [k] -> [1, k]; rhs [k] -> [k, 1]
    m.rows = is_lhs ? 1 : s[0];
    m.cols = is_lhs ? s[0] : 1;
    return m;
  }
  STAX_ASSERT(s.size() >= 2, "matmul of a 0-d tensor");
  m.rows = s[s.size() - 2];
  m.cols = s[s.size() - 1];
  m.batch.assign(s.begin(), s.end() - 2);
  StridedView v = contiguous_view(m.batch);
  for (int64_t& st : v.strides) st *= m.rows * m.cols;
  m.batch_strides = v.strides;
  return m;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const int64_t da = k < out.size() - a.size() ? 1 : a[k - (out.size() - a.size())];
    const int64_t db = k < out.size() - b.size() ? 1 : b[k - (out.size() - b.size())];
    STAX_ASSERT(da == db || da == 1 || db == 1, "matmul batch dims do not broadcast");
    out[k] = da == 1 ? db : da;
  }
  return out;
}

// The offsets of each batch's matrix, broadcast over `batch`.
std::vector<int64_t> batch_offsets(const MatrixStack& m, const Shape& batch) {
  StridedView v;
  v.shape = m.batch;
  v.strides = m.batch_strides;
  return view_offsets(broadcast_view(v, batch));
}

// Every element of `t` as T (double for a floating tensor, int64 otherwise).
template <typename T>
std::vector<T> elements(const Tensor& t) {
  std::vector<T> out(idx(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    if constexpr (std::is_same_v<T, double>) {
      out[idx(i)] = t.get_double(i);
    } else {
      out[idx(i)] = t.get_int(i);
    }
  }
  return out;
}

// out[b, i, j] = sum_p a[b, i, p] * rhs(p, j), with `rhs_at(b_offset, p, j)` the rhs offset.
// Floats accumulate in double, ints in wrapping int64.
template <typename T, typename RhsAt>
void matmul_typed(Tensor& out, const Tensor& a_t, const std::vector<int64_t>& a_base, const Tensor& b_t,
                  const std::vector<int64_t>& b_base, int64_t n, int64_t k, int64_t m, RhsAt rhs_at) {
  const std::vector<T> a = elements<T>(a_t);
  const std::vector<T> b = elements<T>(b_t);
  int64_t o = 0;
  for (std::size_t bi = 0; bi < a_base.size(); ++bi) {
    for (int64_t i = 0; i < n; ++i) {
      const T* row = a.data() + a_base[bi] + i * k;
      for (int64_t j = 0; j < m; ++j, ++o) {
        T acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          const T rhs = b[idx(rhs_at(b_base[bi], p, j))];
          if constexpr (std::is_same_v<T, double>) {
            acc += row[p] * rhs;
          } else {
            acc = wrapping_add(acc, wrapping_mul(row[p], rhs));
          }
        }
        if constexpr (std::is_same_v<T, double>) {
          store_float(out, o, acc);
        } else {
          store_int(out, o, acc);
        }
      }
    }
  }
}

template <typename RhsAt>
void matmul_into(Tensor& out, const Tensor& a, const std::vector<int64_t>& a_base, const Tensor& b,
                 const std::vector<int64_t>& b_base, int64_t n, int64_t k, int64_t m, RhsAt rhs_at) {
  if (is_floating(out.dtype())) {
    matmul_typed<double>(out, a, a_base, b, b_base, n, k, m, rhs_at);
  } else {
    matmul_typed<int64_t>(out, a, a_base, b, b_base, n, k, m, rhs_at);
  }
}

}  // namespace

// torch.matmul: 1-D x 1-D dot, 2-D mm, 1-D operands promoted to a matrix and the added dim
// removed, batch dims broadcast. The result's row-major order is [batch..., n, m] in every case.
Tensor eval_matmul(const Context& ctx, const graph::Value& node) {
  const Tensor& a = ctx.arg(node, 0);
  const Tensor& b = ctx.arg(node, 1);
  const MatrixStack ma = as_stack(a.shape(), true);
  const MatrixStack mb = as_stack(b.shape(), false);
  STAX_ASSERT(ma.cols == mb.rows, "matmul inner dims differ");
  const Shape batch = broadcast_shapes(ma.batch, mb.batch);
  STAX_ASSERT(shape_numel(batch) * ma.rows * mb.cols == node.numel(),
              "matmul output size mismatch at node '" + node.name + "'");
  Tensor out(node.dtype, node.shape);
  const int64_t m = mb.cols;
  matmul_into(out, a, batch_offsets(ma, batch), b, batch_offsets(mb, batch), ma.rows, ma.cols, m,
              [m](int64_t base, int64_t p, int64_t j) { return base + p * m + j; });
  return out;
}

// linear(x, w, b) = x @ w.T + b, with w [out, in] or [in].
Tensor eval_linear(const Context& ctx, const graph::Value& node) {
  const Tensor& x = ctx.arg(node, 0);
  const Tensor& w = ctx.arg(node, 1);
  STAX_ASSERT(!x.shape().empty() && !w.shape().empty() && w.shape().size() <= 2,
              "linear operand ranks");
  const int64_t k = x.shape().back();
  const int64_t rows = x.numel() / k;
  const int64_t m = w.shape().size() == 2 ? w.shape()[0] : 1;
  STAX_ASSERT(w.shape().back() == k && rows * m == node.numel(), "linear shapes");
  Tensor out(node.dtype, node.shape);
  // One "batch": x as [rows, k]; rhs(p, j) = w[j, p].
  matmul_into(out, x, std::vector<int64_t>{0}, w, std::vector<int64_t>{0}, rows, k, m,
              [k](int64_t base, int64_t p, int64_t j) { return base + j * k + p; });
  if (!Context::has_value_arg(node, 2)) return out;
  const Tensor& bias = ctx.arg(node, 2);
  const std::vector<int64_t> offsets =
      view_offsets(broadcast_view(contiguous_view(bias.shape()), node.shape));
  for (int64_t o = 0; o < node.numel(); ++o) {
    if (is_floating(out.dtype())) {
      store_float(out, o, out.get_double(o) + bias.get_double(offsets[idx(o)]));
    } else {
      store_int(out, o, wrapping_add(out.get_int(o), bias.get_int(offsets[idx(o)])));
    }
  }
  return out;
}

// softmax(x)_i = exp(x_i - max) / sum_j exp(x_j - max); log_softmax = x_i - max - log(sum).
Tensor eval_softmax(const Context& ctx, const graph::Value& node, bool log) {
  const Tensor& x = ctx.arg(node, 0);
  Tensor out(node.dtype, node.shape);
  const Lines lines = lines_along(x.shape(), node.attrs.dim);
  std::vector<double> v(idx(lines.length)), e(idx(lines.length));
  for (int64_t start : lines.starts) {
    for (int64_t k = 0; k < lines.length; ++k) v[idx(k)] = x.get_double(start + k * lines.stride);
    double mx = v[0];  // NaN propagates
    for (int64_t k = 1; k < lines.length && !std::isnan(mx); ++k)
      if (std::isnan(v[idx(k)]) || v[idx(k)] > mx) mx = v[idx(k)];
    double sum = 0.0;
    for (int64_t k = 0; k < lines.length; ++k) {
      e[idx(k)] = std::exp(v[idx(k)] - mx);
      sum += e[idx(k)];
    }
    for (int64_t k = 0; k < lines.length; ++k) {
      const double y = log ? (v[idx(k)] - mx) - std::log(sum) : e[idx(k)] / sum;
      store_float(out, start + k * lines.stride, y);
    }
  }
  return out;
}

namespace {

// The rows of a normalization: x viewed as [rows, n] with n the product of normalized_shape.
int64_t normalized_size(const graph::Value& node, const Tensor& x) {
  const Shape& ns = node.attrs.normalized_shape;
  STAX_ASSERT(ns.size() <= x.shape().size() &&
                  std::equal(ns.begin(), ns.end(), x.shape().end() - static_cast<std::ptrdiff_t>(ns.size())),
              "normalized_shape is not a suffix of the input shape");
  return shape_numel(ns);
}

// The optional per-element affine operand k (weight or bias), or nullptr when absent.
const Tensor* optional_arg(const Context& ctx, const graph::Value& node, std::size_t k, int64_t n) {
  if (!Context::has_value_arg(node, k)) return nullptr;
  const Tensor& t = ctx.arg(node, k);
  STAX_ASSERT(t.numel() == n, "affine operand of the wrong size");
  return &t;
}

}  // namespace

// (x - mean) / sqrt(var + eps) * weight + bias over the trailing normalized dims, biased var.
Tensor eval_layer_norm(const Context& ctx, const graph::Value& node) {
  const Tensor& x = ctx.arg(node, 0);
  const int64_t n = normalized_size(node, x);
  const Tensor* weight = optional_arg(ctx, node, 1, n);
  const Tensor* bias = optional_arg(ctx, node, 2, n);
  Tensor out(node.dtype, node.shape);
  for (int64_t base = 0; base < x.numel(); base += n) {
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j) sum += x.get_double(base + j);
    const double mean = sum / static_cast<double>(n);
    double sq = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      const double d = x.get_double(base + j) - mean;
      sq += d * d;
    }
    const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(n) + node.attrs.eps);
    for (int64_t j = 0; j < n; ++j) {
      double y = (x.get_double(base + j) - mean) * rstd;
      if (weight) y *= weight->get_double(j);
      if (bias) y += bias->get_double(j);
      store_float(out, base + j, y);
    }
  }
  return out;
}

// x * rsqrt(mean(x^2) + eps) * weight over the trailing normalized dims (PyTorch 2.4).
Tensor eval_rms_norm(const Context& ctx, const graph::Value& node) {
  const Tensor& x = ctx.arg(node, 0);
  const int64_t n = normalized_size(node, x);
  const Tensor* weight = optional_arg(ctx, node, 1, n);
  Tensor out(node.dtype, node.shape);
  for (int64_t base = 0; base < x.numel(); base += n) {
    double sq = 0.0;
    for (int64_t j = 0; j < n; ++j) sq += x.get_double(base + j) * x.get_double(base + j);
    const double r = 1.0 / std::sqrt(sq / static_cast<double>(n) + node.attrs.eps);
    for (int64_t j = 0; j < n; ++j) {
      double y = x.get_double(base + j) * r;
      if (weight) y *= weight->get_double(j);
      store_float(out, base + j, y);
    }
  }
  return out;
}

// batch_norm, the inference form, as PyTorch's kernel computes it: per channel
// alpha = weight / sqrt(var + eps) and beta = bias - mean * alpha, each rounded to x's dtype,
// then x * alpha + beta (so a zero variance with eps 0 gives inf - inf = NaN, as in PyTorch).
Tensor eval_batch_norm(const Context& ctx, const graph::Value& node) {
  const Tensor& x = ctx.arg(node, 0);
  const Tensor& mean = ctx.arg(node, 1);
  const Tensor& var = ctx.arg(node, 2);
  const int64_t channels = x.shape().at(1);
  const Tensor* weight = optional_arg(ctx, node, 3, channels);
  const Tensor* bias = optional_arg(ctx, node, 4, channels);
  const int64_t inner = x.numel() / (x.shape()[0] * channels);
  const DType dt = node.dtype;
  std::vector<double> alpha(idx(channels)), beta(idx(channels));
  for (int64_t c = 0; c < channels; ++c) {
    const double var_eps = round_to(var.get_double(c) + round_to(node.attrs.eps, dt), dt);
    const double a = round_to(1.0 / std::sqrt(var_eps) * (weight ? weight->get_double(c) : 1.0), dt);
    alpha[idx(c)] = a;
    beta[idx(c)] = round_to((bias ? bias->get_double(c) : 0.0) - mean.get_double(c) * a, dt);
  }
  Tensor out(node.dtype, node.shape);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto c = idx((i / inner) % channels);
    store_float(out, i, x.get_double(i) * alpha[c] + beta[c]);
  }
  return out;
}

}  // namespace stax::interp::detail

#include "fold.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "stax/graph/promote.h"
#include "stax/support/error.h"

namespace stax::importer::detail::fold {

namespace {

// Visits every element of `out_shape` in row-major order with the matching element offset in
// each operand, whose strides (in elements, 0 along broadcast dims) are given.
template <typename F>
void for_each_index(const Shape& out_shape, const std::vector<std::vector<int64_t>>& operand_strides,
                    std::vector<int64_t> offsets, F&& fn) {
  int64_t n = shape_numel(out_shape);
  std::size_t rank = out_shape.size();
  std::vector<int64_t> idx(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    fn(i, offsets);
    for (std::size_t d = rank; d-- > 0;) {
      for (std::size_t k = 0; k < offsets.size(); ++k) offsets[k] += operand_strides[k][d];
      if (++idx[d] < out_shape[d]) break;
      for (std::size_t k = 0; k < offsets.size(); ++k) offsets[k] -= operand_strides[k][d] * out_shape[d];
      idx[d] = 0;
    }
  }
}

// Strides of `shape` aligned to the right of `out_shape`, 0 where it broadcasts.
std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out_shape) {
  std::vector<int64_t> s = strides(shape);
  std::vector<int64_t> out(out_shape.size(), 0);
  std::size_t lead = out_shape.size() - shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d)
    out[lead + d] = shape[d] == 1 ? 0 : s[d];
  return out;
}

Shape broadcast_all(const std::vector<const Tensor*>& ts) {
  Shape out = ts[0]->shape();
  for (const Tensor* t : ts) {
    std::optional<Shape> b = graph::broadcast_shapes(out, t->shape());
    STAX_ASSERT(b.has_value(), "fold: shapes do not broadcast");
    out = *b;
  }
  return out;
}

// out[i] = t[offset] for the strided walk (a view made a copy).
Tensor strided_copy(const Tensor& t, const Shape& out_shape, int64_t base, const std::vector<int64_t>& src_strides) {
  Tensor out(t.dtype(), out_shape);
  std::size_t size = dtype_size(t.dtype());
  for_each_index(out_shape, {src_strides}, {base}, [&](int64_t i, const std::vector<int64_t>& off) {
    std::memcpy(out.data() + static_cast<std::size_t>(i) * size, t.data() + static_cast<std::size_t>(off[0]) * size, size);
  });
  return out;
}

int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

int64_t int_power(int64_t base, int64_t e) {
  if (e < 0) throw FoldError("an integer power with a negative exponent");
  int64_t r = 1;
  while (e > 0) {
    if (e & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    e >>= 1;
  }
  return r;
}

int64_t int_binary(Binary op, int64_t a, int64_t b) {
  bool by_zero = (op == Binary::Div || op == Binary::Mod || op == Binary::FMod) && b == 0;
  if (by_zero) throw FoldError("an integer division by zero");
  bool overflow = b == -1 && a == std::numeric_limits<int64_t>::min();
  switch (op) {
    case Binary::Add: return wrap_add(a, b);
    case Binary::Sub: return wrap_sub(a, b);
    case Binary::Mul: return wrap_mul(a, b);
    case Binary::Div: return overflow ? a : a / b;
    case Binary::FMod: return overflow ? 0 : a % b;
    case Binary::Mod: {
      int64_t r = overflow ? 0 : a % b;
      return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
    }
    case Binary::Pow: return int_power(a, b);
    case Binary::Min: return std::min(a, b);
    case Binary::Max: return std::max(a, b);
    case Binary::Eq: return a == b;
    case Binary::Lt: return a < b;
    case Binary::Gt: return a > b;
    case Binary::Le: return a <= b;
    case Binary::Ge: return a >= b;
    case Binary::And: return a != 0 && b != 0;
    case Binary::Or: return a != 0 || b != 0;
    case Binary::Xor: return (a != 0) != (b != 0);
  }
  return 0;
}

double float_binary(Binary op, double a, double b) {
  switch (op) {
    case Binary::Add: return a + b;
    case Binary::Sub: return a - b;
    case Binary::Mul: return a * b;
    case Binary::Div: return a / b;
    case Binary::FMod: return std::fmod(a, b);
    case Binary::Mod: {
      double r = std::fmod(a, b);
      return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
    }
    case Binary::Pow: return std::pow(a, b);
    case Binary::Min: return std::isnan(a) || std::isnan(b) ? std::nan("") : std::min(a, b);
    case Binary::Max: return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b);
    case Binary::Eq: return a == b;
    case Binary::Lt: return a < b;
    case Binary::Gt: return a > b;
    case Binary::Le: return a <= b;
    case Binary::Ge: return a >= b;
    case Binary::And: return a != 0 && b != 0;
    case Binary::Or: return a != 0 || b != 0;
    case Binary::Xor: return (a != 0) != (b != 0);
  }
  return 0;
}

double float_unary(Unary op, double x) {
  switch (op) {
    case Unary::Neg: return -x;
    case Unary::Abs: return std::fabs(x);
    case Unary::Not: return x == 0;
    case Unary::Sqrt: return std::sqrt(x);
    case Unary::Exp: return std::exp(x);
    case Unary::Log: return std::log(x);
    case Unary::Reciprocal: return 1.0 / x;
    case Unary::Floor: return std::floor(x);
    case Unary::Ceil: return std::ceil(x);
    case Unary::Round: return std::nearbyint(x);  // half to even in the default rounding mode
    case Unary::Sign: return x > 0 ? 1.0 : x < 0 ? -1.0 : x;
    case Unary::Relu: return x > 0 ? x : (std::isnan(x) ? x : 0.0);
    case Unary::Sin: return std::sin(x);
    case Unary::Cos: return std::cos(x);
    case Unary::Tanh: return std::tanh(x);
    case Unary::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case Unary::Erf: return std::erf(x);
  }
  return 0;
}

int64_t int_unary(Unary op, int64_t x) {
  switch (op) {
    case Unary::Neg: return wrap_sub(0, x);
    case Unary::Abs: return x < 0 ? wrap_sub(0, x) : x;
    case Unary::Not: return x == 0;
    case Unary::Sign: return (x > 0) - (x < 0);
    case Unary::Relu: return x > 0 ? x : 0;
    case Unary::Floor:
    case Unary::Ceil:
    case Unary::Round: return x;
    default: throw FoldError("a float function of integers");
  }
}

}  // namespace

std::vector<int64_t> strides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

Tensor reshape(const Tensor& t, const Shape& shape) {
  Tensor out(t.dtype(), shape);
  STAX_ASSERT(out.nbytes() == t.nbytes(), "fold::reshape changes the element count");
  if (t.nbytes() > 0) std::memcpy(out.data(), t.data(), t.nbytes());
  return out;
}

Tensor cast(const Tensor& t, DType dtype) {
  Tensor out(dtype, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (!is_floating(t.dtype())) {
      out.set_int(i, t.get_int(i));
    } else if (is_floating(dtype) || dtype == DType::Bool) {
      out.set_double(i, t.get_double(i));
    } else {
      double v = std::trunc(t.get_double(i));
      double lo = dtype == DType::Int32 ? -2147483648.0 : -9223372036854775808.0;
      if (!(v >= lo && v < -lo))
        throw FoldError("a cast of " + std::to_string(t.get_double(i)) + " to " + std::string(dtype_name(dtype)) +
                        " (not finite or out of range)");
      out.set_int(i, static_cast<int64_t>(v));
    }
  }
  return out;
}

Tensor permute(const Tensor& t, const std::vector<int64_t>& perm) {
  std::vector<int64_t> s = strides(t.shape());
  Shape out_shape;
  std::vector<int64_t> src;
  for (int64_t p : perm) {
    out_shape.push_back(t.shape()[static_cast<std::size_t>(p)]);
    src.push_back(s[static_cast<std::size_t>(p)]);
  }
  return strided_copy(t, out_shape, 0, src);
}

Tensor slice(const Tensor& t, int64_t axis, int64_t start, int64_t step, int64_t count) {
  std::vector<int64_t> s = strides(t.shape());
  Shape out_shape = t.shape();
  auto a = static_cast<std::size_t>(axis);
  out_shape[a] = count;
  int64_t base = start * s[a];
  s[a] *= step;
  return strided_copy(t, out_shape, base, s);
}

Tensor take(const Tensor& t, int64_t axis, const std::vector<int64_t>& index, const Shape& index_shape) {
  auto a = static_cast<std::size_t>(axis);
  Shape out_shape(t.shape().begin(), t.shape().begin() + axis);
  out_shape.insert(out_shape.end(), index_shape.begin(), index_shape.end());
  out_shape.insert(out_shape.end(), t.shape().begin() + axis + 1, t.shape().end());
  Tensor out(t.dtype(), out_shape);
  int64_t outer = shape_numel(Shape(t.shape().begin(), t.shape().begin() + axis));
  int64_t inner = shape_numel(Shape(t.shape().begin() + axis + 1, t.shape().end()));
  std::size_t chunk = static_cast<std::size_t>(inner) * dtype_size(t.dtype());
  unsigned char* dst = out.data();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j : index) {
      std::memcpy(dst, t.data() + static_cast<std::size_t>(o * t.shape()[a] + j) * chunk, chunk);
      dst += chunk;
    }
  return out;
}

Tensor scatter_nd(const Tensor& data, const std::vector<int64_t>& index, std::size_t k, const Tensor& updates) {
  Tensor out = reshape(data, data.shape());
  std::vector<int64_t> s = strides(data.shape());
  std::size_t slice = static_cast<std::size_t>(s[k - 1]) * dtype_size(data.dtype());  // prod(shape[k:])
  for (std::size_t t = 0; t * k < index.size(); ++t) {
    int64_t offset = 0;
    for (std::size_t j = 0; j < k; ++j) offset += index[t * k + j] * s[j];
    std::memcpy(out.data() + static_cast<std::size_t>(offset) * dtype_size(data.dtype()), updates.data() + t * slice, slice);
  }
  return out;
}

Tensor concat(const std::vector<const Tensor*>& parts, int64_t axis) {
  auto a = static_cast<std::size_t>(axis);
  Shape out_shape = parts[0]->shape();
  out_shape[a] = 0;
  for (const Tensor* p : parts) out_shape[a] += p->shape()[a];
  Tensor out(parts[0]->dtype(), out_shape);
  int64_t outer = shape_numel(Shape(out_shape.begin(), out_shape.begin() + axis));
  int64_t inner = shape_numel(Shape(out_shape.begin() + axis + 1, out_shape.end()));
  std::size_t size = dtype_size(out.dtype());
  unsigned char* dst = out.data();
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor* p : parts) {
      std::size_t chunk = static_cast<std::size_t>(p->shape()[a] * inner) * size;
      std::memcpy(dst, p->data() + static_cast<std::size_t>(o) * chunk, chunk);
      dst += chunk;
    }
  return out;
}

Tensor expand(const Tensor& t, const Shape& shape) {
  return strided_copy(t, shape, 0, broadcast_strides(t.shape(), shape));
}

Tensor tile(const Tensor& t, const std::vector<int64_t>& repeats) {
  Shape out_shape = t.shape();
  for (std::size_t d = 0; d < out_shape.size(); ++d) out_shape[d] *= repeats[d];
  Tensor out(t.dtype(), out_shape);
  std::vector<int64_t> src_strides = strides(t.shape()), out_strides = strides(out_shape);
  std::size_t size = dtype_size(t.dtype());
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t src = 0;
    for (std::size_t d = 0; d < out_shape.size(); ++d)
      src += (i / out_strides[d] % out_shape[d]) % t.shape()[d] * src_strides[d];
    std::memcpy(out.data() + static_cast<std::size_t>(i) * size, t.data() + static_cast<std::size_t>(src) * size, size);
  }
  return out;
}

Tensor fill(const Tensor& value, const Shape& shape) {
  Tensor out(value.dtype(), shape);
  std::size_t size = dtype_size(value.dtype());
  for (std::size_t b = 0; b < out.nbytes(); b += size) std::memcpy(out.data() + b, value.data(), size);
  return out;
}

Tensor range(const Tensor& start, const Tensor& delta, int64_t n) {
  Tensor out(start.dtype(), {n});
  for (int64_t i = 0; i < n; ++i) {
    if (is_floating(start.dtype())) out.set_double(i, start.get_double(0) + static_cast<double>(i) * delta.get_double(0));
    else out.set_int(i, wrap_add(start.get_int(0), wrap_mul(i, delta.get_int(0))));
  }
  return out;
}

Tensor unary(Unary op, const Tensor& x) {
  Tensor out(op == Unary::Not ? DType::Bool : x.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (is_floating(x.dtype())) out.set_double(i, float_unary(op, x.get_double(i)));
    else out.set_int(i, int_unary(op, x.get_int(i)));
  }
  return out;
}

Tensor binary(Binary op, const Tensor& a, const Tensor& b, DType dtype) {
  Shape shape = broadcast_all({&a, &b});
  Tensor out(dtype, shape);
  bool floating = is_floating(a.dtype());
  for_each_index(shape, {broadcast_strides(a.shape(), shape), broadcast_strides(b.shape(), shape)}, {0, 0},
                 [&](int64_t i, const std::vector<int64_t>& off) {
                   if (floating) out.set_double(i, float_binary(op, a.get_double(off[0]), b.get_double(off[1])));
                   else out.set_int(i, int_binary(op, a.get_int(off[0]), b.get_int(off[1])));
                 });
  return out;
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  Shape shape = broadcast_all({&cond, &a, &b});
  Tensor out(a.dtype(), shape);
  std::size_t size = dtype_size(a.dtype());
  for_each_index(shape,
                 {broadcast_strides(cond.shape(), shape), broadcast_strides(a.shape(), shape),
                  broadcast_strides(b.shape(), shape)},
                 {0, 0, 0}, [&](int64_t i, const std::vector<int64_t>& off) {
                   const Tensor& src = cond.get_bool(off[0]) ? a : b;
                   int64_t j = cond.get_bool(off[0]) ? off[1] : off[2];
                   std::memcpy(out.data() + static_cast<std::size_t>(i) * size, src.data() + static_cast<std::size_t>(j) * size, size);
                 });
  return out;
}

Tensor reduce(Reduce op, const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  Shape kept = x.shape();
  for (int64_t a : axes) kept[static_cast<std::size_t>(a)] = 1;
  std::vector<int64_t> out_strides = broadcast_strides(kept, x.shape());
  int64_t n = shape_numel(kept);
  bool floating = is_floating(x.dtype());
  std::vector<double> facc(static_cast<std::size_t>(n), op == Reduce::Prod ? 1.0 : 0.0);
  std::vector<int64_t> iacc(static_cast<std::size_t>(n), op == Reduce::Prod ? 1 : 0);
  std::vector<bool> seen(static_cast<std::size_t>(n), false);
  for_each_index(x.shape(), {out_strides}, {0}, [&](int64_t i, const std::vector<int64_t>& off) {
    auto o = static_cast<std::size_t>(off[0]);
    bool first = !seen[o];
    seen[o] = true;
    double f = floating ? x.get_double(i) : 0;
    int64_t v = floating ? 0 : x.get_int(i);
    switch (op) {
      case Reduce::Sum:
      case Reduce::Mean: facc[o] += f; iacc[o] = wrap_add(iacc[o], v); break;
      case Reduce::Prod: facc[o] *= f; iacc[o] = wrap_mul(iacc[o], v); break;
      case Reduce::Min:
      case Reduce::Max: {
        // NaN wins, as in np.minimum / np.maximum.
        bool take = first || std::isnan(f) || (op == Reduce::Min ? f < facc[o] : f > facc[o]);
        if (take && !(std::isnan(facc[o]) && !first)) facc[o] = f;
        iacc[o] = first ? v : (op == Reduce::Min ? std::min(iacc[o], v) : std::max(iacc[o], v));
        break;
      }
    }
  });
  Shape out_shape;
  for (std::size_t d = 0; d < kept.size(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    if (!reduced || keepdims) out_shape.push_back(kept[d]);
  }
  Tensor out(x.dtype(), out_shape);
  int64_t count = x.numel() / std::max<int64_t>(n, 1);
  for (int64_t o = 0; o < n; ++o) {
    auto k = static_cast<std::size_t>(o);
    if (floating) out.set_double(o, op == Reduce::Mean ? facc[k] / static_cast<double>(count) : facc[k]);
    else if (op == Reduce::Mean) throw FoldError("a mean of integers");
    else out.set_int(o, iacc[k]);
  }
  return out;
}

}  // namespace stax::importer::detail::fold

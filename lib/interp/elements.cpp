// Element conversions, strided views and the integer/floating corner cases of PyTorch's
// arithmetic, shared by the interpreter's evaluators.
#include "internal.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "stax/support/error.h"

namespace stax::interp::detail {

const Tensor& Context::tensor(graph::ValueId id) const {
  const Tensor* t = values.at(static_cast<std::size_t>(id));
  STAX_ASSERT(t != nullptr, "value '" + graph[id].name + "' used before it was computed");
  return *t;
}

bool Context::has_value_arg(const graph::Value& node, std::size_t k) {
  return k < node.args.size() && node.args[k].is_value();
}

const Tensor& Context::arg(const graph::Value& node, std::size_t k) const {
  STAX_ASSERT(has_value_arg(node, k), "node '" + node.name + "': argument " + std::to_string(k) +
                                          " is not a value");
  return tensor(node.args[k].value);
}

void fail(const graph::Value& node, const std::string& message) {
  throw RuntimeFailure("node '" + node.name + "' (" + std::string(graph::op_name(node.op)) +
                       "): " + message);
}

// ---- Element conversions --------------------------------------------------------------------

double round_to(double v, DType float_dtype) {
  if (float_dtype == DType::Float32) return static_cast<double>(static_cast<float>(v));
  return v;
}

int64_t wrap_to(int64_t v, DType int_dtype) {
  switch (int_dtype) {
    case DType::Int32: return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
    case DType::Bool: return v != 0 ? 1 : 0;
    case DType::Int64:
    case DType::Float32:
    case DType::Float64: return v;
  }
  return v;
}

int64_t float_to_int(double v, DType int_dtype) {
  if (int_dtype == DType::Bool) return v != 0.0 ? 1 : 0;  // NaN != 0
  if (std::isnan(v)) return 0;
  if (int_dtype == DType::Int32) {
    if (v >= 2147483648.0) return std::numeric_limits<int32_t>::max();
    if (v <= -2147483649.0) return std::numeric_limits<int32_t>::min();
    return static_cast<int64_t>(v);
  }
  // 2^63 is exactly representable; every double below it and >= -2^63 converts.
  if (v >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
  if (v < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// An int64 converted to a floating dtype in one rounding (never through double for float32).
static double int_to_float(int64_t v, DType float_dtype) {
  if (float_dtype == DType::Float32) return static_cast<double>(static_cast<float>(v));
  return static_cast<double>(v);
}

double load_float(const Tensor& t, int64_t i, DType compute) {
  switch (t.dtype()) {
    case DType::Float32:
    case DType::Float64: return round_to(t.get_double(i), compute);
    case DType::Int32:
    case DType::Int64: return int_to_float(t.get_int(i), compute);
    case DType::Bool: return t.get_bool(i) ? 1.0 : 0.0;
  }
  return 0.0;
}

int64_t load_int(const Tensor& t, int64_t i, DType compute) {
  switch (t.dtype()) {
    case DType::Float32:
    case DType::Float64: return float_to_int(t.get_double(i), compute);
    case DType::Int32:
    case DType::Int64: return wrap_to(t.get_int(i), compute);
    case DType::Bool: return t.get_bool(i) ? 1 : 0;
  }
  return 0;
}

double scalar_float(const graph::Scalar& s, DType compute) {
  switch (s.kind) {
    case graph::Scalar::Kind::Bool: return s.b ? 1.0 : 0.0;
    case graph::Scalar::Kind::Int: return int_to_float(s.i, compute);
    case graph::Scalar::Kind::Float: return round_to(s.f, compute);
  }
  return 0.0;
}

int64_t scalar_int(const graph::Scalar& s, DType compute) {
  switch (s.kind) {
    case graph::Scalar::Kind::Bool: return s.b ? 1 : 0;
    case graph::Scalar::Kind::Int: return wrap_to(s.i, compute);
    case graph::Scalar::Kind::Float: return float_to_int(s.f, compute);
  }
  return 0;
}

void store_float(Tensor& t, int64_t i, double v) {
  if (is_floating(t.dtype())) {
    t.set_double(i, v);
    return;
  }
  t.set_int(i, float_to_int(v, t.dtype()));
}

void store_int(Tensor& t, int64_t i, int64_t v) { t.set_int(i, v); }

void store_scalar(Tensor& t, int64_t i, const graph::Scalar& s) {
  switch (s.kind) {
    case graph::Scalar::Kind::Bool: t.set_bool(i, s.b); return;
    case graph::Scalar::Kind::Int: t.set_int(i, s.i); return;
    case graph::Scalar::Kind::Float: store_float(t, i, s.f); return;
  }
}

void convert_element(const Tensor& src, int64_t si, Tensor& dst, int64_t di) {
  if (src.dtype() == dst.dtype()) {
    const std::size_t size = dtype_size(src.dtype());
    std::memcpy(dst.data() + static_cast<std::size_t>(di) * size,
                src.data() + static_cast<std::size_t>(si) * size, size);
    return;
  }
  if (is_floating(src.dtype())) {
    store_float(dst, di, src.get_double(si));
    return;
  }
  store_int(dst, di, src.get_int(si));  // int -> float rounds once; int -> int wraps
}

// ---- Strided views --------------------------------------------------------------------------

StridedView contiguous_view(const Shape& shape) {
  StridedView v;
  v.shape = shape;
  v.strides.assign(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) v.strides[k - 1] = v.strides[k] * shape[k];
  return v;
}

StridedView broadcast_view(const StridedView& v, const Shape& out) {
  STAX_ASSERT(v.shape.size() <= out.size(), "broadcast to fewer dims");
  StridedView b;
  b.shape = out;
  b.offset = v.offset;
  b.strides.assign(out.size(), 0);
  const std::size_t lead = out.size() - v.shape.size();
  for (std::size_t k = 0; k < v.shape.size(); ++k) {
    STAX_ASSERT(v.shape[k] == out[lead + k] || v.shape[k] == 1,
                "cannot broadcast " + shape_str(v.shape) + " to " + shape_str(out));
    b.strides[lead + k] = v.shape[k] == 1 ? 0 : v.strides[k];
  }
  return b;
}

std::vector<int64_t> view_offsets(const StridedView& v) {
  const int64_t n = shape_numel(v.shape);
  std::vector<int64_t> offsets(static_cast<std::size_t>(n));
  std::vector<int64_t> index(v.shape.size(), 0);
  int64_t off = v.offset;
  for (int64_t i = 0; i < n; ++i) {
    offsets[static_cast<std::size_t>(i)] = off;
    // Odometer increment of the multi-index, last dim fastest.
    for (std::size_t k = v.shape.size(); k-- > 0;) {
      if (++index[k] < v.shape[k]) {
        off += v.strides[k];
        break;
      }
      off -= (v.shape[k] - 1) * v.strides[k];
      index[k] = 0;
    }
  }
  return offsets;
}

Tensor materialize(const Tensor& base, const StridedView& v) {
  Tensor out(base.dtype(), v.shape);
  const std::size_t size = dtype_size(base.dtype());
  const std::vector<int64_t> offsets = view_offsets(v);
  for (std::size_t i = 0; i < offsets.size(); ++i)
    std::memcpy(out.data() + i * size, base.data() + static_cast<std::size_t>(offsets[i]) * size,
                size);
  return out;
}

Lines lines_along(const Shape& shape, int64_t dim) {
  Lines lines;
  if (shape.empty()) {
    lines.starts = {0};
    return lines;
  }
  STAX_ASSERT(dim >= 0 && dim < static_cast<int64_t>(shape.size()), "dim out of range");
  const StridedView all = contiguous_view(shape);
  StridedView others = all;
  const auto d = static_cast<std::size_t>(dim);
  others.shape.erase(others.shape.begin() + static_cast<std::ptrdiff_t>(d));
  others.strides.erase(others.strides.begin() + static_cast<std::ptrdiff_t>(d));
  lines.starts = view_offsets(others);
  lines.stride = all.strides[d];
  lines.length = shape[d];
  return lines;
}

// ---- Integer arithmetic: two's complement wrap-around, never undefined ----------------------

int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrapping_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wrapping_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t wrapping_neg(int64_t a) { return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(a)); }

int64_t int_div_trunc(int64_t a, int64_t b) {
  if (b == 0) throw IntegerDivisionByZero{};
  if (b == -1) return wrapping_neg(a);  // MIN / -1 wraps to MIN
  return a / b;
}

int64_t int_div_floor(int64_t a, int64_t b) {
  if (b == 0) throw IntegerDivisionByZero{};
  if (b == -1) return wrapping_neg(a);
  const int64_t q = a / b;
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

int64_t int_remainder(int64_t a, int64_t b) {
  if (b == 0) throw IntegerDivisionByZero{};
  if (b == -1) return 0;  // MIN % -1 would trap; the remainder is 0 for every a
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

int64_t int_pow(int64_t a, int64_t b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b % 2 != 0) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1;
  uint64_t base = static_cast<uint64_t>(a);
  uint64_t e = static_cast<uint64_t>(b);
  while (e != 0) {
    if (e & 1) result *= base;
    e >>= 1;
    base *= base;
  }
  return static_cast<int64_t>(result);
}

// ---- Floating rounding modes, step by step in the compute type as PyTorch does ---------------

template <typename T>
static T div_trunc_t(T a, T b) {
  return std::trunc(a / b);
}

// Python's floor division (PyTorch's div_floor_floating).
template <typename T>
static T div_floor_t(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}

template <typename T>
static T remainder_t(T a, T b) {
  T mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

double float_div_trunc(double a, double b, DType compute) {
  if (compute == DType::Float32)
    return div_trunc_t(static_cast<float>(a), static_cast<float>(b));
  return div_trunc_t(a, b);
}

double float_div_floor(double a, double b, DType compute) {
  if (compute == DType::Float32)
    return div_floor_t(static_cast<float>(a), static_cast<float>(b));
  return div_floor_t(a, b);
}

double float_remainder(double a, double b, DType compute) {
  if (compute == DType::Float32)
    return remainder_t(static_cast<float>(a), static_cast<float>(b));
  return remainder_t(a, b);
}

}  // namespace stax::interp::detail

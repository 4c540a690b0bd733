// Reading attribute values and scalar literals, with the checks graph-format.md asks for.
#include "frontend_impl.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "stax/graph/promote.h"
#include "stax/support/error.h"

namespace stax::graph::detail {

std::string Site::at(std::string_view sub) const {
  if (path.empty() && !sub.empty() && sub.front() == '.') return std::string(sub.substr(1));
  return path + std::string(sub);
}

void Site::fail(std::string_view sub, const std::string& message) const {
  throw GraphError(at(sub), node, op, message);
}

namespace {

[[noreturn]] void expected(const Site& s, std::string_view sub, std::string_view what,
                           const Json& j) {
  s.fail(sub, "expected " + std::string(what) + ", got " + json_brief(j));
}

std::optional<double> non_finite_literal(const Json& j) {
  if (!j.is_string()) return std::nullopt;
  if (j.text == "inf") return std::numeric_limits<double>::infinity();
  if (j.text == "-inf") return -std::numeric_limits<double>::infinity();
  if (j.text == "nan") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

}  // namespace

int64_t read_int(const Site& s, const Json& j, std::string_view sub) {
  if (j.is_int()) return j.i;
  if (j.kind == Json::Kind::Float && j.integer_token)
    s.fail(sub, "integer " + j.text + " is out of the range of int64");
  expected(s, sub, "an integer", j);
}

bool read_bool(const Site& s, const Json& j, std::string_view sub) {
  if (j.is_bool()) return j.b;
  expected(s, sub, "true or false", j);
}

std::string read_string(const Site& s, const Json& j, std::string_view sub) {
  if (j.is_string()) return j.text;
  expected(s, sub, "a string", j);
}

double read_number(const Site& s, const Json& j, std::string_view sub) {
  if (j.is_int()) return static_cast<double>(j.i);
  if (j.kind == Json::Kind::Float) return j.f;
  if (auto nf = non_finite_literal(j)) return *nf;
  expected(s, sub, "a number (or \"inf\", \"-inf\", \"nan\")", j);
}

double read_finite_number(const Site& s, const Json& j, std::string_view sub) {
  if (non_finite_literal(j))
    s.fail(sub, "expected a finite number, got \"" + j.text +
                    "\" (non-finite numbers stand only in scalar arguments, float constants, "
                    "full.value, pad.value and clamp.min/max)");
  if (!j.is_number()) expected(s, sub, "a number", j);
  return read_number(s, j, sub);
}

std::optional<Scalar> read_scalar_literal(const Site& s, const Json& j, std::string_view sub) {
  switch (j.kind) {
    case Json::Kind::Bool: return Scalar::of_bool(j.b);
    case Json::Kind::Int: return Scalar::of_int(j.i);
    case Json::Kind::Float:
      if (j.integer_token)
        s.fail(sub, "integer literal " + j.text + " is out of the range of int64");
      return Scalar::of_float(j.f);
    case Json::Kind::String:
      if (auto nf = non_finite_literal(j)) return Scalar::of_float(*nf);
      return std::nullopt;
    case Json::Kind::Null:
    case Json::Kind::Array:
    case Json::Kind::Object: return std::nullopt;
  }
  return std::nullopt;
}

Shape read_shape(const Site& s, const Json& j, std::string_view sub, bool allow_minus_one) {
  if (!j.is_array()) expected(s, sub, "a list of integers", j);
  Shape shape;
  for (std::size_t k = 0; k < j.items.size(); ++k) {
    std::string at = std::string(sub) + "[" + std::to_string(k) + "]";
    int64_t d = read_int(s, j.items[k], at);
    if (d == -1 && allow_minus_one) {
      shape.push_back(d);
      continue;
    }
    if (d == 0) s.fail(at, "shape entries must be >= 1 (zero-size values are not supported)");
    if (d < 0)
      s.fail(at, "shape entries must be >= 1" + std::string(allow_minus_one ? " or -1" : "") +
                     ", got " + std::to_string(d));
    shape.push_back(d);
  }
  return shape;
}

std::vector<int64_t> read_dim_list(const Site& s, const Json& j, std::string_view sub,
                                   bool allow_list) {
  if (j.is_array()) {
    if (!allow_list) s.fail(sub, "expected one integer dim, got a list");
    if (j.items.empty())
      s.fail(sub, "dim: [] is not allowed (omit dim, or use null, to mean every dim)");
    std::vector<int64_t> dims;
    for (std::size_t k = 0; k < j.items.size(); ++k)
      dims.push_back(read_int(s, j.items[k], std::string(sub) + "[" + std::to_string(k) + "]"));
    return dims;
  }
  if (j.is_int() || (j.kind == Json::Kind::Float && j.integer_token))
    return {read_int(s, j, sub)};
  expected(s, sub, allow_list ? "an integer or a list of integers" : "an integer", j);
}

DType read_dtype(const Site& s, const Json& j, std::string_view sub) {
  std::string name = read_string(s, j, sub);
  if (auto dt = parse_dtype(name)) return *dt;
  s.fail(sub, "unknown dtype '" + printable(name) +
                  "' (expected float32, float64, int32, int64 or bool)");
}

int64_t normalize_dim(const Site& s, int64_t d, int64_t ndim, std::string_view sub) {
  int64_t n = std::max<int64_t>(ndim, 1);
  if (d < -n || d >= n)
    s.fail(sub, "dim " + std::to_string(d) + " is out of range for a " + std::to_string(ndim) +
                    "-d tensor (expected " + std::to_string(-n) + ".." + std::to_string(n - 1) +
                    ")");
  if (ndim == 0) return 0;
  return d < 0 ? d + n : d;
}

bool scalar_fits(const Scalar& v, DType dt) {
  // float32's largest finite value is 2^128 - 2^104; anything below the midpoint to 2^128
  // rounds to it.
  constexpr double kFloat32Limit = 340282356779733661637539395458142568448.0;  // 2^128 - 2^103
  switch (v.kind) {
    case Scalar::Kind::Bool: return true;
    case Scalar::Kind::Int:
      if (dt == DType::Int32)
        return v.i >= std::numeric_limits<int32_t>::min() &&
               v.i <= std::numeric_limits<int32_t>::max();
      return true;
    case Scalar::Kind::Float:
      switch (dt) {
        case DType::Float32: return !std::isfinite(v.f) || std::fabs(v.f) < kFloat32Limit;
        case DType::Float64: return true;
        case DType::Bool: return true;
        case DType::Int32: return std::isfinite(v.f) && v.f > -2147483649.0 && v.f < 2147483648.0;
        case DType::Int64:
          return std::isfinite(v.f) && v.f >= -9223372036854775808.0 &&
                 v.f < 9223372036854775808.0;
      }
  }
  return false;
}

std::string scalar_str(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::Bool: return v.b ? "true" : "false";
    case Scalar::Kind::Int: return std::to_string(v.i);
    case Scalar::Kind::Float: {
      if (std::isnan(v.f)) return "nan";
      if (std::isinf(v.f)) return v.f > 0 ? "inf" : "-inf";
      char buf[64];
      auto res = std::to_chars(buf, buf + sizeof buf, v.f);
      std::string s(buf, res.ptr);
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return s;
    }
  }
  return "?";
}

Scalar scalar_to_dtype(const Site& s, const Scalar& v, DType dt, std::string_view sub) {
  if (!scalar_fits(v, dt))
    s.fail(sub, "value " + scalar_str(v) + " is out of the range of " +
                    std::string(dtype_name(dt)));
  switch (dt) {
    case DType::Float32:
    case DType::Float64: return Scalar::of_float(v.as_double());
    case DType::Int32:
    case DType::Int64:
      if (v.kind == Scalar::Kind::Float) return Scalar::of_int(static_cast<int64_t>(std::trunc(v.f)));
      return Scalar::of_int(v.as_int());
    case DType::Bool:
      if (v.kind == Scalar::Kind::Float) return Scalar::of_bool(v.f != 0.0 || std::isnan(v.f));
      return Scalar::of_bool(v.as_int() != 0);
  }
  return v;
}

DType scalar_natural_dtype(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::Bool: return DType::Bool;
    case Scalar::Kind::Int: return DType::Int64;
    case Scalar::Kind::Float: return DType::Float64;
  }
  return DType::Float64;
}

void check_value_shape(const Site& s, const Shape& shape, DType dt, std::string_view sub) {
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (shape[k] < 1)
      s.fail(sub, "the result " + shape_str(shape) + " would be empty (dim " + std::to_string(k) +
                      " has size " + std::to_string(shape[k]) +
                      "); zero-size values are not supported");
  std::optional<int64_t> n = checked_numel(shape);
  if (!n) s.fail(sub, "the element count of shape " + shape_str(shape) + " overflows int64");
  int64_t bytes = 0;
  if (__builtin_mul_overflow(*n, static_cast<int64_t>(dtype_size(dt)), &bytes))
    s.fail(sub, "the byte size of " + std::string(dtype_name(dt)) + shape_str(shape) +
                    " overflows int64");
}

const Json* NodeCtx::attr(std::string_view key) const {
  const Json* j = obj->find(key);
  if (j == nullptr || j->is_null()) return nullptr;
  return j;
}

const Value& NodeCtx::value(std::size_t i) const {
  STAX_ASSERT(i < args.size() && args[i].is_value(), "argument is not a value");
  return (*g)[args[i].value];
}

std::string NodeCtx::arg_path(std::size_t i) const { return ".args[" + std::to_string(i) + "]"; }

std::string_view NodeCtx::op_str() const { return op_name(op); }

std::string dt_str(DType dt) { return std::string(dtype_name(dt)); }

const Json& required(const NodeCtx& c, std::string_view key) {
  const Json* j = c.attr(key);
  if (j == nullptr) c.site.fail("", "missing key '" + std::string(key) + "'");
  return *j;
}

void require_float_data(const NodeCtx& c, std::size_t k) {
  const Value& x = c.value(k);
  if (!is_floating(x.dtype))
    c.site.fail(c.arg_path(k), "op '" + c.site.op + "' needs floating-point data, got " +
                                   dt_str(x.dtype) + " (integer data is not supported yet)");
}

std::string index_path(std::string_view list, std::size_t k) {
  return std::string(list) + "[" + std::to_string(k) + "]";
}

std::vector<std::string_view> allowed_attrs(Op op) {
  switch (op_category(op)) {
    case OpCategory::Unary:
      if (op == Op::Clamp) return {"min", "max"};
      if (op == Op::LeakyRelu) return {"negative_slope"};
      if (op == Op::Gelu) return {"approximate"};
      return {};
    case OpCategory::UnaryFloat:
    case OpCategory::UnaryPred:
    case OpCategory::Compare:
    case OpCategory::Logical:
    case OpCategory::Where:
    case OpCategory::Matmul: return {};
    case OpCategory::Binary:
      if (op == Op::Div) return {"rounding_mode"};
      return {};
    case OpCategory::Cast: return {"dtype"};
    case OpCategory::Creation:
      if (op == Op::Full) return {"shape", "value", "dtype"};
      return {"end", "start", "step", "dtype"};
    case OpCategory::Reduction:
      if (op == Op::Var || op == Op::Std) return {"dim", "keepdim", "correction"};
      return {"dim", "keepdim"};
    case OpCategory::ArgReduce: return {"dim", "keepdim"};
    case OpCategory::Scan: return {"dim"};
    case OpCategory::View:
      if (op == Op::Reshape || op == Op::Expand) return {"shape"};
      if (op == Op::Permute) return {"dims"};
      if (op == Op::Transpose) return {"dim0", "dim1"};
      if (op == Op::Unsqueeze || op == Op::Squeeze) return {"dim"};
      if (op == Op::Flatten) return {"start_dim", "end_dim"};
      if (op == Op::Slice) return {"dim", "start", "end", "step"};
      return {"dim", "index"};  // select
    case OpCategory::Concat: return {"dim"};
    case OpCategory::Pad: return {"pad", "value"};
    case OpCategory::Composite:
      if (op == Op::Softmax || op == Op::LogSoftmax) return {"dim"};
      if (op == Op::LayerNorm || op == Op::RmsNorm) return {"normalized_shape", "eps"};
      if (op == Op::BatchNorm) return {"eps", "training"};
      if (op == Op::Softplus) return {"beta", "threshold"};
      if (op == Op::Elu) return {"alpha"};
      return {};  // linear, hardswish, hardsigmoid
    case OpCategory::Conv: return {"stride", "padding", "dilation", "groups"};
    case OpCategory::Pool:
      if (op == Op::MaxPool2d) return {"kernel_size", "stride", "padding", "dilation", "ceil_mode"};
      if (op == Op::AvgPool2d)
        return {"kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                "divisor_override"};
      return {"output_size"};
    case OpCategory::Indexing:
      if (op == Op::Embedding) return {};
      return {"dim"};
  }
  return {};
}

}  // namespace stax::graph::detail

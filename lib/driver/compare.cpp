#include "stax/driver/compare.h"

#include <cmath>
#include <cstdio>

namespace stax::driver {

namespace {

std::string number(double v, DType dt) {
  if (!is_floating(dt)) {
    if (dt == DType::Bool) return v != 0.0 ? "true" : "false";
    return std::to_string(static_cast<int64_t>(v));
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string position(const Shape& shape, int64_t flat) {
  if (shape.empty()) return "[]";
  std::vector<int64_t> coords(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    coords[d] = flat % shape[d];
    flat /= shape[d];
  }
  return shape_str(coords);
}

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

Comparison compare_tensors(const Tensor& got, const Tensor& expected, const Tolerance& tol) {
  Comparison c;
  if (got.dtype() != expected.dtype() || got.shape() != expected.shape()) {
    c.match = false;
    c.note = "got " + std::string(dtype_name(got.dtype())) + shape_str(got.shape()) + ", expected " +
             std::string(dtype_name(expected.dtype())) + shape_str(expected.shape());
    return c;
  }
  const bool floating = is_floating(expected.dtype());
  double worst_excess = 0.0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    if (!floating) {
      const int64_t g = got.get_int(i), e = expected.get_int(i);
      if (g == e) continue;
      ++c.mismatches;
      const double d = std::fabs(static_cast<double>(g) - static_cast<double>(e));
      if (c.worst < 0 || d > c.max_abs_error) {
        c.worst = i;
        c.max_abs_error = d;
        c.got = static_cast<double>(g);
        c.expected = static_cast<double>(e);
      }
      continue;
    }
    const double g = got.get_double(i), e = expected.get_double(i);
    bool ok;
    double excess = 0.0;
    if (std::isnan(e) || std::isnan(g)) {
      ok = std::isnan(e) && std::isnan(g);
      excess = ok ? 0.0 : HUGE_VAL;
    } else if (std::isinf(e) || std::isinf(g)) {
      ok = g == e;
      excess = ok ? 0.0 : HUGE_VAL;
    } else {
      const double d = std::fabs(g - e);
      const double allowed = tol.atol + tol.rtol * std::fabs(e);
      ok = d <= allowed;
      excess = allowed > 0.0 ? d / allowed : (d > 0.0 ? HUGE_VAL : 0.0);
      if (d > c.max_abs_error) c.max_abs_error = d;
      if (e != 0.0 && d / std::fabs(e) > c.max_rel_error) c.max_rel_error = d / std::fabs(e);
    }
    if (!ok) ++c.mismatches;
    if (excess > worst_excess || (c.worst < 0 && !ok)) {
      worst_excess = excess;
      c.worst = i;
      c.got = g;
      c.expected = e;
    }
  }
  c.match = c.mismatches == 0;
  return c;
}

std::string describe(const std::string& name, const Tensor& expected, const Comparison& c) {
  const DType dt = expected.dtype();
  std::string s = name + ": " + std::string(dtype_name(dt)) + shape_str(expected.shape());
  if (!c.note.empty()) return s + " MISMATCH: " + c.note;
  if (c.match) {
    if (!is_floating(dt)) return s + " ok, exact";
    return s + " ok, max abs error " + sci(c.max_abs_error) + ", max rel error " + sci(c.max_rel_error);
  }
  s += " MISMATCH in " + std::to_string(c.mismatches) + " of " + std::to_string(expected.numel()) +
       " elements, worst at " + position(expected.shape(), c.worst) + ": got " + number(c.got, dt) +
       ", expected " + number(c.expected, dt);
  if (is_floating(dt)) s += " (max abs error " + sci(c.max_abs_error) + ")";
  return s;
}

}  // namespace stax::driver

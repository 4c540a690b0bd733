#include "stax/driver/preview.h"

#include <algorithm>
#include <cstdio>

namespace stax::driver {

std::string tensor_type_str(const Tensor& t) {
  return std::string(dtype_name(t.dtype())) + shape_str(t.shape());
}

namespace {

std::string element_str(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::Float32:
    case DType::Float64: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", t.get_double(i));
      return buf;
    }
    case DType::Int32:
    case DType::Int64: return std::to_string(t.get_int(i));
    case DType::Bool: return t.get_bool(i) ? "true" : "false";
  }
  return "?";
}

}  // namespace

std::string preview_values(const Tensor& t, std::size_t max_values) {
  int64_t n = t.numel();
  int64_t shown = std::min<int64_t>(n, static_cast<int64_t>(max_values));
  std::string s;
  for (int64_t i = 0; i < shown; ++i) {
    if (i) s += ' ';
    s += element_str(t, i);
  }
  if (shown < n) s += " ... (" + std::to_string(n) + " values)";
  return s;
}

}  // namespace stax::driver

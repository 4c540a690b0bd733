#include "stax/support/dtype.h"

#include <cstdint>

namespace stax {

std::string_view dtype_name(DType dt) {
  switch (dt) {
#define STAX_DTYPE_NAME(E, name, ctype, size) \
  case DType::E: return name;
    STAX_FOR_EACH_DTYPE(STAX_DTYPE_NAME)
#undef STAX_DTYPE_NAME
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
#define STAX_DTYPE_PARSE(E, str, ctype, size) \
  if (name == str) return DType::E;
  STAX_FOR_EACH_DTYPE(STAX_DTYPE_PARSE)
#undef STAX_DTYPE_PARSE
  return std::nullopt;
}

std::size_t dtype_size(DType dt) {
  switch (dt) {
#define STAX_DTYPE_SIZE(E, name, ctype, size) \
  case DType::E: return size;
    STAX_FOR_EACH_DTYPE(STAX_DTYPE_SIZE)
#undef STAX_DTYPE_SIZE
  }
  return 0;
}

std::string_view npy_descr(DType dt) {
  switch (dt) {
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::Bool: return "|b1";
  }
  return "?";
}

}  // namespace stax

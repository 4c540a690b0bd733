// Element types of the stax graph format (graph-format.md, "dtypes").
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace stax {

#define STAX_FOR_EACH_DTYPE(X)                                                                     \
  X(Float32, "float32", float, 4)                                                                  \
  X(Float64, "float64", double, 8)                                                                 \
  X(Int32, "int32", int32_t, 4)                                                                    \
  X(Int64, "int64", int64_t, 8)                                                                    \
  X(Bool, "bool", bool, 1)

enum class DType : unsigned char {
#define STAX_DTYPE_ENUM(E, name, ctype, size) E,
  STAX_FOR_EACH_DTYPE(STAX_DTYPE_ENUM)
#undef STAX_DTYPE_ENUM
};

// "float32", "int64", ...
std::string_view dtype_name(DType dt);
// Inverse of dtype_name; nullopt for anything else (including the *later* dtypes).
std::optional<DType> parse_dtype(std::string_view name);
// Bytes per element (bool is one byte, 0 or 1).
std::size_t dtype_size(DType dt);
inline bool is_floating(DType dt) { return dt == DType::Float32 || dt == DType::Float64; }
// int32 or int64 (not bool).
inline bool is_integer(DType dt) { return dt == DType::Int32 || dt == DType::Int64; }
// NumPy descr string: "<f4", "<f8", "<i4", "<i8", "|b1".
std::string_view npy_descr(DType dt);

}  // namespace stax

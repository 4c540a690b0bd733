// Computing at import: the tensor operations the mappers fold shape computations with (ONNX
// semantics, checked by the mapper before the call). Floating point computes in double and
// rounds to the result's dtype, as the reference interpreter does; integers compute in int64 and
// wrap to int32 where the result is int32. Not a public header.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "stax/support/tensor.h"

namespace stax::importer::detail::fold {

// What cannot be computed (an integer division by zero, a cast of NaN to an integer): the node
// being mapped reports it.
class FoldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Row-major strides of `shape`, in elements.
std::vector<int64_t> strides(const Shape& shape);

// Same elements, another shape of equal element count.
Tensor reshape(const Tensor& t, const Shape& shape);
// Element conversion: floats to ints truncate toward zero (FoldError when not finite or out of
// range), anything to bool is "nonzero".
Tensor cast(const Tensor& t, DType dtype);
Tensor permute(const Tensor& t, const std::vector<int64_t>& perm);
// Elements start, start + step, ... (count of them) along `axis`; step may be negative.
Tensor slice(const Tensor& t, int64_t axis, int64_t start, int64_t step, int64_t count);
// ONNX Gather with normalized indices: out = t.shape[:axis] + index_shape + t.shape[axis+1:].
Tensor take(const Tensor& t, int64_t axis, const std::vector<int64_t>& index, const Shape& index_shape);
// ONNX ScatterND: `index` holds the normalized index tuples (k entries each, row-major); each
// replaces the slice data[tuple] by the next slice of `updates`.
Tensor scatter_nd(const Tensor& data, const std::vector<int64_t>& index, std::size_t k, const Tensor& updates);
Tensor concat(const std::vector<const Tensor*>& parts, int64_t axis);
// Broadcast to `shape` (numpy rules; `shape` is the broadcast result).
Tensor expand(const Tensor& t, const Shape& shape);
Tensor tile(const Tensor& t, const std::vector<int64_t>& repeats);
// Every element `value` (a 1-element tensor whose dtype the result takes).
Tensor fill(const Tensor& value, const Shape& shape);
// start, start + delta, ... (n elements), in the dtype of the one-element `start`.
Tensor range(const Tensor& start, const Tensor& delta, int64_t n);

enum class Unary { Neg, Abs, Not, Sqrt, Exp, Log, Reciprocal, Floor, Ceil, Round, Sign, Relu,
                   Sin, Cos, Tanh, Sigmoid, Erf };
Tensor unary(Unary op, const Tensor& x);

enum class Binary { Add, Sub, Mul, Div, Mod, FMod, Pow, Min, Max, Eq, Lt, Gt, Le, Ge, And, Or, Xor };
// Broadcasting; the result has `dtype` (bool for comparisons and logic, else the operands').
// Integer Div truncates, Mod takes the divisor's sign, FMod the dividend's; by zero: FoldError.
Tensor binary(Binary op, const Tensor& a, const Tensor& b, DType dtype);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

enum class Reduce { Sum, Prod, Min, Max, Mean };
// Over the sorted, unique `axes` (every axis when empty is not meant: the caller passes them).
Tensor reduce(Reduce op, const Tensor& x, const std::vector<int64_t>& axes, bool keepdims);

}  // namespace stax::importer::detail::fold

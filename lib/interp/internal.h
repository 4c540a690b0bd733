// Internals of the reference interpreter: the evaluation context, element conversions, a small
// strided-view helper and the evaluator of each family of ops. Not a public header.
//
// Every value is held as a dense row-major Tensor of its graph dtype and shape. An op reads its
// operands converted to the node's compute dtype: floating compute dtypes as double (an operand
// first rounded to float32 when the compute dtype is float32), integer and bool compute dtypes as
// int64 (wrapped to the compute width; bool as 0/1). The result is computed in double or in
// wrapping int64 arithmetic and stored rounded (or wrapped) to the node's dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stax/graph/graph.h"
#include "stax/support/dtype.h"
#include "stax/support/tensor.h"

namespace stax::interp::detail {

// An element offset as a vector index.
inline std::size_t idx(int64_t i) { return static_cast<std::size_t>(i); }

// The tensors of the values computed so far, indexed by ValueId.
struct Context {
  const graph::Graph& graph;
  const std::vector<const Tensor*>& values;

  const Tensor& tensor(graph::ValueId id) const;
  // The k-th argument of `node`, which must be a value.
  const Tensor& arg(const graph::Value& node, std::size_t k) const;
  // True when `node` has a k-th argument that is a value (not absent, not null).
  static bool has_value_arg(const graph::Value& node, std::size_t k);
};

// RuntimeFailure "node 'q' (div): <message>".
[[noreturn]] void fail(const graph::Value& node, const std::string& message);

// ---- Element conversions (elements.cpp) ----------------------------------------------------

// `v` rounded to a floating dtype (through float for float32).
double round_to(double v, DType float_dtype);
// `v` wrapped to an integer dtype's width (int32: modulo 2^32; bool: v != 0).
int64_t wrap_to(int64_t v, DType int_dtype);
// A float converted to an integer dtype as `to` does: truncation toward zero. Not undefined for
// any input: NaN gives 0, values beyond the range (and +-inf) saturate to the dtype's max/min.
// To bool: v != 0 (NaN is true).
int64_t float_to_int(double v, DType int_dtype);

// Element i of `t` converted to `compute` (a floating dtype), as a double.
double load_float(const Tensor& t, int64_t i, DType compute);
// Element i of `t` converted to `compute` (an integer dtype or bool), as an int64.
int64_t load_int(const Tensor& t, int64_t i, DType compute);
double scalar_float(const graph::Scalar& s, DType compute);
int64_t scalar_int(const graph::Scalar& s, DType compute);
// Stores into element i converting to t's dtype (a float into an int dtype by float_to_int).
void store_float(Tensor& t, int64_t i, double v);
void store_int(Tensor& t, int64_t i, int64_t v);
void store_scalar(Tensor& t, int64_t i, const graph::Scalar& s);
// dst[di] = src[si] converted as the `to` op does.
void convert_element(const Tensor& src, int64_t si, Tensor& dst, int64_t di);

// ---- Strided views (elements.cpp) ----------------------------------------------------------

// A view of a dense tensor's elements: element (i0, i1, ...) is at offset + sum(ik * strides[k]).
struct StridedView {
  Shape shape;
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

StridedView contiguous_view(const Shape& shape);
// A view of `v` broadcast (right-aligned, as PyTorch) to `out`: stride 0 on size-1 and new dims.
StridedView broadcast_view(const StridedView& v, const Shape& out);
// The element offsets of the view, in row-major order of its shape.
std::vector<int64_t> view_offsets(const StridedView& v);
// A dense copy of the view's elements (same dtype).
Tensor materialize(const Tensor& base, const StridedView& v);

// The 1-D lines of a dense tensor along `dim`: the offset where each line starts (row-major order
// of the other dims), the stride and length of a line. A 0-d shape is one line of length 1.
struct Lines {
  std::vector<int64_t> starts;
  int64_t stride = 1;
  int64_t length = 1;
};
Lines lines_along(const Shape& shape, int64_t dim);

// ---- Integer and floating corner cases (elements.cpp) --------------------------------------

// Thrown by the integer helpers below; the caller turns it into a RuntimeFailure for its node.
struct IntegerDivisionByZero {};

int64_t wrapping_add(int64_t a, int64_t b);
int64_t wrapping_sub(int64_t a, int64_t b);
int64_t wrapping_mul(int64_t a, int64_t b);
int64_t wrapping_neg(int64_t a);
// PyTorch's integer div(rounding_mode="trunc"/"floor") and remainder (sign of the divisor);
// MIN / -1 wraps. Throw IntegerDivisionByZero when b == 0.
int64_t int_div_trunc(int64_t a, int64_t b);
int64_t int_div_floor(int64_t a, int64_t b);
int64_t int_remainder(int64_t a, int64_t b);
// Integer power by repeated squaring with wrap-around; a negative exponent gives 0 unless the
// base is 1 (1) or -1 (+-1 by parity), as PyTorch.
int64_t int_pow(int64_t a, int64_t b);
// PyTorch's floating div(rounding_mode=...) and remainder, each step rounded to `compute`.
double float_div_trunc(double a, double b, DType compute);
double float_div_floor(double a, double b, DType compute);
double float_remainder(double a, double b, DType compute);

// ---- Evaluators, one per family of ops ------------------------------------------------------

// Elementwise semantics, given operands already converted to the compute dtype `c`.
using UnaryF = double (*)(double x, const graph::Attrs& a, DType c);
using UnaryI = int64_t (*)(int64_t x, const graph::Attrs& a, DType c);
using BinaryF = double (*)(double x, double y, const graph::Attrs& a, DType c);
using BinaryI = int64_t (*)(int64_t x, int64_t y, const graph::Attrs& a, DType c);

// elementwise.cpp. `f` is used for a floating compute dtype, `i` for an integer or bool one
// (nullptr: the front end never lets that compute dtype through).
Tensor eval_unary(const Context& ctx, const graph::Value& node, UnaryF f, UnaryI i);
// isnan/isinf/isfinite/logical_not: evaluated in the operand's own dtype, result bool.
Tensor eval_predicate(const Context& ctx, const graph::Value& node, UnaryF f, UnaryI i);
Tensor eval_binary(const Context& ctx, const graph::Value& node, BinaryF f, BinaryI i);
Tensor eval_where(const Context& ctx, const graph::Value& node);
Tensor eval_cast(const Context& ctx, const graph::Value& node);
Tensor eval_full(const graph::Value& node);
Tensor eval_arange(const graph::Value& node);

// reductions.cpp
enum class ReduceKind : unsigned char { Sum, Mean, Prod, Amax, Amin, Any, All, Var, Std, Logsumexp };
Tensor eval_reduction(const Context& ctx, const graph::Value& node, ReduceKind kind);
Tensor eval_argreduce(const Context& ctx, const graph::Value& node, bool is_max);
Tensor eval_scan(const Context& ctx, const graph::Value& node, bool is_prod);

// views.cpp
Tensor eval_reshape(const Context& ctx, const graph::Value& node);  // reshape, flatten
Tensor eval_permute(const Context& ctx, const graph::Value& node);  // permute, transpose
Tensor eval_expand(const Context& ctx, const graph::Value& node);
Tensor eval_unsqueeze(const Context& ctx, const graph::Value& node);
Tensor eval_squeeze(const Context& ctx, const graph::Value& node);
Tensor eval_slice(const Context& ctx, const graph::Value& node);
Tensor eval_select(const Context& ctx, const graph::Value& node);
Tensor eval_cat(const Context& ctx, const graph::Value& node);
Tensor eval_pad(const Context& ctx, const graph::Value& node);

// matmul.cpp: matmul and the composites, each computed directly from its definition.
Tensor eval_matmul(const Context& ctx, const graph::Value& node);
Tensor eval_linear(const Context& ctx, const graph::Value& node);
Tensor eval_softmax(const Context& ctx, const graph::Value& node, bool log);
Tensor eval_layer_norm(const Context& ctx, const graph::Value& node);
Tensor eval_rms_norm(const Context& ctx, const graph::Value& node);
Tensor eval_batch_norm(const Context& ctx, const graph::Value& node);

// window.cpp: conv1d/conv2d, max_pool2d/avg_pool2d (is_max picks), adaptive_avg_pool2d.
Tensor eval_conv(const Context& ctx, const graph::Value& node);
Tensor eval_pool(const Context& ctx, const graph::Value& node, bool is_max);
Tensor eval_adaptive_avg_pool(const Context& ctx, const graph::Value& node);

// indexing.cpp: an index out of range fails the node (RuntimeFailure).
Tensor eval_embedding(const Context& ctx, const graph::Value& node);
Tensor eval_index_select(const Context& ctx, const graph::Value& node);
Tensor eval_gather(const Context& ctx, const graph::Value& node);

}  // namespace stax::interp::detail

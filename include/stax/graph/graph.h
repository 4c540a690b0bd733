// The validated graph: every value (input, constant, node) with its inferred dtype and shape,
// nodes in definition (topological) order, attributes normalized. Produced by the front end
// (stax/graph/frontend.h); read by the interpreter and by lowering.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stax/support/dtype.h"
#include "stax/support/tensor.h"

namespace stax::graph {

enum class Op : unsigned char {
#define STAX_OP(E, name, cat) E,
#include "stax/graph/ops.def"
#undef STAX_OP
};

enum class OpCategory : unsigned char {
  Unary, UnaryFloat, UnaryPred, Binary, Compare, Logical, Where, Cast, Creation, Reduction,
  ArgReduce, Scan, View, Concat, Pad, Composite, Matmul, Conv, Pool, Indexing,
};

std::string_view op_name(Op op);
OpCategory op_category(Op op);
std::optional<Op> parse_op(std::string_view name);

// A Python-style scalar literal ("Nodes", graph-format.md). Its kind takes part in type
// promotion as a Python scalar does in PyTorch.
struct Scalar {
  enum class Kind : unsigned char { Bool, Int, Float };
  Kind kind = Kind::Int;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;  // may be +-inf or nan

  static Scalar of_bool(bool v) { Scalar s; s.kind = Kind::Bool; s.b = v; return s; }
  static Scalar of_int(int64_t v) { Scalar s; s.kind = Kind::Int; s.i = v; return s; }
  static Scalar of_float(double v) { Scalar s; s.kind = Kind::Float; s.f = v; return s; }
  double as_double() const;  // bool -> 0/1
  int64_t as_int() const;    // float truncates (caller checks range)
  bool operator==(const Scalar&) const;
};

using ValueId = int32_t;
constexpr ValueId kNoValue = -1;

// A node argument: a value, a scalar literal, or `null` (absent optional argument).
struct Arg {
  enum class Kind : unsigned char { Value, Scalar, None };
  Kind kind = Kind::None;
  ValueId value = kNoValue;
  Scalar scalar;

  static Arg of_value(ValueId v) { Arg a; a.kind = Kind::Value; a.value = v; return a; }
  static Arg of_scalar(Scalar s) { Arg a; a.kind = Kind::Scalar; a.scalar = s; return a; }
  static Arg none() { return Arg{}; }
  bool is_value() const { return kind == Kind::Value; }
  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_none() const { return kind == Kind::None; }
};

enum class RoundingMode : unsigned char { None, Trunc, Floor };

// Attributes after validation, normalized: every dim non-negative, defaults filled in,
// `-1` entries of shapes resolved. A field is meaningful only for the ops named beside it.
struct Attrs {
  // Reductions: the reduced dims, sorted ascending, unique (all dims when `dim` was absent;
  //   empty for a 0-d input). argmax/argmin: {dim}, or all dims when flattened (has_dim false);
  //   empty for a 0-d input.
  // permute: the permutation. transpose: the full permutation swapping dim0 and dim1.
  // squeeze: the dims actually removed (size-1 ones among those named), sorted.
  std::vector<int64_t> dims;
  bool keepdim = false;     // reductions, argmax/argmin
  bool has_dim = true;      // argmax/argmin: false = over the flattened input
  // cumsum/cumprod, softmax/log_softmax, unsqueeze (position in the output), cat, slice, select,
  // index_select, gather: the normalized dim (0 for a 0-d input where PyTorch allows dim 0/-1);
  // embedding: 0 (the row of the weight).
  int64_t dim = 0;
  // slice: start, end, step, clamped as Python does (0 <= start < end <= size, step >= 1).
  // flatten: start = start_dim, end = end_dim (inclusive), normalized.
  int64_t start = 0, end = 0, step = 1;
  int64_t index = 0;        // select: normalized index
  Shape shape;              // reshape/expand/full: resolved output shape; flatten: output shape
  Shape normalized_shape;   // layer_norm, rms_norm (as a list)
  std::vector<int64_t> pad; // pad: as torch.nn.functional.pad (last dim first pairs)
  // full.value, pad.value and clamp.min/max are converted to the kind of the result dtype
  // (Float for float dtypes, Int for int dtypes, Bool for bool) and are in its range.
  Scalar value;             // full: the fill value; pad: the pad value
  std::optional<Scalar> min, max;  // clamp
  // arange: as written (Int or Float kind); element i is start + i * step in `dtype`.
  Scalar arange_start = Scalar::of_int(0), arange_end, arange_step = Scalar::of_int(1);
  DType dtype = DType::Float32;    // to, full, arange: the result dtype (resolved)
  double negative_slope = 0.01;    // leaky_relu
  bool approximate_tanh = false;   // gelu approximate="tanh"
  RoundingMode rounding_mode = RoundingMode::None;  // div
  double eps = 1e-5;               // layer_norm, rms_norm (rms_norm default resolved to x's eps), batch_norm
  double correction = 1.0;         // var, std
  double beta = 1.0, threshold = 20.0;  // softplus
  double alpha = 1.0;              // elu
  // conv1d/conv2d and the pools: one entry per spatial dim (L, or H then W). `kernel` is the
  // pool's kernel_size or the convolution weight's trailing sizes; `pad_begin`/`pad_end` the
  // implicit padding before and after each spatial dim (equal except for a convolution's
  // "same" padding, whose odd extra element goes at the end). adaptive_avg_pool2d: `kernel`,
  // `stride`, `dilation` and the pads are empty.
  std::vector<int64_t> kernel, stride, dilation, pad_begin, pad_end;
  int64_t groups = 1;              // conv1d/conv2d
  bool ceil_mode = false;          // max_pool2d, avg_pool2d
  bool count_include_pad = true;   // avg_pool2d
  int64_t divisor_override = 0;    // avg_pool2d: 0 when absent, else >= 1
  Shape output_size;               // adaptive_avg_pool2d: [h, w], resolved
};

enum class ValueKind : unsigned char { Input, Constant, Node };

struct Value {
  ValueKind kind = ValueKind::Node;
  // Unique. Anonymous (inline) nodes get "<parent>#<k>", never a valid user name: <parent> is the
  // enclosing named node, k counts its inline nodes in the order they are placed (just before
  // it, nested ones first).
  std::string name;
  bool anonymous = false;
  std::string path;    // JSON path of its definition: "inputs[0]", "nodes[3]", "nodes[3].args[1]"
  DType dtype = DType::Float32;
  Shape shape;

  // Node only.
  Op op = Op::Add;
  std::vector<Arg> args;
  Attrs attrs;
  // The dtype the op computes in: the promoted common dtype of its operands (float32 for float
  // math on ints); equals `dtype` except for predicates/comparisons (bool result) and
  // reductions/casts whose result differs from their operand type. Precisely:
  //   comparisons, logical_*: the promoted operand dtype; isnan/isinf/isfinite, logical_not,
  //   any/all, argmax/argmin: the input dtype; to: the source dtype; sum/prod/cumsum/cumprod:
  //   the accumulation dtype, which is `dtype` (int64 for bool or int32 input); every other op:
  //   `dtype`. Scalar literal arguments fit in the compute dtype (checked by the front end).
  DType compute_dtype = DType::Float32;

  // Constant only: the data, dtype and shape as declared.
  Tensor data;

  int64_t numel() const { return shape_numel(shape); }
};

// Whether `v` is pow(x, e) of a tensor x, a float literal e equal to `e` and a floating compute
// dtype. PyTorch's pow(Tensor, Scalar) computes the exponents 0.5 and -0.5 as sqrt and rsqrt,
// which differ from std::pow at -inf (NaN, not +inf or 0) and at -0 (-0 and -inf); the
// interpreter and the lowering both follow it.
bool is_pow_by_float_literal(const Value& v, double e);

struct Graph {
  std::string name;
  std::vector<Value> values;     // inputs, then constants, then nodes in topological order
  std::vector<ValueId> inputs;   // call order
  std::vector<ValueId> outputs;  // result order; may repeat, may name inputs or constants

  const Value& operator[](ValueId id) const { return values.at(static_cast<std::size_t>(id)); }
  Value& operator[](ValueId id) { return values.at(static_cast<std::size_t>(id)); }
  // kNoValue when absent.
  ValueId find(std::string_view name) const;
};

}  // namespace stax::graph

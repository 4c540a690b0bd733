// interpret(): checks the inputs, then evaluates the nodes in order. The switch below is the
// interpreter's table of every op of graph-format.md: elementwise semantics are written out
// here as one-line functions of operands already converted to the compute dtype.
#include "stax/interp/interpreter.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "internal.h"
#include "stax/support/error.h"

namespace stax::interp::detail {

namespace {

using graph::Attrs;
using graph::Op;
using graph::Value;

// One-line elementwise semantics. x, y: the operands in the compute dtype `c` (double for a
// floating one, int64 wrapped to the width of an integer one, 0/1 for bool); a: the node's Attrs.
#define FLT1(expr) \
  [](double x, const Attrs& a, DType c) -> double { (void)x; (void)a; (void)c; return (expr); }
#define INT1(expr) \
  [](int64_t x, const Attrs& a, DType c) -> int64_t { (void)x; (void)a; (void)c; return (expr); }
#define FLT2(expr) \
  [](double x, double y, const Attrs& a, DType c) -> double { (void)a; (void)c; return (expr); }
#define INT2(expr) \
  [](int64_t x, int64_t y, const Attrs& a, DType c) -> int64_t { (void)a; (void)c; return (expr); }

constexpr double kSqrt1_2 = 0.70710678118654752440;   // 1/sqrt(2)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2/pi)

double gelu(double x, bool approximate_tanh) {
  if (approximate_tanh) return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1.0 + std::erf(x * kSqrt1_2));
}

// clamp(x, min, max) = min(max(x, lo), hi): hi wins when lo > hi; a NaN operand or bound gives NaN.
double clamp_float(double x, const Attrs& a, DType c) {
  if (a.min) {
    const double lo = scalar_float(*a.min, c);
    x = (std::isnan(x) || std::isnan(lo)) ? NAN : (x < lo ? lo : x);
  }
  if (a.max) {
    const double hi = scalar_float(*a.max, c);
    x = (std::isnan(x) || std::isnan(hi)) ? NAN : (x > hi ? hi : x);
  }
  return x;
}

int64_t clamp_int(int64_t x, const Attrs& a, DType c) {
  if (a.min) x = std::max(x, scalar_int(*a.min, c));
  if (a.max) x = std::min(x, scalar_int(*a.max, c));
  return x;
}

// x to the literal power 0.5 and -0.5 (graph::is_pow_by_float_literal); the exponent is unused.
double pow_sqrt(double x, double, const Attrs&, DType) { return std::sqrt(x); }
double pow_rsqrt(double x, double, const Attrs&, DType) { return 1.0 / std::sqrt(x); }

double div_float(double x, double y, const Attrs& a, DType c) {
  switch (a.rounding_mode) {
    case graph::RoundingMode::None: return x / y;
    case graph::RoundingMode::Trunc: return float_div_trunc(x, y, c);
    case graph::RoundingMode::Floor: return float_div_floor(x, y, c);
  }
  return x / y;
}

int64_t div_int(int64_t x, int64_t y, const Attrs& a, DType) {
  switch (a.rounding_mode) {
    case graph::RoundingMode::None: break;  // true division computes in a floating dtype
    case graph::RoundingMode::Trunc: return int_div_trunc(x, y);
    case graph::RoundingMode::Floor: return int_div_floor(x, y);
  }
  STAX_ASSERT(false, "integer compute dtype for div without rounding mode");
  return 0;
}

// min(max(x + 3, 0), 6), NaN propagating: hardsigmoid(x) * 6.
double hard_sigmoid6(double x) {
  if (std::isnan(x)) return x;
  return std::min(std::max(x + 3.0, 0.0), 6.0);
}

// PyTorch's softplus: x * beta > threshold ? x : log1p(exp(x * beta)) / beta, with beta and
// threshold in the compute dtype and x * beta rounded to it (the comparison sees what PyTorch's
// kernel compares).
double softplus(double x, const Attrs& a, DType c) {
  const double beta = round_to(a.beta, c);
  const double bx = round_to(x * beta, c);
  if (bx > round_to(a.threshold, c)) return x;
  return std::log1p(std::exp(bx)) / beta;
}

double max_float(double x, double y) { return (std::isnan(x) || std::isnan(y)) ? NAN : (x > y ? x : y); }
double min_float(double x, double y) { return (std::isnan(x) || std::isnan(y)) ? NAN : (x < y ? x : y); }

Tensor eval_node(const Context& ctx, const Value& n) {
  switch (n.op) {
    // Unary, result in the input dtype (ints: floor/ceil/round/trunc are the identity).
    case Op::Neg: return eval_unary(ctx, n, FLT1(-x), INT1(wrapping_neg(x)));
    case Op::Abs: return eval_unary(ctx, n, FLT1(std::fabs(x)), INT1(x < 0 ? wrapping_neg(x) : x));
    case Op::Sign:  // sign(NaN) = 0, as PyTorch's (0 < x) - (x < 0)
      return eval_unary(ctx, n, FLT1(double((0 < x) - (x < 0))), INT1((0 < x) - (x < 0)));
    case Op::Relu:  // relu(NaN) = NaN (PyTorch's clamp_min)
      return eval_unary(ctx, n, FLT1(x < 0 ? 0.0 : x), INT1(x < 0 ? 0 : x));
    case Op::Floor: return eval_unary(ctx, n, FLT1(std::floor(x)), INT1(x));
    case Op::Ceil: return eval_unary(ctx, n, FLT1(std::ceil(x)), INT1(x));
    case Op::Round: return eval_unary(ctx, n, FLT1(std::nearbyint(x)), INT1(x));  // half to even
    case Op::Trunc: return eval_unary(ctx, n, FLT1(std::trunc(x)), INT1(x));
    case Op::LogicalNot: return eval_predicate(ctx, n, FLT1(x == 0 ? 1.0 : 0.0), INT1(x == 0));
    case Op::BitwiseNot: return eval_unary(ctx, n, nullptr, INT1(c == DType::Bool ? int64_t(!x) : ~x));
    case Op::Clamp: return eval_unary(ctx, n, clamp_float, clamp_int);
    case Op::LeakyRelu:
      return eval_unary(ctx, n, FLT1(x > 0 ? x : x * round_to(a.negative_slope, c)), nullptr);
    case Op::Gelu: return eval_unary(ctx, n, FLT1(gelu(x, a.approximate_tanh)), nullptr);
    case Op::Silu: return eval_unary(ctx, n, FLT1(x / (1.0 + std::exp(-x))), nullptr);
    // Float math: int/bool operands were converted to float32 (the compute dtype).
    case Op::Exp: return eval_unary(ctx, n, FLT1(std::exp(x)), nullptr);
    case Op::Exp2: return eval_unary(ctx, n, FLT1(std::exp2(x)), nullptr);
    case Op::Expm1: return eval_unary(ctx, n, FLT1(std::expm1(x)), nullptr);
    case Op::Log: return eval_unary(ctx, n, FLT1(std::log(x)), nullptr);
    case Op::Log2: return eval_unary(ctx, n, FLT1(std::log2(x)), nullptr);
    case Op::Log10: return eval_unary(ctx, n, FLT1(std::log10(x)), nullptr);
    case Op::Log1p: return eval_unary(ctx, n, FLT1(std::log1p(x)), nullptr);
    case Op::Sqrt: return eval_unary(ctx, n, FLT1(std::sqrt(x)), nullptr);
    case Op::Rsqrt: return eval_unary(ctx, n, FLT1(1.0 / std::sqrt(x)), nullptr);
    case Op::Reciprocal: return eval_unary(ctx, n, FLT1(1.0 / x), nullptr);
    case Op::Sin: return eval_unary(ctx, n, FLT1(std::sin(x)), nullptr);
    case Op::Cos: return eval_unary(ctx, n, FLT1(std::cos(x)), nullptr);
    case Op::Tan: return eval_unary(ctx, n, FLT1(std::tan(x)), nullptr);
    case Op::Asin: return eval_unary(ctx, n, FLT1(std::asin(x)), nullptr);
    case Op::Acos: return eval_unary(ctx, n, FLT1(std::acos(x)), nullptr);
    case Op::Atan: return eval_unary(ctx, n, FLT1(std::atan(x)), nullptr);
    case Op::Sinh: return eval_unary(ctx, n, FLT1(std::sinh(x)), nullptr);
    case Op::Cosh: return eval_unary(ctx, n, FLT1(std::cosh(x)), nullptr);
    case Op::Tanh: return eval_unary(ctx, n, FLT1(std::tanh(x)), nullptr);
    case Op::Sigmoid: return eval_unary(ctx, n, FLT1(1.0 / (1.0 + std::exp(-x))), nullptr);
    case Op::Erf: return eval_unary(ctx, n, FLT1(std::erf(x)), nullptr);
    case Op::Erfc: return eval_unary(ctx, n, FLT1(std::erfc(x)), nullptr);
    // Predicates, in the operand's own dtype (integers are finite).
    case Op::IsNan: return eval_predicate(ctx, n, FLT1(std::isnan(x) ? 1.0 : 0.0), INT1(0));
    case Op::IsInf: return eval_predicate(ctx, n, FLT1(std::isinf(x) ? 1.0 : 0.0), INT1(0));
    case Op::IsFinite: return eval_predicate(ctx, n, FLT1(std::isfinite(x) ? 1.0 : 0.0), INT1(1));
    // Binary arithmetic (bool compute: add is or, mul is and; stores turn nonzero into true).
    case Op::Add: return eval_binary(ctx, n, FLT2(x + y), INT2(wrapping_add(x, y)));
    case Op::Sub: return eval_binary(ctx, n, FLT2(x - y), INT2(wrapping_sub(x, y)));
    case Op::Mul: return eval_binary(ctx, n, FLT2(x * y), INT2(wrapping_mul(x, y)));
    case Op::Div: return eval_binary(ctx, n, div_float, div_int);
    case Op::Remainder:
      return eval_binary(ctx, n, FLT2(float_remainder(x, y, c)), INT2(int_remainder(x, y)));
    case Op::Pow:
      // To the literal power 0.5 or -0.5, PyTorch computes sqrt or rsqrt (NaN at -inf).
      if (graph::is_pow_by_float_literal(n, 0.5)) return eval_binary(ctx, n, pow_sqrt, nullptr);
      if (graph::is_pow_by_float_literal(n, -0.5)) return eval_binary(ctx, n, pow_rsqrt, nullptr);
      return eval_binary(ctx, n, FLT2(std::pow(x, y)), INT2(int_pow(x, y)));
    case Op::Maximum: return eval_binary(ctx, n, FLT2(max_float(x, y)), INT2(std::max(x, y)));
    case Op::Minimum: return eval_binary(ctx, n, FLT2(min_float(x, y)), INT2(std::min(x, y)));
    case Op::Atan2: return eval_binary(ctx, n, FLT2(std::atan2(x, y)), nullptr);
    case Op::BitwiseAnd: return eval_binary(ctx, n, nullptr, INT2(x & y));
    case Op::BitwiseOr: return eval_binary(ctx, n, nullptr, INT2(x | y));
    case Op::BitwiseXor: return eval_binary(ctx, n, nullptr, INT2(x ^ y));
    // Comparisons and logic: 1/0 stored into the bool result.
    case Op::Eq: return eval_binary(ctx, n, FLT2(x == y ? 1.0 : 0.0), INT2(x == y));
    case Op::Ne: return eval_binary(ctx, n, FLT2(x != y ? 1.0 : 0.0), INT2(x != y));
    case Op::Lt: return eval_binary(ctx, n, FLT2(x < y ? 1.0 : 0.0), INT2(x < y));
    case Op::Le: return eval_binary(ctx, n, FLT2(x <= y ? 1.0 : 0.0), INT2(x <= y));
    case Op::Gt: return eval_binary(ctx, n, FLT2(x > y ? 1.0 : 0.0), INT2(x > y));
    case Op::Ge: return eval_binary(ctx, n, FLT2(x >= y ? 1.0 : 0.0), INT2(x >= y));
    case Op::LogicalAnd:
      return eval_binary(ctx, n, FLT2((x != 0 && y != 0) ? 1.0 : 0.0), INT2(x != 0 && y != 0));
    case Op::LogicalOr:
      return eval_binary(ctx, n, FLT2((x != 0 || y != 0) ? 1.0 : 0.0), INT2(x != 0 || y != 0));
    case Op::LogicalXor:
      return eval_binary(ctx, n, FLT2((x != 0) != (y != 0) ? 1.0 : 0.0), INT2((x != 0) != (y != 0)));
    case Op::Where: return eval_where(ctx, n);
    case Op::To: return eval_cast(ctx, n);
    // Creation
    case Op::Full: return eval_full(n);
    case Op::Arange: return eval_arange(n);
    // Reductions and scans
    case Op::Sum: return eval_reduction(ctx, n, ReduceKind::Sum);
    case Op::Mean: return eval_reduction(ctx, n, ReduceKind::Mean);
    case Op::Prod: return eval_reduction(ctx, n, ReduceKind::Prod);
    case Op::Amax: return eval_reduction(ctx, n, ReduceKind::Amax);
    case Op::Amin: return eval_reduction(ctx, n, ReduceKind::Amin);
    case Op::Any: return eval_reduction(ctx, n, ReduceKind::Any);
    case Op::All: return eval_reduction(ctx, n, ReduceKind::All);
    case Op::Var: return eval_reduction(ctx, n, ReduceKind::Var);
    case Op::Std: return eval_reduction(ctx, n, ReduceKind::Std);
    case Op::Logsumexp: return eval_reduction(ctx, n, ReduceKind::Logsumexp);
    case Op::Argmax: return eval_argreduce(ctx, n, true);
    case Op::Argmin: return eval_argreduce(ctx, n, false);
    case Op::Cumsum: return eval_scan(ctx, n, false);
    case Op::Cumprod: return eval_scan(ctx, n, true);
    // Shape and layout
    case Op::Reshape: return eval_reshape(ctx, n);
    case Op::Permute: return eval_permute(ctx, n);
    case Op::Transpose: return eval_permute(ctx, n);
    case Op::Expand: return eval_expand(ctx, n);
    case Op::Unsqueeze: return eval_unsqueeze(ctx, n);
    case Op::Squeeze: return eval_squeeze(ctx, n);
    case Op::Flatten: return eval_reshape(ctx, n);
    case Op::Slice: return eval_slice(ctx, n);
    case Op::Select: return eval_select(ctx, n);
    case Op::Cat: return eval_cat(ctx, n);
    case Op::Pad: return eval_pad(ctx, n);
    // Composites, from their definitions
    case Op::Softmax: return eval_softmax(ctx, n, false);
    case Op::LogSoftmax: return eval_softmax(ctx, n, true);
    case Op::LayerNorm: return eval_layer_norm(ctx, n);
    case Op::RmsNorm: return eval_rms_norm(ctx, n);
    case Op::Linear: return eval_linear(ctx, n);
    case Op::BatchNorm: return eval_batch_norm(ctx, n);
    case Op::Hardswish:  // x * relu6(x + 3) rounded, then / 6, as PyTorch (3.4e38 gives inf)
      return eval_unary(ctx, n, FLT1(round_to(x * hard_sigmoid6(x), c) / 6.0), nullptr);
    case Op::Hardsigmoid: return eval_unary(ctx, n, FLT1(hard_sigmoid6(x) / 6.0), nullptr);
    case Op::Softplus: return eval_unary(ctx, n, softplus, nullptr);
    case Op::Elu:  // PyTorch 2.x's x < 0 ? expm1(x) * alpha : x (so elu(-0) = -0, elu(NaN) = NaN)
      return eval_unary(ctx, n, FLT1(x < 0 ? std::expm1(x) * round_to(a.alpha, c) : x), nullptr);
    case Op::Matmul: return eval_matmul(ctx, n);
    // Convolution and pooling
    case Op::Conv1d:
    case Op::Conv2d: return eval_conv(ctx, n);
    case Op::MaxPool2d: return eval_pool(ctx, n, true);
    case Op::AvgPool2d: return eval_pool(ctx, n, false);
    case Op::AdaptiveAvgPool2d: return eval_adaptive_avg_pool(ctx, n);
    // Indexing (indices checked)
    case Op::Embedding: return eval_embedding(ctx, n);
    case Op::IndexSelect: return eval_index_select(ctx, n);
    case Op::Gather: return eval_gather(ctx, n);
  }
  STAX_ASSERT(false, "unknown op");
  return Tensor();
}

}  // namespace

}  // namespace stax::interp::detail

namespace stax::interp {

namespace {

using graph::Value;

#undef FLT1
#undef INT1
#undef FLT2
#undef INT2

void check_inputs(const graph::Graph& g, const std::vector<Tensor>& inputs) {
  if (inputs.size() != g.inputs.size()) {
    std::string names;
    for (graph::ValueId id : g.inputs) names += (names.empty() ? "" : ", ") + g[id].name;
    throw UserError("graph '" + g.name + "' takes " + std::to_string(g.inputs.size()) +
                    " input(s) (" + names + "), got " + std::to_string(inputs.size()));
  }
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Value& v = g[g.inputs[k]];
    const Tensor& t = inputs[k];
    if (t.dtype() != v.dtype)
      throw UserError("input '" + v.name + "': expected dtype " + std::string(dtype_name(v.dtype)) +
                      ", got " + std::string(dtype_name(t.dtype())));
    if (t.shape() != v.shape)
      throw UserError("input '" + v.name + "': expected shape " + shape_str(v.shape) + ", got " +
                      shape_str(t.shape()));
  }
}

// For each value, the position of the last node that reads it (or the value's own position).
std::vector<std::size_t> last_uses(const graph::Graph& g) {
  std::vector<std::size_t> last(g.values.size());
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    last[i] = i;
    for (const graph::Arg& a : g.values[i].args)
      if (a.is_value()) last.at(static_cast<std::size_t>(a.value)) = i;
  }
  return last;
}

// The most bytes the evaluation below holds at once: inputs, constants and the values alive
// after each node (as it releases them), saturating.
uint64_t peak_bytes(const graph::Graph& g, const std::vector<std::size_t>& last, const std::vector<bool>& is_output) {
  auto bytes = [&](std::size_t i) {
    const Value& v = g.values[i];
    return static_cast<uint64_t>(v.numel()) * dtype_size(v.dtype);  // < 2^63: checked by the front end
  };
  uint64_t live = 0, peak = 0;
  std::vector<bool> freed(g.values.size(), false);  // a value given twice to its last user is freed once
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    live = add_saturating(live, bytes(i));
    peak = std::max(peak, live);
    if (g.values[i].kind != graph::ValueKind::Node) continue;
    for (const graph::Arg& a : g.values[i].args) {
      if (!a.is_value()) continue;
      const std::size_t v = static_cast<std::size_t>(a.value);
      if (last[v] == i && g.values[v].kind == graph::ValueKind::Node && !is_output[v] && !freed[v] && live != UINT64_MAX) {
        live -= bytes(v);
        freed[v] = true;
      }
    }
  }
  return peak;
}

}  // namespace

std::vector<Tensor> interpret(const graph::Graph& g, const std::vector<Tensor>& inputs) {
  check_inputs(g, inputs);
  const std::size_t count = g.values.size();
  std::vector<const Tensor*> values(count, nullptr);
  std::vector<std::unique_ptr<Tensor>> owned(count);
  for (std::size_t k = 0; k < inputs.size(); ++k)
    values.at(static_cast<std::size_t>(g.inputs[k])) = &inputs[k];

  std::vector<bool> is_output(count, false);
  for (graph::ValueId id : g.outputs) is_output.at(static_cast<std::size_t>(id)) = true;
  const std::vector<std::size_t> last = last_uses(g);
  check_memory_available(peak_bytes(g, last, is_output), "interpreting graph '" + g.name + "'");

  const detail::Context ctx{g, values};
  for (std::size_t i = 0; i < count; ++i) {
    const Value& v = g.values[i];
    switch (v.kind) {
      case graph::ValueKind::Input:
        STAX_ASSERT(values[i] != nullptr, "input '" + v.name + "' is not in the graph's input list");
        continue;
      case graph::ValueKind::Constant:
        values[i] = &v.data;
        continue;
      case graph::ValueKind::Node: break;
    }
    Tensor result = detail::eval_node(ctx, v);
    STAX_ASSERT(result.dtype() == v.dtype && result.shape() == v.shape,
                "node '" + v.name + "' computed " + std::string(dtype_name(result.dtype())) +
                    shape_str(result.shape()) + ", graph says " + std::string(dtype_name(v.dtype)) +
                    shape_str(v.shape));
    owned[i] = std::make_unique<Tensor>(std::move(result));
    values[i] = owned[i].get();
    // Release the intermediates this node was the last reader of.
    for (const graph::Arg& a : v.args) {
      if (!a.is_value()) continue;
      const auto src = static_cast<std::size_t>(a.value);
      if (last[src] == i && owned[src] && !is_output[src]) {
        owned[src].reset();
        values[src] = nullptr;
      }
    }
    if (last[i] == i && !is_output[i]) {  // nobody reads it
      owned[i].reset();
      values[i] = nullptr;
    }
  }

  std::vector<Tensor> outputs;
  outputs.reserve(g.outputs.size());
  for (graph::ValueId id : g.outputs) outputs.push_back(ctx.tensor(id));
  return outputs;
}

}  // namespace stax::interp

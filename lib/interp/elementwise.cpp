// Elementwise ops (unary, predicates, binary, comparisons, logic, where, to) and creation ops.
// Operands are broadcast to the node's shape and converted to its compute dtype; the op's
// semantics come in as small functions (see the op table in interpreter.cpp).
#include "internal.h"

#include "stax/support/error.h"

namespace stax::interp::detail {

namespace {

// The element offsets of argument k (a tensor) broadcast to the node's shape.
std::vector<int64_t> broadcast_offsets(const Tensor& t, const Shape& out) {
  return view_offsets(broadcast_view(contiguous_view(t.shape()), out));
}

// Argument k of `node` (tensor or scalar) broadcast to the node's shape, converted to `compute`
// (a floating dtype).
std::vector<double> float_operand(const Context& ctx, const graph::Value& node, std::size_t k,
                                  DType compute) {
  const graph::Arg& a = node.args.at(k);
  const int64_t n = node.numel();
  if (a.is_scalar()) return std::vector<double>(idx(n), scalar_float(a.scalar, compute));
  const Tensor& t = ctx.arg(node, k);
  const std::vector<int64_t> offsets = broadcast_offsets(t, node.shape);
  std::vector<double> out(idx(n));
  for (int64_t i = 0; i < n; ++i) out[idx(i)] = load_float(t, offsets[idx(i)], compute);
  return out;
}

// Same for an integer or bool `compute`.
std::vector<int64_t> int_operand(const Context& ctx, const graph::Value& node, std::size_t k,
                                 DType compute) {
  const graph::Arg& a = node.args.at(k);
  const int64_t n = node.numel();
  if (a.is_scalar()) return std::vector<int64_t>(idx(n), scalar_int(a.scalar, compute));
  const Tensor& t = ctx.arg(node, k);
  const std::vector<int64_t> offsets = broadcast_offsets(t, node.shape);
  std::vector<int64_t> out(idx(n));
  for (int64_t i = 0; i < n; ++i) out[idx(i)] = load_int(t, offsets[idx(i)], compute);
  return out;
}

void expect_arity(const graph::Value& node, std::size_t n) {
  STAX_ASSERT(node.args.size() == n, "node '" + node.name + "' (" +
                                         std::string(graph::op_name(node.op)) + ") expects " +
                                         std::to_string(n) + " arguments");
}

// Unary evaluation in dtype `compute`.
Tensor unary_in(const Context& ctx, const graph::Value& node, DType compute, UnaryF f, UnaryI i) {
  expect_arity(node, 1);
  Tensor out(node.dtype, node.shape);
  const int64_t n = node.numel();
  if (is_floating(compute)) {
    STAX_ASSERT(f != nullptr, "op '" + std::string(graph::op_name(node.op)) +
                                  "' has no floating semantics");
    const std::vector<double> x = float_operand(ctx, node, 0, compute);
    for (int64_t k = 0; k < n; ++k) store_float(out, k, f(x[idx(k)], node.attrs, compute));
    return out;
  }
  STAX_ASSERT(i != nullptr, "op '" + std::string(graph::op_name(node.op)) + "' has no " +
                                std::string(dtype_name(compute)) + " semantics");
  const std::vector<int64_t> x = int_operand(ctx, node, 0, compute);
  for (int64_t k = 0; k < n; ++k) store_int(out, k, i(x[idx(k)], node.attrs, compute));
  return out;
}

}  // namespace

Tensor eval_unary(const Context& ctx, const graph::Value& node, UnaryF f, UnaryI i) {
  return unary_in(ctx, node, node.compute_dtype, f, i);
}

Tensor eval_predicate(const Context& ctx, const graph::Value& node, UnaryF f, UnaryI i) {
  expect_arity(node, 1);
  return unary_in(ctx, node, ctx.arg(node, 0).dtype(), f, i);
}

Tensor eval_binary(const Context& ctx, const graph::Value& node, BinaryF f, BinaryI i) {
  expect_arity(node, 2);
  const DType compute = node.compute_dtype;
  Tensor out(node.dtype, node.shape);
  const int64_t n = node.numel();
  if (is_floating(compute)) {
    STAX_ASSERT(f != nullptr, "op '" + std::string(graph::op_name(node.op)) +
                                  "' has no floating semantics");
    const std::vector<double> x = float_operand(ctx, node, 0, compute);
    const std::vector<double> y = float_operand(ctx, node, 1, compute);
    for (int64_t k = 0; k < n; ++k)
      store_float(out, k, f(x[idx(k)], y[idx(k)], node.attrs, compute));
    return out;
  }
  STAX_ASSERT(i != nullptr, "op '" + std::string(graph::op_name(node.op)) + "' has no " +
                                std::string(dtype_name(compute)) + " semantics");
  const std::vector<int64_t> x = int_operand(ctx, node, 0, compute);
  const std::vector<int64_t> y = int_operand(ctx, node, 1, compute);
  try {
    for (int64_t k = 0; k < n; ++k)
      store_int(out, k, i(x[idx(k)], y[idx(k)], node.attrs, compute));
  } catch (const IntegerDivisionByZero&) {
    fail(node, "integer division by zero");
  }
  return out;
}

Tensor eval_where(const Context& ctx, const graph::Value& node) {
  expect_arity(node, 3);
  const DType compute = node.compute_dtype;
  Tensor out(node.dtype, node.shape);
  const int64_t n = node.numel();
  const std::vector<int64_t> cond = int_operand(ctx, node, 0, DType::Bool);
  if (is_floating(compute)) {
    const std::vector<double> a = float_operand(ctx, node, 1, compute);
    const std::vector<double> b = float_operand(ctx, node, 2, compute);
    for (int64_t k = 0; k < n; ++k) store_float(out, k, cond[idx(k)] ? a[idx(k)] : b[idx(k)]);
    return out;
  }
  const std::vector<int64_t> a = int_operand(ctx, node, 1, compute);
  const std::vector<int64_t> b = int_operand(ctx, node, 2, compute);
  for (int64_t k = 0; k < n; ++k) store_int(out, k, cond[idx(k)] ? a[idx(k)] : b[idx(k)]);
  return out;
}

Tensor eval_cast(const Context& ctx, const graph::Value& node) {
  expect_arity(node, 1);
  const Tensor& in = ctx.arg(node, 0);
  STAX_ASSERT(in.shape() == node.shape, "to: shape changed");
  Tensor out(node.dtype, node.shape);
  for (int64_t k = 0; k < node.numel(); ++k) convert_element(in, k, out, k);
  return out;
}

Tensor eval_full(const graph::Value& node) {
  Tensor out(node.dtype, node.shape);
  for (int64_t k = 0; k < node.numel(); ++k) store_scalar(out, k, node.attrs.value);
  return out;
}

// Element i is start + i * step: in wrapping int64 for an integer dtype, else in double (as
// PyTorch's CPU kernel, whose accumulate type for float32 is double), rounded to the dtype.
Tensor eval_arange(const graph::Value& node) {
  Tensor out(node.dtype, node.shape);
  const graph::Attrs& a = node.attrs;
  const int64_t n = node.numel();
  if (is_floating(node.dtype)) {
    const double start = a.arange_start.as_double();
    const double step = a.arange_step.as_double();
    for (int64_t k = 0; k < n; ++k) store_float(out, k, start + static_cast<double>(k) * step);
    return out;
  }
  const int64_t start = a.arange_start.as_int();
  const int64_t step = a.arange_step.as_int();
  for (int64_t k = 0; k < n; ++k) store_int(out, k, wrapping_add(start, wrapping_mul(k, step)));
  return out;
}

}  // namespace stax::interp::detail

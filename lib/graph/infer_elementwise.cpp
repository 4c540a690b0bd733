// Dtype and shape of elementwise ops: unary, binary, comparisons, logical ops, where, to
// (PyTorch's torch.result_type and per-op dtype rules; graph-format.md "Precise rules").
#include "frontend_impl.h"

#include "stax/graph/promote.h"
#include "stax/support/error.h"

namespace stax::graph::detail {

namespace {

// An argument of an elementwise op as type promotion sees it.
struct Operand {
  bool is_scalar = false;
  Scalar lit;
  DType dtype = DType::Float32;  // a scalar's natural dtype (bool, int64, float64)
  Shape shape;
};

Operand operand(const NodeCtx& c, std::size_t i) {
  Operand o;
  const Arg& a = c.args[i];
  if (a.is_scalar()) {
    o.is_scalar = true;
    o.lit = a.scalar;
    o.dtype = scalar_natural_dtype(a.scalar);
    return o;
  }
  const Value& v = c.value(i);
  o.dtype = v.dtype;
  o.shape = v.shape;
  return o;
}

PromoteOperand promote_operand(const Operand& o) {
  PromoteOperand p;
  p.dtype = o.dtype;
  if (o.is_scalar)
    p.rank = PromoteOperand::Rank::PythonScalar;
  else
    p.rank = o.shape.empty() ? PromoteOperand::Rank::ZeroDim : PromoteOperand::Rank::Dim;
  return p;
}

DType to_float(DType dt) { return is_floating(dt) ? dt : DType::Float32; }

// Broadcast of the tensor operands' shapes (scalars do not take part).
Shape broadcast_all(const NodeCtx& c, const std::vector<Operand>& ops) {
  Shape out;
  bool first = true;
  for (const Operand& o : ops) {
    if (o.is_scalar) continue;
    if (first) {
      out = o.shape;
      first = false;
      continue;
    }
    std::optional<Shape> b = broadcast_shapes(out, o.shape);
    if (!b)
      c.site.fail("", "cannot broadcast shapes " + shape_str(out) + " and " + shape_str(o.shape));
    out = *b;
  }
  return out;
}

// A scalar literal must fit the dtype the op computes in.
void check_scalars_fit(const NodeCtx& c, const std::vector<Operand>& ops, DType compute,
                       std::size_t first_index = 0) {
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (!ops[k].is_scalar || scalar_fits(ops[k].lit, compute)) continue;
    c.site.fail(c.arg_path(first_index + k),
                "value " + scalar_str(ops[k].lit) + " is out of the range of " + dt_str(compute) +
                    ", the dtype op '" + c.site.op + "' computes in");
  }
}

void reject_bool(const NodeCtx& c, std::size_t i, DType dt) {
  if (dt == DType::Bool) c.site.fail(c.arg_path(i), "op '" + c.site.op + "' does not accept bool");
}

void require_float(const NodeCtx& c, std::size_t i, DType dt) {
  if (!is_floating(dt))
    c.site.fail(c.arg_path(i), "op '" + c.site.op + "' needs a floating-point tensor, got " +
                                   dt_str(dt));
}

std::optional<Scalar> bound(const NodeCtx& c, std::string_view key) {
  const Json* j = c.attr(key);
  if (j == nullptr) return std::nullopt;
  std::string sub = "." + std::string(key);
  std::optional<Scalar> s = j->is_bool() ? std::nullopt : read_scalar_literal(c.site, *j, sub);
  if (!s) c.site.fail(sub, "expected a number, got " + json_brief(*j));
  return s;
}

void infer_clamp(const NodeCtx& c, Value& v, const Value& x) {
  std::optional<Scalar> lo = bound(c, "min"), hi = bound(c, "max");
  if (!lo && !hi) c.site.fail("", "clamp needs 'min' or 'max'");
  // at::clamp's meta function: a non-float input promotes with the bounds as Python scalars.
  DType result = x.dtype;
  if (!is_floating(result)) {
    std::vector<PromoteOperand> ops{promote_operand(operand(c, 0))};
    if (lo) ops.push_back({scalar_natural_dtype(*lo), PromoteOperand::Rank::PythonScalar});
    if (hi) ops.push_back({scalar_natural_dtype(*hi), PromoteOperand::Rank::PythonScalar});
    result = result_type(ops);
  }
  reject_bool(c, 0, result);
  if (lo) v.attrs.min = scalar_to_dtype(c.site, *lo, result, ".min");
  if (hi) v.attrs.max = scalar_to_dtype(c.site, *hi, result, ".max");
  v.dtype = v.compute_dtype = result;
}

void infer_unary(const NodeCtx& c, Value& v) {
  const Value& x = c.value(0);
  v.shape = x.shape;
  v.dtype = v.compute_dtype = x.dtype;
  Op op = c.op;
  if (op == Op::Neg || op == Op::Abs || op == Op::Sign || op == Op::Relu || op == Op::Floor ||
      op == Op::Ceil || op == Op::Round || op == Op::Trunc) {
    reject_bool(c, 0, x.dtype);
    return;
  }
  if (op == Op::BitwiseNot) {
    if (is_floating(x.dtype))
      c.site.fail(c.arg_path(0), "op 'bitwise_not' needs an integer or bool tensor, got " +
                                     dt_str(x.dtype));
    return;
  }
  if (op == Op::Clamp) {
    infer_clamp(c, v, x);
    return;
  }
  require_float(c, 0, x.dtype);  // gelu, silu, leaky_relu
  if (op == Op::Gelu) {
    if (const Json* a = c.attr("approximate")) {
      std::string mode = read_string(c.site, *a, ".approximate");
      if (mode != "none" && mode != "tanh")
        c.site.fail(".approximate", "expected \"none\" or \"tanh\", got \"" + printable(mode) + "\"");
      v.attrs.approximate_tanh = mode == "tanh";
    }
  }
  if (op == Op::LeakyRelu) {
    if (const Json* s = c.attr("negative_slope"))
      v.attrs.negative_slope = read_finite_number(c.site, *s, ".negative_slope");
  }
}

RoundingMode read_rounding_mode(const NodeCtx& c) {
  const Json* j = c.attr("rounding_mode");
  if (j == nullptr) return RoundingMode::None;
  std::string mode = read_string(c.site, *j, ".rounding_mode");
  if (mode == "trunc") return RoundingMode::Trunc;
  if (mode == "floor") return RoundingMode::Floor;
  c.site.fail(".rounding_mode", "expected \"trunc\" or \"floor\" (or no rounding_mode), got \"" +
                                    printable(mode) + "\"");
}

void reject_bool_common(const NodeCtx& c, DType common, std::string_view what = "") {
  if (common == DType::Bool)
    c.site.fail("", "op '" + c.site.op + "'" + std::string(what) + " does not accept bool operands");
}

void infer_binary(const NodeCtx& c, Value& v) {
  std::vector<Operand> ops{operand(c, 0), operand(c, 1)};
  v.shape = broadcast_all(c, ops);
  DType common = result_type({promote_operand(ops[0]), promote_operand(ops[1])});
  DType result = common;
  // add, mul, maximum, minimum accept every dtype; the others have rules of their own.
  Op op = c.op;
  if (op == Op::Sub) {
    for (std::size_t k = 0; k < 2; ++k)
      if (ops[k].dtype == DType::Bool)
        c.site.fail(c.arg_path(k), "op 'sub' does not accept bool (use logical_xor, or "
                                   "logical_not to invert a mask)");
  } else if (op == Op::Div) {
    v.attrs.rounding_mode = read_rounding_mode(c);
    if (v.attrs.rounding_mode == RoundingMode::None)
      result = to_float(common);
    else
      reject_bool_common(c, common, " with a rounding_mode");
  } else if (op == Op::Remainder) {
    reject_bool_common(c, common);
  } else if (op == Op::Pow) {
    reject_bool_common(c, common);
    if (!is_floating(common) && ops[1].is_scalar && ops[1].lit.kind == Scalar::Kind::Int &&
        ops[1].lit.i < 0)
      c.site.fail(c.arg_path(1), "integers to negative integer powers are not allowed");
  } else if (op == Op::Atan2) {
    result = to_float(common);
  } else if (op == Op::BitwiseAnd || op == Op::BitwiseOr || op == Op::BitwiseXor) {
    for (std::size_t k = 0; k < 2; ++k)
      if (is_floating(ops[k].dtype))
        c.site.fail(c.arg_path(k), "op '" + c.site.op + "' needs integer or bool operands, got " +
                                       (ops[k].is_scalar ? "the float " + scalar_str(ops[k].lit)
                                                         : dt_str(ops[k].dtype)));
  }
  v.dtype = v.compute_dtype = result;
  check_scalars_fit(c, ops, result);
}

void infer_compare(const NodeCtx& c, Value& v) {
  std::vector<Operand> ops{operand(c, 0), operand(c, 1)};
  v.shape = broadcast_all(c, ops);
  v.compute_dtype = result_type({promote_operand(ops[0]), promote_operand(ops[1])});
  v.dtype = DType::Bool;
  check_scalars_fit(c, ops, v.compute_dtype);
}

void infer_where(const NodeCtx& c, Value& v) {
  Operand cond = operand(c, 0);
  if (cond.dtype != DType::Bool)
    c.site.fail(c.arg_path(0), "the condition of 'where' must be bool, got " +
                                   (cond.is_scalar ? "the scalar " + scalar_str(cond.lit)
                                                   : dt_str(cond.dtype)));
  std::vector<Operand> all{cond, operand(c, 1), operand(c, 2)};
  v.shape = broadcast_all(c, all);
  std::vector<Operand> data{all[1], all[2]};
  v.dtype = v.compute_dtype = result_type({promote_operand(data[0]), promote_operand(data[1])});
  check_scalars_fit(c, data, v.dtype, 1);
}

}  // namespace

void infer_elementwise(const NodeCtx& c, Value& v) {
  switch (op_category(c.op)) {
    case OpCategory::Unary: infer_unary(c, v); return;
    case OpCategory::UnaryFloat: {
      const Value& x = c.value(0);
      v.shape = x.shape;
      v.dtype = v.compute_dtype = to_float(x.dtype);
      return;
    }
    case OpCategory::UnaryPred: {
      const Value& x = c.value(0);
      v.shape = x.shape;
      v.dtype = DType::Bool;
      v.compute_dtype = x.dtype;
      return;
    }
    case OpCategory::Binary: infer_binary(c, v); return;
    case OpCategory::Compare:
    case OpCategory::Logical: infer_compare(c, v); return;
    case OpCategory::Where: infer_where(c, v); return;
    case OpCategory::Cast: {
      const Value& x = c.value(0);
      const Json* dt = c.attr("dtype");
      if (dt == nullptr) c.site.fail("", "missing key 'dtype'");
      v.shape = x.shape;
      v.dtype = v.attrs.dtype = read_dtype(c.site, *dt, ".dtype");
      v.compute_dtype = x.dtype;
      return;
    }
    case OpCategory::Creation:
    case OpCategory::Reduction:
    case OpCategory::ArgReduce:
    case OpCategory::Scan:
    case OpCategory::View:
    case OpCategory::Concat:
    case OpCategory::Pad:
    case OpCategory::Composite:
    case OpCategory::Matmul:
    case OpCategory::Conv:
    case OpCategory::Pool:
    case OpCategory::Indexing: break;
  }
  STAX_ASSERT(false, "infer_elementwise called for a non-elementwise op");
}

}  // namespace stax::graph::detail

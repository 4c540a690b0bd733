// Bodies of pointwise values: every elementwise op with its casts made explicit, full and
// arange, cat and pad as masked loads, and the pointwise ends of mean/var/std/logsumexp.
#include <algorithm>
#include <cmath>
#include <optional>

#include "lowering_impl.h"
#include "stax/ir/simplify.h"
#include "stax/support/error.h"

namespace stax::lowering::detail {

using graph::Op;
using graph::OpCategory;
using graph::Value;
using ir::ExprOp;

namespace {

Expr un(ExprOp op, Expr a) { return ir::unary(op, std::move(a)); }
Expr bin(ExprOp op, Expr a, Expr b) { return ir::binary(op, std::move(a), std::move(b)); }
Expr num(DType dt, double v) { return ir::const_of(dt, v); }

// Where the logsumexp shift is infinite it becomes 0 (PyTorch: maxes.masked_fill_(|maxes| ==
// inf, 0)), so an all -inf row gives log(0) + 0 = -inf and a +inf gives +inf.
Expr lse_shift(const Expr& m) {
  DType dt = m.dtype();
  Expr inf = bin(ExprOp::Eq, un(ExprOp::Abs, m), ir::float_const(dt, INFINITY));
  return ir::where(inf, ir::float_const(dt, 0.0), m);
}

}  // namespace

Expr index_cmp(ExprOp op, const Index& e, int64_t c) {
  return bin(op, ir::index_value(e), ir::int_const(DType::Int64, c));
}

Expr all_of(const std::vector<Expr>& conds) {
  Expr acc;
  for (const Expr& c : conds) acc = acc ? bin(ExprOp::BitwiseAnd, acc, c) : c;
  return acc;
}

RangeMask range_mask(const Index& e, int64_t lo, int64_t hi, const ir::VarRanges& ranges) {
  RangeMask m;
  ir::Bounds b = ir::bounds(e, ranges);
  if (b.hi < lo || b.lo >= hi) {
    m.empty = true;
    return m;
  }
  if (b.lo < lo) m.conds.push_back(index_cmp(ExprOp::Ge, e, lo));
  if (b.hi >= hi) {
    m.hi_cond = index_cmp(ExprOp::Lt, e, hi);
    m.conds.push_back(m.hi_cond);
  }
  return m;
}

namespace {

Expr lower_gelu(const Expr& x, bool approximate_tanh) {
  const DType dt = x.dtype();
  Expr half_x = bin(ExprOp::Mul, x, num(dt, 0.5));
  Expr inner;
  if (approximate_tanh) {
    // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
    const double beta = M_SQRT2 * M_2_SQRTPI * 0.5;
    Expr cube = bin(ExprOp::Mul, bin(ExprOp::Mul, x, x), x);
    Expr poly = bin(ExprOp::Add, x, bin(ExprOp::Mul, cube, num(dt, 0.044715)));
    inner = un(ExprOp::Tanh, bin(ExprOp::Mul, poly, num(dt, beta)));
  } else {
    // 0.5 * x * (1 + erf(x / sqrt(2)))
    inner = un(ExprOp::Erf, bin(ExprOp::Mul, x, num(dt, M_SQRT1_2)));
  }
  return bin(ExprOp::Mul, half_x, bin(ExprOp::Add, num(dt, 1.0), inner));
}

// Graph ops that are one IR op on the same operands.
struct DirectOp {
  Op op;
  ExprOp ir;
};
constexpr DirectOp kDirect[] = {
    {Op::Exp, ExprOp::Exp},     {Op::Exp2, ExprOp::Exp2},       {Op::Expm1, ExprOp::Expm1},
    {Op::Log, ExprOp::Log},     {Op::Log2, ExprOp::Log2},       {Op::Log10, ExprOp::Log10},
    {Op::Log1p, ExprOp::Log1p}, {Op::Sqrt, ExprOp::Sqrt},       {Op::Sin, ExprOp::Sin},
    {Op::Cos, ExprOp::Cos},     {Op::Tan, ExprOp::Tan},         {Op::Asin, ExprOp::Asin},
    {Op::Acos, ExprOp::Acos},   {Op::Atan, ExprOp::Atan},       {Op::Sinh, ExprOp::Sinh},
    {Op::Cosh, ExprOp::Cosh},   {Op::Tanh, ExprOp::Tanh},       {Op::Sigmoid, ExprOp::Sigmoid},
    {Op::Erf, ExprOp::Erf},     {Op::Erfc, ExprOp::Erfc},       {Op::Neg, ExprOp::Neg},
    {Op::Abs, ExprOp::Abs},     {Op::Sign, ExprOp::Sign},       {Op::BitwiseNot, ExprOp::BitwiseNot},
    {Op::Sub, ExprOp::Sub},     {Op::Remainder, ExprOp::Remainder}, {Op::Pow, ExprOp::Pow},
    {Op::Atan2, ExprOp::Atan2}, {Op::BitwiseAnd, ExprOp::BitwiseAnd},
    {Op::BitwiseOr, ExprOp::BitwiseOr}, {Op::BitwiseXor, ExprOp::BitwiseXor},
    {Op::Eq, ExprOp::Eq},       {Op::Ne, ExprOp::Ne},           {Op::Lt, ExprOp::Lt},
    {Op::Le, ExprOp::Le},       {Op::Gt, ExprOp::Gt},           {Op::Ge, ExprOp::Ge},
    {Op::LogicalAnd, ExprOp::BitwiseAnd}, {Op::LogicalOr, ExprOp::BitwiseOr},
    {Op::LogicalXor, ExprOp::BitwiseXor},
};

std::optional<ExprOp> direct_op(Op op) {
  for (const DirectOp& d : kDirect)
    if (d.op == op) return d.ir;
  return std::nullopt;
}

}  // namespace

namespace {

Expr lower_unary(const Value& n, Expr x) {
  const DType dt = n.dtype;
  const Op op = n.op;
  if (std::optional<ExprOp> d = direct_op(op)) return un(*d, x);
  if (op == Op::Relu) return bin(ExprOp::Maximum, x, num(dt, 0));
  if (op == Op::Floor || op == Op::Ceil || op == Op::Round || op == Op::Trunc) {
    if (!is_floating(dt)) return x;  // integers are already whole
    const ExprOp r = op == Op::Floor ? ExprOp::Floor
                     : op == Op::Ceil ? ExprOp::Ceil
                     : op == Op::Round ? ExprOp::Round
                                       : ExprOp::Trunc;
    return un(r, x);
  }
  if (op == Op::Clamp) {
    if (n.attrs.min) x = bin(ExprOp::Maximum, x, scalar_const(*n.attrs.min, dt));
    if (n.attrs.max) x = bin(ExprOp::Minimum, x, scalar_const(*n.attrs.max, dt));
    return x;
  }
  if (op == Op::LeakyRelu)
    return ir::where(bin(ExprOp::Gt, x, num(dt, 0)), x,
                     bin(ExprOp::Mul, x, num(dt, n.attrs.negative_slope)));
  if (op == Op::Gelu) return lower_gelu(x, n.attrs.approximate_tanh);
  if (op == Op::Silu) return bin(ExprOp::Mul, x, un(ExprOp::Sigmoid, x));
  STAX_ASSERT(false, "'" + n.name + "' is not a Unary op");
  return x;
}

// A scalar that is a whole number small enough that int64 arithmetic on it, and double's, is exact.
bool is_whole(const graph::Scalar& s) {
  const double v = s.as_double();
  return std::trunc(v) == v && std::fabs(v) < 9007199254740992.0;  // 2^53
}

Expr lower_binary(const Value& n, Expr a, Expr b) {
  const bool is_bool = n.compute_dtype == DType::Bool;
  const Op op = n.op;
  if (std::optional<ExprOp> d = direct_op(op)) return bin(*d, a, b);
  // On bools, add/maximum are `or` and mul/minimum are `and`, as PyTorch computes them.
  if (op == Op::Add) return bin(is_bool ? ExprOp::BitwiseOr : ExprOp::Add, a, b);
  if (op == Op::Mul) return bin(is_bool ? ExprOp::BitwiseAnd : ExprOp::Mul, a, b);
  if (op == Op::Maximum) return bin(is_bool ? ExprOp::BitwiseOr : ExprOp::Maximum, a, b);
  if (op == Op::Minimum) return bin(is_bool ? ExprOp::BitwiseAnd : ExprOp::Minimum, a, b);
  if (op == Op::Div) {
    switch (n.attrs.rounding_mode) {
      case graph::RoundingMode::None: return bin(ExprOp::Div, a, b);
      case graph::RoundingMode::Trunc: return bin(ExprOp::TruncDiv, a, b);
      case graph::RoundingMode::Floor: return bin(ExprOp::FloorDiv, a, b);
    }
  }
  STAX_ASSERT(false, "'" + n.name + "' is not a binary op");
  return a;
}

}  // namespace

Expr Lowerer::compute_node(ValueId v, const Coords& coords, BodyCtx& ctx) {
  const Value& n = g[v];
  const DType ct = n.compute_dtype, dt = n.dtype;
  switch (graph::op_category(n.op)) {
    case OpCategory::Unary: return lower_unary(n, arg_at(n, 0, coords, ct, ctx));
    case OpCategory::UnaryFloat: {
      Expr x = arg_at(n, 0, coords, ct, ctx);
      if (n.op == Op::Rsqrt) return bin(ExprOp::Div, num(ct, 1), un(ExprOp::Sqrt, x));
      if (n.op == Op::Reciprocal) return bin(ExprOp::Div, num(ct, 1), x);
      std::optional<ExprOp> op = direct_op(n.op);
      STAX_ASSERT(op.has_value(), "unknown float op '" + n.name + "'");
      return un(*op, x);
    }
    case OpCategory::UnaryPred: {
      if (n.op == Op::LogicalNot)
        return un(ExprOp::BitwiseNot, arg_at(n, 0, coords, DType::Bool, ctx));
      Expr x = arg_at(n, 0, coords, ct, ctx);
      const ExprOp op = n.op == Op::IsNan ? ExprOp::IsNan
                        : n.op == Op::IsInf ? ExprOp::IsInf
                                            : ExprOp::IsFinite;
      if (is_floating(ct)) return un(op, x);
      return ir::bool_const(op == ExprOp::IsFinite);  // ints and bools are finite numbers
    }
    case OpCategory::Binary:
      if (n.op == Op::Pow) {
        // To the literal power 0.5 or -0.5, PyTorch computes sqrt or rsqrt (NaN at -inf).
        if (graph::is_pow_by_float_literal(n, 0.5))
          return un(ExprOp::Sqrt, arg_at(n, 0, coords, ct, ctx));
        if (graph::is_pow_by_float_literal(n, -0.5))
          return bin(ExprOp::Div, num(ct, 1), un(ExprOp::Sqrt, arg_at(n, 0, coords, ct, ctx)));
      }
      [[fallthrough]];
    case OpCategory::Compare:
      return lower_binary(n, arg_at(n, 0, coords, ct, ctx), arg_at(n, 1, coords, ct, ctx));
    case OpCategory::Logical:
      return lower_binary(n, arg_at(n, 0, coords, DType::Bool, ctx),
                          arg_at(n, 1, coords, DType::Bool, ctx));
    case OpCategory::Where:
      return ir::where(arg_at(n, 0, coords, DType::Bool, ctx), arg_at(n, 1, coords, dt, ctx),
                       arg_at(n, 2, coords, dt, ctx));
    case OpCategory::Cast: return arg_at(n, 0, coords, dt, ctx);
    case OpCategory::Creation: {
      if (n.op == Op::Full) return scalar_const(n.attrs.value, dt);
      const graph::Attrs& a = n.attrs;
      // Whole start and step: the elements are whole numbers, computed exactly in int64. For
      // floats this also keeps g++ from folding `0.0 + x * -1.0` into `-x`, a -0.0 where
      // PyTorch's start + i * step is +0.0.
      if (!is_floating(dt) || (is_whole(a.arange_start) && is_whole(a.arange_step)))
        return ir::cast(ir::index_value(coords.at(0) * a.arange_step.as_int() + a.arange_start.as_int()), dt);
      Expr i = ir::cast(ir::index_value(coords.at(0)), DType::Float64);
      Expr x = bin(ExprOp::Add, num(DType::Float64, a.arange_start.as_double()),
                   bin(ExprOp::Mul, i, num(DType::Float64, a.arange_step.as_double())));
      return ir::cast(x, dt);
    }
    case OpCategory::Concat: {
      const std::size_t d = static_cast<std::size_t>(n.attrs.dim);
      const Index& pos = coords.at(d);
      std::vector<int64_t> offsets;
      int64_t off = 0;
      for (const graph::Arg& a : n.args) {
        offsets.push_back(off);
        off += g[a.value].shape.at(d);
      }
      Expr acc;
      for (std::size_t k = n.args.size(); k-- > 0;) {
        const ValueId a = n.args[k].value;
        const int64_t size = g[a].shape.at(d);
        RangeMask m = range_mask(pos, offsets[k], offsets[k] + size, ctx.ranges);
        if (m.empty) continue;
        Coords c = coords;
        c[d] = ir::simplify(pos - offsets[k], ctx.ranges);
        Expr piece = ir::cast(value_at(a, c, ctx), dt);
        if (!m.conds.empty()) piece = ir::masked(all_of(m.conds), piece, num(dt, 0));
        if (!acc) {
          acc = piece;
        } else {
          STAX_ASSERT(static_cast<bool>(m.hi_cond), "cat: a later input is reachable past an earlier one");
          acc = ir::where(m.hi_cond, piece, acc);
        }
      }
      STAX_ASSERT(static_cast<bool>(acc), "cat: no input covers the position");
      return acc;
    }
    case OpCategory::Pad: {
      const ValueId x = n.args.at(0).value;
      const Shape& in = g[x].shape;
      const std::vector<int64_t>& pad = n.attrs.pad;
      Coords c = coords;
      std::vector<Expr> conds;
      for (std::size_t p = 0; p + 1 < pad.size(); p += 2) {
        const std::size_t d = in.size() - 1 - p / 2;
        const int64_t lo = pad[p];
        RangeMask m = range_mask(coords.at(d), lo, lo + in[d], ctx.ranges);
        if (m.empty) return scalar_const(n.attrs.value, dt);
        conds.insert(conds.end(), m.conds.begin(), m.conds.end());
        c[d] = ir::simplify(coords[d] - lo, ctx.ranges);
      }
      Expr body = ir::cast(value_at(x, c, ctx), dt);
      if (conds.empty()) return body;
      return ir::masked(all_of(conds), body, scalar_const(n.attrs.value, dt));
    }
    case OpCategory::Reduction:
    case OpCategory::ArgReduce: {
      const ValueId x = n.args.at(0).value;
      if (!is_real_reduction(n)) {
        // Over no dims (a 0-d input): the reduction of one element.
        Expr e = value_at(x, coords, ctx);
        const Op op = n.op;
        if (op == Op::Sum || op == Op::Prod || op == Op::Mean || op == Op::Amax || op == Op::Amin)
          return ir::cast(e, dt);
        if (op == Op::Any || op == Op::All) return ir::cast(e, DType::Bool);
        if (op == Op::Argmax || op == Op::Argmin) return ir::int_const(DType::Int64, 0);
        if (op == Op::Var || op == Op::Std) {
          Expr dev = bin(ExprOp::Sub, e, e);
          Expr var = bin(ExprOp::Div, bin(ExprOp::Mul, dev, dev),
                         num(dt, std::max(0.0, 1.0 - n.attrs.correction)));
          return op == Op::Std ? un(ExprOp::Sqrt, var) : var;
        }
        if (op == Op::Logsumexp) {
          Expr m = lse_shift(e);
          return bin(ExprOp::Add, un(ExprOp::Log, un(ExprOp::Exp, bin(ExprOp::Sub, e, m))), m);
        }
        STAX_ASSERT(false, "unknown reduction '" + n.name + "'");
      }
      const std::vector<BufferId>& parts = aux[static_cast<std::size_t>(v)];
      double count = 1;
      for (int64_t d : n.attrs.dims) count *= static_cast<double>(g[x].shape.at(static_cast<std::size_t>(d)));
      if (n.op == Op::Mean)
        return bin(ExprOp::Div, load_buffer(parts.at(0), coords, n.shape, ctx), num(dt, count));
      if (n.op == Op::Var || n.op == Op::Std) {
        Expr var = bin(ExprOp::Div, load_buffer(parts.at(1), coords, n.shape, ctx),
                       num(dt, std::max(0.0, count - n.attrs.correction)));
        return n.op == Op::Std ? un(ExprOp::Sqrt, var) : var;
      }
      if (n.op == Op::Logsumexp) {
        Expr m = lse_shift(load_buffer(parts.at(0), coords, n.shape, ctx));
        return bin(ExprOp::Add, un(ExprOp::Log, load_buffer(parts.at(1), coords, n.shape, ctx)), m);
      }
      STAX_ASSERT(false, "reduction '" + n.name + "' has no pointwise part");
      return Expr();
    }
    case OpCategory::Scan:
      STAX_ASSERT(n.shape.empty(), "scan '" + n.name + "' without its buffer");
      return ir::cast(value_at(n.args.at(0).value, coords, ctx), dt);
    case OpCategory::Pool:  // the average pools' end (max_pool2d is its buffer)
      return pool_average(v, coords, ctx);
    case OpCategory::View:
    case OpCategory::Composite:
    case OpCategory::Matmul:
    case OpCategory::Conv:
    case OpCategory::Indexing: break;
  }
  STAX_ASSERT(false, "no pointwise body for '" + n.name + "'");
  return Expr();
}

// Bodies of the reductions' buffers that need more than their input (reductions.cpp).
Expr var_deviation_squared(const Expr& x, const Expr& sum, double count) {
  const DType dt = x.dtype();
  Expr dev = bin(ExprOp::Sub, x, bin(ExprOp::Div, sum, num(dt, count)));
  return bin(ExprOp::Mul, dev, dev);
}

Expr lse_exp_term(const Expr& x, const Expr& max) {
  return un(ExprOp::Exp, bin(ExprOp::Sub, x, lse_shift(max)));
}

}  // namespace stax::lowering::detail

// Buffers that are always stored: reductions (mean, var, std and logsumexp as one or two of
// them plus a pointwise end), scans and matmul.
#include <algorithm>

#include "lowering_impl.h"
#include "stax/ir/simplify.h"
#include "stax/support/error.h"

namespace stax::lowering::detail {

using graph::Op;
using graph::Value;

namespace {

bool reduces(const Value& n, std::size_t d) {
  return std::find(n.attrs.dims.begin(), n.attrs.dims.end(), static_cast<int64_t>(d)) !=
         n.attrs.dims.end();
}

Shape reduce_ranges_of(const Value& n, const Shape& in) {
  Shape r;
  for (int64_t d : n.attrs.dims) r.push_back(in.at(ud(d)));
  return r;
}

}  // namespace

bool Lowerer::is_real_reduction(const Value& n) const { return !n.attrs.dims.empty(); }

ir::VarRanges Lowerer::reduction_ranges(const Value& n) const {
  ir::VarRanges r = output_ranges(n.shape);
  Shape rr = reduce_ranges_of(n, g[n.args.at(0).value].shape);
  for (std::size_t k = 0; k < rr.size(); ++k) r[ir::rvar(static_cast<int32_t>(k))] = rr[k];
  return r;
}

Coords Lowerer::reduction_input_coords(const Value& n) const {
  const Shape& in = g[n.args.at(0).value].shape;
  const bool keepdim_like = n.shape.size() == in.size();
  Coords c;
  int32_t next_x = 0, next_r = 0;
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (reduces(n, d)) {
      c.push_back(Index::var(ir::rvar(next_r++)));
      if (keepdim_like) ++next_x;
      continue;
    }
    c.push_back(Index::var(ir::xvar(keepdim_like ? static_cast<int32_t>(d) : next_x)));
    ++next_x;
  }
  return c;
}

Index Lowerer::reduction_iteration_index(const Value& n, const ir::VarRanges& ranges) const {
  Coords all = output_coords(n.shape);
  Shape sizes = n.shape;
  Shape rr = reduce_ranges_of(n, g[n.args.at(0).value].shape);
  for (std::size_t k = 0; k < rr.size(); ++k) {
    all.push_back(Index::var(ir::rvar(static_cast<int32_t>(k))));
    sizes.push_back(rr[k]);
  }
  return ir::simplify(ir::flat_index(all, sizes), ranges);
}

namespace {

}  // namespace

void Lowerer::lower_reduction(ValueId v) {
  const Value& n = g[v];
  if (!is_real_reduction(n)) return;  // over no dims: pointwise (compute_node)
  const ValueId x = n.args.at(0).value;
  const DType dt = n.dtype;
  const DType xt = g[x].dtype;
  double count = 1;
  for (int64_t d : n.attrs.dims) count *= static_cast<double>(g[x].shape.at(ud(d)));

  // One reduction buffer of `op` over body(x at the input coordinates).
  auto reduction = [&](ir::ReduceOp op, DType out, auto&& body) {
    BodyCtx ctx;
    ctx.ranges = reduction_ranges(n);
    Expr xv = value_at(x, reduction_input_coords(n), ctx);
    ir::Buffer b;
    b.kind = ir::BufferKind::Reduction;
    b.dtype = out;
    b.shape = n.shape;
    b.reduce_ranges = reduce_ranges_of(n, g[x].shape);
    b.reduce_op = op;
    b.body = body(xv, ctx);
    return add_buffer(std::move(b), &ctx, v);
  };
  auto as_dt = [&](const Expr& e, BodyCtx&) { return ir::cast(e, dt); };
  auto as_is = [&](const Expr& e, BodyCtx&) { return e; };
  auto as_bool = [&](const Expr& e, BodyCtx&) { return ir::cast(e, DType::Bool); };
  BufferId& out = buffer_of[static_cast<std::size_t>(v)];
  std::vector<BufferId>& parts = aux[static_cast<std::size_t>(v)];
  const bool bool_in = xt == DType::Bool;

  const Op op = n.op;
  if (op == Op::Sum) out = reduction(ir::ReduceOp::Sum, dt, as_dt);
  else if (op == Op::Prod) out = reduction(ir::ReduceOp::Prod, dt, as_dt);
  // max/min of bools are any/all.
  else if (op == Op::Amax) out = reduction(bool_in ? ir::ReduceOp::Any : ir::ReduceOp::Max, dt, as_is);
  else if (op == Op::Amin) out = reduction(bool_in ? ir::ReduceOp::All : ir::ReduceOp::Min, dt, as_is);
  else if (op == Op::Any) out = reduction(ir::ReduceOp::Any, DType::Bool, as_bool);
  else if (op == Op::All) out = reduction(ir::ReduceOp::All, DType::Bool, as_bool);
  else if (op == Op::Argmax) out = reduction(ir::ReduceOp::ArgMax, DType::Int64, as_is);
  else if (op == Op::Argmin) out = reduction(ir::ReduceOp::ArgMin, DType::Int64, as_is);
  else if (op == Op::Mean) parts = {reduction(ir::ReduceOp::Sum, dt, as_dt)};
  else if (op == Op::Var || op == Op::Std) {
    // Two passes: the mean, then the sum of squared deviations from it.
    BufferId sum = reduction(ir::ReduceOp::Sum, dt, as_dt);
    BufferId sq = reduction(ir::ReduceOp::Sum, dt, [&](const Expr& e, BodyCtx& ctx) {
      Expr s = load_buffer(sum, output_coords(n.shape), n.shape, ctx);
      return var_deviation_squared(ir::cast(e, dt), s, count);
    });
    parts = {sum, sq};
  } else if (op == Op::Logsumexp) {
    // max, then sum(exp(x - shift(max))) with an infinite max shifted by 0.
    BufferId max = reduction(ir::ReduceOp::Max, dt, as_dt);
    BufferId sum = reduction(ir::ReduceOp::Sum, dt, [&](const Expr& e, BodyCtx& ctx) {
      Expr m = load_buffer(max, output_coords(n.shape), n.shape, ctx);
      return lse_exp_term(ir::cast(e, dt), m);
    });
    parts = {max, sum};
  }
  STAX_ASSERT(out >= 0 || !parts.empty(), "'" + n.name + "' is not a reduction");
}

void Lowerer::lower_scan(ValueId v) {
  const Value& n = g[v];
  if (n.shape.empty()) return;  // a 0-d scan is its input (compute_node)
  BodyCtx ctx;
  ctx.ranges = output_ranges(n.shape);
  ir::Buffer b;
  b.kind = ir::BufferKind::Scan;
  b.dtype = n.dtype;
  b.shape = n.shape;
  b.scan_op = n.op == Op::Cumprod ? ir::ScanOp::Prod : ir::ScanOp::Sum;
  b.scan_dim = static_cast<int>(n.attrs.dim);
  b.body = ir::cast(value_at(n.args.at(0).value, output_coords(n.shape), ctx), n.dtype);
  buffer_of[static_cast<std::size_t>(v)] = add_buffer(std::move(b), &ctx, v);
}

void Lowerer::lower_matmul(ValueId v) {
  const Value& n = g[v];
  const ValueId a = n.args.at(0).value, bv = n.args.at(1).value;
  const Shape& as = g[a].shape;
  const Shape& bs = g[bv].shape;
  ir::Matmul mm;
  mm.k = as.back();
  mm.m = as.size() >= 2 ? as[as.size() - 2] : 1;
  mm.n = bs.size() >= 2 ? bs.back() : 1;
  const Shape ab(as.begin(), as.size() > 2 ? as.end() - 2 : as.begin());
  const Shape bb(bs.begin(), bs.size() > 2 ? bs.end() - 2 : bs.begin());
  const std::size_t nb = std::max(ab.size(), bb.size());
  mm.batch.assign(nb, 1);
  for (std::size_t i = 0; i < nb; ++i) {
    int64_t da = i + ab.size() >= nb ? ab[i + ab.size() - nb] : 1;
    int64_t db = i + bb.size() >= nb ? bb[i + bb.size() - nb] : 1;
    mm.batch[i] = std::max(da, db);
  }

  // Operand `x` as a [batch..., rows, cols] matrix read in place through strides. Logical
  // variables: x0..x{nb-1} batch, x{nb} row, x{nb+1} column.
  auto operand = [&](ValueId x, bool lhs) {
    const Shape& xs = g[x].shape;
    const int64_t rows = lhs ? mm.m : mm.k, cols = lhs ? mm.k : mm.n;
    BodyCtx ctx;
    ctx.ranges.clear();
    for (std::size_t i = 0; i < nb; ++i) ctx.ranges[ir::xvar(static_cast<int32_t>(i))] = mm.batch[i];
    const ir::Var row = ir::xvar(static_cast<int32_t>(nb)), col = ir::xvar(static_cast<int32_t>(nb + 1));
    ctx.ranges[row] = rows;
    ctx.ranges[col] = cols;
    Coords c;
    if (xs.size() == 1) {
      c.push_back(Index::var(lhs ? col : row));
    } else {
      const std::size_t xb = xs.size() - 2;
      for (std::size_t j = 0; j < xb; ++j)
        c.push_back(xs[j] == 1 ? Index::constant(0) : Index::var(ir::xvar(static_cast<int32_t>(j + nb - xb))));
      c.push_back(Index::var(row));
      c.push_back(Index::var(col));
    }
    // Walk views down to a stored value; copy the operand when there is none or the access is
    // not affine (a reshape of a transpose).
    for (int attempt = 0; attempt < 2; ++attempt) {
      ValueId cur = x;
      Coords cc = c;
      while (buffer_of[static_cast<std::size_t>(cur)] < 0 && is_view(g[cur])) {
        cc = view_input_coords(g[cur], cc, ctx);
        cur = g[cur].args.at(0).value;
      }
      const BufferId buf = buffer_of[static_cast<std::size_t>(cur)];
      if (buf >= 0) {
        Index flat = ir::simplify(ir::flat_index(cc, g[cur].shape), ctx.ranges);
        if (ir::is_affine(flat)) {
          ir::MatmulOperand op;
          op.buffer = buf;
          op.offset = ir::affine_constant(flat);
          for (std::size_t i = 0; i < nb; ++i)
            op.batch_strides.push_back(ir::affine_coefficient(flat, ir::xvar(static_cast<int32_t>(i))));
          op.row_stride = ir::affine_coefficient(flat, row);
          op.col_stride = ir::affine_coefficient(flat, col);
          return op;
        }
      }
      STAX_ASSERT(attempt == 0, "matmul operand still not addressable after a copy");
      materialize(x);
    }
    return ir::MatmulOperand{};
  };
  mm.a = operand(a, true);
  mm.b = operand(bv, false);

  ir::Buffer b;
  b.kind = ir::BufferKind::Extern;
  b.dtype = n.dtype;
  b.shape = n.shape;
  b.matmul = std::move(mm);
  buffer_of[static_cast<std::size_t>(v)] = add_buffer(std::move(b), nullptr, v);
}

}  // namespace stax::lowering::detail

// The indexing ops as buffers of indexed loads (ir::indirect_load): each output element reads the
// data at a position taken from the index tensor, checked against the size of the indexed dim
// (graph-format.md "Indices": out of range is a run-time error, never a wrong read).
//   embedding(w [V, D], i)    out[p..., j] = w[i[p...], j]
//   index_select(x, i, dim)   out[.., k, ..] = x[.., i[k], ..]
//   gather(x, i, dim)         out[c] = x[c with c[dim] = i[c]]
// The node is always stored, so every position is checked exactly once whatever reads it (a
// slice of it included). The data is read where it is stored, through its views when the
// indexed dim keeps one stride in the stored layout; otherwise it is copied dense first.
#include <optional>

#include "lowering_impl.h"
#include "stax/ir/simplify.h"
#include "stax/support/error.h"

namespace stax::lowering::detail {

using graph::Op;
using graph::Value;

namespace {

// Where data value x is read: buffer[base + stride * position].
struct Addressed {
  BufferId buffer = -1;
  Index base;
  int64_t stride = 0;
};

// The address of `x` at `coords` (entry `dim` is the position, extent `extent`), found by
// following x's views to its stored root with the position as a loop variable c0 of its own.
std::optional<Addressed> address(const Lowerer& l, ValueId x, Coords coords, std::size_t dim, int64_t extent,
                                 const ir::VarRanges& ranges) {
  const ir::Var pv = ir::cvar(0);
  BodyCtx ctx;
  ctx.ranges = ranges;
  ctx.ranges[pv] = extent;
  if (!coords.empty()) coords[dim] = Index::var(pv);
  ValueId root = x;
  Coords rc = coords;
  while (l.buffer_of[static_cast<std::size_t>(root)] < 0 && is_view(l.g[root])) {
    rc = l.view_input_coords(l.g[root], rc, ctx);
    root = l.g[root].args.at(0).value;
  }
  const BufferId b = l.buffer_of[static_cast<std::size_t>(root)];
  if (b < 0) return std::nullopt;
  const Index flat = ir::simplify(ir::flat_index(rc, l.g[root].shape), ctx.ranges);
  Addressed a;
  a.buffer = b;
  a.base = ir::simplify(ir::substitute(flat, {{pv, Index::constant(0)}}), ranges);
  if (extent == 1) return a;  // one position: no step
  const Index step = ir::simplify(ir::substitute(flat, {{pv, Index::constant(1)}}) - a.base, ranges);
  if (!step.is_const() || step.value() < 0) return std::nullopt;
  a.stride = step.value();
  if (ir::simplify(a.base + Index::var(pv) * a.stride, ctx.ranges) != flat) return std::nullopt;
  return a;
}

}  // namespace

void Lowerer::lower_indexing(ValueId v) {
  const Value& n = g[v];
  const ValueId data = n.args.at(0).value, idx = n.args.at(1).value;
  const Shape& ds = g[data].shape;
  BodyCtx ctx;
  ctx.ranges = output_ranges(n.shape);
  const Coords out = output_coords(n.shape);
  const std::size_t dim = static_cast<std::size_t>(n.attrs.dim);
  const int64_t extent = ds.empty() ? 1 : ds.at(dim);
  Coords dc = out, ic = out;  // data coordinates (entry `dim` replaced) and index coordinates
  if (n.op == Op::Embedding) {
    ic.pop_back();
    dc = {Index::constant(0), out.back()};
  } else if (n.op == Op::IndexSelect) {
    ic = {ds.empty() ? Index::constant(0) : out.at(dim)};  // a 0-d x: its one index
  }
  const Expr position = value_at(idx, ic, ctx);
  std::optional<Addressed> at = address(*this, data, dc, dim, extent, ctx.ranges);
  if (!at) {
    materialize(data);
    at = address(*this, data, dc, dim, extent, ctx.ranges);
  }
  STAX_ASSERT(at.has_value(), "indexed data not addressable after a copy ('" + n.name + "')");
  materialize(v, ctx, ir::indirect_load(at->buffer, n.dtype, at->base, position, at->stride, extent));
}

}  // namespace stax::lowering::detail

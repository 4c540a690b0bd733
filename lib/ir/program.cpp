// Buffers and programs: names, loop variables and the invariant checker.
#include "stax/ir/program.h"

#include <algorithm>
#include <set>

#include "stax/support/error.h"

namespace stax::ir {

std::string_view buffer_kind_name(BufferKind k) {
  switch (k) {
    case BufferKind::Input: return "input";
    case BufferKind::Constant: return "constant";
    case BufferKind::Pointwise: return "pointwise";
    case BufferKind::Reduction: return "reduction";
    case BufferKind::Scan: return "scan";
    case BufferKind::Extern: return "extern";
  }
  return "?";
}

std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    case ReduceOp::ArgMax: return "argmax";
    case ReduceOp::ArgMin: return "argmin";
    case ReduceOp::Any: return "any";
    case ReduceOp::All: return "all";
  }
  return "?";
}

std::string_view scan_op_name(ScanOp op) {
  switch (op) {
    case ScanOp::Sum: return "cumsum";
    case ScanOp::Prod: return "cumprod";
  }
  return "?";
}

std::string_view extern_op_name(ExternOp op) {
  switch (op) {
    case ExternOp::Matmul: return "matmul";
    case ExternOp::Conv: return "conv";
  }
  return "?";
}

std::vector<BufferId> extern_operands(const Buffer& b) {
  std::vector<BufferId> ids;
  auto add = [&ids](BufferId id) {
    if (id >= 0 && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  };
  if (b.kind != BufferKind::Extern) return ids;
  switch (b.extern_op) {
    case ExternOp::Matmul: add(b.matmul.a.buffer), add(b.matmul.b.buffer); break;
    case ExternOp::Conv: add(b.conv.input), add(b.conv.weight), add(b.conv.bias); break;
  }
  return ids;
}

Matmul fold_batch(const Matmul& mm) {
  int64_t rows = mm.m, row_stride = mm.a.row_stride;
  for (std::size_t d = mm.batch.size(); d-- > 0;) {
    if (mm.batch[d] == 1) continue;
    if (mm.b.batch_strides[d] != 0) return mm;
    if (rows == 1) row_stride = mm.a.batch_strides[d];  // (one row so far: its stride is free)
    if (row_stride == 0 || mm.a.batch_strides[d] != rows * row_stride) return mm;
    rows *= mm.batch[d];
  }
  Matmul folded = mm;
  folded.batch.clear();
  folded.a.batch_strides.clear();
  folded.b.batch_strides.clear();
  folded.m = rows;
  folded.a.row_stride = rows == 1 ? mm.a.row_stride : row_stride;
  return folded;
}

std::vector<Var> Buffer::output_vars() const {
  std::vector<Var> v;
  for (std::size_t d = 0; d < shape.size(); ++d) v.push_back(xvar(static_cast<int32_t>(d)));
  return v;
}

std::vector<Var> Buffer::reduce_vars() const {
  std::vector<Var> v;
  if (kind != BufferKind::Reduction) return v;
  for (std::size_t d = 0; d < reduce_ranges.size(); ++d) v.push_back(rvar(static_cast<int32_t>(d)));
  return v;
}

std::vector<Var> Buffer::loop_vars() const {
  std::vector<Var> v = output_vars();
  for (Var r : reduce_vars()) v.push_back(r);
  return v;
}

VarRanges Buffer::ranges() const {
  VarRanges r;
  for (std::size_t d = 0; d < shape.size(); ++d) r[xvar(static_cast<int32_t>(d))] = shape[d];
  if (kind == BufferKind::Reduction)
    for (std::size_t d = 0; d < reduce_ranges.size(); ++d)
      r[rvar(static_cast<int32_t>(d))] = reduce_ranges[d];
  return r;
}

Index Buffer::write_index() const {
  std::vector<Index> coords;
  for (Var v : output_vars()) coords.push_back(Index::var(v));
  return flat_index(coords, shape);
}

std::vector<std::string> Program::buffer_names() const {
  std::vector<std::string> names;
  for (const Buffer& b : buffers) names.push_back(b.name);
  return names;
}

bool has_side_effects(const Buffer& b) { return may_fail(b.body); }

namespace {

std::string where_in(const Buffer& b) { return " (buffer " + b.name + ")"; }

void verify_body(const Program& p, const Buffer& b) {
  STAX_ASSERT(static_cast<bool>(b.body), "computed buffer without a body" + where_in(b));
  const VarRanges ranges = b.ranges();
  auto check_vars = [&](const Index& e) {
    for (Var v : free_vars(e))
      STAX_ASSERT(ranges.count(v) != 0,
                  "index " + to_string(e) + " uses " + var_name(v) + " outside the loop nest" +
                      where_in(b));
  };
  for (const Expr& e : topo_order(b.body)) {
    if (e.op() == ExprOp::IndexValue) check_vars(e.index());
    if (e.op() != ExprOp::Load && e.op() != ExprOp::IndirectLoad) continue;
    STAX_ASSERT(e.buffer() >= 0 && e.buffer() < b.id,
                "load of buffer " + std::to_string(e.buffer()) + " not computed before" + where_in(b));
    const Buffer& src = p[e.buffer()];
    STAX_ASSERT(e.dtype() == src.dtype, "load dtype differs from " + src.name + where_in(b));
    check_vars(e.index());
    if (e.op() != ExprOp::IndirectLoad) continue;
    const Bounds bd = bounds(e.index(), ranges);  // every position from every base
    STAX_ASSERT(bd.lo >= 0 && bd.hi + e.stride() * (e.extent() - 1) < src.numel(),
                "indirect load of " + src.name + " may leave the buffer" + where_in(b));
  }
  for (const LoadRef& l : collect_loads(b.body)) {
    if (l.masked) continue;
    Bounds bd = bounds(l.index, ranges);
    STAX_ASSERT(bd.lo >= 0 && bd.hi < p[l.buffer].numel(),
                "load " + p[l.buffer].name + "[" + to_string(l.index) + "] may leave the buffer" +
                    where_in(b));
  }
}

void verify_operand(const Program& p, const Buffer& b, const MatmulOperand& op, int64_t rows,
                    int64_t cols) {
  STAX_ASSERT(op.buffer >= 0 && op.buffer < b.id, "matmul operand not computed before" + where_in(b));
  STAX_ASSERT(p[op.buffer].dtype == b.dtype, "matmul operand dtype differs" + where_in(b));
  STAX_ASSERT(op.batch_strides.size() == b.matmul.batch.size(), "matmul batch rank" + where_in(b));
  int64_t hi = op.offset, lo = op.offset;
  auto extend = [&](int64_t stride, int64_t n) {
    if (stride >= 0) hi += stride * (n - 1);
    else lo += stride * (n - 1);
  };
  for (std::size_t d = 0; d < op.batch_strides.size(); ++d) extend(op.batch_strides[d], b.matmul.batch[d]);
  extend(op.row_stride, rows);
  extend(op.col_stride, cols);
  STAX_ASSERT(lo >= 0 && hi < p[op.buffer].numel(), "matmul operand leaves its buffer" + where_in(b));
}

// A dense operand of a convolution: computed before, of the output's dtype, of `shape`.
void verify_conv_operand(const Program& p, const Buffer& b, BufferId id, const Shape& shape) {
  STAX_ASSERT(id >= 0 && id < b.id, "conv operand not computed before" + where_in(b));
  STAX_ASSERT(p[id].dtype == b.dtype, "conv operand dtype differs" + where_in(b));
  STAX_ASSERT(p[id].numel() == shape_numel(shape), "conv operand size differs from " + shape_str(shape) + where_in(b));
}

void verify_conv(const Program& p, const Buffer& b) {
  const Conv& c = b.conv;
  STAX_ASSERT(is_floating(b.dtype), "conv of a non-float dtype" + where_in(b));
  STAX_ASSERT(c.groups >= 1 && c.c % c.groups == 0 && c.cout % c.groups == 0, "conv groups" + where_in(b));
  STAX_ASSERT(c.n * c.cout * c.oh * c.ow == b.numel(), "conv output size" + where_in(b));
  STAX_ASSERT(c.sh >= 1 && c.sw >= 1 && c.dh >= 1 && c.dw >= 1 && c.ph >= 0 && c.pw >= 0, "conv window" + where_in(b));
  // The last window starts inside the padded input (PyTorch's output size).
  STAX_ASSERT((c.oh - 1) * c.sh + c.dh * (c.kh - 1) < c.h + 2 * c.ph + c.sh &&
                  (c.ow - 1) * c.sw + c.dw * (c.kw - 1) < c.w + 2 * c.pw + c.sw,
              "conv output size exceeds its windows" + where_in(b));
  verify_conv_operand(p, b, c.input, {c.n, c.c, c.h, c.w});
  verify_conv_operand(p, b, c.weight, {c.cout, c.c / c.groups, c.kh, c.kw});
  if (c.bias >= 0) verify_conv_operand(p, b, c.bias, {c.cout});
}

}  // namespace

void verify(const Program& p) {
  std::set<std::string> names;
  bool past_inputs = false;
  int next_input = 0;
  for (std::size_t k = 0; k < p.buffers.size(); ++k) {
    const Buffer& b = p.buffers[k];
    STAX_ASSERT(b.id == static_cast<BufferId>(k), "buffer id differs from its position" + where_in(b));
    STAX_ASSERT(names.insert(b.name).second, "duplicate buffer name" + where_in(b));
    for (int64_t d : b.shape) STAX_ASSERT(d >= 1, "buffer dim < 1" + where_in(b));
    if (b.kind != BufferKind::Input) past_inputs = true;
    switch (b.kind) {
      case BufferKind::Input:
        STAX_ASSERT(!past_inputs, "input after another buffer" + where_in(b));
        STAX_ASSERT(b.input_index == next_input++, "inputs out of order" + where_in(b));
        break;
      case BufferKind::Constant:
        STAX_ASSERT(b.data.dtype() == b.dtype && b.data.shape() == b.shape,
                    "constant data differs from the buffer" + where_in(b));
        break;
      case BufferKind::Pointwise:
        verify_body(p, b);
        STAX_ASSERT(b.body.dtype() == b.dtype, "pointwise body dtype" + where_in(b));
        break;
      case BufferKind::Reduction: {
        verify_body(p, b);
        STAX_ASSERT(!b.reduce_ranges.empty(), "reduction over no dims" + where_in(b));
        for (int64_t d : b.reduce_ranges) STAX_ASSERT(d >= 1, "reduction range < 1" + where_in(b));
        DType body = b.body.dtype();
        switch (b.reduce_op) {
          case ReduceOp::Sum:
          case ReduceOp::Prod:
          case ReduceOp::Max:
          case ReduceOp::Min:
            STAX_ASSERT(body == b.dtype && body != DType::Bool, "reduction dtype" + where_in(b));
            break;
          case ReduceOp::ArgMax:
          case ReduceOp::ArgMin:
            STAX_ASSERT(b.dtype == DType::Int64 && body != DType::Bool, "arg reduction dtype" + where_in(b));
            break;
          case ReduceOp::Any:
          case ReduceOp::All:
            STAX_ASSERT(body == DType::Bool && b.dtype == DType::Bool, "any/all dtype" + where_in(b));
            break;
        }
        break;
      }
      case BufferKind::Scan:
        verify_body(p, b);
        STAX_ASSERT(b.body.dtype() == b.dtype && b.dtype != DType::Bool, "scan dtype" + where_in(b));
        STAX_ASSERT(b.scan_dim >= 0 && static_cast<std::size_t>(b.scan_dim) < b.shape.size(),
                    "scan dim" + where_in(b));
        break;
      case BufferKind::Extern: {
        if (b.extern_op == ExternOp::Conv) {
          verify_conv(p, b);
          break;
        }
        const Matmul& m = b.matmul;
        int64_t batch = shape_numel(m.batch);
        STAX_ASSERT(batch * m.m * m.n == b.numel(), "matmul output size" + where_in(b));
        verify_operand(p, b, m.a, m.m, m.k);
        verify_operand(p, b, m.b, m.k, m.n);
        break;
      }
    }
  }
  for (std::size_t k = 0; k < p.outputs.size(); ++k) {
    STAX_ASSERT(p.outputs[k].index == static_cast<int>(k), "outputs out of order");
    STAX_ASSERT(p.outputs[k].buffer >= 0 &&
                    static_cast<std::size_t>(p.outputs[k].buffer) < p.buffers.size(),
                "output of an unknown buffer");
  }
}

}  // namespace stax::ir

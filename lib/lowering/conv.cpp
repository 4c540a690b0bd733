// Convolutions as Extern buffers (ir::Conv): the runtime's convolution reads its input, weight
// and bias as whole dense buffers, so each operand is a stored buffer (a view of one that keeps
// its dense layout, a reshape, reads it in place; anything else is stored first). A conv1d is
// a conv2d of height 1.
#include "lowering_impl.h"
#include "stax/support/error.h"

namespace stax::lowering::detail {

void Lowerer::lower_conv(ValueId v) {
  const graph::Value& n = g[v];
  const graph::Attrs& a = n.attrs;
  const Shape& xs = g[n.args.at(0).value].shape;
  const Shape& ws = g[n.args.at(1).value].shape;
  const bool one_d = n.op == graph::Op::Conv1d;
  ir::Conv c;
  c.input = output_buffer(n.args.at(0).value);
  c.weight = output_buffer(n.args.at(1).value);
  if (n.args.size() >= 3 && n.args[2].is_value()) c.bias = output_buffer(n.args[2].value);
  c.n = xs[0];
  c.c = xs[1];
  c.h = one_d ? 1 : xs[2];
  c.w = xs.back();
  c.cout = ws[0];
  c.kh = one_d ? 1 : ws[2];
  c.kw = ws.back();
  c.oh = one_d ? 1 : n.shape[2];
  c.ow = n.shape.back();
  const std::size_t last = one_d ? 0 : 1;  // the index of W in the spatial attributes
  c.sh = one_d ? 1 : a.stride[0];
  c.sw = a.stride[last];
  c.ph = one_d ? 0 : a.pad_begin[0];
  c.pw = a.pad_begin[last];
  c.dh = one_d ? 1 : a.dilation[0];
  c.dw = a.dilation[last];
  c.groups = a.groups;

  ir::Buffer b;
  b.kind = ir::BufferKind::Extern;
  b.extern_op = ir::ExternOp::Conv;
  b.dtype = n.dtype;
  b.shape = n.shape;
  b.conv = c;
  buffer_of[static_cast<std::size_t>(v)] = add_buffer(std::move(b), nullptr, v);
}

}  // namespace stax::lowering::detail

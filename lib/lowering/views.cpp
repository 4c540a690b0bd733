// Views never copy: each rewrites the coordinates its consumer asks for into coordinates of
// its input (design.md, "Lowering"). A reshape goes through the row-major flat position, so a
// reshape of a non-contiguous view reads with // and %.
#include "lowering_impl.h"

#include "stax/ir/simplify.h"
#include "stax/support/error.h"

namespace stax::lowering::detail {

namespace {

Coords simplified(Coords c, const ir::VarRanges& ranges) {
  for (Index& e : c) e = ir::simplify(e, ranges);
  return c;
}

}  // namespace

Coords Lowerer::view_input_coords(const graph::Value& view, const Coords& coords,
                                  const BodyCtx& ctx) const {
  const graph::Value& in = g[view.args.at(0).value];
  const graph::Attrs& at = view.attrs;
  STAX_ASSERT(coords.size() == view.shape.size(), "view coordinates of the wrong rank");
  switch (view.op) {
    case graph::Op::Reshape:
    case graph::Op::Flatten: {
      if (in.shape == view.shape) return coords;
      Index flat = ir::simplify(ir::flat_index(coords, view.shape), ctx.ranges);
      return simplified(ir::unflatten_index(flat, in.shape), ctx.ranges);
    }
    case graph::Op::Permute:
    case graph::Op::Transpose: {
      Coords c(in.shape.size());
      STAX_ASSERT(at.dims.size() == coords.size(), "permutation of the wrong length");
      for (std::size_t j = 0; j < coords.size(); ++j) c[ud(at.dims[j])] = coords[j];
      return c;
    }
    case graph::Op::Expand: {
      const std::size_t ri = in.shape.size(), ro = coords.size();
      Coords c(ri);
      for (std::size_t j = 0; j < ri; ++j)
        c[j] = in.shape[j] == 1 ? Index::constant(0) : coords[j + ro - ri];
      return c;
    }
    case graph::Op::Unsqueeze: {
      Coords c = coords;
      c.erase(c.begin() + static_cast<std::ptrdiff_t>(at.dim));
      return c;
    }
    case graph::Op::Squeeze: {
      Coords c = coords;
      for (int64_t d : at.dims)  // ascending: each insert lands at its input position
        c.insert(c.begin() + static_cast<std::ptrdiff_t>(d), Index::constant(0));
      STAX_ASSERT(c.size() == in.shape.size(), "squeeze dims do not match the input rank");
      return c;
    }
    case graph::Op::Slice: {
      Coords c = coords;
      c[ud(at.dim)] = ir::simplify(c[ud(at.dim)] * at.step + at.start, ctx.ranges);
      return c;
    }
    case graph::Op::Select: {
      Coords c = coords;
      c.insert(c.begin() + static_cast<std::ptrdiff_t>(at.dim), Index::constant(at.index));
      return c;
    }
    case graph::Op::Neg:
    case graph::Op::Abs:
    case graph::Op::Sign:
    case graph::Op::Relu:
    case graph::Op::Floor:
    case graph::Op::Ceil:
    case graph::Op::Round:
    case graph::Op::Trunc:
    case graph::Op::LogicalNot:
    case graph::Op::BitwiseNot:
    case graph::Op::Clamp:
    case graph::Op::LeakyRelu:
    case graph::Op::Gelu:
    case graph::Op::Silu:
    case graph::Op::Exp:
    case graph::Op::Exp2:
    case graph::Op::Expm1:
    case graph::Op::Log:
    case graph::Op::Log2:
    case graph::Op::Log10:
    case graph::Op::Log1p:
    case graph::Op::Sqrt:
    case graph::Op::Rsqrt:
    case graph::Op::Reciprocal:
    case graph::Op::Sin:
    case graph::Op::Cos:
    case graph::Op::Tan:
    case graph::Op::Asin:
    case graph::Op::Acos:
    case graph::Op::Atan:
    case graph::Op::Sinh:
    case graph::Op::Cosh:
    case graph::Op::Tanh:
    case graph::Op::Sigmoid:
    case graph::Op::Erf:
    case graph::Op::Erfc:
    case graph::Op::IsNan:
    case graph::Op::IsInf:
    case graph::Op::IsFinite:
    case graph::Op::Add:
    case graph::Op::Sub:
    case graph::Op::Mul:
    case graph::Op::Div:
    case graph::Op::Remainder:
    case graph::Op::Pow:
    case graph::Op::Maximum:
    case graph::Op::Minimum:
    case graph::Op::Atan2:
    case graph::Op::BitwiseAnd:
    case graph::Op::BitwiseOr:
    case graph::Op::BitwiseXor:
    case graph::Op::Eq:
    case graph::Op::Ne:
    case graph::Op::Lt:
    case graph::Op::Le:
    case graph::Op::Gt:
    case graph::Op::Ge:
    case graph::Op::LogicalAnd:
    case graph::Op::LogicalOr:
    case graph::Op::LogicalXor:
    case graph::Op::Where:
    case graph::Op::To:
    case graph::Op::Full:
    case graph::Op::Arange:
    case graph::Op::Sum:
    case graph::Op::Mean:
    case graph::Op::Prod:
    case graph::Op::Amax:
    case graph::Op::Amin:
    case graph::Op::Any:
    case graph::Op::All:
    case graph::Op::Var:
    case graph::Op::Std:
    case graph::Op::Logsumexp:
    case graph::Op::Argmax:
    case graph::Op::Argmin:
    case graph::Op::Cumsum:
    case graph::Op::Cumprod:
    case graph::Op::Cat:
    case graph::Op::Pad:
    case graph::Op::Softmax:
    case graph::Op::LogSoftmax:
    case graph::Op::LayerNorm:
    case graph::Op::RmsNorm:
    case graph::Op::Linear:
    case graph::Op::BatchNorm:
    case graph::Op::Hardswish:
    case graph::Op::Hardsigmoid:
    case graph::Op::Softplus:
    case graph::Op::Elu:
    case graph::Op::Matmul:
    case graph::Op::Conv1d:
    case graph::Op::Conv2d:
    case graph::Op::MaxPool2d:
    case graph::Op::AvgPool2d:
    case graph::Op::AdaptiveAvgPool2d:
    case graph::Op::Embedding:
    case graph::Op::IndexSelect:
    case graph::Op::Gather: break;
  }
  STAX_ASSERT(false, "'" + view.name + "' is not a view");
  return coords;
}

}  // namespace stax::lowering::detail

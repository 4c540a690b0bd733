// PyTorch's type promotion and broadcasting, as the front end applies them (graph-format.md:
// "Semantics are those of PyTorch 2.x eager"). Shared so that later stages and tests can ask
// the same questions the front end answered.
#pragma once

#include <optional>
#include <vector>

#include "stax/support/dtype.h"
#include "stax/support/tensor.h"

namespace stax::graph {

// torch.promote_types: the smallest dtype both convert to without losing category
// (bool < int < float); int64 + float32 is float32.
DType promote_types(DType a, DType b);

// 0 bool, 1 integer, 2 floating.
int dtype_category(DType dt);

// One operand of torch.result_type.
struct PromoteOperand {
  enum class Rank : unsigned char { Dim, ZeroDim, PythonScalar };
  DType dtype = DType::Float32;  // a Python scalar's natural type: bool, int64 or float64
  Rank rank = Rank::Dim;
};

// torch.result_type: tensors with dims, then 0-d tensors, then Python scalars; a lower-priority
// group changes the result only when it is of a higher category. A Python float scalar counts as
// the default dtype float32, an int scalar as int64. Requires at least one operand.
DType result_type(const std::vector<PromoteOperand>& operands);

// Broadcast of two shapes (numpy rules); nullopt when incompatible. Does not check the element
// count for overflow.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

// Element count with overflow checking: nullopt when the product exceeds int64.
std::optional<int64_t> checked_numel(const Shape& shape);

}  // namespace stax::graph

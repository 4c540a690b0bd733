#include "stax/graph/promote.h"

#include <algorithm>

#include "stax/support/error.h"

namespace stax::graph {

int dtype_category(DType dt) {
  switch (dt) {
    case DType::Bool: return 0;
    case DType::Int32:
    case DType::Int64: return 1;
    case DType::Float32:
    case DType::Float64: return 2;
  }
  return 0;
}

namespace {

// Position in the order bool < int32 < int64 < float32 < float64 used by promotion between
// dtypes of one category, and across categories (a float beats any int).
int promotion_rank(DType dt) {
  switch (dt) {
    case DType::Bool: return 0;
    case DType::Int32: return 1;
    case DType::Int64: return 2;
    case DType::Float32: return 3;
    case DType::Float64: return 4;
  }
  return 0;
}

// c10's promote_skip_undefined.
std::optional<DType> promote_opt(std::optional<DType> a, std::optional<DType> b) {
  if (!a) return b;
  if (!b) return a;
  return promote_types(*a, *b);
}

// at::native::combine_categories (TensorIterator / ResultTypeState).
std::optional<DType> combine_categories(std::optional<DType> higher, std::optional<DType> lower) {
  if (higher && is_floating(*higher)) return higher;
  if ((higher && *higher == DType::Bool) || (lower && is_floating(*lower)))
    return promote_opt(higher, lower);
  if (higher) return higher;
  return lower;
}

}  // namespace

DType promote_types(DType a, DType b) {
  // Within the supported dtypes the lattice is a total order: the larger rank wins
  // (int64 + float32 = float32, as PyTorch).
  return promotion_rank(a) >= promotion_rank(b) ? a : b;
}

DType result_type(const std::vector<PromoteOperand>& operands) {
  STAX_ASSERT(!operands.empty(), "result_type of no operands");
  std::optional<DType> dim, zero, wrapped;
  for (const PromoteOperand& op : operands) {
    switch (op.rank) {
      case PromoteOperand::Rank::Dim: dim = promote_opt(dim, op.dtype); break;
      case PromoteOperand::Rank::ZeroDim: zero = promote_opt(zero, op.dtype); break;
      case PromoteOperand::Rank::PythonScalar: {
        // A wrapped Python float takes the default dtype.
        DType t = is_floating(op.dtype) ? DType::Float32 : op.dtype;
        wrapped = promote_opt(wrapped, t);
        break;
      }
    }
  }
  std::optional<DType> r = combine_categories(dim, combine_categories(zero, wrapped));
  STAX_ASSERT(r.has_value(), "result_type produced no dtype");
  return *r;
}

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n, 1);
  for (std::size_t k = 0; k < n; ++k) {
    int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[n - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

std::optional<int64_t> checked_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

}  // namespace stax::graph

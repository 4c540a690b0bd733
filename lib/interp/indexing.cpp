// The indexing ops: embedding, index_select and gather copy elements of their data at positions
// read from an index tensor. An index outside [0, size) is a run-time error (graph-format.md
// "Indices"), reported as a RuntimeFailure naming the node, as integer division by zero is.
#include "internal.h"

#include "stax/support/error.h"

namespace stax::interp::detail {

namespace {

// The index at element i of `index`, checked against [0, size) of the data's dim `dim`.
int64_t checked_index(const graph::Value& node, const Tensor& index, int64_t i, int64_t size,
                      int64_t dim) {
  const int64_t k = index.get_int(i);
  if (k < 0 || k >= size)
    fail(node, "index " + std::to_string(k) + " is out of range [0, " + std::to_string(size) +
                   ") of dim " + std::to_string(dim));
  return k;
}

// `shape` as [outer, shape[dim], inner] (a 0-d shape is [1, 1, 1]).
struct Split {
  int64_t outer = 1, size = 1, inner = 1;
};

Split split_at(const Shape& shape, int64_t dim) {
  Split s;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const auto sd = static_cast<int64_t>(d);
    if (sd < dim) s.outer *= shape[d];
    if (sd == dim) s.size = shape[d];
    if (sd > dim) s.inner *= shape[d];
  }
  return s;
}

}  // namespace

// out[i..., j] = weight[indices[i...], j]
Tensor eval_embedding(const Context& ctx, const graph::Value& node) {
  const Tensor& w = ctx.arg(node, 0);
  const Tensor& index = ctx.arg(node, 1);
  const int64_t rows = w.shape()[0], width = w.shape()[1];
  Tensor out(node.dtype, node.shape);
  for (int64_t i = 0; i < index.numel(); ++i) {
    const int64_t row = checked_index(node, index, i, rows, 0);
    for (int64_t j = 0; j < width; ++j) convert_element(w, row * width + j, out, i * width + j);
  }
  return out;
}

// out[o, k, i] = x[o, index[k], i] with x seen as [outer, size, inner] around `dim` (a 0-d x
// as [1, 1, 1], its one index 0).
Tensor eval_index_select(const Context& ctx, const graph::Value& node) {
  const Tensor& x = ctx.arg(node, 0);
  const Tensor& index = ctx.arg(node, 1);
  const Split s = split_at(x.shape(), node.attrs.dim);
  const int64_t count = index.numel();
  Tensor out(node.dtype, node.shape);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t pick = checked_index(node, index, k, s.size, node.attrs.dim);
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i)
        convert_element(x, (o * s.size + pick) * s.inner + i, out, (o * count + k) * s.inner + i);
  }
  return out;
}

// out[i] = x[i with i[dim] replaced by index[i]], for every position i of the index.
Tensor eval_gather(const Context& ctx, const graph::Value& node) {
  const Tensor& x = ctx.arg(node, 0);
  const Tensor& index = ctx.arg(node, 1);
  const int64_t dim = node.attrs.dim;
  const StridedView xv = contiguous_view(x.shape());
  const Shape& is = index.shape();
  const int64_t size = x.shape().empty() ? 1 : x.shape()[static_cast<std::size_t>(dim)];
  Tensor out(node.dtype, node.shape);
  std::vector<int64_t> pos(is.size(), 0);  // multi-index into the index tensor
  for (int64_t i = 0; i < index.numel(); ++i) {
    int64_t off = 0;
    for (std::size_t d = 0; d < is.size(); ++d) {
      const int64_t c = static_cast<int64_t>(d) == dim ? checked_index(node, index, i, size, dim)
                                                       : pos[d];
      off += c * xv.strides[d];
    }
    if (is.empty()) checked_index(node, index, i, size, dim);
    convert_element(x, off, out, i);
    for (std::size_t d = is.size(); d-- > 0;) {
      if (++pos[d] < is[d]) break;
      pos[d] = 0;
    }
  }
  return out;
}

}  // namespace stax::interp::detail

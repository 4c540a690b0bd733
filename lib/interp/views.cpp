// Views (reshape flatten permute transpose expand unsqueeze squeeze slice select), cat and pad.
// Each view is a StridedView of its dense operand, copied out; views of views compose because
// every intermediate value is dense again.
#include "internal.h"

#include <algorithm>
#include <cstring>

#include "stax/support/error.h"

namespace stax::interp::detail {

namespace {

std::size_t udim(int64_t d) { return static_cast<std::size_t>(d); }

template <typename V>
void erase_at(V& v, int64_t d) {
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(d));
}

Tensor finish_view(const Tensor& in, const StridedView& v, const graph::Value& node) {
  STAX_ASSERT(v.shape == node.shape, "view '" + node.name + "' computes shape " +
                                         shape_str(v.shape) + ", graph says " +
                                         shape_str(node.shape));
  return materialize(in, v);
}

}  // namespace

// reshape and flatten: the dense bytes under a new shape.
Tensor eval_reshape(const Context& ctx, const graph::Value& node) {
  const Tensor& in = ctx.arg(node, 0);
  STAX_ASSERT(in.numel() == node.numel(), "reshape changes the element count");
  Tensor out(in.dtype(), node.shape);
  if (in.nbytes() > 0) std::memcpy(out.data(), in.data(), in.nbytes());
  return out;
}

// permute, and transpose (whose attrs.dims is the full permutation).
Tensor eval_permute(const Context& ctx, const graph::Value& node) {
  const Tensor& in = ctx.arg(node, 0);
  const StridedView all = contiguous_view(in.shape());
  const std::vector<int64_t>& perm = node.attrs.dims;
  STAX_ASSERT(perm.size() == in.shape().size(), "permutation of the wrong length");
  StridedView v;
  for (int64_t p : perm) {
    v.shape.push_back(all.shape.at(udim(p)));
    v.strides.push_back(all.strides.at(udim(p)));
  }
  return finish_view(in, v, node);
}

Tensor eval_expand(const Context& ctx, const graph::Value& node) {
  const Tensor& in = ctx.arg(node, 0);
  return finish_view(in, broadcast_view(contiguous_view(in.shape()), node.shape), node);
}

Tensor eval_unsqueeze(const Context& ctx, const graph::Value& node) {
  const Tensor& in = ctx.arg(node, 0);
  StridedView v = contiguous_view(in.shape());
  const int64_t d = node.attrs.dim;
  STAX_ASSERT(d >= 0 && udim(d) <= v.shape.size(), "unsqueeze dim out of range");
  v.shape.insert(v.shape.begin() + static_cast<std::ptrdiff_t>(d), 1);
  v.strides.insert(v.strides.begin() + static_cast<std::ptrdiff_t>(d), 0);
  return finish_view(in, v, node);
}

Tensor eval_squeeze(const Context& ctx, const graph::Value& node) {
  const Tensor& in = ctx.arg(node, 0);
  StridedView v = contiguous_view(in.shape());
  std::vector<int64_t> dims = node.attrs.dims;
  std::sort(dims.begin(), dims.end());
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {  // highest first keeps indices valid
    STAX_ASSERT(*it >= 0 && udim(*it) < v.shape.size() && v.shape[udim(*it)] == 1,
                "squeeze of a dim that is not 1");
    erase_at(v.shape, *it);
    erase_at(v.strides, *it);
  }
  return finish_view(in, v, node);
}

// Python slice start:end:step along attrs.dim (already clamped by the front end).
Tensor eval_slice(const Context& ctx, const graph::Value& node) {
  const Tensor& in = ctx.arg(node, 0);
  StridedView v = contiguous_view(in.shape());
  const graph::Attrs& a = node.attrs;
  const std::size_t d = udim(a.dim);
  STAX_ASSERT(d < v.shape.size() && a.step >= 1 && 0 <= a.start && a.start < a.end &&
                  a.end <= v.shape[d],
              "slice bounds not normalized");
  v.offset += a.start * v.strides[d];
  v.shape[d] = (a.end - a.start + a.step - 1) / a.step;
  v.strides[d] *= a.step;
  return finish_view(in, v, node);
}

Tensor eval_select(const Context& ctx, const graph::Value& node) {
  const Tensor& in = ctx.arg(node, 0);
  StridedView v = contiguous_view(in.shape());
  const std::size_t d = udim(node.attrs.dim);
  STAX_ASSERT(d < v.shape.size() && node.attrs.index >= 0 && node.attrs.index < v.shape[d],
              "select index not normalized");
  v.offset += node.attrs.index * v.strides[d];
  erase_at(v.shape, node.attrs.dim);
  erase_at(v.strides, node.attrs.dim);
  return finish_view(in, v, node);
}

// cat along attrs.dim; operands of other dtypes are converted to the promoted result dtype.
Tensor eval_cat(const Context& ctx, const graph::Value& node) {
  Tensor out(node.dtype, node.shape);
  const StridedView all = contiguous_view(node.shape);
  const std::size_t d = udim(node.attrs.dim);
  STAX_ASSERT(d < node.shape.size(), "cat dim out of range");
  int64_t position = 0;
  for (std::size_t k = 0; k < node.args.size(); ++k) {
    const Tensor& in = ctx.arg(node, k);
    StridedView dst = all;
    dst.shape[d] = in.shape().at(d);
    dst.offset = position * all.strides[d];
    STAX_ASSERT(dst.shape == in.shape(), "cat operand shape mismatch");
    const std::vector<int64_t> offsets = view_offsets(dst);
    for (std::size_t i = 0; i < offsets.size(); ++i)
      convert_element(in, static_cast<int64_t>(i), out, offsets[i]);
    position += in.shape()[d];
  }
  STAX_ASSERT(position == node.shape[d], "cat sizes do not add up");
  return out;
}

// Constant pad as torch.nn.functional.pad: pairs (left, right) from the last dim backwards;
// negative amounts crop.
Tensor eval_pad(const Context& ctx, const graph::Value& node) {
  const Tensor& in = ctx.arg(node, 0);
  const Shape& is = in.shape();
  const std::size_t nd = is.size();
  const std::vector<int64_t>& pad = node.attrs.pad;
  STAX_ASSERT(pad.size() % 2 == 0 && pad.size() / 2 <= nd, "pad list longer than the dims");
  std::vector<int64_t> left(nd, 0);
  for (std::size_t p = 0; p < pad.size() / 2; ++p) left[nd - 1 - p] = pad[2 * p];
  const StridedView src = contiguous_view(is);

  Tensor out(node.dtype, node.shape);
  const int64_t n = node.numel();
  std::vector<int64_t> index(nd, 0);  // output multi-index
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    bool inside = true;
    for (std::size_t k = 0; k < nd; ++k) {
      const int64_t j = index[k] - left[k];
      if (j < 0 || j >= is[k]) {
        inside = false;
        break;
      }
      off += j * src.strides[k];
    }
    if (inside) {
      convert_element(in, off, out, i);
    } else {
      store_scalar(out, i, node.attrs.value);
    }
    for (std::size_t k = nd; k-- > 0;) {
      if (++index[k] < node.shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace stax::interp::detail

// Shapes of the view ops, cat and pad (graph-format.md "Shape and layout"): reshape with -1,
// expand with -1 and new leading dims, Python slice clamping, squeeze of a non-1 dim as a no-op,
// constant pad with cropping negative pads.
#include "frontend_impl.h"

#include <algorithm>

#include "stax/graph/promote.h"
#include "stax/support/error.h"

namespace stax::graph::detail {

namespace {

int64_t required_int(const NodeCtx& c, std::string_view key) {
  return read_int(c.site, required(c, key), "." + std::string(key));
}

int64_t optional_int(const NodeCtx& c, std::string_view key, int64_t fallback) {
  const Json* j = c.attr(key);
  return j == nullptr ? fallback : read_int(c.site, *j, "." + std::string(key));
}

int64_t ndim_of(const Value& x) { return static_cast<int64_t>(x.shape.size()); }

Shape permuted(const Shape& in, const std::vector<int64_t>& perm) {
  Shape out;
  for (int64_t d : perm) out.push_back(in[static_cast<std::size_t>(d)]);
  return out;
}

void infer_reshape(const NodeCtx& c, Value& v, const Value& x) {
  Shape target = read_shape(c.site, required(c, "shape"), ".shape", true);
  int64_t known = 1;
  std::optional<std::size_t> infer_at;
  for (std::size_t k = 0; k < target.size(); ++k) {
    if (target[k] == -1) {
      if (infer_at) c.site.fail(".shape", "only one dim may be -1");
      infer_at = k;
      continue;
    }
    if (__builtin_mul_overflow(known, target[k], &known))
      c.site.fail(".shape", "the element count of shape " + shape_str(target) + " overflows int64");
  }
  int64_t numel = x.numel();
  bool ok = infer_at ? numel % known == 0 : numel == known;
  if (!ok)
    c.site.fail(".shape", "cannot reshape " + shape_str(x.shape) + " (" + std::to_string(numel) +
                              " elements) into " + shape_str(target));
  if (infer_at) target[*infer_at] = numel / known;
  v.attrs.shape = target;
  v.shape = target;
}

void infer_permute(const NodeCtx& c, Value& v, const Value& x) {
  const Json& j = required(c, "dims");
  if (!j.is_array()) c.site.fail(".dims", "expected a list of dims, got " + json_brief(j));
  int64_t ndim = ndim_of(x);
  if (static_cast<int64_t>(j.items.size()) != ndim)
    c.site.fail(".dims", "permute of a " + std::to_string(ndim) + "-d tensor needs " +
                             std::to_string(ndim) + " dims, got " + std::to_string(j.items.size()));
  std::vector<int64_t> perm;
  for (std::size_t k = 0; k < j.items.size(); ++k) {
    std::string sub = ".dims[" + std::to_string(k) + "]";
    int64_t d = normalize_dim(c.site, read_int(c.site, j.items[k], sub), ndim, sub);
    if (std::find(perm.begin(), perm.end(), d) != perm.end())
      c.site.fail(sub, "dim " + std::to_string(d) + " appears more than once");
    perm.push_back(d);
  }
  v.attrs.dims = perm;
  v.shape = permuted(x.shape, perm);
}

void infer_transpose(const NodeCtx& c, Value& v, const Value& x) {
  int64_t ndim = ndim_of(x);
  int64_t d0 = normalize_dim(c.site, required_int(c, "dim0"), ndim, ".dim0");
  int64_t d1 = normalize_dim(c.site, required_int(c, "dim1"), ndim, ".dim1");
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < ndim; ++d) perm.push_back(d);
  if (ndim > 0) std::swap(perm[static_cast<std::size_t>(d0)], perm[static_cast<std::size_t>(d1)]);
  v.attrs.dims = perm;
  v.shape = permuted(x.shape, perm);
}

void infer_expand(const NodeCtx& c, Value& v, const Value& x) {
  Shape target = read_shape(c.site, required(c, "shape"), ".shape", true);
  std::size_t ndim = x.shape.size();
  if (target.size() < ndim)
    c.site.fail(".shape", "expand needs at least " + std::to_string(ndim) + " sizes for " +
                              shape_str(x.shape) + ", got " + shape_str(target));
  std::size_t lead = target.size() - ndim;
  for (std::size_t k = 0; k < target.size(); ++k) {
    std::string sub = ".shape[" + std::to_string(k) + "]";
    if (k < lead) {
      if (target[k] == -1) c.site.fail(sub, "-1 is not allowed for a new leading dim");
      continue;
    }
    int64_t size = x.shape[k - lead];
    if (target[k] == -1) {
      target[k] = size;
      continue;
    }
    if (size != target[k] && size != 1)
      c.site.fail(sub, "cannot expand " + shape_str(x.shape) + " to " + shape_str(target) +
                           ": dim " + std::to_string(k - lead) + " has size " +
                           std::to_string(size) + " (only size 1 expands)");
  }
  v.attrs.shape = target;
  v.shape = target;
}

void infer_unsqueeze(const NodeCtx& c, Value& v, const Value& x) {
  int64_t ndim = ndim_of(x);
  int64_t d = required_int(c, "dim");
  if (d < -(ndim + 1) || d > ndim)
    c.site.fail(".dim", "dim " + std::to_string(d) + " is out of range for unsqueeze of a " +
                            std::to_string(ndim) + "-d tensor (expected " +
                            std::to_string(-(ndim + 1)) + ".." + std::to_string(ndim) + ")");
  if (d < 0) d += ndim + 1;
  v.attrs.dim = d;
  v.shape = x.shape;
  v.shape.insert(v.shape.begin() + d, 1);
}

void infer_squeeze(const NodeCtx& c, Value& v, const Value& x) {
  int64_t ndim = ndim_of(x);
  std::vector<int64_t> named;
  if (const Json* j = c.attr("dim")) {
    std::vector<int64_t> raw = read_dim_list(c.site, *j, ".dim", true);
    for (std::size_t k = 0; k < raw.size(); ++k) {
      std::string sub = j->is_array() ? ".dim[" + std::to_string(k) + "]" : ".dim";
      int64_t d = normalize_dim(c.site, raw[k], ndim, sub);
      if (std::find(named.begin(), named.end(), d) != named.end())
        c.site.fail(sub, "dim " + std::to_string(d) + " appears more than once");
      named.push_back(d);
    }
  } else {
    for (int64_t d = 0; d < ndim; ++d) named.push_back(d);
  }
  // A named dim whose size is not 1 stays (PyTorch's no-op), as does everything of a 0-d tensor.
  std::vector<int64_t> removed;
  for (int64_t d : named)
    if (ndim > 0 && x.shape[static_cast<std::size_t>(d)] == 1) removed.push_back(d);
  std::sort(removed.begin(), removed.end());
  v.attrs.dims = removed;
  for (int64_t d = 0; d < ndim; ++d)
    if (std::find(removed.begin(), removed.end(), d) == removed.end())
      v.shape.push_back(x.shape[static_cast<std::size_t>(d)]);
}

void infer_flatten(const NodeCtx& c, Value& v, const Value& x) {
  int64_t ndim = ndim_of(x);
  int64_t start = normalize_dim(c.site, optional_int(c, "start_dim", 0), ndim, ".start_dim");
  int64_t end = normalize_dim(c.site, optional_int(c, "end_dim", -1), ndim, ".end_dim");
  if (start > end)
    c.site.fail("", "start_dim (" + std::to_string(start) + ") comes after end_dim (" +
                        std::to_string(end) + ")");
  v.attrs.start = start;
  v.attrs.end = end;
  if (ndim == 0) {
    v.shape = {1};
  } else {
    int64_t merged = 1;
    for (int64_t d = start; d <= end; ++d) merged *= x.shape[static_cast<std::size_t>(d)];
    v.shape.assign(x.shape.begin(), x.shape.begin() + start);
    v.shape.push_back(merged);
    v.shape.insert(v.shape.end(), x.shape.begin() + end + 1, x.shape.end());
  }
  v.attrs.shape = v.shape;
}

// Python's clamping of a slice bound into [0, size].
int64_t clamp_bound(int64_t b, int64_t size) {
  if (b < 0) b += size;  // b >= INT64_MIN and size > 0: no overflow
  return std::clamp<int64_t>(b, 0, size);
}

void infer_slice(const NodeCtx& c, Value& v, const Value& x) {
  int64_t ndim = ndim_of(x);
  if (ndim == 0) c.site.fail(c.arg_path(0), "slice needs a tensor with at least one dim");
  int64_t d = normalize_dim(c.site, required_int(c, "dim"), ndim, ".dim");
  int64_t size = x.shape[static_cast<std::size_t>(d)];
  int64_t step = optional_int(c, "step", 1);
  if (step < 1) c.site.fail(".step", "slice step must be >= 1, got " + std::to_string(step));
  int64_t start = clamp_bound(optional_int(c, "start", 0), size);
  int64_t end = clamp_bound(optional_int(c, "end", size), size);
  if (end <= start)
    c.site.fail("", "the slice " + std::to_string(start) + ":" + std::to_string(end) + " of dim " +
                        std::to_string(d) + " (size " + std::to_string(size) +
                        ") is empty; zero-size values are not supported");
  v.attrs.dim = d;
  v.attrs.start = start;
  v.attrs.end = end;
  v.attrs.step = step;
  v.shape = x.shape;
  v.shape[static_cast<std::size_t>(d)] = (end - start - 1) / step + 1;
}

void infer_select(const NodeCtx& c, Value& v, const Value& x) {
  int64_t ndim = ndim_of(x);
  if (ndim == 0) c.site.fail(c.arg_path(0), "select needs a tensor with at least one dim");
  int64_t d = normalize_dim(c.site, required_int(c, "dim"), ndim, ".dim");
  int64_t size = x.shape[static_cast<std::size_t>(d)];
  int64_t index = required_int(c, "index");
  if (index < -size || index >= size)
    c.site.fail(".index", "index " + std::to_string(index) + " is out of range for dim " +
                              std::to_string(d) + " of size " + std::to_string(size));
  v.attrs.dim = d;
  v.attrs.index = index < 0 ? index + size : index;
  v.shape = x.shape;
  v.shape.erase(v.shape.begin() + d);
}

void infer_cat(const NodeCtx& c, Value& v) {
  const Value& first = c.value(0);
  int64_t ndim = ndim_of(first);
  std::vector<PromoteOperand> types;
  for (std::size_t k = 0; k < c.args.size(); ++k) {
    const Value& a = c.value(k);
    if (a.shape.empty()) c.site.fail(c.arg_path(k), "a 0-d tensor cannot be concatenated");
    types.push_back({a.dtype, PromoteOperand::Rank::Dim});
  }
  int64_t d = normalize_dim(c.site, required_int(c, "dim"), ndim, ".dim");
  Shape out = first.shape;
  for (std::size_t k = 1; k < c.args.size(); ++k) {
    const Value& a = c.value(k);
    bool match = ndim_of(a) == ndim;
    for (int64_t i = 0; match && i < ndim; ++i)
      match = i == d || a.shape[static_cast<std::size_t>(i)] == first.shape[static_cast<std::size_t>(i)];
    if (!match)
      c.site.fail(c.arg_path(k), "cannot concatenate " + shape_str(a.shape) + " with " +
                                     shape_str(first.shape) + " along dim " + std::to_string(d) +
                                     " (other dims must match)");
    auto& total = out[static_cast<std::size_t>(d)];
    if (__builtin_add_overflow(total, a.shape[static_cast<std::size_t>(d)], &total))
      c.site.fail("", "the concatenated size overflows int64");
  }
  v.attrs.dim = d;
  v.shape = out;
  v.dtype = v.compute_dtype = result_type(types);
}

void infer_pad(const NodeCtx& c, Value& v, const Value& x) {
  const Json& j = required(c, "pad");
  if (!j.is_array()) c.site.fail(".pad", "expected a list of integers, got " + json_brief(j));
  std::vector<int64_t> pad;
  for (std::size_t k = 0; k < j.items.size(); ++k)
    pad.push_back(read_int(c.site, j.items[k], ".pad[" + std::to_string(k) + "]"));
  int64_t ndim = ndim_of(x);
  if (pad.size() % 2 != 0)
    c.site.fail(".pad", "the pad list has odd length " + std::to_string(pad.size()));
  if (static_cast<int64_t>(pad.size() / 2) > ndim)
    c.site.fail(".pad", "the pad list pads " + std::to_string(pad.size() / 2) + " dims of a " +
                            std::to_string(ndim) + "-d tensor");
  v.shape = x.shape;
  for (std::size_t i = 0; i < pad.size() / 2; ++i) {
    auto d = static_cast<std::size_t>(ndim - 1 - static_cast<int64_t>(i));
    int64_t size = x.shape[d], before = pad[2 * i], after = pad[2 * i + 1];
    std::string where = " of dim " + std::to_string(d) + " (size " + std::to_string(size) + ")";
    if (before < -size)
      c.site.fail(".pad", "cropping " + std::to_string(before).substr(1) + where +
                              " removes more than it has");
    int64_t rest = size + std::min<int64_t>(before, 0);
    if (after < -rest)
      c.site.fail(".pad", "cropping " + std::to_string(after).substr(1) + " more" + where +
                              " removes more than it has");
    int64_t out = 0;
    if (__builtin_add_overflow(size, before, &out) || __builtin_add_overflow(out, after, &out))
      c.site.fail(".pad", "the padded size" + where + " overflows int64");
    if (out < 1)
      c.site.fail(".pad", "padding" + where + " by " + std::to_string(before) + " and " +
                              std::to_string(after) + " leaves it empty; zero-size values are "
                              "not supported");
    v.shape[d] = out;
  }
  v.attrs.pad = pad;
  Scalar value = Scalar::of_int(0);
  if (const Json* pv = c.attr("value")) {
    std::optional<Scalar> s = read_scalar_literal(c.site, *pv, ".value");
    if (!s) c.site.fail(".value", "expected a number, got " + json_brief(*pv));
    value = *s;
  }
  v.attrs.value = scalar_to_dtype(c.site, value, x.dtype, ".value");
  v.dtype = v.compute_dtype = x.dtype;
}

}  // namespace

void infer_view(const NodeCtx& c, Value& v) {
  if (c.op == Op::Cat) {
    infer_cat(c, v);
    return;
  }
  const Value& x = c.value(0);
  v.dtype = v.compute_dtype = x.dtype;
  if (c.op == Op::Reshape) return infer_reshape(c, v, x);
  if (c.op == Op::Permute) return infer_permute(c, v, x);
  if (c.op == Op::Transpose) return infer_transpose(c, v, x);
  if (c.op == Op::Expand) return infer_expand(c, v, x);
  if (c.op == Op::Unsqueeze) return infer_unsqueeze(c, v, x);
  if (c.op == Op::Squeeze) return infer_squeeze(c, v, x);
  if (c.op == Op::Flatten) return infer_flatten(c, v, x);
  if (c.op == Op::Slice) return infer_slice(c, v, x);
  if (c.op == Op::Select) return infer_select(c, v, x);
  if (c.op == Op::Pad) return infer_pad(c, v, x);
  STAX_ASSERT(false, "infer_view called for another op");
}

}  // namespace stax::graph::detail

// fold_pads_into_pools (stax/lowering/fold.h): an explicit pad of a pool's spatial dims made the
// pool's own padding.
#include <cmath>

#include "stax/lowering/fold.h"

namespace stax::lowering {

namespace {

using graph::Graph;
using graph::Op;
using graph::Value;
using graph::ValueKind;

// The pad value that the pool's own padding stands for: zeros counted by an average (its
// count_include_pad), -inf for a maximum.
bool pads_like_the_pool(const Value& pool, const graph::Scalar& value) {
  const double v = value.as_double();
  return pool.op == Op::AvgPool2d ? v == 0.0 : std::isinf(v) && v < 0;
}

// [h, w]: the symmetric pads of `pad` (torch's last-dim-first pairs) over the last two dims, or
// {-1, -1} when it pads anything else or unevenly.
std::vector<int64_t> spatial_pads(const std::vector<int64_t>& pad) {
  if (pad.size() > 4 || pad.size() % 2 != 0) return {-1, -1};
  std::vector<int64_t> p{0, 0, 0, 0};
  for (std::size_t i = 0; i < pad.size(); ++i) p[i] = pad[i];
  if (p[0] != p[1] || p[2] != p[3] || p[0] < 0 || p[2] < 0) return {-1, -1};
  return {p[2], p[0]};
}

// Output rows narrower than this keep the padded copy: there each tap's edge masks cost more
// than the copy saves (Inception-v3's 3 x 3 branch pools, 2 threads, against the Pad kernel and
// the pool over its copy: 35 x 35 and 17 x 17 outputs 1.4-2.6x faster folded, 8 x 8 1.5-1.6x
// slower).
constexpr int64_t kMinFoldedRow = 16;

// Whether `pool` reading pad node `pad` can read the pad's input instead, with padding `p` of
// its own: a pool without padding or ceil_mode (whose windows then all lie inside the padded
// input), pads within PyTorch's limit (at most half the window's extent), of the pool's value,
// over rows of at least kMinFoldedRow outputs.
bool foldable(const Value& pool, const Value& pad, const std::vector<int64_t>& p) {
  if (pool.kind != ValueKind::Node || (pool.op != Op::AvgPool2d && pool.op != Op::MaxPool2d)) return false;
  if (pad.kind != ValueKind::Node || pad.op != Op::Pad || !pad.args.at(0).is_value()) return false;
  const graph::Attrs& a = pool.attrs;
  if (a.ceil_mode || p[0] < 0 || pool.shape.back() < kMinFoldedRow) return false;
  for (std::size_t k = 0; k < 2; ++k) {
    if (a.pad_begin[k] != 0 || a.pad_end[k] != 0) return false;
    const int64_t extent = pool.op == Op::MaxPool2d ? a.dilation[k] * (a.kernel[k] - 1) + 1 : a.kernel[k];
    if (p[k] > extent / 2) return false;
  }
  return pads_like_the_pool(pool, pad.attrs.value);
}

}  // namespace

Graph fold_pads_into_pools(const Graph& g, std::vector<std::string>* folded) {
  Graph out = g;
  for (Value& pool : out.values) {
    if (pool.kind != ValueKind::Node || pool.args.empty() || !pool.args[0].is_value()) continue;
    const Value& pad = g[pool.args[0].value];
    const std::vector<int64_t> p = pad.kind == ValueKind::Node && pad.op == Op::Pad ? spatial_pads(pad.attrs.pad)
                                                                                     : std::vector<int64_t>{-1, -1};
    if (!foldable(pool, pad, p)) continue;
    pool.args[0] = pad.args[0];
    pool.attrs.pad_begin = pool.attrs.pad_end = p;
    pool.attrs.count_include_pad = true;  // (an average: every window lay inside the zeros)
    if (folded != nullptr)
      folded->push_back("folded pad " + pad.name + " into " + std::string(graph::op_name(pool.op)) + " " + pool.name);
  }
  return out;
}

}  // namespace stax::lowering

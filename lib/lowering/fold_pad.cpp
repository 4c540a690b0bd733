// fold_pads_into_pools (stax/lowering/fold.h): an explicit pad of a pool's spatial dims made the
// pool's own padding.
#include <cmath>
#include <optional>

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

// Output rows narrower than this keep the padded copy: there each tap's edge masks cost more
// than the copy saves (Inception-v3's 3 x 3 branch pools, 2 threads, against the Pad kernel and
// the pool over its copy: 35 x 35 and 17 x 17 outputs 1.4-2.6x faster folded, 8 x 8 1.5-1.6x
// slower).
constexpr int64_t kMinFoldedRow = 16;

// [h, w]: the symmetric pads of `pad` (torch's last-dim-first pairs) over the last two dims, or
// nothing when it pads anything else or unevenly.
std::optional<std::vector<int64_t>> spatial_pads(const std::vector<int64_t>& pad) {
  if (pad.size() > 4 || pad.size() % 2 != 0) return std::nullopt;
  std::vector<int64_t> p{0, 0, 0, 0};
  for (std::size_t i = 0; i < pad.size(); ++i) p[i] = pad[i];
  if (p[0] != p[1] || p[2] != p[3] || p[0] < 0 || p[2] < 0) return std::nullopt;
  return std::vector<int64_t>{p[2], p[0]};
}

// The padding [h, w] with which `pool` can read the input of `pad`, the node it reads, instead:
// a pool without padding or ceil_mode (whose windows then all lie inside the padded input), a
// pad of its spatial dims within PyTorch's limit (at most half the window's extent), of the
// pool's value, over rows of at least kMinFoldedRow outputs. Nothing when it cannot.
std::optional<std::vector<int64_t>> folded_padding(const Value& pool, const Value& pad) {
  if (pool.kind != ValueKind::Node || (pool.op != Op::AvgPool2d && pool.op != Op::MaxPool2d)) return std::nullopt;
  if (pad.kind != ValueKind::Node || pad.op != Op::Pad || !pad.args.at(0).is_value()) return std::nullopt;
  const graph::Attrs& a = pool.attrs;
  if (a.ceil_mode || pool.shape.back() < kMinFoldedRow || !pads_like_the_pool(pool, pad.attrs.value)) return std::nullopt;
  std::optional<std::vector<int64_t>> p = spatial_pads(pad.attrs.pad);
  for (std::size_t k = 0; p && k < 2; ++k) {
    const int64_t extent = pool.op == Op::MaxPool2d ? a.dilation[k] * (a.kernel[k] - 1) + 1 : a.kernel[k];
    if (a.pad_begin[k] != 0 || a.pad_end[k] != 0 || (*p)[k] > extent / 2) return std::nullopt;
  }
  return p;
}

}  // namespace

Graph fold_pads_into_pools(const Graph& g, std::vector<std::string>* folded) {
  Graph out = g;
  for (Value& pool : out.values) {
    if (pool.kind != ValueKind::Node || pool.args.empty() || !pool.args[0].is_value()) continue;
    const Value& pad = g[pool.args[0].value];
    const std::optional<std::vector<int64_t>> p = folded_padding(pool, pad);
    if (!p) continue;
    pool.args[0] = pad.args[0];
    pool.attrs.pad_begin = pool.attrs.pad_end = *p;
    pool.attrs.count_include_pad = true;  // (an average: every window lay inside the zeros)
    if (folded != nullptr)
      folded->push_back("folded pad " + pad.name + " into " + std::string(graph::op_name(pool.op)) + " " + pool.name);
  }
  return out;
}

}  // namespace stax::lowering

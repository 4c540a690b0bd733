// The forms of a loop kernel, tried in order: 2-D tiled (§8.2), vector rows, column reduction
// (§8.1), then row groups (listing 7.1; scalar when no loop of it is vectorized).
#include "forms.h"

#include <algorithm>

#include "stax/ir/simplify.h"

namespace stax::kernelplan::detail {

using ir::Index;
using ir::Var;
using scheduler::LoopGroup;

namespace {

const LoopGroup& first_group(const KernelContext& c) { return c.k.loop_groups.front(); }

// A pointwise nest whose outer loops are the whole nest and whose values all go to memory or to
// registers (no row-local array).
bool whole_nest(const KernelContext& c) {
  if (!is_whole_nest(c.k)) return false;
  return std::all_of(c.k.nodes.begin(), c.k.nodes.end(),
                     [&](const scheduler::KernelNode& n) { return c.locals.where[static_cast<std::size_t>(n.buffer)] != Locality::Row; });
}

std::string name_of_var(Var v) { return ir::var_name(v); }

// The transposed reads of a pointwise nest along its last two loops a (second to last) and b
// (last): contiguous along a, strided along b. Empty when some read is neither straight nor
// transposed, or is masked (a masked-off read may be out of bounds).
std::vector<Tile> transposed_reads(const KernelContext& c, Var a, Var b, std::string& why) {
  std::vector<Tile> tiles;
  for (int idx : first_group(c).nodes) {
    const scheduler::KernelNode& n = c.node(idx);
    for (const ir::Expr& e : ir::topo_order(c.p[n.buffer].body)) {
      if (e.op() == ir::ExprOp::Masked) {
        why = "a masked read (cat or pad) may lie out of bounds";
        return {};
      }
      if (e.op() != ir::ExprOp::Load || !c.in_memory(e.buffer())) continue;
      const Index at = kernel_index(n, e.index());
      const std::optional<int64_t> sb = ir::lane_stride(at, b), sa = ir::lane_stride(at, a);
      if (sb && (*sb == 0 || *sb == 1)) continue;
      if (!sb || sa != std::optional<int64_t>(1)) {
        why = "the load of " + c.p[e.buffer()].name + "[" + ir::to_string(at) + "] is neither straight nor transposed";
        return {};
      }
      const bool seen = std::any_of(tiles.begin(), tiles.end(), [&](const Tile& t) { return t.buffer == e.buffer() && t.at == at; });
      if (!seen) tiles.push_back({e.buffer(), at, idx});
    }
  }
  if (tiles.empty()) why = "no transposed read";
  return tiles;
}

}  // namespace

bool plan_tiled(const KernelContext& c, KernelPlan& kp) {
  const std::size_t depth = c.depth();
  if (!whole_nest(c) || depth < 2 || c.k.loop_groups.size() != 1 || !c.vector ||
      c.k.outer[depth - 2] < kMinVectorTrip || c.k.outer[depth - 1] < kMinVectorTrip)
    return false;
  const Var a = ir::xvar(static_cast<int32_t>(depth - 2)), b = ir::xvar(static_cast<int32_t>(depth - 1));
  std::string why;
  std::vector<Tile> tiles = transposed_reads(c, a, b, why);
  if (tiles.empty()) return false;
  if (!why_not_vector(c, first_group(c).nodes, b, c.k.outer[depth - 1], tiles).empty()) return false;
  kp.form = Form::Tiled;
  kp.tiles = std::move(tiles);
  kp.vector_var = b;
  kp.vector_trip = c.k.outer[depth - 1];
  kp.form_reason = "a pointwise nest reading " + std::to_string(kp.tiles.size()) + " operand" +
                   (kp.tiles.size() > 1 ? "s" : "") + " transposed (contiguous along " + name_of_var(a) +
                   ", strided along the vector loop " + name_of_var(b) + "): " + std::to_string(kTile) + " x " +
                   std::to_string(kTile) + " tiles staged through L1";
  kp.prefetch_next_tile = c.k.outer[depth - 1] > kTile;
  kp.stream = stream_store(c, first_group(c).nodes, b, kp.stream_reason);
  return true;
}

bool plan_vector_rows(const KernelContext& c, KernelPlan& kp) {
  const std::size_t depth = c.depth();
  if (!whole_nest(c) || depth == 0 || c.k.loop_groups.size() != 1) return false;
  const Var v = ir::xvar(static_cast<int32_t>(depth - 1));
  const std::string why = why_not_vector(c, first_group(c).nodes, v, c.k.outer.back(), {}, true);
  if (!why.empty()) {
    kp.form_reason = "not vector rows: " + why;
    return false;
  }
  kp.form = Form::VectorRows;
  kp.vector_var = v;
  kp.vector_trip = c.k.outer.back();
  kp.form_reason = "a pointwise nest whose every node reads (contiguously or every other element) and stores "
                   "contiguously along " + name_of_var(v);
  kp.blocked = depth == 1 && kp.parallel_depth == 1 && kp.parallel != Parallel::Serial && kp.vector_trip > kBlock;
  kp.stream = stream_store(c, first_group(c).nodes, v, kp.stream_reason);
  return true;
}

namespace {

// The column reduction's prefetches: the unmasked loads whose rows' pieces are not adjacent (a
// gap between them), kPrefetchAheadBytes of pieces further on.
void plan_column_prefetches(const KernelContext& c, Var v, KernelPlan& kp) {
  const LoopGroup& first = first_group(c);
  const Var row = ir::rvar(static_cast<int32_t>(first.reduce.size() - 1));
  const int64_t piece = std::min(c.k.outer.back(), kColumnBlock);  // columns of a block
  for (int idx : first.nodes) {
    const scheduler::KernelNode& node = c.node(idx);
    for (const ir::LoadRef& l : ir::collect_loads(c.p[node.buffer].body)) {
      const Index at = kernel_index(node, l.index);
      const std::optional<int64_t> stride = ir::lane_stride(at, row);
      const int64_t size = static_cast<int64_t>(dtype_size(c.p[l.buffer].dtype));
      if (l.masked || ir::lane_stride(at, v) != std::optional<int64_t>(1) || !stride || std::abs(*stride) <= piece)
        continue;  // rows read one after the other: the hardware prefetcher follows them
      kp.prefetch_ahead = std::max<int64_t>(kp.prefetch_ahead, std::max<int64_t>(1, kPrefetchAheadBytes / (piece * size)));
      add_prefetch(kp.column_prefetches, l.buffer, at, *stride);
    }
  }
}

// Whether a column reduction's window form applies (every accumulator a plain vector, not
// argmax/argmin's; the columns not the threads' blocks).
bool window_fits(const KernelContext& c, const LoopGroup& first, bool blocked) {
  return product(first.reduce) <= kWindowMaxPositions && !blocked &&
         std::all_of(first.nodes.begin(), first.nodes.end(), [&](int idx) {
           const ir::ReduceOp op = c.buffer_of(idx).reduce_op;
           return op != ir::ReduceOp::ArgMax && op != ir::ReduceOp::ArgMin;
         });
}

// A second loop group that the window form computes on each vector of results: pointwise, no
// loops of its own, with a vector form along v (avg_pool2d's division by its window's size).
bool pointwise_after(const KernelContext& c, Var v) {
  if (c.k.loop_groups.size() != 2) return false;
  const LoopGroup& g = c.k.loop_groups[1];
  return !g.reduction && g.inner.empty() && g.reduce.empty() && why_not_vector(c, g.nodes, v, c.k.outer.back(), {}, true).empty();
}

}  // namespace

bool plan_columns(const KernelContext& c, KernelPlan& kp) {
  const std::size_t depth = c.depth();
  const LoopGroup& first = first_group(c);
  if (depth == 0 || !first.reduction || !first.inner.empty() || first.reduce.empty()) return false;
  const Var r = ir::rvar(static_cast<int32_t>(first.reduce.size() - 1));
  const Var v = ir::xvar(static_cast<int32_t>(depth - 1));
  const bool then_pointwise = pointwise_after(c, v);
  if (c.k.loop_groups.size() != 1 && !then_pointwise) return false;
  if (why_not_vector(c, first.nodes, r, first.reduce.back()).empty()) return false;  // a row reduction
  const bool blocked = depth == 1 && kp.parallel_depth == 1 && kp.parallel != Parallel::Serial;
  // The window form masks its last vector, so a row narrower than kMinVectorTrip is one masked
  // vector: GoogLeNet's 3 x 3 stride-1 pools on 14 x 14 and 7 x 7 ran as scalar loops, 10-20
  // times ORT's time.
  const int64_t trip = c.k.outer.back();
  const bool narrow_window = trip < kMinVectorTrip && trip >= kWindowMinTrip && window_fits(c, first, blocked);
  // Stride 2 along the columns: a pooling window of stride 2 (max_pool2d's 3 x 3, stride 2).
  if (!why_not_vector(c, first.nodes, v, narrow_window ? kMinVectorTrip : trip, {}, true).empty()) return false;
  for (int idx : first.nodes) {
    const ir::Buffer& b = c.buffer_of(idx);
    // Stored contiguously, or (with a pointwise group after) kept in a register for it.
    const bool kept = then_pointwise && c.locals.where[static_cast<std::size_t>(b.id)] == Locality::Register;
    if (!has_vector_accumulator(b) || !(kept || c.in_memory(b.id)) ||
        (!kept && ir::lane_stride(kernel_index(c.node(idx), b.write_index()), v) != std::optional<int64_t>(1)))
      return false;
  }
  kp.column_window = window_fits(c, first, blocked);
  kp.form = Form::Columns;
  kp.vector_var = v;
  kp.vector_trip = c.k.outer.back();
  kp.form_reason = "a reduction over " + name_of_var(r) + ", which reads with a stride: the lanes run across the contiguous " +
                   name_of_var(v) + " instead";
  kp.blocked = blocked;
  if (kp.column_window) {
    kp.form_reason += "; a window of " + std::to_string(product(first.reduce)) + " positions: each vector of columns "
                      "reduced in registers over the whole window, four vectors side by side, the last one masked" +
                      std::string(then_pointwise ? ", then the pointwise group on its lanes" : "");
    return true;
  }
  // A pointwise group after (a mean's division over more than a window's positions: x.mean(1)
  // of [64, 1024, 256] was a scalar loop reading down the columns, 10x ORT's time) runs on each
  // column's result once its block is finished.
  kp.form_reason += ", one accumulator per column in blocks of " + std::to_string(kColumnBlock) +
                    std::string(then_pointwise ? ", then the pointwise group on each column's result" : "");
  plan_column_prefetches(c, v, kp);
  return true;
}

}  // namespace stax::kernelplan::detail

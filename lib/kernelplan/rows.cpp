// The row-groups form (listing 7.1): the kernel's outer loops, then each loop group in turn
// inside them; each group's innermost loop vectorized where it can be (§8.1, §8.3); a reduction
// right after a vector pointwise group computed inside its loop (one pass over the row); the
// thread's next row prefetched during the longest pass.
#include "forms.h"

#include <map>

#include "stax/ir/simplify.h"

namespace stax::kernelplan::detail {

using ir::Index;
using ir::Var;
using scheduler::LoopGroup;

namespace {

// A reduction group right after a vector pointwise group over the same single loop, that reads
// what the pointwise group computes only at the element being computed (Proposition 7.2 within
// the row), runs inside the pointwise loop: one pass over the row, not two (a softmax's exp and
// its sum).
bool absorbs(const KernelContext& c, const LoopGroup& g, const LoopGroup& next, Var var) {
  if (!next.reduction || !next.inner.empty() || next.reduce.size() != 1 || g.inner.size() != 1 ||
      next.reduce[0] != g.inner[0] || !why_not_vector(c, next.nodes, ir::rvar(0), next.reduce[0]).empty())
    return false;
  std::map<BufferId, Index> written;
  for (int idx : g.nodes) written.emplace(c.node(idx).buffer, kernel_index(c.node(idx), c.buffer_of(idx).write_index()));
  const ir::VarRanges ranges = c.node(g.nodes.front()).loops.ranges();
  for (int idx : next.nodes) {
    if (!has_vector_accumulator(c.buffer_of(idx))) return false;
    for (const ir::LoadRef& l : ir::collect_loads(c.buffer_of(idx).body)) {
      const auto w = written.find(l.buffer);
      if (w == written.end()) continue;
      const Index at = ir::simplify(ir::substitute(kernel_index(c.node(idx), l.index), {{ir::rvar(0), Index::var(var)}}), ranges);
      if (at != w->second) return false;
    }
  }
  return true;
}

// The loop that asks for the next row: the last, or where loops after the first compute
// transcendentals, the latest of those computing the most of them, so that the memory streams
// the next row while the longest pass runs (a softmax's exp pass, not its division).
std::size_t prefetch_host(const KernelContext& c) {
  std::size_t host = c.k.loop_groups.size() - 1;
  std::size_t most = 0;
  for (std::size_t gi = 1; gi < c.k.loop_groups.size(); ++gi) {
    if (c.k.loop_groups[gi].reduction) continue;
    std::size_t expensive = 0;
    for (int idx : c.k.loop_groups[gi].nodes)
      for (const ir::Expr& e : ir::topo_order(c.buffer_of(idx).body)) expensive += ir::is_expensive(e.op()) ? 1 : 0;
    if (expensive > 0 && expensive >= most) {
      most = expensive;
      host = gi;
    }
  }
  return host;
}

// A kernel over rows reads each row from memory in its first loop, then works on it in the
// cache; during the host loop, the row the thread takes next is fetched into L2. The addresses:
// the first loop's contiguous reads of large operands at the next row.
std::vector<Prefetch> next_row_prefetches(const KernelContext& c, Var var, const LoopGroup& g) {
  std::vector<Prefetch> out;
  const std::size_t depth = c.depth();
  const LoopGroup& first = c.k.loop_groups.front();
  if (depth == 0 || c.k.loop_groups.size() < 2 || g.inner.size() != 1) return out;
  // The first group's one loop: a reduction's (a reduction over dims of size 1 has none, and
  // may keep an inner loop instead) or a pointwise group's.
  if (first.reduction ? first.reduce.size() != 1 || !first.inner.empty() : first.inner.size() != 1 || !first.reduce.empty())
    return out;
  const Var row = ir::xvar(static_cast<int32_t>(depth - 1));
  const Var along = first.reduction ? ir::rvar(0) : ir::xvar(static_cast<int32_t>(depth));
  if ((first.reduction ? first.reduce.back() : first.inner.back()) != g.inner.back()) return out;
  for (int idx : first.nodes) {
    const scheduler::KernelNode& node = c.node(idx);
    for (const ir::LoadRef& l : ir::collect_loads(c.p[node.buffer].body)) {
      if (l.masked || !c.in_memory(l.buffer) || bytes_of(c.p[l.buffer]) < kPrefetchMinBytes) continue;
      const Index at = kernel_index(node, l.index);
      const std::optional<int64_t> stride = ir::lane_stride(at, row);
      if (ir::lane_stride(at, along) != std::optional<int64_t>(1) || !stride || *stride == 0) continue;
      add_prefetch(out, l.buffer, ir::simplify(ir::substitute(at, {{along, Index::var(var)}}), node.loops.ranges()), *stride);
    }
  }
  return out;
}

// Whether a reduction's result is the same in any order of its elements: max and min (of the
// NaNs met, which one is returned may change), any, all, and integer sums and products, which
// wrap.
bool exact_in_any_order(const ir::Buffer& b) {
  switch (b.reduce_op) {
    case ir::ReduceOp::Max:
    case ir::ReduceOp::Min:
    case ir::ReduceOp::Any:
    case ir::ReduceOp::All: return true;
    case ir::ReduceOp::Sum:
    case ir::ReduceOp::Prod: return !is_floating(b.dtype);
    default: return false;
  }
}

GroupPlan plan_reduction_group(const KernelContext& c, int gi) {
  const LoopGroup& g = c.k.loop_groups[static_cast<std::size_t>(gi)];
  GroupPlan gp;
  gp.group = gi;
  if (g.reduce.empty()) {
    gp.reason = "no reduction loop";
    return gp;
  }
  gp.var = ir::rvar(static_cast<int32_t>(g.reduce.size() - 1));
  gp.trip = g.reduce.back();
  const std::string why = why_not_vector(c, g.nodes, gp.var, gp.trip);
  bool accumulators = true;
  for (int idx : g.nodes) accumulators = accumulators && has_vector_accumulator(c.buffer_of(idx));
  gp.vector = why.empty() && accumulators;
  gp.reason = gp.vector ? "W lane accumulators per node along " + ir::var_name(gp.var) + ", combined after the loop (Proposition 8.1)"
              : !why.empty() ? "scalar: " + why
                             : "scalar: a reduction without a vector accumulator";
  const bool any_order = std::all_of(g.nodes.begin(), g.nodes.end(), [&](int idx) { return exact_in_any_order(c.buffer_of(idx)); });
  if (gp.vector && gp.trip >= kChainMinTrip && any_order) {
    gp.chains = kChains;
    gp.reason += ", in " + std::to_string(kChains) + " independent chains (exact in any order; one chain waits on each step)";
  }
  return gp;
}

}  // namespace

void plan_row_groups(const KernelContext& c, KernelPlan& kp) {
  const std::size_t depth = c.depth();
  const std::size_t host = prefetch_host(c);
  for (std::size_t gi = 0; gi < c.k.loop_groups.size(); ++gi) {
    const LoopGroup& g = c.k.loop_groups[gi];
    if (g.reduction) {
      kp.groups.push_back(plan_reduction_group(c, static_cast<int>(gi)));
      continue;
    }
    GroupPlan gp;
    gp.group = static_cast<int>(gi);
    if (g.inner.empty()) {
      gp.reason = "no inner loop: one element per outer iteration";
      kp.groups.push_back(gp);
      continue;
    }
    gp.var = ir::xvar(static_cast<int32_t>(depth + g.inner.size() - 1));
    gp.trip = g.inner.back();
    const std::string why = why_not_vector(c, g.nodes, gp.var, gp.trip);
    gp.vector = why.empty();
    gp.reason = gp.vector ? "vector along " + ir::var_name(gp.var) : "scalar: " + why;
    if (gp.vector) {
      gp.absorbs_next = gi + 1 < c.k.loop_groups.size() && absorbs(c, g, c.k.loop_groups[gi + 1], gp.var);
      if (gp.absorbs_next) gp.reason += "; the next group's reduction runs inside this loop (one pass over the row)";
      const bool hosts = gi == host || (gp.absorbs_next && gi + 1 == host);
      if (hosts) gp.prefetches = next_row_prefetches(c, gp.var, g);
      std::string stream_reason;
      gp.stream = stream_store(c, g.nodes, gp.var, stream_reason);
      if (gp.stream) gp.reason += "; " + stream_reason;
    }
    kp.groups.push_back(gp);
    if (gp.absorbs_next) {
      GroupPlan next = plan_reduction_group(c, static_cast<int>(gi + 1));
      next.reason = "computed inside the loop of group " + std::to_string(gi) + "; " + next.reason;
      kp.groups.push_back(next);
      ++gi;
    }
  }
  const bool any_vector =
      std::any_of(kp.groups.begin(), kp.groups.end(), [](const GroupPlan& gp) { return gp.vector; });
  kp.form = any_vector ? Form::RowGroups : Form::Scalar;
  const std::string groups = std::to_string(c.k.loop_groups.size()) + " loop group" + (c.k.loop_groups.size() > 1 ? "s" : "");
  if (any_vector) {
    kp.form_reason = groups + " inside " + std::to_string(depth) + " outer loop" + (depth == 1 ? "" : "s") +
                     " (listing 7.1), vectorized where each can be";
  } else {
    const std::string why = !c.vector ? "the instruction set has no vector lanes" : kp.form_reason.empty() ? "no loop has a vector form" : kp.form_reason;
    kp.form_reason = groups + ", no loop vectorized: " + why;
  }
}

}  // namespace stax::kernelplan::detail

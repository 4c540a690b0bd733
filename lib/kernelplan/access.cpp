#include "stax/kernelplan/access.h"

#include <map>

#include "stax/ir/simplify.h"

namespace stax::kernelplan {

using ir::Index;
using ir::Var;
using scheduler::Kernel;
using scheduler::KernelNode;

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t s : v) p *= s;
  return p;
}

Index kernel_index(const KernelNode& n, const Index& e) {
  return ir::simplify(ir::substitute(e, n.loops.reindex), n.loops.ranges());
}

Index without_vars(const Index& e, const std::vector<Var>& vars, const ir::VarRanges& ranges) {
  std::map<Var, Index> zero;
  for (Var v : vars) zero[v] = Index::constant(0);
  return ir::simplify(ir::substitute(e, zero), ranges);
}

namespace {

std::vector<Var> outer_vars(const Kernel& k) {
  std::vector<Var> vs;
  for (std::size_t i = 0; i < k.outer.size(); ++i) vs.push_back(ir::xvar(static_cast<int32_t>(i)));
  return vs;
}

// The variables of node n's loops inside the outer ones (its group's inner and reduction loops).
std::vector<Var> inside_vars(const Kernel& k, const KernelNode& n) {
  std::vector<Var> vs;
  for (std::size_t i = k.outer.size(); i < n.loops.x.size(); ++i) vs.push_back(ir::xvar(static_cast<int32_t>(i)));
  for (std::size_t i = 0; i < n.loops.r.size(); ++i) vs.push_back(ir::rvar(static_cast<int32_t>(i)));
  return vs;
}

}  // namespace

Index slab_start(const Kernel& k, const KernelNode& n) {
  std::vector<Index> xs;
  for (std::size_t i = 0; i < k.outer.size(); ++i) xs.push_back(Index::var(ir::xvar(static_cast<int32_t>(i))));
  const scheduler::LoopGroup& g = k.loop_groups[static_cast<std::size_t>(n.loop_group)];
  return ir::simplify(ir::flat_index(xs, k.outer) * product(g.inner), n.loops.ranges());
}

std::optional<Index> row_part(const Kernel& k, const KernelNode& n, const Index& e, const Index& slab) {
  const ir::VarRanges ranges = n.loops.ranges();
  if (without_vars(e, inside_vars(k, n), ranges) != slab) return std::nullopt;
  Index part = without_vars(e, outer_vars(k), ranges);
  if (ir::simplify(slab + part, ranges) != e) return std::nullopt;
  return part;
}

bool is_whole_nest(const Kernel& k) {
  for (const scheduler::LoopGroup& g : k.loop_groups)
    if (g.reduction || !g.inner.empty()) return false;
  return true;
}

Index reduction_position(const ir::Buffer& b) {
  std::vector<Index> rs;
  for (Var r : b.reduce_vars()) rs.push_back(Index::var(r));
  return ir::flat_index(rs, b.reduce_ranges);
}

}  // namespace stax::kernelplan

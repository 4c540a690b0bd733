// Scheduler nodes: dependencies recorded from the bodies (§7.1), iteration groups and loops.
#include "stax/scheduler/nodes.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "stax/support/error.h"

namespace stax::scheduler {

namespace {

using ir::Buffer;
using ir::BufferId;
using ir::Expr;
using ir::Index;
using ir::Var;

// Merges the loops `vars` over `indices` and renames the merged variables c_k to `kind`_k.
// Returns the new extents; adds each old variable's expression to `reindex`.
std::vector<int64_t> merge_part(const std::vector<Var>& vars, ir::VarKind kind, const ir::VarRanges& ranges,
                                const std::vector<Index>& indices, std::map<Var, Index>& reindex) {
  if (vars.empty()) return {};
  const ir::MergedLoops m = ir::merge_loops(vars, ranges, indices);
  std::map<Var, Index> rename;
  for (std::size_t i = 0; i < m.sizes.size(); ++i)
    rename[ir::cvar(static_cast<int32_t>(i))] = Index::var(kind, static_cast<int32_t>(i));
  for (std::size_t k = 0; k < vars.size(); ++k) reindex[vars[k]] = ir::substitute(m.reindex[k], rename);
  return m.sizes;
}

// The loops of a Pointwise or Reduction buffer after merging contiguous dimensions over every
// index of its body and its write: the pointwise loops first (reduction variables left free),
// then the reduction loops over the merged pointwise ones.
NodeLoops plan_loops(const Buffer& b, const std::vector<Index>& indices) {
  NodeLoops loops;
  const ir::VarRanges original = b.ranges();
  std::map<Var, Index> sx;
  loops.x = merge_part(b.output_vars(), ir::VarKind::X, original, indices, sx);
  ir::VarRanges mid;
  for (std::size_t i = 0; i < loops.x.size(); ++i) mid[ir::xvar(static_cast<int32_t>(i))] = loops.x[i];
  for (Var r : b.reduce_vars()) mid[r] = original.at(r);
  std::vector<Index> mid_indices;
  for (const Index& e : indices) mid_indices.push_back(ir::simplify(ir::substitute(e, sx), mid));
  std::map<Var, Index> sr;
  loops.r = merge_part(b.reduce_vars(), ir::VarKind::R, mid, mid_indices, sr);
  for (const auto& [v, e] : sx) loops.reindex[v] = e;
  for (const auto& [v, e] : sr) loops.reindex[v] = e;
  return loops;
}

// Every index of a body (loads and index values), in topo order, then the write.
std::vector<Index> body_indices(const Buffer& b) {
  std::vector<Index> out;
  for (const Expr& e : ir::topo_order(b.body))
    if (e.op() == ir::ExprOp::Load || e.op() == ir::ExprOp::IndexValue || e.op() == ir::ExprOp::IndirectLoad)
      out.push_back(e.index());
  out.push_back(b.write_index());
  return out;
}

void add_unique(std::vector<Dep>& deps, Dep d) {
  if (std::find(deps.begin(), deps.end(), d) == deps.end()) deps.push_back(std::move(d));
}

Dep memory_dep(BufferId buffer, const Index& index, const Buffer& reader) {
  std::vector<Var> loop_vars = reader.loop_vars();
  return Dep{DepKind::Memory, buffer, ir::canonicalize_access(index, loop_vars, reader.ranges())};
}

Dep star_dep(BufferId buffer) { return Dep{DepKind::Star, buffer, {}}; }

std::string list_text(const std::vector<Dep>& deps, const ir::Program& p) {
  std::string s = "[";
  for (std::size_t i = 0; i < deps.size(); ++i) s += (i ? ", " : "") + to_string(deps[i], p);
  return s + "]";
}

}  // namespace

int64_t Dep::numel() const {
  if (kind != DepKind::Memory) return -1;
  int64_t n = 1;
  for (int64_t s : access.sizes) n *= s;
  return n;
}

std::strong_ordering Dep::operator<=>(const Dep& o) const {
  if (auto c = buffer <=> o.buffer; c != 0) return c;
  if (auto c = kind <=> o.kind; c != 0) return c;
  if (auto c = access.index <=> o.access.index; c != 0) return c;
  return access.sizes <=> o.access.sizes;
}

std::string to_string(const Dep& d, const ir::Program& p) {
  const std::string name = "'" + p[d.buffer].name + "'";
  switch (d.kind) {
    case DepKind::Memory: {
      std::ostringstream os;
      os << "MemoryDep(" << name << ", " << ir::to_string(d.access.index) << ", {";
      for (std::size_t k = 0; k < d.access.sizes.size(); ++k)
        os << (k ? ", " : "") << "c" << k << ": " << d.access.sizes[k];
      os << "})";
      return os.str();
    }
    case DepKind::Star: return "StarDep(" + name + ")";
    case DepKind::Weak: return "WeakDep(" + name + ")";
  }
  return "?";
}

uint64_t dep_bytes(const Dep& d, const ir::Program& p) {
  const Buffer& b = p[d.buffer];
  const auto whole = static_cast<uint64_t>(b.numel());
  const uint64_t n = d.kind == DepKind::Memory ? std::min(whole, static_cast<uint64_t>(d.numel())) : whole;
  return n * dtype_size(b.dtype);
}

std::string tuple_text(const std::vector<int64_t>& sizes) {
  std::string s = "(";
  for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  if (sizes.size() == 1) s += ",";
  return s + ")";
}

std::string to_string(const IterationGroup& g) { return "(" + tuple_text(g.n) + ", " + tuple_text(g.r) + ")"; }

std::string_view node_kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::Pointwise: return "pointwise";
    case NodeKind::Reduction: return "reduction";
    case NodeKind::Scan: return "scan";
    case NodeKind::Extern: return "extern";
  }
  return "?";
}

ir::VarRanges NodeLoops::ranges() const {
  ir::VarRanges r;
  for (std::size_t k = 0; k < x.size(); ++k) r[ir::xvar(static_cast<int32_t>(k))] = x[k];
  for (std::size_t k = 0; k < this->r.size(); ++k) r[ir::rvar(static_cast<int32_t>(k))] = this->r[k];
  return r;
}

bool body_may_fail(const Expr& body) { return ir::may_fail(body); }

std::vector<SchedulerNode> build_nodes(const ir::Program& p) {
  std::set<BufferId> outputs;
  for (const ir::ProgramOutput& o : p.outputs) outputs.insert(o.buffer);
  std::vector<SchedulerNode> nodes;
  int k = 0;
  for (const Buffer& b : p.buffers) {
    if (!b.is_computed()) continue;
    SchedulerNode n;
    n.id = static_cast<int>(nodes.size());
    n.name = "op" + std::to_string(k++);
    n.buffer = b.id;
    n.origins = b.origins;
    n.is_output = outputs.count(b.id) > 0;
    switch (b.kind) {
      case ir::BufferKind::Pointwise:
      case ir::BufferKind::Reduction:
      case ir::BufferKind::Scan: {
        n.kind = b.kind == ir::BufferKind::Pointwise   ? NodeKind::Pointwise
                 : b.kind == ir::BufferKind::Reduction ? NodeKind::Reduction
                                                       : NodeKind::Scan;
        for (const ir::LoadRef& l : ir::collect_loads(b.body)) {
          if (l.indirect) {  // which elements depends on data: the whole buffer (§6.7's StarDep)
            add_unique(n.reads, star_dep(l.buffer));
            continue;
          }
          n.loads.push_back(Access{l.buffer, l.index});
          add_unique(n.reads, memory_dep(l.buffer, l.index, b));
        }
        n.writes.push_back(memory_dep(b.id, b.write_index(), b));
        n.may_fail = body_may_fail(b.body);
        if (n.kind == NodeKind::Scan) {
          for (std::size_t d = 0; d < b.shape.size(); ++d)
            if (static_cast<int>(d) != b.scan_dim && b.shape[d] > 1) n.group.n.push_back(b.shape[d]);
          n.group.r.push_back(b.shape.at(static_cast<std::size_t>(b.scan_dim)));
          break;
        }
        n.loops = plan_loops(b, body_indices(b));
        n.group = IterationGroup{n.loops.x, n.loops.r};
        break;
      }
      case ir::BufferKind::Extern:
        n.kind = NodeKind::Extern;
        for (ir::BufferId r : ir::extern_operands(b)) add_unique(n.reads, star_dep(r));
        n.writes.push_back(star_dep(b.id));
        break;
      case ir::BufferKind::Input:
      case ir::BufferKind::Constant: break;
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

SchedulerGraph build_graph(const ir::Program& p, std::vector<SchedulerNode> nodes) {
  const std::size_t n = nodes.size();
  std::vector<int> writer(p.buffers.size(), -1);
  for (const SchedulerNode& node : nodes) writer[static_cast<std::size_t>(node.buffer)] = node.id;
  // Edges writer(buffer) -> reader, for every dependency (Definition 7.1: a -> b).
  std::vector<std::vector<int>> preds(n), users(n);
  for (const SchedulerNode& node : nodes) {
    std::set<int> ps;
    for (const Dep& d : node.reads) {
      const int w = writer[static_cast<std::size_t>(d.buffer)];
      if (w >= 0 && w != node.id) ps.insert(w);
    }
    preds[static_cast<std::size_t>(node.id)].assign(ps.begin(), ps.end());
    for (int w : ps) users[static_cast<std::size_t>(w)].push_back(node.id);
  }

  // Step 2a: topological order, the earliest ready node (program order) first.
  std::vector<int> indegree(n, 0), order;
  for (std::size_t v = 0; v < n; ++v) indegree[v] = static_cast<int>(preds[v].size());
  std::set<int> ready;
  for (std::size_t v = 0; v < n; ++v)
    if (indegree[v] == 0) ready.insert(static_cast<int>(v));
  while (!ready.empty()) {
    const int v = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(v);
    for (int u : users[static_cast<std::size_t>(v)])
      if (--indegree[static_cast<std::size_t>(u)] == 0) ready.insert(u);
  }
  STAX_ASSERT(order.size() == n, "the dependencies of the scheduler nodes form a cycle");

  // Step 2b: dead nodes (no live reader, no graph output, no possible failure), in reverse order.
  std::vector<bool> live(n, false);
  for (std::size_t k = n; k-- > 0;) {
    const int v = order[k];
    const SchedulerNode& node = nodes[static_cast<std::size_t>(v)];
    bool used = false;
    for (int u : users[static_cast<std::size_t>(v)]) used = used || live[static_cast<std::size_t>(u)];
    live[static_cast<std::size_t>(v)] = node.is_output || node.may_fail || used;
  }

  SchedulerGraph g;
  std::vector<int> new_id(n, -1);
  for (int v : order) {
    if (!live[static_cast<std::size_t>(v)]) continue;
    new_id[static_cast<std::size_t>(v)] = static_cast<int>(g.nodes.size());
    g.nodes.push_back(nodes[static_cast<std::size_t>(v)]);
  }
  for (const SchedulerNode& node : nodes)
    if (!live[static_cast<std::size_t>(node.id)]) g.dead.push_back(node.name);
  g.writer.assign(p.buffers.size(), -1);
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    SchedulerNode& node = g.nodes[k];
    const int old = node.id;
    node.id = static_cast<int>(k);
    node.preds.clear();
    node.users.clear();
    for (int w : preds[static_cast<std::size_t>(old)]) node.preds.push_back(new_id[static_cast<std::size_t>(w)]);
    for (int u : users[static_cast<std::size_t>(old)])
      if (live[static_cast<std::size_t>(u)]) node.users.push_back(new_id[static_cast<std::size_t>(u)]);
    std::sort(node.preds.begin(), node.preds.end());
    std::sort(node.users.begin(), node.users.end());
    g.writer[static_cast<std::size_t>(node.buffer)] = node.id;
  }

  return g;
}

bool SchedulerGraph::is_ancestor(int a, int v) const {
  if (a >= v) return false;
  std::vector<bool> seen(static_cast<std::size_t>(v - a), false);  // ids a+1 .. v
  std::vector<int> stack{v};
  while (!stack.empty()) {
    const int x = stack.back();
    stack.pop_back();
    for (int p : nodes[static_cast<std::size_t>(x)].preds) {
      if (p == a) return true;
      if (p < a || seen[static_cast<std::size_t>(p - a - 1)]) continue;
      seen[static_cast<std::size_t>(p - a - 1)] = true;
      stack.push_back(p);
    }
  }
  return false;
}

std::string describe_node(const SchedulerNode& n, const ir::Program& p) {
  const Buffer& b = p[n.buffer];
  std::string what(node_kind_name(n.kind));
  if (n.kind == NodeKind::Reduction) what += " " + std::string(ir::reduce_op_name(b.reduce_op));
  if (n.kind == NodeKind::Scan) what = std::string(ir::scan_op_name(b.scan_op));
  if (n.kind == NodeKind::Extern) what = std::string(ir::extern_op_name(b.extern_op));
  std::string origins;
  for (std::size_t i = 0; i < n.origins.size(); ++i) origins += (i ? ", " : "") + n.origins[i];
  std::string s = n.name + ": " +
                  (n.kind == NodeKind::Extern ? "ExternKernelSchedulerNode(ExternKernelOut)" : "SchedulerNode(ComputedBuffer)") +
                  "  # " + b.name + ", " + what + (origins.empty() ? "" : ": " + origins) + "\n";
  std::vector<Dep> unmet, met;
  for (const Dep& d : n.reads) {
    const ir::BufferKind k = p[d.buffer].kind;
    (k == ir::BufferKind::Input || k == ir::BufferKind::Constant ? met : unmet).push_back(d);
  }
  s += n.name + ".writes = " + list_text(n.writes, p) + "\n";
  if (!unmet.empty()) s += n.name + ".unmet_dependencies = " + list_text(unmet, p) + "\n";
  if (!met.empty()) s += n.name + ".met_dependencies = " + list_text(met, p) + "\n";
  s += n.name + ".group.iteration = " + to_string(n.group) + "\n";
  return s;
}

}  // namespace stax::scheduler

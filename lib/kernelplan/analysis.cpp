#include "analysis.h"

#include <algorithm>

#include "stax/ir/simplify.h"

namespace stax::kernelplan::detail {

using ir::Index;
using ir::Var;

int64_t bytes_of(const ir::Buffer& b) { return b.numel() * static_cast<int64_t>(dtype_size(b.dtype)); }

namespace {

// A load's index along the vector loop: a transposed read staged through a tile reads the tile
// contiguously.
Index as_read(const Index& at, const std::vector<Tile>& tiles, Var var) {
  for (const Tile& t : tiles)
    if (t.at == at) return Index::var(var);
  return at;
}

std::string why_not_node(const KernelContext& c, int idx, Var var, const std::vector<Tile>& tiles, bool even) {
  const scheduler::KernelNode& n = c.node(idx);
  const ir::Buffer& b = c.p[n.buffer];
  for (const ir::Expr& e : ir::topo_order(b.body)) {
    if (e.op() == ir::ExprOp::IndirectLoad)
      return "the indexed load of " + c.p[e.buffer()].name + " (embedding, index_select, gather) has no vector form";
    if (e.op() != ir::ExprOp::Load) continue;
    const Index at = kernel_index(n, e.index());
    const std::optional<int64_t> stride = ir::lane_stride(as_read(at, tiles, var), var);
    if (stride && (*stride == 0 || *stride == 1)) continue;
    if (even && stride == std::optional<int64_t>(2) && e.dtype() != DType::Bool && c.in_memory(e.buffer())) continue;
    const std::string what = "load of " + c.p[e.buffer()].name + "[" + ir::to_string(at) + "]";
    if (!stride) return what + " is not linear in " + ir::var_name(var);
    return what + " steps by " + std::to_string(*stride) + " in " + ir::var_name(var);
  }
  if (b.kind != ir::BufferKind::Pointwise) return "";
  if (!c.in_memory(n.buffer) && c.locals.where[static_cast<std::size_t>(n.buffer)] == Locality::Register) return "";
  const Index written = kernel_index(n, b.write_index());
  if (ir::lane_stride(written, var) != std::optional<int64_t>(1))
    return "store of " + b.name + "[" + ir::to_string(written) + "] is not contiguous in " + ir::var_name(var);
  return "";
}

}  // namespace

bool flat_positions(const KernelContext& c, int idx) {
  const scheduler::KernelNode& n = c.node(idx);
  const ir::Buffer& b = c.p[n.buffer];
  if (c.k.outer.size() != 4) return false;
  const int64_t ow = c.k.outer[3];
  const Var x2 = ir::xvar(2), x3 = ir::xvar(3);
  const auto flat = [&](const Index& at) {
    const std::optional<int64_t> row = ir::lane_stride(at, x2), col = ir::lane_stride(at, x3);
    return row && col && *row == ow * *col;
  };
  if (!flat(kernel_index(n, b.write_index()))) return false;
  for (const ir::Expr& e : ir::topo_order(b.body)) {
    if (e.op() == ir::ExprOp::IndirectLoad) return false;
    if ((e.op() == ir::ExprOp::Load || e.op() == ir::ExprOp::IndexValue) && !flat(kernel_index(n, e.index())))
      return false;
  }
  return true;
}

std::string why_not_vector(const KernelContext& c, const std::vector<int>& nodes, Var var, int64_t trip,
                           const std::vector<Tile>& tiles, bool even) {
  if (!c.vector) return "the instruction set has no vector lanes";
  if (trip < kMinVectorTrip)
    return ir::var_name(var) + " runs " + std::to_string(trip) + " times, fewer than " + std::to_string(kMinVectorTrip);
  for (int idx : nodes) {
    const std::string why = why_not_node(c, idx, var, tiles, even);
    if (!why.empty()) return why;
  }
  return "";
}

bool has_vector_accumulator(const ir::Buffer& b) {
  switch (b.reduce_op) {
    case ir::ReduceOp::Any:
    case ir::ReduceOp::All:
    case ir::ReduceOp::ArgMax:
    case ir::ReduceOp::ArgMin: return true;
    case ir::ReduceOp::Sum:
    case ir::ReduceOp::Prod:
    case ir::ReduceOp::Max:
    case ir::ReduceOp::Min: return b.dtype == b.body.dtype() && b.dtype != DType::Bool;
  }
  return false;
}

namespace {

// The one node of `nodes` that stores to memory, or nullptr (none, or several).
const scheduler::KernelNode* only_store(const KernelContext& c, const std::vector<int>& nodes, int& stores) {
  const scheduler::KernelNode* stored = nullptr;
  stores = 0;
  for (int idx : nodes) {
    if (!c.in_memory(c.node(idx).buffer)) continue;
    ++stores;
    stored = &c.node(idx);
  }
  return stores == 1 ? stored : nullptr;
}

bool read_later(const KernelContext& c, const scheduler::KernelNode& stored) {
  for (const scheduler::KernelNode& n : c.k.nodes)
    if (n.loop_group > stored.loop_group && c.p[n.buffer].body)
      for (const ir::LoadRef& l : ir::collect_loads(c.p[n.buffer].body))
        if (l.buffer == stored.buffer) return true;
  return false;
}

}  // namespace

std::optional<Stream> stream_store(const KernelContext& c, const std::vector<int>& nodes, Var var, std::string& reason) {
  int stores = 0;
  const scheduler::KernelNode* stored = only_store(c, nodes, stores);
  if (stored == nullptr) {
    reason = "not streamed: the loop stores " + std::to_string(stores) + " buffers to memory, not one";
    return std::nullopt;
  }
  const ir::Buffer& b = c.p[stored->buffer];
  if (b.dtype == DType::Bool || bytes_of(b) < kStreamMinBytes) {
    reason = "not streamed: " + b.name + " is " + (b.dtype == DType::Bool ? "bool" : std::to_string(bytes_of(b)) + " bytes, below 16 MiB");
    return std::nullopt;
  }
  if (std::find(c.k.internal.begin(), c.k.internal.end(), stored->buffer) != c.k.internal.end() || read_later(c, *stored)) {
    reason = "not streamed: " + b.name + " is read again in this kernel";
    return std::nullopt;
  }
  const Index written = kernel_index(*stored, b.write_index());
  const Index base = without_vars(written, {var}, stored->loops.ranges());
  if (ir::simplify(base + Index::var(var), stored->loops.ranges()) != written) {
    reason = "not streamed: " + b.name + " is not stored contiguously along " + ir::var_name(var);
    return std::nullopt;
  }
  reason = "streamed: " + b.name + " (" + std::to_string(bytes_of(b) >> 20) +
           " MiB >= 16 MiB) is stored contiguously and not read again here: plain stores would read every line first";
  return Stream{static_cast<int>(stored - c.k.nodes.data()), base};
}

void add_prefetch(std::vector<Prefetch>& list, BufferId buffer, const Index& at, int64_t stride) {
  for (const Prefetch& p : list)
    if (p.buffer == buffer && p.at == at && p.stride == stride) return;
  list.push_back({buffer, at, stride});
}

}  // namespace stax::kernelplan::detail

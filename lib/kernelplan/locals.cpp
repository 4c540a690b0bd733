// plan_locals: the computed buffers that never leave their kernel, so that memory planning gives
// them no memory (listing 7.1 keeps the row in L1; a reduction's result is a local).
#include <algorithm>

#include "stax/kernelplan/access.h"
#include "stax/kernelplan/plan.h"

namespace stax::kernelplan {

namespace {

using ir::Index;
using scheduler::Kernel;
using scheduler::KernelNode;
using scheduler::LoopGroup;

struct Reader {
  const KernelNode* node;
  Index index;  // on kernel variables
};

// Every load of `id` by the other nodes of the kernel, in node order; nullopt when one of them
// runs before the writer.
std::optional<std::vector<Reader>> readers_after(const ir::Program& p, const Kernel& k, const KernelNode& writer,
                                                 BufferId id) {
  std::vector<Reader> readers;
  bool seen_writer = false;
  for (const KernelNode& n : k.nodes) {
    if (&n == &writer) {
      seen_writer = true;
      continue;
    }
    if (!p[n.buffer].body) continue;
    for (const ir::LoadRef& l : ir::collect_loads(p[n.buffer].body)) {
      if (l.buffer != id) continue;
      if (!seen_writer) return std::nullopt;
      readers.push_back({&n, kernel_index(n, l.index)});
    }
  }
  return readers;
}

// Register: a pointwise value read later in its own group, or a reduction without inner loops
// read by later groups of the same outer iteration, always at the element written.
bool in_register(const ir::Program& p, const Kernel& k, const KernelNode& writer, const std::vector<Reader>& readers) {
  const LoopGroup& wg = k.loop_groups[static_cast<std::size_t>(writer.loop_group)];
  const bool reduction = p[writer.buffer].kind == ir::BufferKind::Reduction;
  if (reduction && !wg.inner.empty()) return false;
  const Index written = kernel_index(writer, p[writer.buffer].write_index());
  return std::all_of(readers.begin(), readers.end(), [&](const Reader& r) {
    const bool placed = reduction ? r.node->loop_group > writer.loop_group : r.node->loop_group == writer.loop_group;
    return placed && r.index == written;
  });
}

// Row: the outer iteration owns one slab of product(inner) elements, written whole by the
// writer's inner loops and read only there.
bool in_row(const ir::Program& p, const Kernel& k, const KernelNode& writer, const std::vector<Reader>& readers) {
  if (k.outer.empty()) return false;
  const ir::Buffer& b = p[writer.buffer];
  const int64_t row = product(k.loop_groups[static_cast<std::size_t>(writer.loop_group)].inner);
  if (row * static_cast<int64_t>(dtype_size(b.dtype)) > kMaxRowBytes || b.numel() != product(k.outer) * row) return false;
  const Index slab = slab_start(k, writer);
  if (!row_part(k, writer, kernel_index(writer, b.write_index()), slab)) return false;
  return std::all_of(readers.begin(), readers.end(),
                     [&](const Reader& r) { return row_part(k, *r.node, r.index, slab).has_value(); });
}

void plan_kernel_locals(const ir::Program& p, const Kernel& k, Locals& out) {
  for (BufferId id : k.internal) {
    const auto writer = std::find_if(k.nodes.begin(), k.nodes.end(), [id](const KernelNode& n) { return n.buffer == id; });
    if (writer == k.nodes.end()) continue;
    const std::size_t i = static_cast<std::size_t>(id);
    if (k.kind == scheduler::KernelKind::Epilogue && writer->kind == scheduler::NodeKind::Extern) {
      out.where[i] = Locality::Product;
      out.reason[i] = "the GEMM writes it into " + p[k.nodes.back().buffer].name +
                      ", whose epilogue rewrites each tile in place";
      continue;
    }
    const std::optional<std::vector<Reader>> readers = readers_after(p, k, *writer, id);
    out.reason[i] = "read only in its kernel, but not at the element computed nor within one outer iteration's "
                    "slab of at most 64 KiB";
    if (!readers) {
      out.reason[i] = "read in its kernel before it is computed";
      continue;
    }
    if (in_register(p, k, *writer, *readers)) {
      out.where[i] = Locality::Register;
      out.reason[i] = p[id].kind == ir::BufferKind::Reduction
                          ? "read by the later loop groups of the same outer iteration, at the element computed"
                          : "read later in its own loop group, at the element computed";
    } else if (in_row(p, k, *writer, *readers)) {
      out.where[i] = Locality::Row;
      const int64_t row = product(k.loop_groups[static_cast<std::size_t>(writer->loop_group)].inner);
      out.reason[i] = "read only in the outer iteration that computes it: one slab of " + std::to_string(row) +
                      " elements at a time";
    }
  }
}

}  // namespace

std::vector<bool> Locals::mask() const {
  std::vector<bool> m(where.size());
  for (std::size_t i = 0; i < where.size(); ++i) m[i] = where[i] != Locality::Memory;
  return m;
}

Locals plan_locals(const ir::Program& p, const scheduler::Schedule& s) {
  Locals out;
  out.where.assign(p.buffers.size(), Locality::Memory);
  out.reason.assign(p.buffers.size(), "");
  for (const Kernel& k : s.kernels)
    if (!k.loop_groups.empty()) plan_kernel_locals(p, k, out);
  return out;
}

}  // namespace stax::kernelplan

#include "stax/memory/from_program.h"

#include <algorithm>

namespace stax::memory {

namespace {

BufferRole role_of(const ir::Program& p, const ir::Buffer& b) {
  switch (b.kind) {
    case ir::BufferKind::Input: return BufferRole::Input;
    case ir::BufferKind::Constant: return BufferRole::Constant;
    case ir::BufferKind::Pointwise:
    case ir::BufferKind::Reduction:
    case ir::BufferKind::Scan:
    case ir::BufferKind::Extern: break;
  }
  const bool output = std::any_of(p.outputs.begin(), p.outputs.end(),
                                  [&b](const ir::ProgramOutput& o) { return o.buffer == b.id; });
  return output ? BufferRole::Output : BufferRole::Intermediate;
}

// Every load of `r` in `loads` is at `index` (an indexed load may read any element).
bool read_only_at(const std::vector<ir::LoadRef>& loads, ir::BufferId r, const ir::Index& index) {
  return std::all_of(loads.begin(), loads.end(),
                     [&](const ir::LoadRef& l) { return l.buffer != r || (!l.indirect && l.index == index); });
}

Step step_of(const ir::Program& p, const ir::Buffer& b) {
  Step s;
  s.name = b.name;
  s.defines.push_back(b.id);
  if (b.kind == ir::BufferKind::Extern) {
    s.reads = ir::extern_operands(b);
    return s;
  }
  const std::vector<ir::LoadRef> loads = ir::collect_loads(b.body);
  for (const ir::LoadRef& l : loads)
    if (std::find(s.reads.begin(), s.reads.end(), l.buffer) == s.reads.end()) s.reads.push_back(l.buffer);
  if (b.kind != ir::BufferKind::Pointwise) return s;
  const ir::Index write = b.write_index();
  for (ir::BufferId r : s.reads) {
    const ir::Buffer& rb = p[r];
    if (rb.dtype != b.dtype || rb.numel() != b.numel()) continue;
    if (read_only_at(loads, r, write)) s.inplace.push_back({r, b.id});
  }
  return s;
}

}  // namespace

MemoryProblem problem_from_program(const ir::Program& p) {
  MemoryProblem out;
  for (const ir::Buffer& b : p.buffers) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(b.numel()) * dtype_size(b.dtype);
    out.buffers.push_back({b.id, b.name, b.dtype, bytes, role_of(p, b)});
  }
  for (const ir::Buffer& b : p.buffers)
    if (b.is_computed()) out.steps.push_back(step_of(p, b));
  return out;
}

}  // namespace stax::memory

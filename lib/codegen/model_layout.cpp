#include "model_layout.h"

#include "stax/codegen/codegen.h"
#include "stax/codegen/mangle.h"
#include "stax/support/error.h"

namespace stax::codegen {

namespace {

std::size_t align_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

std::size_t buffer_bytes(const ir::Buffer& b) {
  return static_cast<std::size_t>(b.numel()) * dtype_size(b.dtype);
}

// Buffers read by some kernel (loads, matmul operands).
std::vector<bool> read_by_kernels(const ir::Program& p) {
  std::vector<bool> read(p.buffers.size(), false);
  for (const ir::Buffer& b : p.buffers) {
    if (b.kind == ir::BufferKind::Extern) {
      read[static_cast<std::size_t>(b.matmul.a.buffer)] = true;
      read[static_cast<std::size_t>(b.matmul.b.buffer)] = true;
    } else if (b.body) {
      for (const ir::LoadRef& l : ir::collect_loads(b.body)) read[static_cast<std::size_t>(l.buffer)] = true;
    }
  }
  return read;
}

}  // namespace

ModelLayout layout_model(const graph::Graph& g, const ir::Program& p, const std::string& model) {
  ModelLayout m;
  m.model = model;
  m.ns = "stax_" + model;
  NameTable table;
  m.run_fn = table.claim("run_model");
  m.workspace_const = table.claim("kWorkspaceSize");
  m.input_specs = table.claim("kInputSpecs");
  m.output_specs = table.claim("kOutputSpecs");
  for (std::size_t i = 0; i < g.inputs.size(); ++i) m.input_shapes.push_back(table.claim("kInputShape" + std::to_string(i)));
  for (std::size_t i = 0; i < g.outputs.size(); ++i) m.output_shapes.push_back(table.claim("kOutputShape" + std::to_string(i)));

  for (const ir::Buffer& b : p.buffers) m.names.push_back(table.claim(b.name));
  m.kernel_names.assign(p.buffers.size(), "");
  for (const ir::Buffer& b : p.buffers)
    if (b.is_computed()) m.kernel_names[static_cast<std::size_t>(b.id)] = table.claim("kernel_" + m.names[static_cast<std::size_t>(b.id)]);

  for (graph::ValueId id : g.inputs) m.inputs.push_back({g[id].name, g[id].dtype, g[id].shape});
  for (graph::ValueId id : g.outputs) m.outputs.push_back({g[id].name, g[id].dtype, g[id].shape});
  STAX_ASSERT(p.outputs.size() == g.outputs.size(), "program and graph disagree on the outputs");

  const std::vector<bool> read = read_by_kernels(p);
  m.places.assign(p.buffers.size(), BufferPlace{});
  for (const ir::Buffer& b : p.buffers) {
    BufferPlace& place = m.places[static_cast<std::size_t>(b.id)];
    if (b.kind == ir::BufferKind::Input) {
      place.storage = Storage::Input;
      place.input_index = b.input_index;
    } else if (b.kind == ir::BufferKind::Constant) {
      place.storage = Storage::Constant;
    }
  }
  // A computed buffer that is an output is written straight into the first output it serves;
  // the other outputs (repeats, inputs, constants) are copies.
  for (const ir::ProgramOutput& o : p.outputs) {
    BufferPlace& place = m.places[static_cast<std::size_t>(o.buffer)];
    if (p[o.buffer].is_computed() && place.storage == Storage::Unused) {
      place.storage = Storage::Output;
      place.output_index = o.index;
    } else {
      m.copies.push_back({o.index, o.buffer});
    }
  }
  std::size_t offset = 0;
  for (const ir::Buffer& b : p.buffers) {
    BufferPlace& place = m.places[static_cast<std::size_t>(b.id)];
    if (!b.is_computed() || place.storage != Storage::Unused) continue;
    place.storage = Storage::Workspace;
    place.offset = offset;
    offset = align_up(offset + buffer_bytes(b), kWorkspaceAlignment);
  }
  m.workspace_size = offset;
  for (std::size_t i = 0; i < read.size(); ++i) m.places[i].read = read[i];
  return m;
}

}  // namespace stax::codegen

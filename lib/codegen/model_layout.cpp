#include "model_layout.h"

#include "stax/codegen/codegen.h"
#include "stax/codegen/mangle.h"
#include "stax/support/error.h"

namespace stax::codegen {

namespace {

// A kernel's function name: its nodes ("kernel_op0_op1"), or the first and the last when there
// are many ("kernel_op0_to_op49"; the comment above the function lists them all).
std::string kernel_base_name(const scheduler::Kernel& k) {
  if (k.nodes.size() <= 3) return "kernel_" + k.name;
  return "kernel_" + k.nodes.front().name + "_to_" + k.nodes.back().name;
}

}  // namespace

ModelLayout layout_model(const graph::Graph& g, const ir::Program& p, const scheduler::Schedule& s,
                         const memory::MemoryPlan& plan, const std::vector<bool>& local,
                         const std::string& model, const IsaTarget& isa) {
  ModelLayout m;
  m.model = model;
  // No name of the runtime (stax_rt, stax_layout, stax_isa_<set>) ends in "_model", nor does any
  // C API function of any model (NAME_run, NAME_isa, ...), so this one clashes with none of them,
  // whatever the names of the models sharing a translation unit.
  m.ns = "stax_" + model + "_model";
  NameTable table;
  m.run_fn = table.claim("run_model");
  m.workspace_const = table.claim("kWorkspaceSize");
  m.input_specs = table.claim("kInputSpecs");
  m.output_specs = table.claim("kOutputSpecs");
  for (std::size_t i = 0; i < g.inputs.size(); ++i) m.input_shapes.push_back(table.claim("kInputShape" + std::to_string(i)));
  for (std::size_t i = 0; i < g.outputs.size(); ++i) m.output_shapes.push_back(table.claim("kOutputShape" + std::to_string(i)));
  if (isa.kind == IsaTarget::Kind::Dispatch) {
    for (Isa member : isa.members()) m.isa_namespaces.push_back(table.claim("isa_" + std::string(isa_record(member).name)));
    m.isa_table = table.claim("kIsas");
    m.isa_index_fn = table.claim("isa_index");
  }

  for (const ir::Buffer& b : p.buffers) m.names.push_back(table.claim(b.name));
  for (const scheduler::Kernel& k : s.kernels) m.kernel_names.push_back(table.claim(kernel_base_name(k)));

  for (graph::ValueId id : g.inputs) m.inputs.push_back({g[id].name, g[id].dtype, g[id].shape});
  for (graph::ValueId id : g.outputs) m.outputs.push_back({g[id].name, g[id].dtype, g[id].shape});
  STAX_ASSERT(p.outputs.size() == g.outputs.size(), "program and graph disagree on the outputs");

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
  for (std::size_t id = 0; id < local.size(); ++id)
    if (local[id]) m.places[id].storage = Storage::Local;
  for (const memory::BufferPlan& b : plan.buffers) {
    if (b.role != memory::BufferRole::Intermediate) continue;
    BufferPlace& place = m.places[static_cast<std::size_t>(b.id)];
    STAX_ASSERT(place.storage == Storage::Unused, "memory plan places a buffer that lives elsewhere: " + b.name);
    place.storage = Storage::Workspace;
    place.offset = static_cast<std::size_t>(b.offset);
  }
  m.workspace_size = static_cast<std::size_t>(plan.arena_size);
  return m;
}

}  // namespace stax::codegen

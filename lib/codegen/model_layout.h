// Where each buffer of a program lives during a call of the generated wrapper, and the
// identifiers the generated file uses. Intermediates sit at the offsets of the memory plan
// (§7.5's arena); values a fused kernel keeps in local variables have no memory at all.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "stax/graph/graph.h"
#include "stax/ir/program.h"
#include "stax/memory/plan.h"
#include "stax/scheduler/schedule.h"
#include "stax/support/isa.h"

namespace stax::codegen {

enum class Storage : unsigned char {
  Unused,     // a computed buffer not placed yet (never after layout_model)
  Input,      // the caller's inputs[input_index]
  Constant,   // a static array of the generated file
  Output,     // the caller's outputs[output_index], written by its kernel
  Workspace,  // offset `offset` of the workspace
  Local,      // a local variable of the kernel computing it (codegen's register_buffers)
};

struct BufferPlace {
  Storage storage = Storage::Unused;
  int input_index = -1;
  int output_index = -1;
  std::size_t offset = 0;
};

// An output that no kernel writes directly: a copy after the kernels ran.
struct OutputCopy {
  int output_index;
  ir::BufferId from;
};

// One entry of the C API's input or output table.
struct TensorInfo {
  std::string name;  // the graph value's name
  DType dtype;
  Shape shape;
};

struct ModelLayout {
  std::string model;                      // NAME
  std::string ns;                         // the model's namespace
  std::vector<std::string> names;         // identifier per buffer id
  std::vector<std::string> kernel_names;  // per kernel of the schedule
  std::vector<BufferPlace> places;        // per buffer id
  std::vector<OutputCopy> copies;
  std::vector<TensorInfo> inputs, outputs;
  std::size_t workspace_size = 0;
  // Identifiers of the wrapper's own globals (claimed before any value name).
  std::string run_fn, workspace_const, input_specs, output_specs;
  // --isa dispatch: the namespace of each instruction set's kernels (per IsaTarget::members,
  // narrowest first), the table of what each needs of the CPU, and the function that chooses.
  std::vector<std::string> isa_namespaces;
  std::string isa_table, isa_index_fn;
  // The body of NAME_isa(): the instruction set the code runs with.
  std::string isa_name_body;
  std::vector<std::string> input_shapes, output_shapes;
};

// `plan` is the memory plan of `s` without the buffers `local` marks; workspace_size is its arena.
ModelLayout layout_model(const graph::Graph& g, const ir::Program& p, const scheduler::Schedule& s,
                         const memory::MemoryPlan& plan, const std::vector<bool>& local,
                         const std::string& model, const IsaTarget& isa);

}  // namespace stax::codegen

// C++ code generation, the last stage (design.md, "CPU code" and "What the generated file looks
// like"): a lowered program, its schedule, memory plan and kernel plan -> one standalone .cpp (the
// prelude sections it uses, its small constants as static arrays, one kernel per computed buffer,
// the wrapper and the C API), the bytes of its large constants for the weights file beside it
// (FILE.cpp.weights, which the source assembles with .incbin) and, on request, a C header.
//
// The C API of a model NAME (the header documents each function):
//   int NAME_run(const void* const* inputs, void* const* outputs, void* workspace);
//   int NAME_run_checked(int num_inputs, const void* const* inputs, const stax_layout* input_layouts,
//                        int num_outputs, void* const* outputs, const stax_layout* output_layouts,
//                        void* workspace, char* message, size_t message_size);
//   size_t NAME_workspace_size(void);   const char* NAME_strerror(int code);
//   int NAME_num_inputs(void), NAME_num_outputs(void);
//   const char* NAME_input_name(int i); int NAME_input_dtype(int i); int NAME_input_ndim(int i);
//   const int64_t* NAME_input_shape(int i); and the same for outputs.
// Everything else in the file has internal linkage (an anonymous namespace, a namespace per
// model), so several generated files can be #included into one translation unit or linked into
// one program. No mutable global state: calls are reentrant.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "stax/support/isa.h"
#include "stax/graph/graph.h"
#include "stax/ir/program.h"
#include "stax/kernelplan/plan.h"
#include "stax/memory/plan.h"
#include "stax/scheduler/schedule.h"

namespace stax::codegen {


// Constants larger than this (in bytes) go into the weights file by default: 4096 float32s
// printed as literals are some 60 KB of source, which g++ parses in milliseconds.
constexpr std::size_t kDefaultWeightsThreshold = 16384;

// The weights file of a generated source FILE.cpp is FILE.cpp.weights: the source finds it by
// appending this to __FILE__.
constexpr const char* kWeightsSuffix = ".weights";

struct CodegenOptions {
  // The model's name, prefix of every C API symbol; empty: the graph's name. Must be a C
  // identifier that is no keyword and does not start with '_' (UserError otherwise).
  std::string name;
  // The instruction sets of the vector kernels (--isa, isa.h): the widest the compiler of the
  // generated file targets, one pinned set (reproducible output and benchmarks; the file then
  // fails to build, with a clear message, on a compiler that does not target it), or dispatch.
  IsaTarget isa;
  // Constants of more than this many bytes go into the weights file (GeneratedCode::weights),
  // the others are literal arrays of the source.
  std::size_t weights_threshold = kDefaultWeightsThreshold;
};

struct GeneratedCode {
  std::string name;         // the model name used
  std::string source;       // the .cpp
  std::string header;       // the .h (C and C++)
  // The weights file (FILE.cpp.weights beside the source): the large constants' raw
  // little-endian bytes; empty when every constant is literal (then there is no such file).
  std::string weights;
  std::size_t workspace_size = 0;  // bytes NAME_run needs as workspace (64-byte aligned)
};

// The workspace alignment every generated model asks for.
constexpr std::size_t kWorkspaceAlignment = 64;

// Needs (the pipeline of driver::compile_graph): `p` = lowering::lower(g); `s` its schedule;
// `locals` = kernelplan::plan_locals(p, s); `memory` planned without the locals; `plans` the
// kernel plans of opts.isa's instruction sets (one for native or a pinned set). Emits the kernels
// in the memory plan's order, the wrapper and the C API. Deterministic: the same arguments give
// the same bytes.
GeneratedCode emit(const graph::Graph& g, const ir::Program& p, const scheduler::Schedule& s,
                   const kernelplan::Locals& locals, const memory::MemoryPlan& memory,
                   const std::vector<kernelplan::ProgramPlan>& plans, const CodegenOptions& opts = {});

// UserError unless `name` can prefix C symbols (see CodegenOptions::name).
void check_model_name(const std::string& name);

}  // namespace stax::codegen

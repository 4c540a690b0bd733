#include "stax/driver/compile.h"

#include <algorithm>
#include <iostream>

#include "stax/driver/model.h"
#include "stax/driver/process.h"
#include "stax/graph/frontend.h"
#include "stax/ir/printer.h"
#include "stax/kernelplan/dump.h"
#include "stax/lowering/lower.h"
#include "stax/memory/dump.h"
#include "stax/memory/from_schedule.h"
#include "stax/memory/plan.h"
#include "stax/scheduler/dump.h"
#include "stax/support/error.h"

namespace stax::driver {

namespace {

bool logs(const CompileOptions& opts, const std::string& topic) {
  return std::find(opts.log.begin(), opts.log.end(), topic) != opts.log.end();
}

// The most memory generated code may ask for: 2^47 bytes (128 TiB), the user address space of
// x86-64 and AArch64 with 48-bit virtual addresses. Below it, every size and offset the memory
// plan computes fits in 64 bits with room to spare.
constexpr uint64_t kMaxAddressableBytes = uint64_t{1} << 47;

// A graph one of whose values, or whose computed values together (a bound of its workspace plus
// its outputs), could never be allocated is refused before anything is planned.
void check_addressable(const graph::Graph& g) {
  uint64_t computed = 0;
  for (const graph::Value& v : g.values) {
    const uint64_t bytes = static_cast<uint64_t>(v.numel()) * dtype_size(v.dtype);  // < 2^63 (front end)
    if (bytes > kMaxAddressableBytes)
      throw GraphError(v.path, v.anonymous ? "" : v.name, v.kind == graph::ValueKind::Node ? std::string(graph::op_name(v.op)) : "",
                       std::string(dtype_name(v.dtype)) + shape_str(v.shape) + " takes " + std::to_string(bytes) +
                           " bytes, more than the 2^47 (128 TiB) a 64-bit process can address");
    if (v.kind == graph::ValueKind::Node) computed = add_saturating(computed, bytes);
  }
  if (computed > kMaxAddressableBytes)
    throw GraphError("nodes", "", "", "the graph's computed values take " + std::to_string(computed) +
                                          " bytes in all, more than the 2^47 (128 TiB) a 64-bit process can address: "
                                          "its workspace could not be allocated");
}

}  // namespace

CompiledModel compile_graph(graph::Graph g, const CompileOptions& opts) {
  CompiledModel m;
  if (!opts.name.empty()) codegen::check_model_name(opts.name);  // before any file is written
  // Lowering needs primitives only; the graph as given stays what the interpreter evaluates.
  const graph::Graph primitive = graph::expand_composites(g);
  check_addressable(primitive);
  m.program = lowering::lower(primitive);
  if (!opts.dump_ir.empty()) write_file_atomic(opts.dump_ir, ir::dump_ir(m.program));
  // Scheduling and fusion (§7): which buffers share a kernel; --log fusion tells why.
  scheduler::FusionOptions fusion;
  fusion.fuse = opts.fuse;
  fusion.split_pointwise = !opts.chapter_rules;
  scheduler::LogOptions log;
  log.verbose = opts.verbose;
  if (logs(opts, "fusion"))
    log.sink = [](const std::string& line) { std::cerr << line << '\n'; };
  m.schedule = scheduler::schedule(m.program, fusion, log);
  if (!opts.dump_schedule.empty())
    write_file_atomic(opts.dump_schedule, scheduler::dump_schedule_json(m.schedule, m.program));
  // Values that never leave their kernel (registers, row-local arrays) need no memory.
  m.locals = kernelplan::plan_locals(m.program, m.schedule);
  // Memory (§7.5): the kernels' order, lifetimes, reuse and the workspace arena; --log memory
  // tells where it goes.
  m.memory = memory::plan_memory(memory::without_buffers(memory::problem_from_schedule(m.program, m.schedule), m.locals.mask()));
  if (!opts.dump_memory.empty()) write_file_atomic(opts.dump_memory, memory::dump_memory_json(m.memory));
  if (logs(opts, "memory")) std::cerr << memory::memory_summary(m.memory) << std::flush;
  // The kernel plan (§8): each kernel's form, residences, vector and parallel loops, streams and
  // prefetches, with reasons; one per instruction set the file holds.
  for (const IsaTarget& isa : opts.isa.planned())
    m.kernels.push_back(kernelplan::plan_kernels(m.program, m.schedule, m.locals, m.memory, isa));
  if (!opts.dump_kernel_plan.empty())
    write_file_atomic(opts.dump_kernel_plan, kernelplan::dump_kernel_plan_json(m.kernels, m.program, m.schedule));
  if (logs(opts, "kernels"))
    for (const kernelplan::ProgramPlan& plan : m.kernels) std::cerr << kernelplan::kernel_plan_log(plan, m.program) << std::flush;
  // Emission: the prelude, the kernels as planned, the wrapper and the C API.
  codegen::CodegenOptions cg;
  cg.name = opts.name;
  cg.isa = opts.isa;
  m.code = codegen::emit(primitive, m.program, m.schedule, m.locals, m.memory, m.kernels, cg);
  m.graph = std::move(g);
  return m;
}

CompiledModel compile_model(const std::filesystem::path& model, const CompileOptions& opts,
                            const ModelOptions& model_opts) {
  return compile_graph(load_model(model, model_opts), opts);
}

void write_generated(const codegen::GeneratedCode& code, const std::filesystem::path& source,
                     const std::filesystem::path& header) {
  if (!header.empty()) write_file_atomic(header, code.header);
  if (source == "-") {
    std::cout << code.source;
    std::cout.flush();
    return;
  }
  write_file_atomic(source, code.source);
}

}  // namespace stax::driver

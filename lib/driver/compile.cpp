#include "stax/driver/compile.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "stax/driver/model.h"
#include "stax/driver/process.h"
#include "stax/graph/frontend.h"
#include "stax/ir/printer.h"
#include "stax/kernelplan/dump.h"
#include "stax/lowering/fold.h"
#include "stax/lowering/lower.h"
#include "stax/memory/dump.h"
#include "stax/memory/from_schedule.h"
#include "stax/memory/plan.h"
#include "stax/scheduler/dump.h"
#include "stax/support/error.h"
#include "stax/viz/viz.h"

namespace stax::driver {

namespace {

bool logs(const CompileOptions& opts, const std::string& topic) {
  return std::find(opts.log.begin(), opts.log.end(), topic) != opts.log.end();
}

// Text of several lines logged line by line.
void log_lines(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) topic_logger().info("{}", line);
}

// The pictures and the Graphviz form, once the schedule and the memory plan exist.
void write_pictures(const CompiledModel& m, const CompileOptions& opts) {
  if (!opts.svg_schedule.empty()) write_file_atomic(opts.svg_schedule, viz::schedule_svg(m.program, m.schedule, m.memory));
  if (!opts.dot_schedule.empty()) write_file_atomic(opts.dot_schedule, viz::schedule_dot(m.program, m.schedule, m.memory));
  if (!opts.svg_memory.empty()) write_file_atomic(opts.svg_memory, viz::memory_svg(m.memory));
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

spdlog::logger& topic_logger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    std::shared_ptr<spdlog::logger> l = spdlog::get("staxc.topic");
    if (l) return l;
    l = std::make_shared<spdlog::logger>("staxc.topic", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    spdlog::initialize_logger(l);
    l->set_pattern("%v");
    return l;
  }();
  return *logger;
}

CompiledModel compile_graph(graph::Graph g, const CompileOptions& opts) {
  CompiledModel m;
  PassTimer* timer = opts.timer;
  if (!opts.name.empty()) codegen::check_model_name(opts.name);  // before any file is written
  // Lowering needs primitives only; the graph as given stays what the interpreter evaluates.
  // Batch norms after a convolution or linear layer fold into its weights first, and explicit
  // pads before a pool into its padding.
  const graph::Graph primitive = timed(timer, "expand composites", [&] {
    return graph::expand_composites(lowering::fold_pads_into_pools(lowering::fold_batch_norms(g)));
  });
  check_addressable(primitive);
  m.program = timed(timer, "lower", [&] { return lowering::lower(primitive); });
  spdlog::debug("lowered: {} buffers", m.program.buffers.size());
  if (!opts.dump_ir.empty()) write_file_atomic(opts.dump_ir, ir::dump_ir(m.program));
  // Scheduling and fusion (§7): which buffers share a kernel; --log fusion tells why.
  scheduler::FusionOptions fusion;
  fusion.fuse = opts.fuse;
  fusion.split_pointwise = !opts.chapter_rules;
  fusion.epilogues = !opts.chapter_rules;
  scheduler::LogOptions log;
  log.verbose = opts.verbose;
  if (logs(opts, "fusion"))
    log.sink = [](const std::string& line) { topic_logger().info("{}", line); };
  m.schedule = timed(timer, "schedule", [&] { return scheduler::schedule(m.program, fusion, log); });
  spdlog::debug("scheduled: {} kernels after {} fusions", m.schedule.kernels.size(), m.schedule.fusions.size());
  if (!opts.dump_schedule.empty())
    write_file_atomic(opts.dump_schedule, scheduler::dump_schedule_json(m.schedule, m.program));
  // Values that never leave their kernel (registers, row-local arrays) need no memory.
  m.locals = timed(timer, "plan locals", [&] { return kernelplan::plan_locals(m.program, m.schedule); });
  // Memory (§7.5): the kernels' order, lifetimes, reuse and the workspace arena; --log memory
  // tells where it goes.
  m.memory = timed(timer, "plan memory", [&] {
    return memory::plan_memory(memory::without_buffers(memory::problem_from_schedule(m.program, m.schedule), m.locals.mask()));
  });
  spdlog::debug("memory: M* {} bytes, arena {} bytes", m.memory.m_star, m.memory.arena_size);
  if (!opts.dump_memory.empty()) write_file_atomic(opts.dump_memory, memory::dump_memory_json(m.memory));
  if (logs(opts, "memory")) log_lines(memory::memory_summary(m.memory));
  if (!opts.svg_schedule.empty() || !opts.svg_memory.empty() || !opts.dot_schedule.empty())
    timed(timer, "draw", [&] { write_pictures(m, opts); });
  // The kernel plan (§8): each kernel's form, residences, vector and parallel loops, streams and
  // prefetches, with reasons; one per instruction set the file holds.
  timed(timer, "plan kernels", [&] {
    for (const IsaTarget& isa : opts.isa.planned())
      m.kernels.push_back(kernelplan::plan_kernels(m.program, m.schedule, m.locals, m.memory, isa));
  });
  if (!opts.dump_kernel_plan.empty())
    write_file_atomic(opts.dump_kernel_plan, kernelplan::dump_kernel_plan_json(m.kernels, m.program, m.schedule));
  if (logs(opts, "kernels"))
    for (const kernelplan::ProgramPlan& plan : m.kernels) log_lines(kernelplan::kernel_plan_log(plan, m.program));
  // Emission: the prelude, the kernels as planned, the wrapper and the C API.
  codegen::CodegenOptions cg;
  cg.name = opts.name;
  cg.isa = opts.isa;
  cg.weights_threshold = opts.weights_threshold;
  m.code = timed(timer, "emit", [&] { return codegen::emit(primitive, m.program, m.schedule, m.locals, m.memory, m.kernels, cg); });
  spdlog::debug("emitted: {} bytes of C++", m.code.source.size());
  m.graph = std::move(g);
  return m;
}

CompiledModel compile_model(const std::filesystem::path& model, const CompileOptions& opts,
                            const ModelOptions& model_opts, std::vector<std::filesystem::path>* files_read) {
  graph::Graph g = timed(opts.timer, "load", [&] { return load_model(model, model_opts, files_read); });
  spdlog::debug("loaded {}: {} values", model.string(), g.values.size());
  return compile_graph(std::move(g), opts);
}

std::filesystem::path weights_path(const std::filesystem::path& source) {
  std::filesystem::path w = source;
  w += codegen::kWeightsSuffix;
  return w;
}

void write_generated(const codegen::GeneratedCode& code, const std::filesystem::path& source,
                     const std::filesystem::path& header) {
  if (source == "-") {
    if (!code.weights.empty())
      throw UserError("the model has constants too large to print as literals (" + std::to_string(code.weights.size()) +
                      " bytes go into FILE.cpp" + codegen::kWeightsSuffix +
                      " beside the source): write the source to a file with -o FILE.cpp, or raise "
                      "--weights-threshold above the largest constant");
    if (!header.empty()) write_file_atomic(header, code.header);
    std::cout << code.source;
    std::cout.flush();
    return;
  }
  const std::filesystem::path weights = weights_path(source);
  std::vector<std::pair<std::filesystem::path, const std::string*>> files;
  if (!code.weights.empty()) files.emplace_back(weights, &code.weights);
  if (!header.empty()) files.emplace_back(header, &code.header);
  files.emplace_back(source, &code.source);
  write_files_atomic(files);
}

}  // namespace stax::driver

// `staxc compile`: a model file -> the generated .cpp (and header), through the whole pipeline
// (design.md, "Pipeline"): load and validate, expand composites, lower, schedule, plan memory,
// plan kernels, emit.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "stax/codegen/codegen.h"
#include "stax/driver/model.h"
#include "stax/driver/timing.h"
#include "stax/graph/graph.h"
#include "stax/ir/program.h"
#include "stax/kernelplan/plan.h"
#include "stax/memory/plan.h"
#include "stax/scheduler/schedule.h"

namespace spdlog {
class logger;
}

namespace stax::driver {

struct CompileOptions {
  std::string name;                 // --name: the model's symbol prefix (default: the graph's name)
  std::filesystem::path dump_ir;    // --dump-ir FILE: the lowered program as text (empty: none)
  bool fuse = true;                 // --no-fuse: every computed buffer is its own kernel
  // --fusion-rules chapter: the design chapter's CPU fusion rules as written (a pointwise kernel
  // is never split to join a reduction's rows: example 7.2 stores exp); default: it is.
  bool chapter_rules = false;
  std::filesystem::path dump_schedule;  // --dump-schedule FILE.json: the schedule (empty: none)
  std::filesystem::path dump_memory;    // --dump-memory FILE.json: the workspace plan (empty: none)
  std::filesystem::path dump_kernel_plan;  // --dump-kernel-plan FILE.json: the kernel plan (empty: none)
  // --log TOPIC: "fusion" prints the scheduler's log to stderr, "memory" the workspace plan's
  // summary (memory::memory_summary), "kernels" the kernel plan (kernelplan::kernel_plan_log).
  std::vector<std::string> log;
  bool verbose = false;             // -v: logs say more (fusion: every refusal and its reason)
  IsaTarget isa;  // --isa: the vector kernels' instruction sets
  // --weights-threshold: constants of more bytes go into the weights file beside the source.
  std::size_t weights_threshold = codegen::kDefaultWeightsThreshold;
  std::filesystem::path svg_schedule;  // --svg-schedule FILE.svg: the kernels as a picture (viz/viz.h)
  std::filesystem::path svg_memory;    // --svg-memory FILE.svg: the memory plan as a picture
  std::filesystem::path dot_schedule;  // --dot FILE.dot: the schedule in Graphviz's language
  PassTimer* timer = nullptr;          // --time-passes: each stage timed into it (none: not timed)
};

struct CompiledModel {
  graph::Graph graph;               // as loaded (what `interpret` evaluates)
  ir::Program program;              // lowered
  scheduler::Schedule schedule;     // kernels and fusion decisions
  kernelplan::Locals locals;        // values that never leave their kernel
  memory::MemoryPlan memory;        // the kernels' order and the workspace
  std::vector<kernelplan::ProgramPlan> kernels;  // the kernel plan, per instruction set of the file
  codegen::GeneratedCode code;
};

// The pipeline on a loaded graph, stage by stage (design.md, "Pipeline"): expand composites, lower,
// schedule and fuse, plan locals and memory, plan kernels, emit. Each dump is written (atomically)
// as soon as its stage is done, so it is there to read when a later stage fails.
CompiledModel compile_graph(graph::Graph g, const CompileOptions& opts = {});

// load_model + compile_graph; `files_read` (when given) receives every file the model was read
// from (load_model), for a depfile.
CompiledModel compile_model(const std::filesystem::path& model, const CompileOptions& opts = {},
                            const ModelOptions& model_opts = {},
                            std::vector<std::filesystem::path>* files_read = nullptr);

// The logger of the --log topics (fusion, memory, kernels): the lines as they are, on stderr,
// at level info (so --log-level warn silences them).
spdlog::logger& topic_logger();

// The weights file of the generated source `source`: `source` + ".weights" (codegen::kWeightsSuffix).
std::filesystem::path weights_path(const std::filesystem::path& source);

// Writes the .cpp, its weights file when it has one and, when `header` is not empty, the header:
// all of them or none (write_files_atomic). "-" as `source` writes the .cpp to stdout, which a
// model with a weights file cannot (UserError).
void write_generated(const codegen::GeneratedCode& code, const std::filesystem::path& source,
                     const std::filesystem::path& header);

}  // namespace stax::driver

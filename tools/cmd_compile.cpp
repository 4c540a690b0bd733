// staxc compile MODEL.json -o OUT.cpp [--header OUT.h]: the default command, the compiler itself.
#include "commands.h"

#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codegen_options.h"
#include "stax/driver/compile.h"
#include "stax/driver/outputs.h"
#include "stax/driver/timing.h"
#include "stax/support/error.h"

namespace stax::tools {

namespace {

struct CompileCommandOptions {
  ModelArgument model;
  std::string output;
  std::string header;
  std::string depfile;
  bool check = false;
  bool time_passes = false;
  GenerateOptions generate;
};

// --check writes nothing, so no option that writes a file goes with it.
void refuse_outputs_with_check(const CompileCommandOptions& opts) {
  const GenerateOptions& g = opts.generate;
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--depfile", &opts.depfile},          {"--dump-ir", &g.dump_ir},
      {"--dump-schedule", &g.dump_schedule}, {"--dump-memory", &g.dump_memory},
      {"--dump-kernel-plan", &g.dump_kernel_plan}, {"--svg-schedule", &g.svg_schedule},
      {"--svg-memory", &g.svg_memory},       {"--dot", &g.dot_schedule}};
  for (const auto& [flag, value] : outputs)
    if (!value->empty()) throw UserError(std::string("--check writes nothing: it does not go with ") + flag);
}

// --check: each stale file reported on stderr, then one error line (exit status 1).
void check_files(const codegen::GeneratedCode& code, const driver::OutputFiles& files) {
  std::vector<driver::StaleFile> stale = driver::check_outputs(code, files);
  if (stale.empty()) return;
  std::string names;
  for (const driver::StaleFile& f : stale) {
    std::cerr << f.report;
    names += (names.empty() ? "" : ", ") + f.path.string();
  }
  std::cerr.flush();
  throw UserError("--check: not what staxc writes: " + names + " (run the same command without --check to update)");
}

void run_compile(const CompileCommandOptions& opts) {
  if (opts.check) refuse_outputs_with_check(opts);
  driver::PassTimer timer;
  driver::CompileOptions compile = opts.generate.compile_options();
  if (opts.time_passes) compile.timer = &timer;
  std::vector<std::filesystem::path> inputs;
  driver::CompiledModel m = driver::compile_model(opts.model.path, compile, opts.model.options(), &inputs);
  const driver::OutputFiles files{opts.output, opts.header, opts.depfile};
  if (opts.check) {
    driver::timed(compile.timer, "check", [&] { check_files(m.code, files); });
  } else {
    driver::timed(compile.timer, "write", [&] { driver::write_outputs(m.code, files, inputs); });
  }
  if (opts.time_passes) driver::topic_logger().info("{}", timer.report(opts.model.path));
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto opts = std::make_shared<CompileCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compile", "Compile a graph to one standalone C++ file (the default command)");
  add_model_argument(*cmd, opts->model);
  cmd->add_option("-o,--output", opts->output,
                  "The generated C++ file ('-' for stdout, for a model without a weights file); large "
                  "constants go into OUT.cpp.weights beside it")
      ->type_name("OUT.cpp")
      ->required();
  cmd->add_option("--header", opts->header,
                  "Also write a C/C++ header declaring the model's C API, its workspace size and "
                  "alignment as compile-time constants")
      ->type_name("OUT.h");
  cmd->add_option("--depfile", opts->depfile,
                  "Also write a Make-style depfile: OUT.cpp (and OUT.h) depend on the model, every "
                  "constant or weights file it reads and the staxc binary (for CMake's DEPFILE, "
                  "Ninja's depfile, Make's -include)")
      ->type_name("FILE.d");
  cmd->add_flag("--check", opts->check,
                "Write nothing: exit 0 when OUT.cpp (and OUT.h with --header) already hold exactly what "
                "staxc would write, else print which file differs and its first differing lines, "
                "and exit 1 (a golden-file check for CI)");
  cmd->add_flag("--time-passes", opts->time_passes,
                "Print the CPU and wall time and the peak memory of each stage (load, lower, schedule, plan, "
                "emit, write) to stderr");
  add_generate_options(*cmd, opts->generate);
  cmd->footer(
      "The generated file includes only the standard library, <omp.h> and <sleef.h>. Build it\n"
      "with: g++ -std=c++17 -O3 -march=native -fopenmp -c OUT.cpp, and link -lsleef -fopenmp.\n"
      "Its C API, for a model NAME: NAME_run(inputs, outputs, workspace), NAME_run_checked(...),\n"
      "NAME_workspace_size(), NAME_strerror(code) and metadata (NAME_num_inputs, NAME_input_name,\n"
      "NAME_input_dtype, NAME_input_shape, ...); --header documents each. The same graph and\n"
      "options always give the same bytes. Constants of more than --weights-threshold bytes go\n"
      "into OUT.cpp.weights beside OUT.cpp, which the same command builds (.incbin finds it\n"
      "through __FILE__): keep the two files side by side. Files are written whole or not at all.\n"
      "\n"
      "Examples:\n"
      "  staxc samples/softmax.json -o softmax.cpp\n"
      "  staxc compile samples/softmax.json -o softmax.cpp --header softmax.h --name softmax\n"
      "  staxc compile model.json -o model.cpp --dump-ir model.ir.txt\n"
      "  staxc compile samples/mlp.json -o mlp.cpp --dump-memory mlp.memory.json --log memory\n"
      "  staxc samples/mlp.json -o mlp.cpp --header mlp.h --isa avx2 --check   # in CI\n"
      "  staxc model.onnx -o model.cpp --depfile model.d --time-passes\n"
      "  staxc samples/example_7_2.json -o e72.cpp --svg-schedule e72.schedule.svg --svg-memory e72.memory.svg");
  cmd->callback([opts] { run_compile(*opts); });
}

}  // namespace stax::tools

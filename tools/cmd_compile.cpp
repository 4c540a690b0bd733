// staxc compile MODEL.json -o OUT.cpp [--header OUT.h]: the default command, the compiler itself.
#include "commands.h"

#include <memory>
#include <string>

#include "codegen_options.h"
#include "stax/driver/compile.h"

namespace stax::tools {

namespace {

struct CompileCommandOptions {
  ModelArgument model;
  std::string output;
  std::string header;
  GenerateOptions generate;
};

void run_compile(const CompileCommandOptions& opts) {
  driver::CompiledModel m = driver::compile_model(opts.model.path, opts.generate.compile_options(), opts.model.options());
  driver::write_generated(m.code, opts.output, opts.header);
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
      "  staxc compile samples/mlp.json -o mlp.cpp --dump-memory mlp.memory.json --log memory");
  cmd->callback([opts] { run_compile(*opts); });
}

}  // namespace stax::tools

// staxc run MODEL.json --output-dir DIR: compile, build the generated code, run it, write .npy.
#include "commands.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "codegen_options.h"
#include "stax/driver/check.h"
#include "stax/driver/inputs.h"
#include "stax/driver/preview.h"

namespace stax::tools {

namespace {

struct RunOptions {
  ModelArgument model;
  InputOptions inputs;
  std::string output_dir;
  GenerateOptions generate;
  CompilerOptions compiler;
};

void run_run(const RunOptions& opts) {
  std::vector<driver::InputFile> given = input_files(opts.inputs);
  driver::CompiledModel m = driver::compile_model(opts.model.path, opts.generate.compile_options(), opts.model.options());
  // Inputs are read (and checked) before the slow build.
  std::vector<Tensor> inputs = driver::prepare_inputs(m.graph, given, opts.inputs.seed);
  std::vector<Tensor> outputs = driver::run_generated(m, inputs, opts.compiler.build_options());
  // Only a complete run writes files.
  std::vector<std::filesystem::path> input_paths = driver::write_inputs(opts.output_dir, m.graph, inputs);
  std::vector<std::filesystem::path> output_paths = driver::write_outputs(opts.output_dir, m.graph, outputs);
  const graph::Graph& g = m.graph;
  for (std::size_t k = 0; k < inputs.size(); ++k)
    std::cout << "input  " << g[g.inputs[k]].name << ": " << driver::tensor_type_str(inputs[k])
              << " -> " << input_paths[k].string() << "\n";
  for (std::size_t k = 0; k < outputs.size(); ++k)
    std::cout << "output " << g[g.outputs[k]].name << ": " << driver::tensor_type_str(outputs[k])
              << " -> " << output_paths[k].string() << "\n"
              << "       " << driver::preview_values(outputs[k]) << "\n";
  std::cout.flush();
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Compile a graph, build the generated code with the system compiler, run it; write .npy files");
  add_model_argument(*cmd, opts->model);
  add_input_options(*cmd, opts->inputs);
  cmd->add_option("--output-dir", opts->output_dir,
                  "Folder for the results: DIR/NAME.npy per output value, DIR/inputs/NAME.npy "
                  "per input (given or generated); created if missing")
      ->type_name("DIR")
      ->required();
  add_generate_options(*cmd, opts->generate);
  add_compiler_options(*cmd, opts->compiler);
  cmd->footer(
      "Inputs not given with --input are generated as 'staxc interpret' does, so the two\n"
      "commands see the same data for the same seed. The compiler's messages are shown when the\n"
      "generated code fails to build (exit 3); an integer division by zero or an index out of\n"
      "range in the generated code also exits with status 3. Nothing is written unless the run\n"
      "completes.\n"
      "\n"
      "Examples:\n"
      "  staxc run samples/softmax.json --output-dir out/softmax\n"
      "  staxc run model.json --input x=x.npy --seed 3 --output-dir out/m --cxxflags='-O3 -march=native -fopenmp'");
  cmd->callback([opts] { run_run(*opts); });
}

}  // namespace stax::tools

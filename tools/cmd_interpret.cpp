// staxc interpret MODEL.json --output-dir DIR: evaluate a graph with the reference interpreter.
#include "commands.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "stax/driver/inputs.h"
#include "stax/driver/model.h"
#include "stax/driver/preview.h"
#include "stax/interp/interpreter.h"

namespace stax::tools {

namespace {

struct InterpretOptions {
  ModelArgument model;
  InputOptions inputs;
  std::string output_dir;
};

bool is_given(const std::vector<driver::InputFile>& given, const std::string& name) {
  for (const driver::InputFile& f : given)
    if (f.name == name) return true;
  return false;
}

void run_interpret(const InterpretOptions& opts) {
  std::vector<driver::InputFile> given = input_files(opts.inputs);
  graph::Graph g = driver::load_model(opts.model.path, opts.model.options());
  std::vector<Tensor> inputs = driver::prepare_inputs(g, given, opts.inputs.seed);
  // Evaluate before writing anything: a failed evaluation leaves no files behind.
  std::vector<Tensor> outputs = interp::interpret(g, inputs);
  std::vector<std::filesystem::path> input_paths = driver::write_inputs(opts.output_dir, g, inputs);
  std::vector<std::filesystem::path> output_paths = driver::write_outputs(opts.output_dir, g, outputs);

  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::string& name = g[g.inputs[k]].name;
    std::string origin = is_given(given, name) ? "given"
                                               : "generated, seed " + std::to_string(opts.inputs.seed);
    std::cout << "input  " << name << ": " << driver::tensor_type_str(inputs[k]) << " (" << origin
              << ") -> " << input_paths[k].string() << "\n";
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    std::cout << "output " << g[g.outputs[k]].name << ": " << driver::tensor_type_str(outputs[k])
              << " -> " << output_paths[k].string() << "\n"
              << "       " << driver::preview_values(outputs[k]) << "\n";
  }
  std::cout.flush();
}

}  // namespace

void add_interpret_command(CLI::App& app) {
  auto opts = std::make_shared<InterpretOptions>();
  CLI::App* cmd = app.add_subcommand(
      "interpret", "Evaluate a graph with the reference interpreter; write .npy files");
  add_model_argument(*cmd, opts->model);
  add_input_options(*cmd, opts->inputs);
  cmd->add_option("--output-dir", opts->output_dir,
                  "Folder for the results: DIR/NAME.npy per output value, DIR/inputs/NAME.npy "
                  "per input (given or generated); created if missing")
      ->type_name("DIR")
      ->required();
  cmd->footer(
      "The reference interpreter computes floating point in double and rounds each value to\n"
      "its dtype.\n"
      "\n"
      "Nothing is written when the graph is invalid (exit 2) or the evaluation fails, e.g. on\n"
      "an integer division by zero or an index out of range (exit 3).\n"
      "\n"
      "Examples:\n"
      "  staxc interpret samples/softmax.json --output-dir out/softmax\n"
      "  staxc interpret samples/softmax.json --seed 7 --output-dir out/s7\n"
      "  staxc interpret model.json --input x=x.npy --input w=w.npy --output-dir out/m");
  cmd->callback([opts] { run_interpret(*opts); });
}

}  // namespace stax::tools

// staxc import MODEL.onnx -o MODEL.json: an ONNX model as a stax graph and its weights file.
#include "commands.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "stax/driver/import.h"

namespace stax::tools {

namespace {

struct ImportCommandOptions {
  std::string model;
  std::string output;
  std::string weights;
  std::vector<std::string> input_shapes;
};

void run_import(const ImportCommandOptions& opts) {
  driver::ImportedFiles f =
      driver::import_model(opts.model, opts.output, opts.weights, driver::ModelOptions{opts.input_shapes});
  std::cout << "graph   -> " << f.json.string() << "\n";
  if (!f.weights.empty())
    std::cout << "weights -> " << f.weights.string() << " (" << f.weights_bytes << " bytes)\n";
  else
    std::cout << "weights: none (every constant is in the graph)\n";
  std::cout.flush();
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto opts = std::make_shared<ImportCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "import", "Import an ONNX model: write a stax graph (JSON) and its weights file");
  cmd->add_option("MODEL", opts->model, "The ONNX model (opsets 11 to 17); its external data is read from its folder")
      ->type_name("MODEL.onnx")
      ->required();
  cmd->add_option("-o,--output", opts->output, "The stax graph to write")->type_name("MODEL.json")->required();
  cmd->add_option("--weights", opts->weights,
                  "The weights file to write (default: the output with the extension .weights); the "
                  "graph names it by its path relative to the graph's folder")
      ->type_name("FILE");
  add_input_shape_option(*cmd, opts->input_shapes);
  cmd->footer(
      "Constants of up to 16 elements are written in the graph, larger ones in the weights file\n"
      "(little-endian, row-major, each at an offset). Shape computations are folded at import;\n"
      "an input with symbolic dims needs --input-shape. Unsupported ops or forms are refused\n"
      "with the node, the op and the reason (exit 2), and nothing is written. Every other command\n"
      "also takes a .onnx model directly. docs/onnx.md lists the supported ops.\n"
      "\n"
      "Examples:\n"
      "  staxc import resnet18.onnx -o resnet18.json\n"
      "  staxc import bert.onnx -o bert.json --input-shape input_ids=1,128 --input-shape attention_mask=1,128\n"
      "  staxc import model.onnx -o out/model.json --weights out/weights.bin");
  cmd->callback([opts] { run_import(*opts); });
}

}  // namespace stax::tools

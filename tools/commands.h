// The staxc commands. Each command lives in tools/cmd_<name>.cpp and is registered in
// tools/staxc.cpp's command list through its add_<name>_command hook, which adds a CLI11
// subcommand whose callback does the work. A callback reports failure by throwing; main maps
// the exception to the exit status (see ExitCode).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "stax/driver/inputs.h"
#include "stax/driver/model.h"

namespace stax::tools {

// Exit statuses of staxc (README.md, "Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,     // bad flags, missing or invalid .npy, unreadable file (stax::UserError)
  kExitGraph = 2,     // invalid graph (stax::GraphError)
  kExitRuntime = 3,   // run-time failure (stax::RuntimeFailure): integer division by zero, ...
  kExitInternal = 4,  // a bug in staxc (stax::InternalError or any other exception)
};

void add_interpret_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_compile_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_import_command(CLI::App& app);

// ---- Pieces shared by commands ----

// --input NAME=FILE.npy (repeatable) and --seed N, for the commands that evaluate a graph.
struct InputOptions {
  std::vector<std::string> inputs;
  uint64_t seed = 0;
};
void add_input_options(CLI::App& cmd, InputOptions& opts);
// The --input values split into name and file (UserError on a malformed one).
std::vector<driver::InputFile> input_files(const InputOptions& opts);

// The MODEL positional argument (a stax graph, MODEL.json, or an ONNX model, MODEL.onnx) and
// --input-shape NAME=DIMS (repeatable), which fixes an ONNX model's symbolic input dims.
struct ModelArgument {
  std::string path;
  std::vector<std::string> input_shapes;
  bool allow_outside_files = false;
  driver::ModelOptions options() const { return driver::ModelOptions{input_shapes, allow_outside_files}; }
};
void add_model_argument(CLI::App& cmd, ModelArgument& model);
// --input-shape alone (for `import`).
void add_input_shape_option(CLI::App& cmd, std::vector<std::string>& specs);

}  // namespace stax::tools

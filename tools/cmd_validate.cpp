// staxc validate MODEL.json: check a graph and print the dtype and shape of every value.
#include "commands.h"

#include <iostream>
#include <memory>
#include <string>

#include "stax/driver/model.h"
#include "stax/graph/frontend.h"

namespace stax::tools {

namespace {

struct ValidateOptions {
  ModelArgument model;
};

void run_validate(const ValidateOptions& opts) {
  graph::Graph g = driver::load_model(opts.model.path, opts.model.options());
  std::cout << graph::format_signature(g);
  std::cout.flush();
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto opts = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Check a graph; print the dtype and shape of every value");
  add_model_argument(*cmd, opts->model);
  cmd->footer(
      "Prints lines such as 'y: float32[64, 128] = div(e, s)'. An invalid graph prints one\n"
      "error line naming the JSON path, the node and what is wrong, and exits with status 2.\n"
      "\n"
      "Example:\n"
      "  staxc validate samples/softmax.json");
  cmd->callback([opts] { run_validate(*opts); });
}

}  // namespace stax::tools

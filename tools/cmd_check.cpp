// staxc check MODEL.json: the generated code against the reference interpreter, same inputs.
#include "commands.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "codegen_options.h"
#include "stax/driver/check.h"
#include "stax/driver/inputs.h"
#include "stax/support/error.h"

namespace stax::tools {

namespace {

struct CheckOptions {
  ModelArgument model;
  InputOptions inputs;
  double rtol = 1e-5;
  double atol = 1e-6;
  GenerateOptions generate;
  CompilerOptions compiler;
};

void run_check(const CheckOptions& opts) {
  std::vector<driver::InputFile> given = input_files(opts.inputs);
  if (!(opts.rtol >= 0.0) || !(opts.atol >= 0.0)) throw UserError("--rtol and --atol must be >= 0");
  driver::CompiledModel m = driver::compile_model(opts.model.path, opts.generate.compile_options(), opts.model.options());
  std::vector<Tensor> inputs = driver::prepare_inputs(m.graph, given, opts.inputs.seed);
  const driver::Harness harness = driver::Harness::build({&m.code}, opts.compiler.build_options());
  const driver::CheckReport report =
      driver::check_outputs(m, harness, 0, inputs, driver::Tolerance{opts.rtol, opts.atol});
  for (const std::string& line : report.lines) std::cout << line << "\n";
  std::cout.flush();
  if (!report.passed)
    throw RuntimeFailure("check failed: the generated code of '" + m.code.name +
                         "' does not match the interpreter");
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto opts = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Run the generated code and the reference interpreter on the same inputs; compare");
  add_model_argument(*cmd, opts->model);
  add_input_options(*cmd, opts->inputs);
  cmd->add_option("--rtol", opts->rtol, "Relative tolerance for floats")->type_name("R")->capture_default_str();
  cmd->add_option("--atol", opts->atol, "Absolute tolerance for floats")->type_name("A")->capture_default_str();
  add_generate_options(*cmd, opts->generate);
  add_compiler_options(*cmd, opts->compiler);
  cmd->footer(
      "Floats match when |got - expected| <= atol + rtol * |expected| (NaN matches NaN, an\n"
      "infinity the same infinity); ints and bools must be equal. Prints one line per output with\n"
      "the worst error. An integer division by zero or an index out of range must be reported by\n"
      "both sides. Exit status 0 when everything matches, 3 when anything differs or the\n"
      "generated code fails to build.\n"
      "\n"
      "Examples:\n"
      "  staxc check samples/softmax.json\n"
      "  staxc check model.json --seed 7 --rtol 1e-4 --atol 1e-5");
  cmd->callback([opts] { run_check(*opts); });
}

}  // namespace stax::tools

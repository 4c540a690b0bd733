// Options shared by several staxc commands.
#include "commands.h"

#include <algorithm>

namespace stax::tools {

void add_input_options(CLI::App& cmd, InputOptions& opts) {
  cmd.add_option("--input", opts.inputs,
                 "Use FILE.npy for the graph input NAME (repeatable); it must have the declared "
                 "dtype and shape. Inputs not given are generated from the seed")
      ->type_name("NAME=FILE.npy")
      ->allow_extra_args(false);
  cmd.add_option("--seed", opts.seed,
                 "Seed of the generated inputs: floats standard normal, ints uniform in [-8, 8], "
                 "bools a fair coin")
      ->type_name("N")
      ->transform(CLI::Validator(
          [](std::string& value) -> std::string {
            bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
            if (!digits) return "expected a non-negative integer, got '" + value + "'";
            std::string v = value.substr(std::min(value.find_first_not_of('0'), value.size() - 1));
            const std::string max = "18446744073709551615";
            if (v.size() > max.size() || (v.size() == max.size() && v > max))
              return "'" + value + "' is larger than the largest seed, " + max;
            value = v;  // without leading zeros, which the conversion would read as octal
            return "";
          },
          ""))
      ->capture_default_str();
}

std::vector<driver::InputFile> input_files(const InputOptions& opts) {
  std::vector<driver::InputFile> files;
  files.reserve(opts.inputs.size());
  for (const std::string& spec : opts.inputs) files.push_back(driver::parse_input_spec(spec));
  return files;
}

void add_input_shape_option(CLI::App& cmd, std::vector<std::string>& specs) {
  cmd.add_option("--input-shape", specs,
                 "Fix the shape of the ONNX model's input NAME (repeatable), e.g. x=1,3,224,224; "
                 "required for an input with symbolic dims")
      ->type_name("NAME=DIMS")
      ->allow_extra_args(false);
}

void add_model_argument(CLI::App& cmd, ModelArgument& model) {
  cmd.add_option("MODEL", model.path,
                 "The model: a stax graph (a JSON file in the stax graph format, version 1) or an "
                 "ONNX model (.onnx, imported in memory)")
      ->type_name("MODEL.json|MODEL.onnx")
      ->required();
  add_input_shape_option(cmd, model.input_shapes);
  cmd.add_flag("--allow-outside-files", model.allow_outside_files,
               "Let constants' files be absolute paths or lie outside the model's folder (by "
               "default refused: a model must not read arbitrary files of the machine compiling it)");
}

}  // namespace stax::tools

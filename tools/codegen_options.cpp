#include "codegen_options.h"

namespace stax::tools {

driver::CompileOptions GenerateOptions::compile_options() const {
  driver::CompileOptions o;
  o.name = name;
  o.dump_ir = dump_ir;
  return o;
}

void add_generate_options(CLI::App& cmd, GenerateOptions& opts) {
  cmd.add_option("--name", opts.name,
                 "The model's name, prefix of every C API symbol (default: the graph's \"name\")")
      ->type_name("NAME");
  cmd.add_option("--dump-ir", opts.dump_ir,
                 "Also write the lowered program (loop ranges, index expressions, bodies) as text")
      ->type_name("FILE");
}

driver::BuildOptions CompilerOptions::build_options() const {
  driver::BuildOptions o;
  o.cxxflags = driver::split_flags(cxxflags);
  return o;
}

void add_compiler_options(CLI::App& cmd, CompilerOptions& opts) {
  std::string defaults;
  for (const std::string& f : driver::default_cxxflags()) defaults += (defaults.empty() ? "" : " ") + f;
  cmd.add_option("--cxxflags", opts.cxxflags,
                 "Flags for building the generated code with $CXX (default g++), replacing the "
                 "defaults '" + defaults + "'; -lsleef is always linked. Write --cxxflags='-O1 -g'")
      ->type_name("FLAGS");
}

}  // namespace stax::tools

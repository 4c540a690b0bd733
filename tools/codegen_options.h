// Options shared by the commands that generate code (compile, run, check, bench).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "stax/driver/build.h"
#include "stax/driver/compile.h"

namespace stax::tools {

// --name NAME, --dump-ir FILE, --no-fuse, --dump-schedule FILE.json, --dump-memory FILE.json,
// --dump-kernel-plan FILE.json, --svg-schedule FILE.svg, --svg-memory FILE.svg, --dot FILE.dot,
// --log TOPIC, --isa ISA, --weights-threshold BYTES and -v.
struct GenerateOptions {
  std::string name;
  std::string dump_ir;
  bool no_fuse = false;
  std::string fusion_rules = "default";
  std::string dump_schedule;
  std::string dump_memory;
  std::string dump_kernel_plan;
  std::string svg_schedule;
  std::string svg_memory;
  std::string dot_schedule;
  std::vector<std::string> log;
  bool verbose = false;
  std::string isa = "native";
  std::size_t weights_threshold = codegen::kDefaultWeightsThreshold;
  driver::CompileOptions compile_options() const;
};
void add_generate_options(CLI::App& cmd, GenerateOptions& opts);

// --cxxflags FLAGS (the compiler itself comes from $CXX).
struct CompilerOptions {
  std::string cxxflags;
  driver::BuildOptions build_options() const;
};
void add_compiler_options(CLI::App& cmd, CompilerOptions& opts);

}  // namespace stax::tools

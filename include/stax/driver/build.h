// Building and running generated code (`staxc run`, `staxc check`, the end-to-end tests): the
// generated files of one or more models are compiled with the system compiler together with a
// small generated harness whose main reads raw inputs, calls the model through its C API
// (NAME_run_checked) and writes raw outputs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "stax/codegen/codegen.h"
#include "stax/driver/process.h"
#include "stax/graph/graph.h"
#include "stax/support/error.h"
#include "stax/support/tensor.h"

namespace stax::driver {

struct BuildOptions {
  // The compiler: empty means $CXX, or g++ when $CXX is unset.
  std::string cxx;
  // Compiler flags; empty means default_cxxflags(). -lsleef is always linked.
  std::vector<std::string> cxxflags;
  // What the built program runs under, before its own command line: an emulator for a cross
  // compiler's program ({"qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"}); empty: run directly.
  std::vector<std::string> run_prefix;
};

// -std=c++17 -O2 -march=native -fopenmp
std::vector<std::string> default_cxxflags();
// Splits a --cxxflags value at whitespace ("-O1 -g" -> {"-O1", "-g"}).
std::vector<std::string> split_flags(const std::string& flags);

// What `opts` stands for: the compiler (BuildOptions::cxx, else $CXX, else g++) and the flags
// (BuildOptions::cxxflags, else default_cxxflags()).
std::string build_compiler(const BuildOptions& opts);
std::vector<std::string> build_flags(const BuildOptions& opts);

// Compiles the program `main` (one translation unit that #includes the generated files beside
// it) into `exe`, linking SLEEF; the compiler's output is logged in `log`. When the compiler
// fails, its output is shown on stderr and a RuntimeFailure says that `what` failed to build.
void build_program(const BuildOptions& opts, const std::filesystem::path& main,
                   const std::filesystem::path& exe, const std::filesystem::path& log,
                   const std::string& what);

// Exit statuses of the programs built around generated code (the harness below and the timing
// harness of bench.h): 0, kHarnessUsage for the program's own failures, kHarnessApiBase + the C
// API's return code when a call of the model fails.
constexpr int kHarnessUsage = 2;
constexpr int kHarnessApiBase = 10;

// The generated code returned an error code (STAX_ERR_*): what the C API reported.
class GeneratedCodeError : public RuntimeFailure {
 public:
  GeneratedCodeError(int code, const std::string& message) : RuntimeFailure(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// Nothing when `r`, a run of such a program for model `model`, exited with 0. Otherwise a
// GeneratedCodeError for a C API code (with the program's message), or a RuntimeFailure saying
// that `what` failed and how, after the program's output is shown on stderr.
void check_harness_exit(const ProcessResult& r, const std::string& model, const std::string& what);

// An executable built from generated code, living in its own temporary folder.
class Harness {
 public:
  // Compiles every model's source with the harness main into one program (one translation
  // unit, which also shows that the files coexist). The compiler's output is shown on stderr
  // and a RuntimeFailure thrown when it fails. `run` runs it under opts.run_prefix.
  static Harness build(const std::vector<const codegen::GeneratedCode*>& models,
                       const BuildOptions& opts = {});

  // Runs model `model` (its position in build's list) on `inputs` (graph input order, the
  // declared dtypes and shapes); `g` gives the outputs' dtypes and shapes. With
  // `caller_workspace` the harness passes a workspace of NAME_workspace_size() bytes, else NULL.
  // GeneratedCodeError when the call returns an error code; RuntimeFailure when the program
  // crashes.
  std::vector<Tensor> run(std::size_t model, const graph::Graph& g, const std::vector<Tensor>& inputs,
                          bool caller_workspace = true) const;

  // The instruction set model `model` runs with (its NAME_isa(); a dispatch file's choice
  // follows the environment variable STAX_ISA of this process).
  std::string isa(std::size_t model) const;

  const std::filesystem::path& executable() const { return exe_; }

 private:
  TempDir dir_;
  std::filesystem::path exe_;
  std::vector<std::string> run_prefix_;
  std::vector<std::string> names_;
};

// The harness's main for these model names (each NAME.cpp is #included as "model<k>.cpp").
std::string harness_source(const std::vector<std::string>& model_names);

}  // namespace stax::driver

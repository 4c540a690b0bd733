// Running a group's generated code many times in one process. Each run of driver::Harness is a
// process of its own, whose start (the dynamic loader, OpenMP, and under qemu the emulator
// itself) costs more than the small models of the suite take to run; the suite runs thousands.
// A Batch is the same program (the models' files and driver::harness_source's main, called as
// a function) with a main of its own that runs a list of jobs, each exactly as that main would
// in a process of its own: its output in its folder, its exit status recorded. A job that kills
// the process (a crash, a sanitizer's report) is reported with the process's status and its own
// output, and the jobs after it run in a new process.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "stax/driver/build.h"
#include "stax/driver/process.h"

namespace stax::e2e {

class Batch {
 public:
  // Writes the models and the program beside them and compiles it (driver::build_program: a
  // RuntimeFailure, with the compiler's messages on stderr, when it fails).
  static Batch build(const std::vector<const codegen::GeneratedCode*>& models, const driver::BuildOptions& opts);

  // A job running model `model` on `inputs` (graph input order), with a workspace of the
  // caller's or a NULL one (driver::Harness::run); or asking for its instruction set
  // (driver::Harness::isa). Returns the job's number.
  std::size_t add_run(std::size_t model, const std::vector<Tensor>& inputs, bool caller_workspace);
  std::size_t add_isa(std::size_t model);

  // Runs the jobs added since the last call. A process that exits with an error after its last
  // job (a leak reported at exit) is a RuntimeFailure, with its output.
  void run();

  // What the job's process would have given: its exit status and output.
  const driver::ProcessResult& result(std::size_t job) const { return results_.at(job); }
  // The outputs of a run job that exited with 0 (the graph gives their dtypes and shapes).
  std::vector<Tensor> outputs(std::size_t job, const graph::Graph& g) const;

  const std::string& model_name(std::size_t model) const { return names_.at(model); }

 private:
  std::filesystem::path job_dir(std::size_t job) const;

  driver::TempDir dir_;
  std::filesystem::path exe_;
  std::vector<std::string> run_prefix_;
  std::vector<std::string> names_;
  std::vector<std::string> jobs_;  // "MODEL MODE" per job
  std::size_t done_ = 0;           // jobs run so far
  std::vector<driver::ProcessResult> results_;
};

}  // namespace stax::e2e

// `staxc run` and `staxc check` as library functions: build the generated code, run it on the
// given or generated inputs, and (check) compare it with the reference interpreter.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stax/driver/build.h"
#include "stax/driver/compare.h"
#include "stax/driver/compile.h"
#include "stax/driver/inputs.h"

namespace stax::driver {

// The outputs of the generated code of `m` on `inputs` (graph input order).
std::vector<Tensor> run_generated(const CompiledModel& m, const std::vector<Tensor>& inputs,
                                  const BuildOptions& build = {});

struct CheckReport {
  bool passed = false;
  bool runtime_error = false;  // both sides reported a run-time error (and so `passed`)
  // One line per output ("y: float32[4] ok, max abs error ..."), or one line saying that both
  // sides report an integer division by zero, or which side alone failed.
  std::vector<std::string> lines;
};

// Interprets the graph and runs the generated code (already built into `harness` as model
// `index`) on the same inputs and compares every output. An integer division by zero must be
// reported by both sides to pass. `caller_workspace` as in Harness::run.
CheckReport check_outputs(const CompiledModel& m, const Harness& harness, std::size_t index,
                          const std::vector<Tensor>& inputs, const Tolerance& tol,
                          bool caller_workspace = true);

// The same with the generated code's outputs from `run`, which throws GeneratedCodeError when the
// generated code reports a run-time error (as Harness::run does), for callers that run it their
// own way.
CheckReport check_outputs_with(const CompiledModel& m, const std::vector<Tensor>& inputs, const Tolerance& tol,
                               const std::function<std::vector<Tensor>()>& run);

}  // namespace stax::driver

#include "stax/driver/check.h"

#include <optional>

#include "stax/interp/interpreter.h"

namespace stax::driver {

std::vector<Tensor> run_generated(const CompiledModel& m, const std::vector<Tensor>& inputs,
                                  const BuildOptions& build) {
  const Harness h = Harness::build({&m.code}, build);
  return h.run(0, m.graph, inputs);
}

CheckReport check_outputs(const CompiledModel& m, const Harness& harness, std::size_t index,
                          const std::vector<Tensor>& inputs, const Tolerance& tol,
                          bool caller_workspace) {
  return check_outputs_with(m, inputs, tol, [&] { return harness.run(index, m.graph, inputs, caller_workspace); });
}

CheckReport check_outputs_with(const CompiledModel& m, const std::vector<Tensor>& inputs, const Tolerance& tol,
                               const std::function<std::vector<Tensor>()>& run) {
  CheckReport report;
  std::optional<std::string> interp_error, generated_error;
  std::vector<Tensor> expected, got;
  try {
    expected = interp::interpret(m.graph, inputs);
  } catch (const RuntimeFailure& e) {
    interp_error = e.what();
  }
  try {
    got = run();
  } catch (const GeneratedCodeError& e) {
    generated_error = e.what();
  }
  if (interp_error && generated_error) {
    report.passed = true;
    report.runtime_error = true;
    report.lines.push_back("both report a run-time error: the interpreter: " + *interp_error +
                           "; " + *generated_error);
    return report;
  }
  if (interp_error || generated_error) {
    report.passed = false;
    report.lines.push_back(interp_error ? "the interpreter reports a run-time error and the generated code does not: " + *interp_error
                                        : "the generated code reports a run-time error and the interpreter does not: " + *generated_error);
    return report;
  }
  report.passed = true;
  for (std::size_t o = 0; o < expected.size(); ++o) {
    const Comparison c = compare_tensors(got[o], expected[o], tol);
    report.passed = report.passed && c.match;
    report.lines.push_back(describe(m.graph[m.graph.outputs[o]].name, expected[o], c));
  }
  return report;
}

}  // namespace stax::driver

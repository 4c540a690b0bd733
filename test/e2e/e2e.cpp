#include "e2e.h"

#include <gtest/gtest.h>

#include <optional>

#include "stax/driver/check.h"
#include "stax/driver/compile.h"
#include "stax/graph/frontend.h"
#include "stax/support/random.h"

namespace stax::e2e {

namespace {

graph::Graph parse_case(const Case& c) {
  return graph::parse_graph(c.json, std::string(STAX_SOURCE_DIR) + "/test/e2e");
}

std::vector<Tensor> case_inputs(const graph::Graph& g, const Case& c) {
  std::vector<Tensor> inputs;
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    const graph::Value& v = g[g.inputs[k]];
    Tensor t = random_tensor(v.dtype, v.shape, c.seed, k);
    if (c.nonzero_ints && is_integer(v.dtype))
      for (int64_t i = 0; i < t.numel(); ++i)
        if (t.get_int(i) == 0) t.set_int(i, 1);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

}  // namespace

std::vector<std::string> suite_cxxflags() {
  return {"-std=c++17", "-O1", "-march=native", "-fopenmp", "-Wall", "-Wextra", "-Werror"};
}

std::vector<IsaVariant> isa_variants() {
  std::vector<IsaVariant> out;
  out.push_back({codegen::IsaTarget::of(codegen::Isa::Scalar), {"-std=c++17", "-O1", "-fopenmp", "-Wall", "-Wextra", "-Werror"}});
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    out.push_back({codegen::IsaTarget::of(codegen::Isa::Avx2), {"-std=c++17", "-O1", "-mavx2", "-mfma", "-fopenmp", "-Wall", "-Wextra", "-Werror"}});
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
    out.push_back({codegen::IsaTarget::of(codegen::Isa::Avx512),
                   {"-std=c++17", "-O1", "-mavx512f", "-mavx512dq", "-mfma", "-fopenmp", "-Wall", "-Wextra", "-Werror"}});
  return out;
}

bool accepted(const std::string& json) {
  try {
    graph::parse_graph(json, std::string(STAX_SOURCE_DIR) + "/test/e2e");
    return true;
  } catch (const GraphError&) {
    return false;
  }
}

driver::Tolerance matmul_tolerance(DType dtype, int64_t k, double abs_sum) {
  const double u = dtype == DType::Float32 ? 0x1p-24 : 0x1p-53;
  const double n = static_cast<double>(k + 2);
  const double sides = dtype == DType::Float32 ? 1.0 : 2.0;
  return {0.0, sides * n * u / (1 - n * u) * abs_sum};
}

std::vector<std::string> optimized_cxxflags() {
  return {"-std=c++17", "-O3", "-march=native", "-fopenmp", "-Wall", "-Wextra", "-Werror"};
}

std::string input(const std::string& name, const std::string& dtype, const std::string& shape) {
  return "{\"name\": \"" + name + "\", \"dtype\": \"" + dtype + "\", \"shape\": " + shape + "}";
}

std::string graph(const std::vector<std::string>& inputs, const std::vector<std::string>& nodes,
                  const std::vector<std::string>& outputs, const std::vector<std::string>& constants) {
  std::vector<std::string> quoted;
  for (const std::string& o : outputs) quoted.push_back("\"" + o + "\"");
  std::string s = "{\"format\": \"stax-graph\", \"version\": 1, \"name\": \"m\",\n \"inputs\": [" +
                  join(inputs) + "],\n";
  if (!constants.empty()) s += " \"constants\": [" + join(constants) + "],\n";
  s += " \"nodes\": [\n  " + join(nodes) + "],\n \"outputs\": [" + join(quoted) + "]}";
  return s;
}

Case& Table::add(const std::string& name, const std::vector<std::string>& inputs,
                 const std::vector<std::string>& nodes, const std::vector<std::string>& outputs,
                 const std::vector<std::string>& constants) {
  Case c;
  c.name = name;
  c.json = graph(inputs, nodes, outputs, constants);
  EXPECT_TRUE(accepted(c.json)) << name << "\n" << c.json;
  cases.push_back(std::move(c));
  return cases.back();
}

std::size_t run_cases(const std::vector<Case>& cases, const std::vector<std::string>& cxxflags, codegen::IsaTarget isa) {
  std::vector<driver::CompiledModel> models;
  std::vector<const Case*> compiled;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    try {
      driver::CompileOptions opts;
      opts.name = "m" + std::to_string(k);
      opts.isa = isa;
      models.push_back(driver::compile_graph(parse_case(c), opts));
      compiled.push_back(&c);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "case '" << c.name << "' does not compile: " << e.what() << "\n" << c.json;
    }
  }
  std::vector<const codegen::GeneratedCode*> codes;
  for (const driver::CompiledModel& m : models) codes.push_back(&m.code);
  driver::BuildOptions build;
  build.cxxflags = cxxflags;
  std::optional<driver::Harness> harness;
  try {
    harness.emplace(driver::Harness::build(codes, build));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the generated code does not build: " << e.what();
    return 0;
  }
  for (std::size_t k = 0; k < models.size(); ++k) {
    const Case& c = *compiled[k];
    SCOPED_TRACE("case '" + c.name + "'");
    const std::vector<Tensor> inputs = case_inputs(models[k].graph, c);
    driver::CheckReport r;
    try {
      r = driver::check_outputs(models[k], *harness, k, inputs, c.tolerance ? c.tolerance(inputs) : c.tol, k % 2 == 0);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "running the generated code failed: " << e.what() << "\n" << c.json;
      continue;
    }
    std::string lines;
    for (const std::string& l : r.lines) lines += "  " + l + "\n";
    EXPECT_TRUE(r.passed) << lines << c.json;
    if (c.expect == Expect::DivByZero) {
      EXPECT_TRUE(r.runtime_error) << "expected a division by zero\n" << lines;
    }
    if (c.expect == Expect::Match) {
      EXPECT_FALSE(r.runtime_error) << "unexpected run-time error\n" << lines << c.json;
    }
  }
  return models.size();
}

}  // namespace stax::e2e

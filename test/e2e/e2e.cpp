#include "e2e.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "batch.h"
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

std::string IsaVariant::name() const {
  if (cxx.empty()) return isa.name();
  return isa.name() + " (" + cxx + (run_prefix.empty() ? "" : " under " + run_prefix.front()) + ")";
}

std::vector<IsaVariant> isa_variants() {
  const std::vector<std::string> flags = {"-std=c++17", "-O1", "-fopenmp", "-Wall", "-Wextra", "-Werror"};
  std::vector<IsaVariant> out;
  for (const IsaRecord& r : isa_table()) {
    if (!host_supports(r)) continue;
    std::vector<std::string> with = flags;
    for (const std::string& f : driver::split_flags(std::string(r.flags))) with.push_back(f);
    out.push_back({IsaTarget::of(r.id), with});
  }
  return out;
}

std::vector<IsaVariant> cross_variants() {
  std::vector<IsaVariant> out;
#if !defined(__aarch64__)
  const std::string cxx = STAX_AARCH64_CXX;
  if (cxx.empty()) return out;
  // The run prefix comes from CMake with its elements separated by '|' (test/e2e/CMakeLists.txt).
  std::vector<std::string> prefix;
  const std::string list = STAX_AARCH64_RUN_PREFIX;
  for (std::size_t i = 0; i <= list.size();) {
    const std::size_t end = std::min(list.find('|', i), list.size());
    prefix.push_back(list.substr(i, end - i));
    i = end + 1;
  }
  const std::vector<std::string> flags = {"-std=c++17", "-O1", "-fopenmp", "-Wall", "-Wextra", "-Werror"};
  out.push_back({IsaTarget::of(Isa::Neon), flags, cxx, prefix});
  out.push_back({IsaTarget::of(Isa::Scalar), flags, cxx, prefix});
#endif
  return out;
}

std::vector<std::string> dispatch_cxxflags() { return {"-std=c++17", "-O1", "-fopenmp", "-Wall", "-Wextra", "-Werror"}; }

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

std::string node(const std::string& name, const std::string& op, const std::string& args, const std::string& attrs) {
  return R"({"name": ")" + name + R"(", "op": ")" + op + R"(", "args": )" + args + (attrs.empty() ? "" : ", " + attrs) + "}";
}

double max_abs(const Tensor& t) {
  double m = 0;
  for (int64_t i = 0; i < t.numel(); ++i) m = std::max(m, std::fabs(t.get_double(i)));
  return m;
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

namespace {

// Cases compiled and built into one program, which runs them in batches (batch.h).
struct Built {
  std::vector<driver::CompiledModel> models;
  std::vector<const Case*> cases;
  std::optional<Batch> batch;
};

Built build_cases(const std::vector<Case>& cases, const IsaVariant& variant) {
  const IsaTarget isa = variant.isa;
  Built b;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    try {
      driver::CompileOptions opts;
      opts.name = c.keep_name ? "" : "m" + std::to_string(k);
      opts.isa = isa;
      b.models.push_back(driver::compile_graph(parse_case(c), opts));
      b.cases.push_back(&c);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "case '" << c.name << "' does not compile: " << e.what() << "\n" << c.json;
    }
  }
  std::vector<const codegen::GeneratedCode*> codes;
  for (const driver::CompiledModel& m : b.models) codes.push_back(&m.code);
  driver::BuildOptions build;
  build.cxx = variant.cxx;
  build.cxxflags = variant.cxxflags;
  build.run_prefix = variant.run_prefix;
  try {
    b.batch.emplace(Batch::build(codes, build));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the generated code does not build: " << e.what();
  }
  return b;
}

// Runs the batch's pending jobs; false (and a failure) when the program failed after them.
bool run_batch(Batch& batch) {
  try {
    batch.run();
    return true;
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
    return false;
  }
}

// driver::check_outputs for a run of the batch: the interpreter and the generated code on the same
// inputs, every output compared; a run-time error must be reported by both.
driver::CheckReport check_run(const driver::CompiledModel& m, const Batch& batch, std::size_t job,
                              const std::vector<Tensor>& inputs, const driver::Tolerance& tol) {
  return driver::check_outputs_with(m, inputs, tol, [&] {
    driver::check_harness_exit(batch.result(job), m.code.name, "the generated code of '" + m.code.name + "' failed to run");
    return batch.outputs(job, m.graph);
  });
}

// The instruction set model `job` asked for reported (driver::Harness::isa).
std::string isa_of(const Batch& batch, std::size_t job, const std::string& model) {
  const driver::ProcessResult& r = batch.result(job);
  driver::check_harness_exit(r, model, "the generated code of '" + model + "' failed to run");
  std::string name = r.output;
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  return name;
}

void check_case(const Built& b, std::size_t k, const std::vector<Tensor>& inputs, std::size_t job) {
  const Case& c = *b.cases[k];
  SCOPED_TRACE("case '" + c.name + "'");
  driver::CheckReport r;
  try {
    r = check_run(b.models[k], *b.batch, job, inputs, c.tolerance ? c.tolerance(inputs) : c.tol);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "running the generated code failed: " << e.what() << "\n" << c.json;
    return;
  }
  std::string lines;
  for (const std::string& l : r.lines) lines += "  " + l + "\n";
  EXPECT_TRUE(r.passed) << lines << c.json;
  if (c.expect == Expect::DivByZero) {
    EXPECT_TRUE(r.runtime_error) << "expected a division by zero\n" << lines;
  }
  if (c.expect == Expect::IndexError) {
    EXPECT_TRUE(r.runtime_error && lines.find("is out of range [0, ") != std::string::npos &&
                lines.find("index out of range (embedding, index_select or gather)") != std::string::npos)
        << "expected an index out of range\n" << lines;
  }
  if (c.expect == Expect::Match) {
    EXPECT_FALSE(r.runtime_error) << "unexpected run-time error\n" << lines << c.json;
  }
}

// Every case run by the batch (every other one with the caller's workspace, the rest with a
// NULL one) and checked against the interpreter.
void check_cases(Built& b) {
  std::vector<std::vector<Tensor>> inputs;
  std::vector<std::size_t> jobs;
  for (std::size_t k = 0; k < b.models.size(); ++k) {
    inputs.push_back(case_inputs(b.models[k].graph, *b.cases[k]));
    jobs.push_back(b.batch->add_run(k, inputs.back(), k % 2 == 0));
  }
  if (!run_batch(*b.batch)) return;
  for (std::size_t k = 0; k < b.models.size(); ++k) check_case(b, k, inputs[k], jobs[k]);
}

// Sets an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

std::size_t run_cases(const std::vector<Case>& cases, const std::vector<std::string>& cxxflags, IsaTarget isa) {
  return run_cases(cases, IsaVariant{isa, cxxflags});
}

std::size_t run_cases(const std::vector<Case>& cases, const IsaVariant& variant) {
  Built b = build_cases(cases, variant);
  if (!b.batch) return 0;
  check_cases(b);
  return b.models.size();
}

std::size_t run_cases_dispatch(const std::vector<Case>& cases) {
  Built b = build_cases(cases, IsaVariant{IsaTarget::dispatch(), dispatch_cxxflags()});
  if (!b.batch || b.models.empty()) return 0;
  // By default each model takes the widest set this machine has.
  std::string widest;
  for (Isa isa : IsaTarget::dispatch().members())
    if (host_supports(isa_record(isa))) widest = isa_record(isa).name;
  std::vector<std::size_t> jobs;
  for (std::size_t k = 0; k < b.models.size(); ++k) jobs.push_back(b.batch->add_isa(k));
  if (!run_batch(*b.batch)) return 0;
  for (std::size_t k = 0; k < b.models.size(); ++k) {
    try {
      EXPECT_EQ(isa_of(*b.batch, jobs[k], b.models[k].code.name), widest) << "model " << k;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "model " << k << ": " << e.what();
    }
  }
  // Then each set the machine has, forced.
  for (Isa isa : IsaTarget::dispatch().members()) {
    const IsaRecord& r = isa_record(isa);
    if (!host_supports(r)) {
      std::printf("[ SKIPPED  ] --isa dispatch forced to %s: this CPU or OS lacks it\n", std::string(r.name).c_str());
      continue;
    }
    SCOPED_TRACE("STAX_ISA=" + std::string(r.name));
    const ScopedEnv forced("STAX_ISA", std::string(r.name));
    const std::size_t first = b.batch->add_isa(0);
    check_cases(b);
    try {
      EXPECT_EQ(isa_of(*b.batch, first, b.models[0].code.name), r.name);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "model 0: " << e.what();
    }
  }
  return b.models.size();
}
}  // namespace stax::e2e

#include "e2e.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

// Cases compiled and built into one program.
struct Built {
  std::vector<driver::CompiledModel> models;
  std::vector<const Case*> cases;
  std::optional<driver::Harness> harness;
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
    b.harness.emplace(driver::Harness::build(codes, build));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the generated code does not build: " << e.what();
  }
  return b;
}

void check_case(const Built& b, std::size_t k) {
  const Case& c = *b.cases[k];
  SCOPED_TRACE("case '" + c.name + "'");
  const std::vector<Tensor> inputs = case_inputs(b.models[k].graph, c);
  driver::CheckReport r;
  try {
    r = driver::check_outputs(b.models[k], *b.harness, k, inputs, c.tolerance ? c.tolerance(inputs) : c.tol, k % 2 == 0);
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
  const Built b = build_cases(cases, variant);
  if (!b.harness) return 0;
  for (std::size_t k = 0; k < b.models.size(); ++k) check_case(b, k);
  return b.models.size();
}

std::size_t run_cases_dispatch(const std::vector<Case>& cases) {
  const Built b = build_cases(cases, IsaVariant{IsaTarget::dispatch(), dispatch_cxxflags()});
  if (!b.harness || b.models.empty()) return 0;
  // By default each model takes the widest set this machine has.
  std::string widest;
  for (Isa isa : IsaTarget::dispatch().members())
    if (host_supports(isa_record(isa))) widest = isa_record(isa).name;
  for (std::size_t k = 0; k < b.models.size(); ++k) EXPECT_EQ(b.harness->isa(k), widest) << "model " << k;
  // Then each set the machine has, forced.
  for (Isa isa : IsaTarget::dispatch().members()) {
    const IsaRecord& r = isa_record(isa);
    if (!host_supports(r)) {
      std::printf("[ SKIPPED  ] --isa dispatch forced to %s: this CPU or OS lacks it\n", std::string(r.name).c_str());
      continue;
    }
    SCOPED_TRACE("STAX_ISA=" + std::string(r.name));
    const ScopedEnv forced("STAX_ISA", std::string(r.name));
    EXPECT_EQ(b.harness->isa(0), r.name);
    for (std::size_t k = 0; k < b.models.size(); ++k) check_case(b, k);
  }
  return b.models.size();
}
}  // namespace stax::e2e

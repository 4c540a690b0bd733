// Long float32 reductions (issue 6): the sum and mean of 2^27 float32 values through the
// generated code, as one dimension of 2^27 and as [2^13, 2^14] reduced over the last dimension
// and over both, for the native instruction set and for scalar kernels. Every result must be
// within 1e-5 relative of the exact sum (the reference accumulates in double, and every partial
// sum of these inputs is a multiple of 2^-14 below 2^37, so no double addition rounds).
//
// The inputs are 1000 + u with u uniform in [0, 1): one running float32 sum of 2^27 of them
// stalls near 2^24 * 1000 (its spacing there exceeds the addends), so only a blocked, pairwise
// or wider accumulation passes. The 512 MiB input is made and checked inside the built program.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "e2e.h"
#include "stax/codegen/codegen.h"
#include "stax/driver/compile.h"
#include "stax/driver/process.h"
#include "stax/graph/frontend.h"
#include "stax/lowering/lower.h"
#include "stax/scheduler/schedule.h"

namespace stax::e2e {
namespace {

namespace fs = std::filesystem;

constexpr double kRelTolerance = 1e-5;

const char* kFlat = R"({"format": "stax-graph", "version": 1, "name": "flat",
  "inputs": [{"name": "x", "dtype": "float32", "shape": [134217728]}],
  "nodes": [{"name": "sum", "op": "sum", "args": ["x"]}, {"name": "mean", "op": "mean", "args": ["x"]}],
  "outputs": ["sum", "mean"]})";

const char* kRows = R"({"format": "stax-graph", "version": 1, "name": "rows",
  "inputs": [{"name": "x", "dtype": "float32", "shape": [8192, 16384]}],
  "nodes": [{"name": "row_sum", "op": "sum", "args": ["x"], "dim": -1},
            {"name": "row_mean", "op": "mean", "args": ["x"], "dim": -1},
            {"name": "sum", "op": "sum", "args": ["x"]}, {"name": "mean", "op": "mean", "args": ["x"]}],
  "outputs": ["row_sum", "row_mean", "sum", "mean"]})";

// The program: fills x, computes the references, runs every model on the same bytes and prints
// one line per output: "RESULT model.output worst_index got reference relative_error".
const char* kMain = R"cxx(
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr size_t kRows = 8192, kCols = 16384, kN = kRows * kCols;

uint64_t mix(uint64_t z) {  // splitmix64's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The worst of `count` results against their references.
void report(const char* what, const float* got, const double* want, size_t count) {
  size_t worst = 0;
  double worst_rel = -1;
  for (size_t i = 0; i < count; ++i) {
    const double rel = std::fabs(static_cast<double>(got[i]) - want[i]) / std::fabs(want[i]);
    if (!(rel <= worst_rel)) {  // NaN is the worst
      worst_rel = rel;
      worst = i;
    }
  }
  std::printf("RESULT %s %zu %.9g %.17g %.3g\n", what, worst, static_cast<double>(got[worst]), want[worst], worst_rel);
}

int check(int rc, const char* model) {
  if (rc != STAX_OK) {
    std::printf("FAILED %s: %s\n", model, flat_native_strerror(rc));
    std::exit(1);
  }
  return rc;
}

}  // namespace

int main() {
  float* x = static_cast<float*>(std::aligned_alloc(64, kN * sizeof(float)));
  if (x == nullptr) return 2;
  for (size_t i = 0; i < kN; ++i)
    x[i] = 1000.0f + static_cast<float>(mix(i + 1) >> 40) * 0x1p-24f;

  std::vector<double> row_sum(kRows), row_mean(kRows);
  double total = 0;
  for (size_t r = 0; r < kRows; ++r) {
    double acc = 0;
    for (size_t c = 0; c < kCols; ++c) acc += x[r * kCols + c];
    row_sum[r] = acc;
    row_mean[r] = acc / kCols;
    total += acc;
  }
  const double mean = total / kN;

  const void* in[1] = {x};
  float s = 0, m = 0;
  void* flat_out[2] = {&s, &m};
  check(flat_native_run(in, flat_out, nullptr), "flat_native");
  report("flat_native.sum", &s, &total, 1);
  report("flat_native.mean", &m, &mean, 1);
  check(flat_scalar_run(in, flat_out, nullptr), "flat_scalar");
  report("flat_scalar.sum", &s, &total, 1);
  report("flat_scalar.mean", &m, &mean, 1);

  std::vector<float> rs(kRows), rm(kRows);
  void* rows_out[4] = {rs.data(), rm.data(), &s, &m};
  check(rows_native_run(in, rows_out, nullptr), "rows_native");
  report("rows_native.row_sum", rs.data(), row_sum.data(), kRows);
  report("rows_native.row_mean", rm.data(), row_mean.data(), kRows);
  report("rows_native.sum", &s, &total, 1);
  report("rows_native.mean", &m, &mean, 1);
  check(rows_scalar_run(in, rows_out, nullptr), "rows_scalar");
  report("rows_scalar.row_sum", rs.data(), row_sum.data(), kRows);
  report("rows_scalar.row_mean", rm.data(), row_mean.data(), kRows);
  report("rows_scalar.sum", &s, &total, 1);
  report("rows_scalar.mean", &m, &mean, 1);
  std::free(x);
  return 0;
}
)cxx";

// The whole pipeline, as `staxc compile` runs it, with the instruction set pinned.
codegen::GeneratedCode generate(const std::string& json, const std::string& name, IsaTarget isa) {
  driver::CompileOptions o;
  o.name = name;
  o.isa = isa;
  return driver::compile_graph(graph::parse_graph(json), o).code;
}

TEST(LongReduction, SumAndMeanOf2To27Float32Values) {
  driver::TempDir dir;
  const fs::path d = dir.path();
  std::string main = "// The long-reduction check: every model below, then main.\n";
  for (const auto& [json, graph_name] : {std::pair{kFlat, "flat"}, std::pair{kRows, "rows"}}) {
    for (const auto& [isa, isa_name] : {std::pair{IsaTarget::native(), "native"}, std::pair{IsaTarget::of(Isa::Scalar), "scalar"}}) {
      const std::string name = std::string(graph_name) + "_" + isa_name;
      driver::write_file_atomic(d / (name + ".cpp"), generate(json, name, isa).source);
      main += "#include \"" + name + ".cpp\"\n";
    }
  }
  driver::write_file_atomic(d / "main.cpp", main + kMain);

  std::vector<std::string> build = {"g++"};
  for (const std::string& flag : optimized_cxxflags()) build.push_back(flag);
  build.insert(build.end(), {(d / "main.cpp").string(), "-o", (d / "long_reduction").string(), "-lsleef"});
  const driver::ProcessResult built = driver::run_process(build, d / "build.log");
  ASSERT_EQ(built.exit_code, 0) << driver::command_line(build) << "\n" << built.output;

  const driver::ProcessResult ran = driver::run_process({(d / "long_reduction").string()}, d / "run.log");
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  std::istringstream lines(ran.output);
  std::string line;
  int results = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string tag, what;
    std::size_t index = 0;
    double got = 0, want = 0, rel = 0;
    if (!(fields >> tag >> what >> index >> got >> want >> rel) || tag != "RESULT") continue;
    ++results;
    EXPECT_LE(rel, kRelTolerance) << what << "[" << index << "] = " << got << ", exact " << want;
  }
  // flat: sum and mean for two instruction sets; rows: four outputs for two.
  EXPECT_EQ(results, 12) << ran.output;
}

}  // namespace
}  // namespace stax::e2e

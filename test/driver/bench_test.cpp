// `staxc bench` as a library: its options, the timing harness it writes, how a failed build or
// run of such a program is reported, and one real run on a small graph whose report must hold
// consistent fields (what is timed is not judged here: timings belong to scripts/bench.sh).
#include "stax/driver/bench.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "stax/driver/inputs.h"
#include "stax/graph/frontend.h"

namespace stax::driver {
namespace {

// The message of the UserError that check_bench_options throws, or "" when it accepts.
std::string option_error(const BenchOptions& o) {
  try {
    check_bench_options(o);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Bench, OptionsAreChecked) {
  EXPECT_EQ(option_error({}), "");
  BenchOptions o;
  o.reps = 0;
  EXPECT_EQ(option_error(o), "--reps must be at least 1");
  o = {};
  o.warmup = -1;
  EXPECT_EQ(option_error(o), "--warmup must not be negative");
  o = {};
  o.threads = {2, 0};
  EXPECT_EQ(option_error(o), "--threads must be at least 1, got 0");
  o = {};
  o.wait_policies = {"passive", "lazy"};
  EXPECT_NE(option_error(o).find("unknown OpenMP wait policy 'lazy'"), std::string::npos);
  o.wait_policies = {"inherit", "default", "passive", "active"};
  EXPECT_EQ(option_error(o), "");
}

TEST(Bench, HarnessCallsBothModelsByName) {
  const std::string s = bench_harness_source("softmax", "stax_bench_tiny");
  EXPECT_NE(s.find("softmax_run(in.data(), out.data(), ws)"), std::string::npos);
  EXPECT_NE(s.find("stax_bench_tiny_run_checked("), std::string::npos);
  EXPECT_NE(s.find("softmax_strerror(rc)"), std::string::npos);
  EXPECT_EQ(s.find("MODEL_"), std::string::npos);
  EXPECT_EQ(s.find("TINY_"), std::string::npos);
  EXPECT_NE(s.find("#include \"model0.cpp\"\n#include \"model1.cpp\""), std::string::npos);
}

TEST(Bench, TinyModelNameAvoidsTheModel) {
  EXPECT_EQ(compile_tiny_model({}, "softmax").code.name, "stax_bench_tiny");
  EXPECT_EQ(compile_tiny_model({}, "stax_bench_tiny").code.name, "stax_bench_tiny2");
}

// The exit statuses of programs built around generated code, shared by Harness::run and the
// benchmark.
TEST(Bench, HarnessExitStatuses) {
  EXPECT_NO_THROW(check_harness_exit(ProcessResult{0, "threads 1\n"}, "m", "the benchmark of 'm' failed"));
  try {
    check_harness_exit(ProcessResult{kHarnessApiBase + 1, "integer division or remainder by zero\n"}, "m", "x");
    ADD_FAILURE() << "no GeneratedCodeError";
  } catch (const GeneratedCodeError& e) {
    EXPECT_EQ(e.code(), 1);
    EXPECT_STREQ(e.what(), "generated code of 'm': integer division or remainder by zero");
  }
  try {
    check_harness_exit(ProcessResult{kHarnessUsage, "cannot read\n"}, "m", "the benchmark of 'm' failed");
    ADD_FAILURE() << "no RuntimeFailure";
  } catch (const GeneratedCodeError&) {
    ADD_FAILURE() << "a harness error is no error code of the C API";
  } catch (const RuntimeFailure& e) {
    EXPECT_STREQ(e.what(), "the benchmark of 'm' failed (exit status 2, harness error)");
  }
  try {
    check_harness_exit(ProcessResult{128 + 11, ""}, "m", "the benchmark of 'm' failed");
    ADD_FAILURE() << "no RuntimeFailure";
  } catch (const RuntimeFailure& e) {
    EXPECT_STREQ(e.what(), "the benchmark of 'm' failed (killed by signal 11)");
  }
}

const char* kGraph = R"({"format": "stax-graph", "version": 1, "name": "m",
  "inputs": [{"name": "x", "dtype": "float32", "shape": [256, 128]}],
  "nodes": [{"name": "y", "op": "sub", "args": [{"op": "exp", "args": ["x"]}, 1.0]},
            {"name": "s", "op": "sum", "args": ["x"], "dim": -1}],
  "outputs": ["y", "s", "y"]})";

TEST(Bench, FailedBuildIsARuntimeFailure) {
  const CompiledModel m = compile_graph(graph::parse_graph(kGraph));
  const CompiledModel tiny = compile_tiny_model({}, m.code.name);
  BuildOptions build;
  build.cxx = "false";  // a compiler that always fails
  BenchOptions opts;
  opts.reps = 1;
  try {
    bench_model(m, tiny, prepare_inputs(m.graph, {}, 0), opts, build);
    ADD_FAILURE() << "no RuntimeFailure";
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("the generated code with the timing harness failed to build (false exited "
                                         "with status 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(Bench, RunReportsConsistentFields) {
  const CompiledModel m = compile_graph(graph::parse_graph(kGraph));
  const CompiledModel tiny = compile_tiny_model({}, m.code.name);
  BenchOptions opts;
  opts.reps = 4;
  opts.warmup = 1;
  opts.threads = {1, 2};
  const BenchReport r = bench_model(m, tiny, prepare_inputs(m.graph, {}, 0), opts);

  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.signature, "x: float32[256, 128] -> y: float32[256, 128], s: float32[256], y: float32[256, 128]");
  EXPECT_EQ(r.input_bytes, 256u * 128 * 4);
  EXPECT_EQ(r.output_bytes, 256u * 128 * 4 + 256 * 4);  // y once, though it is returned twice
  EXPECT_EQ(r.min_traffic_bytes, r.input_bytes + r.output_bytes);
  EXPECT_EQ(r.workspace_bytes, m.code.workspace_size);
  EXPECT_EQ(r.compile_command, "-std=c++17 -O3 -march=native -fopenmp");
  EXPECT_GT(r.build_seconds, 0);
  EXPECT_EQ(r.reps, 4);
  EXPECT_EQ(r.warmup, 1);
  ASSERT_EQ(r.runs.size(), 2u);
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const BenchRun& b = r.runs[k];
    SCOPED_TRACE("threads " + std::to_string(b.threads));
    EXPECT_EQ(b.threads, static_cast<int>(k) + 1);
    EXPECT_EQ(b.wait_policy, "inherit");
    ASSERT_EQ(b.ms.size(), 4u);
    for (double t : b.ms) EXPECT_GT(t, 0);
    std::vector<double> sorted = b.ms;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(b.min_ms, sorted.front());
    EXPECT_EQ(b.max_ms, sorted.back());
    EXPECT_EQ(b.median_ms, 0.5 * (sorted[1] + sorted[2]));
    EXPECT_NEAR(b.gbs, static_cast<double>(r.min_traffic_bytes) / (b.median_ms * 1e-3) / 1e9, 1e-9 * b.gbs);
    for (double ns : {b.tiny_call_ns, b.tiny_checked_ns, b.tiny_loop_ns, b.omp_region_ns}) {
      EXPECT_TRUE(std::isfinite(ns) && ns > 0) << ns;
    }
    EXPECT_EQ(b.tiny_overhead_ns, b.tiny_call_ns - b.tiny_loop_ns);
  }

  const std::string text = format_bench_text(r);
  EXPECT_EQ(text.rfind("model m: x: float32[256, 128] -> y: float32[256, 128]", 0), 0u) << text;
  EXPECT_NE(text.find("minimum traffic 257.0 KiB (inputs 128.0 KiB read once, outputs 129.0 KiB written once)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n      1  inherit "), std::string::npos) << text;
  EXPECT_NE(text.find("\n      2  inherit "), std::string::npos) << text;

  const nlohmann::json j = nlohmann::json::parse(format_bench_json(r));
  EXPECT_EQ(j["model"], "m");
  EXPECT_EQ(j["min_traffic_bytes"], r.min_traffic_bytes);
  EXPECT_EQ(j["reps"], 4);
  ASSERT_EQ(j["runs"].size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const nlohmann::json& run = j["runs"][k];
    EXPECT_EQ(run["threads"], r.runs[k].threads);
    EXPECT_EQ(run["ms"].size(), 4u);
    for (const char* key : {"median_ms", "gbs", "tiny_call_ns", "tiny_checked_ns", "tiny_loop_ns", "tiny_overhead_ns",
                            "omp_region_ns"})
      EXPECT_TRUE(run.contains(key) && run[key].is_number()) << key;
    EXPECT_NEAR(run["tiny_overhead_ns"].get<double>(), r.runs[k].tiny_overhead_ns, 0.06);
  }
}

}  // namespace
}  // namespace stax::driver

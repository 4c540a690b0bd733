// `staxc bench`: the generated code of a model built with a timing harness and run on random
// inputs. Buffers (inputs, outputs, workspace) are allocated and touched once and reused by every
// call; after warm-up calls, each timed call of NAME_run (with a caller workspace) is measured.
// The effective bandwidth is the graph's minimum traffic (every input read once, every output
// written once) over the median time. The same harness measures the per-call cost of the
// generated wrapper on a tiny graph (float32[64, 128], y = x + 1): the time of a call less that
// of a plain vectorized loop doing the same work, next to the cost of an empty OpenMP parallel
// region, which the wrapper pays for each parallel kernel.
//
// Each configuration (a thread count and an OpenMP wait policy) runs in a fresh process of the
// same build: libgomp reads OMP_WAIT_POLICY once at start-up, and its default lets idle workers
// spin, which on a machine with few cores can delay a wake-up after serial work by milliseconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stax/driver/build.h"
#include "stax/driver/compile.h"
#include "stax/support/tensor.h"

namespace stax::driver {

struct BenchOptions {
  int reps = 20;                    // timed calls per configuration (>= 1)
  int warmup = 3;                   // untimed calls before them (>= 0)
  std::vector<int> threads;         // thread counts (>= 1); empty: OpenMP's default
  // OMP_WAIT_POLICY per configuration: "inherit" (the environment's), "default" (unset: libgomp's
  // default), "passive" or "active". Empty: {"inherit"}.
  std::vector<std::string> wait_policies;
};

// One configuration's measurements.
struct BenchRun {
  int threads = 0;                  // as the harness saw it (omp_get_max_threads)
  std::string wait_policy;
  std::vector<double> ms;           // each timed call, in order
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double gbs = 0;                   // minimum traffic / median, 10^9 bytes per second
  double tiny_call_ns = 0;          // median ns per call of the tiny graph's NAME_run
  double tiny_checked_ns = 0;       // the same through NAME_run_checked (arguments verified)
  double tiny_loop_ns = 0;          // the same work as a plain serial vectorized loop
  double tiny_overhead_ns = 0;      // tiny_call_ns - tiny_loop_ns: the wrapper's per-call cost
  double omp_region_ns = 0;         // median ns of an empty OpenMP parallel region (§8.4's o)
};

struct BenchReport {
  std::string model;
  std::string signature;            // inputs -> outputs, dtypes and shapes
  uint64_t input_bytes = 0;
  uint64_t output_bytes = 0;
  uint64_t min_traffic_bytes = 0;   // input_bytes + output_bytes
  std::size_t workspace_bytes = 0;
  std::string compile_command;
  double build_seconds = 0;
  int reps = 0, warmup = 0;
  std::vector<BenchRun> runs;
};

// UserError unless the options are valid (checked again by bench_model; a command checks them
// first, before the slow steps).
void check_bench_options(const BenchOptions& opts);

// The tiny graph of the overhead measurement, compiled with `opts` (its name is
// "stax_bench_tiny", or "stax_bench_tiny2" when `avoid_name` already is that).
CompiledModel compile_tiny_model(const CompileOptions& opts, const std::string& avoid_name);

// Builds `m` (with `tiny`) into one timing harness and runs every configuration of `opts` on
// `inputs` (graph input order). RuntimeFailure when the build fails or the harness crashes,
// GeneratedCodeError when a call returns an error code; UserError for invalid options.
BenchReport bench_model(const CompiledModel& m, const CompiledModel& tiny, const std::vector<Tensor>& inputs,
                        const BenchOptions& opts, const BuildOptions& build = {});

// The report as text (a table, one line per configuration) and as one JSON object.
std::string format_bench_text(const BenchReport& r);
std::string format_bench_json(const BenchReport& r);

// The main of the timing harness for models model0.cpp (named `model`) and model1.cpp (named
// `tiny`): bench DIR THREADS REPS WARMUP. Shown for tests and debugging.
std::string bench_harness_source(const std::string& model, const std::string& tiny);

}  // namespace stax::driver

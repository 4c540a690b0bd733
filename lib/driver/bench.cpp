#include "stax/driver/bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "stax/driver/process.h"
#include "stax/graph/frontend.h"

namespace stax::driver {

namespace fs = std::filesystem;

namespace {

std::string tiny_graph_json(const std::string& name) {
  return R"({"format": "stax-graph", "version": 1, "name": ")" + name +
         R"(", "inputs": [{"name": "x", "dtype": "float32", "shape": [64, 128]}],
             "nodes": [{"name": "y", "op": "add", "args": ["x", 1.0]}], "outputs": ["y"]})";
}

uint64_t value_bytes(const graph::Value& v) {
  uint64_t n = dtype_size(v.dtype);
  for (int64_t d : v.shape) n *= static_cast<uint64_t>(d);
  return n;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

bool valid_policy(const std::string& p) {
  return p == "inherit" || p == "default" || p == "passive" || p == "active";
}

// argv prefix that gives the harness the wanted OMP_WAIT_POLICY (through env(1)).
std::vector<std::string> policy_prefix(const std::string& policy) {
  if (policy == "inherit") return {};
  if (policy == "default") return {"env", "-u", "OMP_WAIT_POLICY"};
  return {"env", "OMP_WAIT_POLICY=" + policy};
}

double parse_number(const std::string& text, const std::string& line) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) throw RuntimeFailure("the benchmark harness printed an unreadable line: " + line);
  return v;
}

BenchRun parse_run(const std::string& output, const std::string& policy) {
  BenchRun run;
  run.wait_policy = policy;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t sp = line.find(' ');
    if (sp == std::string::npos) continue;
    const std::string key = line.substr(0, sp), value = line.substr(sp + 1);
    if (key == "threads") run.threads = static_cast<int>(parse_number(value, line));
    else if (key == "run_ms") run.ms.push_back(parse_number(value, line));
    else if (key == "tiny_call_ns") run.tiny_call_ns = parse_number(value, line);
    else if (key == "tiny_checked_ns") run.tiny_checked_ns = parse_number(value, line);
    else if (key == "tiny_loop_ns") run.tiny_loop_ns = parse_number(value, line);
    else if (key == "omp_region_ns") run.omp_region_ns = parse_number(value, line);
  }
  if (run.ms.empty()) throw RuntimeFailure("the benchmark harness printed no timings: " + output);
  run.tiny_overhead_ns = run.tiny_call_ns - run.tiny_loop_ns;
  run.median_ms = median_of(run.ms);
  run.min_ms = *std::min_element(run.ms.begin(), run.ms.end());
  run.max_ms = *std::max_element(run.ms.begin(), run.ms.end());
  return run;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string bytes_text(uint64_t bytes) {
  if (bytes >= (uint64_t(1) << 20)) return fixed(static_cast<double>(bytes) / (1024.0 * 1024.0), 1) + " MiB";
  if (bytes >= 1024) return fixed(static_cast<double>(bytes) / 1024.0, 1) + " KiB";
  return std::to_string(bytes) + " B";
}

// "x: float32[4096, 4096], w: float32[4096] -> y: float32[4096, 4096]"
std::string one_line_signature(const graph::Graph& g) {
  auto list = [&g](const std::vector<graph::ValueId>& ids) {
    std::string s;
    for (graph::ValueId id : ids) {
      const graph::Value& v = g[id];
      s += (s.empty() ? "" : ", ") + v.name + ": " + std::string(dtype_name(v.dtype)) + shape_str(v.shape);
    }
    return s;
  };
  return list(g.inputs) + " -> " + list(g.outputs);
}

// JSON string of a value that is a C identifier, a flag list or a signature (no control
// characters; quotes and backslashes escaped).
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

CompiledModel compile_tiny_model(const CompileOptions& opts, const std::string& avoid_name) {
  const std::string name = avoid_name == "stax_bench_tiny" ? "stax_bench_tiny2" : "stax_bench_tiny";
  CompileOptions o = opts;
  o.name = name;
  o.dump_ir.clear();
  return compile_graph(graph::parse_graph(tiny_graph_json(name)), o);
}

std::string bench_harness_source(const std::string& model, const std::string& tiny) {
  std::string s;
  s += "// The timing harness of `staxc bench`: bench DIR THREADS REPS WARMUP. Reads DIR/in<i>.bin,\n";
  s += "// calls " + model + "_run WARMUP times, then REPS timed times (buffers allocated once), and\n";
  s += "// measures the per-call cost of " + tiny + "_run. THREADS 0 keeps OpenMP's default.\n";
  s += "#include \"model0.cpp\"\n#include \"model1.cpp\"\n";
  s += R"(
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void* alloc(size_t n) {
  void* p = std::aligned_alloc(64, n == 0 ? 64 : (n + 63) / 64 * 64);
  if (p == nullptr) {
    std::fprintf(stderr, "cannot allocate %zu bytes\n", n);
    std::exit(2);
  }
  std::memset(p, 0, n);  // every page touched before timing
  return p;
}

size_t byte_size(int dtype, int ndim, const int64_t* shape) {
  size_t n = dtype == STAX_FLOAT64 || dtype == STAX_INT64 ? 8 : dtype == STAX_BOOL ? 1 : 4;
  for (int d = 0; d < ndim; ++d) n *= static_cast<size_t>(shape[d]);
  return n;
}

bool read_exact(const std::string& path, void* p, size_t n) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  const size_t got = std::fread(p, 1, n, f);
  const bool at_end = std::fgetc(f) == EOF;
  std::fclose(f);
  return got == n && at_end;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// The tiny graph's work as a plain loop, vectorized whatever the flags' optimization level
// (not inlined into main, so that it stays one call like TINY_run).
constexpr int kTinyElements = 64 * 128;
__attribute__((noinline)) void add_one(const float* __restrict x, float* __restrict y) {
#pragma omp simd aligned(x, y : 64)
  for (int i = 0; i < kTinyElements; ++i) y[i] = x[i] + 1.0f;
  __asm__ __volatile__("" : : "r"(y) : "memory");
}

// An empty parallel region: the fixed cost o of a region (§8.4) under this configuration.
__attribute__((noinline)) void empty_region() {
#pragma omp parallel
  { __asm__ __volatile__("" : : : "memory"); }
}

// ns per call of a batch of `calls` calls of f.
template <typename F> double batch_ns(int calls, F f) {
  const double t0 = omp_get_wtime();
  for (int c = 0; c < calls; ++c) f();
  return (omp_get_wtime() - t0) * 1e9 / calls;
}

int check(int rc) {
  if (rc == STAX_OK) return rc;
  std::fprintf(stderr, "%s\n", MODEL_strerror(rc));
  std::exit(10 + rc);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s DIR THREADS REPS WARMUP\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const int threads = std::atoi(argv[2]), reps = std::atoi(argv[3]), warmup = std::atoi(argv[4]);
  if (threads > 0) omp_set_num_threads(threads);

  const int ni = MODEL_num_inputs(), no = MODEL_num_outputs();
  std::vector<const void*> in(ni + 1, nullptr);
  std::vector<void*> out(no + 1, nullptr);
  for (int i = 0; i < ni; ++i) {
    const size_t n = byte_size(MODEL_input_dtype(i), MODEL_input_ndim(i), MODEL_input_shape(i));
    void* p = alloc(n);
    const std::string path = dir + "/in" + std::to_string(i) + ".bin";
    if (!read_exact(path, p, n)) {
      std::fprintf(stderr, "cannot read %zu bytes from %s\n", n, path.c_str());
      return 2;
    }
    in[i] = p;
  }
  for (int o = 0; o < no; ++o) out[o] = alloc(byte_size(MODEL_output_dtype(o), MODEL_output_ndim(o), MODEL_output_shape(o)));
  void* ws = MODEL_workspace_size() > 0 ? alloc(MODEL_workspace_size()) : nullptr;

  for (int r = 0; r < warmup; ++r) check(MODEL_run(in.data(), out.data(), ws));
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const double t0 = omp_get_wtime();
    check(MODEL_run(in.data(), out.data(), ws));
    ms.push_back((omp_get_wtime() - t0) * 1e3);
  }
  std::printf("threads %d\n", omp_get_max_threads());
  for (double t : ms) std::printf("run_ms %.6f\n", t);

  // The wrapper's per-call cost: TINY_run and TINY_run_checked (y = x + 1 on 64 x 128 floats)
  // against the same work as a plain loop, and an empty parallel region; medians of batches of
  // calls, the four kinds of batch interleaved so that they see the same machine. Many short
  // batches, so that a batch interrupted by another process does not move the median.
  // x and y half a page apart modulo 4 KiB: loads of x never falsely depend on recent stores
  // to y (4K aliasing), which otherwise doubles the loop's time or not depending on where the
  // allocator happens to put them.
  const int kBatches = 101, kCalls = 100;
  const size_t tiny_bytes = kTinyElements * sizeof(float);
  char* tiny_block = static_cast<char*>(alloc(2 * tiny_bytes + 2048));
  float* x = reinterpret_cast<float*>(tiny_block);
  float* y = reinterpret_cast<float*>(tiny_block + tiny_bytes + 2048);
  for (int i = 0; i < kTinyElements; ++i) x[i] = static_cast<float>(i % 7);
  void* tws = TINY_workspace_size() > 0 ? alloc(TINY_workspace_size()) : nullptr;
  const void* tin[1] = {x};
  void* tout[1] = {y};
  const stax_layout tlayout = {STAX_FLOAT32, TINY_input_ndim(0), TINY_input_shape(0), nullptr};
  char message[256];
  auto call = [&] { check(TINY_run(tin, tout, tws)); };
  auto checked = [&] { check(TINY_run_checked(1, tin, &tlayout, 1, tout, &tlayout, tws, message, sizeof message)); };
  for (int c = 0; c < 200; ++c) call();
  std::vector<double> call_ns, checked_ns, loop_ns, region_ns;
  for (int b = 0; b < kBatches; ++b) {
    call_ns.push_back(batch_ns(kCalls, call));
    checked_ns.push_back(batch_ns(kCalls, checked));
    loop_ns.push_back(batch_ns(kCalls, [&] { add_one(x, y); }));
    region_ns.push_back(batch_ns(kCalls, empty_region));
  }
  std::memset(y, 0, tiny_bytes);
  check(TINY_run(tin, tout, tws));
  for (int i = 0; i < kTinyElements; ++i) {
    if (y[i] != x[i] + 1.0f) {
      std::fprintf(stderr, "the tiny graph computed a wrong value\n");
      return 2;
    }
  }
  std::printf("tiny_call_ns %.1f\n", median(call_ns));
  std::printf("tiny_checked_ns %.1f\n", median(checked_ns));
  std::printf("tiny_loop_ns %.1f\n", median(loop_ns));
  std::printf("omp_region_ns %.1f\n", median(region_ns));
  return 0;
}
)";
  // The C API's symbols carry the model names.
  auto replace_all = [](std::string& text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace_all(s, "MODEL_", model + "_");
  replace_all(s, "TINY_", tiny + "_");
  return s;
}

void check_bench_options(const BenchOptions& opts) {
  if (opts.reps < 1) throw UserError("--reps must be at least 1");
  if (opts.warmup < 0) throw UserError("--warmup must not be negative");
  for (int t : opts.threads)
    if (t < 1) throw UserError("--threads must be at least 1, got " + std::to_string(t));
  for (const std::string& p : opts.wait_policies)
    if (!valid_policy(p))
      throw UserError("unknown OpenMP wait policy '" + p + "' (expected inherit, default, passive or active)");
}

BenchReport bench_model(const CompiledModel& m, const CompiledModel& tiny, const std::vector<Tensor>& inputs,
                        const BenchOptions& opts, const BuildOptions& build) {
  check_bench_options(opts);
  const std::vector<std::string> policies =
      opts.wait_policies.empty() ? std::vector<std::string>{"inherit"} : opts.wait_policies;
  STAX_ASSERT(inputs.size() == m.graph.inputs.size(), "one tensor per graph input");

  BenchReport r;
  r.model = m.code.name;
  r.signature = one_line_signature(m.graph);
  for (graph::ValueId id : m.graph.inputs) r.input_bytes += value_bytes(m.graph[id]);
  std::vector<graph::ValueId> outs = m.graph.outputs;
  std::sort(outs.begin(), outs.end());
  outs.erase(std::unique(outs.begin(), outs.end()), outs.end());
  for (graph::ValueId id : outs) r.output_bytes += value_bytes(m.graph[id]);
  r.min_traffic_bytes = r.input_bytes + r.output_bytes;
  r.workspace_bytes = m.code.workspace_size;
  r.reps = opts.reps;
  r.warmup = opts.warmup;

  TempDir dir;
  write_generated(m.code, dir.path() / "model0.cpp", {});
  write_generated(tiny.code, dir.path() / "model1.cpp", {});
  const fs::path main = dir.path() / "bench.cpp";
  write_file_atomic(main, bench_harness_source(m.code.name, tiny.code.name));
  const fs::path exe = dir.path() / "bench";
  r.compile_command = command_line(build_flags(build));
  const auto t0 = std::chrono::steady_clock::now();
  build_program(build, main, exe, dir.path() / "build.log", "the generated code with the timing harness");
  r.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (std::size_t i = 0; i < inputs.size(); ++i)
    write_file_atomic(dir.path() / ("in" + std::to_string(i) + ".bin"),
                      std::string(reinterpret_cast<const char*>(inputs[i].data()), inputs[i].nbytes()));

  const std::vector<int> thread_counts = opts.threads.empty() ? std::vector<int>{0} : opts.threads;
  for (int threads : thread_counts) {
    for (const std::string& policy : policies) {
      std::vector<std::string> run = policy_prefix(policy);
      run.insert(run.end(), {exe.string(), dir.path().string(), std::to_string(threads), std::to_string(opts.reps),
                             std::to_string(opts.warmup)});
      const ProcessResult res = run_process(run, dir.path() / "run.log");
      check_harness_exit(res, r.model, "the benchmark of '" + r.model + "' failed");
      BenchRun b = parse_run(res.output, policy);
      b.gbs = b.median_ms > 0 ? static_cast<double>(r.min_traffic_bytes) / (b.median_ms * 1e-3) / 1e9 : 0;
      r.runs.push_back(std::move(b));
    }
  }
  return r;
}

std::string format_bench_text(const BenchReport& r) {
  std::string s;
  s += "model " + r.model + ": " + r.signature + "\n";
  s += "minimum traffic " + bytes_text(r.min_traffic_bytes) + " (inputs " + bytes_text(r.input_bytes) + " read once, outputs " +
       bytes_text(r.output_bytes) + " written once); workspace " + bytes_text(r.workspace_bytes) + "\n";
  s += "built with " + r.compile_command + " in " + fixed(r.build_seconds, 1) + " s; " + std::to_string(r.warmup) +
       " warm-up and " + std::to_string(r.reps) + " timed calls of " + r.model + "_run per configuration\n";
  s += "threads  wait policy   median ms     min ms     max ms   GB/s (min traffic)   tiny call ns  loop ns  "
       "overhead ns  omp region ns\n";
  for (const BenchRun& b : r.runs) {
    char line[256];
    std::snprintf(line, sizeof line, "%7d  %-11s %11.3f %10.3f %10.3f %10.2f %20.0f %8.0f %12.0f %14.0f\n", b.threads,
                  b.wait_policy.c_str(), b.median_ms, b.min_ms, b.max_ms, b.gbs, b.tiny_call_ns, b.tiny_loop_ns,
                  b.tiny_overhead_ns, b.omp_region_ns);
    s += line;
  }
  s += "tiny: float32[64, 128] y = x + 1, median ns per call through the generated wrapper and as a plain vectorized\n"
       "loop; overhead is their difference (the wrapper's per-call cost), omp region an empty parallel region\n";
  return s;
}

std::string format_bench_json(const BenchReport& r) {
  std::string s = "{";
  s += "\"model\": " + json_string(r.model) + ", \"signature\": " + json_string(r.signature);
  s += ", \"input_bytes\": " + std::to_string(r.input_bytes) + ", \"output_bytes\": " + std::to_string(r.output_bytes);
  s += ", \"min_traffic_bytes\": " + std::to_string(r.min_traffic_bytes);
  s += ", \"workspace_bytes\": " + std::to_string(r.workspace_bytes);
  s += ", \"cxxflags\": " + json_string(r.compile_command) + ", \"build_seconds\": " + fixed(r.build_seconds, 3);
  s += ", \"reps\": " + std::to_string(r.reps) + ", \"warmup\": " + std::to_string(r.warmup) + ", \"runs\": [";
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const BenchRun& b = r.runs[k];
    s += k ? ", {" : "{";
    s += "\"threads\": " + std::to_string(b.threads) + ", \"wait_policy\": " + json_string(b.wait_policy);
    s += ", \"median_ms\": " + fixed(b.median_ms, 4) + ", \"min_ms\": " + fixed(b.min_ms, 4) +
         ", \"max_ms\": " + fixed(b.max_ms, 4) + ", \"gbs\": " + fixed(b.gbs, 3);
    s += ", \"tiny_call_ns\": " + fixed(b.tiny_call_ns, 1) + ", \"tiny_checked_ns\": " + fixed(b.tiny_checked_ns, 1) +
         ", \"tiny_loop_ns\": " + fixed(b.tiny_loop_ns, 1) + ", \"tiny_overhead_ns\": " + fixed(b.tiny_overhead_ns, 1) +
         ", \"omp_region_ns\": " + fixed(b.omp_region_ns, 1);
    s += ", \"ms\": [";
    for (std::size_t i = 0; i < b.ms.size(); ++i) s += (i ? ", " : "") + fixed(b.ms[i], 4);
    s += "]}";
  }
  return s + "]}\n";
}

}  // namespace stax::driver

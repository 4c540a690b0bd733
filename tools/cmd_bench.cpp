// staxc bench MODEL.json: build the generated code with a timing harness, run it on random
// inputs, print the median time and the effective bandwidth on the graph's minimum traffic.
#include "commands.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "codegen_options.h"
#include "stax/driver/bench.h"
#include "stax/driver/inputs.h"
#include "stax/support/error.h"

namespace stax::tools {

namespace {

struct BenchCommandOptions {
  ModelArgument model;
  InputOptions inputs;
  int reps = 20;
  int warmup = 3;
  std::string threads;
  std::string wait_policy;
  bool json = false;
  GenerateOptions generate;
  CompilerOptions compiler;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    const std::size_t end = comma == std::string::npos ? s.size() : comma;
    parts.push_back(s.substr(start, end - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::vector<int> parse_threads(const std::string& s) {
  std::vector<int> counts;
  if (s.empty()) return counts;
  for (const std::string& part : split_commas(s)) {
    const bool digits = !part.empty() && part.size() <= 4 && part.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(part) < 1)
      throw UserError("--threads expects positive integers separated by commas, got '" + s + "'");
    counts.push_back(std::stoi(part));
  }
  return counts;
}

void run_bench(const BenchCommandOptions& opts) {
  std::vector<driver::InputFile> given = input_files(opts.inputs);
  driver::BenchOptions bench;
  bench.reps = opts.reps;
  bench.warmup = opts.warmup;
  bench.threads = parse_threads(opts.threads);
  if (!opts.wait_policy.empty()) bench.wait_policies = split_commas(opts.wait_policy);
  driver::check_bench_options(bench);
  const driver::CompileOptions compile = opts.generate.compile_options();
  driver::CompiledModel m = driver::compile_model(opts.model.path, compile, opts.model.options());
  // The tiny graph belongs to the harness: the dumps and logs asked for are the model's alone.
  driver::CompileOptions tiny_options = compile;
  tiny_options.dump_schedule.clear();
  tiny_options.dump_memory.clear();
  tiny_options.dump_kernel_plan.clear();
  tiny_options.log.clear();
  const driver::CompiledModel tiny = driver::compile_tiny_model(tiny_options, m.code.name);
  std::vector<Tensor> inputs = driver::prepare_inputs(m.graph, given, opts.inputs.seed);
  const driver::BenchReport report = driver::bench_model(m, tiny, inputs, bench, opts.compiler.build_options());
  std::cout << (opts.json ? driver::format_bench_json(report) : driver::format_bench_text(report));
  std::cout.flush();
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto opts = std::make_shared<BenchCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Build the generated code with a timing harness; print the median time and the bandwidth");
  add_model_argument(*cmd, opts->model);
  add_input_options(*cmd, opts->inputs);
  cmd->add_option("--reps", opts->reps, "Timed calls per configuration")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--warmup", opts->warmup, "Untimed calls before them")
      ->type_name("N")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--threads", opts->threads,
                  "OpenMP threads of the generated code; a list such as 1,2 measures each (default: "
                  "OpenMP's, i.e. OMP_NUM_THREADS or every core)")
      ->type_name("N[,N...]");
  cmd->add_option("--omp-wait-policy", opts->wait_policy,
                  "OMP_WAIT_POLICY of the measured process: inherit (the environment's, the default), "
                  "default (unset), passive or active; a list such as default,passive measures each")
      ->type_name("POLICY[,POLICY...]");
  cmd->add_flag("--json", opts->json, "Print one JSON object instead of the table");
  add_generate_options(*cmd, opts->generate);
  add_compiler_options(*cmd, opts->compiler);
  cmd->footer(
      "Inputs are generated as 'staxc run' does (or read with --input); inputs, outputs and the\n"
      "workspace are allocated and touched once and reused by every call. Each configuration\n"
      "(thread count x wait policy) runs in a fresh process of the same build: after --warmup\n"
      "untimed calls, --reps calls of NAME_run are timed one by one. GB/s is the graph's minimum\n"
      "traffic (each input read once, each output written once) over the median time. The same\n"
      "process times a tiny graph (float32[64, 128], y = x + 1) through its generated wrapper\n"
      "and as a plain vectorized loop; their difference is the wrapper's per-call cost (overhead\n"
      "ns), shown next to the cost of an empty OpenMP parallel region.\n"
      "\n"
      "Examples:\n"
      "  staxc bench samples/bench/softmax.json\n"
      "  staxc bench samples/bench/layer_norm.json --threads 1,2 --omp-wait-policy default,passive --json");
  cmd->callback([opts] { run_bench(*opts); });
}

}  // namespace stax::tools

#include "codegen_options.h"

namespace stax::tools {

driver::CompileOptions GenerateOptions::compile_options() const {
  driver::CompileOptions o;
  o.name = name;
  o.dump_ir = dump_ir;
  o.fuse = !no_fuse;
  o.chapter_rules = fusion_rules == "chapter";
  o.dump_schedule = dump_schedule;
  o.dump_memory = dump_memory;
  o.dump_kernel_plan = dump_kernel_plan;
  o.svg_schedule = svg_schedule;
  o.svg_memory = svg_memory;
  o.dot_schedule = dot_schedule;
  o.log = log;
  o.verbose = verbose;
  o.isa = IsaTarget::parse(isa).value_or(IsaTarget::native());
  o.weights_threshold = weights_threshold;
  return o;
}

void add_generate_options(CLI::App& cmd, GenerateOptions& opts) {
  cmd.add_option("--name", opts.name,
                 "The model's name, prefix of every C API symbol (default: the graph's \"name\")")
      ->type_name("NAME");
  cmd.add_option("--dump-ir", opts.dump_ir,
                 "Also write the lowered program (loop ranges, index expressions, bodies) as text")
      ->type_name("FILE");
  cmd.add_option("--fusion-rules", opts.fusion_rules,
                 "'default': a value every user of which lands in one kernel is computed there once per "
                 "element, not stored (a pointwise kernel's loops are split to join the rows of a "
                 "reduction: example 7.2's exp with its sum and amax is one pass per row); 'chapter': "
                 "the design chapter's CPU rules as written (example 7.2 stores exp and reads it back)")
      ->type_name("RULES")
      ->check(CLI::IsMember({"default", "chapter"}));
  cmd.add_flag("--no-fuse", opts.no_fuse,
               "Turn fusion off: every computed buffer becomes a kernel of its own (to compare or debug)");
  cmd.add_option("--dump-schedule", opts.dump_schedule,
                 "Also write the schedule as JSON: the kernels in execution order with their nodes, "
                 "graph nodes, kind and iteration group, every fusion with its score and round, and "
                 "the estimated memory traffic")
      ->type_name("FILE.json");
  cmd.add_option("--dump-memory", opts.dump_memory,
                 "Also write the workspace plan as JSON: the kernel order chosen and every candidate "
                 "order's peak, M*, the arena's size, every buffer's size, lifetime and offset, the "
                 "reuse and in-place decisions")
      ->type_name("FILE.json");
  cmd.add_option("--dump-kernel-plan", opts.dump_kernel_plan,
                 "Also write the kernel plan as JSON: per instruction set, every kernel's form, where "
                 "each buffer lives, its vector loop and lanes, its parallel loops (Algorithm 8.1's "
                 "depth and chunk, the shared region), streamed stores and prefetches, each with "
                 "its reason")
      ->type_name("FILE.json");
  cmd.add_option("--svg-schedule", opts.svg_schedule,
                 "Also draw the schedule as SVG: kernels as boxes of their nodes, coloured by kind and "
                 "numbered in execution order, edges labelled with the buffers' bytes")
      ->type_name("FILE.svg");
  cmd.add_option("--svg-memory", opts.svg_memory,
                 "Also draw the memory plan as SVG: each buffer a bar over its lifetime (x: kernel steps) "
                 "at its arena offset (y: bytes), with M* and the arena size marked")
      ->type_name("FILE.svg");
  cmd.add_option("--dot", opts.dot_schedule, "Also write the schedule in Graphviz's language (dot -Tsvg)")
      ->type_name("FILE.dot");
  cmd.add_option("--log", opts.log,
                 "Print a stage's log to stderr (repeatable, or a list: --log fusion,memory); "
                 "'fusion': the scheduler's dependencies, candidates, fusions and resulting kernels; "
                 "'memory': the workspace plan in a few lines (order, M*, arena, reuse, the largest "
                 "intermediates); 'kernels': the kernel plan, each decision with its reason")
      ->type_name("TOPIC")
      ->check(CLI::IsMember({"fusion", "memory", "kernels"}))
      ->delimiter(',')
      ->allow_extra_args(false);
  std::string sets;
  for (const IsaRecord& r : isa_table())
    if (r.id != Isa::Scalar) sets += (sets.empty() ? "'" : ", '") + std::string(r.name) + "'";
  cmd.add_option("--isa", opts.isa,
                 "Instruction set of the vector kernels: 'native' (default) takes the widest the "
                 "compiler of the generated file targets (-march=native: the machine's); " + sets +
                     " pin one (the file then needs a compiler targeting it: -mavx2 -mfma for avx2, an aarch64 "
                     "compiler for neon); "
                     "'scalar' writes plain loops only")
      ->type_name("ISA")
      ->check(CLI::IsMember(isa_target_names()));
  cmd.add_option("--weights-threshold", opts.weights_threshold,
                 "Constants of more bytes than this go into OUT.cpp.weights beside the generated "
                 "source as raw bytes, which the source assembles with .incbin (the compiler never "
                 "parses them); smaller ones are literal arrays of the source (default " +
                     std::to_string(codegen::kDefaultWeightsThreshold) + ")")
      ->type_name("BYTES")
      ->check(CLI::NonNegativeNumber);
  cmd.add_flag("-v,--verbose", opts.verbose, "More detail in the logs (fusion: every refused candidate and why)");
}

driver::BuildOptions CompilerOptions::build_options() const {
  driver::BuildOptions o;
  o.cxxflags = driver::split_flags(cxxflags);
  return o;
}

void add_compiler_options(CLI::App& cmd, CompilerOptions& opts) {
  std::string defaults;
  for (const std::string& f : driver::default_cxxflags()) defaults += (defaults.empty() ? "" : " ") + f;
  cmd.add_option("--cxxflags", opts.cxxflags,
                 "Flags for building the generated code with $CXX (default g++), replacing the "
                 "defaults '" + defaults + "'; -lsleef is always linked. Write --cxxflags='-O1 -g'")
      ->type_name("FLAGS");
}

}  // namespace stax::tools

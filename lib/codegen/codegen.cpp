// generate(): the generated file, top to bottom (design.md, "What the generated file looks like").
#include "stax/codegen/codegen.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "capi.h"
#include "code_writer.h"
#include "emit_forms.h"
#include "model_layout.h"
#include "packed_weights.h"
#include "stax/codegen/literals.h"
#include "stax/codegen/mangle.h"
#include "stax/codegen/prelude.h"
#include "stax/support/error.h"
#include "weights.h"

namespace stax::codegen {

namespace {

bool is_c_identifier(const std::string& s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !digit(c)) return false;
  return true;
}

std::string pointer_expr(const ir::Program& p, const ModelLayout& m, ir::BufferId id) {
  const ir::Buffer& b = p[id];
  const BufferPlace& place = m.places[static_cast<std::size_t>(id)];
  const std::string T = cxx_type(b.dtype);
  switch (place.storage) {
    case Storage::Input:
      return "static_cast<const " + T + "*>(inputs[" + std::to_string(place.input_index) + "])";
    case Storage::Output:
      return "static_cast<" + T + "*>(outputs[" + std::to_string(place.output_index) + "])";
    case Storage::Workspace: return "ws.at<" + T + ">(" + std::to_string(place.offset) + ")";
    case Storage::Constant:
    case Storage::Local:
    case Storage::Unused: break;
  }
  internal_error(__FILE__, __LINE__, "no pointer for buffer " + b.name);
}

std::string call_text(const ModelLayout& m, const KernelCode& k) {
  std::string args;
  for (ir::BufferId id : k.params) args += (args.empty() ? "" : ", ") + m.names[static_cast<std::size_t>(id)];
  const std::string call = k.function + "(" + args + ")";
  if (k.fallible) return "if (const int failed = " + call + ") return stax_rt::kernel_error(failed);";
  return call + ";";
}

// int run_model(inputs, outputs, workspace): pointers, kernels in the plan's order (adjacent
// loop kernels in one parallel region), output copies.
void emit_run(const ir::Program& p, const ModelLayout& m, const kernelplan::ProgramPlan& plan,
              const std::vector<KernelCode>& codes, CodeWriter& out) {
  out.line("// The wrapper (§8.5): buffer pointers, the kernels in order, then the outputs that no");
  out.line("// kernel writes (inputs, constants and repeats) copied into place.");
  out.open("int " + m.run_fn + "(const void* const* inputs, void* const* outputs, void* workspace)");
  bool uses_inputs = false;
  if (m.workspace_size > 0) {
    out.line("stax_rt::Workspace ws(workspace, " + m.workspace_const + ");");
    out.line("if (ws.failed()) return STAX_ERR_OUT_OF_MEMORY;");
  } else {
    out.line("(void)workspace;");
  }
  // Pointers of the buffers the kernels and copies use, in buffer order.
  std::vector<bool> used(p.buffers.size(), false);
  for (const KernelCode& c : codes)
    for (ir::BufferId id : c.params) used[static_cast<std::size_t>(id)] = true;
  for (const OutputCopy& c : m.copies) used[static_cast<std::size_t>(c.from)] = true;
  for (const ir::Buffer& b : p.buffers) {
    const BufferPlace& place = m.places[static_cast<std::size_t>(b.id)];
    if (!used[static_cast<std::size_t>(b.id)] || place.storage == Storage::Constant) continue;
    const std::string T = cxx_type(b.dtype);
    const bool is_input = place.storage == Storage::Input;
    uses_inputs = uses_inputs || is_input;
    out.line(std::string(is_input ? "const " : "") + T + "* const " + m.names[static_cast<std::size_t>(b.id)] +
             " = " + pointer_expr(p, m, b.id) + ";");
  }
  if (!uses_inputs) out.line("(void)inputs;");
  for (std::size_t i = 0; i < codes.size();) {
    const int r = plan.kernels[i].region;
    if (r < 0) {
      out.line(call_text(m, codes[i++]));
      continue;
    }
    const kernelplan::Region& region = plan.regions[static_cast<std::size_t>(r)];
    const std::size_t n = region.kernels.size();
    if (n > 1) {
      out.line("// " + std::to_string(n) + " adjacent loop kernels in one parallel region; each divides its outer");
      out.line("// loops among the threads and ends with a barrier.");
    }
    out.open("if (stax_rt::run_parallel(" + std::to_string(region.work) + ", " + std::to_string(kernelplan::kMinChunk) + "))");
    out.raw("#pragma omp parallel");
    out.open("");
    for (std::size_t k = i; k < i + n; ++k) out.line(call_text(m, codes[k]));
    out.close();
    out.reopen("else");
    for (std::size_t k = i; k < i + n; ++k) out.line(call_text(m, codes[k]));
    out.close();
    i += n;
  }
  for (const OutputCopy& c : m.copies) {
    const ir::Buffer& b = p[c.from];
    out.line("std::memcpy(outputs[" + std::to_string(c.output_index) + "], " +
             m.names[static_cast<std::size_t>(c.from)] + ", sizeof(" + cxx_type(b.dtype) + ") * " +
             std::to_string(b.numel()) + ");");
  }
  out.line("return STAX_OK;");
  out.close();
}

}  // namespace

void check_model_name(const std::string& name) {
  const bool ok = is_c_identifier(name) && name[0] != '_' && name.find("__") == std::string::npos &&
                  !is_keyword(name);
  if (!ok)
    throw UserError("model name '" + name +
                    "' cannot prefix C symbols: it must be a C identifier that is no keyword, does "
                    "not start with '_' and has no '__'");
}

namespace {

// The vector layer's tag for one instruction set's kernels (native or one set); "" for scalar
// loops.
std::string isa_tag(const IsaTarget& isa) {
  if (isa.kind == IsaTarget::Kind::Native) return "stax_rt::IsaNative";
  if (isa.fixed == Isa::Scalar) return "";
  return isa_record(isa.fixed).tag_type();
}

// The kernels of one kernel plan and the runtime sections they need.
struct IsaCode {
  std::vector<KernelCode> kernels;
  std::set<std::string> sections;
};

IsaCode emit_kernels(const ir::Program& p, const scheduler::Schedule& s, const kernelplan::ProgramPlan& plan,
                     const ModelLayout& m) {
  IsaCode code;
  code.sections = {"core", "wrapper"};
  const std::string tag = isa_tag(plan.isa);
  for (const kernelplan::KernelPlan& kp : plan.kernels)
    code.kernels.push_back(emit_kernel(p, s.kernels[static_cast<std::size_t>(kp.kernel)], kp,
                                       m.kernel_names[static_cast<std::size_t>(kp.kernel)], m.names, tag, code.sections));
  return code;
}

void emit_kernels_and_run(const ir::Program& p, const ModelLayout& m, const kernelplan::ProgramPlan& plan,
                          const IsaCode& code, CodeWriter& body, bool with_metadata) {
  for (const KernelCode& k : code.kernels) {
    body.append(k.text);
    body.blank();
  }
  if (with_metadata) emit_metadata(m, body);
  emit_run(p, m, plan, code.kernels, body);
}

void open_model(const ModelLayout& m, CodeWriter& body) {
  body.open_namespace("");
  body.open_namespace(m.ns);
  body.blank();
}

void close_model(const ModelLayout& m, CodeWriter& body) {
  body.close_namespace(m.ns);
  body.close_namespace("");
  body.blank();
}

std::string file_comment(const ModelLayout& m, const IsaTarget& isa, const WeightsPlan& weights) {
  const bool dispatch = isa.kind == IsaTarget::Kind::Dispatch;
  std::string c = "// Generated by staxc from the model '" + m.model + "'. Do not edit.\n";
  if (dispatch)
    c += "// Build: g++ -std=c++17 -O3 -fopenmp -c FILE.cpp (no -m flags: every x86-64 instruction set's\n"
         "// kernels are here, and the best the CPU and OS support is chosen once per process); link with\n"
         "// -lsleef -fopenmp.\n";
  else c += "// Build: g++ -std=c++17 -O3 -march=native -fopenmp -c FILE.cpp; link with -lsleef -fopenmp.\n";
  if (weights.any())
    c += "// The large constants are in FILE.cpp.weights, which the build reads through __FILE__: keep it\n"
         "// beside this file.\n";
  c += "// C API: " + m.model + "_run, " + m.model + "_run_checked, " + m.model +
       "_workspace_size and the metadata functions at the end of this file.\n\n";
  return c;
}

// One instruction set pinned, or native: the kernels once, in the model's namespace.
std::string emit_single(const ir::Program& p, const ModelLayout& m, const kernelplan::ProgramPlan& plan,
                        const IsaCode& code, const WeightsPlan& weights) {
  std::set<std::string> sections = code.sections;
  sections.insert("capi");
  CodeWriter body;
  emit_weights_block(m, weights, body);
  body.line("// ---- Model " + m.model + " ----");
  open_model(m, body);
  body.line("constexpr std::size_t " + m.workspace_const + " = " + std::to_string(m.workspace_size) + ";");
  body.blank();
  if (plan.isa.kind == IsaTarget::Kind::Fixed && !isa_tag(plan.isa).empty() && sections.count("vec") != 0) {
    const IsaRecord& r = isa_record(plan.isa.fixed);
    // (A set that is part of its architecture, as NEON of AArch64, has no flags.)
    const std::string how = r.flags.empty() ? "a compiler for " + std::string(r.arch)
                                            : std::string(r.flags) + " or -march=native on a machine that has it";
    body.line("static_assert(stax_rt::isa_available<" + r.tag_type() + ">, \"generated with --isa " + std::string(r.name) +
              ": build with " + how + "\");");
    body.blank();
  }
  emit_constants(m, weights, body);
  emit_kernels_and_run(p, m, plan, code, body, true);
  body.blank();
  close_model(m, body);
  emit_c_api(m, body);
  return file_comment(m, plan.isa, weights) + prelude_text(sections) + "\n" + body.str();
}

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t end = std::min(text.find(',', i), text.size());
    out.emplace_back(text.substr(i, end - i));
    i = end + 1;
  }
  return out;
}

// The records whose vector code a target pragma list enables (each of their features is in it).
std::vector<const IsaRecord*> enabled_by(std::string_view target) {
  const std::vector<std::string> have = split_commas(target);
  std::vector<const IsaRecord*> out;
  for (const IsaRecord& r : isa_table()) {
    if (r.target.empty()) continue;
    bool all = true;
    for (const std::string& f : split_commas(r.target)) all = all && std::find(have.begin(), have.end(), f) != have.end();
    if (all) out.push_back(&r);
  }
  return out;
}

std::string upper(std::string_view s) {
  std::string out;
  for (char c : s) out.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
  return out;
}

// One instruction set's block of a dispatch file, under its target pragma: the runtime copied
// into the namespace stax_isa_<set> (shared by the dispatch models of a translation unit, each
// section guarded), then the model's kernels and run_model in a namespace of their own, where
// stax_rt names that copy.
void emit_isa_block(const ir::Program& p, const ModelLayout& m, const kernelplan::ProgramPlan& plan,
                    const IsaCode& code, const std::string& ns, CodeWriter& body) {
  const IsaRecord& r = isa_record(plan.isa.fixed);
  const std::string runtime_ns = "stax_isa_" + std::string(r.name);
  body.line("// ---- " + m.model + " for " + std::string(r.name) + " (" + std::to_string(r.lanes) + " lane" +
            (r.lanes > 1 ? "s" : "") + "), chosen at run time when the CPU and OS support it ----");
  const std::vector<const IsaRecord*> enabled = enabled_by(r.target);
  if (!r.target.empty()) {
    body.raw("#pragma GCC push_options");
    body.raw("#pragma GCC target(\"" + std::string(r.target) + "\")");
  }
  for (const IsaRecord* e : enabled) body.raw("#define STAX_VEC_TARGET_" + upper(e->name) + " 1");
  body.open_namespace(runtime_ns);
  body.append(runtime_copy_text(code.sections, "STAX_RT_" + upper(r.name) + "_"));
  body.close_namespace(runtime_ns);
  open_model(m, body);
  body.open_namespace(ns);
  body.blank();
  body.line("namespace stax_rt = ::" + runtime_ns + "::stax_rt;");
  body.blank();
  if (!isa_tag(plan.isa).empty() && code.sections.count("vec") != 0) {
    body.line("static_assert(stax_rt::isa_available<" + r.tag_type() + ">, \"the " + std::string(r.name) +
              " runtime compiles under its target pragma\");");
    body.blank();
  }
  emit_kernels_and_run(p, m, plan, code, body, false);
  body.blank();
  body.close_namespace(ns);
  close_model(m, body);
  for (const IsaRecord* e : enabled) body.raw("#undef STAX_VEC_TARGET_" + upper(e->name));
  if (!r.target.empty()) body.raw("#pragma GCC pop_options");
  body.blank();
}

// The table of what each set needs, the choice made once per process, and run_model calling
// the chosen set's.
void emit_dispatcher(const ModelLayout& m, const std::vector<kernelplan::ProgramPlan>& plans, CodeWriter& body) {
  body.line("// The instruction sets of this file, widest first, and what each needs of the CPU (CPUID leaf,");
  body.line("// register EAX-EDX as 0-3, bit) and of the OS (XCR0 bits); the last needs nothing.");
  std::vector<std::string> entries;
  for (std::size_t i = plans.size(); i-- > 0;) {
    const IsaRecord& r = isa_record(plans[i].isa.fixed);
    std::string bits;
    for (const CpuidBit& b : r.cpuid_bits())
      bits += (bits.empty() ? "" : ", ") + std::string("{") + std::to_string(b.leaf) + ", " + std::to_string(b.reg - 'a') +
              ", " + std::to_string(b.bit) + "}";
    const std::string array = m.isa_table + "_" + std::string(r.name);
    if (!bits.empty()) body.line("const stax_rt::CpuidBit " + array + "[] = {" + bits + "};");
    char xcr0[32];
    std::snprintf(xcr0, sizeof xcr0, "0x%llxull", static_cast<unsigned long long>(r.xcr0));
    entries.push_back("{\"" + std::string(r.name) + "\", " + (bits.empty() ? "nullptr" : array) + ", " +
                      std::to_string(r.cpuid_bits().size()) + ", " + xcr0 + "},");
  }
  body.open("const stax_rt::IsaNeeds " + m.isa_table + "[" + std::to_string(plans.size()) + "] =");
  for (const std::string& e : entries) body.line(e);
  body.close(";");
  body.blank();
  body.line("// The set this process runs: chosen on first use (STAX_ISA=<name> forces one the CPU supports).");
  body.open("int " + m.isa_index_fn + "()");
  body.line("static const int chosen = stax_rt::choose_isa(" + m.isa_table + ", " + std::to_string(plans.size()) + ");");
  body.line("return chosen;");
  body.close();
  body.blank();
  body.open("int " + m.run_fn + "(const void* const* inputs, void* const* outputs, void* workspace)");
  body.open("switch (" + m.isa_index_fn + "())");
  for (std::size_t i = plans.size(); i-- > 0;) {
    const std::string call = m.isa_namespaces[i] + "::" + m.run_fn + "(inputs, outputs, workspace);";
    body.line((i == 0 ? std::string("default: return ") : "case " + std::to_string(plans.size() - 1 - i) + ": return ") + call);
  }
  body.close();
  body.close();
}

// Every x86-64 instruction set: one block each, then the dispatcher.
std::string emit_dispatch(const ir::Program& p, const scheduler::Schedule& s, const ModelLayout& m,
                          const std::vector<kernelplan::ProgramPlan>& plans, const WeightsPlan& weights) {
  CodeWriter body;
  body.raw("#if !defined(__x86_64__) || !defined(__GNUC__) || defined(__clang__)");
  body.raw("#error \"generated with --isa dispatch: needs g++ on x86-64 (function target pragmas)\"");
  body.raw("#endif");
  body.blank();
  emit_weights_block(m, weights, body);
  body.line("// ---- Model " + m.model + " ----");
  open_model(m, body);
  body.line("constexpr std::size_t " + m.workspace_const + " = " + std::to_string(m.workspace_size) + ";");
  body.blank();
  emit_constants(m, weights, body);
  close_model(m, body);
  for (std::size_t i = plans.size(); i-- > 0;)
    emit_isa_block(p, m, plans[i], emit_kernels(p, s, plans[i], m), m.isa_namespaces[i], body);
  open_model(m, body);
  emit_metadata(m, body);
  emit_dispatcher(m, plans, body);
  body.blank();
  close_model(m, body);
  emit_c_api(m, body);
  return file_comment(m, IsaTarget::dispatch(), weights) + prelude_text({"core", "capi", "wrapper", "dispatch"}) + "\n" + body.str();
}

}  // namespace

GeneratedCode emit(const graph::Graph& g, const ir::Program& p, const scheduler::Schedule& s,
                   const kernelplan::Locals& locals, const memory::MemoryPlan& memory,
                   const std::vector<kernelplan::ProgramPlan>& plans, const CodegenOptions& opts) {
  GeneratedCode result;
  result.name = opts.name.empty() ? g.name : opts.name;
  check_model_name(result.name);
  STAX_ASSERT(plans.size() == opts.isa.planned().size(), "one kernel plan per instruction set of the file");
  ModelLayout m = layout_model(g, p, s, memory, locals.mask(), result.name, opts.isa);
  result.workspace_size = m.workspace_size;
  // The constants the kernels read as they are, then those packed for the GEMM at compile time.
  const std::vector<PackedConstant> packed = pack_constants(p, s, plans, m.names);
  const std::vector<bool> used = constants_in_use(p, plans);
  std::vector<ConstantArray> arrays;
  for (const ir::Buffer& b : p.buffers)
    if (b.kind == ir::BufferKind::Constant && used[static_cast<std::size_t>(b.id)])
      arrays.push_back({m.names[static_cast<std::size_t>(b.id)],
                        "constant " + b.name + ": " + std::string(dtype_name(b.dtype)) + shape_str(b.shape), &b.data});
  for (const PackedConstant& c : packed) arrays.push_back({c.name, c.comment, &c.data});
  WeightsPlan weights = plan_weights(std::move(arrays), opts.weights_threshold);
  if (opts.isa.kind == IsaTarget::Kind::Dispatch) {
    m.isa_name_body = "return " + m.ns + "::" + m.isa_table + "[" + m.ns + "::" + m.isa_index_fn + "()].name;";
    result.source = emit_dispatch(p, s, m, plans, weights);
  } else {
    const IsaCode code = emit_kernels(p, s, plans.front(), m);
    const bool vector = code.sections.count("vec") != 0;
    m.isa_name_body = opts.isa.kind == IsaTarget::Kind::Native
                          ? (vector ? "return stax_rt::IsaNative::name;" : "return \"scalar\";")
                          : "return \"" + std::string(isa_record(opts.isa.fixed).name) + "\";";
    result.source = emit_single(p, m, plans.front(), code, weights);
  }
  result.header = header_text(m);
  result.weights = std::move(weights.bytes);
  return result;
}

}  // namespace stax::codegen

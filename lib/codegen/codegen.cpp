// generate(): the generated file, top to bottom (design.md, "What the generated file looks like").
#include "stax/codegen/codegen.h"

#include <set>

#include "capi.h"
#include "code_writer.h"
#include "kernels.h"
#include "model_layout.h"
#include "stax/codegen/literals.h"
#include "stax/codegen/mangle.h"
#include "stax/codegen/prelude.h"
#include "stax/memory/from_schedule.h"
#include "stax/support/error.h"

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

void emit_constants(const ir::Program& p, const ModelLayout& m, CodeWriter& out) {
  bool any = false;
  for (const ir::Buffer& b : p.buffers) {
    if (b.kind != ir::BufferKind::Constant) continue;
    const std::string& name = m.names[static_cast<std::size_t>(b.id)];
    out.line("// constant " + b.name + ": " + std::string(dtype_name(b.dtype)) + shape_str(b.shape));
    out.line("alignas(64) const " + cxx_type(b.dtype) + " " + name + "[" + std::to_string(b.numel()) + "] = {");
    out.line(array_elements(b.data, 2 * out.indent() + 4));
    out.line("};");
    any = true;
  }
  if (any) out.blank();
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

// The memory problem of the schedule without the buffers kept in local variables: they need no
// memory, so they take no part in planning (in-place candidates naming them go too).
memory::MemoryProblem without_locals(memory::MemoryProblem problem, const std::vector<bool>& local) {
  std::vector<int> remap(problem.buffers.size(), -1);
  std::vector<memory::MemBuffer> kept;
  for (std::size_t i = 0; i < problem.buffers.size(); ++i) {
    const int id = problem.buffers[i].id;
    if (id >= 0 && local[static_cast<std::size_t>(id)]) continue;
    remap[i] = static_cast<int>(kept.size());
    kept.push_back(problem.buffers[i]);
  }
  auto keep = [&](std::vector<int>& refs) {
    std::vector<int> out;
    for (int r : refs)
      if (remap[static_cast<std::size_t>(r)] >= 0) out.push_back(remap[static_cast<std::size_t>(r)]);
    refs = std::move(out);
  };
  for (memory::Step& st : problem.steps) {
    keep(st.defines);
    keep(st.reads);
    std::vector<memory::InPlaceCandidate> inplace;
    for (const memory::InPlaceCandidate& c : st.inplace) {
      const int r = remap[static_cast<std::size_t>(c.read)], w = remap[static_cast<std::size_t>(c.write)];
      if (r >= 0 && w >= 0) inplace.push_back({r, w});
    }
    st.inplace = std::move(inplace);
  }
  problem.buffers = std::move(kept);
  return problem;
}

// A kernel as the wrapper runs it: its function, and whether it shares a parallel region with
// its neighbours (§8.5).
struct KernelCall {
  const scheduler::Kernel* kernel = nullptr;
  KernelCode code;
  ParallelMode mode = ParallelMode::Serial;
};

std::string call_text(const ModelLayout& m, const KernelCode& k) {
  std::string args;
  for (ir::BufferId id : k.params) args += (args.empty() ? "" : ", ") + m.names[static_cast<std::size_t>(id)];
  const std::string call = k.function + "(" + args + ")";
  if (k.fallible) return "if (const int failed = " + call + ") return stax_rt::kernel_error(failed);";
  return call + ";";
}

// int run_model(inputs, outputs, workspace): pointers, kernels in the plan's order (adjacent
// loop kernels in one parallel region), output copies.
void emit_run(const ir::Program& p, const ModelLayout& m, const std::vector<KernelCall>& calls,
              CodeWriter& out) {
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
  for (const KernelCall& c : calls)
    for (ir::BufferId id : c.code.params) used[static_cast<std::size_t>(id)] = true;
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
  for (std::size_t i = 0; i < calls.size();) {
    if (calls[i].mode != ParallelMode::Shared) {
      out.line(call_text(m, calls[i].code));
      ++i;
      continue;
    }
    std::size_t j = i;
    int64_t work = 0;
    while (j < calls.size() && calls[j].mode == ParallelMode::Shared) work += kernel_work(*calls[j++].kernel);
    if (j - i > 1) {
      out.line("// " + std::to_string(j - i) + " adjacent loop kernels in one parallel region; each divides its outer");
      out.line("// loops among the threads and ends with a barrier.");
    }
    out.open("if (stax_rt::run_parallel(" + std::to_string(work) + ", " + std::to_string(kMinChunk) + "))");
    out.raw("#pragma omp parallel");
    out.open("");
    for (std::size_t k = i; k < j; ++k) out.line(call_text(m, calls[k].code));
    out.close();
    out.reopen("else");
    for (std::size_t k = i; k < j; ++k) out.line(call_text(m, calls[k].code));
    out.close();
    i = j;
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

// The vector layer's tag for an --isa choice of one text (native or one set); "" for scalar
// loops.
std::string isa_tag(const IsaTarget& isa) {
  if (isa.kind == IsaTarget::Kind::Native) return "stax_rt::IsaNative";
  if (isa.fixed == Isa::Scalar) return "";
  return isa_record(isa.fixed).tag_type();
}

GeneratedCode generate(const graph::Graph& g, const ir::Program& p, const CodegenOptions& opts) {
  return generate(g, p, scheduler::schedule(p), opts);
}

GeneratedCode generate(const graph::Graph& g, const ir::Program& p, const scheduler::Schedule& s,
                       const CodegenOptions& opts) {
  GeneratedCode result;
  result.name = opts.name.empty() ? g.name : opts.name;
  check_model_name(result.name);
  if (opts.isa.kind == IsaTarget::Kind::Dispatch) throw UserError("--isa dispatch is not available yet");
  // Memory (§7.5): values kept in a kernel's locals need none; the rest is planned into the arena,
  // and the plan's order is the order the kernels run in.
  const std::vector<Residence> where = buffer_residence(p, s);
  std::vector<bool> local(where.size());
  for (std::size_t i = 0; i < where.size(); ++i) local[i] = where[i] != Residence::Memory;
  result.memory = memory::plan_memory(without_locals(memory::problem_from_schedule(p, s), local), opts.memory);
  const ModelLayout m = layout_model(g, p, s, result.memory, local, result.name);
  result.workspace_size = m.workspace_size;

  // Parallel regions (§8.4, §8.5): the wrapper opens one around every run of adjacent loop
  // kernels that can share it (one kernel or more), entered only when the run's work pays for
  // it on the threads there are.
  std::vector<KernelCall> calls;
  for (int step : result.memory.order) calls.push_back({&s.kernels[static_cast<std::size_t>(step)], {}, {}});
  for (KernelCall& c : calls)
    if (can_share_region(p, *c.kernel)) c.mode = ParallelMode::Shared;
  std::set<std::string> sections = {"core", "capi", "wrapper"};
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const scheduler::Kernel& k = *calls[i].kernel;
    const std::string& fn = m.kernel_names[static_cast<std::size_t>(result.memory.order[i])];
    if (!k.loop_groups.empty()) {
      if (calls[i].mode == ParallelMode::Serial && parallel_depth(k) > 0) calls[i].mode = ParallelMode::Standalone;
      calls[i].code = emit_loop_kernel(p, k, fn, m.names, where, calls[i].mode, isa_tag(opts.isa), sections);
    } else {
      calls[i].code = emit_kernel(p, p[k.nodes.front().buffer], fn, m.names, sections);
      calls[i].code.text = "// kernel " + k.name + " (" + std::string(scheduler::kernel_kind_name(k.kind)) + ")\n" +
                           calls[i].code.text;
    }
  }
  std::vector<KernelCode> kernels;
  for (const KernelCall& c : calls) kernels.push_back(c.code);

  CodeWriter body;
  body.line("// ---- Model " + m.model + " ----");
  body.open_namespace("");
  body.open_namespace(m.ns);
  body.blank();
  body.line("constexpr std::size_t " + m.workspace_const + " = " + std::to_string(m.workspace_size) + ";");
  body.blank();
  if (opts.isa.kind == IsaTarget::Kind::Fixed && !isa_tag(opts.isa).empty() && sections.count("vec") != 0) {
    const IsaRecord& r = isa_record(opts.isa.fixed);
    body.line("static_assert(stax_rt::isa_available<" + r.tag_type() + ">, \"generated with --isa " +
              std::string(r.name) + ": build with " + std::string(r.flags) + " or -march=native on a machine that has it\");");
    body.blank();
  }
  emit_constants(p, m, body);
  for (const KernelCode& k : kernels) {
    body.append(k.text);
    body.blank();
  }
  emit_metadata(m, body);
  emit_run(p, m, calls, body);
  body.blank();
  body.close_namespace(m.ns);
  body.close_namespace("");
  body.blank();
  emit_c_api(m, body);

  std::string src;
  src += "// Generated by staxc from the model '" + m.model + "'. Do not edit.\n";
  src += "// Build: g++ -std=c++17 -O2 -march=native -fopenmp -c FILE.cpp; link with -lsleef -fopenmp.\n";
  src += "// C API: " + m.model + "_run, " + m.model + "_run_checked, " + m.model +
         "_workspace_size and the metadata functions at the end of this file.\n\n";
  src += prelude_text(sections);
  src += "\n";
  src += body.str();
  result.source = std::move(src);
  result.header = header_text(m);
  return result;
}

}  // namespace stax::codegen

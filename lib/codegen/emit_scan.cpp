// Scans (cumsum, cumprod): the carried dimension runs innermost with one accumulator per line,
// the other dimensions around it in order, shared among the threads as the plan says. A scan
// over a dim that is not the last (the plan's scan_across) runs the carried loop outside the
// last dim's instead, which reads and writes contiguously: each element of the last dim is
// another line, with its accumulator in an array of kColumnBlock, block by block. Each line is
// still summed in order, so the bits are the same.
#include "emit_forms.h"

#include "body_emitter.h"
#include "stax/codegen/literals.h"
#include "stax/ir/simplify.h"

namespace stax::codegen {

namespace {

using ir::Buffer;
using ir::BufferId;
using ir::Index;

}  // namespace

std::string signature_text(const ir::Program& p, const kernelplan::KernelPlan& plan, const std::string& function,
                           const std::vector<std::string>& names) {
  std::vector<std::string> params;
  for (std::size_t i = 0; i < plan.params.size(); ++i) {
    const BufferId id = plan.params[i];
    const bool written = i + 1 == plan.params.size();
    params.push_back(std::string(written ? "" : "const ") + cxx_type(p[id].dtype) + "* " + names[static_cast<std::size_t>(id)]);
  }
  return std::string(plan.fallible ? "int " : "void ") + function + "(" + join(params, ", ") + ")";
}

std::string buffer_comment(const Buffer& b) {
  std::string what;
  switch (b.kind) {
    case ir::BufferKind::Pointwise: what = "pointwise"; break;
    case ir::BufferKind::Reduction: what = "reduction " + std::string(ir::reduce_op_name(b.reduce_op)); break;
    case ir::BufferKind::Scan: what = std::string(ir::scan_op_name(b.scan_op)) + " over dim " + std::to_string(b.scan_dim); break;
    case ir::BufferKind::Extern: what = std::string(ir::extern_op_name(b.extern_op)); break;
    case ir::BufferKind::Input:
    case ir::BufferKind::Constant: break;
  }
  return "// " + b.name + ": " + std::string(dtype_name(b.dtype)) + shape_str(b.shape) + ", " + what + "; computes " +
         join(b.origins, ", ");
}

KernelCode emit_scan(const ir::Program& p, const Buffer& b, const kernelplan::KernelPlan& plan, const std::string& function,
                     const std::vector<std::string>& names, std::set<std::string>& sections) {
  KernelCode k;
  k.function = function;
  k.fallible = plan.fallible;
  k.params = plan.params;
  // The carried dimension runs innermost; the others keep their order around it.
  std::vector<std::size_t> outer;
  for (std::size_t d = 0; d < b.shape.size(); ++d)
    if (static_cast<int>(d) != b.scan_dim) outer.push_back(d);
  CodeWriter out;
  out.line(buffer_comment(b));
  out.open(signature_text(p, plan, function, names));
  if (plan.fallible) out.line("int err = 0;");
  if (plan.parallel != kernelplan::Parallel::Serial) {
    std::string pragma = "#pragma omp parallel for";
    if (plan.parallel_depth > 1) pragma += " collapse(" + std::to_string(plan.parallel_depth) + ")";
    if (plan.fallible) pragma += " reduction(|:err)";
    out.raw(pragma);
  }
  const Accumulator acc = sum_or_prod(b.dtype, b.scan_op == ir::ScanOp::Sum);
  const std::size_t sd = static_cast<std::size_t>(b.scan_dim);
  int temps = 0;
  auto buffer_name = [&](BufferId id) { return names[static_cast<std::size_t>(id)]; };
  auto index_text = [&](const Index& e) { return index_cxx(ir::simplify(e, b.ranges())); };
  BodyEmitter body(buffer_name, index_text, sections, temps);
  // One step of line `a` (the accumulator's text): its element added, the running result stored.
  auto step = [&](const std::string& a) {
    const std::string v = body.emit(b.body, out);
    out.line(fill(rename_acc(acc.update, a), bare(v)));
    out.line(buffer_name(b.id) + "[" + index_text(b.write_index()) + "] = " + rename_acc(acc.result, a) + ";");
  };
  if (plan.scan_across) {
    const std::size_t last = b.shape.size() - 1;
    outer.pop_back();  // the last dim: its blocks instead
    for (std::size_t d : outer) out.open(loop_head("x" + std::to_string(d), b.shape[d]));
    const std::string x = "x" + std::to_string(last);
    const std::string first = open_blocks(out, b.shape[last], kernelplan::kColumnBlock);
    out.line("alignas(64) " + acc.type + " acc[" + std::to_string(kernelplan::kColumnBlock) + "];  // one per line: element " + x +
             " of the last dim");
    out.line("for (int64_t " + x + " = " + first + "; " + x + " < e0; ++" + x + ") acc[" + x + " - " + first + "] = " +
             acc.init + ";");
    out.open(loop_head("x" + std::to_string(sd), b.shape[sd]));
    out.open("for (int64_t " + x + " = " + first + "; " + x + " < e0; ++" + x + ")");
    step("acc[" + x + " - " + first + "]");
    close_loops(out, 3);
  } else {
    for (std::size_t d : outer) out.open(loop_head("x" + std::to_string(d), b.shape[d]));
    out.line(acc.type + " acc = " + acc.init + ";");
    out.open(loop_head("x" + std::to_string(sd), b.shape[sd]));
    step("acc");
    out.close();
  }
  close_loops(out, outer.size());
  if (plan.fallible) out.line("return err;");
  out.close();
  k.text = out.str();
  return k;
}

}  // namespace stax::codegen

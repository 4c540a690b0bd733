// A kernel of the plan: its form's emitter.
#include "emit_forms.h"

#include "stax/support/error.h"

namespace stax::codegen {

KernelCode emit_kernel(const ir::Program& p, const scheduler::Kernel& k, const kernelplan::KernelPlan& plan,
                       const std::string& function, const std::vector<std::string>& names, const std::string& isa_tag,
                       std::set<std::string>& sections) {
  if (plan.epilogue >= 0) {
    // The product lives in the epilogue's buffer: its loads read that buffer at the same element.
    std::vector<std::string> aliased = names;
    aliased[static_cast<std::size_t>(k.nodes.front().buffer)] = names[static_cast<std::size_t>(k.nodes.back().buffer)];
    KernelEmitter e(p, k, plan, aliased, isa_tag, sections);
    CodeWriter loops;
    emit_epilogue(e, aliased, loops);
    return e.finish(function, loops.str());
  }
  if (plan.form == kernelplan::Form::Scan || plan.form == kernelplan::Form::Extern) {
    sections.insert("core");
    const ir::Buffer& b = p[k.nodes.front().buffer];
    KernelCode code = plan.form == kernelplan::Form::Scan ? emit_scan(p, b, plan, function, names, sections)
                                                          : emit_extern(p, b, plan, function, names, sections);
    code.text = "// kernel " + k.name + " (" + std::string(scheduler::kernel_kind_name(k.kind)) + ")\n" + code.text;
    return code;
  }
  STAX_ASSERT(!plan.vectorized() || !isa_tag.empty(), "a vector kernel planned for the scalar instruction set");
  KernelEmitter e(p, k, plan, names, isa_tag, sections);
  CodeWriter loops;
  switch (plan.form) {
    case kernelplan::Form::Tiled: emit_tiled(e, loops); break;
    case kernelplan::Form::VectorRows: emit_vector_rows(e, loops); break;
    case kernelplan::Form::Columns: emit_columns(e, loops); break;
    case kernelplan::Form::RowGroups:
    case kernelplan::Form::Scalar: emit_row_groups(e, loops); break;
    case kernelplan::Form::Scan:
    case kernelplan::Form::Extern: break;
  }
  return e.finish(function, loops.str());
}

}  // namespace stax::codegen

// The emitters of the kernel forms (kernelplan::Form), one file each. They print what the kernel
// plan says; none decides anything.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "kernel_emitter.h"

namespace stax::codegen {

// A kernel of any form: its function named `function`. `isa_tag`: the vector layer's tag of the
// instruction set ("" when the plan has no vector loop).
KernelCode emit_kernel(const ir::Program& p, const scheduler::Kernel& k, const kernelplan::KernelPlan& plan,
                       const std::string& function, const std::vector<std::string>& names, const std::string& isa_tag,
                       std::set<std::string>& sections);

// The loops of each loop form (emit_<form>.cpp).
void emit_tiled(KernelEmitter& e, CodeWriter& loops);
void emit_vector_rows(KernelEmitter& e, CodeWriter& loops);
void emit_columns(KernelEmitter& e, CodeWriter& loops);
void emit_window(KernelEmitter& e, CodeWriter& loops);  // the columns form's window variant
void emit_row_groups(KernelEmitter& e, CodeWriter& loops);
// Opens the loop over blocks of `block` of n elements (b0) and names the block's end, e0; returns
// the text of its first element ("b0 * block"). The caller closes it.
std::string open_blocks(CodeWriter& w, int64_t n, int64_t block);
// The array of a constant B packed at compile time for instruction set `isa` (a record's name).
std::string packed_name(const std::vector<std::string>& names, ir::BufferId id, const std::string& isa);
// A matmul with its epilogue (emit_extern.cpp): the lambda run on each tile and the GEMM's call;
// `names` as the emitter's, the product named as the epilogue's buffer it is written into.
void emit_epilogue(KernelEmitter& e, const std::vector<std::string>& names, CodeWriter& loops);

// Scans and externs (emit_scan.cpp, emit_extern.cpp): whole functions, with a comment naming the
// buffer (buffer_comment) and the signature of the plan's parameters, the written one last.
std::string buffer_comment(const ir::Buffer& b);
std::string signature_text(const ir::Program& p, const kernelplan::KernelPlan& plan, const std::string& function,
                           const std::vector<std::string>& names);
KernelCode emit_scan(const ir::Program& p, const ir::Buffer& b, const kernelplan::KernelPlan& plan,
                     const std::string& function, const std::vector<std::string>& names, std::set<std::string>& sections);
KernelCode emit_extern(const ir::Program& p, const ir::Buffer& b, const kernelplan::KernelPlan& plan,
                       const std::string& function, const std::vector<std::string>& names, std::set<std::string>& sections);

}  // namespace stax::codegen

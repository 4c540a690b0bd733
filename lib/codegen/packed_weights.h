// Constant B operands of the GEMM packed at compile time (packed_weights.cpp).
#pragma once

#include <string>
#include <vector>

#include "code_writer.h"
#include "stax/ir/program.h"
#include "stax/kernelplan/plan.h"
#include "stax/scheduler/schedule.h"

namespace stax::codegen {

// Per buffer id: a constant some kernel of some plan reads as it is, or a graph output (the
// others, read only packed, are not written into the file).
std::vector<bool> constants_in_use(const ir::Program& p, const std::vector<kernelplan::ProgramPlan>& plans);

// The packed arrays of every plan's kernels with pack_b, each (constant, set) once.
void emit_packed_constants(const ir::Program& p, const scheduler::Schedule& s,
                           const std::vector<kernelplan::ProgramPlan>& plans, const std::vector<std::string>& names,
                           CodeWriter& out);

}  // namespace stax::codegen

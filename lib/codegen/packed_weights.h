// Constant B operands of the GEMM packed at compile time (packed_weights.cpp).
#pragma once

#include <string>
#include <vector>

#include "stax/support/tensor.h"
#include "stax/ir/program.h"
#include "stax/kernelplan/plan.h"
#include "stax/scheduler/schedule.h"

namespace stax::codegen {

// Per buffer id: a constant some kernel of some plan reads as it is, or a graph output (the
// others, read only packed, are not written into the file).
std::vector<bool> constants_in_use(const ir::Program& p, const std::vector<kernelplan::ProgramPlan>& plans);

// A constant B packed for one instruction set: its array's name, a comment naming its layout,
// and the packed data.
struct PackedConstant {
  std::string name;
  std::string comment;
  Tensor data;
};

// The packed arrays of every plan's kernels with pack_b, each (constant, set) once, in order.
std::vector<PackedConstant> pack_constants(const ir::Program& p, const scheduler::Schedule& s,
                                           const std::vector<kernelplan::ProgramPlan>& plans,
                                           const std::vector<std::string>& names);

}  // namespace stax::codegen

// One kernel function per computed buffer (fusion comes with the scheduler): its loops, the
// body written by BodyEmitter, the store, and an OpenMP `parallel for` over the outer loops when
// the work is large.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "stax/ir/program.h"

namespace stax::codegen {

// A loop nest needs at least this many iterations in total (body evaluations) before its outer
// loops run in parallel: below it an OpenMP region costs more than it saves.
constexpr int64_t kParallelMinWork = int64_t(1) << 16;
// The parallel outer loops are collapsed until they give at least this many units of work.
constexpr int64_t kParallelMinUnits = 16;

struct KernelCode {
  std::string function;                // the function's name
  std::vector<ir::BufferId> params;    // buffers in parameter order: those read, then the written
  bool fallible = false;               // returns int: nonzero after an integer division by zero
  std::string text;                    // the definition, comment included
};

// `names` gives the C++ identifier of every buffer (by id). Prelude sections the kernel uses
// are added to `sections`.
KernelCode emit_kernel(const ir::Program& p, const ir::Buffer& b, const std::string& function,
                       const std::vector<std::string>& names, std::set<std::string>& sections);

}  // namespace stax::codegen

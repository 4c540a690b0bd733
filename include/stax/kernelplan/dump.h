// Readable forms of a kernel plan: versioned JSON for --dump-kernel-plan and a log for --log
// kernels, each decision with its reason. Deterministic (same plan, same bytes).
#pragma once

#include <string>
#include <vector>

#include "stax/ir/program.h"
#include "stax/kernelplan/plan.h"
#include "stax/scheduler/schedule.h"

namespace stax::kernelplan {

// Format "stax-kernel-plan", version 1: per instruction set planned (one for native or a pinned
// set, one per set for dispatch), the lanes of each dtype, the parallel regions, and per kernel
// in execution order: its form and why, every buffer's residence and why, the parallel loops
// (mode, Algorithm 8.1's depth, the chunk, the work, the region) and why, the vector loop and
// whether it is shared in blocks, streamed stores, tiles, prefetches, and per loop group its
// vector loop, absorption and prefetches with the reasons.
std::string dump_kernel_plan_json(const std::vector<ProgramPlan>& plans, const ir::Program& p,
                                  const scheduler::Schedule& s);

// One paragraph per kernel: "kernel op0_op1: row groups (why); parallel ...; buf1 in a register
// (why); ...".
std::string kernel_plan_log(const ProgramPlan& plan, const ir::Program& p);

}  // namespace stax::kernelplan

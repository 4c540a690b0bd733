// Parallel loops and regions (internal to the stage).
#pragma once

#include "stax/kernelplan/plan.h"

namespace stax::kernelplan::detail {

// The outer loops a loop kernel collapses into its parallel loop (0: it runs serially).
std::size_t parallel_depth(const scheduler::Kernel& k);

// Sets work, parallel, parallel_depth and parallel_reason of a loop kernel (kp.fallible set).
void plan_parallel(const scheduler::Kernel& k, KernelPlan& kp);

// The same for a scan.
void plan_scan_parallel(const ir::Buffer& b, KernelPlan& kp);

// Groups adjacent Shared kernels into regions.
void plan_regions(ProgramPlan& plan);

}  // namespace stax::kernelplan::detail

// Step 3 of plan_memory (plan.h): in-place reuse and the reuse pool of §7.5, which group the
// intermediates into storages. Internal to the memory stage.
#pragma once

#include <cstdint>

#include "stax/memory/plan.h"
#include "stax/memory/problem.h"

namespace stax::memory::detail {

// n rounded up to a multiple of a.
inline std::uint64_t align_up(std::uint64_t n, std::uint64_t a) { return (n + a - 1) / a * a; }

// Fills plan.buffers[*].{placement, shares, storage}, plan.storages (offsets 0), plan.inplace,
// plan.reuses, plan.reuses_refused, plan.reuse_bound and plan.planned_peak from plan.order, the
// lifetimes in plan.buffers and plan.options.
void assign_storages(const MemoryProblem& p, MemoryPlan& plan);

}  // namespace stax::memory::detail

// Peak memory as fusion weighs it (§7.3's legality condition that a fusion must not extend
// lifetimes so far that peak memory rises notably; M* of Definition 7.5).
#pragma once

#include <cstdint>
#include <utility>

#include "stax/scheduler/fusion.h"

namespace stax::scheduler {

// M* of the fused graph `f`, with the alive fused nodes `merge.first` and `merge.second` taken
// as one kernel when given (the order that would follow that fusion): the kernels listed by a
// greedy topological order that runs first the ready kernel adding the least memory (the memory
// planner's "least memory increase first" order), the earliest among equals; a computed buffer
// that is no graph output and is read by another kernel is live from its kernel to its last
// reader (one read only inside its kernel stays in registers or cache and counts nothing).
uint64_t estimate_peak(const Fuser& f, std::pair<int, int> merge = {-1, -1});

// The bytes of the intermediates (computed, no graph output) that fused nodes a and b read or
// write: an upper bound on what their fusion can keep alive longer.
uint64_t footprint(const Fuser& f, int a, int b);

}  // namespace stax::scheduler

// An independent check of a memory plan against its problem: what must hold for the generated
// code to be correct, whatever the planner's heuristics did. Cheap (a sweep over the lifetimes),
// so plan_memory runs it on every plan in a debug build, and the tests on every plan they make.
#pragma once

#include <string>
#include <vector>

#include "stax/memory/plan.h"
#include "stax/memory/problem.h"

namespace stax::memory {

// The violations found, empty when the plan is sound:
// - the order is a topological order of the problem's steps, and the lifetimes are those of
//   Definition 7.5 under it;
// - every intermediate has an aligned offset and lies inside the arena; nothing else is placed;
// - no two intermediates whose lifetimes overlap share a byte of the arena, except an in-place
//   pair: the writer is born at the step where the reader dies, that step offers the pair as a
//   candidate, dtype and size match, and both start at the same offset;
// - the arena is no larger than the sum of the aligned intermediates.
std::vector<std::string> check_plan(const MemoryProblem& p, const MemoryPlan& plan);

}  // namespace stax::memory

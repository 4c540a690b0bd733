// An independent check of a Schedule, for tests: the structure code generation relies on, and a
// simulation of the kernels' loops in the order the generated code runs them (outer loops, then
// each loop group in turn; in a group, the nodes one after the other at every point, reductions
// storing after their reduction loops) that reports the first element read before the node
// writing it has produced it. Masked loads count only where their mask holds.
#pragma once

#include <string>

#include "stax/ir/program.h"
#include "stax/scheduler/schedule.h"

namespace stax::scheduler::testing {

// Empty when the schedule is sound, else the first problem found.
std::string check_structure(const ir::Program& p, const Schedule& s);
std::string check_order(const ir::Program& p, const Schedule& s);

}  // namespace stax::scheduler::testing

// The adapter from a schedule (kernels in execution order) to a MemoryProblem.
#pragma once

#include "stax/ir/program.h"
#include "stax/memory/problem.h"
#include "stax/scheduler/schedule.h"

namespace stax::memory {

// Buffers: the program's inputs and constants and every buffer a kernel computes, in program
// order; MemBuffer::id is the ir::BufferId (buffers of dead nodes, which no kernel computes, are
// left out, so positions need not equal ids). Roles and sizes as problem_from_program.
//
// Steps: one per kernel, in the schedule's order, named after it; it defines the buffers of its
// nodes and reads every buffer its nodes read that it does not compute itself; its `after` edges
// are the kernels holding its nodes' predecessors (WeakDeps included).
//
// In-place candidates (§7.5): (R, W) when W is computed by a pointwise node of the kernel, R is
// read from outside the kernel with W's dtype and element count, and every node of the kernel
// that reads R is W itself or runs before it in the kernel and reads R only at the canonical
// access W is written with, over the kernel's outer loops (access_at_depth: the same element in
// the same outer iteration, Propositions 7.2 and 7.3). Each element of R is then read before W
// overwrites it, whether the nodes run fused or one after the other.
MemoryProblem problem_from_schedule(const ir::Program& p, const scheduler::Schedule& s);

// The problem without the buffers `leave_out` marks (by ir::BufferId): values a kernel keeps in
// registers or row-local arrays need no memory, so they take no part in planning (in-place
// candidates naming them go too).
MemoryProblem without_buffers(MemoryProblem problem, const std::vector<bool>& leave_out);

}  // namespace stax::memory

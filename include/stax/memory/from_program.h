// The adapter from a lowered program to a MemoryProblem, for as long as code generation runs one
// kernel per computed buffer: one step per computed buffer, in buffer order.
#pragma once

#include "stax/ir/program.h"
#include "stax/memory/problem.h"

namespace stax::memory {

// Buffers keep their ids and names (MemBuffer::id == ir::BufferId, position == id). Roles: graph
// inputs and constants as such; a computed buffer that serves a graph output is an Output (code
// generation writes it straight into the caller's output memory); every other computed buffer
// is an Intermediate. Bytes: elements x dtype size.
//
// Steps: one per computed buffer, named after it, reading what its body loads (or, for a matmul,
// its two operands). In-place candidates (§7.5): a Pointwise buffer and a buffer it loads of the
// same dtype and element count when every load of that buffer in the body is at the buffer's
// own write index -- each element is then read in the iteration that writes the same element,
// before the write (Proposition 7.2's argument). Reductions, scans and externs read other
// positions than they write and offer none.
MemoryProblem problem_from_program(const ir::Program& p);

}  // namespace stax::memory

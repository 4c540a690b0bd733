// The input of memory planning (design.md, "Memory"; the chapter's §7.5): buffers with their
// byte sizes and roles, and steps (kernels) in a given execution order, each defining some buffers
// and reading others. It is independent of the scheduler and of code generation: an adapter fills
// it in from whatever produced the kernels (from_program.h does so for a lowered program).
//
// Roles: only Intermediate buffers are planned into the workspace arena. Inputs belong to the
// caller, constants are static arrays, and graph outputs are written into the caller's output
// memory, so none of them occupies the arena, whatever the order.
//
// Buffer and step references are positions in `buffers` and `steps`. The steps are listed in a
// valid execution order; their dependency DAG is the data dependencies (a step that reads a
// buffer comes after the step that defines it) plus the explicit `after` edges (ordering only,
// e.g. a reader that must run before a later step overwrites what it reads), so that other
// topological orders can be tried (§7.6 step 5).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stax/support/dtype.h"

namespace stax::memory {

enum class BufferRole : unsigned char { Input, Constant, Intermediate, Output };

// "input", "constant", "intermediate", "output".
std::string_view buffer_role_name(BufferRole r);

struct MemBuffer {
  int id = -1;       // the producer's own id (e.g. an ir::BufferId); carried into the plan only
  std::string name;  // printed in dumps
  DType dtype = DType::Float32;
  std::uint64_t bytes = 0;
  BufferRole role = BufferRole::Intermediate;
};

// A step may write `write` into the memory of `read` (in-place reuse, §7.5 last paragraph) when
// the planner finds `read` dead after the step. The adapter asserts what the planner cannot see:
// every read of `read` in the step happens at exactly the index `write` is written with, before
// that element is written (the argument of Proposition 7.2), so each position is read before it
// is overwritten. The planner itself checks dtype, byte size, roles and lifetimes.
struct InPlaceCandidate {
  int read = -1;   // a buffer the step reads
  int write = -1;  // a buffer the step defines
};

struct Step {
  std::string name;                       // printed in dumps ("kernel_buf3", "buf3", ...)
  std::vector<int> defines;               // buffers this step computes (each defined once)
  std::vector<int> reads;                 // buffers this step reads (may include its own)
  std::vector<int> after;                 // steps that must run before this one (ordering only)
  std::vector<InPlaceCandidate> inplace;  // see InPlaceCandidate
};

struct MemoryProblem {
  std::vector<MemBuffer> buffers;
  std::vector<Step> steps;  // in the given execution order
};

// Empty when `p` is well formed, else the first violation: an Intermediate or Output defined by
// no step or by two, an Input or Constant defined by a step, an out-of-range reference, a read
// of a buffer not yet defined in the given order, an `after` edge to a later step, an in-place
// candidate whose read the step does not read or whose write it does not define.
std::string validate_problem(const MemoryProblem& p);

// The dependency DAG: for each step, the steps it must follow (data and `after` edges), sorted
// and without repeats. Requires a valid problem.
std::vector<std::vector<int>> step_predecessors(const MemoryProblem& p);

// The step defining each buffer (-1 for inputs and constants).
std::vector<int> defining_steps(const MemoryProblem& p);

}  // namespace stax::memory

// Accesses of a kernel's nodes on the kernel's loop variables: what both the kernel plan and
// emission ask of an index (x0.. the kernel's outer loops, then a group's inner loops, r0.. its
// reduction loops; scheduler::KernelNode::loops).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "stax/ir/index.h"
#include "stax/ir/program.h"
#include "stax/scheduler/schedule.h"

namespace stax::kernelplan {

int64_t product(const std::vector<int64_t>& v);

// An index of node n's body on the kernel's loop variables.
ir::Index kernel_index(const scheduler::KernelNode& n, const ir::Index& e);

// `e` with the variables of `vars` set to 0, simplified over `ranges`.
ir::Index without_vars(const ir::Index& e, const std::vector<ir::Var>& vars, const ir::VarRanges& ranges);

// The start of one outer iteration's slab of a buffer node n computes as a row-local array:
// the flat outer position times the slab's size (its group's inner loops).
ir::Index slab_start(const scheduler::Kernel& k, const scheduler::KernelNode& n);

// The part of an access of node n (on kernel variables) inside one outer iteration: `e` = slab +
// part, where the slab depends on the outer variables only and equals `slab`; nullopt otherwise.
std::optional<ir::Index> row_part(const scheduler::Kernel& k, const scheduler::KernelNode& n, const ir::Index& e,
                                  const ir::Index& slab);

// A pointwise nest whose outer loops are the whole nest (pointwise groups without inner loops):
// its innermost outer loop is the contiguous (vector) loop.
bool is_whole_nest(const scheduler::Kernel& k);

// The position argmax/argmin report for a reduction buffer: row-major over its reduction ranges
// (an index of the body, on the buffer's own variables).
ir::Index reduction_position(const ir::Buffer& b);

}  // namespace stax::kernelplan

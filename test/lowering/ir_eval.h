// A plain interpreter of the loop IR, for tests only: runs a lowered Program on tensors, one
// loop point at a time, so lowering can be compared with the reference interpreter before and
// independently of code generation. Float math is done in double and rounded to each IR node's
// dtype; integers wrap; integer division or remainder by zero, and an indexed load's position
// out of range, throw RuntimeFailure.
// Never used by the product.
#pragma once

#include <vector>

#include "stax/ir/program.h"
#include "stax/support/tensor.h"

namespace stax::testing {

// `inputs` in graph input order. Returns the outputs in graph output order, each with the
// output buffer's dtype and element count, reshaped to `output_shapes` when given.
std::vector<Tensor> run_ir(const ir::Program& p, const std::vector<Tensor>& inputs,
                           const std::vector<Shape>& output_shapes = {});

}  // namespace stax::testing

// The reference interpreter: evaluates a validated graph op by op, floating point in double
// precision rounded to each value's dtype. It is the oracle of lowering, fusion and code
// generation and shares no code with them.
#pragma once

#include <vector>

#include "stax/graph/graph.h"
#include "stax/support/tensor.h"

namespace stax::interp {

// `inputs` in graph input order, each with the declared dtype and shape (else UserError naming
// the input). Returns the outputs in graph output order. Integer division or remainder by zero
// throws RuntimeFailure naming the node. Accepts graphs with or without composites.
std::vector<Tensor> interpret(const graph::Graph& g, const std::vector<Tensor>& inputs);

}  // namespace stax::interp

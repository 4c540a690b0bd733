// The reference interpreter: evaluates a validated graph op by op, floating point in double
// precision rounded to each value's dtype. It is the oracle of lowering, fusion and code
// generation and shares no code with them.
#pragma once

#include <vector>

#include "stax/graph/graph.h"
#include "stax/support/tensor.h"

namespace stax::interp {

// `inputs` in graph input order, each with the declared dtype and shape (else UserError naming
// the input). Returns the outputs in graph output order. Integer division or remainder by zero,
// and an index of embedding, index_select or gather outside [0, size), throw RuntimeFailure
// naming the node. Accepts graphs with or without composites.
//
// Semantics are PyTorch 2.x eager's (graph-format.md). Operands are converted to the node's
// compute_dtype (a Python scalar too: float32(0.1), not 0.1), floating math runs in double and is
// rounded once to the result dtype, except where PyTorch's own kernel rounds in between (div with
// a rounding mode: trunc(a / b) with a / b rounded first; floor division by Python's fmod
// algorithm); integer math wraps (INT_MIN / -1 and INT_MIN % -1 included). Reductions, scans,
// matmul, convolutions and pools accumulate in double (sums compensated) or wrapping int64.
// Composites are computed from their definitions, independently of expand_composites. Choices
// where PyTorch leaves a value unspecified or platform-dependent:
//   - `to` from float to int: truncation toward zero; NaN gives 0; +-inf and out-of-range values
//     saturate to the target's max/min (never undefined behaviour).
//   - sign(NaN) = 0 and relu(NaN) = NaN (PyTorch's CPU kernels); maximum, minimum, amax, amin,
//     clamp (operand or bound) propagate NaN; argmax and argmin report the first NaN.
//   - var/std divide by max(0, n - correction): inf (or NaN) when correction >= n.
std::vector<Tensor> interpret(const graph::Graph& g, const std::vector<Tensor>& inputs);

}  // namespace stax::interp

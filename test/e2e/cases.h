// The tables of end-to-end cases, shared by the test binaries (each builds its groups as one
// translation unit) and by the sanitizer run.
#pragma once

#include <vector>

#include "e2e.h"

namespace stax::e2e {

std::vector<Case> unary_cases();              // every unary op x every dtype PyTorch accepts
std::vector<Case> binary_cases();             // every binary op x dtype pairs, broadcasting
std::vector<Case> scalar_cast_where_cases();  // Python scalars, to, where, full, arange
std::vector<Case> reduction_cases();          // reductions, argmax/argmin, scans
std::vector<Case> view_cases();               // views of views, cat, pad
std::vector<Case> composite_matmul_cases();   // composites, matmul, attention
std::vector<Case> interface_cases();          // outputs, constants, names, 0-d, division by zero
std::vector<Case> model_name_cases();         // graph names that the generated code uses itself
std::vector<Case> nn_cases();                 // pools, indexing (and its errors), batch_norm, activations
std::vector<Case> conv_cases();               // convolutions, batch norms folded into them

}  // namespace stax::e2e

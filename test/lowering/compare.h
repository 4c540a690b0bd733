// Lower a graph, run it with the test IR interpreter and compare with the reference
// interpreter on seeded random inputs.
#pragma once

#include <cstdint>
#include <string>

#include "stax/graph/graph.h"

namespace stax::testing {

struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-6;
};

// Empty when every output matches; else a description of the first mismatch. Integer and bool
// outputs must match exactly; floats within the tolerance (float64: 1e-9 relative); NaN
// matches NaN and infinities match exactly.
std::string compare_with_interpreter(const graph::Graph& g, uint64_t seed, Tolerance tol = {});

}  // namespace stax::testing

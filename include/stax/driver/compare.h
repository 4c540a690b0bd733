// Comparing the generated code's results with the reference interpreter's (`staxc check`, the
// end-to-end tests): allclose semantics for floats, exact for ints and bools.
#pragma once

#include <cstdint>
#include <string>

#include "stax/support/tensor.h"

namespace stax::driver {

// |got - expected| <= atol + rtol * |expected| for floats; NaN matches NaN, an infinity matches
// the same infinity. Ints and bools must be equal.
struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-6;
};

struct Comparison {
  bool match = true;
  int64_t mismatches = 0;        // elements outside the tolerance
  int64_t worst = -1;            // flat index of the worst element (-1: all exact)
  double max_abs_error = 0.0;    // over finite pairs
  double max_rel_error = 0.0;    // |got - expected| / |expected| over finite pairs, expected != 0
  double got = 0.0, expected = 0.0;  // at `worst`
  std::string note;              // why they cannot be compared (dtype or shape), else empty
};

Comparison compare_tensors(const Tensor& got, const Tensor& expected, const Tolerance& tol);

// "y: float32[64, 128] ok, max abs error 5.96e-08, max rel error 1.2e-07"
// "y: float32[64, 128] MISMATCH in 3 of 8192 elements, worst at [2, 5]: got 1.5, expected 1.25"
std::string describe(const std::string& name, const Tensor& expected, const Comparison& c);

}  // namespace stax::driver

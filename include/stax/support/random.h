// Deterministic random data for generated inputs: the same seed gives the same bytes on every
// machine (own generator and transforms; no std:: distributions, whose output is unspecified).
#pragma once

#include <cstdint>
#include <string_view>

#include "stax/support/tensor.h"

namespace stax {

// Floats standard normal, ints uniform in [-8, 8], bools a fair coin. `stream` separates the
// inputs of one graph (the CLI derives it from the input's position).
Tensor random_tensor(DType dtype, const Shape& shape, uint64_t seed, uint64_t stream);

}  // namespace stax

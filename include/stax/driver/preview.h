// Short human-readable views of tensors for command output.
#pragma once

#include <cstddef>
#include <string>

#include "stax/support/tensor.h"

namespace stax::driver {

// "float32[2, 3]"
std::string tensor_type_str(const Tensor& t);

// The first `max_values` elements in row-major order, space-separated ("0.5 -1.25 true 3"),
// floats with 6 significant digits, then "... (N values)" when there are more.
std::string preview_values(const Tensor& t, std::size_t max_values = 6);

}  // namespace stax::driver

// Graphs of the scheduler tests written with primitives (JSON fragments for testing::parse).
#pragma once

#include <string>

namespace stax::scheduler::testing {

struct Model {
  std::string inputs, nodes, outputs, constants = "[]";
};

Model softmax_model();                    // x[64, 128] -> softmax over rows
Model layer_norm_model();                 // x[64, 128], w[128], b[128]
Model rms_norm_model();                   // x[64, 128], w[128]
Model residual_layer_norm_gelu_model();   // gelu(layer_norm(x + r))
Model pointwise_chain_model(int n, bool materialized);  // n pointwise ops in a chain

}  // namespace stax::scheduler::testing

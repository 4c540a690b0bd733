#include "models.h"

namespace stax::scheduler::testing {

namespace {
const char* kRows = R"([{"name": "x", "dtype": "float32", "shape": [64, 128]}])";
}  // namespace

Model softmax_model() {
  return {kRows,
          R"([{"name": "m", "op": "amax", "args": ["x"], "dim": -1, "keepdim": true},
              {"name": "d", "op": "sub", "args": ["x", "m"]},
              {"name": "e", "op": "exp", "args": ["d"]},
              {"name": "s", "op": "sum", "args": ["e"], "dim": -1, "keepdim": true},
              {"name": "y", "op": "div", "args": ["e", "s"]}])",
          R"(["y"])"};
}

Model layer_norm_model() {
  return {R"([{"name": "x", "dtype": "float32", "shape": [64, 128]},
              {"name": "w", "dtype": "float32", "shape": [128]},
              {"name": "b", "dtype": "float32", "shape": [128]}])",
          R"([{"name": "mu", "op": "mean", "args": ["x"], "dim": -1, "keepdim": true},
              {"name": "d", "op": "sub", "args": ["x", "mu"]},
              {"name": "v", "op": "mean", "args": [{"op": "mul", "args": ["d", "d"]}], "dim": -1, "keepdim": true},
              {"name": "rstd", "op": "rsqrt", "args": [{"op": "add", "args": ["v", 1e-5]}]},
              {"name": "n", "op": "mul", "args": ["d", "rstd"]},
              {"name": "y", "op": "add", "args": [{"op": "mul", "args": ["n", "w"]}, "b"]}])",
          R"(["y"])"};
}

Model rms_norm_model() {
  return {R"([{"name": "x", "dtype": "float32", "shape": [64, 128]},
              {"name": "w", "dtype": "float32", "shape": [128]}])",
          R"([{"name": "ms", "op": "mean", "args": [{"op": "mul", "args": ["x", "x"]}], "dim": -1, "keepdim": true},
              {"name": "r", "op": "rsqrt", "args": [{"op": "add", "args": ["ms", 1e-6]}]},
              {"name": "y", "op": "mul", "args": [{"op": "mul", "args": ["x", "r"]}, "w"]}])",
          R"(["y"])"};
}

Model residual_layer_norm_gelu_model() {
  return {R"([{"name": "x", "dtype": "float32", "shape": [64, 128]},
              {"name": "res", "dtype": "float32", "shape": [64, 128]},
              {"name": "w", "dtype": "float32", "shape": [128]},
              {"name": "b", "dtype": "float32", "shape": [128]}])",
          R"([{"name": "h", "op": "add", "args": ["x", "res"]},
              {"name": "mu", "op": "mean", "args": ["h"], "dim": -1, "keepdim": true},
              {"name": "d", "op": "sub", "args": ["h", "mu"]},
              {"name": "v", "op": "mean", "args": [{"op": "mul", "args": ["d", "d"]}], "dim": -1, "keepdim": true},
              {"name": "n", "op": "div", "args": ["d", {"op": "sqrt", "args": [{"op": "add", "args": ["v", 1e-5]}]}]},
              {"name": "ln", "op": "add", "args": [{"op": "mul", "args": ["n", "w"]}, "b"]},
              {"name": "y", "op": "gelu", "args": ["ln"]}])",
          R"(["y"])"};
}

Model pointwise_chain_model(int n, bool materialized) {
  // materialized: t{k+1} = tanh(t{k}) + t{k}; t{k} has two users and an expensive op, so
  // lowering stores it (CPU rule 1) and only fusion brings the chain back into one loop.
  std::string nodes = "[";
  std::string prev = "x";
  for (int k = 1; k <= n; ++k) {
    const std::string name = "t" + std::to_string(k);
    if (k > 1) nodes += ",\n";
    if (materialized)
      nodes += R"({"name": ")" + name + R"(", "op": "add", "args": [{"op": "tanh", "args": [")" + prev + R"("]}, ")" + prev + R"("]})";
    else
      nodes += R"({"name": ")" + name + R"(", "op": ")" + std::string(k % 2 ? "sin" : "mul") + R"(", "args": [")" + prev +
               (k % 2 ? R"("]})" : R"(", 0.5]})");
    prev = name;
  }
  nodes += "]";
  return {kRows, nodes, R"([")" + prev + R"("])"};
}

}  // namespace stax::scheduler::testing

// Interpreter tests written as small JSON graphs: the data comes in as constants, so a test is
// one graph text and the literal numbers it must produce.
#pragma once

#include <string>
#include <vector>

#include "interp_test_util.h"
#include "stax/graph/frontend.h"

namespace stax::interp::testing {

// {"name": NAME, "dtype": DTYPE, "shape": SHAPE, "data": DATA}
inline std::string constant(const std::string& name, const std::string& dtype, const std::string& shape,
                            const std::string& data) {
  return R"({"name": ")" + name + R"(", "dtype": ")" + dtype + R"(", "shape": )" + shape +
         R"(, "data": )" + data + "}";
}

inline std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

// A graph without inputs: its constants, its nodes (JSON objects, comma separated) and outputs.
inline std::string graph_text(const std::vector<std::string>& constants, const std::string& nodes,
                              const std::vector<std::string>& outputs) {
  std::string outs;
  for (std::size_t i = 0; i < outputs.size(); ++i) outs += (i ? ", \"" : "\"") + outputs[i] + "\"";
  return R"({"format": "stax-graph", "version": 1, "name": "t", "inputs": [], "constants": [)" +
         join(constants) + R"(], "nodes": [)" + nodes + R"(], "outputs": [)" + outs + "]}";
}

inline std::vector<Tensor> eval_all(const std::vector<std::string>& constants, const std::string& nodes,
                                    const std::vector<std::string>& outputs) {
  return interpret(graph::parse_graph(graph_text(constants, nodes, outputs)), {});
}

// The value "y" of a graph.
inline Tensor eval_y(const std::vector<std::string>& constants, const std::string& nodes) {
  return eval_all(constants, nodes, {"y"}).at(0);
}

}  // namespace stax::interp::testing

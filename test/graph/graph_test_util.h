// Helpers for front-end tests: build graph documents from short pieces and check errors.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "stax/graph/frontend.h"
#include "stax/support/error.h"

namespace stax::graph::testing {

// Inputs from "x:float32[64,128] s:int64[]" (space separated).
inline std::string inputs_json(std::string_view spec) {
  std::string out = "[";
  std::size_t pos = 0;
  bool first = true;
  while (pos < spec.size()) {
    std::size_t end = spec.find(' ', pos);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    std::size_t colon = item.find(':'), bracket = item.find('[');
    if (!first) out += ", ";
    first = false;
    out += "{\"name\": \"" + std::string(item.substr(0, colon)) + "\", \"dtype\": \"" +
           std::string(item.substr(colon + 1, bracket - colon - 1)) +
           "\", \"shape\": " + std::string(item.substr(bracket)) + "}";
  }
  return out + "]";
}

// A whole document. `nodes` and `constants` are JSON lists; `outputs` a JSON list.
inline std::string doc(std::string_view inputs, std::string_view nodes,
                       std::string_view outputs = R"(["y"])", std::string_view constants = "[]") {
  return R"({"format": "stax-graph", "version": 1, "name": "g", "inputs": )" +
         inputs_json(inputs) + R"(, "constants": )" + std::string(constants) +
         R"(, "nodes": )" + std::string(nodes) + R"(, "outputs": )" + std::string(outputs) + "}";
}

// One node named "y": `body` is the node object without its name, e.g. {"op": "exp", "args": ["x"]}.
inline std::string one_node(std::string_view inputs, std::string_view body) {
  std::string node = "{\"name\": \"y\", " + std::string(body.substr(1));
  return doc(inputs, "[" + node + "]");
}

// The error parse_graph raises, or an error with path "<no error>" when it succeeds.
inline GraphError error_of(std::string_view json, const std::filesystem::path& dir = ".") {
  try {
    parse_graph(json, dir);
  } catch (const GraphError& e) {
    return e;
  }
  return GraphError("<no error>", "", "", "");
}

// Parses a document that must be valid.
inline Graph parse_ok(std::string_view json, const std::filesystem::path& dir = ".") {
  try {
    return parse_graph(json, dir);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected error: " << e.what();
    return Graph{};
  }
}

// "float32[3, 4]" for node "y" of one_node(inputs, body), or "error: <message>".
inline std::string type_of(std::string_view inputs, std::string_view body) {
  try {
    Graph g = parse_graph(one_node(inputs, body));
    const Value& y = g[g.find("y")];
    return std::string(dtype_name(y.dtype)) + shape_str(y.shape);
  } catch (const GraphError& e) {
    return "error: " + e.message();
  }
}

// Node "y" of one_node(inputs, body); the graph must be valid.
inline Value node_of(std::string_view inputs, std::string_view body) {
  Graph g = parse_ok(one_node(inputs, body));
  ValueId id = g.find("y");
  if (id == kNoValue) return Value{};
  return g[id];
}

}  // namespace stax::graph::testing

// The document must fail with exactly this path and a message containing `text`.
#define EXPECT_GRAPH_ERROR(json, path_, text)                                                   \
  do {                                                                                          \
    ::stax::GraphError e_ = ::stax::graph::testing::error_of(json);                             \
    EXPECT_EQ(e_.path(), path_) << e_.what();                                                   \
    EXPECT_NE(e_.message().find(text), std::string::npos)                                       \
        << "message: " << e_.message() << "\nexpected to contain: " << (text);                 \
  } while (0)

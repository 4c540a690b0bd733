// The reader that turns a JSON document into a validated Graph (parse.cpp: top level, inputs,
// constants, outputs; nodes.cpp: nodes, arguments, inline nodes). Not a public header.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "frontend_impl.h"

namespace stax::graph::detail {

// Value names: [A-Za-z0-9_.-]+, not "inf", "-inf" or "nan".
bool is_valid_value_name(std::string_view name);
// The graph name: a C identifier, not starting with '_', not a C or C++ keyword.
// Returns "" when valid, else what is wrong.
std::string graph_name_problem(std::string_view name);
// Rejects keys of `obj` outside `allowed` (with a suggestion for near misses); `what` names the
// object ("input", "op 'sum'").
void check_keys(const Site& s, const Json& obj, const std::vector<std::string_view>& allowed,
                std::string_view what);

class GraphReader {
 public:
  explicit GraphReader(const ConstantFiles& files) : files_(files) {}
  Graph read(const Json& root);

 private:
  void read_inputs(const Json& list);
  void read_constants(const Json& list);
  void read_nodes(const Json& list);
  void read_outputs(const Json& list);
  // Checks syntax and uniqueness of a value name read at site.at(sub).
  std::string read_value_name(const Site& s, const Json& obj);
  ValueId add_value(Value v);

  // nodes.cpp
  ValueId read_node(const Json& obj, const std::string& path, bool is_inline);
  Arg read_arg(const Site& s, const Json& a, std::size_t k);
  void check_args(const Site& s, Op op, const std::vector<Arg>& args);

  Graph g_;
  const ConstantFiles& files_;
  std::map<std::string, ValueId, std::less<>> ids_;
  std::map<std::string, std::string, std::less<>> defined_at_;  // name -> JSON path
  // Every named node, by name -> index in `nodes` (first definition), to tell "used before its
  // definition" from "unknown".
  std::map<std::string, std::size_t, std::less<>> node_index_;
  // The named node being read and the count of its inline nodes so far.
  std::string current_node_;
  std::size_t current_index_ = 0;
  int inline_count_ = 0;
};

}  // namespace stax::graph::detail

// The front end: JSON text -> validated, typed Graph (graph-format.md v1, every rule).
// Errors: stax::GraphError naming the JSON path, the node and what is wrong (invalid JSON
// reports line and column). Never crashes on any input.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "stax/graph/graph.h"

namespace stax::graph {

// Reads and validates a graph file; constant `file`s are resolved relative to its folder and
// must lie inside it unless `allow_outside_files` (ConstantFiles::allow_outside).
// A file that cannot be read is a UserError (an I/O error), not a GraphError. Errors inside an
// inline node name the named node that contains it and the inline node's op and path.
// `files_read`, when given, receives the path of every constant file read from disk (for a
// depfile), once each, in the order first read.
Graph load_graph(const std::filesystem::path& file, std::vector<std::filesystem::path>* files_read = nullptr,
                 bool allow_outside_files = false);
// Same, from text; `base_dir` resolves constant `file`s.
Graph parse_graph(std::string_view json_text, const std::filesystem::path& base_dir = ".");

// Where constants' `file`s are read: files held in memory under the name a graph gives them
// (an imported model's weights, which a command need not write to disk), then the folder
// `base_dir` for any other name.
// A name read from disk must be relative and lead, symbolic links followed, to a file inside
// `base_dir`: a model is data, and compiling it must not read (and bake into generated code)
// arbitrary files of the machine that compiles it, such as /etc/shadow or ../../.ssh/id_rsa.
// `allow_outside` lifts the rule for models the user trusts (staxc --allow-outside-files).
struct ConstantFiles {
  std::filesystem::path base_dir = ".";
  std::map<std::string, std::string, std::less<>> memory;
  std::vector<std::filesystem::path>* read = nullptr;  // receives each file read from disk, once
  bool allow_outside = false;
};
Graph parse_graph(std::string_view json_text, const ConstantFiles& files);

// "" when `name` may name a graph (a C identifier, not a C or C++ keyword, not starting with
// '_'), else what is wrong with it.
std::string graph_name_problem(std::string_view name);

// Composites (softmax, log_softmax, layer_norm, rms_norm, linear, batch_norm, hardswish,
// hardsigmoid, softplus, elu) rewritten into primitive ops, numerically stable (softmax
// subtracts the row max). Names of values the graph already had are kept; new values are
// anonymous "<node>#<k>". Requires a validated graph; the result has no
// Composite-category node and computes the same outputs.
Graph expand_composites(const Graph& g);

// One line per value: "name: float32[64, 128] = op(args, attr=value)" — what `staxc validate`
// prints — between a first line "graph NAME" and a last line "outputs: a, b". Inputs read
// "x: float32[64, 128] input", constants "w: float32[128] constant".
std::string format_signature(const Graph& g);

}  // namespace stax::graph

// Reading a model file for a command: the file errors a user meets before any JSON is read.
#pragma once

#include <filesystem>

#include "stax/graph/graph.h"

namespace stax::driver {

// load_graph, after checking that `file` exists and is a readable regular file (a UserError
// otherwise, so that a missing model is an I/O error, not an invalid graph).
graph::Graph load_model(const std::filesystem::path& file);

}  // namespace stax::driver

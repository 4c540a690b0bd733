// Reading a model file for a command: the file errors a user meets before any JSON is read, and
// ONNX models, imported in memory.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "stax/graph/graph.h"

namespace stax::driver {

struct ModelOptions {
  // --input-shape NAME=DIMS (an ONNX model's symbolic input dims; docs/onnx.md).
  std::vector<std::string> input_shapes;
  // --allow-outside-files: constant files may lie outside the model's folder
  // (graph::ConstantFiles::allow_outside says why they may not by default).
  bool allow_outside_files = false;
};

// load_graph, after checking that `file` exists and is a readable regular file (a UserError
// otherwise, so that a missing model is an I/O error, not an invalid graph). A `.onnx` file is
// imported in memory (stax/importer/onnx.h), its weights never written to disk; errors in the
// imported graph say so. --input-shape on a JSON graph is a UserError.
// `files_read`, when given, receives `file` and every other file the model was read from (its
// constants' files, an ONNX model's external data), as opened.
graph::Graph load_model(const std::filesystem::path& file, const ModelOptions& opts = {},
                        std::vector<std::filesystem::path>* files_read = nullptr);

}  // namespace stax::driver

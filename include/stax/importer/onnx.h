// The ONNX importer: an .onnx model (default-domain opsets 11 to 17) -> a stax graph document
// (graph-format.md) and the bytes of the one weights file its constants reference by `file` and
// `offset`. Built on ONNX's own library (its protobuf classes, checker and shape inference);
// docs/onnx.md is the user's reference: which ops map to what, and why some are refused.
//
// Everything shape-related is static: symbolic input dims are fixed by `input_shapes`, and
// shape computations (Shape -> Gather -> Concat -> Reshape chains, ConstantOfShape, Range) are
// folded into constants. Weights stay as they are.
//
// Errors: a model that is invalid or that the importer cannot map is a GraphError whose path
// names the ONNX node ("graph.node[12]"), with the node's name and op type, and what is wrong
// (exit status 2 of the CLI); a file that cannot be read is a UserError (exit status 1).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stax/support/tensor.h"

namespace stax::importer {

struct ImportOptions {
  // --input-shape NAME=DIMS: the shape of graph input NAME. Required for an input with a
  // symbolic or unknown dim; where given, it must agree with the model's fixed dims.
  std::map<std::string, Shape, std::less<>> input_shapes;
  // The name the document gives its weights file: a path relative to the document's folder.
  std::string weights_file = "model.weights";
  // Constants of at most this many elements are written inline (`data`) in the document.
  int64_t inline_limit = 16;
};

struct ImportedModel {
  std::string json;     // the graph document, ending with a newline
  std::string weights;  // the weights file's bytes; empty when no constant lives in it
  std::vector<std::filesystem::path> external_files;  // external data files read, once each
};

// Reads and imports `model`. Its external data, if any, is read relative to its folder. The
// graph is named after the file ("resnet18.onnx" -> "resnet18", made a C identifier).
ImportedModel import_onnx(const std::filesystem::path& model, const ImportOptions& opts = {});

// Imports a model held in memory; `model_dir` resolves external data and `name` names the graph.
ImportedModel import_onnx_bytes(std::string_view bytes, const std::filesystem::path& model_dir,
                                std::string_view name, const ImportOptions& opts = {});

// "NAME=1,3,224,224" -> {NAME, [1, 3, 224, 224]} ("NAME=" is a 0-d input). UserError when
// malformed: no '=', an empty name, or a dim that is not an integer >= 1.
std::pair<std::string, Shape> parse_input_shape(std::string_view spec);

// Whether `file` names an ONNX model for the commands: its extension is ".onnx" (any case).
bool is_onnx_path(const std::filesystem::path& file);

}  // namespace stax::importer

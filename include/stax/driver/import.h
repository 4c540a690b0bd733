// `staxc import`: an ONNX model written as a stax graph document and its weights file.
#pragma once

#include <cstdint>
#include <filesystem>

#include "stax/driver/model.h"

namespace stax::driver {

struct ImportedFiles {
  std::filesystem::path json;
  std::filesystem::path weights;  // empty when no constant needed the weights file
  uint64_t weights_bytes = 0;
};

// Imports `model` (stax/importer/onnx.h) and writes the document to `json` and the weights to
// `weights` (default: `json` with the extension .weights), which the document names by its path
// relative to the document's folder. Both files are written whole or not at all: nothing is
// written when the import fails.
ImportedFiles import_model(const std::filesystem::path& model, const std::filesystem::path& json,
                           std::filesystem::path weights, const ModelOptions& opts);

}  // namespace stax::driver

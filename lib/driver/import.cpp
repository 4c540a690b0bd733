#include "stax/driver/import.h"

#include "stax/driver/process.h"
#include "stax/importer/onnx.h"
#include "stax/support/error.h"

namespace stax::driver {

namespace {

namespace fs = std::filesystem;

// `weights` as the document names it: relative to the document's folder where one path leads
// to the other, else absolute.
std::string weights_reference(const fs::path& json, const fs::path& weights) {
  fs::path dir = fs::absolute(json).parent_path().lexically_normal();
  fs::path target = fs::absolute(weights).lexically_normal();
  fs::path rel = target.lexically_relative(dir);
  return rel.empty() ? target.string() : rel.generic_string();
}

}  // namespace

ImportedFiles import_model(const fs::path& model, const fs::path& json, fs::path weights, const ModelOptions& opts) {
  if (json.empty() || json == "-") throw UserError("import writes a file: give -o MODEL.json");
  if (weights.empty()) weights = fs::path(json).replace_extension(".weights");
  if (fs::absolute(weights).lexically_normal() == fs::absolute(json).lexically_normal())
    throw UserError(weights.string() + ": the weights file cannot be the graph file");
  importer::ImportOptions import;
  for (const std::string& spec : opts.input_shapes) {
    auto [name, shape] = importer::parse_input_shape(spec);
    if (!import.input_shapes.emplace(name, shape).second)
      throw UserError("--input-shape gives input '" + name + "' twice");
  }
  import.weights_file = weights_reference(json, weights);
  importer::ImportedModel m = importer::import_onnx(model, import);
  ImportedFiles files{json, {}, m.weights.size()};
  std::vector<std::pair<fs::path, const std::string*>> out{{json, &m.json}};
  if (!m.weights.empty()) {
    files.weights = weights;
    out.insert(out.begin(), {weights, &m.weights});
  }
  write_files_atomic(out);
  return files;
}

}  // namespace stax::driver

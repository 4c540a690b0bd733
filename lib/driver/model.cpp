#include "stax/driver/model.h"

#include <unistd.h>

#include <system_error>

#include "stax/graph/frontend.h"
#include "stax/importer/onnx.h"
#include "stax/support/error.h"

namespace stax::driver {

namespace {

// The ONNX model imported, then read by the front end with its weights held in memory under the
// name the document gives them.
graph::Graph load_onnx(const std::filesystem::path& file, const ModelOptions& opts,
                       std::vector<std::filesystem::path>* files_read) {
  importer::ImportOptions import;
  for (const std::string& spec : opts.input_shapes) {
    auto [name, shape] = importer::parse_input_shape(spec);
    if (!import.input_shapes.emplace(name, shape).second)
      throw UserError("--input-shape gives input '" + name + "' twice");
  }
  import.weights_file = file.stem().string() + ".weights";
  importer::ImportedModel m = importer::import_onnx(file, import);
  if (files_read) files_read->insert(files_read->end(), m.external_files.begin(), m.external_files.end());
  graph::ConstantFiles files;
  files.read = files_read;
  files.base_dir = file.parent_path().empty() ? "." : file.parent_path();
  files.memory.emplace(import.weights_file, std::move(m.weights));
  files.allow_outside = opts.allow_outside_files;
  try {
    return graph::parse_graph(m.json, files);
  } catch (const GraphError& e) {
    throw GraphError(e.path(), e.node(), e.op(), "in the graph imported from " + file.filename().string() + ": " + e.message());
  }
}

}  // namespace

graph::Graph load_model(const std::filesystem::path& file, const ModelOptions& opts,
                        std::vector<std::filesystem::path>* files_read) {
  std::error_code ec;
  auto status = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(status))
    throw UserError(file.string() + ": no such file");
  if (std::filesystem::is_directory(status))
    throw UserError(file.string() + ": is a directory, not a model file");
  if (::access(file.c_str(), R_OK) != 0)
    throw UserError(file.string() + ": cannot read (permission denied)");
  if (files_read) files_read->push_back(file);
  if (importer::is_onnx_path(file)) return load_onnx(file, opts, files_read);
  if (!opts.input_shapes.empty())
    throw UserError("--input-shape applies to ONNX models (.onnx) only");
  return graph::load_graph(file, files_read, opts.allow_outside_files);
}

}  // namespace stax::driver
